"""process_order: determinism, verifier, balance, knobs, and distinct progress between frames."""

from __future__ import annotations

import copy

import pytest

from mirforge.errors import InputError
from mirforge.generators.sequential.process_order import BLOCK_H, PROCESSES
from mirforge.instance import problems

from conftest import ask_only, generate, letter_shares, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("process_order")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]


def test_same_seed_same_bytes(task, sample):
    again = generate(task, 2, seed=3)
    assert again.instance.to_json() == sample[2].instance.to_json()
    assert again.images == sample[2].images


def test_records_are_valid_and_cite_regions(task, sample):
    for level, g in enumerate(sample, 1):
        rec = record(g)
        assert problems(rec) == []
        assert len(rec["images"]) == task.config.images_per_level[level - 1]
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in rec["text2img"].replace(" ", "")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")


def test_measured_progress_matches_the_states(task):
    for index in range(8):
        scene, question = ask_only(task, index, seed=4)
        heights = task.render(scene, question).measured["heights"]
        for k, chrono in enumerate(scene.shown):
            state = scene.states[chrono]
            if scene.process in ("stack", "unstack"):
                assert abs(heights[k] - state * BLOCK_H) <= 3
            else:
                assert abs(heights[k] - 258 * state / scene.n_states) <= 3


def test_verifier_rejects_a_planted_wrong_answer(task):
    for index in range(6):
        scene, question = ask_only(task, index, seed=3)
        rendered = task.render(scene, question)
        assert task.verify(question, rendered) == question.answer
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer


def test_states_are_distinct_and_causal(task):
    kinds = set()
    for i in range(200):
        scene, question = ask_only(task, i, seed=5)
        kinds.add((scene.process, scene.kind))
        rising = PROCESSES[scene.process][1]
        assert list(scene.states) == sorted(scene.states, reverse=not rising)
        assert len(set(scene.states)) == len(scene.states)
        assert scene.shown != tuple(range(len(scene.shown)))
        assert len(set(question.options)) == len(question.options) == 4
    assert {k for _, k in kinds} == {"order", "next", "between"}
    assert {p for p, _ in kinds} == set(PROCESSES)


def test_answer_letters_are_balanced(task):
    shares = letter_shares(task, n=400)
    assert set(shares) == set("ABCD")
    assert all(abs(s - 0.25) <= 0.05 for s in shares.values()), shares


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="process_order.images_per_level"):
        make_task("process_order", images_per_level="4,5,5")
    with pytest.raises(InputError, match="process_order.min_gap_px"):
        make_task("process_order", min_gap_px=0)
