"""depth_relationship: depth conditions read in several photos, every photo needed, references defined by premise
photos, no text shortcut, level knobs, scene families, config errors."""

from __future__ import annotations

import ast
import copy
import dataclasses
import itertools
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mirforge import LETTERS
from mirforge.audit import audit, blind_baseline, heuristics
from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.depth_relationship.task import (
    HIDDEN_FOOT_PX,
    PLACEMENT_WEIGHTS,
    _depth_sign,
    _unseen,
    _unseen_text,
    lowest_possible_row,
)
from mirforge.generators.spatial.multiview import (
    FAMILIES,
    TIE_FOOT_PX,
    centres,
    depth_sign,
    everyday_objects,
    view_boxes,
)
from mirforge.instance import problems
from mirforge.necessity import necessity
from mirforge.placement import keep_chance, option_boxes, placement_features
from mirforge.render.objects.catalogue import model
from mirforge.render.view import View
from mirforge.task import Question, Rendered

from conftest import accepted, ask_only, attempts, generate, make_task, record, run_cli, step_facts

N_ASKED = 150


@pytest.fixture(scope="module")
def task():
    return make_task("depth_relationship")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(6)]  # two per level


@pytest.fixture(scope="module")
def asked(task):
    return [ask_only(task, i, seed=7) for i in range(N_ASKED)]


def test_records_are_valid_and_their_knobs_are_what_they_show(task, sample):
    for i, g in enumerate(sample):
        rec, level = record(g), i % 3 + 1
        assert problems(rec) == []
        knobs = g.instance.difficulty["knobs"]
        assert {k: knobs[k] for k in task.knobs(level)} == task.knobs(level)
        assert knobs["family"] in FAMILIES and knobs["form"] in knobs["forms"]
        assert len(rec["images"]) == knobs["n_views"] == rec["question"].count("<image>")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")
        for step in ("summary", "caption", "text2img", "img2img"):
            assert f"answer is {rec['answer']}" not in str(rec[step])


def test_conditions_and_premises_fill_every_photo(task, asked):
    """Conditions in every photo but the premise photos; named references are never options."""
    forms = Counter()
    for i, (scene, q) in enumerate(asked):
        f, level = q.facts, i % 3 + 1
        forms[(level, f["form"])] += 1
        assert len(scene.cameras) == task.knobs(level)["n_views"]
        used = [p["image"] for p in f["premises"]] + [c["image"] for c in f["conditions"]]
        assert sorted(used) == list(range(len(scene.cameras)))
        if f["form"] == "premise":
            assert len(f["premises"]) == task.knobs(level)["premises"]
            for image in {c["image"] for c in f["conditions"]}:  # each condition photo compares with every reference
                assert sorted(c["premise"] for c in f["conditions"] if c["image"] == image) == list(
                    range(len(f["premises"]))
                )
        for c in f["conditions"]:
            assert c["ref"] not in f["options"]
    assert set(forms) == {(1, "named"), (2, "premise"), (3, "premise")}


def test_every_photo_is_needed(task):
    """Levels 2 and 3 (a premise photo) and level 1 (named, two photos). The plans pose every photo on the scene's
    depths; measured in the rendered photos (a foot that a nearer object may hide reads as too close to tell), a
    photo now and then comes out not needed, and the pipeline redraws that question (``require_needed``)."""
    forms, idle = Counter(), 0
    for i in range(18):
        _, question, rendered = accepted(task, i, seed=11)
        assert task.consistent(question, rendered, frozenset()) == {question.answer}
        found = necessity(task, question, rendered)
        idle += not found.all_needed
        forms[question.facts["form"], len(rendered.images)] += 1
    assert forms == {("named", 2): 6, ("premise", 3): 12}, forms
    assert idle <= 2, idle


def _photo(depths):
    """A photo's measurements where each object stands at its depth, its foot the lower in the picture the nearer."""
    return {
        n: {"depth": d, "box": [0, 0, 10, round(400 - 40 * d)], "foot": round(400 - 40 * d)} for n, d in depths.items()
    }


def test_a_premise_photo_is_needed_only_where_its_reference_decides_the_answer(task):
    """The answer clearly meets every condition, and a reader who assumes one answer can use that: a premise whose
    reference one condition alone uses can be skipped, since whatever the reference is, the one answer is the option
    nearest (farthest), in that condition's photo, of those the other condition leaves (924 of 924 questions were
    answered so without the premise photo, seed 73311). The verifier now counts that reader: such a premise photo is
    not needed. Used by both conditions, it is, when another object in its reference's place would make a different
    option the one answer (the W here makes it the b)."""
    names = ["a", "b", "c", "e", "N", "X", "Z", "W"]
    photos = [
        _photo(dict(zip(names, [2, 2.5, 3, 3.5, 4, 1, 4.5, 5], strict=True))),  # the X stands nearest: the premise
        _photo(dict(zip(names, [2.5, 2, 4, 5, 3, 3.5, 1.5, 2.2], strict=True))),
        _photo(dict(zip(names, [2, 4, 1, 5, 6, 3, 3.5, 4.5], strict=True))),
    ]
    rendered = Rendered(images=[], measured={"views": photos}, regions=[])

    def question(first):  # "nearer to the camera than <first> in Image 2 and than that object in Image 3"
        conds = [
            {"image": 1, "ref": first, "dir": "nearer", "premise": None if first == "N" else 0},
            {"image": 2, "ref": "X", "dir": "nearer", "premise": 0},
        ]
        premise = {"image": 0, "extreme": "nearest", "ref": "X", "tag": None}
        facts = {"form": "premise", "names": names, "margin": 0.2, "premises": [premise], "conditions": conds}
        return Question(text="", options=list("abce"), answer=0, facts={**facts, "options": list("abce")})

    shared, named = question("X"), question("N")
    for q in (shared, named):
        assert task.consistent(q, rendered, frozenset()) == {0}
        assert (
            len(task.consistent(q, rendered, frozenset({1}))) >= 2 <= len(task.consistent(q, rendered, frozenset({2})))
        )
    assert task.consistent(shared, rendered, frozenset({0})) == {0, 1}
    assert task.consistent(named, rendered, frozenset({0})) == {0}


def _picked(scene, question):
    names = [o.name for o in scene.objects]
    return [names.index(n) for n in question.facts["options"]]


def _depths(scene, question, size):
    """Per photo, the options' depths (what the conditions compare)."""
    return [[centres(scene.objects, cam, size)[1][i] for i in _picked(scene, question)] for cam in scene.cameras]


def _feet(scene, question, size):
    """Per photo, how high the options' feet stand in the picture (the lowest rows of their projected boxes,
    negated: smaller is nearer, as a detector reads it)."""
    return [[-view_boxes(scene.objects, cam, size)[i, 3] for i in _picked(scene, question)] for cam in scene.cameras]


def _share(answer, chosen):
    """The credit of a guess among ``chosen`` option indices (every option when none)."""
    chosen = chosen or [0, 1, 2, 3]
    return (answer in chosen) / len(chosen)


def _ends(depths):
    """Per option, the photos in which it stands nearest or farthest of the options."""
    ends = [0] * 4
    for d in depths:
        ends[d.index(min(d))] += 1
        ends[d.index(max(d))] += 1
    return ends


def test_the_answer_stands_at_an_end_as_often_as_a_wrong_option(task, asked):
    """A wrong option is ruled out where it alone fails a condition, so it stands at that photo's end of the options'
    depth order. The plans keep the options' counts of ends (foot lowest or highest in the picture) within one of
    each other, the answer's the highest in half the questions and the lowest in the other half: a reader who finds
    every option's object but never reads the question gains nothing from the ends (level 2 had the answer as the
    option least often at an end in 90% of named questions, 39% of premise ones, before the ends were balanced)."""
    credit = Counter()
    sides = Counter()
    for scene, q in asked:
        depths = _depths(scene, q, task.image_size)
        ends = _ends(_feet(scene, q, task.image_size))
        assert max(ends) - min(ends) <= 1 and ends[q.answer] == (max(ends) if scene.more_ends else min(ends)), ends
        sides[scene.more_ends] += 1
        credit["fewest"] += _share(q.answer, [i for i, e in enumerate(ends) if e == min(ends)])
        credit["most"] += _share(q.answer, [i for i, e in enumerate(ends) if e == max(ends)])
        credit["never"] += _share(q.answer, [i for i, e in enumerate(ends) if e == 0])
        # a reader of the directions alone: in each condition's photo, drop the option farthest against it
        alive = {0, 1, 2, 3}
        for c in q.facts["conditions"]:
            d = depths[c["image"]]
            alive.discard(d.index(max(d) if c["dir"] == "nearer" else min(d)))
        credit["directions"] += _share(q.answer, sorted(alive))
    assert min(sides.values()) >= N_ASKED // 2 - 8, sides
    found = {k: 100 * v / N_ASKED for k, v in credit.items()}
    assert max(found["fewest"], found["most"], found["never"]) <= 28.0, found  # chance 25
    # inherent to one reference per condition: each photo's lone failing option is the end against its direction,
    # so two conditions leave two options; three (the named form's) left one: 100% at level 2
    assert found["directions"] <= 52.0, found


def _possible(depths, conds, x):
    """Whether option ``x`` could be the answer for a reader who knows how the plans are made but never finds the
    references: some threshold per condition photo (a reference's depth) fails every other option, each photo's
    failing one that no other photo's fails, and never ``x``."""
    cuts = []
    for c in conds:
        d = depths[c["image"]]
        against = sorted(range(4), key=lambda o: -d[o] if c["dir"] == "nearer" else d[o])  # from the failing end
        cuts.append([set(against[:k]) for k in range(against.index(x) + 1)])
    others = {0, 1, 2, 3} - {x}
    for failing in itertools.product(*cuts):
        alone = [f - set().union(*(g for g in failing if g is not f)) for f in failing]
        if set().union(*failing) == others and all(alone):
            return True
    return False


def _lone(scene, question, size, ref):
    """The option that alone clearly meets every condition when the premise's reference is object ``ref``, or None."""
    depth, margin = np.array([centres(scene.objects, cam, size)[1] for cam in scene.cameras]), scene.margin
    names = [o.name for o in scene.objects]
    meet = [
        i
        for i, o in enumerate(question.facts["options"])
        if all(
            (depth[c["image"], names.index(o)] - depth[c["image"], ref]) * (1 if c["dir"] == "farther" else -1)
            >= margin
            for c in question.facts["conditions"]
        )
    ]
    return meet[0] if len(meet) == 1 else None


def test_a_reader_who_never_finds_the_references_keeps_two_options_alike(task, asked):
    """The floor of the form: every photo's condition fails one wrong option alone, so a reader of the directions
    and the depth orders who never looks for the references keeps two options at best (proven by enumerating the
    plans), and the named form's plans keep exactly two; the answer's place toward the asked directions (summed over
    the photos) and its count of ends are higher than every other kept option's as often as lower. Before, that reader
    kept the answer alone in 68 / 49 / 79% of questions by level (300 each) and was right in 84 / 75 / 90%. The
    premise form's reference serves both conditions, and a reader who tries every object (not an option) in its place
    keeps two options or more: the answer, and another that some other object would make the one answer."""
    credit = Counter()
    for scene, q in asked:
        depths, conds = _depths(scene, q, task.image_size), q.facts["conditions"]
        kept = [x for x in range(4) if _possible(depths, conds, x)]
        assert len(kept) >= 2 and q.answer in kept, kept
        if q.facts["form"] == "named":
            assert len(kept) == 2
        else:
            names = [o.name for o in scene.objects]
            refs = [i for i, n in enumerate(names) if n not in q.facts["options"]]
            lone = {_lone(scene, q, task.image_size, r) for r in refs} - {None}
            assert q.answer in lone and len(lone) >= 2, lone
            kept = sorted(set(kept) | lone)
        toward = [0.0] * 4
        for c in conds:
            d = depths[c["image"]]
            for place, o in enumerate(sorted(range(4), key=lambda o: -d[o] if c["dir"] == "nearer" else d[o])):
                toward[o] += place
        ends = _ends(_feet(scene, q, task.image_size))
        for name, stat in (("toward", toward), ("ends", ends)):
            others = [stat[o] for o in kept if o != q.answer]
            credit[name] += 1.0 if stat[q.answer] > max(others) else 0.0 if stat[q.answer] < min(others) else 0.5
    found = {k: 100 * v / N_ASKED for k, v in credit.items()}
    assert all(40.0 <= v <= 60.0 for v in found.values()), found


def test_the_verifier_rejects_a_premise_the_photo_does_not_show(task):
    for i in range(1, 30, 3):
        _, question, rendered = accepted(task, i, seed=5)
        if question.facts["premises"]:
            break
    lie = copy.deepcopy(question)
    p = lie.facts["premises"][0]
    p["extreme"] = "farthest" if p["extreme"] == "nearest" else "nearest"
    with pytest.raises(Reject):
        task.verify(lie, rendered)


def test_the_verifier_follows_the_measured_depths(task):
    """Move the answer's measured depth and foot past a condition's reference: the answer changes or the verifier
    refuses."""
    for i in range(0, 30, 3):
        _, question, rendered = accepted(task, i, seed=6)
        if question.facts["form"] == "named":
            break
    f = question.facts
    c = f["conditions"][0]
    seen = rendered.measured["views"][c["image"]]
    answer, ref = seen[f["options"][question.answer]], seen[c["ref"]]
    answer["depth"] = ref["depth"] + (5.0 if c["dir"] == "nearer" else -5.0)
    answer["box"][3] = ref["box"][3] + (-50 if c["dir"] == "nearer" else 50)
    try:
        assert task.verify(question, rendered) != question.answer
    except Reject:
        pass


def test_every_default_question_shape_is_thinned(task):
    """Each shape of question the default config asks has placement weights: without them it would go unthinned."""
    for level in task.levels:
        k = task.knobs(level)
        for form in k["forms"]:
            assert (form, k["n_views"], k["premises"] if form == "premise" else 0) in PLACEMENT_WEIGHTS, (level, form)


def test_the_verifier_thins_by_where_the_options_stand_in_the_rendered_photos(task):
    """A question is kept when its draw falls below its keep chance (from the options' rendered boxes), refused
    otherwise; the draw is made when the question is asked, so the thinning is as reproducible as the rest."""
    for i in range(12):
        _, question, rendered = accepted(task, i, seed=8)
        f = question.facts
        boxes = option_boxes([(r.image, r.name, r.box) for r in rendered.regions], f["options"], len(rendered.images))
        weights = PLACEMENT_WEIGHTS[(f["form"], len(rendered.images), len(f["premises"]))]
        chance = keep_chance(placement_features(boxes, len(rendered.images)), weights, question.answer)
        assert f["thinning_draw"] < chance
        if chance < 1.0:
            break
    assert chance < 1.0
    above = copy.deepcopy(question)
    above.facts["thinning_draw"] = chance
    with pytest.raises(Reject, match="thinned"):
        task.verify(above, rendered)
    unthinned = make_task("depth_relationship", even_placement=False)
    assert unthinned.verify(above, rendered) == question.answer


def test_the_fitting_script_reads_an_unthinned_split(tmp_path):
    """scripts/fit_depth_placement.py, as its docstring runs it: weights for every shape the split holds."""
    out = tmp_path / "fit"
    args = ["--tasks", "depth_relationship", "--n", "30", "--seed", "5", "--out", str(out), "-q"]
    assert run_cli("generate", *args, "--set", "depth_relationship.even_placement=false") == 0
    script = Path(__file__).parents[1] / "scripts" / "fit_depth_placement.py"
    done = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    weights = ast.literal_eval(done.stdout[done.stdout.index("{") :])
    assert set(weights) == set(PLACEMENT_WEIGHTS) and all(len(w) == 8 for w in weights.values()), weights
    assert "held out (5 folds)" in done.stdout
    thinned = subprocess.run(
        [sys.executable, str(script), str(out), "--thin", "0"], capture_output=True, text=True, timeout=300
    )
    assert thinned.returncode == 0, thinned.stderr

    def questions(stdout: str) -> int:
        return sum(int(m) for m in re.findall(r": (\d+) questions", stdout))

    assert 0 < questions(thinned.stdout) < questions(done.stdout) == 30  # --thin keeps some, as the verifier would


def test_text_alone_does_not_give_the_answer(asked):
    records = [
        {"question": q.text, "options": dict(zip(LETTERS, q.options, strict=False)), "answer": q.letter}
        for _, q in asked
    ]
    assert blind_baseline(records) <= 33.0  # chance 25, plus the audit's margin and this sample's noise
    assert max(heuristics(records).values()) <= 33.0


def test_the_answer_is_the_biggest_option_no_more_often_than_the_smallest(asked):
    """The names say which objects are bigger, and big answers meet the conditions more easily: unthinned, the
    largest option was the answer in 31% of premise questions and the smallest in 20% (mean rank 1.70). The plans are
    thinned by the answer's size rank (options smaller than it, by volume) so that every rank is as common."""
    ranks = Counter()
    for scene, q in asked:
        volume = [math.prod(next(o for o in scene.objects if o.name == n).size) for n in q.facts["options"]]
        ranks[sum(v < volume[q.answer] for v in volume)] += 1
    assert min(ranks[r] for r in range(4)) >= N_ASKED // 4 - 12, ranks
    assert sum(r * n for r, n in ranks.items()) / N_ASKED <= 1.62, ranks  # even: 1.5, standard error 0.09


def test_objects_of_one_kind_carry_a_colour_word(asked):
    for scene, _ in asked:
        kinds = Counter(o.shape for o in scene.objects)
        for obj in scene.objects:
            if scene.family == "shapes":
                assert obj.name.split()[-1] in ("cube", "block", "cylinder", "cone", "ball")
            elif kinds[obj.shape] > 1:
                noun = model(obj.shape, obj.variant).painted_noun(obj.color)  # a painted cardboard box is a "box"
                assert obj.name.endswith(" " + noun) and obj.name != noun
            else:
                assert obj.name == model(obj.shape, obj.variant).noun  # "beach ball", not "ball" beside a soccer ball
        assert len({o.name for o in scene.objects}) == len(scene.objects)


def test_families_are_drawn_and_can_be_restricted():
    task = make_task("depth_relationship")
    seen = Counter(ask_only(task, i, seed=2)[0].family for i in range(40))
    assert set(seen) == set(FAMILIES) and min(seen.values()) >= 5, seen
    one = make_task("depth_relationship", family="yard")
    assert {ask_only(one, i)[0].family for i in range(6)} == {"yard"}


def test_kinds_materials_and_floors_can_be_narrowed():
    from mirforge.render.objects import model

    room = ("chair", "stool", "table", "trash bin", "suitcase", "floor lamp", "table lamp", "flower pot", "globe")
    task = make_task("depth_relationship", family="room", kinds=",".join(room), backdrops="carpet")
    scenes = [ask_only(task, i, seed=5)[0] for i in range(4)]
    assert {o.shape for s in scenes for o in s.objects} <= set(room)
    assert {s.look.backdrop.floor for s in scenes} == {"carpet"}
    glassy = make_task("depth_relationship", families="tabletop", materials="glass,metal,ceramic,plastic,paper")
    made = {model(o.shape, o.variant).material for i in range(4) for o in ask_only(glassy, i, seed=5)[0].objects}
    assert made <= {"glass", "metal", "ceramic", "plastic", "paper"} and len(made) >= 3, made


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match=r"depth_relationship\.family: unknown family 'moon'; families: tabletop"):
        make_task("depth_relationship", family="moon")
    with pytest.raises(InputError, match="depth_relationship.forms_per_level"):
        make_task("depth_relationship", forms_per_level="named,named,premise")  # 3 conditions: 2 at most
    with pytest.raises(InputError, match=r"premises_per_level: 'premise' with 4 photos asks 3 conditions, 2 at most"):
        make_task("depth_relationship", views_per_level="2,3,4")
    # one condition photo: the answer would be the option nearest (farthest) in it, 334 of 335 when level 1 had it
    with pytest.raises(InputError, match=r"premises_per_level: 'premise' with 2 photos and 1 premise photos asks one"):
        make_task("depth_relationship", forms_per_level="named+premise,premise,premise")
    with pytest.raises(InputError, match=r"depth_relationship\.forms_per_level: .*'named\+closest'"):
        make_task("depth_relationship", forms_per_level="named,named+closest,premise")
    with pytest.raises(InputError, match="depth_relationship.premises_per_level"):
        make_task("depth_relationship", premises_per_level="1,3,2")
    with pytest.raises(InputError, match="depth_relationship.views_per_level"):
        make_task("depth_relationship", views_per_level="2,4,9")
    with pytest.raises(InputError, match="depth_relationship.depth_margin"):
        make_task("depth_relationship", depth_margin="0.5,0,0.3")


@pytest.mark.slow
def test_a_perfect_detector_that_ignores_the_question_finds_nothing(tmp_path):
    """The audit's placement baseline (where each option's object stands among the options' objects in every photo,
    from the regions) on 400 instances: no bound broken, within a few points of chance. Before the ends were balanced
    it found the answer in 40.6% at n = 400 (60.9% at level 2) and the audit failed the task; before the questions
    were thinned (``_thinned``), 31.6-33.7% at n = 1,200."""
    out = tmp_path / "split"
    assert run_cli("generate", "--tasks", "depth_relationship", "--n", "400", "--seed", "4242", "--out", str(out)) == 0
    [result] = audit(out, sample=0)
    [found] = [s for s in result.shortcuts if s.name == "placement"]
    assert found.n == 400 and not result.violations, result.violations
    # unthinned (even_placement off), the audit's scorer (a conditional logit per level) read 31.6 and 33.7 at
    # n = 1,200 (seeds 38001, 38005; level 2 at 37-38); thinned, 24.0 on this split (levels 20.9 / 27.8 / 23.3) and
    # 24.8-30.1 a level on two splits of 1,200 (the task's docstring). Standard error ~2.2 points at n = 400, ~3.8 a
    # level
    assert found.value <= 31.0 and max(found.by_level.values()) <= 36.0, (found.value, found.by_level)


def test_a_pair_of_glasses_painted_two_colours_is_called_tumblers():
    """Painted one opaque colour, a glass no longer looks like glass: the pair is named by its shape, as view_3d
    names its painted glasses."""
    names = [o.name for o in everyday_objects(np.random.default_rng(0), "tabletop", 2, pair=True, kinds=("glass",))]
    assert len(names) == 2 and all(n.endswith(" tumbler") for n in names) and names[0] != names[1]


def test_a_foot_behind_a_nearer_object_may_reach_down_to_where_the_floor_shows():
    ids, depth = np.zeros((20, 10), np.int16), np.zeros((20, 10), np.float32)
    ids[2:8, 2:6], depth[2:8, 2:6] = 1, 5.0  # object 0, rows 2-7
    ids[8:14, 4:9], depth[8:14, 4:9] = 2, 3.0  # a nearer object just under part of it, rows 8-13
    assert lowest_possible_row(ids, depth, 0, [2, 2, 6, 8]) == 14
    depth[8:14, 4:9] = 7.0  # a farther one there: object 0 would cover it, so its foot ends where it shows
    assert lowest_possible_row(ids, depth, 0, [2, 2, 6, 8]) == 8
    far = {"depth": 8.0, "box": [0, 0, 10, 224], "foot": 258}  # its lowest visible row 224, the rest may hide
    near = {"depth": 6.0, "box": [0, 0, 10, 229], "foot": 229}
    assert depth_sign(far, near, 0.2) == 1 and _depth_sign(far, near, 0.2) == 0
    assert _depth_sign(far, {**near, "box": [0, 0, 10, 224 + HIDDEN_FOOT_PX + 3]}, 0.2) == 1  # a safe margin
    assert _depth_sign({**far, "foot": 224}, near, 0.2) == 1  # a visible foot


def test_a_comparison_never_rests_on_a_foot_that_may_be_hidden():
    """Seed 61616, index 2 (eye review): in Image 2 the orange cube "did not" stand nearer than the yellow ball
    because its lowest visible row was 5 rows higher, but the blue cube in front hid its foot, which may reach
    lower. The verifier now reads that comparison as too close to tell and refuses the question. Over 120
    instances (seed 777) it refused 14 of the 134 renders the old rule accepted, for 10% more renders. Since the
    premise's reference serves both conditions, that index draws the same case against a yellow cube."""
    task = make_task("depth_relationship")
    options = ["purple block", "green cylinder", "orange cube", "pink ball"]
    scene, question = next((s, q) for s, q in attempts(task, 2, seed=61616) if q.facts["options"] == options)
    rendered = task.render(scene, question)
    seen, margin = rendered.measured["views"][1], question.facts["margin"] / 2
    cube, ball = seen["orange cube"], seen["yellow cube"]
    assert 0 < ball["box"][3] - cube["box"][3] < HIDDEN_FOOT_PX and cube["foot"] > ball["box"][3]
    assert depth_sign(cube, ball, margin) == 1 and _depth_sign(cube, ball, margin) == 0
    with pytest.raises(Reject):
        task.verify(question, rendered)


def test_an_unseen_object_is_said_to_be_hidden_behind_what_hides_it_or_outside_the_picture():
    """An object that shows only a few pixels used to be "hidden or barely visible"; it is said to be behind what
    hides it (seed 61616, index 25: the toy car behind the basketball in Image 2), and an object outside the picture
    is said to be so."""
    task = make_task("depth_relationship")
    scene, question, rendered = accepted(task, 25, seed=61616)
    caption = record(generate(task, 25, seed=61616))["caption"][1]
    assert "The toy car is mostly hidden behind the basketball here." in caption
    names = question.facts["names"]
    view = View(rendered.images[1], np.zeros_like(rendered.images[1][..., 0], dtype=np.int16), None)  # none shows
    car = names.index("toy car")
    moved = tuple(
        dataclasses.replace(o, position=(o.position[0] + 40, o.position[1])) if k == car else o
        for k, o in enumerate(scene.objects)
    )
    assert _unseen_text(_unseen(view, {}, moved, scene.cameras[1], names)["toy car"]) == "outside the picture"
    assert _unseen_text(_unseen(view, {}, scene.objects, scene.cameras[1], names)["toy car"]) == "barely visible"


@pytest.mark.parametrize("index", [13, 91])
def test_the_answer_clearly_meets_every_condition_and_a_tie_looks_like_one(index):
    """In every condition photo the answer stands clearly on the asked side of the reference (the verifier finds it as
    the one option no photo rules out, so it could be too close to tell), and an option the steps call too close to
    tell has its lowest point within TIE_FOOT_PX rows of the reference's. Seed 73101 accepted index 13 with the
    answer "too close to tell" in one photo, and index 91 with it 24 rows higher than the reference and called too
    close, the conclusion then saying it met every condition."""
    facts, _ = step_facts(make_task("depth_relationship"), index, seed=73101)
    for c in facts["conditions"]:
        assert facts["answer_name"] in [r["name"] for r in c["holding"]], c
        assert all(abs(r["base"] - c["ref_base"]) <= TIE_FOOT_PX for r in c["close"]), c


def test_a_premise_names_every_object_tied_next_to_the_one_it_picks(task):
    """'The next is the mug at y = 214' where the alarm clock's lowest point was at 214 too (seed 73201 #95): objects
    tied next are named together."""
    from mirforge.templates import render_steps

    for index in range(12):
        scene, question, rendered = accepted(task, index, seed=73201)
        if question.facts["premises"]:
            break
    p = question.facts["premises"][0]
    view, ref = rendered.measured["views"][p["image"]], p["ref"]
    lowest = p["extreme"] == "nearest"
    others = sorted((n for n in view if n != ref), key=lambda n: view[n]["box"][3], reverse=lowest)
    assert task.step_facts(scene, question, rendered)["premises"][0]["runners"] == others[:1]
    tied = copy.deepcopy(rendered)
    tied.measured["views"][p["image"]][others[1]]["box"][3] = view[others[0]]["box"][3]  # the third ties the next
    facts = task.step_facts(scene, question, tied)
    assert facts["premises"][0]["runners"] == others[:2]
    facts.update(answer=question.letter, options=question.lettered())
    img2img = render_steps(task, facts, len(rendered.images), np.random.default_rng(0)).img2img
    pair = f"the {others[0]} and the {others[1]}"
    assert f"(the next are {pair} at y = {view[others[0]]['box'][3]})" in img2img
