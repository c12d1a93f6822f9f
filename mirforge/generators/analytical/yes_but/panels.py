"""The look of a yes_but instance: a drawing style per instance, and the pieces every panel shares.

A ``Style`` is drawn once per instance (so the YES and BUT panels of every pair share it): the wall and floor
colours, the typeface of the printed text, the colour of the YES and BUT badges and how heavy the outlines are.
None of it carries an answer.
"""

from __future__ import annotations

from dataclasses import dataclass

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
PAPER = (250, 250, 246)


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


def panel(size: int, style: Style, title: str, floor_y: int | None) -> Canvas:
    """A blank panel: the wall (a soft ramp), the floor or table from ``floor_y`` down, and the title badge."""
    cv = Canvas.blank(size, style.wall)
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


def edge(cv: Canvas, style: Style, pts) -> None:
    """An outline in the style's weight (nothing for a flat style)."""
    if style.outline:
        cv.outline(pts, shade(mix(style.wall, INK, 0.8), 1.0), style.outline)


def box_pts(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def sticker(cv: Canvas, cx: float, cy: float, r: float, color: RGB, points: int = 12) -> None:
    """A starburst sticker (a 'FRESH!' or 'SALE' flash)."""
    angles = np.linspace(0, 2 * np.pi, 2 * points, endpoint=False)
    radii = np.where(np.arange(2 * points) % 2 == 0, r, r * 0.78)
    cv.poly(np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1), color)
