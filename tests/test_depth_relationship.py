"""depth_relationship: depth conditions read in several photos, every photo needed, references defined by premise
photos, no text shortcut, level knobs, scene families, config errors."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from mirforge import LETTERS
from mirforge.audit import blind_baseline, heuristics
from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.multiview import FAMILIES
from mirforge.instance import problems
from mirforge.necessity import necessity

from conftest import accepted, ask_only, generate, make_task, record

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


@pytest.fixture(scope="module")
def hard(task):
    """Accepted instances at levels 2 and 3, as the pipeline takes them."""
    return [accepted(task, i, seed=11) for i in range(18) if i % 3 != 0]


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
    """One condition per photo but the premise photos; named references are never options."""
    forms = Counter()
    for i, (scene, q) in enumerate(asked):
        f, level = q.facts, i % 3 + 1
        forms[(level, f["form"])] += 1
        assert len(scene.cameras) == task.knobs(level)["n_views"]
        used = [p["image"] for p in f["premises"]] + [c["image"] for c in f["conditions"]]
        assert sorted(used) == list(range(len(scene.cameras)))
        if f["form"] == "premise":
            assert len(f["premises"]) == task.knobs(level)["premises"]
            for k in range(len(f["premises"])):
                assert any(c["premise"] == k for c in f["conditions"])  # every premise's object is used
        for c in f["conditions"]:
            assert c["ref"] not in f["options"]
    assert set(forms) == {(1, "named"), (1, "premise"), (2, "named"), (2, "premise"), (3, "premise")}


def test_every_photo_is_needed(task, hard):
    forms = set()
    for _, question, rendered in hard:
        assert task.consistent(question, rendered, frozenset()) == {question.answer}
        found = necessity(task, question, rendered)
        assert found is not None and found.all_needed and all(found.needed), found
        for k in range(len(rendered.images)):
            assert len(task.consistent(question, rendered, frozenset({k}))) >= 2
        forms.add(question.facts["form"])
    assert forms == {"named", "premise"}


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


def test_text_alone_does_not_give_the_answer(asked):
    records = [
        {"question": q.text, "options": dict(zip(LETTERS, q.options, strict=False)), "answer": q.letter}
        for _, q in asked
    ]
    assert blind_baseline(records) <= 33.0  # chance 25, plus the audit's margin and this sample's noise
    assert max(heuristics(records).values()) <= 33.0


def test_objects_of_one_kind_carry_a_colour_word(asked):
    for scene, _ in asked:
        kinds = Counter(o.shape for o in scene.objects)
        for obj in scene.objects:
            if scene.family == "shapes":
                assert obj.name.split()[-1] in ("cube", "block", "cylinder", "cone", "ball")
            elif kinds[obj.shape] > 1:
                assert obj.name.endswith(" " + obj.shape) and obj.name != obj.shape
            else:
                assert obj.name == obj.shape
        assert len({o.name for o in scene.objects}) == len(scene.objects)


def test_families_are_drawn_and_can_be_restricted():
    task = make_task("depth_relationship")
    seen = Counter(ask_only(task, i, seed=2)[0].family for i in range(40))
    assert set(seen) == set(FAMILIES) and min(seen.values()) >= 5, seen
    one = make_task("depth_relationship", family="yard")
    assert {ask_only(one, i)[0].family for i in range(6)} == {"yard"}


def test_kinds_materials_and_floors_can_be_narrowed():
    from mirforge.render.objects import model

    room = ("chair", "stool", "cabinet", "trash bin", "suitcase", "floor lamp", "table lamp", "flower pot", "globe")
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
        make_task("depth_relationship", forms_per_level="named,named,named")  # 'named' needs 3 photos at most
    with pytest.raises(InputError, match=r"depth_relationship\.forms_per_level: .*'named\+closest'"):
        make_task("depth_relationship", forms_per_level="named,named+closest,premise")
    with pytest.raises(InputError, match="depth_relationship.premises_per_level"):
        make_task("depth_relationship", premises_per_level="1,3,2")
    with pytest.raises(InputError, match="depth_relationship.views_per_level"):
        make_task("depth_relationship", views_per_level="2,4,9")
    with pytest.raises(InputError, match="depth_relationship.depth_margin"):
        make_task("depth_relationship", depth_margin="0.5,0,0.3")
