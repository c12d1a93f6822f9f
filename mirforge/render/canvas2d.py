"""A small 2D drawing kit (numpy + OpenCV) for flat scenes: a floor, flat shapes with soft shadows.

Colours are RGB. Shapes are drawn anti-aliased; their interiors keep the exact fill colour, so a colour range
around the fill finds them again after video compression. Nothing here draws random numbers: callers pass
every position and colour.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from mirforge.render.scene3d import PALETTE

FLOOR = (238, 234, 226)
LINE = (214, 209, 200)
SHADOW = (205, 200, 192)
# Colours far apart (Chebyshev >= 75 per channel) and far from the floor, so ranges of +-40 never overlap.
TRACK_COLORS = ("red", "green", "blue", "yellow", "purple", "cyan", "orange", "pink", "brown")
SHAPES_2D = ("circle", "square", "triangle", "diamond", "hexagon")


def shape_name(color: str, shape: str) -> str:
    return f"{color} {shape}"


def solid(size: int, color: tuple[int, int, int]) -> np.ndarray:
    """A ``size`` x ``size`` RGB image of one colour. Filled a row at a time: ``img[:] = color`` broadcasts one
    pixel's three bytes over the image, fifty times slower."""
    img = np.empty((size, size, 3), np.uint8)
    img[0] = color
    img[1:] = img[0]
    return img


def fill_columns(rows: np.ndarray, column: np.ndarray) -> None:
    """Set every column of ``rows`` (h x w x 3) to ``column`` (h x 3), in place, by copying the filled columns onto
    the next as many: broadcasting a 3-byte pixel along a row goes a channel at a time, ten times slower."""
    rows[:, :1] = column[:, None]  # nothing when the rows are empty
    done = 1
    while done < rows.shape[1]:
        n = min(done, rows.shape[1] - done)
        rows[:, done : done + n] = rows[:, :n]
        done += n


def floor(size: int, color: tuple[int, int, int] = FLOOR, grid: int = 0) -> np.ndarray:
    img = solid(size, color)
    if grid:
        for v in range(grid, size, grid):
            img[:, v] = LINE
            img[v, :] = LINE
    return img


def _polygon(shape: str, cx: float, cy: float, r: float) -> np.ndarray | None:
    if shape == "square":
        s = r * 0.9
        pts = [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    elif shape == "triangle":
        pts = [(cx + r * math.cos(math.radians(a)), cy - r * math.sin(math.radians(a))) for a in (90, 210, 330)]
        pts = [(x, y + r * 0.15) for x, y in pts]
    elif shape == "diamond":
        pts = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    elif shape == "hexagon":
        pts = [(cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a))) for a in range(0, 360, 60)]
    else:
        return None
    return np.array([[round(x * 16), round(y * 16)] for x, y in pts], np.int32)  # 4 fractional bits


def draw_shape(
    img: np.ndarray,
    shape: str,
    center: tuple[float, float],
    radius: float,
    color: tuple[int, int, int] | str,
    shadow: bool = True,
) -> None:
    """Draw a filled shape in place; ``color`` is an RGB triple or a PALETTE name."""
    rgb = PALETTE[color] if isinstance(color, str) else color
    cx, cy = center
    if shadow:
        _fill(img, shape, cx + radius * 0.18, cy + radius * 0.22, radius, SHADOW)
    _fill(img, shape, cx, cy, radius, rgb)


def _fill(img: np.ndarray, shape: str, cx: float, cy: float, r: float, rgb: tuple[int, int, int]) -> None:
    poly = _polygon(shape, cx, cy, r)
    col = tuple(int(c) for c in rgb)
    if poly is None:
        cv2.circle(img, (round(cx * 16), round(cy * 16)), round(r * 16), col, -1, cv2.LINE_AA, shift=4)
    else:
        cv2.fillPoly(img, [poly], col, cv2.LINE_AA, shift=4)


def rect(img: np.ndarray, box: tuple[float, float, float, float], color: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = (round(v) for v in box)
    img[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = color


def vertical_gradient(size: int, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> np.ndarray:
    t = np.linspace(0, 1, size)[:, None, None]
    col = (1 - t) * np.array(top, float) + t * np.array(bottom, float)
    return np.repeat(np.round(col).astype(np.uint8), size, axis=1)


TEXT = (70, 70, 70)
# The timecodes' own 5 x 7 pixel font, so that a stamped frame's bytes depend on no library's text rendering (OpenCV
# 5.1 changed how cv2.putText antialiases, and with it every stamped frame).
GLYPHS = {
    " ": ("00000",) * 7,
    ".": ("00000", "00000", "00000", "00000", "00000", "01100", "01100"),
    "=": ("00000", "00000", "11111", "00000", "11111", "00000", "00000"),
    "0": ("01110", "10001", "10011", "10101", "11001", "10001", "01110"),
    "1": ("00100", "01100", "00100", "00100", "00100", "00100", "01110"),
    "2": ("01110", "10001", "00001", "00010", "00100", "01000", "11111"),
    "3": ("11110", "00001", "00001", "01110", "00001", "00001", "11110"),
    "4": ("00010", "00110", "01010", "10010", "11111", "00010", "00010"),
    "5": ("11111", "10000", "11110", "00001", "00001", "10001", "01110"),
    "6": ("00110", "01000", "10000", "11110", "10001", "10001", "01110"),
    "7": ("11111", "00001", "00010", "00100", "01000", "01000", "01000"),
    "8": ("01110", "10001", "10001", "01110", "10001", "10001", "01110"),
    "9": ("01110", "10001", "10001", "01111", "00001", "00010", "01100"),
    "c": ("00000", "00000", "01110", "10000", "10000", "10001", "01110"),
    "i": ("00100", "00000", "01100", "00100", "00100", "00100", "01110"),
    "l": ("01100", "00100", "00100", "00100", "00100", "00100", "01110"),
    "p": ("00000", "00000", "11110", "10001", "11110", "10000", "10000"),
    "s": ("00000", "00000", "01110", "10000", "01110", "00001", "11110"),
    "t": ("01000", "01000", "11100", "01000", "01000", "01001", "00110"),
}
GLYPH_SCALE = 2  # screen pixels per font pixel
_GLYPH_MASKS = {
    ch: np.array([[bit == "1" for bit in row] for row in rows]).repeat(GLYPH_SCALE, 0).repeat(GLYPH_SCALE, 1)
    for ch, rows in GLYPHS.items()
}


def timecode(img: np.ndarray, text: str) -> None:
    """A small dark label in the bottom-left corner, as a camera would stamp it (:data:`GLYPHS`)."""
    if not text:
        return
    missing = sorted(set(text) - set(GLYPHS))
    if missing:
        raise ValueError(f"timecode {text!r}: no glyph for {', '.join(map(repr, missing))}; add them to GLYPHS")
    top, x = img.shape[0] - 16 - 7 * GLYPH_SCALE, 8
    for ch in text:
        mask = _GLYPH_MASKS[ch]
        region = img[top : top + mask.shape[0], x : x + mask.shape[1]]
        region[mask[: region.shape[0], : region.shape[1]]] = TEXT
        x += 6 * GLYPH_SCALE
