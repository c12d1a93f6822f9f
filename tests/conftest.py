"""Shared helpers for task tests: build instances in-process, as a worker would."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mirforge.errors import Reject
from mirforge.pipeline import Generated, RunSpec, generate_one, pose
from mirforge.pipeline import attempts as pipeline_attempts
from mirforge.registry import load
from mirforge.runner.config import RunConfig
from mirforge.task import Question, Rendered, Task

_ASSETS: tempfile.TemporaryDirectory | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Built assets go to a cache of this test session (shared with the workers it spawns), not the user's."""
    global _ASSETS
    if "MIRFORGE_CACHE" not in os.environ:
        _ASSETS = tempfile.TemporaryDirectory(prefix="mirforge-assets-")
        os.environ["MIRFORGE_CACHE"] = _ASSETS.name


def pytest_unconfigure(config: pytest.Config) -> None:
    if _ASSETS is not None:
        os.environ.pop("MIRFORGE_CACHE", None)
        _ASSETS.cleanup()


def make_task(name: str, **config: Any) -> Task:
    cls = load(name)
    return cls(cls.configure(config))


def generate(task: Task, index: int, seed: int = 0, split: str = "test") -> Generated:
    return generate_one(task, RunSpec(run_seed=seed, split=split), index)


def record(generated: Generated) -> dict[str, Any]:
    return json.loads(generated.instance.to_json())


def attempts(task: Task, index: int, seed: int = 0, split: str = "test") -> Iterator[tuple[Any, Question]]:
    """Scene and question of every attempt that samples and asks, in the pipeline's order (same slot, variant
    and attempt streams)."""
    for attempt in pipeline_attempts(task, seed, split, index):
        try:
            yield pose(task, attempt)
        except Reject:
            continue


def ask_only(task: Task, index: int, seed: int = 0, split: str = "test") -> tuple[Any, Question]:
    """Scene and question of an instance without rendering (the first attempt that samples and asks)."""
    for scene, question in attempts(task, index, seed, split):
        return scene, question
    raise AssertionError(f"{task.name} {index}: no scene in {task.config.max_tries} tries")


def accepted(task: Task, index: int, seed: int = 0, split: str = "test") -> tuple[Any, Question, Rendered]:
    """Scene, question and rendering of the first attempt the verifier accepts, as the pipeline takes it."""
    for scene, question in attempts(task, index, seed, split):
        try:
            rendered = task.render(scene, question)
            if task.verify(question, rendered) == question.answer:
                return scene, question, rendered
        except Reject:
            continue
    raise AssertionError(f"{task.name} {index}: nothing accepted in {task.config.max_tries} tries")


def step_facts(task: Task, index: int, seed: int = 0) -> tuple[dict[str, Any], int]:
    """The facts an accepted instance's step templates render from, and its image count."""
    scene, question, rendered = accepted(task, index, seed)
    facts = task.step_facts(scene, question, rendered)
    facts.setdefault("answer", question.letter)
    facts.setdefault("options", question.lettered())
    return facts, len(rendered.images)


def letter_shares(task: Task, n: int = 400, seed: int = 0) -> dict[str, float]:
    counts = Counter(ask_only(task, i, seed)[1].letter for i in range(n))
    return {letter: counts[letter] / n for letter in sorted(counts)}


def run_cli(*args: str) -> int:
    """Run ``mirforge ARGS`` in this process, as the console script does; its exit code."""
    import sys

    from mirforge import cli

    old = sys.argv
    sys.argv = ["mirforge", *args]
    try:
        cli.main()
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.argv = old
    return 0


@pytest.fixture
def tmp_out(tmp_path):
    return tmp_path / "out"


@pytest.fixture(scope="module")
def faulty_plugin(tmp_path_factory):
    """The task ``faulty`` (tests/faulty_tasks.py) registered for this process, its spawned workers, and the
    commands and Ray workers it starts (through PYTHONPATH)."""
    from faulty_tasks import install

    from mirforge import registry

    site = install(tmp_path_factory.mktemp("site"))
    patch = pytest.MonkeyPatch()
    patch.syspath_prepend(str(site))
    paths = [str(site), str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
    patch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    registry.refresh()
    yield
    patch.undo()
    registry.refresh()


def written(root: Path, config: RunConfig) -> Path:
    """A complete dataset folder made in this process by the shard function the executors run (no worker pool)."""
    from mirforge.dataset.manifest import Manifest
    from mirforge.dataset.mir import write_mir
    from mirforge.runner.plan import plan
    from mirforge.runner.worker import run_shard

    manifest = Manifest(root)
    manifest.begin(config.to_json())
    for shard in plan(config):
        manifest.record(config.split, shard.path, run_shard(shard, config, str(root)).entry)
    manifest.finish(config.split)
    manifest.save()
    write_mir(root, manifest)
    return root
