"""A rendered view and the measurements every backend offers on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mirforge.render.look import HORIZON
from mirforge.render.scene3d import Camera, Object3D

ZNEAR, ZFAR = 0.05, 2 * HORIZON  # the floor reaches the horizon; depth precision depends on ZNEAR alone


class View:
    """One rendered image with what was measured from it.

    ``rgb``: H x W x 3 uint8. ``ids``: H x W int16, 0 for the background and the floor, i + 1 for scene object i.
    ``depth``: H x W float32 distance along the view axis, 0 where no object was hit; a backend may pass a function
    instead, and the depth is then converted on first use (a task that never reads it never pays for it).
    Each object's pixel count and box are computed once, on first use, however often a task asks for them."""

    def __init__(
        self, rgb: np.ndarray, ids: np.ndarray | None, depth: np.ndarray | Callable[[], np.ndarray] | None
    ) -> None:
        self.rgb, self.ids = rgb, ids
        self._depth = depth
        self._objects: dict[int, tuple[int, tuple[slice, slice] | None]] = {}

    @property
    def depth(self) -> np.ndarray | None:
        if callable(self._depth):
            self._depth = self._depth()
        return self._depth

    def _object(self, i: int) -> tuple[int, tuple[slice, slice] | None]:
        """Pixel count and box (rows, columns) of object ``i``."""
        if i not in self._objects:
            mask = self.ids == i + 1
            rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
            if len(rows) == 0:
                self._objects[i] = (0, None)
            else:
                box = (slice(int(rows[0]), int(rows[-1]) + 1), slice(int(cols[0]), int(cols[-1]) + 1))
                self._objects[i] = (int(np.count_nonzero(mask[box])), box)
        return self._objects[i]

    def pixels(self, i: int) -> int:
        return self._object(i)[0]

    def box(self, i: int) -> list[int] | None:
        """Visible (modal) pixel box of object ``i`` as [x0, y0, x1, y1], x1/y1 exclusive; None if hidden."""
        box = self._object(i)[1]
        return None if box is None else [box[1].start, box[0].start, box[1].stop, box[0].stop]

    def measure(self, i: int) -> dict[str, Any] | None:
        """Pixel count, box, mask centroid and median depth of object ``i``'s visible pixels; None if hidden."""
        count, box = self._object(i)
        if box is None:
            return None
        mask = self.ids[box] == i + 1
        ys, xs = np.nonzero(mask)
        return {
            "px": count,
            "box": self.box(i),
            "cx": float(xs.mean()) + box[1].start,
            "cy": float(ys.mean()) + box[0].start,
            "depth": float(np.median(self.depth[box][mask])) if self.depth is not None else None,
        }

    def mean_depth(self, i: int) -> float | None:
        box = self._object(i)[1]
        if box is None:
            return None
        return float(self.depth[box][self.ids[box] == i + 1].mean())


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
