"""Kitchen things: bottles, drinkware, cans, tableware, jars, teapots, kettles, thermoses, cereal boxes.

Every builder takes (rng, style, height in metres) and returns (role, closed mesh) pairs; the front faces -y and
handles point to +x, so a camera in front and a little to the right sees them in profile.
"""

from __future__ import annotations

import numpy as np

from mirforge.render.objects.geometry import (
    arc,
    bezier,
    box,
    cylinder,
    ellipsoid,
    hull,
    lathe,
    prism,
    profile_radius,
    quarter,
    ring,
    rotated,
    side_handle,
    tube,
    union,
    vessel,
)
from mirforge.render.objects.spec import Parts, kind

GLASSES = ["bottle green glass", "amber glass", "clear glass"]
CERAMICS = ["white ceramic", "red ceramic", "navy ceramic", "yellow ceramic", "teal ceramic", "black ceramic"]


@kind(
    "bottle",
    {
        "water bottle": (
            (0.2, 0.3),
            [
                {"body": "clear plastic", "cap": "blue plastic", "label": "sky blue paper"},
                {"body": "clear plastic", "cap": "white plastic", "label": "blue paper"},
                {"body": "sky blue plastic", "cap": "navy plastic", "label": "white paper"},
            ],
        ),
        "soda bottle": (
            (0.22, 0.33),
            [
                {"body": "lime plastic", "cap": "green plastic", "label": "white paper"},
                {"body": "dark brown plastic", "cap": "red plastic", "label": "red paper"},
                {"body": "clear plastic", "cap": "orange plastic", "label": "orange paper"},
            ],
        ),
    },
    named_by_style=True,  # "bottle" also fits the wine bottle of the same scenes
)
def bottle(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * rng.uniform(0.14, 0.17)
    neck = r * rng.uniform(0.36, 0.42)
    shoulder, neck_z, cap_z = h * rng.uniform(0.55, 0.65), h * rng.uniform(0.8, 0.84), h * 0.9
    if style == "soda bottle":
        # a grip waist low down, the label on the straight wall above it
        body = [(r, 0.05 * h), (r, 0.1 * h), (0.86 * r, 0.18 * h), (0.86 * r, 0.23 * h), (r, 0.31 * h)]
    else:
        body = [(r, 0.05 * h)]
    profile = [(0, 0.01 * h), (0.8 * r, 0), (0.97 * r, 0.015 * h), *body, *quarter(r, shoulder, neck, neck_z)]
    profile += [(neck, cap_z + 0.02 * h), (0, cap_z + 0.02 * h)]
    label_lo, label_hi = (0.2, 0.42) if style == "water bottle" else (0.33, 0.5)
    cap = lathe([(0, cap_z), (neck * 1.15, cap_z), (neck * 1.15, h - 0.005 * h), (neck * 1.1, h), (0, h)], 24)
    label = cylinder(r * 1.012, label_lo * h, label_hi * h, 40)
    return [("body", lathe(profile)), ("cap", cap), ("label", label)]


@kind(
    "wine bottle",
    {
        "bordeaux": (
            (0.29, 0.33),
            [
                {"body": "bottle green glass", "foil": "dark red metal", "label": "cream paper"},
                {"body": "black glass", "foil": "gold metal", "label": "white paper"},
                {"body": "amber glass", "foil": "black metal", "label": "ivory paper"},
            ],
        ),
        "burgundy": (
            (0.29, 0.32),
            [
                {"body": "bottle green glass", "foil": "gold metal", "label": "cream paper"},
                {"body": "clear glass", "foil": "dark red metal", "label": "white paper"},
            ],
        ),
    },
)
def wine_bottle(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * rng.uniform(0.115, 0.13)
    neck = r * rng.uniform(0.32, 0.36)
    neck_z = h * rng.uniform(0.72, 0.76)
    if style == "bordeaux":
        shoulder = [*quarter(r, h * rng.uniform(0.6, 0.64), neck, neck_z, 9)]
    else:  # a long sloping shoulder
        z0 = h * rng.uniform(0.44, 0.5)
        t = np.linspace(0, 1, 10)
        shoulder = [(neck + (r - neck) * (1 + np.cos(np.pi * s)) / 2, z0 + (neck_z - z0) * s) for s in t]
    profile = [(0, 0.04 * h), (0.85 * r, 0), (0.99 * r, 0.02 * h), *shoulder]
    profile += [(neck, 0.955 * h), (neck * 1.12, 0.965 * h), (neck * 1.12, 0.985 * h), (neck * 0.9, h), (0, h)]
    foil = lathe(
        [
            (0, 0.86 * h),
            (neck * 1.07, 0.86 * h),
            (neck * 1.18, 0.965 * h),
            (neck * 1.18, 0.99 * h),
            (neck * 1.0, h * 1.003),
            (0, h * 1.003),
        ],
        24,
    )
    label = cylinder(r * 1.008, 0.18 * h, 0.42 * h, 40)
    return [("body", lathe(profile)), ("foil", foil), ("label", label)]


@kind(
    "mug",
    {
        "straight": ((0.085, 0.115), CERAMICS),
        "tapered": ((0.09, 0.12), CERAMICS[::-1]),
        "barrel": ((0.08, 0.105), CERAMICS[1:] + CERAMICS[:1]),
    },
)
def mug(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * rng.uniform(0.4, 0.47)
    z = np.linspace(0.02 * h, h, 8)
    if style == "tapered":
        radii = r * (0.82 + 0.18 * z / h)
    elif style == "barrel":
        radii = r * (0.9 + 0.1 * np.sin(np.pi * z / h))
    else:
        radii = np.full_like(z, r)
    outer = [(radii[0] * 0.94, 0.0), *zip(radii, z, strict=True)]
    wall = 0.07 * r
    handle = side_handle(profile_radius(outer), h * 0.2, h * 0.82, h * rng.uniform(0.22, 0.3), h * 0.05)
    return [("body", vessel(outer, wall, 0.08 * h)), ("body", tube(handle, h * 0.05, 12))]


@kind(
    "cup",
    {
        "teacup": ((0.065, 0.09), ["white ceramic", "sky blue ceramic", "pink ceramic", "cream ceramic"]),
        "paper cup": (
            (0.1, 0.16),
            [
                {"body": "white paper", "lid": "white plastic", "sleeve": "kraft paper"},
                {"body": "white paper", "lid": "black plastic", "sleeve": "kraft paper"},
                {"body": "red paper", "lid": "white plastic", "sleeve": "kraft paper"},
            ],
        ),
    },
)
def cup(rng: np.random.Generator, style: str, h: float) -> Parts:
    if style == "paper cup":
        hc = h * 0.9
        rt = hc * rng.uniform(0.4, 0.46)
        rb = rt * 0.7
        outer = [(rb * 0.97, 0.0), (rb, 0.01 * hc), (rt, hc)]
        radius = profile_radius(outer)
        lid = lathe(
            [
                (0, hc - 0.012 * h),
                (rt * 1.06, hc - 0.012 * h),
                (rt * 1.06, hc + 0.02 * h),
                (rt * 0.9, hc + 0.035 * h),
                (rt * 0.86, h),
                (0, h),
            ],
            40,
        )
        z0, z1 = 0.3 * hc, 0.62 * hc
        sleeve = lathe(
            [
                (radius(z0) + 0.002, z0),
                (radius(z1) + 0.002, z1),
                (radius(z1) + 0.0045, z1),
                (radius(z0) + 0.0045, z0),
                (radius(z0) + 0.002, z0),
            ],
            40,
        )
        return [("body", vessel(outer, 0.004, 0.01)), ("lid", lid), ("sleeve", sleeve)]
    saucer_t = 0.14 * h
    hc = h - 0.5 * saucer_t
    rt = hc * rng.uniform(0.75, 0.9)
    rb = rt * 0.5
    a = np.linspace(0, np.pi / 2, 8)
    outer = [
        (rb, 0.0),
        *((rb + (rt - rb) * np.sin(t), hc * (1 - np.cos(t)) * 0.8 + 0.2 * hc * t / (np.pi / 2)) for t in a[1:]),
    ]
    rs = rt * 1.65
    saucer = lathe(
        [
            (0, 0),
            (rs * 0.45, 0),
            (rs * 0.5, saucer_t * 0.3),
            (rs, saucer_t * 0.85),
            (rs, saucer_t),
            (rs * 0.55, saucer_t * 0.55),
            (0, saucer_t * 0.55),
        ],
        48,
    )
    body = vessel(outer, 0.05 * rt, 0.1 * hc).apply_translation((0, 0, 0.5 * saucer_t))
    radius = profile_radius([(r, z + 0.5 * saucer_t) for r, z in outer])
    handle = side_handle(radius, 0.5 * saucer_t + 0.3 * hc, 0.5 * saucer_t + 0.85 * hc, 0.3 * hc, 0.05 * hc)
    return [("body", body), ("body", tube(handle, 0.05 * hc, 10)), ("body", saucer)]


@kind(
    "glass",
    {
        "glass of juice": (
            (0.085, 0.15),
            [{"body": "clear glass", "drink": "orange liquid"}, {"body": "clear glass", "drink": "dark red liquid"}],
        ),
        "tumbler": ((0.085, 0.11), ["clear glass", "sky blue glass", "bottle green glass"]),
        "highball": ((0.13, 0.16), ["clear glass", "sky blue glass"]),
    },
    nouns={"glass of juice": "glass of juice"},  # the juice is what shows: the renderer draws no clear glass
    # painted one opaque colour, an empty glass is no glass to look at: called by its shape; the juice still shows
    painted={"tumbler": "tumbler", "highball": "tumbler"},
)
def glass(rng: np.random.Generator, style: str, h: float) -> Parts:
    rt = h * (rng.uniform(0.24, 0.28) if style == "highball" else rng.uniform(0.36, 0.42))
    rb = rt * rng.uniform(0.8, 0.9)
    outer = [(rb * 0.97, 0.0), (rb, 0.01 * h), (rt, h)]
    wall, floor = 0.035 * rt, 0.13 * h
    body = vessel(outer, wall, floor, 48)
    parts = [("body", body), ("body", ring(rt - 0.02 * rt, 0.02 * rt, h, 48, 6))]
    if style == "glass of juice":
        # the drink as seen through clear glass: a skin just outside the wall up to the level, and its surface
        level = h * rng.uniform(0.65, 0.85)
        radius = profile_radius(outer)
        lo = 0.6 * floor
        skin = [
            (radius(lo) + 0.0006, lo),
            (radius(level) + 0.0006, level),
            (radius(level) + 0.0002, level),
            (radius(lo) + 0.0002, lo),
        ]
        surface = [(0, floor), (radius(floor) - wall * 1.2, floor), (radius(level) - wall * 1.2, level), (0, level)]
        parts += [("drink", lathe([*skin, skin[0]], 48)), ("drink", lathe(surface, 48))]
    return parts


@kind(
    "wine glass",
    {
        "wine glass": ((0.18, 0.23), ["clear glass", "sky blue glass"]),
        "flute": ((0.2, 0.25), ["clear glass", "sky blue glass"]),
    },
)
def wine_glass(rng: np.random.Generator, style: str, h: float) -> Parts:
    flute = style == "flute"
    rf = h * (rng.uniform(0.24, 0.28) if flute else rng.uniform(0.3, 0.36))
    rs = h * 0.022
    stem_top = h * (rng.uniform(0.34, 0.4) if flute else rng.uniform(0.38, 0.46))
    rb = h * (rng.uniform(0.16, 0.19) if flute else rng.uniform(0.32, 0.38))
    rim = rb * (rng.uniform(0.9, 1.0) if flute else rng.uniform(0.75, 0.88))
    bowl_h = h - stem_top
    t = np.linspace(0.08, 1, 12)
    widest = 0.45
    bowl = [
        (
            rs
            + (rb - rs) * np.sin(np.pi / 2 * np.minimum(s / widest, 1))
            - (rb - rim) * max(0, (s - widest) / (1 - widest)) ** 2,
            stem_top + bowl_h * s,
        )
        for s in t
    ]
    outer = [(rf, 0.0), (rf, 0.012 * h), (rs * 1.6, 0.03 * h), (rs, 0.06 * h), (rs, stem_top), *bowl]
    return [("body", vessel(outer, 0.012 * h, stem_top + 0.1 * bowl_h, 32))]


@kind(
    "can",
    {
        "standard": ((0.11, 0.125), ["red metal", "blue metal", "green metal", "yellow metal", "silver metal"]),
        "slim": ((0.13, 0.17), ["black metal", "lime metal", "purple metal", "orange metal"]),
    },
    fixed={"rim": "silver metal"},
)
def can(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * (rng.uniform(0.28, 0.3) if style == "standard" else rng.uniform(0.19, 0.21))
    profile = [
        (0, 0.03 * h),
        (0.7 * r, 0.0),
        (0.86 * r, 0.0),
        (r, 0.06 * h),
        (r, 0.88 * h),
        (0.84 * r, 0.965 * h),
        (0.86 * r, h),
        (0.8 * r, h),
        (0.78 * r, 0.985 * h),
        (0, 0.985 * h),
    ]
    tab = box((0.5 * r, 0.22 * r, 0.008 * h), (0.05 * r, 0, 0.99 * h))
    return [("rim", lathe(profile, 48)), ("body", cylinder(r * 1.004, 0.075 * h, 0.87 * h, 48)), ("rim", tab)]


@kind(
    "bowl",
    {
        "cereal bowl": ((0.05, 0.08), ["blue ceramic", "white ceramic", "terracotta ceramic", "cream ceramic"]),
        "salad bowl": ((0.08, 0.12), ["oak wood", "walnut wood", "white ceramic", "clear glass"]),
    },
)
def bowl(rng: np.random.Generator, style: str, h: float) -> Parts:
    big_r = h * rng.uniform(1.3, 1.7)
    foot_r = big_r * rng.uniform(0.4, 0.5)
    foot_h = 0.08 * h
    t = np.linspace(0, np.pi / 2, 10)
    curve = [(foot_r + (big_r - foot_r) * np.sin(a), foot_h + (h - foot_h) * (1 - np.cos(a))) for a in t]
    outer = [(foot_r, 0.0), *curve]
    return [("body", vessel(outer, 0.06 * h, 0.16 * h, 32))]


@kind(
    "plate",
    {
        "dinner plate": (
            (0.018, 0.03),
            [
                {"body": "white ceramic", "rim": "navy ceramic"},
                {"body": "cream ceramic", "rim": "gold metal"},
                {"body": "white ceramic", "rim": "green ceramic"},
                {"body": "sky blue ceramic", "rim": "white ceramic"},
                {"body": "white ceramic", "rim": "red ceramic"},
            ],
        )
    },
)
def plate(rng: np.random.Generator, style: str, h: float) -> Parts:
    big_r = rng.uniform(0.1, 0.14)
    profile = [
        (0, 0.1 * h),
        (0.6 * big_r, 0.05 * h),
        (0.62 * big_r, 0),
        (0.66 * big_r, 0),
        (0.98 * big_r, 0.8 * h),
        (big_r, h),
        (0.97 * big_r, h),
        (0.66 * big_r, 0.45 * h),
        (0, 0.45 * h),
    ]

    def top(r: float) -> float:  # the height of the upper surface of the rim at radius r
        return 0.45 * h + (r - 0.66 * big_r) / (0.31 * big_r) * 0.55 * h

    band = [
        (0.8 * big_r, top(0.8 * big_r) + 0.0004),
        (0.9 * big_r, top(0.9 * big_r) + 0.0004),
        (0.9 * big_r, top(0.9 * big_r) + 0.0015),
        (0.8 * big_r, top(0.8 * big_r) + 0.0015),
    ]
    return [("body", lathe(profile, 56)), ("rim", lathe([*band, band[0]], 56))]


@kind(
    "jar",
    {
        "jam jar": (
            (0.1, 0.14),
            [
                {"body": "dark red glass", "lid": "gold metal", "label": "white paper"},
                {"body": "amber glass", "lid": "red metal", "label": "cream paper"},
                {"body": "purple glass", "lid": "white metal", "label": "white paper"},
            ],
        ),
        "mason jar": (
            (0.13, 0.18),
            [
                {"body": "clear glass", "lid": "silver metal", "label": "kraft paper"},
                {"body": "olive glass", "lid": "gold metal", "label": "white paper"},
            ],
        ),
    },
)
def jar(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * (rng.uniform(0.38, 0.44) if style == "jam jar" else rng.uniform(0.3, 0.35))
    lid_z = 0.82 * h
    profile = [(0, 0.01 * h), (0.92 * r, 0), (r, 0.04 * h), (r, 0.68 * h), *quarter(r, 0.68 * h, 0.86 * r, 0.78 * h, 6)]
    profile += [(0.86 * r, lid_z + 0.02 * h), (0, lid_z + 0.02 * h)]
    lid = lathe([(0, lid_z), (0.92 * r, lid_z), (0.92 * r, h - 0.015 * h), (0.89 * r, h), (0, h)], 40)
    label = cylinder(r * 1.008, 0.22 * h, 0.55 * h, 40)
    return [("body", lathe(profile, 40)), ("lid", lid), ("label", label)]


@kind(
    "teapot",
    {
        "round": ((0.13, 0.2), ["teal ceramic", "white ceramic", "red ceramic", "brown ceramic", "cream ceramic"]),
        "tall": ((0.16, 0.22), ["white ceramic", "navy ceramic", "yellow ceramic"]),
    },
)
def teapot(rng: np.random.Generator, style: str, h: float) -> Parts:
    tall = style == "tall"
    big_r = h / (1.45 if tall else 1.2)
    hb = big_r * (1.15 if tall else rng.uniform(0.9, 1.0))
    a = np.radians(np.linspace(-58, 62, 14))
    lo, hi = np.sin(a[0]), np.sin(a[-1])
    body_profile = [(0, 0), *((big_r * np.cos(t), hb * (np.sin(t) - lo) / (hi - lo)) for t in a)]
    top_r = big_r * np.cos(a[-1])
    lid_h = h - hb - 0.08 * big_r
    lid = lathe(
        [
            (0, hb - 0.02 * big_r),
            (top_r * 0.95, hb - 0.02 * big_r),
            (top_r * 1.05, hb + 0.02 * big_r),
            *((top_r * np.cos(t), hb + 0.02 * big_r + lid_h * 0.55 * np.sin(t)) for t in np.linspace(0, 1.3, 6)),
            (0, hb + 0.02 * big_r + lid_h * 0.55),
        ],
        40,
    )
    knob = ellipsoid((0.13 * big_r, 0.13 * big_r, 0.09 * big_r), (0, 0, h - 0.09 * big_r), 2)
    body = lathe([*body_profile, (0, hb)], 40)
    spout = bezier((-0.7 * big_r, 0, 0.3 * hb), (-1.35 * big_r, 0, 0.35 * hb), (-1.5 * big_r, 0, 0.95 * hb))
    spout_tube = tube(spout, np.linspace(0.17, 0.07, len(spout)) * big_r, 14)
    radius = profile_radius(body_profile)
    handle = side_handle(radius, 0.22 * hb, 0.85 * hb, 0.45 * big_r, 0.08 * big_r)
    return [("body", body), ("body", lid), ("body", knob), ("body", spout_tube), ("body", tube(handle, 0.08 * big_r))]


@kind(
    "kettle",
    {
        "stovetop": (
            (0.18, 0.26),
            [
                {"body": "red metal", "handle": "black plastic"},
                {"body": "silver metal", "handle": "black plastic"},
                {"body": "copper metal", "handle": "walnut wood"},
            ],
        ),
        "electric": (
            (0.2, 0.27),
            [
                {
                    "body": "white plastic",
                    "handle": "charcoal plastic",
                    "base": "charcoal plastic",
                    "window": "sky blue glass",
                },
                {"body": "steel metal", "handle": "black plastic", "base": "black plastic", "window": "sky blue glass"},
                {
                    "body": "red plastic",
                    "handle": "black plastic",
                    "base": "charcoal plastic",
                    "window": "sky blue glass",
                },
            ],
        ),
    },
)
def kettle(rng: np.random.Generator, style: str, h: float) -> Parts:
    if style == "stovetop":
        big_r = h * rng.uniform(0.48, 0.55)
        hb = 0.55 * h
        body_profile = [(0, 0), (big_r * 0.97, 0), (big_r, 0.04 * hb), (big_r, 0.2 * hb), (0.55 * big_r, hb), (0, hb)]
        lid = lathe(
            [
                (0, hb - 0.01),
                (0.58 * big_r, hb - 0.01),
                (0.56 * big_r, hb + 0.02 * h),
                (0.35 * big_r, hb + 0.07 * h),
                (0, hb + 0.08 * h),
            ],
            40,
        )
        knob = ellipsoid((0.1 * big_r, 0.1 * big_r, 0.06 * big_r), (0, 0, hb + 0.09 * h), 2)
        spout = bezier((-0.6 * big_r, 0, 0.3 * hb), (-1.1 * big_r, 0, 0.45 * hb), (-1.3 * big_r, 0, 0.95 * hb))
        spout_tube = tube(spout, np.linspace(0.16, 0.07, len(spout)) * big_r, 14)
        post = 0.42 * big_r
        grip = arc((0, 0, hb), post, 0.0, np.pi, "xz", 20)
        grip[:, 2] = hb - 0.02 + (h - hb) * np.sin(np.linspace(0, np.pi, 20)) ** 0.6
        handle = tube(grip, 0.035 * h, 12)
        return [
            ("body", lathe(body_profile, 48)),
            ("body", lid),
            ("handle", knob),
            ("body", spout_tube),
            ("handle", handle),
        ]
    big_r = h * rng.uniform(0.34, 0.4)
    base_h = 0.07 * h
    rim_z = 0.9 * h
    top_r = 0.72 * big_r
    body_profile = [(0, base_h - 0.01), (big_r * 0.98, base_h - 0.01), (big_r, base_h + 0.02 * h), (top_r, rim_z)]
    radius = profile_radius(body_profile)
    base = lathe([(0, 0), (big_r * 1.08, 0), (big_r * 1.08, base_h * 0.8), (big_r * 1.03, base_h), (0, base_h)], 40)
    lid = lathe(
        [(0, rim_z - 0.01), (top_r, rim_z - 0.01), (top_r * 0.96, rim_z + 0.03 * h), (0.3 * top_r, h), (0, h)], 40
    )
    # the pouring lip: a wedge from the upper front wall out and up to a point
    lip = hull(
        [(-radius(z) * 0.8, y * top_r, z) for z in (0.7 * h, rim_z) for y in (-0.32, 0.32)]
        + [
            (-top_r * 1.3, 0.0, rim_z + 0.02 * h),
            (-top_r * 1.22, 0.1 * top_r, rim_z + 0.01 * h),
            (-top_r * 1.22, -0.1 * top_r, rim_z + 0.01 * h),
        ]
    )
    # a water window on the side toward the viewer: a thin slab lying on the conical wall
    z0, z1 = 0.22 * h, 0.78 * h
    window = hull(
        [(x, -(radius(z) + dr), z) for z in (z0, z1) for x in (0.05 * big_r, 0.25 * big_r) for dr in (0.0015, -0.004)]
    )
    handle = side_handle(radius, 0.2 * h, 0.86 * h, 0.42 * big_r, 0.07 * big_r)
    body = lathe([*body_profile, (0, rim_z)], 48)
    return [
        ("body", body),
        ("body", lip),
        ("body", lid),
        ("handle", tube(handle, 0.08 * big_r)),
        ("base", base),
        ("window", window),
    ]


@kind(
    "thermos",
    {
        "classic": (
            (0.26, 0.34),
            [
                {"body": "steel metal", "cap": "black plastic"},
                {"body": "red metal", "cap": "steel metal"},
                {"body": "navy metal", "cap": "steel metal"},
                {"body": "green metal", "cap": "black plastic"},
            ],
        ),
        "slim": (
            (0.24, 0.3),
            [
                {"body": "black metal", "cap": "steel metal"},
                {"body": "teal metal", "cap": "charcoal plastic"},
                {"body": "sky blue metal", "cap": "charcoal plastic"},
            ],
        ),
    },
    fixed={"grip": "charcoal rubber"},
)
def thermos(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = h * (rng.uniform(0.14, 0.16) if style == "classic" else rng.uniform(0.115, 0.13))
    cap_z = h * (0.74 if style == "classic" else 0.84)
    body = lathe(
        [
            (0, 0),
            (0.94 * r, 0),
            (r, 0.02 * h),
            (r, cap_z - 0.04 * h),
            (0.9 * r, cap_z),
            (0.9 * r, cap_z + 0.02 * h),
            (0, cap_z + 0.02 * h),
        ],
        40,
    )
    if style == "classic":  # the cup that screws on as a lid, a little wider than the flask
        cap = lathe([(0, cap_z), (1.04 * r, cap_z), (1.07 * r, h - 0.02 * h), (1.02 * r, h), (0, h)], 40)
        parts = [("body", body), ("cap", cap), ("grip", cylinder(r * 1.01, 0.1 * h, 0.14 * h, 40))]
        return parts
    cap = lathe([(0, cap_z), (0.92 * r, cap_z), (0.92 * r, h - 0.015 * h), (0.88 * r, h), (0, h)], 40)
    loop = arc((0, 0, h - 0.02 * h), 0.45 * r, 0.15, np.pi - 0.15, "xz", 14)
    return [("body", body), ("cap", cap), ("cap", tube(loop, 0.07 * r, 8))]


@kind(
    "cereal box",
    {
        "cereal box": (
            (0.26, 0.34),
            [
                {"body": "red paper", "panel": "yellow paper", "logo": "white paper", "bowl": "white ceramic"},
                {"body": "blue paper", "panel": "white paper", "logo": "yellow paper", "bowl": "white ceramic"},
                {"body": "yellow paper", "panel": "orange paper", "logo": "red paper", "bowl": "white ceramic"},
                {"body": "green paper", "panel": "cream paper", "logo": "red paper", "bowl": "sky blue ceramic"},
            ],
        )
    },
    fixed={"flakes": "mustard paper"},
)
def cereal_box(rng: np.random.Generator, style: str, h: float) -> Parts:
    w, d = h * rng.uniform(0.66, 0.76), h * rng.uniform(0.22, 0.27)
    front = -d / 2
    body = box((w, d, h), (0, 0, h / 2))
    panel = box((w * 0.86, 0.004, h * 0.58), (0, front - 0.002, h * 0.42))
    logo = box((w * 0.8, 0.006, h * 0.15), (0, front - 0.003, h * 0.83))
    a = np.linspace(np.pi, 2 * np.pi, 16)
    br = w * 0.3
    bowl = rotated(prism(np.c_[br * np.cos(a), 0.8 * br * np.sin(a)], -0.004, 0.004), np.pi / 2, (1, 0, 0))
    bowl.apply_translation((0, front - 0.006, h * 0.36))
    flakes = union(
        *(
            ellipsoid((br * 0.2, 0.006, br * 0.12), (x * br, front - 0.005, h * 0.36 + 0.05 * br), 1)
            for x in (-0.55, -0.2, 0.15, 0.5)
        )
    )
    return [("body", body), ("panel", panel), ("logo", logo), ("bowl", bowl), ("flakes", flakes)]
