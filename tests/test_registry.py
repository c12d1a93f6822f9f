"""Task plugins found through real entry points of an installed distribution (a dist-info on sys.path)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from mirforge import registry
from mirforge.errors import InputError, MirforgeError

PLUGIN = """
from pathlib import Path
from mirforge.task import Needs, Question, Rendered, Task, place
import numpy as np

class Coin(Task):
    name = "coin_flip"
    category = "analytical"
    description = "A test plugin"
    needs = Needs(renderer=None)

    def template_dir(self):
        return Path(__file__).parent / "coin_templates"

    def sample(self, rng, level):
        return int(rng.integers(2))

    def ask(self, scene, rng, slot):
        opts = place("heads" if scene else "tails", ["edge", "tails" if scene else "heads", "none"], slot)
        return Question("Which side is up in <image>?", opts, slot)

    def render(self, scene, question):
        img = np.full((self.image_size, self.image_size, 3), 255 * scene, np.uint8)
        return Rendered([img], {"white": bool(img.mean() > 127)}, [])

    def verify(self, question, rendered):
        return question.options.index("heads" if rendered.measured["white"] else "tails")

    def step_facts(self, scene, question, rendered):
        return {}

class NoName(Task):
    category = "spatial"
    description = "forgot its name"
"""


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A throwaway distribution 'coinplugin' with two entry points in the group mirforge.tasks."""
    (tmp_path / "coinplugin.py").write_text(textwrap.dedent(PLUGIN))
    templates = tmp_path / "coin_templates"
    templates.mkdir()
    for step in ("summary", "caption", "text2img", "img2img"):
        (templates / f"{step}.j2").write_text(f"The {step} of a coin.")
    (templates / "conclusion.j2").write_text("Therefore the answer is {{ answer }}.")
    dist = tmp_path / "coinplugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: coinplugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[mirforge.tasks]\ncoin_flip = coinplugin:Coin\nno_name = coinplugin:NoName\nmissing = coinplugin_gone:Thing\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.refresh()
    yield
    registry.refresh()
    sys.modules.pop("coinplugin", None)


def test_entry_point_plugin_is_listed_and_loads(installed):
    assert registry.available()["coin_flip"] == "coinplugin:Coin"
    cls = registry.load("coin_flip")
    assert cls.__name__ == "Coin" and cls.category == "analytical"


def test_entry_point_plugin_generates(installed):
    from mirforge.pipeline import RunSpec, generate_one

    task = registry.load("coin_flip")()
    g = generate_one(task, RunSpec(run_seed=0), 3)
    assert g.instance.provenance["generator"] == "coinplugin:Coin"
    assert g.instance.options[g.instance.answer] in ("heads", "tails")


def test_contract_violation_names_the_plugin(installed):
    with pytest.raises(MirforgeError, match="no_name.*must set the class attribute 'name'"):
        registry.load("no_name")


def test_import_failure_names_the_plugin(installed):
    with pytest.raises(MirforgeError, match="task 'missing': cannot load coinplugin_gone:Thing"):
        registry.load("missing")


def test_builtins_need_no_entry_point():
    assert registry.available()["view_3d"] == "mirforge.generators.spatial.view_3d:View3D"


def test_unknown_task_is_input_error():
    with pytest.raises(InputError, match="unknown task 'nope'"):
        registry.load("nope")
    with pytest.raises(InputError, match="--tasks: unknown task 'nope'"):
        registry.resolve("view_3d,nope")
