"""view_3d: determinism, verifier, balance, knobs, and the pixel test the verifier relies on."""

from __future__ import annotations

import copy

import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.spatial.view_3d.task import MIN_SIDE_PX

from conftest import accepted, ask_only, generate, make_task


@pytest.fixture(scope="module")
def task():
    return make_task("view_3d")


@pytest.fixture(scope="module")
def sample(task):
    return [generate(task, i, seed=3) for i in range(3)]  # one per level


def test_levels_set_object_counts(task, sample):
    for level, g in enumerate(sample, 1):
        knobs = g.instance.difficulty["knobs"]
        assert g.instance.difficulty["level"] == level
        assert knobs["n_objects"] == task.config.objects_per_level[level - 1]
        names = {r["name"] for r in g.instance.regions if r["image"] >= 2}
        assert len(names) == knobs["n_objects"]


def test_verifier_rejects_ambiguous_candidates(task):
    scene, question = ask_only(task, 5, seed=3)
    twin = copy.deepcopy(question)
    layouts = twin.facts["layouts"]
    layouts[(twin.answer + 1) % len(layouts)] = layouts[twin.answer]  # two candidates show the true layout
    with pytest.raises(Reject):
        task.verify(twin, task.render(scene, twin))


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="view_3d.objects_per_level"):
        make_task("view_3d", objects_per_level="2,3,12")
    with pytest.raises(InputError, match="view_3d.max_tries: expected int"):
        make_task("view_3d", max_tries="lots")


@pytest.mark.parametrize("index", [65, 80, 197, 269])
def test_regions_never_cite_a_sliver(task, index):
    """These instances (seed 1) once cited objects peeking out 1 px wide behind another in the front or side view."""
    _, _, rendered = accepted(task, index, seed=1)
    for region in rendered.regions:
        x0, y0, x1, y1 = region.box
        assert min(x1 - x0, y1 - y0) >= MIN_SIDE_PX, region
