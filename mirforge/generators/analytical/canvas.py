"""2D drawing shared by the analytical picture tasks (yes_but, scale_blur): an RGB image and an id mask drawn
together, anti-aliased shapes, and text in real typefaces.

Shapes go into the image with OpenCV's anti-aliased lines and into the mask without anti-aliasing, so the mask
holds exact ids for measuring. Text is drawn with Pillow in the DejaVu faces that matplotlib (a core dependency)
ships, so labels, signs and displays are set in several real fonts rather than OpenCV's stroke fonts.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mirforge.render.canvas2d import fill_columns, solid

FACES = {
    "sans": "DejaVuSans-Bold.ttf",
    "sans-light": "DejaVuSans.ttf",
    "serif": "DejaVuSerif-Bold.ttf",
    "serif-light": "DejaVuSerif.ttf",
    "mono": "DejaVuSansMono-Bold.ttf",
    "oblique": "DejaVuSans-BoldOblique.ttf",
}
RGB = tuple[int, int, int]


@lru_cache(maxsize=1)
def _font_dir() -> Path:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("matplotlib is not installed: its fonts draw the text of the analytical tasks")
    return Path(spec.submodule_search_locations[0]) / "mpl-data" / "fonts" / "ttf"


@lru_cache(maxsize=256)
def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(_font_dir() / FACES[face]), size)


@dataclass
class Canvas:
    """An RGB image and its id mask (0: nothing measured)."""

    img: np.ndarray
    mask: np.ndarray
    texts: list[tuple[str, list[int]]] = field(default_factory=list)  # every text drawn, with its box

    @classmethod
    def blank(cls, size: int, color: RGB) -> Canvas:
        return cls(solid(size, color), np.zeros((size, size), np.int32))

    @property
    def size(self) -> int:
        return self.img.shape[0]

    # -- shapes (mid: the mask id, 0 to leave the mask alone) ---------------------------------------------------
    def poly(self, pts, color: RGB, mid: int = 0) -> None:
        arr = np.round(np.asarray(pts, dtype=float)).astype(np.int32)
        cv2.fillPoly(self.img, [arr], color, lineType=cv2.LINE_AA)
        if mid:
            cv2.fillPoly(self.mask, [arr], mid)

    def rect(self, x0: float, y0: float, x1: float, y1: float, color: RGB, mid: int = 0) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], color, mid)

    def outline(self, pts, color: RGB, thickness: int = 2, closed: bool = True) -> None:
        arr = np.round(np.asarray(pts, dtype=float)).astype(np.int32)
        cv2.polylines(self.img, [arr], closed, color, thickness, lineType=cv2.LINE_AA)

    def frame(self, x0: float, y0: float, x1: float, y1: float, color: RGB, thickness: int = 2) -> None:
        self.outline([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], color, thickness)

    def circle(self, cx: float, cy: float, r: float, color: RGB, mid: int = 0) -> None:
        c, rr = (round(cx), round(cy)), max(1, round(r))
        cv2.circle(self.img, c, rr, color, -1, lineType=cv2.LINE_AA)
        if mid:
            cv2.circle(self.mask, c, rr, mid, -1)

    def ring(self, cx: float, cy: float, r: float, color: RGB, thickness: int) -> None:
        cv2.circle(self.img, (round(cx), round(cy)), max(1, round(r)), color, thickness, lineType=cv2.LINE_AA)

    def ellipse(self, cx: float, cy: float, ax: float, ay: float, color: RGB, mid: int = 0, angle: float = 0) -> None:
        c, axes = (round(cx), round(cy)), (max(1, round(ax)), max(1, round(ay)))
        cv2.ellipse(self.img, c, axes, angle, 0, 360, color, -1, lineType=cv2.LINE_AA)
        if mid:
            cv2.ellipse(self.mask, c, axes, angle, 0, 360, mid, -1)

    def line(self, p0, p1, color: RGB, thickness: int = 2, mid: int = 0) -> None:
        a, b = (round(p0[0]), round(p0[1])), (round(p1[0]), round(p1[1]))
        cv2.line(self.img, a, b, color, thickness, lineType=cv2.LINE_AA)
        if mid:
            cv2.line(self.mask, a, b, mid, thickness)

    def gradient(self, y0: int, y1: int, top: RGB, bottom: RGB) -> None:
        """A vertical colour ramp over rows y0..y1 (a sky, a lit wall)."""
        t = np.linspace(0.0, 1.0, max(1, y1 - y0))[:, None]
        ramp = (np.asarray(top, float) * (1 - t) + np.asarray(bottom, float) * t).astype(np.uint8)
        fill_columns(self.img[y0:y1], ramp)

    # -- text ---------------------------------------------------------------------------------------------------
    def text(
        self, s: str, x: float, y: float, size: int, color: RGB, face: str = "sans", anchor: str = "mm", fit: int = 0
    ) -> list:
        """Draw ``s`` anchored at (x, y) (Pillow anchors: "mm" centre, "lm" left-middle, ...); its box. With ``fit``,
        the size shrinks until the text is at most that many pixels wide."""
        while fit and size > 8 and self.text_width(s, size, face) > fit:
            size -= 1
        f = font(face, size)
        box = [int(v) for v in f.getbbox(s, anchor=anchor)]
        box = [box[0] + int(x), box[1] + int(y), box[2] + int(x) + 1, box[3] + int(y) + 1]
        # draw into a crop around the text only: converting the whole image for each label is the slow part
        x0, y0 = max(0, box[0] - 2), max(0, box[1] - 2)
        x1, y1 = min(self.size, box[2] + 2), min(self.size, box[3] + 2)
        if x1 > x0 and y1 > y0:
            pil = Image.fromarray(self.img[y0:y1, x0:x1])
            ImageDraw.Draw(pil).text((x - x0, y - y0), s, fill=tuple(color), font=f, anchor=anchor)
            self.img[y0:y1, x0:x1] = np.asarray(pil)
        self.texts.append((s, box))
        return box

    def text_width(self, s: str, size: int, face: str = "sans") -> int:
        x0, _, x1, _ = font(face, size).getbbox(s)
        return int(x1 - x0)


def mask_box(mask: np.ndarray, mid: int) -> list[int] | None:
    hit = mask == mid
    rows = np.flatnonzero(hit.any(axis=1))
    if len(rows) == 0:
        return None
    cols = np.flatnonzero(hit[rows[0] : rows[-1] + 1].any(axis=0))
    return [int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1]


def shade(rgb: tuple[int, ...], f: float) -> RGB:
    r, g, b = (int(np.clip(c * f, 0, 255)) for c in rgb)
    return r, g, b


def mix(a: tuple[int, ...], b: tuple[int, ...], t: float) -> RGB:
    r, g, bl = (int(round(x * (1 - t) + y * t)) for x, y in zip(a, b, strict=True))
    return r, g, bl


def jitter(rng: np.random.Generator, rgb: tuple[int, ...], by: int) -> RGB:
    r, g, b = (int(np.clip(c + int(rng.integers(-by, by + 1)), 0, 255)) for c in rgb)
    return r, g, b
