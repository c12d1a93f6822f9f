"""The look of a yes_but instance: a drawing style per instance, and the pieces every panel shares.

A ``Style`` is drawn once per instance (so the YES and BUT panels of every pair share it): the wall and floor
colours, the typeface of the printed text, the colour of the YES and BUT badges and how heavy the outlines are.
None of it carries an answer.

Every thing that stands in a panel (a package, a bottle, a receipt, a calendar, a scale, a vehicle, a label on its
package) has its outline drawn by ``edge``, which follows one rule: the outline is drawn in the style's weight, and
also in a flat style wherever the thing's colour lies within ``MIN_CONTRAST`` of a colour it is drawn on (the
wall's ramp and the floor, or what ``on`` names), so a white milk carton never melts into a cream wall.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np

from mirforge.generators.analytical.canvas import RGB, Canvas, jitter, mix, shade

THEMES = {  # wall top, wall bottom, floor or table
    "kitchen": ((236, 232, 220), (214, 206, 190), (184, 140, 96)),
    "cool": ((214, 226, 236), (190, 204, 218), (120, 124, 132)),
    "pastel": ((246, 226, 232), (232, 208, 216), (200, 170, 140)),
    "mint": ((220, 238, 226), (196, 222, 204), (150, 120, 90)),
    "evening": ((92, 96, 120), (62, 64, 84), (70, 58, 50)),
    "sand": ((240, 228, 200), (224, 206, 170), (140, 110, 80)),
}
FACES = ("sans", "serif", "mono", "oblique")
INK = (28, 28, 32)
LIGHT_INK = (236, 236, 240)  # the outline of a dark thing on a dark ground
PAPER = (250, 250, 246)
MIN_CONTRAST = 25.0  # CIE76 colour difference (Lab) below which a thing is outlined against what is behind it


@dataclass(frozen=True)
class Style:
    theme: str
    wall: RGB
    wall2: RGB
    floor: RGB
    face: str  # typeface of printed text (labels, signs, receipts)
    yes_badge: RGB
    but_badge: RGB
    outline: int  # outline thickness of drawn things (0: flat)

    @property
    def dark(self) -> bool:
        return self.theme == "evening"

    @property
    def ink(self) -> RGB:
        return (236, 236, 240) if self.dark else INK


def draw_style(rng: np.random.Generator) -> Style:
    theme = list(THEMES)[int(rng.integers(len(THEMES)))]
    top, bottom, floor = THEMES[theme]
    badges = [((46, 150, 80), (200, 60, 50)), ((40, 110, 200), (220, 120, 30)), ((30, 30, 30), (30, 30, 30))]
    yes_badge, but_badge = badges[int(rng.integers(len(badges)))]
    return Style(
        theme=theme,
        wall=jitter(rng, top, 8),
        wall2=jitter(rng, bottom, 8),
        floor=jitter(rng, floor, 12),
        face=FACES[int(rng.integers(len(FACES)))],
        yes_badge=yes_badge,
        but_badge=but_badge,
        outline=int(rng.integers(0, 3)),
    )


class Body(NamedTuple):
    """A thing ``edge`` outlined or left flat: its outline, its fills, their least contrast to what is behind."""

    pts: list[tuple[float, float]]
    fills: tuple[RGB, ...]
    contrast: float
    outlined: bool


@dataclass
class Panel(Canvas):
    """A panel's canvas, with every thing drawn through ``edge`` (so a test can check each stands out)."""

    bodies: list[Body] = field(default_factory=list)


def panel(size: int, style: Style, title: str, floor_y: int | None) -> Panel:
    """A blank panel: the wall (a soft ramp), the floor or table from ``floor_y`` down, and the title badge."""
    cv = Panel.blank(size, style.wall)
    cv.gradient(0, size, style.wall, style.wall2)
    if floor_y is not None:
        cv.gradient(floor_y, size, style.floor, shade(style.floor, 0.82))
        cv.line((0, floor_y), (size, floor_y), shade(style.floor, 0.7), 2)
    color = style.yes_badge if title.startswith("YES") else style.but_badge
    w = cv.text_width(title, 30) + 24
    cv.rect(12, 12, 12 + w, 56, color)
    cv.text(title, 12 + w / 2, 34, 30, (255, 255, 255))
    cv.frame(1, 1, size - 2, size - 2, (40, 40, 40), 3)
    return cv


@lru_cache(maxsize=4096)
def _lab(rgb: RGB) -> tuple[float, float, float]:
    px = np.asarray([[rgb]], np.float32) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_RGB2Lab)[0, 0]
    return float(lab[0]), float(lab[1]), float(lab[2])


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """How far apart two colours look: the CIE76 difference of their Lab coordinates (0: the same colour)."""
    la, lb = _lab(tuple(int(c) for c in a)), _lab(tuple(int(c) for c in b))
    return float(np.sqrt(sum((x - y) ** 2 for x, y in zip(la, lb, strict=True))))


def backdrop(style: Style) -> list[RGB]:
    """The colours ``panel`` paints behind things: the wall's ramp, the floor's ramp and the floor line. Every one
    counts wherever a thing stands, so a thing looks the same in every panel of the instance."""
    ramp = [mix(style.wall, style.wall2, t) for t in np.linspace(0, 1, 5)]
    floor = [mix(style.floor, shade(style.floor, 0.82), t) for t in np.linspace(0, 1, 3)]
    return [*ramp, *floor, shade(style.floor, 0.7)]


def edge(cv: Canvas, style: Style, pts, fill: RGB | list[RGB], on: list[RGB] | None = None) -> bool:
    """The outline ``pts`` of a thing filled with ``fill`` (or with each colour of a list: a box and its lid) that
    stands on the backdrop, or on the colours ``on``: drawn in the style's weight, and in any style where a fill
    lies within ``MIN_CONTRAST`` of a colour behind it, in the ink that stands out from both (dark around a pale
    thing, light around a dark one). Whether it was outlined."""
    fills = [tuple(fill)] if isinstance(fill[0], (int, np.integer)) else [tuple(f) for f in fill]
    behind = backdrop(style) if on is None else list(on)
    least = min(contrast(f, c) for f in fills for c in behind)
    if least < MIN_CONTRAST:  # the ink farthest from the fills and from the colours behind that are close to them
        near = [*fills, *(c for c in behind if min(contrast(f, c) for f in fills) < MIN_CONTRAST)]
        color = max((INK, LIGHT_INK), key=lambda ink: min(contrast(ink, c) for c in near))
        weight = max(2, style.outline)
    else:
        color, weight = mix(style.wall, INK, 0.8), style.outline
    if weight:
        cv.outline(pts, color, weight)
    if isinstance(cv, Panel):
        cv.bodies.append(Body([(float(x), float(y)) for x, y in pts], tuple(fills), least, bool(weight)))
    return bool(weight)


def ellipse_pts(cx: float, cy: float, ax: float, ay: float) -> list[tuple[int, int]]:
    """The outline of an ellipse as ``Canvas.ellipse`` fills it, as a polygon (for ``edge``)."""
    c, axes = (round(cx), round(cy)), (max(1, round(ax)), max(1, round(ay)))
    return [(int(x), int(y)) for x, y in cv2.ellipse2Poly(c, axes, 0, 0, 360, 4)]


def box_pts(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def sticker(cv: Canvas, cx: float, cy: float, r: float, color: RGB, points: int = 12) -> None:
    """A starburst sticker (a 'FRESH!' or 'SALE' flash)."""
    angles = np.linspace(0, 2 * np.pi, 2 * points, endpoint=False)
    radii = np.where(np.arange(2 * points) % 2 == 0, r, r * 0.78)
    cv.poly(np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1), color)
