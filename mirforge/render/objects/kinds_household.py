"""Household and street things: lamps, vases, plants, bins, buckets, candles, books, boxes, luggage, a laptop, a
clock, a traffic cone and a fire hydrant. Same conventions as :mod:`.kinds_kitchen`."""

from __future__ import annotations

import numpy as np

from mirforge.render.objects.geometry import (
    arc,
    box,
    cylinder,
    ellipsoid,
    hull,
    lathe,
    prism,
    profile_radius,
    rotated,
    rounded_box,
    rounded_rect,
    smooth_profile,
    tube,
    union,
    vessel,
)
from mirforge.render.objects.spec import Parts, kind

SHADES = ["cream fabric", "white fabric", "ivory fabric", "navy fabric", "sky blue fabric"]


def shade(bottom_r: float, top_r: float, z0: float, z1: float, wall: float = 0.004):
    """A lamp shade: a thin conical band, open at both ends."""
    return lathe([(bottom_r, z0), (top_r, z1), (top_r - wall, z1), (bottom_r - wall, z0), (bottom_r, z0)], 48)


@kind(
    "table lamp",
    {
        "classic": (
            (0.38, 0.6),
            [
                {"shade": "cream fabric", "base": "brass metal"},
                {"shade": "white fabric", "base": "black metal"},
                {"shade": "navy fabric", "base": "silver metal"},
            ],
        ),
        "ginger jar": (
            (0.42, 0.65),
            [
                {"shade": "ivory fabric", "base": "blue ceramic"},
                {"shade": "white fabric", "base": "teal ceramic"},
                {"shade": "cream fabric", "base": "white ceramic"},
            ],
        ),
    },
    fixed={"fitting": "brass metal"},
)
def table_lamp(rng: np.random.Generator, style: str, h: float) -> Parts:
    shade_h = h * rng.uniform(0.32, 0.4)
    bottom_r = h * rng.uniform(0.26, 0.32)
    top_r = bottom_r * rng.uniform(0.6, 0.8)
    z0 = h - shade_h
    parts = [("shade", shade(bottom_r, top_r, z0, h))]
    if style == "classic":
        foot_r = bottom_r * 0.6
        base = lathe([(0, 0), (foot_r, 0), (foot_r, 0.025 * h), (0.6 * foot_r, 0.05 * h), (0, 0.05 * h)], 40)
        stem = cylinder(0.022 * h, 0.04 * h, z0 + 0.5 * shade_h, 20)
        parts += [("base", base), ("base", stem)]
    else:
        jar_h = z0 + 0.05 * h
        jar_r = bottom_r * 0.7
        outline = smooth_profile(
            [(0.55 * jar_r, 0), (jar_r, 0.4 * jar_h), (0.5 * jar_r, 0.85 * jar_h), (0.45 * jar_r, 0.9 * jar_h)], 20
        )
        base = lathe([(0, 0), *outline, (0, 0.9 * jar_h)], 40)
        stem = cylinder(0.018 * h, 0.85 * jar_h, z0 + 0.5 * shade_h, 16)
        parts += [("base", base), ("fitting", stem)]
    parts.append(("fitting", ellipsoid((0.03 * h, 0.03 * h, 0.04 * h), (0, 0, z0 + 0.45 * shade_h), 2)))
    return parts


@kind(
    "floor lamp",
    {
        "floor lamp": (
            (1.4, 1.8),
            [
                {"shade": "cream fabric", "base": "black metal"},
                {"shade": "white fabric", "base": "brass metal"},
                {"shade": "ivory fabric", "base": "silver metal"},
            ],
        )
    },
)
def floor_lamp(rng: np.random.Generator, style: str, h: float) -> Parts:
    shade_h = rng.uniform(0.28, 0.36)
    bottom_r = rng.uniform(0.2, 0.25)
    z0 = h - shade_h
    base = lathe([(0, 0), (0.16, 0), (0.16, 0.02), (0.1, 0.04), (0, 0.04)], 40)
    pole = cylinder(0.013, 0.03, z0 + 0.5 * shade_h, 16)
    return [("shade", shade(bottom_r, bottom_r * rng.uniform(0.65, 0.8), z0, h)), ("base", base), ("base", pole)]


@kind(
    "vase",
    {
        "amphora": ((0.22, 0.42), ["blue ceramic", "white ceramic", "terracotta ceramic", "teal ceramic"]),
        "with flowers": ((0.38, 0.6), ["clear glass", "white ceramic", "black ceramic", "sky blue glass"]),
        "bud vase": ((0.14, 0.22), ["cobalt glass", "bottle green glass", "amber glass", "pink ceramic"]),
    },
    fixed={"stem": "dark green fabric", "flower": "pink fabric"},
    nouns={"with flowers": "vase of flowers"},  # the flowers are half its height
)
def vase(rng: np.random.Generator, style: str, h: float) -> Parts:
    if style == "amphora":
        r = h * rng.uniform(0.22, 0.3)
        points = [(0.5 * r, 0), (r, 0.38 * h), (0.42 * r, 0.78 * h), (0.62 * r, h)]
    elif style == "with flowers":  # a straight vase, a bunch of flowers standing out of it
        top = h * rng.uniform(0.5, 0.58)
        r = top * rng.uniform(0.26, 0.32)
        vase_ = vessel([(0.92 * r, 0), (r, top)], 0.03 * r, 0.06 * top, 48)
        stems, heads = [], []
        for k in range(7):
            angle = 2 * np.pi * k / 7 + rng.uniform(-0.3, 0.3)
            lean = (0.0 if k == 0 else rng.uniform(0.5, 1.6)) * r
            tip = np.array(
                [lean * np.cos(angle), lean * np.sin(angle), h - 0.05 * h - (0 if k == 0 else rng.uniform(0, 0.18) * h)]
            )
            stems.append(
                tube(
                    np.array(
                        [
                            (
                                0.3 * tip[0] / max(lean, 1e-9) * 0.4 * r,
                                0.3 * tip[1] / max(lean, 1e-9) * 0.4 * r,
                                0.1 * top,
                            ),
                            (0.5 * tip[0], 0.5 * tip[1], top + 0.1 * h),
                            tip,
                        ]
                    ),
                    0.004,
                    6,
                )
            )
            heads.append(ellipsoid((0.05 * h, 0.05 * h, 0.04 * h), tip, 2))
        return [("body", vase_), ("stem", union(*stems)), ("flower", union(*heads))]
    else:
        r = h * rng.uniform(0.26, 0.32)
        points = [(0.6 * r, 0), (r, 0.3 * h), (0.28 * r, 0.8 * h), (0.38 * r, h)]
    outer = smooth_profile(points, 20)
    return [("body", vessel(outer, 0.03 * r, 0.06 * h, 36))]


@kind(
    "flower pot",
    {
        "leafy plant": ((0.3, 0.6), ["terracotta ceramic", "white ceramic", "navy ceramic", "grey ceramic"]),
        "cactus": ((0.2, 0.4), ["terracotta ceramic", "white ceramic", "yellow ceramic"]),
        "flowering": ((0.25, 0.45), ["terracotta ceramic", "white ceramic", "sky blue ceramic"]),
    },
    fixed={"soil": "soil wood", "plant": "leaf green fabric", "flower": "pink fabric", "stem": "dark green fabric"},
    nouns={"*": "potted plant", "cactus": "potted cactus"},  # the pot alone is 40% of its height
)
def flower_pot(rng: np.random.Generator, style: str, h: float) -> Parts:
    pot_h = h * {"leafy plant": 0.4, "cactus": 0.38, "flowering": 0.42}[style]
    rt = pot_h * rng.uniform(0.5, 0.6)
    rb = rt * 0.72
    outer = [(rb, 0), (rt, pot_h * 0.82)]
    radius = profile_radius(outer)
    pot = vessel([*outer, (rt, pot_h)], 0.06 * rt, 0.1 * pot_h, 40)
    rim = lathe([(rt, pot_h * 0.8), (rt * 1.1, pot_h * 0.8), (rt * 1.1, pot_h), (rt, pot_h), (rt, pot_h * 0.8)], 40)
    soil_z = pot_h * 0.9
    soil = cylinder(radius(soil_z) - 0.06 * rt + 0.002, soil_z - 0.02, soil_z, 32)
    parts = [("body", pot), ("body", rim), ("soil", soil)]
    top = h - soil_z
    if style == "cactus":
        col_r = rt * rng.uniform(0.35, 0.45)
        column = lathe(
            [
                (0, soil_z - 0.01),
                (col_r, soil_z - 0.01),
                (col_r, h - col_r * 0.9),
                *((col_r * np.cos(a), h - col_r * 0.9 + col_r * 0.9 * np.sin(a)) for a in np.linspace(0, np.pi / 2, 7)),
            ],
            24,
        )
        arms = []
        for side, z in ((1, 0.35), (-1, 0.55)):
            zb = soil_z + z * top
            path = np.array(
                [
                    (0, 0, zb),
                    (side * 1.6 * col_r, 0, zb),
                    (side * 1.8 * col_r, 0, zb + 0.18 * top),
                    (side * 1.8 * col_r, 0, zb + 0.3 * top),
                ]
            )
            arms.append(tube(path, 0.55 * col_r, 14))
            arms.append(ellipsoid((0.55 * col_r,) * 3, path[-1], 2))
        parts += [
            ("plant", column),
            ("plant", union(*arms)),
            ("flower", ellipsoid((0.3 * col_r,) * 3, (0, 0, h - 0.2 * col_r), 2)),
        ]
        return parts
    if style == "flowering":
        stems, heads = [], []
        for k in range(5):
            angle = 2 * np.pi * k / 5 + rng.uniform(-0.3, 0.3)
            lean = rng.uniform(0.15, 0.35) * rt
            tip_z = h - 0.06 * top - (0 if k == 0 else rng.uniform(0, 0.25) * top)
            tip = (lean * np.cos(angle), lean * np.sin(angle), tip_z)
            stems.append(
                tube(
                    np.array([(0, 0, soil_z - 0.01), (tip[0] * 0.5, tip[1] * 0.5, (soil_z + tip_z) / 2), tip]), 0.006, 6
                )
            )
            heads.append(ellipsoid((0.07 * top, 0.07 * top, 0.05 * top), tip, 2))
        leaves = _leaves(rng, 6, soil_z, 0.35 * top, rt * 0.9)
        return parts + [("stem", union(*stems)), ("flower", union(*heads)), ("plant", leaves)]
    return parts + [("plant", _leaves(rng, 9, soil_z, top, rt * 1.4))]


def _leaves(rng: np.random.Generator, n: int, z0: float, height: float, spread: float):
    """A rosette of long leaves rising from the soil and arching out."""
    leaves = []
    for k in range(n):
        angle = 2 * np.pi * k / n + rng.uniform(-0.2, 0.2)
        rise = height * rng.uniform(0.75, 1.0) if k % 2 == 0 else height * rng.uniform(0.55, 0.8)
        reach = spread * rng.uniform(0.5, 0.9)
        t = np.linspace(0, 1, 8)
        r = reach * t
        z = z0 - 0.01 + rise * np.sin(t * np.pi * 0.5) ** 0.7
        path = np.c_[r * np.cos(angle), r * np.sin(angle), z]
        width = 0.09 * height * np.sin(np.pi * np.clip(t, 0.08, 0.92)) + 0.004
        leaves.append(tube(path, width, 8, flat=0.2))
    return union(*leaves)


@kind(
    "bucket",
    {
        "metal pail": (
            (0.26, 0.36),
            [{"body": "steel metal", "handle": "steel metal"}, {"body": "silver metal", "handle": "black metal"}],
        ),
        "plastic bucket": (
            (0.26, 0.36),
            [
                {"body": "red plastic", "handle": "black plastic"},
                {"body": "blue plastic", "handle": "grey plastic"},
                {"body": "yellow plastic", "handle": "black plastic"},
                {"body": "green plastic", "handle": "white plastic"},
            ],
        ),
    },
)
def bucket(rng: np.random.Generator, style: str, h: float) -> Parts:
    hb = h / 1.28  # the bail handle stands above the rim
    rt = hb * rng.uniform(0.5, 0.58)
    rb = rt * rng.uniform(0.72, 0.8)
    outer = [(rb * 0.97, 0), (rb, 0.02 * hb), (rt, hb)]
    body = vessel(outer, 0.02 * rt, 0.03 * hb, 48)
    rim = lathe(
        [
            (rt - 0.01 * rt, hb - 0.04 * hb),
            (rt * 1.05, hb - 0.04 * hb),
            (rt * 1.05, hb),
            (rt - 0.01 * rt, hb),
            (rt - 0.01 * rt, hb - 0.04 * hb),
        ],
        48,
    )
    lug_z = hb * 0.86
    r_lug = profile_radius(outer)(lug_z)
    bail = arc((0, 0, lug_z), r_lug * 1.06, 0, np.pi, "xz", 24)
    bail[:, 2] = lug_z + (h - lug_z - 0.01 * h) * np.sin(np.linspace(0, np.pi, 24))
    lugs = union(*(box((0.03 * rt, 0.18 * rt, 0.12 * hb), (s * r_lug, 0, lug_z)) for s in (-1, 1)))
    parts = [("body", body), ("body", rim), ("body", lugs), ("handle", tube(bail, 0.012 * h, 8))]
    if style == "metal pail":
        parts.append(
            (
                "body",
                lathe(
                    [
                        (rb + 0.003, 0.3 * hb),
                        (rt * 0.85 + 0.0035, 0.33 * hb),
                        (rt * 0.85 + 0.001, 0.36 * hb),
                        (rb + 0.0005, 0.33 * hb),
                        (rb + 0.003, 0.3 * hb),
                    ],
                    48,
                ),
            )
        )
    return parts


@kind(
    "trash bin",
    {
        "pedal bin": (
            (0.4, 0.7),
            [
                {"body": "steel metal", "lid": "steel metal"},
                {"body": "white plastic", "lid": "white plastic"},
                {"body": "red metal", "lid": "red metal"},
                {"body": "black metal", "lid": "black metal"},
            ],
        ),
        "wastebasket": (
            (0.28, 0.38),
            [
                {"body": "grey plastic", "lid": "charcoal plastic"},
                {"body": "black plastic", "lid": "black plastic"},
                {"body": "blue plastic", "lid": "navy plastic"},
            ],
        ),
        "wheelie bin": (
            (0.95, 1.1),
            [
                {"body": "dark green plastic", "lid": "dark green plastic"},
                {"body": "charcoal plastic", "lid": "charcoal plastic"},
                {"body": "blue plastic", "lid": "blue plastic"},
                {"body": "grey plastic", "lid": "yellow plastic"},
            ],
        ),
    },
    fixed={"pedal": "black plastic", "wheels": "black rubber"},
)
def trash_bin(rng: np.random.Generator, style: str, h: float) -> Parts:
    if style == "pedal bin":
        r = h * rng.uniform(0.24, 0.3)
        body_h = 0.86 * h
        body = lathe([(0, 0), (0.94 * r, 0), (r, 0.03 * h), (r, body_h), (0, body_h)], 48)
        dome = [
            (r * 1.02, body_h),
            (r * 1.02, body_h + 0.03 * h),
            *(
                (r * np.cos(a), body_h + 0.03 * h + (h - body_h - 0.03 * h) * np.sin(a))
                for a in np.linspace(0.2, np.pi / 2, 8)
            ),
        ]
        lid = lathe([(0, body_h - 0.005), (r * 1.02, body_h - 0.005), *dome], 48)
        pedal = box((0.5 * r, 0.35 * r, 0.03 * h), (0, -r - 0.1 * r, 0.05 * h))
        band = lathe(
            [
                (r, body_h - 0.06 * h),
                (r * 1.015, body_h - 0.06 * h),
                (r * 1.015, body_h - 0.045 * h),
                (r, body_h - 0.045 * h),
                (r, body_h - 0.06 * h),
            ],
            48,
        )
        return [("body", body), ("lid", lid), ("pedal", pedal), ("lid", band)]
    if style == "wastebasket":
        rt = h * rng.uniform(0.4, 0.48)
        outer = [(rt * 0.75, 0), (rt, h * 0.97)]
        rim = lathe(
            [(rt * 0.98, h * 0.94), (rt * 1.04, h * 0.94), (rt * 1.04, h), (rt * 0.98, h), (rt * 0.98, h * 0.94)], 48
        )
        return [("body", vessel(outer, 0.025 * rt, 0.03 * h, 48)), ("lid", rim)]
    w, d = h * rng.uniform(0.52, 0.6), h * rng.uniform(0.64, 0.72)
    body_h = 0.9 * h
    lo = np.c_[rounded_rect(w * 0.85, d * 0.85, 0.04), np.full(24, 0.04 * h)]
    hi = np.c_[rounded_rect(w, d, 0.04), np.full(24, body_h)]
    body = hull(np.vstack([lo, hi]))
    lid = rounded_box((w * 1.04, d * 1.1, 0.06 * h), (0, -0.03 * d, body_h + 0.03 * h), 0.03)
    grip = tube(
        np.array([(-0.4 * w, d * 0.55, body_h - 0.02 * h), (0.4 * w, d * 0.55, body_h - 0.02 * h)]), 0.015 * h, 10
    )
    wheels = union(
        *(
            rotated(cylinder(0.1 * h, -0.025 * h, 0.025 * h, 24), np.pi / 2, (0, 1, 0)).apply_translation(
                (s * 0.42 * w, 0.38 * d, 0.1 * h)
            )
            for s in (-1, 1)
        )
    )
    return [("body", body), ("lid", lid), ("lid", grip), ("wheels", wheels)]


@kind(
    "candle",
    {
        "pillar": ((0.1, 0.2), ["white wax", "ivory wax", "red wax", "cream wax"]),
        "taper": ((0.28, 0.38), ["white wax", "ivory wax", "dark red wax", "navy wax"]),
    },
    fixed={"wick": "black fabric", "flame": "flame yellow flame", "holder": "brass metal"},
)
def candle(rng: np.random.Generator, style: str, h: float) -> Parts:
    flame_h = 0.035 if style == "pillar" else 0.03
    wick_h = 0.008
    top = h - flame_h - wick_h * 0.6
    if style == "pillar":
        r = (top) * rng.uniform(0.3, 0.45)
        wax = lathe([(0, 0), (r, 0), (r, top), (0.85 * r, top - 0.006), (0, top - 0.008)], 40)
        parts = [("body", wax)]
        wick_z = top - 0.008
    else:
        r = 0.011
        holder_h = top * rng.uniform(0.28, 0.36)
        holder = lathe(
            [
                (0, 0),
                *smooth_profile(
                    [
                        (0.055, 0),
                        (0.05, 0.012),
                        (0.014, 0.03),
                        (0.016, holder_h * 0.6),
                        (0.012, holder_h * 0.75),
                        (0.04, holder_h * 0.9),
                    ],
                    30,
                ),
                (0.04, holder_h),
                (0, holder_h),
            ],
            40,
        )
        wax = lathe([(0, holder_h - 0.01), (r, holder_h - 0.01), (r, top - 0.004), (0.6 * r, top), (0, top)], 24)
        parts = [("body", wax), ("holder", holder)]
        wick_z = top
    wick = cylinder(0.0012, wick_z - 0.002, wick_z + wick_h, 8)
    fz = wick_z + wick_h * 0.4
    flame = lathe(
        [
            (0, fz),
            *(
                (0.006 * np.sin(np.pi * s) ** 0.8 * (1 - 0.5 * s), fz + flame_h * s)
                for s in np.linspace(0.05, 0.95, 10)
            ),
            (0, fz + flame_h),
        ],
        16,
    )
    return parts + [("wick", wick), ("flame", flame)]


@kind(
    "pencil cup",
    {
        "pencil cup": (
            (0.15, 0.22),
            ["black metal", "white ceramic", "blue plastic", "red plastic", "kraft paper"],
        )
    },
    fixed={
        "pencil": "yellow plastic",
        "pencil red": "red plastic",
        "pencil blue": "blue plastic",
        "wood": "pine wood",
        "lead": "charcoal rubber",
    },
)
def pencil_cup(rng: np.random.Generator, style: str, h: float) -> Parts:
    cup_h = h * rng.uniform(0.5, 0.58)
    r = cup_h * rng.uniform(0.36, 0.44)
    parts = [("body", vessel([(r, 0), (r, cup_h)], 0.05 * r, 0.06 * cup_h, 40))]
    n = int(rng.integers(5, 8))
    colours = ["pencil", "pencil red", "pencil blue"]
    bodies: dict[str, list] = {c: [] for c in colours}
    woods, leads = [], []
    for k in range(n):
        angle = 2 * np.pi * k / n + rng.uniform(-0.3, 0.3)
        foot = 0.45 * r * np.array([np.cos(angle), np.sin(angle)])
        tilt = rng.uniform(0.12, 0.28)
        direction = np.array([np.cos(angle) * np.sin(tilt), np.sin(angle) * np.sin(tilt), np.cos(tilt)])
        tip_z = h if k == 0 else h * rng.uniform(0.8, 0.97)
        length = (tip_z - 0.06 * cup_h) / direction[2]
        start = np.array([*foot, 0.06 * cup_h])
        cone_len = 0.12 * length
        shaft = length - cone_len
        pr = 0.0038
        hexagon = np.c_[pr * np.cos(np.arange(6) * np.pi / 3), pr * np.sin(np.arange(6) * np.pi / 3)]
        pencil_body = prism(hexagon, 0, shaft)
        sharpened = lathe(
            [(0, shaft), (pr * 0.95, shaft), (0.0012, shaft + cone_len * 0.8), (0, shaft + cone_len * 0.8)], 12
        )
        lead = lathe([(0, shaft + cone_len * 0.78), (0.0012, shaft + cone_len * 0.78), (0, shaft + cone_len)], 8)
        transform = _align_z(direction, start)
        for mesh in (pencil_body, sharpened, lead):
            mesh.apply_transform(transform)
        bodies[colours[k % 3]].append(pencil_body)
        woods.append(sharpened)
        leads.append(lead)
    parts += [(c, union(*m)) for c, m in bodies.items() if m]
    return parts + [("wood", union(*woods)), ("lead", union(*leads))]


def _align_z(direction: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """A rigid transform taking +z to ``direction`` and the origin to ``origin``."""
    import trimesh

    m = trimesh.geometry.align_vectors([0, 0, 1], direction)
    m[:3, 3] = origin
    return m


@kind(
    "book",
    {
        "hardcover": (
            (0.025, 0.055),
            ["navy paper", "dark red paper", "dark green paper", "black paper", "brown paper", "teal paper"],
        ),
        "paperback": ((0.015, 0.035), ["red paper", "yellow paper", "sky blue paper", "white paper", "orange paper"]),
    },
    fixed={"pages": "cream paper"},
)
def book(rng: np.random.Generator, style: str, h: float) -> Parts:
    """A closed book lying flat, spine on the left (-x), pages showing on the other three sides."""
    w, length = rng.uniform(0.14, 0.19), rng.uniform(0.2, 0.26)
    hard = style == "hardcover"
    board = 0.0028 if hard else 0.0008
    over = 0.004 if hard else 0.0
    pages = box(
        (w - over - board, length - 2 * over, h - 2 * board), (-w / 2 + (w - over - board) / 2 + board, 0, h / 2)
    )
    top = box((w, length, board), (0, 0, h - board / 2))
    bottom = box((w, length, board), (0, 0, board / 2))
    spine = rotated(
        lathe([(0, -length / 2), (h / 2, -length / 2), (h / 2, length / 2), (0, length / 2)], 24), np.pi / 2, (1, 0, 0)
    )
    spine.apply_scale((0.35 if hard else 0.12, 1, 1))
    spine.apply_translation((-w / 2 + 0.35 * h / 2 * (0.5 if hard else 0.2), 0, h / 2))
    return [("body", union(top, bottom)), ("body", spine), ("pages", pages)]


@kind(
    "shoe box",
    {
        "shoe box": (
            (0.1, 0.14),
            [
                {"body": "orange paper", "lid": "orange paper", "logo": "white paper"},
                {"body": "kraft paper", "lid": "kraft paper", "logo": "black paper"},
                {"body": "white paper", "lid": "black paper", "logo": "red paper"},
                {"body": "sky blue paper", "lid": "navy paper", "logo": "white paper"},
            ],
        )
    },
)
def shoe_box(rng: np.random.Generator, style: str, h: float) -> Parts:
    w, d = rng.uniform(0.3, 0.36), rng.uniform(0.18, 0.22)
    lid_h = h * rng.uniform(0.25, 0.35)
    base = box((w, d, h - 0.002), (0, 0, (h - 0.002) / 2))
    lid = box((w + 0.006, d + 0.006, lid_h), (0, 0, h - lid_h / 2))
    logo = box((0.3 * w, 0.002, 0.4 * lid_h), (0.25 * w, -d / 2 - 0.0035, h - lid_h / 2))
    return [("body", base), ("lid", lid), ("logo", logo)]


@kind(
    "cardboard box",
    {
        "taped": ((0.2, 0.5), ["kraft paper", "tan paper", "brown paper"]),
        "open": ((0.2, 0.45), ["kraft paper", "tan paper"]),
    },
    fixed={"tape": "tan plastic", "label": "white paper"},
    painted={"*": "box"},  # painted pink it is no cardboard to look at
)
def cardboard_box(rng: np.random.Generator, style: str, h: float) -> Parts:
    w, d = h * rng.uniform(1.1, 1.5), h * rng.uniform(0.8, 1.1)
    t = 0.004
    if style == "taped":
        body = box((w, d, h), (0, 0, h / 2))
        tape_w = 0.05
        tape = union(
            box((tape_w, d + 0.002, 0.002), (0, 0, h + 0.001)),
            box((tape_w, 0.002, 0.3 * h), (0, -d / 2 - 0.001, h - 0.15 * h)),
            box((tape_w, 0.002, 0.3 * h), (0, d / 2 + 0.001, h - 0.15 * h)),
        )
        label = box((0.25 * w, 0.002, 0.18 * h), (0.25 * w, -d / 2 - 0.001, 0.35 * h))
        return [("body", body), ("tape", tape), ("label", label)]
    walls = [
        box((w, d, t), (0, 0, t / 2)),
        box((t, d, h), (-w / 2 + t / 2, 0, h / 2)),
        box((t, d, h), (w / 2 - t / 2, 0, h / 2)),
        box((w, t, h), (0, -d / 2 + t / 2, h / 2)),
        box((w, t, h), (0, d / 2 - t / 2, h / 2)),
    ]
    flaps = []
    for sx, sy, span in ((1, 0, d), (-1, 0, d), (0, 1, w), (0, -1, w)):
        reach = 0.45 * (d if sx else w) * 0.9
        flap = box((reach, span - 0.01, t) if sx else (span - 0.01, reach, t), (0, 0, 0))
        lift = np.radians(rng.uniform(50, 80))  # opened past upright, leaning out
        flap.apply_translation(((reach / 2) * sx, (reach / 2) * sy, 0))
        rotated(flap, lift, (0, -sx, 0) if sx else (sy, 0, 0))  # about the hinge, up and out
        flap.apply_translation((sx * w / 2, sy * d / 2, h))
        flaps.append(flap)
    return [("body", union(*walls)), ("body", union(*flaps))]


@kind(
    "suitcase",
    {
        "hard shell": (
            (0.55, 0.78),
            ["navy plastic", "black plastic", "red plastic", "silver plastic", "teal plastic", "lavender plastic"],
        ),
        "soft": ((0.55, 0.75), ["black fabric", "navy fabric", "dark green fabric", "charcoal fabric"]),
    },
    fixed={"handle": "black plastic", "wheels": "black rubber", "zip": "charcoal fabric"},
)
def suitcase(rng: np.random.Generator, style: str, h: float) -> Parts:
    """Standing upright, front (-y) to the camera, wheels under it and a carry handle on top."""
    wheel_r = 0.025
    body_h = h - 0.045 - 2 * wheel_r
    w, d = body_h * rng.uniform(0.6, 0.7), body_h * rng.uniform(0.32, 0.4)
    z0 = 2 * wheel_r
    body = rounded_box((w, d, body_h), (0, 0, z0 + body_h / 2), 0.05, axis=1)
    body = union(body)
    parts = [("body", body)]
    if style == "hard shell":
        ribs = [
            rounded_box((0.03, 0.01, body_h * 0.86), (x * w, -d / 2 - 0.002, z0 + body_h / 2), 0.004, axis=1)
            for x in (-0.25, 0.0, 0.25)
        ]
        parts.append(("body", union(*ribs)))
        parts.append(
            ("zip", rounded_box((w + 0.004, 0.012, body_h + 0.004), (0, 0.05 * d, z0 + body_h / 2), 0.05, axis=1))
        )
    else:
        pocket = rounded_box((w * 0.8, 0.03, body_h * 0.55), (0, -d / 2 - 0.01, z0 + body_h * 0.38), 0.04, axis=1)
        parts += [
            ("body", pocket),
            (
                "zip",
                rounded_box((w * 0.82, 0.01, body_h * 0.57), (0, -d / 2 - 0.004, z0 + body_h * 0.38), 0.045, axis=1),
            ),
        ]
    top = z0 + body_h
    grip = np.array([(-0.12, 0, top - 0.005), (-0.1, 0, top + 0.035), (0.1, 0, top + 0.035), (0.12, 0, top - 0.005)])
    parts.append(("handle", tube(grip, 0.01, 10)))
    parts.append(("handle", union(*(box((0.02, 0.02, 0.01), (x, d * 0.3, top + 0.005)) for x in (-0.09, 0.09)))))
    wheels = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            wheel = rotated(cylinder(wheel_r, -0.012, 0.012, 20), np.pi / 2, (0, 1, 0))
            wheel.apply_translation((sx * (w / 2 - 0.05), sy * (d / 2 - 0.04), wheel_r))
            wheels += [wheel, box((0.03, 0.04, 0.025), (sx * (w / 2 - 0.05), sy * (d / 2 - 0.04), z0 + 0.005))]
    parts.append(("wheels", union(*wheels)))
    return parts


@kind(
    "laptop",
    {
        "laptop": (
            (0.19, 0.25),
            [
                {"body": "silver metal", "keys": "black plastic"},
                {"body": "charcoal metal", "keys": "black plastic"},
                {"body": "black plastic", "keys": "charcoal plastic"},
                {"body": "white plastic", "keys": "light grey plastic"},
            ],
        )
    },
    fixed={"screen": "cobalt glass", "bezel": "black plastic"},
)
def laptop(rng: np.random.Generator, style: str, h: float) -> Parts:
    """Open, screen at the back (+y) facing the camera, keyboard on the base."""
    t = 0.016
    opening = np.radians(rng.uniform(100, 115))  # lid angle from the closed position
    depth = (h - t) / np.sin(opening)
    w = depth * rng.uniform(1.35, 1.5)
    base = rounded_box((w, depth, t), (0, 0, t / 2), 0.012)
    keys = box((w * 0.86, depth * 0.48, 0.002), (0, depth * 0.16, t + 0.001))
    pad = box((w * 0.3, depth * 0.24, 0.0015), (0, -depth * 0.28, t + 0.00075))
    # the lid as if closed, hinge at the origin, screen underneath; then opened about the hinge (the base's back edge)
    lid = rounded_box((w, depth, 0.007), (0, -depth / 2, 0.0035), 0.012)
    bezel = box((w * 0.96, depth * 0.94, 0.002), (0, -depth / 2, -0.0005))
    screen = box((w * 0.9, depth * 0.82, 0.002), (0, -depth * 0.52, -0.001))
    for m in (lid, bezel, screen):
        rotated(m, -opening, (1, 0, 0))
        m.apply_translation((0, depth / 2, t))
    return [("body", base), ("keys", keys), ("keys", pad), ("body", lid), ("bezel", bezel), ("screen", screen)]


@kind(
    "alarm clock",
    {
        "twin bell": (
            (0.11, 0.17),
            [
                {"body": "red metal", "face": "white plastic"},
                {"body": "silver metal", "face": "cream plastic"},
                {"body": "black metal", "face": "white plastic"},
                {"body": "sky blue metal", "face": "white plastic"},
                {"body": "yellow metal", "face": "white plastic"},
            ],
        )
    },
    fixed={"hands": "black plastic", "bells": "silver metal"},
)
def alarm_clock(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h / 3.0
    cz = 0.18 * h + r
    depth = r * rng.uniform(0.55, 0.7)
    casing = rotated(
        lathe([(0, -depth / 2), (r, -depth / 2), (r, depth / 2), (0, depth / 2)], 48), np.pi / 2, (1, 0, 0)
    )
    casing.apply_translation((0, 0, cz))
    face = rotated(cylinder(0.86 * r, 0, 0.003, 48), np.pi / 2, (1, 0, 0)).apply_translation((0, -depth / 2, cz))
    minute = box((0.05 * r, 0.004, 0.7 * r), (0, -depth / 2 - 0.005, cz + 0.33 * r))
    hour = rotated(
        box((0.06 * r, 0.004, 0.48 * r), (0, -depth / 2 - 0.006, cz + 0.22 * r)), -2.1, (0, 1, 0), (0, 0, cz)
    )
    hands = union(
        minute,
        hour,
        rotated(cylinder(0.06 * r, 0, 0.008, 12), np.pi / 2, (1, 0, 0)).apply_translation((0, -depth / 2 - 0.002, cz)),
    )
    bells, legs = [], []
    for side in (-1, 1):
        a = np.radians(40) * side
        centre = np.array([np.sin(a) * 1.02 * r, 0, cz + np.cos(a) * 1.02 * r])
        bell = lathe(
            [
                (0, 0),
                (0.5 * r, 0),
                *((0.5 * r * np.cos(t), 0.45 * r * np.sin(t)) for t in np.linspace(0, np.pi / 2, 8)),
            ],
            32,
        )
        bells.append(rotated(bell, a, (0, 1, 0)).apply_translation(centre))
        b = np.radians(145) * side
        foot = np.array([np.sin(b) * 1.0 * r, 0, cz + np.cos(b) * 1.0 * r])
        legs.append(tube(np.array([foot * [1, 1, 1] + [0, 0, 0.02 * h], [foot[0] * 1.25, 0, 0.03 * h]]), 0.05 * r, 10))
        legs.append(ellipsoid((0.09 * r, 0.09 * r, 0.06 * r), (foot[0] * 1.25, 0, 0.03 * h), 2))
    bridge = arc((0, 0, cz + 1.0 * r), 0.5 * r, 0, np.pi, "xz", 12)
    hammer = union(
        cylinder(0.03 * r, cz + 0.95 * r, cz + 1.3 * r, 8), ellipsoid((0.08 * r,) * 3, (0, 0, h - 0.08 * r), 2)
    )
    parts = [("body", casing), ("face", face), ("hands", hands), ("bells", union(*bells)), ("bells", hammer)]
    return parts + [("body", union(*legs)), ("bells", tube(bridge, 0.035 * r, 8))]


@kind(
    "traffic cone",
    {
        "traffic cone": (
            (0.3, 0.75),
            [
                {"body": "safety orange plastic", "base": "black rubber"},
                {"body": "safety orange plastic", "base": "safety orange plastic"},
                {"body": "red plastic", "base": "black rubber"},
                {"body": "safety orange plastic", "base": "charcoal rubber"},
            ],
        )
    },
    fixed={"bands": "white plastic"},
)
def traffic_cone(rng: np.random.Generator, style: str, h: float) -> Parts:
    side = h * rng.uniform(0.52, 0.6)
    base_h = 0.045 * h
    rb, rt = side * 0.36, side * 0.06
    base = rounded_box((side, side, base_h), (0, 0, base_h / 2), 0.05 * side)
    cone = lathe([(0, base_h - 0.002), (rb, base_h - 0.002), (rt, h - rt * 0.5), (rt * 0.6, h), (0, h)], 40)

    def radius(z: float) -> float:
        return rb + (rt - rb) * (z - base_h) / (h - base_h)

    bands = []
    for lo, hi in ((0.5, 0.62), (0.7, 0.78)) if h > 0.45 else ((0.55, 0.7),):
        z0, z1 = base_h + lo * (h - base_h), base_h + hi * (h - base_h)
        bands.append(
            lathe(
                [
                    (radius(z0) + 0.0015, z0),
                    (radius(z1) + 0.0015, z1),
                    (radius(z1) - 0.002, z1),
                    (radius(z0) - 0.002, z0),
                    (radius(z0) + 0.0015, z0),
                ],
                40,
            )
        )
    return [("body", cone), ("base", base), ("bands", union(*bands))]


@kind(
    "fire hydrant",
    {
        "fire hydrant": (
            (0.6, 0.9),
            [
                {"body": "red metal", "caps": "silver metal"},
                {"body": "yellow metal", "caps": "red metal"},
                {"body": "red metal", "caps": "red metal"},
                {"body": "green metal", "caps": "silver metal"},
            ],
        )
    },
)
def fire_hydrant(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * rng.uniform(0.14, 0.17)
    barrel_top = 0.68 * h
    dome = [(1.08 * r * np.cos(a), barrel_top + 0.04 * h + 0.16 * h * np.sin(a)) for a in np.linspace(0, np.pi / 2, 9)]
    body = lathe(
        [
            (0, 0),
            (1.5 * r, 0),
            (1.5 * r, 0.05 * h),
            (1.05 * r, 0.07 * h),
            (r, 0.09 * h),
            (r, barrel_top),
            (1.2 * r, barrel_top),
            (1.2 * r, barrel_top + 0.04 * h),
            *dome,
            (0, barrel_top + 0.2 * h),
        ],
        40,
    )
    nut = prism(
        np.c_[0.35 * r * np.cos(np.arange(5) * 2 * np.pi / 5), 0.35 * r * np.sin(np.arange(5) * 2 * np.pi / 5)],
        barrel_top + 0.18 * h,
        h,
    )
    outlets, caps = [], []
    z = 0.5 * h
    for direction, radius, reach in (
        ((1, 0, 0), 0.38 * r, 1.45 * r),
        ((-1, 0, 0), 0.38 * r, 1.45 * r),
        ((0, -1, 0), 0.55 * r, 1.4 * r),
    ):
        d = np.asarray(direction, dtype=float)
        outlets.append(tube(np.array([d * 0.5 * r + (0, 0, z), d * reach + (0, 0, z)]), radius, 20))
        caps.append(tube(np.array([d * reach + (0, 0, z), d * (reach + 0.18 * r) + (0, 0, z)]), radius * 1.15, 6))
    return [("body", body), ("caps", nut), ("body", union(*outlets)), ("caps", union(*caps))]
