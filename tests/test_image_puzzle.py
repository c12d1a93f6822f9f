"""image_puzzle: determinism, verifier (pixel reassembly), balance, knobs."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from mirforge.errors import InputError, Reject

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("image_puzzle")


def test_verifier_rejects_a_planted_wrong_answer(task):
    seen = set()
    for index in range(12):
        scene, question = ask_only(task, index, seed=3)
        rendered = task.render(scene, question)
        try:
            assert task.verify(question, rendered) == question.answer
        except Reject:  # an ambiguous picture: the pipeline would draw another
            continue
        seen.add(scene.kind)
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer
    assert seen == {"where", "missing", "arrangement"}


def test_tiles_reassemble_into_the_picture(task):
    for index in range(12):
        scene, question = ask_only(task, index, seed=6)
        if scene.kind != "arrangement":
            continue
        rendered = task.render(scene, question)
        order = question.facts["keys"][question.answer]
        tl, tr, bl, br = (rendered.images[i - 1] for i in order)
        whole = np.vstack([np.hstack([tl, tr]), np.hstack([bl, br])])
        assert rendered.measured["costs"][question.answer] < 2.0
        assert whole.shape == (896, 896, 3)
        return
    pytest.fail("no arrangement question in the first 12 instances")


def test_identical_candidates_are_rejected(task):
    for index in range(12):
        scene, question = ask_only(task, index, seed=6)
        if scene.kind == "missing":
            twin = copy.deepcopy(question)
            cands = twin.facts["candidates"]
            cands[(twin.answer + 1) % len(cands)] = cands[twin.answer]
            with pytest.raises(Reject):
                task.verify(twin, task.render(scene, twin))
            return
    pytest.fail("no missing-tile question in the first 12 instances")


def test_options_are_distinct(task):
    for i in range(200):
        _, question = ask_only(task, i, seed=5)
        assert len(set(question.options)) == len(question.options) == 4


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="image_puzzle.grid_per_level"):
        make_task("image_puzzle", grid_per_level="2,4,3")
    with pytest.raises(InputError, match="image_puzzle.n_options"):
        make_task("image_puzzle", n_options=5)


def test_arrangement_answer_is_not_the_centre_of_its_distractors(task):
    """Near-miss arrangements must not all perturb the answer (which would make it the option closest to the
    others): the answer is the centre (fewest adjacent swaps to the other options) only about 1 time in k."""
    from itertools import combinations

    def swaps(a, b):
        pos = {x: i for i, x in enumerate(b)}
        p = [pos[x] for x in a]
        return sum(p[i] > p[j] for i, j in combinations(range(len(p)), 2))

    centre = n = 0
    for i in range(1200):
        scene, q = ask_only(task, i, seed=9)
        if q.facts["kind"] != "arrangement" or scene.distractor_kind == "other_cells":
            continue
        n += 1
        keys = [tuple(k) for k in q.facts["keys"]]
        spread = [sum(swaps(a, b) for b in keys) for a in keys]
        centre += spread[q.answer] == min(spread) and spread.count(min(spread)) == 1
        assert tuple(reversed(keys[q.answer])) not in keys  # near misses are one or two swaps, never the reversal
    assert n >= 80
    assert abs(centre / n - 1 / task.config.n_options) < 0.12, (centre, n)
