"""Task plugins: mirforge's built-ins plus every ``mirforge.tasks`` entry point, loaded lazily by "module:Class".

Listing tasks imports nothing heavy; a plugin's module is imported only when the task is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Sequence
from functools import cache
from importlib.metadata import entry_points

from mirforge.errors import InputError, MirforgeError
from mirforge.task import Task

GROUP = "mirforge.tasks"

BUILTINS: dict[str, str] = {
    "view_3d": "mirforge.generators.spatial.view_3d:View3D",
    "location_relationship": "mirforge.generators.spatial.location_relationship:LocationRelationship",
    "depth_relationship": "mirforge.generators.spatial.depth_relationship:DepthRelationship",
    "forced_perspective": "mirforge.generators.spatial.forced_perspective:ForcedPerspective",
    "speed_comparison": "mirforge.generators.sequential.speed_comparison:SpeedComparison",
    "motion_detection": "mirforge.generators.sequential.motion_detection:MotionDetection",
    "process_order": "mirforge.generators.sequential.process_order:ProcessOrder",
    "image_puzzle": "mirforge.generators.sequential.image_puzzle:ImagePuzzle",
    "chart_analysis": "mirforge.generators.analytical.chart_analysis:ChartAnalysis",
    "weight_comparison": "mirforge.generators.analytical.weight_comparison:WeightComparison",
    "scale_blur": "mirforge.generators.analytical.scale_blur:ScaleBlur",
    "yes_but": "mirforge.generators.analytical.yes_but:YesBut",
}


def available() -> dict[str, str]:
    """Task name -> "module:Class" for every known task, built-ins first."""
    return dict(_targets())


def refresh() -> None:
    """Forget what was found and loaded, e.g. after installing a plugin into the running process."""
    _targets.cache_clear()
    load.cache_clear()


@cache
def _targets() -> dict[str, str]:
    """Scanning installed distributions costs milliseconds: once per process (the pipeline asks per instance)."""
    targets = dict(BUILTINS)
    for ep in entry_points(group=GROUP):
        if ep.name in targets and targets[ep.name] != ep.value:
            raise MirforgeError(
                f"task {ep.name!r} is registered twice: {targets[ep.name]} and {ep.value} "
                f"(entry point of {ep.dist.name if ep.dist else 'an unknown package'}); rename one"
            )
        targets[ep.name] = ep.value
    return dict(sorted(targets.items()))


@cache
def load(name: str) -> type[Task]:
    targets = available()
    if name not in targets:
        raise InputError(f"unknown task {name!r}; known tasks: {', '.join(targets)} (see `mirforge tasks`)")
    target = targets[name]
    module_name, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except Exception as exc:
        raise MirforgeError(f"task {name!r}: cannot load {target}: {type(exc).__name__}: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, Task)):
        raise MirforgeError(f"task {name!r}: {target} is not a subclass of mirforge.task.Task")
    try:
        cls.check_contract()
    except TypeError as exc:
        raise MirforgeError(f"task {name!r} ({target}) breaks the plugin contract: {exc}") from None
    if cls.name != name:
        raise MirforgeError(f"task {name!r}: {target} calls itself {cls.name!r}; the registered name must match")
    return cls


def target(name: str) -> str:
    return available()[name]


def task_list(
    spec: str | Sequence[str] | None, known: Collection[str] | None, option: str = "--tasks"
) -> list[str] | None:
    """The one parser of a task list, for every command that takes one: a comma list (or a list) of names, or
    ``all``; spaces around names are ignored, a name may not come twice. ``known``: the names allowed, or None
    where a dataset reader checks them against what the dataset holds; then ``all`` (like no list) gives None."""
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    if not all(isinstance(item, str) for item in items):
        raise InputError(f"{option}: task names must be strings, got {spec!r}")
    names = [item.strip() for item in items if item.strip()]
    if names == ["all"]:
        return list(known) if known is not None else None
    if not names:
        raise InputError(f"{option}: give at least one task name, or `all`")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InputError(f"{option}: {', '.join(twice)} named twice")
    for name in names:
        if known is not None and name not in known:
            raise InputError(f"{option}: unknown task {name!r}; known tasks: {', '.join(known)}")
    return names


def resolve(spec: str | Sequence[str]) -> list[str]:
    """A task list of registered tasks (``all``: every one of them), as ``generate --tasks`` takes it."""
    return task_list(spec, list(available())) or []
