"""speed_comparison: determinism, verifier, balance, knobs, speed margins and the two-clip trap."""

from __future__ import annotations

import copy

import pytest

from mirforge.errors import InputError
from mirforge.instance import problems

from conftest import ask_only, generate, letter_shares, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("speed_comparison")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


def test_same_seed_same_bytes(task, sample):
    again = generate(task, 2, seed=3)
    assert again.instance.to_json() == sample[2].instance.to_json()
    assert again.images == sample[2].images


def test_records_are_valid_and_cite_regions(sample):
    for level, g in enumerate(sample, 1):
        rec = record(g)
        assert problems(rec) == []
        assert len(rec["images"]) == (3, 4, 6)[level - 1]
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in rec["text2img"].replace(" ", "")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")
        assert g.instance.difficulty["knobs"]["n_clips"] == (1, 1, 2)[level - 1]


def test_measured_speeds_match_the_true_ones(task):
    scene, question = ask_only(task, 5, seed=1)
    rendered = task.render(scene, question)
    for m in scene.movers:
        measured = rendered.measured["tracks"][m.name]["speed"]
        assert abs(measured - abs(m.vx)) < 0.03 * abs(m.vx) + 1.0, (m.name, measured, m.vx)


def test_verifier_rejects_a_planted_wrong_answer(task):
    for index in (0, 1, 2):
        scene, question = ask_only(task, index, seed=3)
        rendered = task.render(scene, question)
        assert task.verify(question, rendered) == question.answer
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer


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


def test_answer_letters_are_balanced(task):
    shares = letter_shares(task, n=400)
    assert set(shares) == set("ABCD")
    assert all(abs(s - 0.25) <= 0.05 for s in shares.values()), shares


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="speed_comparison.speed_ratio_per_level"):
        make_task("speed_comparison", speed_ratio_per_level="1.1,1.3,1.3")
    with pytest.raises(InputError, match="speed_comparison.objects_per_level"):
        make_task("speed_comparison", objects_per_level="2,4,4")
    with pytest.raises(InputError, match="speed_comparison.fps"):
        make_task("speed_comparison", fps=1)
