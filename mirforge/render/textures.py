"""Procedural floor textures (wood, tiles, carpet, concrete): tileable sRGB images built with numpy, no files.

A texture depends only on (kind, variant), so each process builds it once (a few milliseconds); the backdrop's
random tile size, rotation and offset then place it on the floor. Tileable because all noise is filtered white
noise on a torus (one FFT per texture), and every pattern's period divides the image. 256 texels per repeat: at the
cameras' distances a texel covers about a pixel, so finer detail would only alias.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mirforge.render.asset_cache import cached
from mirforge.render.look import FLOORS, TEXTURE_VARIANTS

SIZE = 256

WOOD = ((176, 128, 82), (112, 74, 46), (204, 164, 112), (152, 140, 126), (150, 84, 56), (214, 186, 146))
TILES = (  # (tile, second tile of a checker or None, grout)
    ((226, 223, 216), None, (152, 149, 141)),
    ((232, 231, 226), (48, 49, 54), (120, 120, 118)),
    ((176, 98, 66), None, (196, 186, 170)),
    ((96, 106, 116), None, (62, 62, 62)),
    ((222, 212, 188), (150, 52, 48), (170, 162, 150)),
    ((206, 190, 158), None, (232, 226, 214)),
)
CARPET = ((122, 122, 128), (72, 88, 124), (182, 166, 140), (122, 48, 54), (78, 102, 72), (72, 72, 76))
CONCRETE = ((176, 173, 166), (112, 112, 110), (166, 156, 142), (140, 146, 152), (160, 160, 158), (152, 137, 126))


@cache
def floor_texture(kind: str, variant: int) -> np.ndarray:
    """SIZE x SIZE x 3 uint8 sRGB albedo of one repeat of the floor (read-only, shared)."""
    if kind not in FLOORS or kind == "studio" or not 0 <= variant < TEXTURE_VARIANTS:
        raise ValueError(f"no texture for floor {kind!r} variant {variant}")
    out = cached("floor-texture", f"{kind}/{variant}", lambda: {"image": _build(kind, variant)})["image"]
    out.flags.writeable = False
    return out


def _build(kind: str, variant: int) -> np.ndarray:
    rng = np.random.default_rng([FLOORS.index(kind), variant])
    image = {"wood": _wood, "tiles": _tiles, "carpet": _carpet, "concrete": _concrete}[kind](rng, variant)
    return np.clip(np.rint(image), 0, 255).astype(np.uint8)


@cache
def mean_albedo(kind: str, variant: int) -> np.ndarray:
    """Mean linear albedo of a texture (what a far, blurred floor averages to; the light a floor bounces)."""
    return srgb_to_linear(floor_texture(kind, variant)).reshape(-1, 3).mean(axis=0)


def srgb_to_linear(values: np.ndarray) -> np.ndarray:
    """Linear values (0..1, float64) of sRGB levels (0..255); an 8-bit image by lookup, not a power per texel."""
    if isinstance(values, np.ndarray) and values.dtype == np.uint8:
        return _LINEAR[values]
    return _decode(values)


def _decode(values) -> np.ndarray:
    c = np.asarray(values, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_LINEAR = _decode(np.arange(256))


# -- building blocks (lengths in texels) ---------------------------------------------------------------------------
_FY = np.fft.fftfreq(SIZE)[:, None]
_FX = np.fft.fftfreq(SIZE)[None, :]
_Y, _X = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)


def _noise(rng: np.random.Generator, *octaves: tuple[float, float, float]) -> np.ndarray:
    """A sum of periodic Gaussian-filtered noises from one white noise: each (amplitude, sigma x, sigma y) term has
    standard deviation ``amplitude``."""
    spectrum = np.fft.fft2(rng.standard_normal((SIZE, SIZE)))
    gain = np.zeros((SIZE, SIZE))
    for amplitude, sx, sy in octaves:
        g = np.exp(-2 * np.pi**2 * ((_FX * sx) ** 2 + (_FY * sy) ** 2))
        gain += amplitude * g / np.sqrt(np.mean(g * g))  # unit variance per term (Parseval)
    return np.fft.ifft2(spectrum * gain).real


def _lines(coord: np.ndarray, period: float, width: float) -> np.ndarray:
    """1 on lines ``width`` wide every ``period`` texels along ``coord``, edges softened over a texel; 0 elsewhere."""
    d = np.abs(((coord + period / 2) % period) - period / 2)
    return np.clip(width / 2 + 0.5 - d, 0.0, 1.0)


def _colorize(color: tuple[int, int, int], shade: np.ndarray) -> np.ndarray:
    return np.asarray(color, dtype=np.float64)[None, None, :] * shade[..., None]


# -- the four kinds -----------------------------------------------------------------------------------------------
def _wood(rng: np.random.Generator, variant: int) -> np.ndarray:
    planks = 8
    width = SIZE // planks
    row = (_Y // width).astype(int)
    tone = np.ones((planks, 2))
    cuts = np.zeros((planks, 2), int)
    for r in range(planks):  # one or two boards per row, each its own tone
        cuts[r, 0] = int(rng.integers(SIZE))
        cuts[r, 1] = (cuts[r, 0] + SIZE // 2 + int(rng.integers(-30, 30))) % SIZE if rng.random() < 0.5 else cuts[r, 0]
        tone[r] = 1.0 + 0.09 * rng.standard_normal(2)
    lo, hi = np.sort(cuts, axis=1)[row, 0], np.sort(cuts, axis=1)[row, 1]
    board = ((_X >= lo) & (_X < hi)).astype(int)
    shade = tone[row, board]
    joints = np.maximum(_lines(_X - cuts[row, 0], SIZE, 1.0), _lines(_X - cuts[row, 1], SIZE, 1.0))
    warp = _noise(rng, (7.0, 30.0, 5.0))
    rings = np.sin(2 * np.pi * (_Y + warp) / float(rng.uniform(4.5, 7.0)))
    shade *= 1.0 + 0.045 * rings + _noise(rng, (0.07, 24.0, 0.6), (0.03, 1.5, 1.5))
    shade *= 1.0 - 0.55 * np.maximum(_lines(_Y, width, 1.0), joints)
    return _colorize(WOOD[variant], shade)


def _tiles(rng: np.random.Generator, variant: int) -> np.ndarray:
    first, second, grout = TILES[variant]
    per_side = 4
    pitch = SIZE // per_side
    ty, tx = (_Y // pitch).astype(int), (_X // pitch).astype(int)
    base = _colorize(first, np.ones((SIZE, SIZE)))
    if second is not None:
        base[(tx + ty) % 2 == 1] = second
    jitter = 1.0 + 0.035 * rng.standard_normal((per_side, per_side))
    shade = jitter[ty, tx] * (1.0 + _noise(rng, (0.025, 1.0, 1.0), (0.02, 12.0, 12.0)))
    lines = np.maximum(_lines(_X, pitch, 2.5), _lines(_Y, pitch, 2.5))
    bevel = np.maximum(_lines(_X, pitch, 5.5), _lines(_Y, pitch, 5.5)) - lines  # a faint bevel next to the grout
    tile = base * (shade * (1.0 - 0.08 * bevel))[..., None]
    grout_rgb = _colorize(grout, 1.0 + _noise(rng, (0.05, 0.75, 0.75)))
    return tile * (1.0 - lines[..., None]) + grout_rgb * lines[..., None]


def _carpet(rng: np.random.Generator, variant: int) -> np.ndarray:
    shade = 1.0 + _noise(rng, (0.06, 0.5, 0.5), (0.05, 2.5, 2.5), (0.05, 20.0, 20.0))
    if variant % 2 == 1:  # a woven pattern of soft diamonds
        period = SIZE / 4
        u = np.abs(((_X + _Y) % period) - period / 2) + np.abs(((_X - _Y) % period) - period / 2)
        shade *= 1.0 - 0.07 * np.clip((u - period * 0.42) / 3.0, 0.0, 1.0)
    return _colorize(CARPET[variant], shade)


def _concrete(rng: np.random.Generator, variant: int) -> np.ndarray:
    shade = 1.0 + _noise(rng, (0.07, 35.0, 35.0), (0.045, 6.0, 6.0), (0.025, 0.6, 0.6))
    specks = rng.random((SIZE, SIZE)) < 0.012
    shade *= np.where(specks, 0.75, 1.0)
    joints = np.maximum(_lines(_X, SIZE, 1.5), _lines(_Y, SIZE, 1.5))  # saw-cut joints at the repeat's edges
    shade *= 1.0 - 0.4 * joints
    return _colorize(CONCRETE[variant], shade)
