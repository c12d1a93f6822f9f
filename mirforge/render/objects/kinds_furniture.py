"""Furniture: chairs, stools, tables, cabinets, bookshelves. Same conventions as :mod:`.kinds_kitchen`; a chair's
seat faces the front (-y), its back stands behind (+y)."""

from __future__ import annotations

import numpy as np

from mirforge.render.objects.geometry import (
    box,
    cylinder,
    lathe,
    ring,
    rounded_box,
    tube,
    union,
)
from mirforge.render.objects.spec import Parts, kind

WOODS = ["oak wood", "walnut wood", "pine wood"]
PAINTED = ["white wood", "black wood", "red wood", "sky blue wood", "green wood"]


def legs(xs: tuple[float, ...], ys: tuple[float, ...], z0: float, z1: float, size: float, round_: bool, splay=0.0):
    """Legs at the corners (x, y) from z0 up to z1; ``splay`` pushes the feet outward by that fraction."""
    out = []
    for x in xs:
        for y in ys:
            if round_ or splay:
                foot = (x * (1 + splay), y * (1 + splay), z0)
                out.append(tube(np.array([foot, (x, y, z1)]), size / 2, 12))
            else:
                out.append(box((size, size, z1 - z0), (x, y, (z0 + z1) / 2)))
    return union(*out)


@kind(
    "chair",
    {
        "slat back": ((0.82, 0.98), WOODS + PAINTED[:2]),
        "panel back": ((0.8, 0.95), PAINTED[2:] + WOODS[:1] + ["orange plastic", "white plastic"]),
        "spindle back": ((0.85, 1.0), WOODS[::-1]),
    },
    fixed={"cushion": "navy fabric"},
)
def chair(rng: np.random.Generator, style: str, h: float) -> Parts:
    seat_z = h * rng.uniform(0.47, 0.52)
    w, d = rng.uniform(0.4, 0.48), rng.uniform(0.4, 0.46)
    seat_t, leg = 0.035, rng.uniform(0.032, 0.042)
    lx, ly = w / 2 - leg / 2 - 0.01, d / 2 - leg / 2 - 0.01
    seat = rounded_box((w, d, seat_t), (0, 0, seat_z - seat_t / 2), 0.02)
    front_legs = legs((-lx, lx), (-ly,), 0, seat_z - seat_t, leg, False)
    # the back legs run on up as the back's posts
    posts = legs((-lx, lx), (ly,), 0, h, leg, False)
    rails = union(
        *(box((w - 2 * leg, leg * 0.6, leg * 0.8), (0, y, 0.15 * seat_z)) for y in (-ly, ly)),
        *(box((leg * 0.6, d - 2 * leg, leg * 0.8), (x, 0, 0.15 * seat_z)) for x in (-lx, lx)),
    )
    parts = [("body", seat), ("body", front_legs), ("body", posts), ("body", rails)]
    back_h = h - seat_z
    if style == "slat back":
        slats = [box((2 * lx, 0.018, 0.06), (0, ly, seat_z + back_h * f)) for f in (0.45, 0.68, 0.9)]
        parts.append(("body", union(*slats)))
    elif style == "panel back":
        panel = rounded_box((2 * lx + leg, 0.025, back_h * 0.5), (0, ly, seat_z + back_h * 0.7), 0.03, axis=1)
        parts.append(("body", panel))
    else:
        top = box((2 * lx + leg, 0.03, 0.06), (0, ly, h - 0.03))
        spindles = [cylinder(0.009, seat_z, h - 0.05, 10, center=(x, ly)) for x in np.linspace(-lx, lx, 6)[1:-1]]
        cushion = rounded_box((w - 0.04, d - 0.06, 0.03), (0, -0.01, seat_z + 0.015), 0.03)
        parts += [("body", union(top, *spindles)), ("cushion", cushion)]
    return parts


@kind(
    "stool",
    {
        "bar stool": ((0.62, 0.78), ["black metal", "steel metal", "red metal", "oak wood"]),
        "low stool": ((0.4, 0.5), ["oak wood", "pine wood", "walnut wood", "white wood"]),
    },
    fixed={"seat": "black fabric"},
)
def stool(rng: np.random.Generator, style: str, h: float) -> Parts:
    r = rng.uniform(0.16, 0.2)
    seat_t = 0.045
    top = h - seat_t
    if style == "bar stool":
        seat = lathe([(0, top), (r, top), (r * 1.02, top + seat_t * 0.7), (r * 0.94, h), (0, h)], 40)
        leg_r = 0.7 * r
        feet = [(leg_r * 1.35 * np.cos(a), leg_r * 1.35 * np.sin(a)) for a in np.radians([45, 135, 225, 315])]
        legs_ = [tube(np.array([(fx, fy, 0), (fx / 1.35 * 0.8, fy / 1.35 * 0.8, top)]), 0.012, 10) for fx, fy in feet]
        footrest = ring(
            leg_r * (1.35 - 0.55 * 0.3), 0.01, 0.3 * top, 40, 8
        )  # where the legs pass at 0.3 of their height
        return [("seat", seat), ("body", union(*legs_)), ("body", footrest)]
    seat = lathe([(0, top), (r, top), (r, h - 0.01), (r - 0.01, h), (0, h)], 40)
    legs_ = []
    for a in np.radians([90, 210, 330]):
        foot = (1.2 * r * np.cos(a), 1.2 * r * np.sin(a), 0)
        head = (0.6 * r * np.cos(a), 0.6 * r * np.sin(a), top)
        legs_.append(tube(np.array([foot, head]), 0.016, 10))
    return [("body", seat), ("body", union(*legs_))]


@kind(
    "table",
    {
        "dining table": ((0.72, 0.78), WOODS + ["white wood"]),
        "coffee table": ((0.38, 0.48), WOODS[::-1] + ["black wood"]),
        "round table": ((0.7, 0.76), ["white wood", "oak wood", "walnut wood"]),
    },
)
def table(rng: np.random.Generator, style: str, h: float) -> Parts:
    top_t = 0.03
    if style == "round table":
        r = rng.uniform(0.4, 0.55)
        top = cylinder(r, h - top_t, h, 56)
        column = cylinder(0.04, 0.03, h - top_t, 20)
        foot = lathe([(0, 0), (0.3 * r + 0.1, 0), (0.3 * r + 0.1, 0.015), (0.05, 0.05), (0, 0.05)], 40)
        return [("body", top), ("body", column), ("body", foot)]
    if style == "dining table":
        w, d = rng.uniform(1.2, 1.8), rng.uniform(0.75, 0.95)
    else:
        w, d = rng.uniform(0.9, 1.2), rng.uniform(0.5, 0.65)
    leg = 0.05
    lx, ly = w / 2 - leg / 2 - 0.04, d / 2 - leg / 2 - 0.04
    top = rounded_box((w, d, top_t), (0, 0, h - top_t / 2), 0.03)
    apron_h = 0.08 if style == "dining table" else 0.06
    apron = union(
        *(box((2 * lx, 0.02, apron_h), (0, y, h - top_t - apron_h / 2)) for y in (-ly, ly)),
        *(box((0.02, 2 * ly, apron_h), (x, 0, h - top_t - apron_h / 2)) for x in (-lx, lx)),
    )
    return [("body", top), ("body", apron), ("body", legs((-lx, lx), (-ly, ly), 0, h - top_t, leg, False))]


@kind(
    "cabinet",
    {
        "cupboard": ((0.8, 1.2), ["oak wood", "white wood", "sky blue wood", "green wood"]),
        "chest of drawers": ((0.7, 1.0), ["walnut wood", "white wood", "oak wood", "black wood"]),
    },
    fixed={"knobs": "brass metal"},
    named_by_style=True,  # a chest of drawers is not what "cabinet" brings to mind
)
def cabinet(rng: np.random.Generator, style: str, h: float) -> Parts:
    w = h * rng.uniform(0.7, 0.95)
    d = rng.uniform(0.4, 0.5)
    plinth = 0.06
    body = box((w, d, h - plinth), (0, 0, plinth + (h - plinth) / 2))
    base = box((w - 0.04, d - 0.04, plinth), (0, 0.01, plinth / 2))
    top = box((w + 0.03, d + 0.02, 0.025), (0, -0.005, h - 0.0125))
    front = -d / 2
    fronts, knobs = [], []
    inner_h = h - plinth - 0.05
    if style == "cupboard":
        for sx in (-1, 1):
            cx = sx * w / 4
            fronts.append(box((w / 2 - 0.03, 0.02, inner_h), (cx, front - 0.01, plinth + 0.02 + inner_h / 2)))
            knobs.append(cylinder(0.012, 0, 0.03, 12, center=(sx * 0.05, 0)))
            knobs[-1].apply_transform(_to_front(front - 0.02, plinth + 0.6 * inner_h))
    else:
        n = int(rng.integers(3, 5))
        drawer_h = inner_h / n
        for k in range(n):
            cz = plinth + 0.02 + drawer_h * (k + 0.5)
            fronts.append(box((w - 0.05, 0.02, drawer_h - 0.02), (0, front - 0.01, cz)))
            for sx in (-1, 1):
                knobs.append(cylinder(0.013, 0, 0.03, 12, center=(sx * w * 0.25, 0)))
                knobs[-1].apply_transform(_to_front(front - 0.02, cz))
    return [("body", union(body, base, top)), ("body", union(*fronts)), ("knobs", union(*knobs))]


def _to_front(y: float, z: float) -> np.ndarray:
    """Turn something built along +z at the origin to stick out of the front (-y) at (y, z)."""
    m = np.eye(4)
    m[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    m[:3, 3] = (0, y, z)
    return m


@kind(
    "bookshelf",
    {"bookshelf": ((0.9, 1.8), ["oak wood", "white wood", "walnut wood", "black wood"])},
    fixed={
        "books": "navy paper",
        "books red": "dark red paper",
        "books green": "dark green paper",
        "books light": "cream paper",
    },
)
def bookshelf(rng: np.random.Generator, style: str, h: float) -> Parts:
    w, d, t = rng.uniform(0.6, 0.9), rng.uniform(0.25, 0.32), 0.02
    n = max(2, int(round(h / 0.35)))
    frame = [box((t, d, h), (x, 0, h / 2)) for x in (-w / 2 + t / 2, w / 2 - t / 2)]
    frame.append(box((w, 0.008, h), (0, d / 2 - 0.004, h / 2)))
    gap = (h - t) / n
    frame += [box((w - 2 * t, d, t), (0, 0, k * gap + t / 2)) for k in range(n + 1)]
    colours = ["books", "books red", "books green", "books light"]
    books: dict[str, list] = {c: [] for c in colours}
    for k in range(n):
        x = -w / 2 + t + 0.01
        stop = w / 2 - t - rng.uniform(0.05, 0.25)
        while x < stop:
            bw = rng.uniform(0.02, 0.045)
            bh = gap * rng.uniform(0.6, 0.85)
            bd = d * rng.uniform(0.7, 0.9)
            books[colours[int(rng.integers(len(colours)))]].append(
                box((bw, bd, bh), (x + bw / 2, d / 2 - 0.008 - bd / 2, k * gap + t + bh / 2))
            )
            x += bw + 0.002
    return [("body", union(*frame)), *((c, union(*m)) for c, m in books.items() if m)]
