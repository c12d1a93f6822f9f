"""weight_comparison: verifier from the tilt in the pixels, every picture needed, no repeated picture, families,
config errors, no text-only shortcut."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from mirforge.errors import InputError
from mirforge.generators.analytical.weight_comparison.task import (
    FAMILIES,
    LOOKALIKES,
    SHOWN_STYLES,
    _chains,
    _least_below_every_edge,
    _relation,
    _tilt_of,
    solve,
)
from mirforge.render.objects.catalogue import model
from mirforge.task import Question, Rendered

from conftest import accepted, ask_only, generate, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("weight_comparison")


def test_verifier_reads_the_tilt_and_rejects_a_planted_wrong_answer(task):
    scene, question, rendered = accepted(task, 4, seed=3)
    for picture, comp in zip(rendered.measured["pictures"], scene.comparisons, strict=True):
        drop = picture["left_pan_y"] - picture["right_pan_y"]
        tilt = _tilt_of(scene, comp)
        assert (drop > 24) == (tilt < 0) and (drop < -24) == (tilt > 0) and (abs(drop) <= 8) == (tilt == 0)
    assert task.verify(question, rendered) == question.answer
    wrong = copy.deepcopy(question)
    wrong.answer = (question.answer + 1) % len(question.options)
    assert task.verify(wrong, rendered) != wrong.answer


def test_every_picture_is_needed_and_none_repeats(task):
    """Hiding any one picture leaves at least two options consistent; no two pictures weigh the same loads and no
    two images of an instance are the same bytes."""
    needed = total = 0
    for i in (1, 2, 4, 5, 7, 8):  # levels 2 and 3
        g = generate(task, i, seed=4)
        assert g.instance.difficulty["level"] in (2, 3)
        total += 1
        needed += all(g.instance.provenance["needed"])
        assert len(set(g.images)) == len(g.images)
    assert needed / total >= 0.95, (needed, total)
    for i in range(60):
        scene, _ = ask_only(task, i, seed=8)
        loads = [frozenset(map(frozenset, c)) for c in scene.comparisons]
        assert len(set(loads)) == len(loads)


def test_hiding_a_picture_frees_a_wrong_option(task):
    scene, question, rendered = accepted(task, 5, seed=1)
    assert task.consistent(question, rendered, frozenset()) == {question.answer}
    for k in range(len(rendered.images)):
        alive = task.consistent(question, rendered, frozenset({k}))
        assert question.answer in alive and len(alive) >= 2, (k, alive)


def _weighings(names: list[str], pictures: list[tuple[str, str, str]]) -> Rendered:
    """Measurements of pictures (heavier, lighter, "greater" | "equal"), the heavier load on the left pan."""
    measured = [
        {
            "pivot_x": 200.0,
            "left_pan_y": 240.0 if kind == "greater" else 200.0,
            "right_pan_y": 200.0,
            "objects": [{"name": heavy, "x": 100.0}, {"name": light, "x": 300.0}],
        }
        for heavy, light, kind in pictures
    ]
    images = [np.zeros((4, 4, 3), np.uint8)] * len(pictures)
    return Rendered(images=images, measured={"pictures": measured, "names": names, "qtype": "lightest"}, regions=[])


def test_a_lightest_option_needs_one_picture_to_prove_it(task):
    """Seed 90101 #17: hiding the thermos against the glass of juice cut off two branches, one to the apple, one to the
    wine bottle, and both were counted as possible lightest. One more picture proves one object lighter than one
    other object only (an object rising against a pan is lighter than the load, not than each object on it), and
    neither could be proved lighter than both the glass and the other, so the picture was not needed."""
    names = ["glass of juice", "apple", "teapot", "wine bottle", "thermos", "kettle", "jar", "mug"]
    pictures = [
        ("apple", "kettle", "greater"),
        ("kettle", "thermos", "greater"),
        ("jar", "wine bottle", "equal"),
        ("jar", "thermos", "greater"),
        ("teapot", "mug", "greater"),
        ("mug", "wine bottle", "greater"),
        ("thermos", "glass of juice", "equal"),
    ]
    question = Question(text="", options=["glass of juice", "apple", "teapot", "wine bottle"], answer=0, facts={})
    rendered = _weighings(names, pictures)
    assert task.verify(question, rendered) == 0
    assert task.consistent(question, rendered, frozenset()) == {0}
    assert task.consistent(question, rendered, frozenset({6})) == {0}  # neither the apple nor the wine bottle
    assert task.consistent(question, rendered, frozenset({1})) == {0, 1}  # the apple alone below the cut
    # the plans keep one wrong option leading to the others below every edge of a lightest tree
    assert _least_below_every_edge([-1, 5, 0, 4, 0, 3], 3)  # 0 -> 4 -> 3 -> 5 -> 1: option 3 leads to option 1
    assert not _least_below_every_edge([-1, 5, 0, 4, 0, 4], 3)  # 0 -> 4 -> (3, 5 -> 1): options 3 and 1 apart
    questions = {"heaviest": 0, "lightest": 0}
    for i in range(40):
        scene, _ = ask_only(task, i, seed=6)
        questions[scene.qtype] += 1
    assert questions == {"heaviest": 20, "lightest": 20}  # balanced, though lightest trees are redrawn more often


def test_answers_need_chaining_and_are_unique(task):
    counts = {1: set(), 2: set(), 3: set()}
    for i in range(150):
        scene, q = ask_only(task, i)
        n = len(scene.names)
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        opts = [scene.names.index(o) for o in q.options]
        answer = solve(scene.qtype, n, relations, opts)
        assert answer is not None and scene.names[answer] == q.options[q.answer]
        w = scene.weights[answer]
        others = [scene.weights[o] for o in opts if o != answer]
        assert all(w > x for x in others) if scene.qtype == "heaviest" else all(w < x for x in others)
        # the answer meets at most some of the wrong options directly: the others need a chain
        direct = {k for c in scene.comparisons if answer in c[0] + c[1] for k in c[0] + c[1]}
        assert not set(opts) <= direct
        assert q.text.count("<image>") == len(scene.comparisons)
        counts[i % 3 + 1].add(len(scene.comparisons))
    assert max(counts[1]) < min(counts[3]) and max(counts[3]) >= 6, counts


def test_the_answer_is_not_the_one_option_that_never_loses(task):
    """At levels 2 and 3 a wrong option balances a link, so it never rises either (lightest: never sinks), and the
    answer balances a link too: neither "never loses" nor "never on a level beam" singles out the answer."""
    for i in range(1, 90, 3):  # level 2, then level 3
        for j in (i, i + 1):
            scene, q = ask_only(task, j, seed=11)
            losers, level = set(), set()
            for comp in scene.comparisons:
                tilt = _tilt_of(scene, comp)
                if tilt == 0:
                    level |= set(comp[0] + comp[1])
                    continue
                heavy, light = (comp[0], comp[1]) if tilt < 0 else (comp[1], comp[0])
                losers |= set(light if scene.qtype == "heaviest" else heavy)
            unbeaten = [o for o in scene.options if o not in losers]
            assert scene.options[0] in unbeaten and len(unbeaten) == 2, (j, unbeaten)
            assert set(unbeaten) <= level


def test_families_are_knobs_and_an_unknown_family_is_one_line(task):
    seen = {generate(task, i, seed=6).instance.difficulty["knobs"]["family"] for i in range(4)}
    assert len(seen) >= 2 and seen <= set(FAMILIES)
    with pytest.raises(InputError, match="weight_comparison.families.*kitchen"):
        make_task("weight_comparison", families="kitchen,garage")


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="weight_comparison.objects_per_level"):
        make_task("weight_comparison", objects_per_level="3,4,9")


def test_options_give_no_text_only_shortcut(task):
    from mirforge.audit import heuristics

    records = []
    for i in range(200):
        _, q = ask_only(task, i, seed=9)
        records.append({"question": q.text, "options": q.lettered(), "answer": q.letter})
    scores = heuristics(records)
    assert all(v is None or v <= 36 for v in scores.values()), scores


def test_no_two_objects_of_an_instance_look_alike(task):
    """A water bottle and a wine bottle (both clear) are never weighed in one instance: the names would not say
    which is which."""
    seen = set()
    for i in range(120):
        scene, _ = ask_only(task, i, seed=5)
        assert len(set(scene.names)) == len(scene.names)
        assert all(len(group & set(scene.kinds)) <= 1 for group in LOOKALIKES), scene.kinds
        seen |= set(scene.kinds)
    assert all(group <= seen for group in LOOKALIKES)  # each kind still drawn, only not together


def test_the_chains_write_each_picture_once(task):
    """The chains from the answer to the wrong options share their first links; each picture is written once
    (a two-object pan once per object on it), and every option is in them."""
    for i in range(60):
        scene, q = ask_only(task, i, seed=7)
        names = list(scene.names)
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        opts = [names.index(o) for o in q.options]
        answer = opts[q.answer]
        chains = _chains(scene.qtype, relations, answer, [o for o in opts if o != answer], names)
        text = "; ".join(chains)
        cited = sorted(int(k) for k in re.findall(r"\(Image (\d+)\)", text))
        assert cited == sorted(k + 1 for k, (_, light, _) in enumerate(relations) for _ in light), text
        assert all(o in text for o in q.options), text


def test_objects_keep_their_real_order_of_size(task):
    """An apple is drawn smaller than a kettle and a wine bottle taller than a mug (sizes pressed together, not
    drawn at random: a random size made an apple as big as a melon); a glass is a glass of juice, since an empty
    clear glass renders as an opaque white cup."""
    for i in range(40):
        scene, _ = ask_only(task, i, seed=8)
        real = [max(model(k, v).extents) for k, v in zip(scene.kinds, scene.variants, strict=True)]
        for a in range(len(real)):
            for b in range(len(real)):
                if real[a] > 1.4 * real[b]:  # beyond what the +-10% jitter can undo ((1.1 / 0.9) ** (1 / 0.6))
                    assert scene.sizes[a] > scene.sizes[b], (scene.kinds[a], scene.kinds[b])
        for k, v in zip(scene.kinds, scene.variants, strict=True):
            assert k not in SHOWN_STYLES or model(k, v).style in SHOWN_STYLES[k]


def test_recorded_knobs_say_what_was_drawn():
    """Level 3 puts two objects on a pan only in heaviest questions: a lightest one records none."""
    task = make_task("weight_comparison")
    seen = {"heaviest": set(), "lightest": set()}
    for i in range(2, 45, 3):
        rec = record(generate(task, i, seed=2))
        assert rec["difficulty"]["level"] == 3
        qtype = "lightest" if "lightest" in rec["question"] else "heaviest"
        seen[qtype].add(rec["difficulty"]["knobs"]["two_object_pans"])
    assert seen["lightest"] == {False} and True in seen["heaviest"], seen


def test_an_object_has_one_size_in_every_picture(task):
    """An object that shares a pan somewhere is drawn at that smaller size in its other pictures too, and a glass of
    juice is never weighed beside a can (both a coloured cylinder with a pale rim)."""
    from mirforge.generators.analytical.weight_comparison.task import _scale_objects

    checked = 0
    for i in range(2, 60, 3):  # level 3: two-object pans in heaviest questions
        scene, _ = ask_only(task, i, seed=4)
        shared = {o for comp in scene.comparisons for pan in comp if len(pan) == 2 for o in pan}
        if not shared:
            continue
        heights: dict[str, set[float]] = {}
        for comp in scene.comparisons:
            objs, roles = _scale_objects(scene, comp, _tilt_of(scene, comp), (0, 0, 0), (0, 0, 0))
            for name, k in roles["objects"]:
                heights.setdefault(name, set()).add(round(objs[k].size[2], 6))
        assert all(len(h) == 1 for h in heights.values()), heights
        checked += 1
    assert checked >= 3


def test_the_whole_balance_is_inside_the_frame(task):
    """Both pans and their loads are drawn whole, a few pixels clear of every edge: a near camera turned a little
    cut a pan off at the side of the picture."""
    margin = 4
    for i in (0, 4, 5, 8, 10, 17):  # each level; 5, 10 and 17 cut a pan before the camera was fitted
        _, _, rendered = accepted(task, i, seed=4651)
        size = rendered.images[0].shape[1]
        for region in rendered.regions:
            x0, y0, x1, y1 = region.box
            assert min(x0, y0, size - x1, size - y1) >= margin, (i, region)
