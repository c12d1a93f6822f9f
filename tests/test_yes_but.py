"""yes_but: determinism, verifier from counted blobs and read colours, one true contradiction, balance."""

from __future__ import annotations

import pytest

from mirforge.errors import InputError, Reject

from conftest import ask_only, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("yes_but")


def test_measurements_match_the_scene(task):
    for index in range(12):
        scene, question = ask_only(task, index, seed=1)
        m = task.render(scene, question).measured
        if scene.kind == "order":
            assert m["plan"] == list(scene.plan) and m["tower"] == list(scene.tower)
        else:
            assert m["n_items"] == scene.actual_count
            assert m["item_colors"] == [scene.actual_color]


def test_verifier_rejects_when_the_box_keeps_its_promise(task):
    for index in range(20):
        scene, question = ask_only(task, index, seed=3)
        if scene.kind == "count":
            rendered = task.render(scene, question)
            rendered.measured["n_items"] = scene.label_count
            with pytest.raises(Reject):
                task.verify(question, rendered)
            return
    pytest.fail("no count instance found")


def test_exactly_one_contradiction_and_distinct_options(task):
    for i in range(200):
        scene, q = ask_only(task, i)
        assert len(set(q.options)) == len(q.options)
        kinds = [c["type"] for c in q.facts["claims"]]
        assert kinds.count("detail") <= 3
        if scene.kind == "count":
            assert scene.label_count - scene.actual_count >= 1 and scene.actual_count >= 2
        assert q.text.count("<image>") == 2


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="yes_but.min_count_gap_per_level"):
        make_task("yes_but", min_count_gap_per_level="0,1,1")
