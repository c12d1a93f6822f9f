"""motion_detection: determinism, verifier, balance, knobs, and clear paths for the moving object."""

from __future__ import annotations

import copy
import math

import pytest

from mirforge.errors import InputError
from mirforge.generators.sequential.motion_detection import _segment_distance
from mirforge.instance import problems
from mirforge.render.video import DIRECTIONS

from conftest import ask_only, generate, letter_shares, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("motion_detection")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]


def test_same_seed_same_bytes(task, sample):
    again = generate(task, 1, seed=3)
    assert again.instance.to_json() == sample[1].instance.to_json()
    assert again.images == sample[1].images


def test_records_are_valid_and_cite_regions(sample):
    for g in sample:
        rec = record(g)
        assert problems(rec) == []
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in rec["text2img"].replace(" ", "")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")


def test_measured_displacement_matches_the_true_one(task):
    for index in range(6):
        scene, question = ask_only(task, index, seed=4)
        rendered = task.render(scene, question)
        pos = rendered.measured["positions"]
        first, last = scene.shown.index(0), scene.shown.index(len(scene.indices) - 1)
        for i, t in enumerate(scene.things):
            p = pos[t.name]
            moved = math.hypot(p["x"][last] - p["x"][first], p["y"][last] - p["y"][first])
            expected = scene.distance if i == scene.mover else 0.0
            assert abs(moved - expected) < 2.0, (t.name, moved, expected)


def test_verifier_rejects_a_planted_wrong_answer(task):
    for index in range(5):
        scene, question = ask_only(task, index, seed=3)
        rendered = task.render(scene, question)
        assert task.verify(question, rendered) == question.answer
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer


def test_paths_are_clear_and_in_frame(task):
    kinds = set()
    for i in range(200):
        scene, question = ask_only(task, i, seed=5)
        kinds.add(scene.kind)
        m = scene.things[scene.mover]
        a = math.radians(45 * DIRECTIONS.index(scene.direction))
        end = (m.x + math.cos(a) * scene.distance, m.y - math.sin(a) * scene.distance)
        assert all(20 <= v <= task.image_size - 20 for v in (*end, m.x, m.y))
        for j, t in enumerate(scene.things):
            if j != scene.mover:
                assert _segment_distance((t.x, t.y), (m.x, m.y), end) > m.radius + t.radius + 10
        assert len(set(question.options)) == len(question.options) == 4
        if scene.kind == "order":
            assert scene.shown != tuple(range(len(scene.shown)))
    assert kinds == {"which", "direction", "which_direction", "order"}


def test_answer_letters_are_balanced(task):
    shares = letter_shares(task, n=400)
    assert set(shares) == set("ABCD")
    assert all(abs(s - 0.25) <= 0.05 for s in shares.values()), shares


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="motion_detection.objects_per_level"):
        make_task("motion_detection", objects_per_level="3,5,6")
    with pytest.raises(InputError, match="motion_detection.min_move_px"):
        make_task("motion_detection", min_move_px=2)
