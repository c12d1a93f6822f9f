"""location_relationship: identical twins told apart only in the premise images, every image needed, no shortcut
through the cue or the options, level knobs, scene families, catalogue names, config errors."""

from __future__ import annotations

import copy
import re
from collections import Counter

import numpy as np
import pytest

from mirforge import LETTERS
from mirforge.audit import blind_baseline, heuristics
from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.location_relationship.task import COMBOS, PAIRS, _anchor, _geometry, _naive
from mirforge.generators.spatial.multiview import FAMILIES, TIE_FOOT_PX
from mirforge.instance import problems
from mirforge.necessity import necessity
from mirforge.render.objects.catalogue import model
from mirforge.seeding import balanced_variant
from mirforge.templates import render_steps

from conftest import accepted, ask_only, generate, make_task, record, step_facts

N_ASKED = 240  # questions drawn without rendering


@pytest.fixture(scope="module")
def task():
    return make_task("location_relationship")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(6)]  # two per level, both kinds at levels 2 and 3


@pytest.fixture(scope="module")
def asked(task):
    return [ask_only(task, i, seed=7) for i in range(N_ASKED)]


@pytest.fixture(scope="module")
def hard(task):
    """Accepted instances at levels 2 and 3, as the pipeline takes them."""
    return [accepted(task, i, seed=11) for i in range(18) if i % 3 != 0]


def test_records_are_valid_and_their_knobs_are_what_they_show(task, sample):
    for i, g in enumerate(sample):
        rec, level = record(g), i % 3 + 1
        assert problems(rec) == []
        knobs = g.instance.difficulty["knobs"]
        assert g.instance.difficulty["level"] == level
        assert {k: knobs[k] for k in task.knobs(level)} == task.knobs(level)
        assert knobs["family"] in FAMILIES and knobs["kind"] in knobs["kinds"]
        premise = knobs["twins"] - 1
        views = premise + (knobs["asked_views"] if knobs["kind"] == "relation" else task.config.n_options)
        assert len(rec["images"]) == knobs["n_views"] == views == rec["question"].count("<image>")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")
        for step in ("summary", "caption", "text2img", "img2img"):
            assert f"answer is {rec['answer']}" not in str(rec[step])


class _Always:
    """A stand-in RNG for the templates: every pick() takes the k-th phrasing (the last, when there are fewer)."""

    def __init__(self, k: int) -> None:
        self.k = k

    def integers(self, n: int) -> int:
        return min(self.k, n - 1)


def test_every_phrasing_says_who_asks(task):
    """Whichever opener the summary draws, its 'asks about' has a subject, and the asked views are named as the
    question's (one view, or two), never as 'viewpoints asked about'."""
    for index in range(3):  # one asked image at level 1, two at levels 2 and 3
        facts, n_images = step_facts(task, index, seed=3)
        for k in range(3):
            steps = render_steps(task, facts, n_images, _Always(k))
            assert re.search(r"; (it asks|the question asks|I am asked) about one ", steps.summary), steps.summary
            text = " ".join([steps.summary, steps.text2img, steps.img2img, steps.conclusion])
            assert "; asks about" not in text and "twins" not in text
            assert not re.search(r"(?<!I am )asked about", text)
            if facts["kind"] == "relation":
                assert re.search(r"the question asks about|The question asks about Images? \d", steps.text2img)


def test_the_twin_is_followed_by_a_neighbour_it_stands_closer_to_or_farther_from(asked):
    """The img2img step names the object the twin meant is followed by: on the floor, every other twin stands at
    least 1/0.7 times as far from it as the twin meant does, or (a twin standing apart) the twin meant stands at
    least 1/0.7 times as far from it as every other twin. Most scenes have a neighbour of the first kind, and those
    of the second kind leave few scenes with none."""
    sides = Counter()
    for scene, q in asked[:80]:
        r = q.facts["labels"].index(q.facts["referent"])
        anchor = _anchor(scene.objects, scene.twins, r, set(range(len(scene.objects))), [])
        sides[anchor["side"] if anchor else None] += 1
        if anchor is None:
            continue
        at = np.array([o.position for o in scene.objects])
        (o,) = [i for i in range(scene.twins, len(at)) if scene.objects[i].name == anchor["name"]]
        own = np.linalg.norm(at[r] - at[o])
        others = [np.linalg.norm(at[t] - at[o]) for t in range(scene.twins) if t != r]
        if anchor["side"] == "closer":
            assert own <= 0.7 * min(others)
        else:
            assert max(others) <= 0.7 * own
    assert sides["closer"] > 40 and sides["farther"] > 0 and sides[None] <= 12, sides


@pytest.mark.parametrize("index", [178, 13, 28])
def test_the_neighbour_named_looks_so_in_every_picture(task, index):
    """The twin meant "stands closer to" (farther from) the neighbour the steps name in every picture too, foot to
    foot in pixels, not only on the floor: seed 73121's index 178 named a wine glass that the other glass stood
    nearer to in Image 3 (88 against 120 pixels), where the view foreshortened the floor."""
    _, question, rendered = accepted(task, index, seed=73121)
    anchor = step_facts(task, index, seed=73121)[0]["anchor"]
    assert anchor is not None
    f, seen = question.facts, rendered.measured["views"]
    twins = list(f["twins"])
    (label,) = [n for n, name in zip(f["labels"], f["names"], strict=True) if name == anchor["name"]]
    for m in seen:
        if any(t not in m for t in twins):
            continue
        foot = {n: np.array([(m[n]["box"][0] + m[n]["box"][2]) / 2, m[n]["box"][3]]) for n in [label, *twins]}
        gaps = {t: np.linalg.norm(foot[t] - foot[label]) for t in twins}
        own = gaps.pop(f["referent"])
        assert own < min(gaps.values()) if anchor["side"] == "closer" else own > max(gaps.values()), (m, anchor)


def test_the_neighbour_named_shows_in_every_view(task):
    """A neighbour hidden in one view cannot carry the twin from view to view: the one named is measured in all."""
    named = 0
    for index in range(12):
        facts, _ = step_facts(task, index, seed=62626)
        if facts["anchor"] is None:
            continue
        named += 1
        for image in facts["images"]:
            assert facts["anchor"]["name"] in [o["name"] for o in image["order"]], (index, image["hidden"])
    assert named >= 8


def test_the_scene_holds_the_twins_the_level_asks_for(task, asked):
    for i, (scene, q) in enumerate(asked[:60]):
        k = task.knobs(i % 3 + 1)
        assert len(scene.objects) == k["n_objects"] and scene.twins == k["twins"]
        names = [o.name for o in scene.objects]
        twin = names[0]
        assert names[: scene.twins] == [twin] * scene.twins and twin not in names[scene.twins :]
        assert len(set(names[scene.twins :])) == len(names) - scene.twins  # every other object has its own name
        assert {o.size for o in scene.objects[: scene.twins]} == {scene.objects[0].size}  # identical
        assert f"{('two', 'three')[scene.twins - 2]} identical" in q.text


def test_catalogue_objects_are_called_by_their_kind(asked):
    for scene, _ in asked:
        for obj in scene.objects:
            if scene.family == "shapes":
                assert obj.name.split()[-1] in ("cube", "block", "cylinder", "cone", "ball"), obj.name
            else:
                assert obj.name == model(obj.shape, obj.variant).noun, obj  # the kind's name, or its style's


def test_every_image_is_needed_and_the_candidates_alone_decide_nothing(task, hard):
    """With nothing hidden only the answer fits; hiding any evidence image (a premise or an asked image) leaves at
    least two options; for view_match the candidate images alone (the premise hidden) leave two or more."""
    kinds = Counter()
    for _, question, rendered in hard:
        assert task.consistent(question, rendered, frozenset()) == {question.answer}
        found = necessity(task, question, rendered)
        assert found is not None and found.all_needed, found
        roles = task.roles(question, rendered)
        for k, role in enumerate(roles):
            if role == "evidence":
                assert len(task.consistent(question, rendered, frozenset({k}))) >= 2, (k, roles)
        if question.facts["kind"] == "view_match":
            evidence = frozenset(k for k, r in enumerate(roles) if r == "evidence")
            assert len(task.consistent(question, rendered, evidence)) >= 2
            assert roles.count("option") == task.config.n_options
        kinds[question.facts["kind"]] += 1
    assert set(kinds) == {"relation", "view_match"}


def test_provenance_records_every_image_needed(sample):
    for g in sample[1:]:
        if g.instance.difficulty["level"] == 1:
            continue
        needed = g.instance.provenance["needed"]
        assert all(n is not False for n in needed) and any(needed), needed


def test_the_verifier_rejects_a_premise_the_image_does_not_show(task):
    scene, question, rendered = accepted(task, 0, seed=5)
    lie = copy.deepcopy(question)
    opposite = {"left": "right", "right": "left", "nearer": "farther", "farther": "nearer"}
    lie.facts["premise"][0]["cue"] = opposite[lie.facts["premise"][0]["cue"]]
    with pytest.raises(Reject):
        task.verify(lie, rendered)


def test_an_answer_image_that_hides_the_landmark_is_refused(task):
    """Eliminating the other candidates is not enough: the image pointed at must show the relation asked for (with
    the landmark unmeasured there, no option clearly holds)."""
    for i in range(1, 30, 3):
        _, question, rendered = accepted(task, i, seed=6)
        if question.facts["kind"] == "view_match":
            break
    f = question.facts
    assert task.verify(question, rendered) == question.answer
    del rendered.measured["views"][f["candidates"][question.answer]][f["landmark"]]
    with pytest.raises(Reject, match="no option clearly holds"):
        task.verify(question, rendered)


@pytest.mark.parametrize("index", [13, 143])
def test_a_candidate_called_about_as_far_has_its_foot_about_as_low(task, index):
    """Where the steps say a candidate image shows the twin "about as far from the camera" as the landmark, their
    lowest points are within TIE_FOOT_PX rows. Seed 73101 accepted these indices with the depths too close to tell
    and the feet 25 and 28 rows apart: a person reads one as nearer, and the steps said they were level."""
    facts, _ = step_facts(task, index, seed=73101)
    assert facts["kind"] == "view_match"
    level = [c for c in facts["candidates"] if c["nf"] is None]
    assert all(abs(c["r_base"] - c["l_base"]) <= TIE_FOOT_PX for c in level), level


def test_the_verifier_follows_the_measured_relation(task):
    """Swap the measured centres of the twin meant and the landmark in an asked image: the answer moves or the
    verifier refuses."""
    for i in range(12):
        _, question, rendered = accepted(task, i, seed=6)
        if question.facts["kind"] == "relation":
            break
    f = question.facts
    part = next(p for p in f["parts"] if p["rel"] == "lr")
    seen = rendered.measured["views"][part["image"]]
    seen[f["referent"]]["cx"], seen[f["landmark"]]["cx"] = seen[f["landmark"]]["cx"], seen[f["referent"]]["cx"]
    try:
        assert task.verify(question, rendered) != question.answer
    except Reject:
        pass


def test_reading_the_cue_in_the_asked_image_is_a_coin(asked):
    """The premise cue read (wrongly) in the first asked image picks the twin meant exactly when the balanced
    variant says so: about half the time, no better than guessing between the twins a hidden premise leaves."""
    hits = []
    for scene, q in asked:
        f = q.facts
        geo = _geometry(scene, 448)
        image_of = f["order"]
        first = image_of[f["parts"][0]["image"]] if f["kind"] == "relation" else image_of[q.answer + len(f["premise"])]
        cues = [(image_of[p["image"]], p["cue"], f["labels"].index(p["twin"])) for p in f["premise"]]
        twins = list(range(scene.twins))
        hits.append(_naive(geo, first, cues, twins) == f["labels"].index(f["referent"]))
    assert abs(np.mean(hits) - 0.5) < 0.08, np.mean(hits)


def test_copying_or_reversing_the_cue_word_is_a_coin(asked):
    """A cue's word ("the mug on the left") agrees with the answer's relation of the same kind exactly when the
    balanced variant says so: drawn freely, the answer reversed it 61% of the time, a text-only shortcut."""
    agree = []
    for _, q in asked:
        f = q.facts
        said = {}
        if f["kind"] == "relation":
            for p, s in zip(f["parts"], f["combos"][q.answer], strict=True):
                said.setdefault(p["rel"], s)
        else:
            said = {"lr": f["wanted"][0], "nf": f["wanted"][1]}
        for p in f["premise"]:
            rel = "lr" if p["cue"] in ("left", "right") else "nf"
            word = -1 if p["cue"] in ("left", "nearer") else 1
            if rel in said:
                agree.append(said[rel] == (-word if len(f["twins"]) == 3 else word))
    assert len(agree) > 150 and abs(np.mean(agree) - 0.5) < 0.08, (len(agree), np.mean(agree))


def test_relation_options_are_always_all_four_combinations(asked):
    for _, q in asked:
        if q.facts["kind"] == "relation":
            combos = {tuple(c) for c in q.facts["combos"]}
            assert combos == {(-1, -1), (-1, 1), (1, -1), (1, 1)}


def test_a_relation_answer_is_the_combination_its_variant_drew(task, asked):
    """Which combination is right, and with two asked images what each is asked about, come from the balanced
    variant, not from the scene: a drawn scene showed its twin nearer than the landmark 58% of the time at level 1,
    and on opposite sides in two images 84% of the time at level 2 (1,200 instances), which a text-only classifier
    learned (32% at level 1 for a chance of 25)."""
    for i, (_, q) in enumerate(asked):
        f = q.facts
        if f["kind"] != "relation":
            continue
        v = balanced_variant(7, "test", task.name, i, task.variants, lanes=len(task.levels))
        shape = v // (8 * len(FAMILIES))
        assert tuple(f["combos"][q.answer]) == COMBOS[shape % 4]
        if len({p["image"] for p in f["parts"]}) == 2:
            assert tuple(p["rel"] for p in f["parts"]) == PAIRS[shape // 4 % 4]


def test_text_alone_does_not_give_the_answer(asked):
    records = [
        {"question": q.text, "options": dict(zip(LETTERS, q.options, strict=False)), "answer": q.letter}
        for _, q in asked
    ]
    assert blind_baseline(records) <= 32.0  # chance 25, plus the audit's margin and this sample's noise
    assert max(heuristics(records).values()) <= 32.0


def test_families_are_drawn_and_can_be_restricted():
    task = make_task("location_relationship")
    seen = Counter(ask_only(task, i, seed=2)[0].family for i in range(60))
    assert set(seen) == set(FAMILIES) and min(seen.values()) >= 8, seen
    one = make_task("location_relationship", family="toys")
    assert {ask_only(one, i)[0].family for i in range(6)} == {"toys"}
    two = make_task("location_relationship", families="room,shapes")
    assert {ask_only(two, i)[0].family for i in range(12)} == {"room", "shapes"}


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match=r"location_relationship\.family: unknown family 'moon'; families: tabletop"):
        make_task("location_relationship", family="moon")
    with pytest.raises(InputError, match=r"location_relationship\.families: unknown family"):
        make_task("location_relationship", families="room,cave")
    with pytest.raises(InputError, match="location_relationship.kinds_per_level"):
        make_task("location_relationship", kinds_per_level="relation,relation+guess,relation")
    with pytest.raises(InputError, match="location_relationship.twins_per_level"):
        make_task("location_relationship", twins_per_level="2,2,4")
    with pytest.raises(InputError, match="location_relationship.objects_per_level"):
        make_task("location_relationship", objects_per_level="3,6,8")
    with pytest.raises(InputError, match="location_relationship.depth_margin"):
        make_task("location_relationship", depth_margin="0.5,0,0.3")
    with pytest.raises(InputError, match="location_relationship.n_options"):
        make_task("location_relationship", n_options=3)


def test_twins_are_counted_in_plain_plurals():
    """ "two identical chests of drawers", not "chest of drawerses"; the head word takes the plural."""
    from mirforge.generators.common import plural

    cases = {
        "chest of drawers": "chests of drawers",
        "glass of juice": "glasses of juice",
        "bookshelf": "bookshelves",
        "shoe box": "shoe boxes",
        "mug": "mugs",
        "toy": "toys",
        "fish": "fish",
    }
    assert {noun: plural(noun) for noun in cases} == cases


def test_a_caption_says_what_an_object_is_partly_hidden_behind():
    """An object that shows under half of what it shows in the view that shows it best is said to be partly hidden
    behind the nearer object that covers it (a toy car behind a desk globe showed an 11 x 20 px sliver and was listed
    as any other); the one named stands nearer the camera."""
    task = make_task("location_relationship")
    scene, question, rendered = accepted(task, 5, seed=73201)  # a rubber duck peeking over a basketball
    facts = task.step_facts(scene, question, rendered)
    duck = next(o for o in facts["images"][0]["order"] if o["name"] == "rubber duck")
    assert duck["behind"] == "basketball"
    flagged = 0
    for index in range(20, 32):
        scene, question, rendered = accepted(task, index, seed=73201)
        facts = task.step_facts(scene, question, rendered)
        labels, names = question.facts["labels"], question.facts["names"]
        for v, image in enumerate(facts["images"]):
            cam = scene.cameras[question.facts["order"][v]]
            _, depth = cam.project(np.array([o.center for o in scene.objects]), task.image_size)
            for o in image["order"]:
                if o["behind"]:
                    seen = rendered.measured["views"][v]
                    me = labels.index(next(n for n, m in seen.items() if m["box"] == o["box"]))  # twins share a name
                    if o["behind_box"]:
                        them = [labels.index(next(n for n, m in seen.items() if m["box"] == o["behind_box"]))]
                    else:
                        them = [k for k, n in enumerate(names) if n == o["behind"] and k != me]
                    assert any(depth[k] < depth[me] for k in them), (index, v, o)
                    assert (names.count(o["behind"]) > 1) == bool(o["behind_box"]), (index, v, o)
                    flagged += 1
    assert flagged >= 2


def test_an_object_partly_hidden_behind_a_twin_says_which_twin():
    """A blue cube was "partly hidden behind the orange cube" where three orange cubes stood; the caption now gives
    the box of the twin in front, which stands nearer the camera (seed 73301 #3: a potted plant behind one of the
    cardboard boxes)."""
    task = make_task("location_relationship")
    scene, question, rendered = accepted(task, 3, seed=73301)
    facts = task.step_facts(scene, question, rendered)
    plant = next(o for o in facts["images"][0]["order"] if o["name"] == "potted plant")
    assert plant["behind"] == "cardboard box"
    seen = rendered.measured["views"][0]
    front = next(n for n, m in seen.items() if m["box"] == plant["behind_box"])
    labels = question.facts["labels"]
    cam = scene.cameras[question.facts["order"][0]]
    _, depth = cam.project(np.array([o.center for o in scene.objects]), task.image_size)
    me = labels.index(next(n for n, m in seen.items() if m["box"] == plant["box"]))
    assert depth[labels.index(front)] < depth[me]
    caption = record(generate(task, 3, seed=73301))["caption"][0]
    x0, y0, x1, y1 = plant["behind_box"]
    assert f"partly hidden behind the cardboard box at box [{x0}, {y0}, {x1}, {y1}]" in caption


def test_an_answer_that_holds_whichever_twin_is_meant_needs_no_premise(task, hard):
    """Seed 73301 #7: the other chair showed the relation in the answer's image too (and in one more), so the answer
    held whichever chair was meant, and the image that told them apart was not needed. Make another twin stand
    where the one meant stands in the answer's image: hiding the premise now leaves that option alone, and the
    verifier refuses it."""
    question, rendered = next((q, copy.deepcopy(r)) for _, q, r in hard if q.facts["kind"] == "view_match")
    f = question.facts
    view = rendered.measured["views"][f["candidates"][question.answer]]
    premise = {p["image"] for p in f["premise"]}
    assert all(len(task.consistent(question, rendered, frozenset({p}))) >= 2 for p in premise)
    for t in f["twins"]:
        if t != f["referent"]:
            view[t] = copy.deepcopy(view[f["referent"]])
    assert any(task.consistent(question, rendered, frozenset({p})) == {question.answer} for p in premise)
    with pytest.raises(Reject, match="whichever twin is meant"):
        task.verify(question, rendered)


def test_a_twin_that_makes_no_option_the_one_answer_is_ruled_out_without_the_premise(task, hard):
    """A reader who knows the question has one answer rules out a twin that would leave it with none: seed 90001
    left the answer alone so behind 44 of 180 premise images, which the old union of possible options counted as
    needed (the other twin showed the relation in two candidate images, or a relation too close to tell). Stand
    every other twin on the landmark in every asked or candidate image: hiding a premise now leaves the answer
    alone, and the verifier refuses it."""
    kinds = set()
    for _, question, original in hard[:6]:
        f, rendered = question.facts, copy.deepcopy(original)
        premise = {p["image"] for p in f["premise"]}
        assert all(len(task.consistent(question, rendered, frozenset({p}))) >= 2 for p in premise)
        for k, view in enumerate(rendered.measured["views"]):
            if k not in premise:
                for t in f["twins"]:
                    if t != f["referent"] and t in view:
                        view[t] = copy.deepcopy(view[f["landmark"]])
        assert task.consistent(question, rendered, frozenset()) == {question.answer}
        assert all(task.consistent(question, rendered, frozenset({p})) == {question.answer} for p in premise)
        with pytest.raises(Reject, match="a premise image is not needed"):
            task.verify(question, rendered)
        kinds.add(f["kind"])
    assert kinds == {"relation", "view_match"}


def test_the_summary_says_it_reads_only_the_relations_asked(task):
    """Seed 73301 #14 asked left or right in two images, and the summary said it would read "left or right in the
    picture, nearer to or farther from the camera"."""
    found = set()
    for index in range(0, 15):
        rec = record(generate(task, index, seed=73301))
        q = rec["question"]
        if "Where is that" not in q and "Seen from the camera that took" not in q:
            continue  # a view match
        both = "Seen from the camera that took" in q  # one asked image: both relations
        rels = {
            rel
            for rel, asked in (("lr", "to the left or to the right"), ("nf", "nearer to or farther"))
            if both or asked in q
        }
        assert ("left or right" in rec["summary"]) == ("lr" in rels), rec["summary"]
        assert ("nearer to or farther" in rec["summary"]) == ("nf" in rels), rec["summary"]
        found.add(frozenset(rels))
    assert len(found) >= 2, found
