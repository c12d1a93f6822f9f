"""scale_blur: determinism, verifier from pixel heights, 25% margins, balance, config errors."""

from __future__ import annotations

import math

import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.analytical.scale_blur.task import estimates

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("scale_blur")


def test_pixel_heights_give_the_real_heights(task):
    for index in range(6):
        scene, question = ask_only(task, index, seed=2)
        rendered = task.render(scene, question)
        est = estimates(rendered.measured)
        for color, h in zip(scene.colors, scene.heights, strict=True):
            assert abs(est[f"{color} {scene.kind}"] / h - 1) < 0.03


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


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="scale_blur.min_ratio"):
        make_task("scale_blur", min_ratio=1.0)
    with pytest.raises(InputError, match="scale_blur.lookalikes_per_level"):
        make_task("scale_blur", lookalikes_per_level="2,3")


def test_heights_come_in_decade_pairs_and_the_answer_is_no_rung(task):
    """Options are two pairs {v, v x 10^+-1} of real-looking heights: the answer is not the middle of a decade
    ladder, shares its digits with one option only, and is as often the smaller of its pair as the larger."""
    from mirforge.audit import heuristics

    records, smaller, ranks = [], [], []
    for i in range(200):
        scene, q = ask_only(task, i)
        values = q.facts["values"]
        if values is None:
            continue
        records.append(
            {
                "question": q.text,
                "options": dict(zip("ABCD"[: len(q.options)], q.options, strict=True)),
                "answer": "ABCD"[q.answer],
            }
        )
        assert all(6.0 <= v <= 600.0 for v in values), values  # a slip looks like a real height
        partners = [[u for u in values if math.isclose(max(u, v) / min(u, v), 10)] for v in values]
        assert all(len(p) == 1 for p in partners), values  # pairs, never a ladder of three
        answer = values[q.answer]
        smaller.append(answer < partners[q.answer][0])
        ranks.append(sorted(values).index(answer))
    assert 0.35 <= sum(smaller) / len(smaller) <= 0.65
    assert max(ranks.count(r) for r in range(4)) / len(ranks) <= 0.4
    for name, score in heuristics(records).items():
        assert score <= 35.0, (name, score)  # chance 25
