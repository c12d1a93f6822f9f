"""weight_comparison: determinism, verifier from the tilt in the pixels, transitivity, balance, config."""

from __future__ import annotations

import copy

import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.analytical.weight_comparison.task import _relation, _tilt_of, solve

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("weight_comparison")


def test_verifier_reads_the_tilt_and_rejects_a_planted_wrong_answer(task):
    scene, question = ask_only(task, 4, seed=3)
    rendered = task.render(scene, question)
    for picture, comp in zip(rendered.measured["pictures"], scene.comparisons, strict=True):
        drop = picture["left_pan_y"] - picture["right_pan_y"]
        tilt = _tilt_of(scene, comp)
        assert (drop > 10) == (tilt < 0) and (drop < -10) == (tilt > 0)
    assert task.verify(question, rendered) == question.answer
    wrong = copy.deepcopy(question)
    wrong.answer = (question.answer + 1) % len(question.options)
    assert task.verify(wrong, rendered) != wrong.answer


def test_verifier_rejects_when_a_needed_picture_goes_missing(task):
    """Some picture is a link of the chain: without it the answer is no longer forced."""
    scene, question = ask_only(task, 4, seed=7)
    rendered = task.render(scene, question)
    pictures = rendered.measured["pictures"]
    undecided = 0
    for k in range(len(pictures)):
        cut = copy.deepcopy(rendered)
        cut.measured["pictures"] = pictures[:k] + pictures[k + 1 :]
        try:
            task.verify(question, cut)
        except Reject:
            undecided += 1
    assert undecided >= 1


def test_answers_need_chaining_and_are_unique(task):
    for i in range(200):
        scene, q = ask_only(task, i)
        n = len(scene.names)
        relations = [_relation(c, _tilt_of(scene, c)) for c in scene.comparisons]
        answer = solve(scene.qtype, n, relations)
        assert answer is not None
        if scene.qtype != "order":
            assert scene.names[answer] == q.options[q.answer]
            w = scene.weights[answer]
            others = [x for k, x in enumerate(scene.weights) if k != answer]
            assert all(w > x for x in others) if scene.qtype == "heaviest" else all(w < x for x in others)
            # no single picture settles it: the answer is never compared directly with every other object
            direct = {k for c in scene.comparisons if answer in c[0] + c[1] for k in c[0] + c[1]}
            assert len(direct) < n
        else:
            assert [scene.weights[k] for k in answer] == sorted(scene.weights, reverse=True)
        assert 3 <= len(scene.comparisons) <= 6
        assert q.text.count("<image>") == len(scene.comparisons)


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="weight_comparison.objects_per_level"):
        make_task("weight_comparison", objects_per_level="3,4,9")


def test_order_options_do_not_centre_on_the_answer(task):
    from mirforge.audit import heuristics

    pytest.importorskip("sklearn")
    records = []
    for i in range(200):
        _, q = ask_only(task, i, seed=9)
        records.append({"question": q.text, "options": q.lettered(), "answer": q.letter})
    scores = heuristics(records)
    assert scores["consensus"] <= 35, scores  # 33 at n=200 when the orders were all adjacent swaps of the answer
