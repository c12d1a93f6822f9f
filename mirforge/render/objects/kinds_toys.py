"""Balls, toys, a globe and fruit. Same conventions as :mod:`.kinds_kitchen`; vehicles drive along x, so a camera
in front sees them side on."""

from __future__ import annotations

import numpy as np

from mirforge.lazy import lazy_module
from mirforge.render.objects.geometry import (
    arc,
    box,
    cylinder,
    ellipsoid,
    lathe,
    outward,
    prism,
    rotated,
    rounded_box,
    subdivided,
    tube,
    union,
)
from mirforge.render.objects.spec import Parts, kind

trimesh = lazy_module("trimesh")


def _sphere_patches(radius: float, faces: list[np.ndarray], steps: int) -> trimesh.Trimesh:
    """Planar polygons of a polyhedron around the origin, each fanned from its centre, subdivided ``steps`` times
    per edge and pushed out onto the sphere: one closed-up patch of the sphere per polygon."""
    vertices, triangles = [], []
    for polygon in faces:
        centre = polygon.mean(axis=0)
        for k in range(len(polygon)):
            a, b = polygon[k], polygon[(k + 1) % len(polygon)]
            base = len(vertices)
            index = {}
            for i in range(steps + 1):
                for j in range(steps + 1 - i):
                    p = centre + (a - centre) * i / steps + (b - centre) * j / steps
                    index[i, j] = len(vertices)
                    vertices.append(p)
            for i in range(steps):
                for j in range(steps - i):
                    triangles.append((index[i, j], index[i + 1, j], index[i, j + 1]))
                    if i + j + 1 < steps:
                        triangles.append((index[i + 1, j], index[i + 1, j + 1], index[i, j + 1]))
            del base
    v = np.asarray(vertices)
    v = radius * v / np.linalg.norm(v, axis=1, keepdims=True)
    mesh = trimesh.Trimesh(v, np.asarray(triangles), process=True)  # merge the seams between fan triangles
    mesh.fix_normals()
    return mesh


def truncated_icosahedron() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The soccer ball's 12 pentagons and 20 hexagons, as ordered vertex loops."""
    ico = trimesh.creation.icosahedron()
    verts, faces = ico.vertices, ico.faces
    edges = {tuple(sorted(e)) for f in faces for e in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0]))}

    def point(a: int, b: int) -> np.ndarray:  # a third of the way from a to b
        return verts[a] + (verts[b] - verts[a]) / 3

    pentagons = []
    for a in range(len(verts)):
        ring_ = [point(a, b) for e in edges if a in e for b in e if b != a]
        centre = verts[a]
        u = ring_[0] - centre
        u /= np.linalg.norm(u)
        v = np.cross(centre / np.linalg.norm(centre), u)
        order = np.argsort([np.arctan2(np.dot(p - centre, v), np.dot(p - centre, u)) for p in ring_])
        pentagons.append(np.array([ring_[i] for i in order]))
    hexagons = []
    for f in faces:
        a, b, c = f
        hexagons.append(np.array([point(a, b), point(b, a), point(b, c), point(c, b), point(c, a), point(a, c)]))
    return pentagons, hexagons


@kind(
    "soccer ball",
    {
        "soccer ball": (
            (0.21, 0.23),
            [
                {"body": "white rubber", "patches": "black rubber"},
                {"body": "white rubber", "patches": "blue rubber"},
                {"body": "yellow rubber", "patches": "black rubber"},
            ],
        )
    },
)
def soccer_ball(rng: np.random.Generator, style: str, h: float) -> Parts:
    pentagons, hexagons = truncated_icosahedron()
    r = h / 2
    lift = (0, 0, r)
    white = _sphere_patches(r, hexagons, subdivided(3, r)).apply_translation(lift)
    black = _sphere_patches(r, pentagons, subdivided(3, r)).apply_translation(lift)
    return [("body", white), ("patches", black)]


@kind(
    "basketball",
    {"basketball": ((0.23, 0.25), ["orange rubber", "terracotta rubber", "safety orange rubber"])},
    fixed={"seams": "black rubber"},
)
def basketball(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h / 2
    ball = ellipsoid((r, r, r), (0, 0, r), 3)
    seam = 0.012 * r * 2
    lines = [
        tube(arc((0, 0, r), r * 1.0, 0, 2 * np.pi, "xz", 48)[:-1], seam, 4, closed=True),
        tube(arc((0, 0, r), r * 1.0, 0, 2 * np.pi, "xy", 48)[:-1], seam, 4, closed=True),
    ]
    for side in (-1, 1):  # the two curved seams: circles of the sphere in planes x = +-0.62 r
        offset = 0.62 * r
        small = np.sqrt(r**2 - offset**2)
        loop = arc((0, 0, r), small, 0, 2 * np.pi, "yz", 36)[:-1]
        loop[:, 0] = side * offset
        lines.append(tube(loop, seam, 4, closed=True))
    rotated_lines = [rotated(m, np.radians(25), (0, 0, 1), (0, 0, r)) for m in lines]
    rotated(ball, 0, (0, 0, 1))
    return [("body", ball), ("seams", union(*rotated_lines))]


@kind(
    "ball",
    {
        "rubber ball": (
            (0.06, 0.2),
            [
                {"body": c, "stripe": s}
                for c, s in (
                    ("red rubber", "yellow rubber"),
                    ("blue rubber", "white rubber"),
                    ("green rubber", "yellow rubber"),
                    ("pink rubber", "white rubber"),
                )
            ],
        ),
        "beach ball": (
            (0.25, 0.4),
            [
                {"body": "red plastic", "stripe": "white plastic"},
                {"body": "blue plastic", "stripe": "yellow plastic"},
                {"body": "green plastic", "stripe": "white plastic"},
            ],
        ),
    },
    fixed={"third": "yellow plastic", "cap": "white plastic"},
    named_by_style=True,  # "ball" also fits the basketball and the soccer ball of the same scenes
)
def ball(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h / 2
    if style == "rubber ball":  # a band round the middle, a hair proud of the ball
        band = np.linspace(-0.18, 0.18, 6) * np.pi / 2
        stripe = [(1.004 * r * np.cos(a), r + 1.004 * r * np.sin(a)) for a in band]
        stripe += [(0.99 * r * np.cos(a), r + 0.99 * r * np.sin(a)) for a in band[::-1]]
        return [("body", ellipsoid((r, r, r), (0, 0, r), 3)), ("stripe", lathe([*stripe, stripe[0]], 48))]
    # six gores around the vertical axis in three colours, white caps at the poles; the lathe's meridians and
    # rings fall on the colour borders, so they are crisp
    cap = np.radians(78)
    polar = np.r_[np.linspace(-np.pi / 2, -cap, 3), np.linspace(-cap, cap, 16)[1:-1], np.linspace(cap, np.pi / 2, 3)]
    sphere = lathe([(r * np.cos(a), r + r * np.sin(a)) for a in polar], 48)
    centres = sphere.triangles_center - (0, 0, r)
    gore = ((np.arctan2(centres[:, 1], centres[:, 0]) + np.pi) // (np.pi / 3)).astype(int) % 6
    caps = np.abs(centres[:, 2]) > r * np.sin(cap) * 0.999
    parts = []
    for role, sel in (
        ("body", (gore % 3 == 0) & ~caps),
        ("stripe", (gore % 3 == 1) & ~caps),
        ("third", (gore % 3 == 2) & ~caps),
        ("cap", caps),
    ):
        parts.append((role, sphere.submesh([np.flatnonzero(sel)], append=True)))
    return parts


def _wheels(xs, track: float, radius: float, width: float) -> trimesh.Trimesh:
    out = []
    for x in xs:
        for y in (-track / 2, track / 2):
            tyre = rotated(cylinder(radius, -width / 2, width / 2, 24), np.pi / 2, (1, 0, 0))
            out.append(tyre.apply_translation((x, y, radius)))
    return union(*out)


def _hubs(xs, track: float, radius: float, width: float) -> trimesh.Trimesh:
    out = []
    for x in xs:
        for y in (-track / 2 - width / 2, track / 2 + width / 2):
            hub = rotated(cylinder(radius * 0.5, -0.001, 0.001, 16), np.pi / 2, (1, 0, 0))
            out.append(hub.apply_translation((x, y, radius)))
    return union(*out)


def _side_prism(outline: np.ndarray, width: float, y: float = 0.0) -> trimesh.Trimesh:
    """A convex outline in the xz plane extruded across y (a car's cabin seen from the side)."""
    mesh = rotated(prism(outline, -width / 2, width / 2), np.pi / 2, (1, 0, 0))
    return outward(mesh.apply_translation((0, y, 0)))


@kind(
    "toy car",
    {
        "hatchback": (
            (0.045, 0.07),
            ["red plastic", "blue plastic", "yellow plastic", "green plastic", "white plastic"],
        ),
        "sedan": ((0.04, 0.06), ["silver metal", "black metal", "red metal", "sky blue metal"]),
    },
    fixed={"windows": "sky blue glass", "tyres": "black rubber", "hubs": "silver metal", "lights": "yellow plastic"},
)
def toy_car(rng: np.random.Generator, style: str, h: float) -> Parts:
    length = h * rng.uniform(2.3, 2.7) if style == "hatchback" else h * rng.uniform(2.8, 3.2)
    width = length * rng.uniform(0.42, 0.48)
    wheel_r = 0.2 * h
    body_lo, body_hi = 0.6 * wheel_r, 0.58 * h
    body = rounded_box((length, width, body_hi - body_lo), (0, 0, (body_lo + body_hi) / 2), 0.12 * h, axis=1)
    front, back = -length / 2, length / 2  # drives toward -x
    # the side outline is a car's, whichever way it faces: the cabin spans the middle of the car, and no end is a
    # long low deck (a short cabin at one end of a long flat one is a pickup truck: a "toy truck")
    if style == "hatchback":  # a short bonnet, then the cabin down to a steep hatch at the very back
        cabin = np.array(
            [
                [front + 0.24 * length, body_hi],
                [back - 0.02 * length, body_hi],
                [back - 0.09 * length, h],
                [front + 0.44 * length, h],
            ]
        )
    else:
        cabin = np.array(
            [
                [front + 0.3 * length, body_hi],
                [back - 0.22 * length, body_hi],
                [back - 0.3 * length, h],
                [front + 0.42 * length, h],
            ]
        )
    glass = _side_prism(np.c_[cabin[:, 0], np.minimum(cabin[:, 1], 0.94 * h)], width * 0.84)

    def along(k0: int, k1: int, z: float) -> float:  # x of the cabin's slanted edge from corner k0 to k1 at height z
        (x0, z0), (x1, z1) = cabin[k0], cabin[k1]
        return x0 + (x1 - x0) * (z - z0) / (z1 - z0)

    e = 0.01 * length  # the roof overhangs the glass a little, so no two faces lie in one plane
    roof = _side_prism(
        np.array(
            [
                [along(0, 3, 0.9 * h) - e, 0.9 * h],
                [along(1, 2, 0.9 * h) + e, 0.9 * h],
                [along(1, 2, h) + e, h],
                [along(0, 3, h) - e, h],
            ]
        ),
        width * 0.86,
    )
    middle = (along(0, 3, body_hi) + along(1, 2, body_hi)) / 2
    pillar = box((0.05 * length, width * 0.86, h - body_hi), (middle, 0, (h + body_hi) / 2))
    xs = (front + 0.2 * length, back - 0.2 * length)
    lights = union(*(box((0.01, 0.2 * width, 0.1 * h), (front - 0.002, s * 0.3 * width, 0.45 * h)) for s in (-1, 1)))
    return [
        ("body", union(body, roof, pillar)),
        ("windows", glass),
        ("tyres", _wheels(xs, width * 0.86, wheel_r, 0.22 * width)),
        ("hubs", _hubs(xs, width * 0.86, wheel_r, 0.22 * width)),
        ("lights", lights),
    ]


@kind(
    "toy truck",
    {
        "dump truck": (
            (0.08, 0.12),
            [
                {"body": "yellow plastic", "bed": "red plastic"},
                {"body": "orange plastic", "bed": "grey plastic"},
                {"body": "blue plastic", "bed": "yellow plastic"},
            ],
        ),
        "box truck": (
            (0.09, 0.13),
            [
                {"body": "red plastic", "bed": "white plastic"},
                {"body": "blue plastic", "bed": "white plastic"},
                {"body": "green plastic", "bed": "yellow plastic"},
            ],
        ),
    },
    fixed={"windows": "sky blue glass", "tyres": "black rubber", "hubs": "silver metal", "chassis": "charcoal plastic"},
)
def toy_truck(rng: np.random.Generator, style: str, h: float) -> Parts:
    length = h * rng.uniform(2.0, 2.4)
    width = h * rng.uniform(0.8, 0.9)
    wheel_r = 0.17 * h
    chassis_z = wheel_r * 1.1
    front = -length / 2
    cab_len = 0.3 * length
    chassis = box((length * 0.96, width * 0.7, 0.08 * h), (0, 0, chassis_z))
    cab = rounded_box(
        (cab_len, width, 0.85 * h - chassis_z), (front + cab_len / 2, 0, (chassis_z + 0.85 * h) / 2), 0.06 * h, axis=1
    )
    windscreen = box((0.01, width * 0.8, 0.22 * h), (front - 0.001, 0, 0.66 * h))
    side_windows = box((cab_len * 0.5, width + 0.002, 0.2 * h), (front + cab_len * 0.45, 0, 0.66 * h))
    rear_x0 = front + cab_len + 0.02 * length
    rear_len = length / 2 - rear_x0
    cx = rear_x0 + rear_len / 2
    if style == "dump truck":
        t = 0.05 * h
        z0, z1 = chassis_z + 0.05 * h, 0.75 * h
        bed = union(
            box((rear_len, width, t), (cx, 0, z0 + t / 2)),
            *(box((rear_len, t, z1 - z0), (cx, s * (width - t) / 2, (z0 + z1) / 2)) for s in (-1, 1)),
            *(box((t, width, z1 - z0), (x, 0, (z0 + z1) / 2)) for x in (rear_x0 + t / 2, length / 2 - t / 2)),
        )
    else:
        bed = rounded_box(
            (rear_len, width * 1.05, h - chassis_z - 0.05 * h),
            (cx, 0, (chassis_z + 0.05 * h + h) / 2),
            0.02 * h,
            axis=1,
        )
    xs = (front + 0.16 * length, length / 2 - 0.3 * length, length / 2 - 0.13 * length)
    return [
        ("body", cab),
        ("windows", union(windscreen, side_windows)),
        ("bed", bed),
        ("chassis", chassis),
        ("tyres", _wheels(xs, width * 0.86, wheel_r, 0.2 * width)),
        ("hubs", _hubs(xs, width * 0.86, wheel_r, 0.2 * width)),
    ]


@kind(
    "globe",
    {
        "desk globe": (
            (0.3, 0.45),
            [
                {"body": "blue plastic", "land": "green plastic"},
                {"body": "sky blue plastic", "land": "tan plastic"},
                {"body": "navy plastic", "land": "mustard plastic"},
            ],
        )
    },
    fixed={"stand": "brass metal", "foot": "walnut wood"},
    nouns={"*": "desk globe"},  # the sphere alone is 72% of its height
)
def globe(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * 0.36
    cz = h - r - 0.06 * r
    sphere = trimesh.creation.icosphere(subdivisions=subdivided(3, r), radius=r)
    # continents: a smooth random field on the sphere, thresholded (a fixed pattern per variant)
    centres = sphere.triangles_center / r
    field = np.zeros(len(centres))
    for _ in range(30):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        field += rng.uniform(0.5, 1.0) * np.exp(-((1 - centres @ d) / rng.uniform(0.03, 0.12)))
    land = field > np.quantile(field, 0.7)
    tilt = np.radians(23.5)
    ocean = sphere.submesh([np.flatnonzero(~land)], append=True)
    continents = sphere.submesh([np.flatnonzero(land)], append=True)
    for m in (ocean, continents):
        rotated(m, tilt, (0, 1, 0))
        m.apply_translation((0, 0, cz))
    meridian = arc((0, 0, 0), r * 1.08, np.radians(-120), np.radians(120), "xz", 32)
    meridian = np.c_[meridian[:, 2], meridian[:, 1], meridian[:, 0]]
    ring_mesh = rotated(tube(meridian, 0.018 * r, 8), tilt, (0, 1, 0)).apply_translation((0, 0, cz))
    stem_top = cz - r * 1.08 * np.cos(np.radians(60) - tilt) * 0.0 - r * 1.08 * 0.8
    stem = cylinder(0.05 * r, 0.06 * h, max(stem_top, 0.1 * h) + 0.02, 16)
    foot = lathe([(0, 0), (0.55 * r, 0), (0.5 * r, 0.04 * h), (0.2 * r, 0.07 * h), (0, 0.07 * h)], 40)
    return [("body", ocean), ("land", continents), ("stand", union(ring_mesh, stem)), ("foot", foot)]


@kind(
    "rubber duck",
    {"rubber duck": ((0.07, 0.12), ["yellow rubber", "pink rubber", "white rubber"])},
    fixed={"beak": "orange rubber", "eyes": "black rubber"},
)
def rubber_duck(rng: np.random.Generator, style: str, h: float) -> Parts:
    """Facing -x (its profile toward the camera in front)."""
    s = h / 1.0
    body = ellipsoid((0.5 * s, 0.4 * s, 0.3 * s), (0.05 * s, 0, 0.3 * s), 2)
    # a tail tipped up and folded wings on both sides: seen from behind, three stacked balls read as a snowman
    tail = rotated(
        ellipsoid((0.2 * s, 0.12 * s, 0.09 * s), (0.5 * s, 0, 0.5 * s), 2), -0.6, (0, 1, 0), (0.5 * s, 0, 0.5 * s)
    )
    wings = [
        rotated(
            ellipsoid((0.27 * s, 0.07 * s, 0.14 * s), (0.12 * s, y * s, 0.4 * s), 2),
            -0.3,
            (0, 1, 0),
            (0.12 * s, 0, 0.4 * s),
        )
        for y in (-0.36, 0.36)
    ]
    head = ellipsoid((0.25 * s, 0.25 * s, 0.25 * s), (-0.22 * s, 0, 0.74 * s), 2)
    beak = ellipsoid((0.16 * s, 0.12 * s, 0.05 * s), (-0.48 * s, 0, 0.7 * s), 2)
    eyes = union(*(ellipsoid((0.035 * s,) * 3, (-0.38 * s, y * s, 0.83 * s), 1) for y in (-0.14, 0.14)))
    return [("body", union(body, tail, head, *wings)), ("beak", beak), ("eyes", eyes)]


@kind(
    "teddy bear",
    {"sitting": ((0.2, 0.4), ["brown fabric", "tan fabric", "cream fabric", "dark brown fabric"])},
    fixed={"muzzle": "cream fabric", "eyes": "black plastic", "nose": "black plastic"},
)
def teddy_bear(rng: np.random.Generator, style: str, h: float) -> Parts:
    """Sitting, facing the front (-y)."""
    s = h / 1.0
    body = ellipsoid((0.24 * s, 0.2 * s, 0.28 * s), (0, 0, 0.3 * s), 2)
    head = ellipsoid((0.2 * s, 0.18 * s, 0.19 * s), (0, -0.02 * s, 0.76 * s), 2)
    ears = [ellipsoid((0.07 * s, 0.04 * s, 0.07 * s), (x * s, 0, 0.92 * s), 2) for x in (-0.15, 0.15)]
    arms = [ellipsoid((0.07 * s, 0.07 * s, 0.17 * s), (x * s, -0.05 * s, 0.38 * s), 2) for x in (-0.24, 0.24)]
    for arm, side in zip(arms, (-1, 1), strict=True):
        rotated(arm, side * 0.5, (0, 1, 0), (side * 0.24 * s, -0.05 * s, 0.5 * s))
    legs = [ellipsoid((0.08 * s, 0.17 * s, 0.08 * s), (x * s, -0.18 * s, 0.08 * s), 2) for x in (-0.13, 0.13)]
    muzzle = ellipsoid((0.08 * s, 0.06 * s, 0.06 * s), (0, -0.18 * s, 0.72 * s), 2)
    pads = [ellipsoid((0.055 * s, 0.02 * s, 0.055 * s), (x * s, -0.345 * s, 0.08 * s), 2) for x in (-0.13, 0.13)]
    eyes = union(*(ellipsoid((0.022 * s,) * 3, (x * s, -0.175 * s, 0.81 * s), 1) for x in (-0.07, 0.07)))
    nose = ellipsoid((0.03 * s, 0.02 * s, 0.02 * s), (0, -0.24 * s, 0.75 * s), 1)
    inner_ears = [ellipsoid((0.04 * s, 0.02 * s, 0.04 * s), (x * s, -0.03 * s, 0.91 * s), 1) for x in (-0.15, 0.15)]
    return [
        ("body", union(body, head, *ears, *arms, *legs)),
        ("muzzle", union(muzzle, *pads, *inner_ears)),
        ("eyes", eyes),
        ("nose", nose),
    ]


@kind(
    "apple",
    {"apple": ((0.065, 0.09), ["red plastic", "green plastic", "yellow plastic", "dark red plastic"])},
    fixed={"stem": "dark brown wood", "leaf": "leaf green fabric"},
)
def apple(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * rng.uniform(0.5, 0.55)
    t = np.linspace(0, np.pi, 20)
    # about as tall as wide, broadest at the shoulders and narrowing to the base (a squat, bottom-heavy sphere
    # reads as a tomato), dimpled where the stem and the calyx sit
    radius = r * np.sin(t) * (1 - 0.16 * np.cos(t))
    z = -r * np.cos(t) * 0.95
    dip = 0.16 * r * np.exp(-((t / 0.35) ** 2)) + 0.22 * r * np.exp(-(((np.pi - t) / 0.35) ** 2))
    profile = np.c_[radius, z + np.where(t < np.pi / 2, dip, -dip)]
    profile[0, 0] = profile[-1, 0] = 0.0
    body = lathe([tuple(p) for p in profile], 28)
    body.apply_translation((0, 0, -body.bounds[0, 2]))
    top = body.bounds[1, 2]
    stem_base = top - 0.2 * r
    stem = tube(np.array([(0, 0, stem_base), (0.02 * r, 0, top), (0.08 * r, 0, top + 0.2 * r)]), 0.035 * r, 8)
    leaf = tube(
        np.array(
            [(0.05 * r, 0, top + 0.1 * r), (0.3 * r, 0.05 * r, top + 0.18 * r), (0.55 * r, 0.1 * r, top + 0.12 * r)]
        ),
        np.array([0.01, 0.14, 0.01]) * r,
        8,
        flat=0.25,
    )
    return [("body", body), ("stem", stem), ("leaf", leaf)]
