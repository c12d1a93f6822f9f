"""The plugin contract, checked the same way for every built-in task.

Per-task files test what is particular to each task (margins, measurements, question kinds); this file tests
what every task promises: same seed same bytes, valid records whose text cites its regions at every level, a
verifier that re-derives the answer (and so rejects a planted wrong one), and exactly balanced answer letters.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from mirforge.instance import problems
from mirforge.registry import BUILTINS

from conftest import accepted, generate, letter_shares, make_task, record

TASKS = sorted(BUILTINS)


@pytest.fixture(scope="module", params=TASKS)
def task(request):
    return make_task(request.param)


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, index, seed=3) for index in range(len(task.levels))]  # one per level


def test_same_seed_same_bytes_other_split_other_instance(task, sample):
    again = generate(task, 1, seed=3)
    assert again.instance.to_json() == sample[1].instance.to_json()
    assert again.images == sample[1].images
    assert generate(task, 1, seed=3, split="train").images != sample[1].images


def test_records_are_valid_at_every_level_and_cite_their_regions(task, sample):
    for level, generated in zip(task.levels, sample, strict=True):
        rec = record(generated)
        assert problems(rec) == [], rec["id"]
        assert rec["difficulty"]["level"] == level
        level_knobs = json.loads(json.dumps(task.knobs(level)))  # the rest are drawn per scene (task.scene_knobs)
        assert {k: rec["difficulty"]["knobs"][k] for k in level_knobs} == level_knobs
        assert rec["regions"], f"{rec['id']}: the text refers to no region"
        steps = " ".join([rec["summary"], *rec["caption"], rec["text2img"], rec["img2img"], rec["conclusion"]])
        steps = steps.replace(" ", "")
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in steps, (rec["id"], region)
        assert re.search(rf"answer is {rec['answer']}\b", rec["conclusion"]), rec["conclusion"][-120:]


def test_verifier_rederives_the_answer_and_rejects_a_planted_one(task):
    _, question, rendered = accepted(task, 2, seed=5)
    for wrong_index in range(len(question.options)):
        if wrong_index == question.answer:
            continue
        wrong = copy.deepcopy(question)
        wrong.answer = wrong_index
        assert task.verify(wrong, rendered) != wrong_index


def test_answer_letters_are_exactly_balanced(task):
    # the slot is balanced in blocks of n_options indices of each level (seeding.balanced_slot)
    shares = letter_shares(task, n=100)
    k = task.config.n_options
    assert len(shares) == k and all(abs(s - 1 / k) <= 0.05 for s in shares.values()), shares
