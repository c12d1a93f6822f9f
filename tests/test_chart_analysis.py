"""chart_analysis: determinism, verifier, margins between options, balance, config errors."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from mirforge.errors import InputError, Reject

from conftest import ask_only, generate, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("chart_analysis")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


def test_levels_set_knobs(task, sample):
    for level, g in enumerate(sample, 1):
        assert g.instance.difficulty["level"] == level
        assert g.instance.difficulty["knobs"] == task.knobs(level)


def test_verifier_rejects_a_chart_with_a_missing_cell(task):
    scene, question = ask_only(task, 2, seed=5)
    rendered = task.render(scene, question)
    broken = copy.deepcopy(rendered)
    chart = broken.measured["charts"][0]
    key = "wedges" if chart["kind"] == "pie" else "marks"
    chart[key] = chart[key][1:]
    with pytest.raises(Reject):
        task.verify(question, broken)


def test_options_are_clearly_apart(task):
    """Numeric options differ by at least `gap`; ranking questions have a `gap` margin in the table."""
    for i in range(200):
        scene, q = ask_only(task, i)
        assert len(set(q.options)) == len(q.options)
        if q.facts["values"] is not None:
            v = np.array(q.facts["values"])
            diffs = np.abs(v[:, None] - v[None, :])[~np.eye(len(v), dtype=bool)]
            assert diffs.min() >= scene.gap, (i, v, scene.gap)
        else:
            table = np.array(scene.table, dtype=float)
            scores = table[:, -1] - table[:, 0] if scene.qtype == "growth" else table.sum(axis=1)
            s = np.sort(scores)[::-1]
            assert s[0] - s[1] >= scene.gap
            if scene.qtype == "rank2":
                assert s[1] - s[2] >= scene.gap
        assert q.text.count("<image>") == len(scene.blocks)
        assert 2 <= len(scene.blocks) <= 6
        assert not re.search(r"\{|\}", q.text)


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="chart_analysis.periods_per_level"):
        make_task("chart_analysis", periods_per_level="2,3,9")
    with pytest.raises(InputError, match="chart_analysis.gap_fraction"):
        make_task("chart_analysis", gap_fraction=0.9)
