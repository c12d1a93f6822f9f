"""Anti-aliased 2D painting for the drawn sequential tasks: sub-pixel shapes, gradients, soft shadows, textures.

Every function draws in place on an RGB ``uint8`` image (or returns a new one) and takes coordinates as floats:
shapes go through OpenCV's anti-aliased rasteriser with 4 fractional bits, so edges are smooth and positions are
not rounded to whole pixels. Textures take their own ``numpy.random.Generator`` so a picture is a pure function of
its seed.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from mirforge.render.canvas2d import fill_columns

RGB = tuple[int, int, int]
SHIFT = 4  # fractional bits of the coordinates handed to OpenCV
ONE = 1 << SHIFT


def _col(rgb: Sequence[float]) -> tuple[int, int, int]:
    return (int(round(rgb[0])), int(round(rgb[1])), int(round(rgb[2])))


def _pt(x: float, y: float) -> tuple[int, int]:
    return (int(round(x * ONE)), int(round(y * ONE)))


def a(word: str) -> str:
    """``word`` with its indefinite article ("a carrot", "an orange")."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def clamp(rgb: Sequence[float]) -> RGB:
    r, g, b = (int(np.clip(round(c), 0, 255)) for c in rgb)
    return (r, g, b)


def jitter(rng: np.random.Generator, rgb: Sequence[float], spread: int) -> RGB:
    """A shade of ``rgb``: every channel moved by up to ``spread``."""
    return clamp([c + int(rng.integers(-spread, spread + 1)) for c in rgb])


def mix(a: Sequence[float], b: Sequence[float], f: float) -> RGB:
    """``a`` blended towards ``b`` by ``f`` (0: a, 1: b)."""
    return clamp([(1 - f) * x + f * y for x, y in zip(a, b, strict=True)])


def shade(rgb: Sequence[float], f: float) -> RGB:
    """``rgb`` darkened (f < 1) or lightened towards white (f > 1)."""
    if f <= 1:
        return clamp([c * f for c in rgb])
    return mix(rgb, (255, 255, 255), min(1.0, f - 1))


def _pts(pts: Sequence[tuple[float, float]] | np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * ONE).astype(np.int32)


def poly(img: np.ndarray, pts: Sequence[tuple[float, float]] | np.ndarray, rgb: Sequence[float]) -> None:
    cv2.fillPoly(img, [_pts(pts)], _col(rgb), cv2.LINE_AA, shift=SHIFT)


def polyline(
    img: np.ndarray, pts: Sequence[tuple[float, float]], rgb: Sequence[float], width: int, closed: bool = False
) -> None:
    cv2.polylines(img, [_pts(pts)], closed, _col(rgb), max(1, int(width)), cv2.LINE_AA, shift=SHIFT)


def line(img: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], rgb: Sequence[float], width: int) -> None:
    cv2.line(img, _pt(*p0), _pt(*p1), _col(rgb), max(1, int(width)), cv2.LINE_AA, shift=SHIFT)


def circle(img: np.ndarray, c: tuple[float, float], r: float, rgb: Sequence[float], width: int = -1) -> None:
    cv2.circle(img, _pt(*c), max(1, int(round(r * ONE))), _col(rgb), width, cv2.LINE_AA, shift=SHIFT)


def ellipse(
    img: np.ndarray,
    c: tuple[float, float],
    axes: tuple[float, float],
    rgb: Sequence[float],
    angle: float = 0.0,
    start: float = 0.0,
    end: float = 360.0,
    width: int = -1,
) -> None:
    ax = (max(1, int(round(axes[0] * ONE))), max(1, int(round(axes[1] * ONE))))
    cv2.ellipse(img, _pt(*c), ax, angle, start, end, _col(rgb), width, cv2.LINE_AA, shift=SHIFT)


def rounded_rect(img: np.ndarray, box: Sequence[float], r: float, rgb: Sequence[float]) -> None:
    """A filled rectangle ``[x0, y0, x1, y1]`` with corners of radius ``r``."""
    x0, y0, x1, y1 = box
    r = max(0.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    centres = np.array([(x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r), (x0 + r, y0 + r)], np.float64)
    poly(img, (centres[:, None, :] + r * _CORNER).reshape(-1, 2), rgb)


# unit offsets of the four rounded corners (top right, bottom right, bottom left, top left), 7 points each
_CORNER = np.stack(
    [
        np.stack([np.cos(np.radians(a)), np.sin(np.radians(a))], axis=1)
        for a in (np.linspace(a0, a0 + 90, 7) for a0 in (-90, 0, 90, 180))
    ]
)


def gradient(h: int, w: int, top: Sequence[float], bottom: Sequence[float]) -> np.ndarray:
    """An ``h x w`` image fading from ``top`` to ``bottom``."""
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
    col = (1 - t) * np.array(top, np.float32) + t * np.array(bottom, np.float32)
    img = np.empty((h, w, 3), np.uint8)
    fill_columns(img, np.round(col[:, 0]).astype(np.uint8))
    return img


def smooth_noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Value noise in [-1, 1]: a ``cells x cells`` random grid smoothly resized to ``h x w``."""
    small = rng.uniform(-1, 1, size=(cells + 1, cells + 1)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).clip(-1, 1)


def texture(img: np.ndarray, box: Sequence[int], noise: np.ndarray, amount: float) -> None:
    """Modulate the brightness of ``img[box]`` by ``1 + amount * noise`` (noise sized like the box)."""
    x0, y0, x1, y1 = box
    region = img[y0:y1, x0:x1].astype(np.float32) * (1 + amount * noise[..., None])
    img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, h: int, w: int, base: Sequence[float]) -> np.ndarray:
    """A wooden surface: the base colour with long horizontal grain."""
    grain = cv2.resize(rng.uniform(-1, 1, size=(h // 3 + 2, 6)).astype(np.float32), (w, h), cv2.INTER_CUBIC)
    streak = np.sin(np.linspace(0, rng.uniform(20, 40), h, dtype=np.float32))[:, None] * 0.35
    f = 1 + 0.07 * np.clip(grain + streak, -1.5, 1.5)
    return np.clip(np.array(base, np.float32) * f[..., None], 0, 255).astype(np.uint8)


def glow(img: np.ndarray, c: tuple[float, float], r: float, rgb: Sequence[float], strength: float) -> None:
    """Add light of colour ``rgb`` falling off smoothly around ``c`` (radius ``r``)."""
    h, w = img.shape[:2]
    x0, x1 = max(0, int(c[0] - r)), min(w, int(c[0] + r) + 1)
    y0, y1 = max(0, int(c[1] - r)), min(h, int(c[1] + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    d2 = ((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (r * r)
    a = strength * np.clip(1 - d2, 0, 1) ** 2
    region = img[y0:y1, x0:x1].astype(np.float32)
    region += a[..., None] * (np.array(rgb, np.float32) - region * 0.5)
    img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)


def soft_shadow(img: np.ndarray, c: tuple[float, float], axes: tuple[float, float], strength: float) -> None:
    """Darken a blurred ellipse: the contact shadow of something standing at ``c``."""
    h, w = img.shape[:2]
    pad = int(max(axes) * 0.6) + 4
    x0, x1 = max(0, int(c[0] - axes[0] - pad)), min(w, int(c[0] + axes[0] + pad) + 1)
    y0, y1 = max(0, int(c[1] - axes[1] - pad)), min(h, int(c[1] + axes[1] + pad) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    ellipse_mask(mask, (c[0] - x0, c[1] - y0), axes)
    k = 2 * (pad // 2) + 1
    mask = cv2.GaussianBlur(mask.astype(np.float32) / 255, (k, k), 0)
    region = img[y0:y1, x0:x1].astype(np.float32) * (1 - strength * mask[..., None])
    img[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)


def ellipse_mask(mask: np.ndarray, c: tuple[float, float], axes: tuple[float, float]) -> None:
    """Fill an anti-aliased ellipse into a ``uint8`` mask (255 inside; OpenCV smooths edges on 8-bit images only)."""
    ax = (max(1, int(round(axes[0] * ONE))), max(1, int(round(axes[1] * ONE))))
    cv2.ellipse(mask, _pt(*c), ax, 0, 0, 360, 255, -1, cv2.LINE_AA, shift=SHIFT)


def blend(img: np.ndarray, mask: np.ndarray, rgb: Sequence[float], alpha: float, at: tuple[int, int] = (0, 0)) -> None:
    """Paint ``rgb`` through ``mask`` (float in [0, 1], or ``uint8`` in [0, 255]) with opacity ``alpha``; the mask
    covers ``img`` from ``at`` (x, y)."""
    x0, y0 = at
    h, w = mask.shape
    view = img[y0 : y0 + h, x0 : x0 + w]
    m = mask[: view.shape[0], : view.shape[1]]
    m = m.astype(np.float32) / 255 if m.dtype == np.uint8 else m
    a = (alpha * m)[..., None]
    out = view.astype(np.float32) * (1 - a) + np.array(rgb, np.float32) * a
    view[:] = np.clip(out, 0, 255).astype(np.uint8)


def poly_mask(pts: Sequence[tuple[float, float]]) -> tuple[np.ndarray, tuple[int, int]]:
    """An anti-aliased float mask of a polygon, cropped to its bounding box, and the box's corner (x, y)."""
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, y0 = max(0, int(min(xs)) - 1), max(0, int(min(ys)) - 1)
    w, h = int(max(xs)) + 2 - x0, int(max(ys)) + 2 - y0
    mask = np.zeros((h, w), np.uint8)
    arr = np.array([_pt(x - x0, y - y0) for x, y in pts], np.int32)
    cv2.fillPoly(mask, [arr], 255, cv2.LINE_AA, shift=SHIFT)
    return mask.astype(np.float32) / 255, (x0, y0)


def differs(img: np.ndarray, base: np.ndarray, threshold: int = 60) -> np.ndarray:
    """Where ``img`` differs from ``base`` (summed absolute channel difference above ``threshold``)."""
    d = cv2.absdiff(np.ascontiguousarray(img), np.ascontiguousarray(base)).astype(np.uint16)
    return d[..., 0] + d[..., 1] + d[..., 2] > threshold


def near(img: np.ndarray, rgb: Sequence[float], tol: int) -> np.ndarray:
    """Where every channel of ``img`` lies within ``tol`` of ``rgb``."""
    centre = np.array(rgb, np.int16)  # truncated, as before any comparison
    lo, hi = np.clip(centre - tol, 0, 255), np.clip(centre + tol, 0, 255)
    return cv2.inRange(np.ascontiguousarray(img), lo.astype(np.float64), hi.astype(np.float64)) > 0
