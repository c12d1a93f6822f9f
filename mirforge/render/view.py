"""A rendered view and the measurements every backend offers on it."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np
from scipy import ndimage

from mirforge.render.look import HORIZON
from mirforge.render.scene3d import Camera, Object3D

ZNEAR, ZFAR = 0.05, 2 * HORIZON  # the floor reaches the horizon; depth precision depends on ZNEAR alone


class View:
    """One rendered image with what was measured from it.

    ``rgb``: H x W x 3 uint8. ``ids``: H x W int16, 0 for the background and the floor, i + 1 for scene object i.
    ``depth``: H x W float32 distance along the view axis, 0 where no object was hit; a backend may pass a function
    instead, and the depth is then converted on first use (a task that never reads it never pays for it).
    Per-object boxes and pixel counts come from one pass over ``ids`` for all objects, on first use."""

    def __init__(
        self, rgb: np.ndarray, ids: np.ndarray | None, depth: np.ndarray | Callable[[], np.ndarray] | None
    ) -> None:
        self.rgb, self.ids = rgb, ids
        self._depth = depth

    @property
    def depth(self) -> np.ndarray | None:
        if callable(self._depth):
            self._depth = self._depth()
        return self._depth

    @cached_property
    def _slices(self) -> list[tuple[slice, slice] | None]:
        return ndimage.find_objects(self.ids) if self.ids is not None else []

    @cached_property
    def _counts(self) -> np.ndarray:
        return np.bincount(self.ids.ravel().astype(np.intp, copy=False))

    def _slice(self, i: int) -> tuple[slice, slice] | None:
        return self._slices[i] if i < len(self._slices) else None

    def pixels(self, i: int) -> int:
        return int(self._counts[i + 1]) if i + 1 < len(self._counts) else 0

    def box(self, i: int) -> list[int] | None:
        """Visible (modal) pixel box of object ``i`` as [x0, y0, x1, y1], x1/y1 exclusive; None if hidden."""
        s = self._slice(i)
        if s is None:
            return None
        return [s[1].start, s[0].start, s[1].stop, s[0].stop]

    def mask_in_box(self, i: int) -> tuple[np.ndarray, tuple[slice, slice]] | None:
        """Object ``i``'s mask cropped to its box, and the box as slices (rows, columns); None if hidden."""
        s = self._slice(i)
        return None if s is None else (self.ids[s] == i + 1, s)

    def measure(self, i: int) -> dict[str, Any] | None:
        """Pixel count, box, mask centroid and median depth of object ``i``'s visible pixels; None if hidden."""
        cropped = self.mask_in_box(i)
        if cropped is None:
            return None
        mask, (rows, cols) = cropped
        ys, xs = np.nonzero(mask)
        return {
            "px": self.pixels(i),
            "box": self.box(i),
            "cx": float(xs.mean()) + cols.start,
            "cy": float(ys.mean()) + rows.start,
            "depth": float(np.median(self.depth[rows, cols][mask])) if self.depth is not None else None,
        }

    def mean_depth(self, i: int) -> float | None:
        cropped = self.mask_in_box(i)
        if cropped is None:
            return None
        mask, s = cropped
        return float(self.depth[s][mask].mean())


def amodal_box(obj: Object3D, cam: Camera, size: int) -> list[int]:
    """The projected box of the whole object (hidden parts included), clipped to the image."""
    px, _ = cam.project(obj.corners(), size)
    x0, y0 = np.clip(np.floor(px.min(axis=0)), 0, size).astype(int)
    x1, y1 = np.clip(np.ceil(px.max(axis=0)), 0, size).astype(int)
    return [int(x0), int(y0), int(x1), int(y1)]


def projection_matrix(cam: Camera, znear: float = ZNEAR, zfar: float = ZFAR) -> np.ndarray:
    """OpenGL clip-from-camera matrix for a square image."""
    m = np.zeros((4, 4))
    if cam.projection == "orthographic":
        m[0, 0] = m[1, 1] = 1.0 / cam.half_extent
        m[2, 2] = -2.0 / (zfar - znear)
        m[2, 3] = -(zfar + znear) / (zfar - znear)
        m[3, 3] = 1.0
    else:
        f = 1.0 / np.tan(cam.yfov / 2)
        m[0, 0] = m[1, 1] = f
        m[2, 2] = (zfar + znear) / (znear - zfar)
        m[2, 3] = 2 * zfar * znear / (znear - zfar)
        m[3, 2] = -1.0
    return m
