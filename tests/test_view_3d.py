"""view_3d: determinism, verifier, balance, knobs, and the pixel test the verifier relies on."""

from __future__ import annotations

import copy

import pytest

from mirforge.errors import InputError, Reject
from mirforge.instance import problems

from conftest import ask_only, generate, letter_shares, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("view_3d")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


def test_same_seed_same_bytes(task, sample):
    again = generate(task, 1, seed=3)
    assert again.instance.to_json() == sample[1].instance.to_json()
    assert again.images == sample[1].images


def test_other_split_other_instance(task, sample):
    other = generate(task, 1, seed=3, split="train")
    assert other.images != sample[1].images


def test_records_are_valid_and_cite_regions(sample):
    for g in sample:
        rec = record(g)
        assert problems(rec) == []
        assert len(rec["images"]) == 2 + 4
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in rec["text2img"].replace(" ", "")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")


def test_levels_set_object_counts(task, sample):
    for level, g in enumerate(sample, 1):
        knobs = g.instance.difficulty["knobs"]
        assert g.instance.difficulty["level"] == level
        assert knobs["n_objects"] == task.config.objects_per_level[level - 1]
        names = {r["name"] for r in g.instance.regions if r["image"] >= 2}
        assert len(names) == knobs["n_objects"]


def test_verifier_rejects_a_planted_wrong_answer(task):
    scene, question = ask_only(task, 4, seed=3)
    rendered = task.render(scene, question)
    assert task.verify(question, rendered) == question.answer
    wrong = copy.deepcopy(question)
    wrong.answer = (question.answer + 1) % len(question.options)
    assert task.verify(wrong, rendered) != wrong.answer


def test_verifier_rejects_ambiguous_candidates(task):
    scene, question = ask_only(task, 5, seed=3)
    twin = copy.deepcopy(question)
    layouts = twin.facts["layouts"]
    layouts[(twin.answer + 1) % len(layouts)] = layouts[twin.answer]  # two candidates show the true layout
    with pytest.raises(Reject):
        task.verify(twin, task.render(scene, twin))


def test_answer_letters_are_balanced(task):
    shares = letter_shares(task, n=400)
    assert set(shares) == set("ABCD")
    assert all(abs(s - 0.25) <= 0.05 for s in shares.values()), shares


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="view_3d.objects_per_level"):
        make_task("view_3d", objects_per_level="2,3,12")
    with pytest.raises(InputError, match="view_3d.max_tries: expected int"):
        make_task("view_3d", max_tries="lots")
