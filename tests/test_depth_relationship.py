"""depth_relationship: determinism, records, verifier, margins/visibility, balance, config errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.depth_relationship.task import MAX_COVERED
from mirforge.generators.spatial.multiview import centres, covered_fractions
from mirforge.instance import problems

from conftest import ask_only, generate, make_task, record

N_CHECK = 200


@pytest.fixture(scope="module")
def task():
    return make_task("depth_relationship")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


@pytest.fixture(scope="module")
def asked(task):
    return [ask_only(task, i) for i in range(400)]


def test_records_are_valid_and_cite_the_options(task, sample):
    for level, g in enumerate(sample, 1):
        rec = record(g)
        assert problems(rec) == []
        assert len(rec["images"]) == task.knobs(level)["n_views"]
        assert g.instance.difficulty == {"level": level, "knobs": task.knobs(level)}
        assert rec["conclusion"].endswith(f"the answer is {rec['answer']}.")
        text = rec["text2img"].replace(" ", "")
        for option in rec["options"].values():
            name = option.removeprefix("The ")
            boxes = [str(r["box"]).replace(" ", "") for r in rec["regions"] if r["name"] == name]
            assert any(b in text for b in boxes), name
        assert (
            len(" ".join([rec["summary"], *rec["caption"], rec["text2img"], rec["img2img"], rec["conclusion"]])) > 600
        )


def test_verifier_rejects_a_planted_wrong_answer(task):
    kinds = set()
    for i in range(4, 12):
        scene, question = ask_only(task, i, seed=3)
        if question.facts["kind"] in kinds:
            continue
        kinds.add(question.facts["kind"])
        rendered = task.render(scene, question)
        assert task.verify(question, rendered) == question.answer
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % len(question.options)
        assert task.verify(wrong, rendered) != wrong.answer
        for name in question.facts["options"]:  # every option object is measured where the question asks
            views = [question.facts["view"]] if "view" in question.facts else [question.facts["first"]]
            assert all(rendered.measured["views"][v][name]["px"] >= task.config.min_visible_px for v in views)
    assert kinds == {"extreme", "change"}


def test_verifier_rejects_a_hidden_answer(task):
    scene, question = next(q for q in (ask_only(task, i) for i in range(12)) if q[1].facts["kind"] == "extreme")
    rendered = task.render(scene, question)
    answer = question.facts["options"][question.answer]
    del rendered.measured["views"][question.facts["view"]][answer]
    with pytest.raises(Reject):
        task.verify(question, rendered)


def test_margins_and_clearance_hold(task, asked):
    size = task.image_size
    for scene, q in asked[:N_CHECK]:
        f = q.facts
        names = [o.name for o in scene.objects]
        assert len(set(names)) == len(names)
        depth = np.array([centres(scene.objects, cam, size)[1] for cam in scene.cameras])
        cov = np.array([covered_fractions(scene.objects, cam, size) for cam in scene.cameras])
        idx = [names.index(n) for n in f["options"]]
        if f["kind"] == "extreme":
            v, d = f["view"], depth[f["view"]]
            ordered = np.sort(d) if f["which"] == "nearest" else -np.sort(-d)
            assert abs(ordered[0] - ordered[1]) >= f["margin"]
            best = int(np.argmin(d) if f["which"] == "nearest" else np.argmax(d))
            assert idx[q.answer] == best
            assert all(cov[v, i] <= MAX_COVERED for i in idx)
        else:
            a, j, k, m = names.index(f["a"]), f["first"], f["second"], f["margin"]
            for pos, i in enumerate(idx):
                nearer, farther = depth[j, a] - depth[j, i], depth[k, i] - depth[k, a]
                if pos == q.answer:
                    assert nearer >= m and farther >= m
                else:
                    assert nearer <= -m or farther <= -m
                assert cov[j, i] <= MAX_COVERED and cov[k, i] <= MAX_COVERED
        assert len(set(q.options)) == len(q.options) == task.config.n_options


def test_both_question_kinds_and_directions_occur(asked):
    kinds = [q.facts["kind"] for _, q in asked]
    assert 0.2 < kinds.count("change") / len(kinds) < 0.6
    which = [q.facts["which"] for _, q in asked if q.facts["kind"] == "extreme"]
    assert 0.3 < which.count("nearest") / len(which) < 0.7


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="depth_relationship.views_per_level"):
        make_task("depth_relationship", views_per_level="2,3,7")
    with pytest.raises(InputError, match="depth_relationship.depth_margin"):
        make_task("depth_relationship", depth_margin="0.5,-0.1,0.3")
    with pytest.raises(InputError, match="depth_relationship.objects_per_level"):
        make_task("depth_relationship", objects_per_level="3,6,8")
