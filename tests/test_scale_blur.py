"""scale_blur: determinism, verifier from pixel heights, 25% margins, balance, config errors."""

from __future__ import annotations

import copy
import math

import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.analytical.scale_blur import estimates
from mirforge.instance import problems

from conftest import ask_only, generate, letter_shares, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("scale_blur")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]


def test_same_seed_same_bytes(task, sample):
    again = generate(task, 2, seed=3)
    assert again.instance.to_json() == sample[2].instance.to_json()
    assert again.images == sample[2].images


def test_records_are_valid_and_cite_regions(sample):
    for g in sample:
        rec = record(g)
        assert problems(rec) == []
        for region in rec["regions"]:
            assert str(region["box"]).replace(" ", "") in rec["text2img"].replace(" ", "")
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")


def test_pixel_heights_give_the_real_heights(task):
    for index in range(6):
        scene, question = ask_only(task, index, seed=2)
        rendered = task.render(scene, question)
        est = estimates(rendered.measured)
        for color, h in zip(scene.colors, scene.heights, strict=True):
            assert abs(est[f"{color} {scene.kind}"] / h - 1) < 0.03


def test_verifier_rejects_a_planted_wrong_answer(task):
    for index in range(6):
        scene, question = ask_only(task, index, seed=3)
        rendered = task.render(scene, question)
        assert task.verify(question, rendered) == question.answer
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer


def test_verifier_rejects_a_too_close_reading(task):
    for index in range(12):
        scene, question = ask_only(task, index, seed=4)
        if scene.qtype != "size":
            rendered = task.render(scene, question)
            pairs = rendered.measured["pairs"]
            pairs[1]["object_px"] = pairs[0]["object_px"] * pairs[1]["reference_px"] / pairs[0]["reference_px"]
            pairs[1]["reference_cm"] = pairs[0]["reference_cm"]
            with pytest.raises(Reject):
                for p in pairs[2:]:  # make every look-alike as tall as the first
                    p.update(object_px=pairs[0]["object_px"], reference_px=pairs[0]["reference_px"])
                    p["reference_cm"] = pairs[0]["reference_cm"]
                task.verify(question, rendered)
            return
    pytest.skip("no ranking question in the first instances")


def test_margins_hold(task):
    for i in range(200):
        scene, q = ask_only(task, i)
        hs = sorted(scene.heights)
        assert all(b / a >= 1.25 for a, b in zip(hs, hs[1:], strict=False))
        if q.facts["values"] is not None:
            v = sorted(q.facts["values"])
            assert all(b / a >= 1.25 for a, b in zip(v, v[1:], strict=False)), v
            assert math.isclose(q.facts["values"][q.answer], scene.heights[scene.target])
        assert q.text.count("<image>") == len(scene.alone) + len(scene.heights)


def test_answer_letters_are_balanced(task):
    shares = letter_shares(task, n=400)
    assert set(shares) == set("ABCD")
    assert all(abs(s - 0.25) <= 0.05 for s in shares.values()), shares


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="scale_blur.min_ratio"):
        make_task("scale_blur", min_ratio=1.0)
    with pytest.raises(InputError, match="scale_blur.lookalikes_per_level"):
        make_task("scale_blur", lookalikes_per_level="2,3")
