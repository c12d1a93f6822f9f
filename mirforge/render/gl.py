"""3D views of a :class:`Scene3D`: colour, per-object ids and depth, offscreen, from one of two backends.

``moderngl`` (default: shadows, ambient occlusion, materials, textured backdrops, anti-aliased colour with exact
ids; see its module) and ``pyrender`` (the reference: the same look without shadows and occlusion). The backend
is a run setting (``--renderer``), part of the run's ``RunSpec``: the pipeline selects it with :func:`using`
around each instance, and a task's ``renderer(size)`` draws with the selected one. It is recorded in the manifest
and in each instance's provenance. One renderer per process, backend and size, created lazily and reused: a GL
context costs 100-300 ms, and a context made before a fork breaks the children, so executors spawn their workers
and never render in the parent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

from mirforge.errors import InputError
from mirforge.render import BACKENDS, DEFAULT_BACKEND
from mirforge.render.view import View, amodal_box

__all__ = ["BACKENDS", "View", "amodal_box", "check_backend", "renderer", "renderer_name", "using"]

_selected: ContextVar[str] = ContextVar("mirforge_render_backend", default=DEFAULT_BACKEND)


def check_backend(name: str) -> str:
    if name not in BACKENDS:
        raise InputError(f"--renderer: {name!r} is not one of {', '.join(BACKENDS)}")
    return name


@contextmanager
def using(backend: str) -> Iterator[None]:
    """Draw with ``backend`` inside the block (the run's ``--renderer``)."""
    token = _selected.set(check_backend(backend))
    try:
        yield
    finally:
        _selected.reset(token)


def renderer(size: int):
    """The selected backend's renderer for square images of ``size`` pixels, created on first use."""
    return _renderer(_selected.get(), size)


@cache
def _renderer(name: str, size: int):
    if name == "pyrender":
        from mirforge.render.pyrender_backend import PyrenderRenderer

        return PyrenderRenderer(size)
    from mirforge.render.moderngl_backend import ModernglRenderer

    return ModernglRenderer(size)


def renderer_name(backend: str) -> str:
    """What provenance records for ``backend``: the backend and its GL platform."""
    if check_backend(backend) == "pyrender":
        from mirforge.render.pyrender_backend import PLATFORM

        return f"pyrender/{PLATFORM}"
    return "moderngl/egl"
