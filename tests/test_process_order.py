"""process_order: determinism, verifier, balance, knobs, and distinct progress between frames."""

from __future__ import annotations

import hashlib

import pytest

from mirforge.errors import InputError
from mirforge.generators.sequential.process_order.task import PROCESSES, _room

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("process_order")


def test_measured_progress_matches_the_states(task):
    for index in range(8):
        scene, question = ask_only(task, index, seed=4)
        heights = task.render(scene, question).measured["heights"]
        for k, chrono in enumerate(scene.shown):
            state = scene.states[chrono]
            if scene.process in ("stack", "unstack"):
                assert abs(heights[k] - state * scene.block_h) <= 3
            else:
                assert abs(heights[k] - scene.capacity() * state / scene.n_states) <= 3


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


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="process_order.images_per_level"):
        make_task("process_order", images_per_level="4,5,5")
    with pytest.raises(InputError, match="process_order.min_gap_px"):
        make_task("process_order", min_gap_px=0)


def test_order_answer_is_not_the_centre_of_its_distractors(task):
    """The chronological order is the option closest to the others (fewest adjacent swaps) only about 1 time in
    k; distractors built by perturbing the answer would make it the centre every time."""
    from itertools import combinations

    def swaps(a, b):
        pos = {x: i for i, x in enumerate(b)}
        p = [pos[x] for x in a]
        return sum(p[i] > p[j] for i, j in combinations(range(len(p)), 2))

    centre = n = 0
    for i in range(400):
        _, q = ask_only(task, i, seed=9)
        if q.facts["kind"] != "order" or len(q.facts["keys"][0]) <= 4:
            continue
        n += 1
        keys = [tuple(k) for k in q.facts["keys"]]
        spread = [sum(swaps(a, b) for b in keys) for a in keys]
        centre += spread[q.answer] == min(spread) and spread.count(min(spread)) == 1
    assert n >= 80
    assert abs(centre / n - 1 / task.config.n_options) < 0.1, (centre, n)


def test_no_two_instances_share_a_frame(task):
    """Every clip's look (wall and table paint, the window, where the tower or glass stands, block and glass sizes,
    the shades of blocks and liquid) is drawn from the instance's rng, so across many instances no frame repeats,
    let alone a whole image set (the audit's "identical image sets"), and no image set has the same 16 x 16
    thumbnails (its "near-duplicate image sets"). The frames are hashed as drawn, before the lossy clip encoding,
    which only adds noise that the thumbnails ignore."""
    from mirforge.audit import thumb_hash

    owner: dict[str, int] = {}
    thumb_sets: dict[tuple[str, ...], int] = {}
    looks = set()
    n = 500
    for i in range(n):
        scene, _ = ask_only(task, i, seed=1)
        base = _room(task.image_size, scene.stage)
        frames = [task._draw(base, scene, state) for state in scene.states]
        for frame in frames:
            digest = hashlib.sha1(frame.tobytes()).hexdigest()
            assert owner.setdefault(digest, i) == i, f"instances {owner[digest]} and {i} share a frame"
        thumbs = tuple(sorted(thumb_hash(frame) for frame in frames))
        assert thumb_sets.setdefault(thumbs, i) == i, f"instances {thumb_sets[thumbs]} and {i}: same thumbnails"
        looks.add((scene.stage.wall, scene.stage.table_y, scene.cx if scene.tower else scene.glass.box))
    assert len(looks) >= 0.99 * n
