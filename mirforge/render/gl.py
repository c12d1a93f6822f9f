"""3D views of a :class:`Scene3D`: colour, per-object ids and depth, offscreen, from one of two backends.

``moderngl`` (default, fast: one small Lambert shader) and ``pyrender`` (the reference: PBR shading). The backend
is a run setting (``--renderer``), recorded in the manifest and in each instance's provenance; workers select it
through ``MIRFORGE_RENDERER`` before their first render. One renderer per process and size, created lazily and
reused: a GL context costs 100-300 ms, and a context made before a fork breaks the children, so executors spawn
their workers and never render in the parent.
"""

from __future__ import annotations

import os
from functools import cache

from mirforge.errors import InputError
from mirforge.render.view import View, amodal_box

__all__ = ["BACKENDS", "View", "amodal_box", "backend", "renderer", "renderer_name"]

BACKENDS = ("moderngl", "pyrender")
DEFAULT = "moderngl"


def backend() -> str:
    name = os.environ.get("MIRFORGE_RENDERER", DEFAULT)
    if name not in BACKENDS:
        raise InputError(f"--renderer: {name!r} is not one of {', '.join(BACKENDS)}")
    return name


def renderer(size: int):
    """This process's renderer for square images of ``size`` pixels, created on first use."""
    return _renderer(backend(), size)


@cache
def _renderer(name: str, size: int):
    if name == "pyrender":
        from mirforge.render.pyrender_backend import PyrenderRenderer

        return PyrenderRenderer(size)
    from mirforge.render.moderngl_backend import ModernglRenderer

    return ModernglRenderer(size)


def renderer_name() -> str:
    if backend() == "pyrender":
        return f"pyrender/{os.environ.get('MIRFORGE_GL', 'egl')}"
    return "moderngl/egl"
