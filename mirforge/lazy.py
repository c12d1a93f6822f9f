"""Heavy libraries that only some code paths need, imported on first use (the standard library's ``LazyLoader``).

trimesh pulls in scipy and networkx, about a second per process; it builds the catalogue's meshes, which a warm
asset cache serves as plain arrays, so a worker that only reads the cache never imports it.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, executed when one of its attributes is first read."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
