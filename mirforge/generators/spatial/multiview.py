"""Helpers shared by the multi-view spatial tasks (location_relationship, depth_relationship, forced_perspective).

Scene side (pure geometry, no renderer): primitives scattered on a disc without touching, a ring of perspective
cameras around them, projected centres and depths, frame and occlusion checks with a margin.
Measurement side (what a verifier may use): per-object facts read from a rendered view's segmentation mask and
depth buffer: visible pixel count, pixel box, mask centroid, median depth of the visible pixels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import distinct_colors, object_name, random_shapes
from mirforge.render.scene3d import PALETTE, Camera, Object3D, orbit_camera

SCENE_RADIUS = 1.8  # objects stand inside this disc
TARGET = (0.0, 0.0, 0.3)


def footprint_radius(obj: Object3D) -> float:
    """Radius of a circle that covers the object's footprint, whatever its yaw."""
    return 0.5 * math.hypot(obj.size[0], obj.size[1])


def scatter_objects(
    rng: np.random.Generator,
    n: int,
    *,
    radius: float = SCENE_RADIUS,
    width: tuple[float, float] = (0.4, 0.75),
    height: tuple[float, float] = (0.35, 1.0),
    gap: float = 0.2,
) -> tuple[Object3D, ...]:
    """``n`` primitives with distinct colours (so colour + shape names are unique), standing apart on a disc."""
    colors, shapes = distinct_colors(rng, n), random_shapes(rng, n)
    objects: list[Object3D] = []
    for color, shape in zip(colors, shapes, strict=True):
        w = float(rng.uniform(*width))
        d = w if shape != "box" else float(rng.uniform(*width))
        h = float(rng.uniform(*height))
        if shape == "sphere":
            d = h = w
        yaw = float(rng.uniform(0, math.pi / 2)) if shape == "box" else 0.0
        probe = Object3D(object_name(color, shape), shape, (w, d, h), PALETTE[color], (0.0, 0.0), yaw=yaw)
        r = footprint_radius(probe)
        for _ in range(60):
            rho = (radius - r) * math.sqrt(float(rng.uniform()))
            phi = float(rng.uniform(0, 2 * math.pi))
            xy = (rho * math.cos(phi), rho * math.sin(phi))
            if all(math.dist(xy, o.position) >= r + footprint_radius(o) + gap for o in objects):
                break
        else:
            raise Reject("objects do not fit on the table")
        objects.append(Object3D(probe.name, shape, probe.size, probe.color, xy, yaw=yaw))
    return tuple(objects)


def table_radius(n_objects: int) -> float:
    """The disc the objects stand on grows with their number, so that they fit without touching."""
    return 1.2 + 0.15 * n_objects


def camera_ring(
    rng: np.random.Generator,
    n_views: int,
    *,
    radius: float = SCENE_RADIUS,
    elevation: tuple[float, float] = (24.0, 40.0),
    distance: tuple[float, float] = (3.3, 3.7),
) -> tuple[tuple[Camera, ...], tuple[float, ...]]:
    """``n_views`` perspective cameras spread around the scene (azimuths in degrees, 0 = from the front).

    ``distance`` is in units of the table ``radius``, so the whole table stays in frame."""
    start = float(rng.uniform(0, 360))
    step = 360.0 / n_views
    jitter = min(20.0, 0.2 * step)
    azimuths = tuple(float((start + k * step + rng.uniform(-jitter, jitter)) % 360) for k in range(n_views))
    if n_views == 2:  # two cameras: anywhere from a quarter turn to opposite sides, so relations may or may not flip
        azimuths = (start % 360, float((start + rng.choice([-1, 1]) * rng.uniform(60, 180)) % 360))
    cams = tuple(
        orbit_camera(az, float(rng.uniform(*elevation)), radius * float(rng.uniform(*distance)), target=TARGET)
        for az in azimuths
    )
    return cams, azimuths


def centres(objects: tuple[Object3D, ...], cam: Camera, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Projected centre (pixel x, y) and view-axis depth of every object's centre."""
    px, depth = cam.project(np.array([o.center for o in objects]), size)
    return px, depth


def projected_box(obj: Object3D, cam: Camera, size: int) -> tuple[float, float, float, float]:
    """Unclipped projected box of the object's bounding box corners."""
    px, _ = cam.project(obj.corners(), size)
    return float(px[:, 0].min()), float(px[:, 1].min()), float(px[:, 0].max()), float(px[:, 1].max())


def in_frame(obj: Object3D, cam: Camera, size: int, pad: int = 6) -> bool:
    x0, y0, x1, y1 = projected_box(obj, cam, size)
    return x0 >= pad and y0 >= pad and x1 <= size - pad and y1 <= size - pad


def view_boxes(objects: tuple[Object3D, ...], cam: Camera, size: int) -> np.ndarray:
    """Unclipped projected boxes [x0, y0, x1, y1] of all objects' bounding-box corners, one projection call."""
    px, _ = cam.project(np.concatenate([o.corners() for o in objects]), size)
    px = px.reshape(len(objects), 8, 2)
    return np.concatenate([px.min(axis=1), px.max(axis=1)], axis=1)


def all_in_frame(objects: tuple[Object3D, ...], cameras: tuple[Camera, ...], size: int, pad: int = 6) -> bool:
    for cam in cameras:
        boxes = view_boxes(objects, cam, size)
        if boxes[:, :2].min() < pad or boxes[:, 2:].max() > size - pad:
            return False
    return True


def covered_fractions(objects: tuple[Object3D, ...], cam: Camera, size: int) -> list[float]:
    """For each object, the share of its projected box covered by the projected boxes of objects nearer the
    camera (a conservative stand-in for occlusion, computed before rendering)."""
    boxes = view_boxes(objects, cam, size)
    _, depth = centres(objects, cam, size)
    out = []
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        w, h = max(1, math.ceil(x1 - x0)), max(1, math.ceil(y1 - y0))
        covered = np.zeros((h, w), dtype=bool)
        for j, (a0, b0, a1, b1) in enumerate(boxes):
            if j == i or depth[j] >= depth[i]:
                continue
            c0, c1 = max(0, math.floor(a0 - x0)), min(w, math.ceil(a1 - x0))
            r0, r1 = max(0, math.floor(b0 - y0)), min(h, math.ceil(b1 - y0))
            if c0 < c1 and r0 < r1:
                covered[r0:r1, c0:c1] = True
        out.append(float(covered.mean()))
    return out


def sign(value: float, margin: float) -> int:
    """+1 or -1 when ``value`` clears ``margin``, 0 for a near-tie."""
    if value >= margin:
        return 1
    if value <= -margin:
        return -1
    return 0


# -- measurement from rendered views ------------------------------------------------------------------------------
def measure_view(view: Any, names: list[str], min_px: int) -> dict[str, dict[str, Any]]:
    """Facts read from one view's masks and depth for every object with at least ``min_px`` visible pixels."""
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(names):
        if view.pixels(i) < min_px:  # all objects' counts and boxes come from one pass over the ids
            continue
        m = view.measure(i)  # within the object's box only
        out[name] = {
            "px": m["px"],
            "box": m["box"],
            "cx": round(m["cx"], 2),
            "cy": round(m["cy"], 2),
            "depth": round(m["depth"], 4),
        }
    return out


def left_to_right(measured: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(measured, key=lambda n: (measured[n]["cx"], n))


def near_to_far(measured: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(measured, key=lambda n: (measured[n]["depth"], n))
