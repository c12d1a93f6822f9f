"""speed_comparison: determinism, verifier, balance, knobs, speed margins and the two-clip trap."""

from __future__ import annotations

import pytest

from mirforge.errors import InputError

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("speed_comparison")


def test_measured_speeds_match_the_true_ones(task):
    scene, question = ask_only(task, 5, seed=1)
    rendered = task.render(scene, question)
    for m in scene.movers:
        measured = rendered.measured["tracks"][m.name]["speed"]
        assert abs(measured - abs(m.vx)) < 0.03 * abs(m.vx) + 1.0, (m.name, measured, m.vx)


def test_speeds_differ_by_the_level_ratio_and_stay_in_frame(task):
    for i in range(200):
        scene, question = ask_only(task, i, seed=5)
        ratio = task.config.speed_ratio_per_level[i % 3]
        speeds = sorted(abs(m.vx) for m in scene.movers)
        assert all(b >= ratio * a * 0.999 for a, b in zip(speeds, speeds[1:], strict=False))
        assert ratio >= 1.25
        for m in scene.movers:
            plan = scene.clips[m.clip]
            end = m.x0 + m.vx * plan.indices[-1] / scene.fps
            assert 20 < min(m.x0, end) and max(m.x0, end) < task.image_size - 20
        assert len(set(question.options)) == len(question.options) == 4


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="speed_comparison.speed_ratio_per_level"):
        make_task("speed_comparison", speed_ratio_per_level="1.1,1.3,1.3")
    with pytest.raises(InputError, match="speed_comparison.objects_per_level"):
        make_task("speed_comparison", objects_per_level="2,4,4")
    with pytest.raises(InputError, match="speed_comparison.fps"):
        make_task("speed_comparison", fps=1)


def test_ranking_answer_is_not_the_centre_of_its_distractors(task):
    """Distractors that all perturb the answer make it the order closest to the others (the consensus shortcut):
    the answer is the centre (fewest adjacent swaps to the other options) only about 1 time in k, and its
    reversal is not always offered."""
    from itertools import combinations

    def swaps(a, b):
        pos = {x: i for i, x in enumerate(b)}
        p = [pos[x] for x in a]
        return sum(p[i] > p[j] for i, j in combinations(range(len(p)), 2))

    centre = reversed_offered = n = 0
    for i in range(600):
        _, q = ask_only(task, i, seed=9)
        if q.facts["kind"] != "order":
            continue
        n += 1
        keys = [tuple(k) for k in q.facts["keys"]]
        spread = [sum(swaps(a, b) for b in keys) for a in keys]
        centre += spread[q.answer] == min(spread) and spread.count(min(spread)) == 1
        reversed_offered += tuple(reversed(keys[q.answer])) in keys
    assert n >= 100
    k = task.config.n_options
    assert abs(centre / n - 1 / k) < 0.1, (centre, n)
    assert reversed_offered / n < 0.1
