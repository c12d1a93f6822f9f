"""Building blocks of the procedural objects: closed (watertight) trimesh parts in metres, z up, outward normals.

Every builder returns a closed surface whose normals point outwards, so that an object is a boolean-free union of
closed parts. Profiles of surfaces of revolution are (radius, z) polylines.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from mirforge.lazy import lazy_module

trimesh = lazy_module("trimesh")  # imported when a mesh is first built (a warm asset cache builds none)

Profile = Sequence[tuple[float, float]]

_COARSE: ContextVar[float | None] = ContextVar("coarse", default=None)  # the height of the object being built


@contextmanager
def coarse(height: float) -> Iterator[None]:
    """Build an object ``height`` tall with about half the resolution around its curved surfaces: the mesh for a
    view where it is small (``mirforge.render.meshes.SMALL_PIXELS``). Profiles keep theirs, so outlines keep their
    shape and bounds."""
    token = _COARSE.set(height)
    try:
        yield
    finally:
        _COARSE.reset(token)


def around(sections: int) -> int:
    """Sections around an axis or a tube at the current resolution: coarse, half of them in multiples of 4 (the
    extreme points on the axes stay), but at least 12 (30 degrees apart, still shaded smooth: see
    ``catalogue.CREASE_DEGREES``) unless the fine count is lower."""
    if _COARSE.get() is None:
        return sections
    return max(min(sections, 12), 4 * int(sections / 8 + 0.5))


def subdivided(times: int, radius: float) -> int:
    """Subdivisions of a sphere of ``radius`` (or of a sphere's patches) at the current resolution. Coarse: one
    fewer (at least 1) for a sphere under an eighth of the object's height, a dozen pixels across at most; at most 2
    for larger ones (one subdivision shows its facets in the shading of a body 30 pixels across)."""
    height = _COARSE.get()
    if height is None:
        return times
    return max(1, times - 1) if radius < height / 8 else min(times, 2)


def outward(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """The same surface with its faces wound so that the enclosed volume is positive (normals outwards)."""
    if mesh.volume < 0:
        mesh.invert()
    return mesh


def lathe(profile: Profile, sections: int = 40) -> trimesh.Trimesh:
    """Surface of revolution about the z axis of a (radius, z) polyline that starts and ends on the axis (r = 0),
    or of a closed loop (first point repeated last) that does not touch it (a ring)."""
    return outward(trimesh.creation.revolve(np.asarray(profile, dtype=float), sections=around(sections)))


def vessel(outer: Profile, wall: float, floor: float, sections: int = 40) -> trimesh.Trimesh:
    """An open-topped container: ``outer`` runs from the bottom edge (r > 0, z = 0) up to the rim; the inner wall
    is that curve moved ``wall`` inwards along its normals, down to a flat inner floor at ``floor``."""
    pts = np.asarray(outer, dtype=float)
    tangents = np.gradient(pts, axis=0)
    inward = np.c_[-tangents[:, 1], tangents[:, 0]]  # the left-hand normal of an upward curve points at the axis
    inward /= np.linalg.norm(inward, axis=1, keepdims=True)
    inner = pts + wall * inward
    inner[-1] = (pts[-1, 0] - wall, pts[-1, 1])  # a flat rim
    keep = inner[:, 1] > floor + 1e-6
    first = int(np.argmax(keep))
    if first > 0:  # where the inner curve crosses the floor
        (r0, z0), (r1, z1) = inner[first - 1], inner[first]
        r_floor = r0 + (r1 - r0) * (floor - z0) / (z1 - z0)
    else:
        r_floor = inner[0, 0]
    inner_pts = [(max(r_floor, 1e-4), floor), *map(tuple, inner[keep])]
    profile = [(0.0, 0.0), *map(tuple, pts), *reversed(inner_pts), (0.0, floor)]
    return lathe(profile, sections)


def ring(radius: float, thickness: float, z: float, sections: int = 40, tube_sections: int = 10) -> trimesh.Trimesh:
    """A torus lying in the plane at height ``z`` (a rim, a foot ring, a footrest)."""
    mesh = trimesh.creation.torus(
        radius, thickness, major_sections=around(sections), minor_sections=around(tube_sections)
    )
    mesh.apply_translation((0, 0, z))
    return outward(mesh)


def cylinder(radius: float, z0: float, z1: float, sections: int = 32, center=(0.0, 0.0)) -> trimesh.Trimesh:
    mesh = trimesh.creation.cylinder(radius=radius, height=z1 - z0, sections=around(sections))
    mesh.apply_translation((center[0], center[1], (z0 + z1) / 2))
    return outward(mesh)


def box(extents: Sequence[float], center: Sequence[float]) -> trimesh.Trimesh:
    mesh = trimesh.creation.box(extents=extents)
    mesh.apply_translation(center)
    return outward(mesh)


def ellipsoid(radii: Sequence[float], center: Sequence[float], subdivisions: int = 3) -> trimesh.Trimesh:
    mesh = trimesh.creation.icosphere(subdivisions=subdivided(subdivisions, max(radii)), radius=1.0)
    mesh.apply_scale(radii)
    mesh.apply_translation(center)
    return outward(mesh)


def prism(outline: np.ndarray, z0: float, z1: float) -> trimesh.Trimesh:
    """A convex outline (n x 2, in the xy plane) extruded from ``z0`` to ``z1``."""
    outline = np.asarray(outline, dtype=float)
    n = len(outline)
    bottom = np.c_[outline, np.full(n, z0)]
    top = np.c_[outline, np.full(n, z1)]
    centers = np.array([[*outline.mean(axis=0), z0], [*outline.mean(axis=0), z1]])
    vertices = np.vstack([bottom, top, centers])
    i = np.arange(n)
    j = (i + 1) % n
    sides = np.r_[np.c_[i, j, n + j], np.c_[i, n + j, n + i]]
    caps = np.r_[np.c_[np.full(n, 2 * n), j, i], np.c_[np.full(n, 2 * n + 1), n + i, n + j]]
    return outward(trimesh.Trimesh(vertices, np.r_[sides, caps], process=False))


def rounded_rect(width: float, depth: float, radius: float, corner_points: int = 6) -> np.ndarray:
    """A rectangle centred on the origin with rounded corners, counter-clockwise (n x 2)."""
    radius = min(radius, width / 2 - 1e-6, depth / 2 - 1e-6)
    pts = []
    for cx, cy, start in (
        (width / 2 - radius, depth / 2 - radius, 0.0),
        (-width / 2 + radius, depth / 2 - radius, 0.5 * np.pi),
        (-width / 2 + radius, -depth / 2 + radius, np.pi),
        (width / 2 - radius, -depth / 2 + radius, 1.5 * np.pi),
    ):
        for a in np.linspace(start, start + 0.5 * np.pi, corner_points):
            pts.append((cx + radius * np.cos(a), cy + radius * np.sin(a)))
    return np.array(pts)


def rounded_box(extents: Sequence[float], center: Sequence[float], radius: float, axis: int = 2) -> trimesh.Trimesh:
    """A box whose edges along ``axis`` are rounded (a suitcase, a phone, a table top)."""
    ex = list(extents)
    others = [a for a in range(3) if a != axis]
    outline = rounded_rect(ex[others[0]], ex[others[1]], radius)
    mesh = prism(outline, -ex[axis] / 2, ex[axis] / 2)
    if axis != 2:  # the prism is built along z: bring its z to ``axis``, keeping the other two in order
        perm = np.eye(4)
        perm[:3, :3] = 0
        perm[others[0], 0] = perm[others[1], 1] = perm[axis, 2] = 1
        mesh.apply_transform(perm)
    mesh.apply_translation(center)
    return outward(mesh)


def tube(
    path: np.ndarray, radius: float | np.ndarray, sections: int = 12, closed: bool = False, flat: float = 1.0
) -> trimesh.Trimesh:
    """A round tube along a 3D polyline (a handle, a spout, a wire), capped at both ends unless ``closed``.
    ``flat`` < 1 squashes the section across a planar path's plane into an ellipse (a leaf, a strap)."""
    path = np.asarray(path, dtype=float)
    n = len(path)
    radii = np.broadcast_to(np.asarray(radius, dtype=float), (n,))
    if closed:
        tangents = np.roll(path, -1, axis=0) - np.roll(path, 1, axis=0)
    else:
        tangents = np.gradient(path, axis=0)
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    # parallel-transported frames: no twist along the path
    # the first normal: across the plane of a planar path (so that ``flat`` squashes within it), else any
    normal = np.cross(tangents[0], path[-1] - path[0]) if not closed else np.cross(tangents[0], path[n // 2] - path[0])
    if np.linalg.norm(normal) < 1e-9:
        seed = np.array([0.0, 0.0, 1.0]) if abs(tangents[0, 2]) < 0.9 else np.array([1.0, 0.0, 0.0])
        normal = np.cross(tangents[0], seed)
    normal /= np.linalg.norm(normal)
    normals = [normal]
    for k in range(1, n):
        normal = normal - np.dot(normal, tangents[k]) * tangents[k]
        normal /= np.linalg.norm(normal)
        normals.append(normal)
    normals = np.array(normals)
    binormals = np.cross(tangents, normals)
    sections = around(sections)
    angles = np.linspace(0, 2 * np.pi, sections, endpoint=False)
    circle = (
        np.cos(angles)[None, :, None] * normals[:, None, :] + flat * np.sin(angles)[None, :, None] * binormals[:, None]
    )
    rings = path[:, None, :] + radii[:, None, None] * circle  # n x sections x 3
    vertices = rings.reshape(-1, 3)
    faces = []
    ring_pairs = [(k, (k + 1) % n) for k in range(n if closed else n - 1)]
    s = np.arange(sections)
    t = (s + 1) % sections
    for a, b in ring_pairs:
        faces.append(np.c_[a * sections + s, a * sections + t, b * sections + t])
        faces.append(np.c_[a * sections + s, b * sections + t, b * sections + s])
    if not closed:
        start, end = len(vertices), len(vertices) + 1
        vertices = np.vstack([vertices, path[0], path[-1]])
        faces.append(np.c_[np.full(sections, start), t, s])
        faces.append(np.c_[np.full(sections, end), (n - 1) * sections + s, (n - 1) * sections + t])
    return outward(trimesh.Trimesh(vertices, np.vstack(faces), process=False))


def arc(center: Sequence[float], radius: float, start: float, stop: float, plane: str = "xz", points: int = 16):
    """Points on a circular arc (angles in radians) in the plane ``xz``, ``yz`` or ``xy`` through ``center``."""
    a = np.linspace(start, stop, points)
    u, v = radius * np.cos(a), radius * np.sin(a)
    zeros = np.zeros_like(a)
    local = {"xz": (u, zeros, v), "yz": (zeros, u, v), "xy": (u, v, zeros)}[plane]
    return np.stack(local, axis=1) + np.asarray(center, dtype=float)


def hull(points: np.ndarray) -> trimesh.Trimesh:
    """The convex hull of some points (a tapered bin, a wedge)."""
    return outward(trimesh.convex.convex_hull(np.asarray(points, dtype=float)))


def smooth_profile(points: Profile, n: int = 24) -> list[tuple[float, float]]:
    """A (radius, z) curve through control points, eased (cosine) between them, ``n`` samples."""
    pts = np.asarray(points, dtype=float)
    out = []
    for k in range(len(pts) - 1):
        (r0, z0), (r1, z1) = pts[k], pts[k + 1]
        for s in np.linspace(0, 1, max(2, n // (len(pts) - 1)), endpoint=k == len(pts) - 2):
            out.append((r0 + (r1 - r0) * (1 - np.cos(np.pi * s)) / 2, z0 + (z1 - z0) * s))
    return out


def quarter(r0: float, z0: float, r1: float, z1: float, n: int = 8) -> list[tuple[float, float]]:
    """A rounded shoulder: a quarter-ellipse from the wall (r0, z0) in to the neck (r1, z1)."""
    a = np.linspace(0, np.pi / 2, n)
    return [(r1 + (r0 - r1) * np.cos(t), z0 + (z1 - z0) * np.sin(t)) for t in a]


def bezier(p0, p1, p2, n: int = 14) -> np.ndarray:
    t = np.linspace(0, 1, n)[:, None]
    p0, p1, p2 = (np.asarray(p, dtype=float) for p in (p0, p1, p2))
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2


def side_handle(radius_at, z_low: float, z_high: float, reach: float, thickness: float, n: int = 16) -> np.ndarray:
    """A D-shaped handle path on the +x side, from ``z_high`` out by ``reach`` and back to ``z_low``; its ends sit
    just inside the wall (``radius_at(z)`` is the outer radius there)."""
    zc, b = (z_low + z_high) / 2, (z_high - z_low) / 2
    t = np.linspace(np.pi / 2, -np.pi / 2, n)
    z = zc + b * np.sin(t)
    x = np.array([radius_at(zz) for zz in z]) - thickness * 0.8 + (reach + thickness * 0.8) * np.cos(t) ** 0.8
    return np.c_[x, np.zeros(n), z]


def profile_radius(profile: list[tuple[float, float]]):
    pts = np.asarray(profile)
    order = np.argsort(pts[:, 1])
    return lambda z: float(np.interp(z, pts[order, 1], pts[order, 0]))


def rotated(mesh: trimesh.Trimesh, angle: float, axis: Sequence[float], point: Sequence[float] = (0, 0, 0)):
    mesh.apply_transform(trimesh.transformations.rotation_matrix(angle, axis, point))
    return mesh


def moved(mesh: trimesh.Trimesh, offset: Sequence[float]) -> trimesh.Trimesh:
    mesh.apply_translation(offset)
    return mesh


def union(*meshes: trimesh.Trimesh) -> trimesh.Trimesh:
    """Closed parts side by side in one mesh (no boolean: overlaps stay inside, out of sight)."""
    return trimesh.util.concatenate(list(meshes))


def corner_normals(mesh: trimesh.Trimesh, crease_degrees: float) -> np.ndarray:
    """A normal per face corner (faces x 3 x 3): the area-weighted mean of the normals of the faces around that
    corner's vertex that meet this face at less than ``crease_degrees``; sharper edges stay sharp.

    Summed over (corner, face around its vertex) pairs, sum of degree squared in all: a padded corner x max-degree
    table was three times slower, since the poles of a lathed part meet every section."""
    face_normals = mesh.face_normals
    weighted = face_normals * mesh.area_faces[:, None]
    vertex = mesh.faces.ravel()
    by_vertex = np.argsort(vertex, kind="stable")  # corners grouped by vertex
    counts = np.bincount(vertex, minlength=len(mesh.vertices))
    starts = np.cumsum(counts) - counts
    degree = counts[vertex]
    corner = np.repeat(np.arange(len(vertex)), degree)  # each corner once per face around its vertex
    rank = np.arange(len(corner)) - np.repeat(np.cumsum(degree) - degree, degree)
    other = by_vertex[np.repeat(starts[vertex], degree) + rank] // 3
    cos = np.einsum("pk,pk->p", face_normals[corner // 3], face_normals[other])
    take = cos >= np.cos(np.radians(crease_degrees))
    corner, other = corner[take], other[take]
    normals = np.stack([np.bincount(corner, weighted[other, k], minlength=len(vertex)) for k in range(3)], axis=1)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    fallback = np.repeat(face_normals, 3, axis=0)
    out = np.where(length > 1e-12, normals / np.maximum(length, 1e-12), fallback)
    return out.reshape(-1, 3, 3)
