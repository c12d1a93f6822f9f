"""Task plugins: mirforge's built-ins plus every ``mirforge.tasks`` entry point, loaded lazily by "module:Class".

Listing tasks imports nothing heavy; a plugin's module is imported only when the task is used.
"""

from __future__ import annotations

import importlib
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


def resolve(spec: str) -> list[str]:
    """A comma list of task names, or ``all``."""
    names = list(available()) if spec.strip() == "all" else [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise InputError("--tasks: give at least one task name, or `all`")
    if len(set(names)) != len(names):
        raise InputError(f"--tasks: {spec!r} names a task twice")
    for name in names:
        if name not in available():
            raise InputError(f"--tasks: unknown task {name!r}; known tasks: {', '.join(available())}")
    return names
