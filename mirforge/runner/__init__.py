"""The runner: a run's options and config (:mod:`.options`, :mod:`.config`), its shards (:mod:`.plan`), the shard
function (:mod:`.worker`), the executors (:mod:`.local`, :mod:`.ray_executor`) and the run itself (:mod:`.run`).

Importing the package is cheap, so that the command line can read the table of ``generate``'s options from
:mod:`.options` on every start; the names below load their module on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "generate": "run",
    "prepare": "run",
    "open_manifest": "run",
    "Summary": "run",
    "Span": "run",
    "RunConfig": "config",
    "Execution": "config",
    "EXECUTORS": "options",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
