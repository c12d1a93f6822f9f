"""A rendered view and the measurements every backend offers on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mirforge.render.scene3d import Camera, Object3D


@dataclass
class View:
    """One rendered image with what was measured from it."""

    rgb: np.ndarray  # H x W x 3 uint8
    ids: np.ndarray | None  # H x W int16: 0 background, i + 1 for scene object i
    depth: np.ndarray | None  # H x W float32 distance along the view axis, 0 where nothing was hit

    def pixels(self, i: int) -> int:
        return int(np.count_nonzero(self.ids == i + 1))

    def box(self, i: int) -> list[int] | None:
        """Visible (modal) pixel box of object ``i`` as [x0, y0, x1, y1], x1/y1 exclusive; None if hidden."""
        mask = self.ids == i + 1
        cols, rows = mask.any(axis=0), mask.any(axis=1)
        if not cols.any():
            return None
        x0, y0 = int(cols.argmax()), int(rows.argmax())
        x1, y1 = len(cols) - int(cols[::-1].argmax()), len(rows) - int(rows[::-1].argmax())
        return [x0, y0, x1, y1]

    def mean_depth(self, i: int) -> float | None:
        mask = self.ids == i + 1
        return float(self.depth[mask].mean()) if mask.any() else None


def amodal_box(obj: Object3D, cam: Camera, size: int) -> list[int]:
    """The projected box of the whole object (hidden parts included), clipped to the image."""
    px, _ = cam.project(obj.corners(), size)
    x0, y0 = np.clip(np.floor(px.min(axis=0)), 0, size).astype(int)
    x1, y1 = np.clip(np.ceil(px.max(axis=0)), 0, size).astype(int)
    return [int(x0), int(y0), int(x1), int(y1)]


def projection_matrix(cam: Camera, znear: float = 0.05, zfar: float = 60.0) -> np.ndarray:
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
