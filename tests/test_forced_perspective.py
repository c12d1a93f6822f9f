"""forced_perspective: determinism, records, verifier, option separation, the misleading distractor, config."""

from __future__ import annotations

import copy
import math
from collections import Counter

import numpy as np
import pytest

from mirforge import LETTERS
from mirforge.audit import blind_baseline, heuristics
from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.forced_perspective.task import CATALOGUE, MAX_RATIO, _measured_ratio
from mirforge.instance import problems

from conftest import ask_only, generate, make_task, record

N_CHECK = 200


@pytest.fixture(scope="module")
def task():
    return make_task("forced_perspective")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


@pytest.fixture(scope="module")
def asked(task):
    return [ask_only(task, i) for i in range(400)]


def test_records_are_valid_and_cite_every_object(task, sample):
    for level, g in enumerate(sample, 1):
        rec = record(g)
        assert problems(rec) == []
        knobs = task.knobs(level)
        assert len(rec["images"]) == knobs["n_images"]
        assert g.instance.difficulty == {"level": level, "knobs": knobs}
        assert len(rec["regions"]) == 2 * knobs["n_images"]  # two chain objects in every image
        for region in rec["regions"]:
            text = rec["text2img"].replace(" ", "")
            in_image = text.split(f"InImage{region['image'] + 1},")[1].split(".InImage")[0]
            assert region["name"].replace(" ", "") in in_image
            assert str(region["box"]).replace(" ", "") in in_image
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")


def test_the_verifier_recovers_the_true_ratio_through_the_chain(task):
    for i in range(6):
        scene, question = ask_only(task, i, seed=7)
        rendered = task.render(scene, question)
        est = _measured_ratio(question.facts, rendered.measured)
        truth = scene.heights[-1] / scene.heights[0]
        assert abs(math.log(est["total"] / truth)) < 0.4 * math.log(scene.gap)
        for k, link in enumerate(est["links"]):
            assert abs(math.log(link * scene.heights[k] / scene.heights[k + 1])) < 0.06
        assert task.verify(question, rendered) == question.answer


def test_verifier_rejects_a_planted_wrong_answer(task):
    scene, question = ask_only(task, 4, seed=3)
    rendered = task.render(scene, question)
    assert task.verify(question, rendered) == question.answer
    wrong = copy.deepcopy(question)
    wrong.answer = (question.answer + 1) % len(question.options)
    assert task.verify(wrong, rendered) != wrong.answer
    moved = copy.deepcopy(question)  # an option list that no longer holds the measured ratio
    moved.facts["values"][question.answer] *= 1.5
    with pytest.raises(Reject):
        task.verify(moved, rendered)


def test_options_are_separated_and_include_the_apparent_answer(task, asked):
    for scene, q in asked[:N_CHECK]:
        values, kinds, gap = q.facts["values"], q.facts["kinds"], q.facts["gap"]
        assert kinds[q.answer] == "truth" and "apparent" in kinds
        assert abs(values[q.answer] - scene.heights[-1] / scene.heights[0]) < 1e-3 * values[q.answer]
        for i in range(len(values)):
            for j in range(i):
                assert abs(math.log(values[i] / values[j])) >= math.log(gap) - 1e-3
        assert len(set(q.options)) == len(q.options) == task.config.n_options
        assert len(scene.chain) == len(scene.shots) + 1 == len(set(scene.chain))
        colors = [next(it.color for it in CATALOGUE if it.noun == n) for n in scene.chain]
        assert len(set(colors)) == len(colors)


def test_apparent_size_misleads_often(asked):
    shots = [s for scene, _ in asked[:N_CHECK] for s in scene.shots]
    assert sum(s.misleading for s in shots) / len(shots) > 0.5


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="forced_perspective.images_per_level"):
        make_task("forced_perspective", images_per_level="3,4,8")
    with pytest.raises(InputError, match="forced_perspective.option_gap"):
        make_task("forced_perspective", option_gap="1.6,1.4,1.1")
    with pytest.raises(InputError, match="forced_perspective.option_gap"):
        make_task("forced_perspective", option_gap="1.6,1.4,0")


def test_names_do_not_give_the_answer_and_inverse_pairs_are_fair(task, asked):
    """World knowledge must not answer: real heights are drawn independently of the nouns, so the taller of the
    first and last object agrees with the catalogue only about half the time. The inverse of a ratio reads like
    it to a text-only guesser, so exactly one inverse pair is offered, holding the answer with its fair share of
    probability (2 options in 4), not always."""
    height = {it.noun: it.height for it in CATALOGUE}
    agree = differ = paired = 0
    for scene, q in asked[:N_CHECK]:
        first, last = scene.chain[0], scene.chain[-1]
        if height[first] != height[last]:
            differ += 1
            agree += (height[last] > height[first]) == (scene.heights[-1] > scene.heights[0])
        values = q.facts["values"]
        inverse = [any(abs(math.log(v * w)) < 0.01 for w in values) for v in values]
        assert sum(inverse) == 2
        paired += inverse[q.answer]
    assert abs(agree / differ - 0.5) < 0.12, (agree, differ)
    assert abs(paired / N_CHECK - 1 / 2) < 0.1, paired


def test_text_alone_does_not_find_the_answer(asked):
    """Every option's ratio is drawn the same way, so a text-only guesser is at chance: neither the size of the
    answer's ratio among the options (the apparent-size one used to be the smallest) nor the audit's scorers
    find it."""
    ranks = Counter()
    records = []
    for _, q in asked:
        sizes = [abs(math.log(v)) for v in q.facts["values"]]  # an option and its inverse share a size
        ranks[len({round(x, 2) for x in sizes if x < sizes[q.answer] - 0.02})] += 1
        options = dict(zip(LETTERS, q.options, strict=False))
        records.append({"question": q.text, "options": options, "answer": LETTERS[q.answer]})
    assert all(abs(ranks[k] / len(asked) - 1 / 3) < 0.07 for k in range(3)), ranks
    assert blind_baseline(records) <= 30.0  # the audit's bound: chance (25%) + 5 points
    assert max(heuristics(records).values()) <= 30.0


def test_every_option_fits_the_frame_limits(task, asked):
    """The apparent-size option is what two pixel heights show, so no option may need more than MAX_RATIO."""
    for _, q in asked[:N_CHECK]:
        assert all(1 / MAX_RATIO - 1e-3 <= v <= MAX_RATIO + 1e-3 for v in q.facts["values"])


def test_option_gap_must_fit_the_options():
    with pytest.raises(InputError, match="forced_perspective.option_gap.*at most 1.74 with 4 options"):
        make_task("forced_perspective", option_gap="1.8,1.4,1.25")
    make_task("forced_perspective", option_gap="1.4,1.4,1.25", n_options=5)


def test_min_height_must_leave_room_for_every_option():
    with pytest.raises(InputError, match="forced_perspective.min_height_px.*between 40 and 68"):
        make_task("forced_perspective", min_height_px=100)


def test_large_apparent_ratios_are_drawn_as_often_as_small_ones():
    """A set of options is kept until a chain can be photographed for it: rejecting sets whose apparent-size ratio
    is hard to picture (very unequal pixel heights) would make those rarer, a cue for a text-only guesser."""
    task = make_task("forced_perspective", misleading="1,1,1")  # the hardest shots to place
    for i in range(90):
        rng = np.random.default_rng(i)
        task.sample(rng, 1 + i % 3)  # never rejects
