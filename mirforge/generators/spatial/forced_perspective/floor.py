"""A patterned floor reaching the horizon and a sky above it, painted behind the objects of a level camera's view.

The objects are rendered on an empty background (no ground); every background pixel below the horizon is then the
floor point its ray meets (a level camera at height ``camera_height`` above an endless plane: the row ``y`` below
the horizon sees the floor ``f * h / (y - c)`` ahead), drawn with a procedural pattern (wooden boards, tiles, paving
stones, a foam play mat) whose detail fades to its mean colour where a pixel covers more than a fraction of one
repeat (no moire near the horizon), with soft contact shadows under the objects. Above the horizon is sky. The
boundary is the horizon, at the camera's height, which is what makes heights readable from a single photo: the
part of an object below the horizon is exactly as tall as the camera is high.

The sky is bright (every channel at least ``SKY_MIN``) and every floor darker (no channel above ``FLOOR_MAX``), so
the horizon can be measured back from the pixels (:func:`horizon_row`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mirforge.render.scene3d import Object3D

PATTERNS = ("boards", "tiles", "paving", "mat")
SKY_MIN = 205  # every sky pixel has all channels at least this bright
FLOOR_MAX = 192  # no floor pixel has a channel brighter than this
SKY_TOP, SKY_HORIZON = np.array([208.0, 224.0, 244.0]), np.array([230.0, 236.0, 246.0])
SHADOW = 0.45  # darkening right at an object's foot
SHADOW_END = 20.0  # reaches: beyond, SHADOW * exp(-20) is under half a float32 step below 1
FADE = 0.3  # pattern detail fades out where one pixel spans this share of a repeat

# base colours (sRGB) per pattern: the floor's two or three materials
PALETTES: dict[str, tuple[tuple[tuple[int, int, int], ...], ...]] = {
    "boards": (((150, 102, 62), (170, 120, 76), (136, 92, 56)), ((176, 140, 98), (160, 126, 86), (186, 152, 108))),
    "tiles": (((186, 176, 160), (120, 112, 104)), ((176, 110, 80), (150, 140, 128)), ((150, 160, 164), (96, 100, 104))),
    "paving": (((150, 148, 144), (128, 126, 122), (84, 82, 80)), ((160, 140, 120), (140, 120, 104), (90, 80, 72))),
    "mat": (((70, 120, 170), (190, 80, 70)), ((80, 150, 90), (190, 160, 60)), ((150, 90, 160), (70, 140, 150))),
}


@dataclass(frozen=True)
class Floor:
    pattern: str
    palette: int
    repeat: float  # world units (the image's own) per repeat of the pattern
    offset: tuple[float, float]  # of the pattern, in repeats

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"floor pattern {self.pattern!r}; expected one of {PATTERNS}")


def draw_floor(rng: np.random.Generator, pattern: str, camera_height: float) -> Floor:
    """A floor of ``pattern`` whose repeat is drawn relative to the camera height, so that counting tiles tells
    nothing about how high the camera stood."""
    return Floor(
        pattern,
        int(rng.integers(len(PALETTES[pattern]))),
        float(camera_height * rng.uniform(0.6, 2.0)),
        (float(rng.uniform(0, 1)), float(rng.uniform(0, 1))),
    )


def paint(
    rgb: np.ndarray,
    ids: np.ndarray,
    floor: Floor,
    objects: tuple[Object3D, ...],
    camera: tuple[float, float, float],
    focal: float,
) -> np.ndarray:
    """``rgb`` with sky and floor where ``ids`` is 0. ``camera`` is the eye (x, y, height) of a level camera looking
    along +y; ``focal`` its focal length in pixels."""
    size = rgb.shape[0]
    c = size / 2
    horizon = int(np.ceil(c - 0.5))  # the first row whose centre lies below the horizon
    out = np.empty_like(rgb)  # the backdrop everywhere, then the objects' pixels copied over it
    t = ((np.arange(horizon, dtype=np.float32) + 0.5) / c)[:, None, None]
    out[:horizon] = np.round(SKY_TOP * (1 - t) + SKY_HORIZON * t).astype(np.uint8)

    x0, y0, h = camera
    depth = (focal * h / (np.arange(horizon, size, dtype=np.float32) + 0.5 - c))[:, None]
    xs = (np.arange(size, dtype=np.float32) + 0.5 - c)[None, :] * depth / focal + np.float32(x0)
    ys = np.broadcast_to(depth + np.float32(y0), xs.shape)
    detail = np.clip(1 - depth**2 / (focal * h) / (FADE * floor.repeat), 0, 1)[..., None]  # one row's floor depth
    pick, colours, mean = _pattern(floor, xs / floor.repeat + floor.offset[0], ys / floor.repeat + floor.offset[1])
    # each row's colours with their detail faded toward the mean, then looked up per pixel
    faded = np.minimum(mean + (colours[None] - mean) * detail, FLOOR_MAX)  # rows x colours x 3
    rows = np.arange(len(pick))[:, None] * len(colours)
    colour = np.take(faded.reshape(-1, 3), pick + rows, axis=0)
    shade = np.ones(xs.shape, np.float32)
    first, last = len(shade), 0  # the rows some shadow reaches
    for o in objects:
        reach = 0.12 * max(o.size[0], o.size[1]) + 0.02 * o.size[2]
        dy = np.maximum(np.abs(ys[:, :1] - o.position[1]) - o.size[1] / 2, 0)  # one value a row
        # rows more than SHADOW_END reaches away get a factor that rounds to exactly 1 in float32: skipped
        near = np.flatnonzero(dy[:, 0] < SHADOW_END * reach)  # contiguous: ys is monotonic down the image
        if len(near):
            band = slice(near[0], near[-1] + 1)
            dx = np.maximum(np.abs(xs[band] - o.position[0]) - o.size[0] / 2, 0)
            shade[band] *= 1 - SHADOW * np.exp(-(dx + dy[band]) / reach)
            first, last = min(first, band.start), max(last, band.stop)
    colour[first:last] *= shade[first:last, :, None]
    out[horizon:] = colour + 0.5  # truncated to uint8 on assignment: rounded
    shown = np.flatnonzero(ids)  # a few objects' pixels: indexed, where a masked copy would visit every pixel
    out.reshape(-1, 3)[shown] = rgb.reshape(-1, 3)[shown]
    return out


def _frac(x: np.ndarray) -> np.ndarray:
    return x - np.floor(x)


def _pattern(floor: Floor, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pattern at pattern coordinates (u across, v ahead; one repeat per unit): which colour each point takes
    (an index), the colours, and their mean."""
    pal = np.array(PALETTES[floor.pattern][floor.palette], dtype=np.float32)
    if floor.pattern == "boards":  # boards three to a repeat, running away from the camera, ends staggered
        board = np.floor(u * 3)
        along = v / 1.5 + 0.37 * board
        pick = (_hash(board, np.floor(along)) * len(pal)).astype(np.intp)
        seam = (np.abs(_frac(u * 3) - 0.5) > 0.47) | (np.abs(_frac(along) - 0.5) > 0.49)
        return pick + len(pal) * seam, np.concatenate([pal, pal * np.float32(0.7)]), pal.mean(axis=0) * 0.97
    if floor.pattern == "tiles":  # square tiles in a checker, thin grout
        checker = _frac((np.floor(u) + np.floor(v)) / 2) > 0.25
        grout = (np.abs(_frac(u) - 0.5) > 0.47) | (np.abs(_frac(v) - 0.5) > 0.47)
        colours = np.stack([pal[0], pal[1], pal.min(axis=0) * 0.8])
        return np.where(grout, 2, checker.astype(np.intp)), colours, pal.mean(axis=0) * 0.95
    if floor.pattern == "paving":  # stones half a repeat long in running bond, dark joints
        row = np.floor(v * 2)
        shift = u + 0.5 * (_frac(row / 2) > 0.25)
        pick = (_hash(np.floor(shift), row) * 2).astype(np.intp)
        joint = (np.abs(_frac(shift) - 0.5) > 0.46) | (np.abs(_frac(v * 2) - 0.5) > 0.44)
        return np.where(joint, 2, pick), pal, pal[0] * 0.45 + pal[1] * 0.45 + pal[2] * 0.1
    # mat: large squares of two colours
    checker = _frac((np.floor(u) + np.floor(v)) / 2) > 0.25
    return checker.astype(np.intp), pal, pal.mean(axis=0)


def _hash(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A pseudo-random value in [0, 1) per integer cell (a, b), in integer arithmetic (the same on every machine)."""
    h = (a.astype(np.int64) * 73856093) ^ (b.astype(np.int64) * 19349663)
    return ((h * 2654435761) & 1023) / np.float32(1024)


def horizon_row(rgb: np.ndarray, ids: np.ndarray) -> int | None:
    """The first row (from the top) where the background stops being sky: the horizon, measured from the pixels.
    None when no row shows enough background to tell."""
    sky = (rgb[..., 0] >= SKY_MIN) & (rgb[..., 1] >= SKY_MIN) & (rgb[..., 2] >= SKY_MIN) & (ids == 0)
    background = (ids == 0).sum(axis=1)
    share = np.where(background >= 8, sky.sum(axis=1) / np.maximum(background, 1), np.nan)
    seen = np.nonzero(~np.isnan(share))[0]
    if len(seen) == 0 or share[seen[0]] < 0.5:
        return None
    below = seen[share[seen] < 0.5]
    return int(below[0]) if len(below) else None
