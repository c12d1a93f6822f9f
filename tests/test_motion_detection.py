"""motion_detection: determinism, verifier, balance, knobs, and clear paths for the moving object."""

from __future__ import annotations

import math

import pytest

from mirforge.errors import InputError
from mirforge.generators.sequential.motion_detection.task import _segment_distance
from mirforge.render.video import DIRECTIONS

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("motion_detection")


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


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="motion_detection.objects_per_level"):
        make_task("motion_detection", objects_per_level="3,5,6")
    with pytest.raises(InputError, match="motion_detection.min_move_px"):
        make_task("motion_detection", min_move_px=2)
