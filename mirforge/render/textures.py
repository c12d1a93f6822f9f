"""Procedural floor textures (wood, tiles, carpet, concrete): tileable sRGB images built with numpy, no files.

A texture depends only on (kind, variant), so each process builds it once; the backdrop's random tile size,
rotation and offset then place it on the floor. Tileable because all noise is filtered white noise on a torus
(FFT), and every pattern's period divides the image.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mirforge.render.look import FLOORS, TEXTURE_VARIANTS

SIZE = 512

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
    rng = np.random.default_rng([FLOORS.index(kind), variant])
    image = {"wood": _wood, "tiles": _tiles, "carpet": _carpet, "concrete": _concrete}[kind](rng, variant)
    out = np.clip(np.rint(image), 0, 255).astype(np.uint8)
    out.flags.writeable = False
    return out


def mean_albedo(kind: str, variant: int) -> np.ndarray:
    """Mean linear albedo of a texture (what a far, blurred floor averages to; the light a floor bounces)."""
    return _mean_linear(kind, variant)


@cache
def _mean_linear(kind: str, variant: int) -> np.ndarray:
    return srgb_to_linear(floor_texture(kind, variant)).reshape(-1, 3).mean(axis=0)


def srgb_to_linear(values: np.ndarray) -> np.ndarray:
    c = np.asarray(values, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


# -- building blocks ----------------------------------------------------------------------------------------------
def _noise(rng: np.random.Generator, sigma_x: float, sigma_y: float | None = None) -> np.ndarray:
    """Periodic Gaussian-filtered white noise with unit standard deviation (sigmas in pixels)."""
    sigma_y = sigma_x if sigma_y is None else sigma_y
    white = rng.standard_normal((SIZE, SIZE))
    fy = np.fft.fftfreq(SIZE)[:, None]
    fx = np.fft.rfftfreq(SIZE)[None, :]
    gain = np.exp(-2 * np.pi**2 * ((fx * sigma_x) ** 2 + (fy * sigma_y) ** 2))
    out = np.fft.irfft2(np.fft.rfft2(white) * gain, s=(SIZE, SIZE))
    return (out - out.mean()) / (out.std() + 1e-12)


def _colorize(color: tuple[int, int, int], shade: np.ndarray) -> np.ndarray:
    return np.asarray(color, dtype=np.float64)[None, None, :] * shade[..., None]


def _lines(coord: np.ndarray, period: float, width: float) -> np.ndarray:
    """1 on thin lines every ``period`` pixels along ``coord``, softened over a pixel; 0 elsewhere."""
    d = np.abs(((coord + period / 2) % period) - period / 2)
    return np.clip(width / 2 + 0.5 - d, 0.0, 1.0)


# -- the four kinds -----------------------------------------------------------------------------------------------
def _wood(rng: np.random.Generator, variant: int) -> np.ndarray:
    planks = 8
    width = SIZE // planks
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    row = (y // width).astype(int)
    shade = np.ones((SIZE, SIZE))
    joints = np.zeros((SIZE, SIZE))
    for r in range(planks):
        cut = int(rng.integers(SIZE))
        halves = [cut, (cut + SIZE // 2 + int(rng.integers(-60, 60))) % SIZE] if rng.random() < 0.5 else [cut]
        seg = np.searchsorted(np.sort(halves), np.arange(SIZE), side="right") % len(halves)
        tones = 1.0 + 0.09 * rng.standard_normal(len(halves))
        band = row == r
        shade[band] = tones[np.broadcast_to(seg, (SIZE, SIZE))[band]]
        for c in halves:
            joints[band] = np.maximum(joints[band], _lines(x[band] - c, SIZE, 2.0))
    warp = 14.0 * _noise(rng, 60.0, 10.0)
    rings = np.sin(2 * np.pi * (y + warp) / float(rng.uniform(9, 14)))
    grain = _noise(rng, 48.0, 1.2)
    shade *= 1.0 + 0.045 * rings + 0.07 * grain + 0.03 * _noise(rng, 3.0)
    gaps = np.maximum(_lines(y, width, 2.0), joints)
    shade *= 1.0 - 0.55 * gaps
    return _colorize(WOOD[variant], shade)


def _tiles(rng: np.random.Generator, variant: int) -> np.ndarray:
    first, second, grout = TILES[variant]
    per_side = 4
    pitch = SIZE // per_side
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    ty, tx = (y // pitch).astype(int), (x // pitch).astype(int)
    checker = (tx + ty) % 2 == 1
    base = _colorize(first, np.ones((SIZE, SIZE)))
    if second is not None:
        base[checker] = second
    jitter = 1.0 + 0.035 * rng.standard_normal((per_side, per_side))
    shade = jitter[ty, tx] * (1.0 + 0.025 * _noise(rng, 2.0) + 0.02 * _noise(rng, 24.0))
    lines = np.maximum(_lines(x, pitch, 5.0), _lines(y, pitch, 5.0))
    edge = np.maximum(_lines(x, pitch, 11.0), _lines(y, pitch, 11.0))  # a faint bevel next to the grout
    tile = base * (shade * (1.0 - 0.08 * (edge - lines)))[..., None]
    grout_rgb = _colorize(grout, 1.0 + 0.05 * _noise(rng, 1.5))
    return tile * (1.0 - lines[..., None]) + grout_rgb * lines[..., None]


def _carpet(rng: np.random.Generator, variant: int) -> np.ndarray:
    shade = 1.0 + 0.09 * _noise(rng, 0.7) + 0.05 * _noise(rng, 5.0) + 0.05 * _noise(rng, 40.0)
    if variant % 2 == 1:  # a woven pattern of soft diamonds
        y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
        period = SIZE / 4
        u = np.abs(((x + y) % period) - period / 2) + np.abs(((x - y) % period) - period / 2)
        shade *= 1.0 - 0.07 * np.clip((u - period * 0.42) / 6.0, 0.0, 1.0)
    return _colorize(CARPET[variant], shade)


def _concrete(rng: np.random.Generator, variant: int) -> np.ndarray:
    shade = 1.0 + 0.07 * _noise(rng, 70.0) + 0.045 * _noise(rng, 12.0) + 0.035 * _noise(rng, 1.0)
    specks = (rng.random((SIZE, SIZE)) < 0.004).astype(np.float64)
    specks = np.fft.irfft2(np.fft.rfft2(specks) * _gauss_gain(0.8), s=(SIZE, SIZE))
    shade *= 1.0 - 0.5 * np.clip(specks * 6.0, 0.0, 1.0)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    joints = np.maximum(_lines(x, SIZE, 3.0), _lines(y, SIZE, 3.0))  # saw-cut joints at the repeat's edges
    shade *= 1.0 - 0.4 * joints
    return _colorize(CONCRETE[variant], shade)


def _gauss_gain(sigma: float) -> np.ndarray:
    fy = np.fft.fftfreq(SIZE)[:, None]
    fx = np.fft.rfftfreq(SIZE)[None, :]
    return np.exp(-2 * np.pi**2 * sigma**2 * (fx**2 + fy**2))
