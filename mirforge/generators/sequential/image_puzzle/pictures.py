"""The pictures image_puzzle cuts into tiles: several scene families, several drawing styles, repeated motifs.

Every family draws at any size from its own rng (coordinates are shares of the side, so a 2 x 2 and a 4 x 4 cut of
one seed show the same picture), and labels every pixel with the named element it shows, so a tile's caption can say
what the tile shows. Motifs repeat on purpose (a row of alike trees, windows on every building, a shoal of the same
fish): no grid cell is told apart by one landmark of its own, so placing a tile needs its context (where the
horizon, a road or a hill line crosses it).

A style pass then changes the look of the whole picture before it is cut: ``flat`` (as drawn), ``painted`` (soft
edges and canvas grain), ``pixel`` (blocky pixel art, blocks aligned with every grid) or ``poster`` (few colours,
dark outlines).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from mirforge.generators.common import plural
from mirforge.generators.sequential import paint
from mirforge.render.canvas2d import solid

STYLES = ("flat", "painted", "pixel", "poster")
POSTER = (np.round(np.arange(256) / 255 * 4) * (255 / 4)).astype(np.uint8)  # five levels per channel
INKED = (np.arange(256) * 0.3).astype(np.uint8)  # a poster's outlines: its colours darkened to 30%
STYLE_WORDS = {"flat": "flat-colour", "painted": "painted", "pixel": "pixel-art", "poster": "poster-style"}
COUNT_STEP = 4  # captions count labels on every 4th row and column: shares to a fraction of a percent, 16x faster
SLIVER = 0.02  # a caption does not count what shows only this close to a region's edge (share of its side)...
EDGE_RUN = 0.1  # ...unless it runs along this share of one of its sides: a seam is read there (what runs on across it)
SPOT_TRIES = 20  # draws of a free spot for a thing that must not overlap another (a tree in the lake)
PIXEL_BLOCK = 28  # pixel art's block: divides 448, so the blocks line up with every grid of 448-pixel tiles


@dataclass
class Picture:
    """A drawing in progress: the image, the names of the elements drawn on it, and a label map that gives each
    pixel the element that shows there (-1: none), so a caption names only what a region really shows."""

    img: np.ndarray
    names: list[str] = field(default_factory=list)
    labels: np.ndarray = field(default=None)  # type: ignore[assignment]
    grounds: set[int] = field(default_factory=set)  # the background elements (sky, water): they fill to the edge
    _seen: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.labels is None:
            self.labels = np.full(self.img.shape[:2], -1, np.int16)
        self._seen = self.img.copy()

    @property
    def size(self) -> int:
        return self.img.shape[0]

    def note(
        self, name: str, box: tuple[float, float, float, float], background: bool = False, area: bool = False
    ) -> None:
        """Name what was drawn inside ``box`` since the last note: the pixels there that changed, and for an ``area``
        (a block of houses with the yards between them) or a ``background`` (the sky) every pixel there that no
        element has yet. Pixels drawn over keep their old element. The box of a drawn thing is grown by a margin of
        2% of the side, as thick strokes (a path, a river) reach past it."""
        s = self.size
        pad = 0 if background or area else 0.02 * s
        x0, y0 = (max(0, int(round(v - pad))) for v in box[:2])
        x1, y1 = (min(s, int(round(v + pad))) for v in box[2:])
        if x1 <= x0 or y1 <= y0:
            return
        at = (slice(y0, y1), slice(x0, x1))
        d = cv2.absdiff(self.img[at], self._seen[at])
        drawn = (d[..., 0] | d[..., 1] | d[..., 2]) > 0  # 10x faster than a reduction over the channel axis
        if background or area:
            drawn |= self.labels[at] < 0
        np.copyto(self.labels[at], len(self.names), where=drawn)
        self._seen[at] = self.img[at]
        if background:
            self.grounds.add(len(self.names))
        self.names.append(name)

    def window(self, dy: int, dx: int, size: int) -> Picture:
        """The ``size`` x ``size`` part of the picture from row ``dy`` and column ``dx``, with its labels."""
        at = (slice(dy, dy + size), slice(dx, dx + size))
        return Picture(self.img[at].copy(), list(self.names), self.labels[at].copy(), set(self.grounds))


def _rgb(rng: np.random.Generator, base: tuple[int, int, int], spread: int = 14) -> tuple[int, int, int]:
    return paint.jitter(rng, base, spread)


# -- landscape ------------------------------------------------------------------------------------------------
SKIES = {
    "day": ((70, 130, 210), (190, 215, 240)),
    # green stays under 96 until red passes 160, so the poster style's five levels never turn the evening sky a
    # neutral grey (from (90, 80, 150) to (250, 170, 110), a quarter of it was grey, and called "an evening sky")
    "sunset": ((90, 40, 170), (250, 130, 80)),
    "overcast": ((150, 160, 175), (210, 214, 220)),
}


def landscape(rng: np.random.Generator, s: int) -> Picture:
    sky = list(SKIES)[int(rng.integers(len(SKIES)))]
    top, low = SKIES[sky]
    horizon = s * float(rng.uniform(0.36, 0.48))
    pic = Picture(paint.gradient(s, s, _rgb(rng, top, 10), _rgb(rng, low, 10)))
    img = pic.img
    pic.note(
        "the sky" if sky == "day" else ("an evening sky" if sky == "sunset" else "a grey sky"),
        (0, 0, s, horizon),
        background=True,
    )
    if sky != "overcast":
        c = (s * float(rng.uniform(0.1, 0.9)), s * float(rng.uniform(0.08, 0.22)))
        r = s * 0.05
        paint.circle(img, c, r, (252, 226, 120) if sky == "day" else (250, 150, 80))
        pic.note("the sun", (c[0] - r, c[1] - r, c[0] + r, c[1] + r))
    for _ in range(int(rng.integers(3, 6))):
        c = (s * float(rng.uniform(0, 1)), s * float(rng.uniform(0.05, 0.3)))
        w = s * float(rng.uniform(0.04, 0.07))
        for dx, dy, k in ((-1.1, 0.3, 0.8), (0, 0, 1.0), (1.1, 0.3, 0.8)):
            paint.ellipse(img, (c[0] + dx * w, c[1] + dy * w), (w * k, w * 0.55 * k), (246, 246, 250))
        pic.note("a cloud", (c[0] - 2 * w, c[1] - w, c[0] + 2 * w, c[1] + w))
    # two ridges, each named for what it looks like: the far one blue-grey (it was "green hills" with the near one)
    hills = [
        ("distant hills", _rgb(rng, (118, 140, 150)), horizon),
        ("green hills", _rgb(rng, (84, 150, 80)), horizon + s * 0.05),
    ]
    for name, shade, base in hills:
        xs = np.linspace(0, s, int(rng.integers(6, 10)))
        ys = base - rng.uniform(0.03, 0.16, size=len(xs)) * s
        pts = [(0.0, float(s))] + [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)] + [(float(s), float(s))]
        paint.poly(img, pts, shade)
        pic.note(name, (0, horizon - 0.16 * s, s, horizon + 0.1 * s))
    ground = int(horizon + s * 0.09)
    grass = _rgb(rng, (96, 166, 76), 10)
    img[ground:] = paint.gradient(s - ground, s, grass, paint.shade(grass, 0.7))
    pic.note("green meadow", (0, ground, s, s))
    lake = (s * float(rng.uniform(0.2, 0.8)), s * float(rng.uniform(ground / s + 0.12, 0.82)))
    ax = (s * float(rng.uniform(0.12, 0.2)), s * float(rng.uniform(0.05, 0.07)))
    paint.ellipse(img, lake, ax, _rgb(rng, (70, 130, 200), 10))
    paint.ellipse(img, (lake[0] - ax[0] * 0.3, lake[1] - ax[1] * 0.3), (ax[0] * 0.4, ax[1] * 0.12), (150, 190, 230))
    pic.note("a lake", (lake[0] - ax[0], lake[1] - ax[1], lake[0] + ax[0], lake[1] + ax[1]))
    path = [(s * float(rng.uniform(0.3, 0.7)), float(s)), (s * float(rng.uniform(0.15, 0.85)), s * 0.78)]
    path.append((s * float(rng.uniform(0.3, 0.7)), float(ground)))
    paint.polyline(img, path, (206, 184, 140), int(s * 0.02))
    pic.note("a path", (min(p[0] for p in path), ground, max(p[0] for p in path), s))
    # rows of alike trees and houses: the motifs repeat, so no cell has a landmark of its own
    # a crown darker and bluer than the darkest meadow, rimmed and lit on one side: in the meadow's own green, the
    # crowns vanished into its shaded half and only the trunks showed
    tree = _rgb(rng, (30, 92, 52), 8)
    rim, lit = paint.shade(tree, 0.55), paint.mix(tree, (150, 200, 110), 0.35)
    pine = rng.random() < 0.5
    wall = _rgb(rng, ((230, 220, 200), (200, 90, 70), (240, 210, 150))[int(rng.integers(3))], 8)
    roof = _rgb(rng, (150, 60, 50), 10)
    # (base row, kind, x, size), drawn from the back to the front; none stands in the lake or on another's spot
    taken, things = [(lake[0] - ax[0], lake[1] - ax[1], lake[0] + ax[0], lake[1] + ax[1])], []
    top = ground / s
    for kind, n, xs, ys in (
        ("tree", int(rng.integers(7, 12)), (0.03, 0.97), (top + 0.02, 0.95)),
        ("house", int(rng.integers(2, 4)), (0.06, 0.94), (top + 0.04, 0.9)),
    ):
        for _ in range(n):
            spot = _free_spot(rng, taken, xs, ys, _land_spot(kind, s), s)
            if spot is not None:
                things.append((spot[1], kind, spot[0], _land_size(kind, s, spot[1])))
    for y, kind, x, r in sorted(things):
        if kind == "tree":
            paint.rounded_rect(img, (x - r * 0.18, y - r * 0.2, x + r * 0.18, y + r * 0.9), 1, (110, 74, 44))
            if pine:
                cone = [(x - r, y + r * 0.1), (x, y - 2.2 * r), (x + r, y + r * 0.1)]
                paint.poly(img, cone, tree)
                paint.poly(img, [(x - r * 0.55, y - r * 0.15), (x, y - 1.9 * r), (x - r * 0.1, y - r * 0.15)], lit)
                paint.polyline(img, cone, rim, max(1, int(r * 0.12)), closed=True)
            else:
                paint.circle(img, (x, y - r * 0.6), r, tree)
                paint.circle(img, (x - r * 0.3, y - r * 0.9), r * 0.45, lit)
                paint.circle(img, (x, y - r * 0.6), r, rim, max(1, int(r * 0.12)))
            pic.note("a tree", (x - r, y - 2.2 * r, x + r, y + r))
        else:
            paint.rounded_rect(img, (x - r, y - r * 0.6, x + r, y + r * 0.7), 1, wall)
            paint.poly(img, [(x - r * 1.2, y - r * 0.55), (x, y - r * 1.4), (x + r * 1.2, y - r * 0.55)], roof)
            paint.rounded_rect(img, (x - r * 0.2, y + r * 0.1, x + r * 0.2, y + r * 0.7), 1, (70, 50, 40))
            pic.note("a house", (x - r * 1.2, y - r * 1.4, x + r * 1.2, y + r * 0.7))
    return pic


def _land_size(kind: str, s: int, y: float) -> float:
    """A landscape tree's crown radius, or a house's half width, at base row ``y``: nearer (lower), larger."""
    return s * 0.025 * (0.6 + 0.8 * (y / s)) if kind == "tree" else s * 0.035 * (0.7 + 0.6 * (y / s))


def _land_spot(kind: str, s: int) -> Callable[[float, float], tuple[float, float, float, float]]:
    """The ground a landscape tree (its trunk) or house (its walls) standing at a point takes."""

    def at(x: float, y: float) -> tuple[float, float, float, float]:
        r = _land_size(kind, s, y)
        if kind == "tree":
            return x - r, y - r * 0.2, x + r, y + r * 0.9
        return x - r * 1.2, y - r * 0.6, x + r * 1.2, y + r * 0.7

    return at


def _free_spot(
    rng: np.random.Generator,
    taken: list[tuple[float, float, float, float]],
    xs: tuple[float, float],
    ys: tuple[float, float],
    box_at: Callable[[float, float], tuple[float, float, float, float]],
    s: int,
) -> tuple[float, float] | None:
    """A point drawn in ``xs`` x ``ys`` (shares of the side ``s``) whose box (``box_at``) overlaps none of ``taken``
    (to which it is added), or None after ``SPOT_TRIES`` draws."""
    for _ in range(SPOT_TRIES):
        x, y = s * float(rng.uniform(*xs)), s * float(rng.uniform(*ys))
        box = box_at(x, y)
        if not _overlaps(box, taken):
            taken.append(box)
            return x, y
    return None


def _hung(width: float, height: float, gap: float) -> Callable[[float, float], tuple[float, float, float, float]]:
    """The box of a ``width`` x ``height`` thing whose top left corner is at a point, with ``gap`` around it."""
    return lambda x, y: (x - gap, y - gap, x + width + gap, y + height + gap)


def _overlaps(box: tuple[float, float, float, float], boxes: list[tuple[float, float, float, float]]) -> bool:
    return any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes)


# -- city -----------------------------------------------------------------------------------------------------
def city(rng: np.random.Generator, s: int) -> Picture:
    night = rng.random() < 0.4
    pic = Picture(
        # red and green stay under 32, so the poster style keeps the night sky blue (it turned grey and teal, the
        # grey of the buildings)
        paint.gradient(s, s, (10, 12, 40), (24, 28, 110))
        if night
        else paint.gradient(s, s, (90, 150, 220), (200, 222, 240))
    )
    img = pic.img
    if night:
        for _ in range(int(rng.integers(30, 60))):
            paint.circle(
                img, (s * float(rng.uniform(0, 1)), s * float(rng.uniform(0, 0.45))), s * 0.002, (240, 240, 220)
            )
        c = (s * float(rng.uniform(0.1, 0.9)), s * float(rng.uniform(0.08, 0.2)))
        paint.circle(img, c, s * 0.035, (240, 236, 210))
        pic.note("the moon", (c[0] - s * 0.035, c[1] - s * 0.035, c[0] + s * 0.035, c[1] + s * 0.035))
    street = s * float(rng.uniform(0.74, 0.82))
    palette = [(150, 140, 130), (120, 130, 150), (180, 160, 140), (110, 110, 120), (170, 120, 100)]
    x = -s * float(rng.uniform(0, 0.05))
    while x < s:
        w = s * float(rng.uniform(0.08, 0.16))
        h = s * float(rng.uniform(0.2, 0.6))
        body = paint.shade(_rgb(rng, palette[int(rng.integers(len(palette)))], 10), 0.55 if night else 1.0)
        top = street - h
        paint.poly(img, [(x, street), (x, top), (x + w, top), (x + w, street)], body)
        lit, dark = (250, 220, 120), paint.shade(body, 0.6) if night else (150, 190, 220)
        cols = max(2, int(w / (s * 0.025)))
        for row in np.arange(top + s * 0.02, street - s * 0.04, s * 0.035):
            for c in range(cols):
                wx = x + w * (c + 0.5) / cols
                colour = lit if (night and rng.random() < 0.55) else dark
                paint.rounded_rect(img, (wx - s * 0.006, row, wx + s * 0.006, row + s * 0.018), 1, colour)
        pic.note("a tall building" if h > 0.42 * s else "a building", (x, top, x + w, street))
        x += w + s * float(rng.uniform(0.0, 0.02))
    img[int(street) :] = (70, 70, 76)
    paint.line(img, (0, street + (s - street) * 0.5), (s, street + (s - street) * 0.5), (230, 230, 230), int(s * 0.006))
    pic.note("the street", (0, street, s, s))
    car = _rgb(rng, ((200, 50, 50), (50, 90, 190), (240, 200, 60))[int(rng.integers(3))], 10)
    for _ in range(int(rng.integers(3, 6))):
        cx = s * float(rng.uniform(0.05, 0.95))
        cy = street + (s - street) * float(rng.choice([0.3, 0.75]))
        w = s * 0.06
        paint.rounded_rect(img, (cx - w, cy - w * 0.35, cx + w, cy + w * 0.1), w * 0.15, car)
        paint.rounded_rect(
            img, (cx - w * 0.55, cy - w * 0.65, cx + w * 0.45, cy - w * 0.3), w * 0.12, paint.shade(car, 0.8)
        )
        for dx in (-0.6, 0.6):
            paint.circle(img, (cx + dx * w, cy + w * 0.1), w * 0.18, (30, 30, 30))
        pic.note("a car", (cx - w, cy - w * 0.65, cx + w, cy + w * 0.3))
    for lx in np.arange(s * float(rng.uniform(0.05, 0.2)), s, s * float(rng.uniform(0.22, 0.3))):
        paint.line(img, (lx, street), (lx, street - s * 0.14), (60, 60, 64), max(2, int(s * 0.005)))
        paint.circle(img, (lx, street - s * 0.145), s * 0.01, (255, 236, 150) if night else (220, 220, 210))
        pic.note("a street lamp", (lx - s * 0.012, street - s * 0.16, lx + s * 0.012, street))
    pic.note("the night sky" if night else "the sky", (0, 0, s, street), background=True)  # what shows between
    return pic


# -- underwater -----------------------------------------------------------------------------------------------
def underwater(rng: np.random.Generator, s: int) -> Picture:
    pic = Picture(paint.gradient(s, s, _rgb(rng, (60, 170, 200), 12), _rgb(rng, (10, 60, 110), 10)))
    img = pic.img
    for _ in range(4):  # shafts of light from the surface
        x = s * float(rng.uniform(0, 1))
        mask, at = paint.poly_mask([(x, 0), (x + s * 0.06, 0), (x + s * 0.2, s * 0.7), (x + s * 0.1, s * 0.7)])
        paint.blend(img, mask, (200, 240, 250), 0.12, at=at)
        pic.note("a shaft of light", (x, 0, x + s * 0.2, s * 0.7))
    pic.note("blue water", (0, 0, s, s), background=True)  # all of it: the floor and all else are drawn over it
    floor = s * float(rng.uniform(0.72, 0.82))
    sand = _rgb(rng, (200, 180, 130), 10)
    xs = np.linspace(0, s, 9)
    ys = floor + rng.uniform(-0.03, 0.03, size=9) * s
    paint.poly(
        img,
        [(0.0, float(s))] + [(float(a), float(b)) for a, b in zip(xs, ys, strict=True)] + [(float(s), float(s))],
        sand,
    )
    pic.note("the sandy floor", (0, floor - 0.03 * s, s, s))
    for _ in range(int(rng.integers(2, 4))):
        c = (s * float(rng.uniform(0.05, 0.95)), floor + s * float(rng.uniform(0.0, 0.08)))
        ax = (s * float(rng.uniform(0.05, 0.09)), s * float(rng.uniform(0.03, 0.05)))
        paint.ellipse(img, c, ax, _rgb(rng, (110, 110, 120), 10))
        pic.note("a rock", (c[0] - ax[0], c[1] - ax[1], c[0] + ax[0], c[1] + ax[1]))
    weed = _rgb(rng, (40, 140, 80), 12)
    for _ in range(int(rng.integers(6, 11))):
        x0 = s * float(rng.uniform(0.02, 0.98))
        h = s * float(rng.uniform(0.15, 0.35))
        pts = [(x0 + s * 0.015 * math.sin(k * 0.9 + x0), floor + s * 0.02 - h * k / 10) for k in range(11)]
        paint.polyline(img, pts, weed, max(3, int(s * 0.008)))
        pic.note("seaweed", (x0 - s * 0.02, floor - h, x0 + s * 0.02, floor + s * 0.02))
    species = [(_rgb(rng, (250, 140, 40), 10), 0.035), (_rgb(rng, (240, 220, 70), 10), 0.025)]
    school: list[tuple[float, float, float, float]] = []  # no fish swims through another
    for _ in range(int(rng.integers(6, 11))):
        colour, size = species[int(rng.integers(2))]
        r = s * size
        spot = _free_spot(
            rng, school, (0.05, 0.95 - 3 * size), (0.1, floor / s - 0.08), _hung(3 * r, 1.2 * r, 0.01 * s), s
        )
        if spot is None:
            continue
        c = (spot[0] + 1.5 * r, spot[1] + 0.6 * r)
        d = 1 if rng.random() < 0.5 else -1
        paint.ellipse(img, c, (r, r * 0.55), colour)
        paint.poly(
            img,
            [(c[0] - d * r * 0.8, c[1]), (c[0] - d * r * 1.5, c[1] - r * 0.5), (c[0] - d * r * 1.5, c[1] + r * 0.5)],
            colour,
        )
        paint.line(
            img,
            (c[0] + d * r * 0.1, c[1] - r * 0.5),
            (c[0] + d * r * 0.1, c[1] + r * 0.5),
            paint.shade(colour, 0.7),
            max(1, int(r * 0.12)),
        )
        paint.circle(img, (c[0] + d * r * 0.55, c[1] - r * 0.1), r * 0.1, (20, 20, 20))
        pic.note("a fish", (c[0] - r * 1.5, c[1] - r * 0.6, c[0] + r * 1.5, c[1] + r * 0.6))
    for _ in range(int(rng.integers(3, 6))):
        x, y = s * float(rng.uniform(0.05, 0.95)), s * float(rng.uniform(0.1, 0.7))
        for k in range(4):
            paint.circle(
                img, (x + s * 0.006 * math.sin(k), y - k * s * 0.025), s * (0.006 + 0.002 * k), (200, 235, 245), 1
            )
        pic.note("bubbles", (x - s * 0.015, y - s * 0.09, x + s * 0.015, y + s * 0.01))
    star = _rgb(rng, (230, 90, 70), 10)
    stars: list[tuple[float, float, float, float]] = []
    for _ in range(int(rng.integers(1, 3))):
        r = s * 0.03
        spot = _free_spot(
            rng, stars, (0.02, 0.92), (floor / s + 0.01, floor / s + 0.12), _hung(2 * r, 2 * r, 0.01 * s), s
        )
        if spot is None:
            continue
        c = (spot[0] + r, spot[1] + r)
        pts = [
            (
                c[0] + (r if k % 2 == 0 else r * 0.4) * math.cos(math.pi / 2 + k * math.pi / 5),
                c[1] - (r if k % 2 == 0 else r * 0.4) * math.sin(math.pi / 2 + k * math.pi / 5),
            )
            for k in range(10)
        ]
        paint.poly(img, pts, star)
        pic.note("a starfish", (c[0] - r, c[1] - r, c[0] + r, c[1] + r))
    return pic


# -- a room ---------------------------------------------------------------------------------------------------
def room(rng: np.random.Generator, s: int) -> Picture:
    wall = _rgb(rng, ((230, 214, 190), (200, 220, 210), (220, 200, 210), (210, 215, 230))[int(rng.integers(4))], 8)
    floor_y = s * float(rng.uniform(0.66, 0.74))
    pic = Picture(solid(s, wall))
    img = pic.img
    stripe = paint.shade(wall, 0.93)
    step = s * 0.04
    if rng.random() < 0.5:
        for x in np.arange(0, s, step * 2):
            img[: int(floor_y), int(x) : int(x + step)] = stripe
    else:
        for y in np.arange(step / 2, floor_y, step):
            for x in np.arange(step / 2 + (y // step % 2) * step / 2, s, step):
                paint.circle(img, (x, y), s * 0.004, stripe)
    pic.note("patterned wallpaper", (0, 0, s, floor_y), background=True)
    wood = _rgb(rng, (160, 120, 80), 12)
    img[int(floor_y) :] = wood
    for y in np.arange(floor_y, s, s * 0.03):
        paint.line(img, (0, y), (s, y), paint.shade(wood, 0.85), max(1, int(s * 0.002)))
    pic.note("a wooden floor", (0, floor_y, s, s))
    wx = s * float(rng.uniform(0.1, 0.6))
    ww, wh = s * 0.22, s * 0.26
    paint.rounded_rect(
        img, (wx - s * 0.01, s * 0.1 - s * 0.01, wx + ww + s * 0.01, s * 0.1 + wh + s * 0.01), 2, (245, 245, 240)
    )
    img[int(s * 0.1) : int(s * 0.1 + wh), int(wx) : int(wx + ww)] = paint.gradient(
        int(s * 0.1 + wh) - int(s * 0.1), int(wx + ww) - int(wx), (120, 170, 230), (200, 225, 245)
    )
    paint.line(img, (wx + ww / 2, s * 0.1), (wx + ww / 2, s * 0.1 + wh), (245, 245, 240), max(2, int(s * 0.006)))
    curtain = _rgb(rng, (180, 60, 70), 16)
    for cx in (wx - s * 0.03, wx + ww + s * 0.03):
        paint.rounded_rect(img, (cx - s * 0.03, s * 0.08, cx + s * 0.03, s * 0.42), 2, curtain)
    pic.note("a window with curtains", (wx - s * 0.06, s * 0.08, wx + ww + s * 0.06, s * 0.42))
    # two alike bookshelves, two alike framed pictures, alike pot plants; what hangs on the wall clears the window,
    # the curtains and each other (a picture hung across a curtain)
    hung = [(wx - s * 0.07, s * 0.07, wx + ww + s * 0.07, s * 0.43)]
    book_colours = [_rgb(rng, c, 16) for c in ((180, 50, 50), (50, 90, 170), (60, 140, 80), (220, 180, 60))]
    for _ in range(2):
        spot = _free_spot(rng, hung, (0.02, 0.8), (0.15, 0.45), _hung(s * 0.18, s * 0.075, 0.01 * s), s)
        if spot is None:
            continue
        bx, by = spot
        paint.rounded_rect(img, (bx, by + s * 0.06, bx + s * 0.18, by + s * 0.075), 1, (120, 80, 50))
        x = bx + s * 0.005
        while x < bx + s * 0.17:
            w = s * float(rng.uniform(0.012, 0.02))
            h = s * float(rng.uniform(0.04, 0.058))
            paint.rounded_rect(img, (x, by + s * 0.06 - h, x + w, by + s * 0.06), 1, book_colours[int(rng.integers(4))])
            x += w + s * 0.002
        pic.note("a shelf of books", (bx, by, bx + s * 0.18, by + s * 0.075))
    frame = _rgb(rng, (140, 100, 60), 12)
    art = _rgb(rng, (90, 140, 170), 30)
    for _ in range(2):
        spot = _free_spot(rng, hung, (0.05, 0.85), (0.08, 0.4), _hung(s * 0.1, s * 0.08, 0.01 * s), s)
        if spot is None:
            continue
        fx, fy = spot
        paint.rounded_rect(img, (fx, fy, fx + s * 0.1, fy + s * 0.08), 1, frame)
        paint.rounded_rect(img, (fx + s * 0.01, fy + s * 0.01, fx + s * 0.09, fy + s * 0.07), 1, art)
        paint.circle(img, (fx + s * 0.05, fy + s * 0.035), s * 0.015, (240, 220, 120))
        pic.note("a framed picture", (fx, fy, fx + s * 0.1, fy + s * 0.08))
    sofa = _rgb(rng, ((90, 110, 160), (160, 90, 80), (110, 140, 100))[int(rng.integers(3))], 10)
    sx = s * float(rng.uniform(0.05, 0.5))
    paint.rounded_rect(img, (sx, floor_y - s * 0.12, sx + s * 0.38, floor_y + s * 0.04), s * 0.02, sofa)
    paint.rounded_rect(
        img, (sx + s * 0.02, floor_y - s * 0.06, sx + s * 0.36, floor_y + s * 0.02), s * 0.015, paint.shade(sofa, 1.1)
    )
    pic.note("a sofa", (sx, floor_y - s * 0.12, sx + s * 0.38, floor_y + s * 0.04))
    rug = _rgb(rng, (170, 60, 60), 20)
    rc = (s * float(rng.uniform(0.3, 0.7)), floor_y + s * 0.16)
    paint.ellipse(img, rc, (s * 0.25, s * 0.07), rug)
    paint.ellipse(img, rc, (s * 0.18, s * 0.045), paint.shade(rug, 1.25))
    pic.note("a round rug", (rc[0] - s * 0.25, rc[1] - s * 0.07, rc[0] + s * 0.25, rc[1] + s * 0.07))
    pot, leaf = _rgb(rng, (180, 100, 60), 10), _rgb(rng, (50, 130, 60), 10)
    for _ in range(int(rng.integers(2, 4))):
        px, py = s * float(rng.uniform(0.05, 0.95)), floor_y + s * float(rng.uniform(0.0, 0.2))
        paint.poly(
            img,
            [
                (px - s * 0.03, py - s * 0.06),
                (px + s * 0.03, py - s * 0.06),
                (px + s * 0.022, py),
                (px - s * 0.022, py),
            ],
            pot,
        )
        for a in (-50, -20, 10, 40):
            paint.ellipse(
                img, (px + s * 0.03 * math.sin(math.radians(a)), py - s * 0.1), (s * 0.012, s * 0.04), leaf, angle=a
            )
        pic.note("a pot plant", (px - s * 0.05, py - s * 0.15, px + s * 0.05, py))
    return pic


# -- abstract geometric art -----------------------------------------------------------------------------------
# four palettes, each colour with the name a person gives it (a rule on the channels called the pale blue "purple")
# each colour keeps its name through the poster style's five levels a channel, and the colours of a palette stay
# apart there (a pale blue turned neutral grey, a navy and a steel blue teal, an orange and a sand yellow one colour)
ART = (
    {
        "red": (230, 57, 70),
        "off-white": (241, 250, 238),
        "pale blue": (150, 200, 240),
        "steel blue": (60, 110, 170),
        "navy": (20, 40, 100),
    },
    {
        "dark teal": (30, 80, 90),
        "teal": (42, 157, 143),
        "sand yellow": (230, 210, 90),
        "orange": (244, 140, 60),
        "coral red": (220, 80, 70),
    },
    {
        "yellow": (255, 190, 11),
        "orange": (251, 86, 7),
        "pink": (255, 0, 110),
        "purple": (131, 56, 236),
        "blue": (58, 134, 255),
    },
    {
        "black": (34, 34, 34),
        "cream": (240, 234, 214),
        "red": (200, 60, 50),
        "blue": (40, 90, 160),
        "yellow": (230, 190, 60),
    },
)


def abstract(rng: np.random.Generator, s: int) -> Picture:
    named = ART[int(rng.integers(len(ART)))]
    palette, word = list(named.values()), {rgb: name for name, rgb in named.items()}
    bg = palette[int(rng.integers(len(palette)))]
    pic = Picture(solid(s, bg))
    img = pic.img
    pic.note(f"{paint.a('plain ' + word[bg])} background", (0, 0, s, s), background=True)
    if rng.random() < 0.5:  # a band of stripes across the picture
        y0, h = s * float(rng.uniform(0.2, 0.7)), s * 0.15
        colour = palette[int(rng.integers(len(palette)))]
        for k in range(6):
            if k % 2 == 0:
                paint.poly(
                    img,
                    [
                        (0, y0 + k * h / 6),
                        (s, y0 + k * h / 6 - s * 0.1),
                        (s, y0 + (k + 1) * h / 6 - s * 0.1),
                        (0, y0 + (k + 1) * h / 6),
                    ],
                    colour,
                )
        pic.note("slanting stripes", (0, y0 - s * 0.1, s, y0 + h))  # 6 degrees: not "diagonal"
    # a few motifs (a shape in a colour), each repeated at several places, sizes and turns
    colours = [c for c in palette if c != bg]
    motifs = [
        (
            ("circle", "square", "triangle", "ring", "bar")[int(rng.integers(5))],
            colours[int(rng.integers(len(colours)))],
        )
        for _ in range(int(rng.integers(4, 7)))
    ]
    for _ in range(int(rng.integers(14, 24))):
        kind, colour = motifs[int(rng.integers(len(motifs)))]
        c = (s * float(rng.uniform(0.05, 0.95)), s * float(rng.uniform(0.05, 0.95)))
        r = s * float(rng.uniform(0.03, 0.11))
        name = word[colour]
        if kind == "circle":
            paint.circle(img, c, r, colour)
        elif kind == "ring":
            paint.circle(img, c, r, colour, width=max(2, int(r * 0.25)))
        elif kind == "square":
            a = float(rng.uniform(0, 90))
            pts = [
                (c[0] + r * math.cos(math.radians(a + 90 * k)), c[1] + r * math.sin(math.radians(a + 90 * k)))
                for k in range(4)
            ]
            paint.poly(img, pts, colour)
        elif kind == "triangle":
            a = float(rng.uniform(0, 120))
            pts = [
                (c[0] + r * math.cos(math.radians(a + 120 * k)), c[1] + r * math.sin(math.radians(a + 120 * k)))
                for k in range(3)
            ]
            paint.poly(img, pts, colour)
        else:
            a = float(rng.uniform(0, 180))
            d = (r * 1.6 * math.cos(math.radians(a)), r * 1.6 * math.sin(math.radians(a)))
            paint.line(img, (c[0] - d[0], c[1] - d[1]), (c[0] + d[0], c[1] + d[1]), colour, max(3, int(r * 0.35)))
        reach = r * 1.6 if kind == "bar" else r
        pic.note(f"{paint.a(name)} {kind}", (c[0] - reach, c[1] - reach, c[0] + reach, c[1] + reach))
    return pic


# -- a town map -----------------------------------------------------------------------------------------------
def town_map(rng: np.random.Generator, s: int) -> Picture:
    pic = Picture(solid(s, _rgb(rng, (214, 226, 196), 6)))
    img = pic.img
    # a river winding across
    a, f = float(rng.uniform(0.1, 0.2)) * s, float(rng.uniform(1.5, 3.0))
    horizontal = rng.random() < 0.5
    mid = s * float(rng.uniform(0.35, 0.65))
    pts = [(float(t), mid + a * math.sin(f * math.pi * t / s)) for t in np.linspace(0, s, 40)]
    if not horizontal:
        pts = [(y, x) for x, y in pts]
    paint.polyline(img, pts, _rgb(rng, (110, 160, 220), 8), int(s * 0.05))
    pic.note(
        "a river",
        (0, mid - a - 0.03 * s, s, mid + a + 0.03 * s)
        if horizontal
        else (mid - a - 0.03 * s, 0, mid + a + 0.03 * s, s),
    )
    river = len(pic.names) - 1
    # a grid of roads with blocks of alike houses between them
    road, roof = (250, 250, 246), _rgb(rng, (200, 110, 90), 12)
    step = s * float(rng.uniform(0.2, 0.26))
    off = s * float(rng.uniform(0.02, 0.12))
    width = max(4, int(s * 0.018))
    for v in np.arange(off, s, step):
        paint.line(img, (v, 0), (v, s), road, width)
        paint.line(img, (0, v), (s, v), road, width)
    pic.note("a grid of streets", (0, 0, s, s))
    park = (int(rng.integers(0, 4)), int(rng.integers(0, 4)))
    for i, bx in enumerate(np.arange(off, s, step)):
        for j, by in enumerate(np.arange(off, s, step)):
            x0, y0 = bx + width, by + width
            x1, y1 = min(s, bx + step - width), min(s, by + step - width)
            if x1 - x0 < s * 0.05 or y1 - y0 < s * 0.05:
                continue
            if (i, j) == park:
                paint.rounded_rect(img, (x0, y0, x1, y1), 3, (130, 190, 110))
                for _ in range(6):
                    paint.circle(
                        img,
                        (float(rng.uniform(x0 + 8, x1 - 8)), float(rng.uniform(y0 + 8, y1 - 8))),
                        s * 0.012,
                        (60, 130, 60),
                    )
                pic.note("a park", (x0, y0, x1, y1))  # its trees with it: a piece of lawn is still the park
                continue
            hs = s * 0.035
            for hx in np.arange(x0 + hs * 0.3, x1 - hs, hs * 1.4):
                for hy in (y0 + hs * 0.3, y1 - hs * 1.3):
                    m = int(0.005 * s) + 2  # a few pixels of bank between a house and the water
                    near = pic.labels[
                        max(0, int(hy) - m) : int(hy + hs) + m + 1, max(0, int(hx) - m) : int(hx + hs) + m + 1
                    ]
                    if (near == river).any():
                        continue  # no house stands in the river
                    paint.rounded_rect(img, (hx, hy, hx + hs, hy + hs), 1, roof)
                    paint.line(img, (hx, hy + hs / 2), (hx + hs, hy + hs / 2), paint.shade(roof, 0.8), 1)
            # the block is all the land between its four streets, houses and yards: it has no outline of its own,
            # and a window edge through a yard cuts it
            pic.note("a block of houses", (bx, by, min(s, bx + step), min(s, by + step)), area=True)
    # the land outside the blocks (by the edge, strips too narrow for one): a background like the sky or the water
    pic.note("open land", (0, 0, s, s), background=True)
    return pic


FAMILIES = {
    "landscape": (landscape, "a landscape with hills, a lake, trees and houses"),
    "city": (city, "a city street lined with buildings"),
    "underwater": (underwater, "an underwater scene with fish and seaweed"),
    "room": (room, "a living room with a window, shelves and a sofa"),
    "abstract": (abstract, "an abstract composition of geometric shapes"),
    "map": (town_map, "a map of a town with streets, houses and a river"),
}


def draw_picture(family: str, style: str, seed: int, size: int) -> Picture:
    """The picture of ``family`` from ``seed``, drawn ``size`` pixels square and passed through ``style``."""
    pic = FAMILIES[family][0](np.random.default_rng(seed), size)
    if (pic.labels < 0).any():  # the captions and the seams read every pixel as some element
        raise ValueError(f"picture family {family!r} leaves pixels that no element names: note a background")
    if np.random.default_rng([seed, 2]).random() < 0.5:
        # mirrored half the time: a family's layout that favours one side (a window on the left) would otherwise
        # tell a tile's column from the tile alone
        pic.img = cv2.flip(pic.img, 1)
        pic.labels = np.ascontiguousarray(pic.labels[:, ::-1])
    pic.img = stylise(pic.img, style, np.random.default_rng([seed, 1]))
    if style == "pixel":
        # a block shows the average of what was drawn there, so it is labelled with what covers most of it: read
        # off the drawing, a seam "showed the sky all along it" where its blocks showed a building's colour
        pic.labels = _block_labels(pic.labels, len(pic.names), PIXEL_BLOCK)
    return pic


def _block_labels(labels: np.ndarray, n: int, block: int) -> np.ndarray:
    """Each ``block`` x ``block`` square of ``labels`` (elements 0 to n - 1, -1: none) given its most common label,
    counted on every ``COUNT_STEP``-th row and column."""
    k = labels.shape[0] // block
    step = block // COUNT_STEP
    sampled = labels[::COUNT_STEP, ::COUNT_STEP]
    blocks = sampled.reshape(k, step, k, step).transpose(0, 2, 1, 3).reshape(k * k, step * step)
    keys = np.arange(k * k)[:, None] * (n + 1) + blocks + 1  # (block, label) pairs, counted in one pass
    counts = np.bincount(keys.ravel(), minlength=k * k * (n + 1)).reshape(k * k, n + 1)
    mode = (counts.argmax(axis=1) - 1).astype(labels.dtype).reshape(k, k)
    return np.ascontiguousarray(np.repeat(np.repeat(mode, block, axis=0), block, axis=1))


def stylise(img: np.ndarray, style: str, rng: np.random.Generator) -> np.ndarray:
    s = img.shape[0]
    if style == "painted":
        out = cv2.GaussianBlur(img, (0, 0), s / 700)
        grain = cv2.resize(rng.uniform(0, 12, size=(s // 6, s // 6)).astype(np.float32), (s, s)).astype(np.uint8)
        return cv2.subtract(cv2.add(out, cv2.merge([grain, grain, grain])), (6, 6, 6, 0))
    if style == "pixel":
        block = PIXEL_BLOCK
        small = cv2.resize(img, (s // block, s // block), interpolation=cv2.INTER_AREA)
        return cv2.resize(small, (s, s), interpolation=cv2.INTER_NEAREST)
    if style == "poster":
        q = cv2.LUT(img, POSTER)
        edges = cv2.Canny(cv2.cvtColor(q, cv2.COLOR_RGB2GRAY), 40, 120)
        cv2.copyTo(cv2.LUT(q, INKED), cv2.dilate(edges, np.ones((3, 3), np.uint8)), q)
        return q
    return img


def describe(
    pic: Picture, box: tuple[float, float, float, float], lines: Sequence[np.ndarray] | None = None
) -> list[str]:
    """What a region of the picture shows: the elements whose pixels fall in ``box``, whole ones plainly and cut
    ones as "part of ...", largest share first, each name once with how many show ("three fish"). An element counts
    when 0.2% of the region shows it at least ``SLIVER`` of the region's side in from its edges (a speck in a
    corner is not something a person sees, the tail of a fish or a strand of seaweed reaching in is); a name counts
    when its elements together cover 0.5% (eight small fish do). What runs along ``EDGE_RUN`` of one of ``lines``
    (labels along a seam: the region's own four edges unless given) counts however thin it is: a step that matches
    the seam names it, and a person sees a strip that long."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    region = pic.labels[y0:y1:COUNT_STEP, x0:x1:COUNT_STEP]
    m = max(1, round(SLIVER * min(region.shape)))
    n = len(pic.names)
    inside, inner, area = _count(region, n), _count(region[m:-m, m:-m], n), region.size
    cut = _cut(pic, (x0, y0, x1, y1))
    if lines is None:
        own = pic.labels[y0:y1, x0:x1]
        lines = [own[0], own[-1], own[:, 0], own[:, -1]]
    runs = _along_edges(pic.names, lines)
    cover: dict[str, float] = {}
    whole: dict[str, list[bool]] = {}  # per element of that name that counts
    for k, name in enumerate(pic.names):
        if inner[k] < 0.002 * area and k not in runs:
            continue
        cover[name] = cover.get(name, 0.0) + inside[k] / area
        whole.setdefault(name, []).append(k not in cut)
    seen = {pic.names[k] for k in runs}
    ranked = sorted((name for name in cover if cover[name] >= 0.005 or name in seen), key=lambda name: -cover[name])
    return [_counted(name, whole[name]) for name in ranked]


def along(pic: Picture, lines: Sequence[np.ndarray]) -> list[str]:
    """What runs along ``lines`` (labels along a seam, such as the border of a hole seen from outside): each name
    that covers ``EDGE_RUN`` of one of them, with how many of it ("two rocks"), largest share first."""
    found = _along_edges(pic.names, lines)
    share: dict[str, int] = {}
    count: dict[str, int] = {}
    for k in sorted(found):
        name = pic.names[k]
        share[name] = share.get(name, 0) + sum(int((line == k).sum()) for line in lines)
        count[name] = count.get(name, 0) + 1
    return [_counted(name, [True] * count[name]) for name in sorted(share, key=lambda name: -share[name])]


def _along_edges(names: list[str], lines: Sequence[np.ndarray]) -> set[int]:
    """The elements on ``lines`` whose name runs along ``EDGE_RUN`` of one of them (two fish of 6% each do)."""
    found: set[int] = set()
    for line in lines:
        share: dict[str, int] = {}
        labels, counts = np.unique(line, return_counts=True)
        for k, count in zip(labels.tolist(), counts.tolist(), strict=True):
            share[names[k]] = share.get(names[k], 0) + count
        found |= {k for k in labels.tolist() if share[names[k]] >= EDGE_RUN * len(line)}
    return found


def _cut(pic: Picture, box: tuple[int, int, int, int]) -> set[int]:
    """The elements the region ``box`` shows only in part: those that go on just past one of its edges (the sampled
    grid of ``counts``, off by a few pixels, called a fish with its tail cut whole). At the picture's own edge, those
    that reach it are cut off, but a background (the sky, the water) fills the picture and is shown whole."""
    x0, y0, x1, y1 = box
    labels = pic.labels
    h, w = labels.shape
    lines = [
        labels[y0 - 1, x0:x1] if y0 > 0 else labels[0, x0:x1],
        labels[y1, x0:x1] if y1 < h else labels[h - 1, x0:x1],
        labels[y0:y1, x0 - 1] if x0 > 0 else labels[y0:y1, 0],
        labels[y0:y1, x1] if x1 < w else labels[y0:y1, w - 1],
    ]
    outer = [y0 <= 0, y1 >= h, x0 <= 0, x1 >= w]
    cut: set[int] = set()
    for line, at_edge in zip(lines, outer, strict=True):
        found = set(np.unique(line).tolist())
        cut |= found - pic.grounds if at_edge else found
    return cut


def _counted(name: str, whole: list[bool]) -> str:
    """``name`` for as many elements as ``whole`` has: "a fish", "part of a fish", "two fish", "three clouds (one
    of them in part)". A name without an article (the sky, bubbles) is one thing however many notes it has."""
    article, _, noun = name.partition(" ")
    if len(whole) == 1 or article not in ("a", "an"):
        return name if any(whole) else _part(name)
    n, cut = len(whole), whole.count(False)
    head = f"{NUMBERS.get(n, str(n))} {plural(noun)}"
    if cut == 0:
        return head
    return f"{head} ({'all' if cut == n else NUMBERS.get(cut, str(cut))} of them in part)"


NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _count(labels: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` elements occurs in ``labels``."""
    return np.bincount(labels.ravel() + 1, minlength=n + 1)[1:]


def _part(name: str) -> str:
    for article in ("a ", "an ", "the "):
        if name.startswith(article):
            return "part of " + name
    return "part of the " + name
