"""The processes process_order films: each a family of looks, drawn at any moment ``t`` in [0, 1] and measured back.

A family draws its process in a room or a garden with anti-aliased shapes, gradients, textures and soft shadows
(:mod:`mirforge.generators.sequential.paint`), and carries the state in several cues at once, never a bare count:
a candle is shorter, has more wax drips and a wider pool of wax, and goes out at the end; slices of a vegetable
are cut, then brown in a pan, then move to a plate. The verifier reads one cue per family back from the decoded
frames (:meth:`Family.measure`: the candle's height, the share of the fence that is painted, ...), always in the
same direction over time (``rising``), with ``span`` its whole change from start to end, so a minimum gap between
frames can be stated as a share of the process.

Every look is drawn from the instance's rng and stored as a frozen dataclass of plain values; textures come from the
look's own ``seed``, so a frame is a pure function of (look, t).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import cv2
import numpy as np

from mirforge.generators.sequential import paint
from mirforge.generators.sequential.paint import RGB

SIZE = 448
WALLS = ((236, 232, 222), (226, 226, 230), (216, 227, 238), (222, 234, 220), (240, 224, 222), (236, 224, 200))
WOODS = ((176, 140, 104), (150, 106, 72), (198, 164, 124), (124, 88, 60), (164, 128, 96))
SKY = ((110, 165, 225), (190, 220, 245))
GRASS = ((96, 160, 70), (70, 130, 55))


def _pick(rng: np.random.Generator, names: dict[str, Any] | tuple[Any, ...]) -> Any:
    keys = list(names)
    return keys[int(rng.integers(len(keys)))]


# shares a caption names in words; any other share is given in per cent
FRACTIONS = {
    1 / 10: "a tenth",
    1 / 8: "an eighth",
    1 / 6: "a sixth",
    1 / 5: "a fifth",
    1 / 4: "a quarter",
    3 / 10: "three tenths",
    1 / 3: "a third",
    3 / 8: "three eighths",
    2 / 5: "two fifths",
    1 / 2: "half",
    3 / 5: "three fifths",
    5 / 8: "five eighths",
    2 / 3: "two thirds",
    7 / 10: "seven tenths",
    3 / 4: "three quarters",
    4 / 5: "four fifths",
    5 / 6: "five sixths",
    7 / 8: "seven eighths",
    9 / 10: "nine tenths",
}
ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"
)  # fmt: skip


def share_words(x: float) -> str:
    """A share in (0, 1) as a caption says it: "a quarter", "two thirds", or "about 45%" when it is no simple
    fraction. Two shares that differ by a whole per cent or more never read the same."""
    for value, words in FRACTIONS.items():
        if abs(x - value) < 0.002:
            return words
    return f"about {round(100 * x)}%"


def _way(x: float) -> str:
    """How far along a share ``x`` is: "halfway", "a third of the way", "about 56% of the way"."""
    words = share_words(x)
    return "halfway" if words == "half" else f"{words} of the way"


def _times(x: float, size: str, what: str) -> str:
    """How big a thing is beside ``what`` in the frame: "about half as tall as the pot", "about 2.4 times as wide as
    the plate". Ratios a tenth or more apart never read the same."""
    if round(x, 1) == 1:
        return f"about as {size} as {what}"
    if x > 1:
        return f"about {x:.1f} times as {size} as {what}"
    words = share_words(x)
    return f"{'' if words.startswith('about') else 'about '}{words} as {size} as {what}"


def _bare(words: str) -> str:
    """A share's words without their article, to follow 'the lower': "a quarter" -> "quarter"."""
    for article in ("a ", "an "):
        if words.startswith(article):
            return words[len(article) :]
    return words


def _far(a: RGB, b: RGB, d: int) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) > d


def _room(rng: np.random.Generator, table_y: int, wall: RGB, table: RGB, window: tuple[int, int] | None) -> np.ndarray:
    """A wall (lit from above) with an optional window at columns ``window``, a wooden table from ``table_y``."""
    img = paint.gradient(SIZE, SIZE, paint.shade(wall, 1.06), paint.shade(wall, 0.9))
    paint.texture(img, (0, 0, SIZE, table_y), paint.smooth_noise(rng, table_y, SIZE, 6), 0.02)
    if window is not None:
        x0, x1 = window
        y0, y1 = 40, min(table_y - 80, 200)
        img[y0 - 6 : y1 + 6, x0 - 6 : x1 + 6] = paint.shade(wall, 1.12)
        img[y0:y1, x0:x1] = paint.gradient(y1 - y0, x1 - x0, (150, 190, 235), (205, 225, 245))
        mid = (x0 + x1) // 2
        img[y0:y1, mid - 3 : mid + 3] = paint.shade(wall, 1.12)
        img[(y0 + y1) // 2 - 3 : (y0 + y1) // 2 + 3, x0:x1] = paint.shade(wall, 1.12)
        img[y1 + 6 : y1 + 12, x0 - 12 : x1 + 12] = paint.shade(wall, 0.8)
    img[table_y:] = paint.wood(rng, SIZE - table_y, SIZE, table)
    img[table_y : table_y + 4] = paint.shade(table, 1.15)
    img[table_y + 4 : table_y + 7] = paint.shade(table, 0.7)
    return img


def _garden(rng: np.random.Generator, ground_y: int) -> np.ndarray:
    """Sky over a hedge and a lawn that starts at ``ground_y``."""
    img = paint.gradient(SIZE, SIZE, paint.jitter(rng, SKY[0], 12), paint.jitter(rng, SKY[1], 8))
    for _ in range(int(rng.integers(2, 4))):
        cx, cy = float(rng.uniform(20, SIZE - 20)), float(rng.uniform(30, 110))
        for dx in (-28, 0, 26):
            paint.ellipse(img, (cx + dx, cy + (6 if dx else 0)), (30, 14 if dx else 20), (246, 247, 250))
    hedge = paint.jitter(rng, (60, 110, 60), 14)
    ys = ground_y - 60 + 14 * paint.smooth_noise(rng, 1, SIZE, 10)[0]
    pts = [(0.0, float(SIZE))] + [(float(x), float(ys[x])) for x in range(0, SIZE, 8)] + [(SIZE, float(ys[-1]))]
    pts.append((float(SIZE), float(SIZE)))
    paint.poly(img, pts, hedge)
    img[ground_y:] = paint.gradient(SIZE - ground_y, SIZE, paint.jitter(rng, GRASS[0], 10), GRASS[1])
    paint.texture(img, (0, ground_y - 70, SIZE, SIZE), paint.smooth_noise(rng, SIZE - ground_y + 70, SIZE, 30), 0.06)
    return img


@dataclass(frozen=True)
class Reading:
    """One frame's measurement: the cue's value and the box of the thing measured."""

    value: float
    box: list[int]


class Family:
    """A kind of process: how its looks are drawn, how a frame at moment ``t`` looks, and how to read ``t`` back."""

    name: ClassVar[str]
    process: ClassVar[str]  # what the video shows, for the question ("a candle burning down")
    subject: ClassVar[str]  # what the regions point at ("candle")
    cue: ClassVar[str]  # the measured cue, for the steps ("height of the candle")
    unit: ClassVar[str]  # its unit in the steps ("px", "%")
    rising: ClassVar[bool]  # does the cue grow over time
    runs: ClassVar[str] = ""  # how the readings run in time, where "from the smallest to the largest" would not do
    why: ClassVar[str]  # why the cue runs one way, for the summary

    def look(self, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def title(self, look: Any) -> str:
        """The process as the question names it, with this look's particulars ("a red candle burning down")."""
        return self.process

    def backdrop(self, look: Any) -> np.ndarray:
        raise NotImplementedError

    def draw(self, base: np.ndarray, look: Any, t: float) -> np.ndarray:
        raise NotImplementedError

    def measure(self, img: np.ndarray, base: np.ndarray, look: Any) -> Reading:
        raise NotImplementedError

    def span(self, look: Any) -> float:
        """How much the cue changes from the start to the end of the process."""
        raise NotImplementedError

    def state(self, look: Any, t: float) -> str:
        """What a frame at moment ``t`` shows, as a noun phrase for its caption."""
        raise NotImplementedError

    def reason(self, look: Any, times: list[float]) -> str:
        """Why the cue runs one way, for the summary, told of what the frames at ``times`` show."""
        return self.why

    def amount(self, value: float, look: Any) -> str:
        """The measured cue of one frame, in words, for the steps."""
        return f"{round(value)} {self.unit}"


# -- a candle burning down ----------------------------------------------------------------------------------------
CANDLES = {
    "white": (238, 232, 214),
    "red": (196, 44, 48),
    "blue": (64, 96, 196),
    "green": (64, 150, 92),
    "purple": (132, 72, 164),
    "yellow": (236, 196, 84),
    "pink": (232, 146, 176),
}


@dataclass(frozen=True)
class CandleLook:
    seed: int
    wall: RGB
    table: RGB
    table_y: int
    window: tuple[int, int] | None
    colour: str
    rgb: RGB
    cx: float
    width: float
    height: float  # the new candle's height above the holder
    holder: RGB
    holder_h: int
    drips: tuple[tuple[float, float, float], ...]  # (x offset as a share of the half width, start t, speed)

    @property
    def base_y(self) -> int:
        return self.table_y - self.holder_h


class Candle(Family):
    name = "candle"
    process = "a candle burning down"
    subject = "candle"
    cue = "height of the candle above its holder"
    unit = "px"
    rising = False
    why = "a burning candle only gets shorter, and the drips and the pool of its wax only grow"
    BURN = 0.78  # share of the candle that burns away
    DRIP_GAP = 14.0  # px between neighbouring drips' middles, at least

    def look(self, rng: np.random.Generator) -> CandleLook:
        wall = paint.jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 8)
        colour = _pick(rng, CANDLES)
        rgb = paint.jitter(rng, CANDLES[colour], 8)
        if not _far(rgb, wall, 45):
            colour, rgb = "red", paint.jitter(rng, CANDLES["red"], 8)
        table_y = int(rng.integers(360, 396))
        cx = float(rng.uniform(150, SIZE - 150))
        window = None
        if rng.random() < 0.6:
            x0 = int(rng.integers(20, 60)) if cx > SIZE / 2 else int(rng.integers(SIZE - 170, SIZE - 130))
            window = (x0, x0 + int(rng.integers(90, 111)))
        width = float(rng.uniform(46, 70))
        holder = paint.jitter(rng, ((190, 150, 70), (200, 200, 205), (70, 70, 80))[int(rng.integers(3))], 10)
        return CandleLook(
            seed=int(rng.integers(2**31)),
            wall=wall,
            table=paint.jitter(rng, WOODS[int(rng.integers(len(WOODS)))], 10),
            table_y=table_y,
            window=window,
            colour=colour,
            rgb=rgb,
            cx=cx,
            width=width,
            height=float(rng.uniform(205, min(255, table_y - 100))),
            holder=holder,
            holder_h=int(rng.integers(14, 26)),
            drips=self._drips(rng, width),
        )

    def _drips(self, rng: np.random.Generator, width: float) -> tuple[tuple[float, float, float], ...]:
        """3 to 5 drips as room allows (3 on a narrow candle, 4 on a wide one), each in its own slot across the
        candle's front, at least ``DRIP_GAP`` px apart, so every drip drawn is seen as one (drips drawn anywhere ran
        together two or three into one, and the caption counted each)."""
        half = width / 2 - 4  # a drip at offset dx runs down at cx + dx * half
        slots = int(1.7 * half // self.DRIP_GAP) + 1
        step = 1.7 / (slots - 1)
        room = (step * half - self.DRIP_GAP) / 2 / half  # how far a drip may stray from its slot, in dx
        chosen = sorted(int(k) for k in rng.choice(slots, min(int(rng.integers(3, 6)), slots), replace=False))
        return tuple(
            (
                -0.85 + k * step + float(rng.uniform(-room, room)),
                float(rng.uniform(0.03, 0.7)),
                float(rng.uniform(0.5, 1.2)),
            )
            for k in chosen
        )

    def title(self, look: CandleLook) -> str:
        return f"a {look.colour} candle burning down"

    def backdrop(self, look: CandleLook) -> np.ndarray:
        img = _room(np.random.default_rng(look.seed), look.table_y, look.wall, look.table, look.window)
        ty, cx = look.table_y, look.cx
        r = look.width / 2 + 34
        paint.soft_shadow(img, (cx + 10, ty + 2), (r + 6, 9), 0.35)
        paint.ellipse(img, (cx, ty - 2), (r, 9), paint.shade(look.holder, 0.75))
        paint.poly(
            img,
            [(cx - r, ty - 2), (cx - r + 10, look.base_y), (cx + r - 10, look.base_y), (cx + r, ty - 2)],
            look.holder,
        )
        paint.ellipse(img, (cx, look.base_y), (r - 10, 7), paint.shade(look.holder, 1.15))
        return img

    def draw(self, base: np.ndarray, look: CandleLook, t: float) -> np.ndarray:
        return self._draw(base, look, t, drips=True)

    def _draw(self, base: np.ndarray, look: CandleLook, t: float, drips: bool) -> np.ndarray:
        img = base.copy()
        cx, w, by = look.cx, look.width, look.base_y
        h = self._height(look, t)
        top = by - h
        if t < 1:
            paint.glow(img, (cx, top - 30), 120, (255, 200, 120), 0.3)
        # the pool of melted wax in the holder grows
        paint.ellipse(img, (cx, by + 1), (w / 2 + 6 + 22 * t, 4 + 3 * t), paint.shade(look.rgb, 1.05))
        # the body: a cylinder, darker at its edges
        x0, x1 = int(round(cx - w / 2)), int(round(cx + w / 2))
        cols = np.linspace(0, 1, x1 - x0, dtype=np.float32)
        f = 0.8 + 0.28 * np.sin(np.pi * np.clip(cols * 1.1, 0, 1))
        body = np.clip(np.array(look.rgb, np.float32)[None, :] * f[:, None], 0, 255).astype(np.uint8)
        y0 = int(round(top))
        img[y0:by, x0:x1] = body[None, :, :]
        paint.ellipse(img, (cx, by), (w / 2, 4), paint.shade(look.rgb, 0.85), start=0, end=180)
        # the top: a rim around a shallow pool of liquid wax
        paint.ellipse(img, (cx, top), (w / 2, w * 0.14), paint.shade(look.rgb, 1.12))
        paint.ellipse(img, (cx, top + 1), (w / 2 - 5, w * 0.1), paint.shade(look.rgb, 0.92))
        # drips run down the side from the top, more and longer as it burns: a pale bead of wax in a darker rim, so
        # each shows against every part of the shaded body (a plain pale drip vanished where the body is palest);
        # both shades stay within the candle's colour as measure reads it
        for dx, start, speed in look.drips:
            if t <= start or not drips:
                continue
            length = min(h * 0.85, 20 + speed * (t - start) * look.height * 0.8)
            x = cx + dx * (w / 2 - 4)
            paint.line(img, (x, top + 2), (x, top + length), paint.shade(look.rgb, 0.88), 8)
            paint.circle(img, (x, top + length), 5.2, paint.shade(look.rgb, 0.88))
            paint.line(img, (x, top + 2), (x, top + length), paint.shade(look.rgb, 1.16), 4)
            paint.circle(img, (x, top + length), 3.4, paint.shade(look.rgb, 1.16))
        # the wick and the flame, or a thread of smoke once it has gone out
        paint.line(img, (cx, top + 2), (cx + 1, top - 12), (40, 34, 30), 3)
        if t < 1:
            paint.ellipse(img, (cx, top - 28), (8, 18), (255, 168, 40))
            paint.ellipse(img, (cx, top - 24), (4.5, 11), (255, 236, 170))
            paint.ellipse(img, (cx, top - 14), (3, 4), (90, 110, 220))
        else:
            pts = [(cx + 1 + 7 * math.sin(k / 3.0), top - 14 - 9 * k) for k in range(9)]
            paint.polyline(img, pts, (150, 150, 155), 2)
        return img

    def measure(self, img: np.ndarray, base: np.ndarray, look: CandleLook) -> Reading:
        """Walk up from the holder while the rows of the candle's middle columns keep the candle's colour."""
        cx, w, by = look.cx, look.width, look.base_y
        band = img[:, int(cx - w * 0.3) : int(cx + w * 0.3)]
        ok = paint.near(band, look.rgb, 44).mean(axis=1) >= 0.6
        y = by - 6
        while y > 0 and ok[y]:
            y -= 1
        top = y + 1
        return Reading(float(by - top), [int(cx - w / 2), max(0, top - 48), int(cx + w / 2) + 1, by])

    def span(self, look: CandleLook) -> float:
        return self.BURN * look.height

    def state(self, look: CandleLook, t: float) -> str:
        if t == 0:
            return f"a tall {look.colour} candle, just lit, with no wax running down its side yet"
        if t >= 1:
            return f"a short stub of a {look.colour} candle that has gone out, a thread of smoke rising from its wick"
        # its height as draw burns it down, beside its width: the drips alone read the same in frames apart
        tall = _times(self._height(look, t) / look.width, "tall", "it is wide")
        drips = sum(1 for _, s, _ in look.drips if t > s)  # as draw runs them, each in its own slot
        if drips == 0:
            return (
                f"a lit {look.colour} candle {tall}, with no wax running down its side yet, wax pooling in the holder"
            )
        runs = "a drip" if drips == 1 else f"{drips} drips"
        return f"a lit {look.colour} candle {tall}, with {runs} of wax down its side and wax pooling in the holder"

    def _height(self, look: CandleLook, t: float) -> float:
        return look.height * (1 - self.BURN * t)

    def amount(self, value: float, look: CandleLook) -> str:
        return f"{round(value)} px tall"


# -- ice melting on a plate -------------------------------------------------------------------------------------
PLATES = {
    "slate": (70, 76, 88),
    "navy": (42, 62, 112),
    "terracotta": (168, 92, 62),
    "green": (52, 108, 80),
    "black": (38, 38, 44),
}
ICE_TOP = (232, 244, 252)
ICE_SIDE = (200, 226, 246)


@dataclass(frozen=True)
class IceLook:
    seed: int
    wall: RGB
    table: RGB
    table_y: int
    plate: str
    plate_rgb: RGB
    centre: tuple[float, float]
    axes: tuple[float, float]
    cubes: tuple[tuple[float, float], ...]  # cube centres (top face), pixels
    size: float  # a fresh cube's side


class Ice(Family):
    name = "ice"
    process = "ice cubes melting on a plate"
    subject = "ice"
    cue = "amount of ice left on the plate (the area it covers, in pixels)"
    unit = "px"
    rising = False
    why = "melting ice only shrinks, and the puddle of meltwater around it only spreads"
    LEFT = 0.06  # share of a cube's side left at the end
    SEEN = 50  # px of meltwater showing around a cube for a caption to mention it
    PUDDLE = 450  # px around every cube for the caption's 'sitting in a puddle'

    def look(self, rng: np.random.Generator) -> IceLook:
        table_y = int(rng.integers(150, 200))
        plate = _pick(rng, PLATES)
        cx, cy = float(rng.uniform(190, SIZE - 190)), float(rng.uniform(table_y + 135, SIZE - 95))
        axes = (float(rng.uniform(160, 180)), float(rng.uniform(78, 90)))
        n = int(rng.integers(2, 4))
        size = float(rng.uniform(74, 88)) if n == 3 else float(rng.uniform(90, 100))
        slots = [(-1.0, 0.0), (1.0, 0.0), (0.0, 0.0)] if n == 2 else [(-1.25, 0.1), (0.0, -0.25), (1.25, 0.1)]
        spread = size * (0.95 if n == 3 else 0.72)
        cubes = tuple(
            (cx + sx * spread + float(rng.uniform(-6, 6)), cy + sy * size * 0.6 + float(rng.uniform(-5, 5)))
            for sx, sy in slots[:n]
        )
        return IceLook(
            seed=int(rng.integers(2**31)),
            wall=paint.jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 8),
            table=paint.jitter(rng, WOODS[int(rng.integers(len(WOODS)))], 10),
            table_y=table_y,
            plate=plate,
            plate_rgb=paint.jitter(rng, PLATES[plate], 8),
            centre=(cx, cy),
            axes=axes,
            cubes=cubes,
            size=size,
        )

    def title(self, look: IceLook) -> str:
        return f"ice cubes melting on a {look.plate} plate"

    def backdrop(self, look: IceLook) -> np.ndarray:
        img = _room(np.random.default_rng(look.seed), look.table_y, look.wall, look.table, None)
        (cx, cy), (ax, ay) = look.centre, look.axes
        paint.soft_shadow(img, (cx + 8, cy + 12), (ax, ay), 0.35)
        paint.ellipse(img, (cx, cy), (ax, ay), paint.shade(look.plate_rgb, 1.18))
        paint.ellipse(img, (cx, cy + 3), (ax - 16, ay - 10), paint.shade(look.plate_rgb, 0.92))
        paint.ellipse(img, (cx, cy + 4), (ax - 22, ay - 14), look.plate_rgb)
        return img

    def draw(self, base: np.ndarray, look: IceLook, t: float) -> np.ndarray:
        return self._draw(base, look, t, puddle=True)

    def _draw(self, base: np.ndarray, look: IceLook, t: float, puddle: bool) -> np.ndarray:
        img = base.copy()
        s0 = look.size
        s = self._side(look, t)
        water = paint.mix(look.plate_rgb, (150, 185, 220), 0.35)
        # the puddle of meltwater around each cube
        (cx, cy), (ax, ay) = look.centre, look.axes
        if not puddle:
            self._cubes(img, look, s, t)
            return img
        x0, y0 = int(cx - ax), int(cy - ay)
        mask = np.zeros((int(2 * ay) + 1, int(2 * ax) + 1), np.uint8)
        for k, (x, y) in enumerate(look.cubes):
            r = s0 * (0.3 + 0.75 * t) * (1 + 0.08 * k)
            paint.ellipse_mask(mask, (x - x0, y + s * 0.25 - y0), (r, r * 0.5))
        rim = np.zeros_like(mask)
        paint.ellipse_mask(rim, (cx - x0, cy + 4 - y0), (ax - 22, ay - 14))
        paint.blend(img, np.minimum(mask, rim), water, 0.85 * min(1.0, 0.25 + 2 * t), at=(x0, y0))
        for x, y in look.cubes:
            r = s0 * (0.3 + 0.75 * t)
            paint.ellipse(
                img,
                (x - r * 0.35, y + s * 0.25 - r * 0.22),
                (r * 0.3, r * 0.05),
                paint.mix(water, (255, 255, 255), 0.3),
                angle=-8,
            )
        self._cubes(img, look, s, t)
        return img

    def _cubes(self, img: np.ndarray, look: IceLook, s: float, t: float) -> None:
        """The cubes (side ``s``): a top face and a front face, rounding off as they melt."""
        for x, y in look.cubes:
            rad = s * (0.08 + 0.35 * t)
            top = (x - s / 2, y - s * 0.32, x + s / 2, y + s * 0.2)
            front = (x - s / 2, y, x + s / 2, y + s * 0.55)
            paint.rounded_rect(img, front, rad, ICE_SIDE)
            paint.rounded_rect(img, top, rad, ICE_TOP)
            if s > 12:
                paint.line(img, (x - s * 0.3, y - s * 0.2), (x + s * 0.1, y - s * 0.24), (250, 252, 255), 2)
                paint.line(img, (x - s * 0.36, y + s * 0.12), (x - s * 0.36, y + s * 0.42), (224, 238, 250), 2)

    def measure(self, img: np.ndarray, base: np.ndarray, look: IceLook) -> Reading:
        (cx, cy), (ax, ay) = look.centre, look.axes
        x0, y0, x1, y1 = int(cx - ax), int(cy - ay - 40), int(cx + ax), int(cy + ay)
        region = img[y0:y1, x0:x1]
        ice = paint.near(region, ICE_TOP, 26) | paint.near(region, ICE_SIDE, 26)
        area = float(np.sqrt(ice.sum()))
        ys, xs = np.nonzero(ice)
        box = (
            [x0, y0, x1, y1]
            if len(xs) == 0
            else [x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1, y0 + int(ys.max()) + 1]
        )
        return Reading(area, box)

    def span(self, look: IceLook) -> float:
        return math.sqrt(len(look.cubes) * look.size * look.size * 0.87) * (1 - self.LEFT)

    def state(self, look: IceLook, t: float) -> str:
        n = len(look.cubes)
        if t == 0:
            return f"{n} fresh ice cubes with sharp corners on a dry {look.plate} plate"
        if t >= 1:
            return f"a wide puddle of water on the {look.plate} plate with only tiny slivers of ice left"
        # the meltwater as it shows: at first each puddle is smaller than its cube, which hides it, and the earliest
        # frames were captioned 'sitting in a puddle' on a dry plate
        water = self.meltwater(look, t)
        wet = [a >= self.SEEN for a in water]
        size = "small, rounded" if t > 0.55 else "slightly rounded"
        # each cube's side as draw shrinks it, beside the plate's width: the meltwater alone reads the same in
        # frames apart
        wide = _times(self._side(look, t) / (2 * look.axes[0]), "wide", "the plate")
        if not any(wet):
            return f"{n} {size} ice cubes on the {look.plate} plate, each {wide}, the plate still dry around them"
        if min(water) >= self.PUDDLE:
            return f"{n} {size} ice cubes sitting in a puddle of meltwater on the {look.plate} plate, each {wide}"
        which = "them" if all(wet) else ("one of them" if sum(wet) == 1 else f"{sum(wet)} of them")
        return (
            f"{n} {size} ice cubes on the {look.plate} plate, each {wide}, a little meltwater seeping out from under "
            f"{which}"
        )

    def _side(self, look: IceLook, t: float) -> float:
        return look.size * (1 - (1 - self.LEFT) * t)

    def meltwater(self, look: IceLook, t: float) -> list[int]:
        """The pixels of meltwater that show around each cube at moment ``t`` (what draw's puddle changes, cubes
        on top; a pixel goes to the cube nearest it across)."""
        canvas = np.full((SIZE, SIZE, 3), look.plate_rgb, np.uint8)
        seen = paint.differs(self._draw(canvas, look, t, True), self._draw(canvas, look, t, False), 30)
        xs = np.nonzero(seen)[1]
        nearest = np.argmin(np.abs(xs[:, None] - np.array([x for x, _ in look.cubes])[None, :]), axis=1)
        return [int((nearest == k).sum()) for k in range(len(look.cubes))]

    def amount(self, value: float, look: IceLook) -> str:
        # the reading is the square root of the area (so that a gap between frames is a share of the process);
        # the steps compare the area itself, which runs in the same order
        return f"ice covering about {int(round(value * value, -2)):,} px²"


# -- a plant growing in a pot ----------------------------------------------------------------------------------
FLOWERS = {
    "red": (214, 52, 58),
    "yellow": (244, 204, 56),
    "pink": (236, 120, 170),
    "purple": (150, 84, 190),
    "orange": (244, 142, 44),
}
POTS = {
    "terracotta": (178, 96, 60),
    "blue": (64, 104, 170),
    "white": (232, 230, 224),
    "green": (70, 128, 92),
    "yellow": (222, 182, 70),
}


@dataclass(frozen=True)
class PlantLook:
    seed: int
    wall: RGB
    table: RGB
    table_y: int
    window: tuple[int, int] | None
    pot: str
    pot_rgb: RGB
    cx: float
    pot_w: float
    pot_h: float
    height: float  # the grown plant's height above the soil, flower included
    sway: float
    leaf: RGB
    leaf_len: float
    flower: str
    flower_rgb: RGB
    petals: int

    @property
    def soil_y(self) -> float:
        return self.table_y - self.pot_h + 8


class Plant(Family):
    name = "plant"
    process = "a plant growing in a pot"
    subject = "plant"
    cue = "height of the plant above the soil"
    unit = "px"
    rising = True
    why = "a growing plant only gets taller and grows more leaves, then a bud, then a flower that opens"
    BUD = 0.62  # moment the bud appears
    BLOOM = 0.8  # moment the bud opens

    def look(self, rng: np.random.Generator) -> PlantLook:
        table_y = int(rng.integers(380, 410))
        pot = _pick(rng, POTS)
        flower = _pick(rng, FLOWERS)
        wall = paint.jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 8)
        cx = float(rng.uniform(150, SIZE - 150))
        window = None
        if rng.random() < 0.6:
            x0 = int(rng.integers(14, 40)) if cx > SIZE / 2 else int(rng.integers(SIZE - 140, SIZE - 110))
            window = (x0, x0 + int(rng.integers(86, 100)))
        pot_h = float(rng.uniform(84, 104))
        return PlantLook(
            seed=int(rng.integers(2**31)),
            wall=wall,
            table=paint.jitter(rng, WOODS[int(rng.integers(len(WOODS)))], 10),
            table_y=table_y,
            window=window,
            pot=pot,
            pot_rgb=paint.jitter(rng, POTS[pot], 8),
            cx=cx,
            pot_w=float(rng.uniform(100, 124)),
            pot_h=pot_h,
            height=float(rng.uniform(230, min(270, table_y - pot_h - 20))),
            sway=float(rng.uniform(-22, 22)),
            leaf=paint.jitter(rng, (58, 140, 62), 14),
            leaf_len=float(rng.uniform(34, 46)),
            flower=flower,
            flower_rgb=paint.jitter(rng, FLOWERS[flower], 8),
            petals=int(rng.integers(5, 9)),
        )

    def title(self, look: PlantLook) -> str:
        return f"a plant growing in a {look.pot} pot"

    def backdrop(self, look: PlantLook) -> np.ndarray:
        img = _room(np.random.default_rng(look.seed), look.table_y, look.wall, look.table, look.window)
        cx, w, h, ty = look.cx, look.pot_w, look.pot_h, look.table_y
        paint.soft_shadow(img, (cx + 12, ty + 2), (w / 2 + 4, 9), 0.4)
        paint.poly(
            img,
            [
                (cx - w / 2 + 6, ty - h + 14),
                (cx + w / 2 - 6, ty - h + 14),
                (cx + w / 2 - 16, ty),
                (cx - w / 2 + 16, ty),
            ],
            look.pot_rgb,
        )
        paint.poly(
            img,
            [(cx + w / 4, ty - h + 14), (cx + w / 2 - 6, ty - h + 14), (cx + w / 2 - 16, ty), (cx + w / 4 - 6, ty)],
            paint.shade(look.pot_rgb, 0.85),
        )
        paint.rounded_rect(img, (cx - w / 2, ty - h, cx + w / 2, ty - h + 16), 4, paint.shade(look.pot_rgb, 1.1))
        paint.ellipse(img, (cx, ty - h + 1), (w / 2 - 6, 5), (84, 60, 44))
        return img

    def _stem(self, look: PlantLook, h: float) -> list[tuple[float, float]]:
        """Points of the stem from the soil up to height ``h`` (a gentle curve that leans by ``sway``)."""
        y0 = look.soil_y - 8
        steps = max(2, int(h / 8))
        return [
            (look.cx + look.sway * math.sin(math.pi * 0.5 * k / steps) * (h / look.height), y0 - h * k / steps)
            for k in range(steps + 1)
        ]

    def _stem_height(self, look: PlantLook, t: float) -> float:
        return (look.height - 30) * t + 6

    def _leaves(self, stem_h: float) -> list[tuple[int, float, float]]:
        """The leaves on a stem ``stem_h`` tall: (number from the soil, height up the stem, how grown, 0 to 1),
        one every 34 px from the soil, each growing for 36 px of stem after it appears."""
        out = []
        for j in range(int(stem_h // 34.0) + 1):
            at = 18 + 34.0 * j
            grown = min(1.0, (stem_h - at - 4) / 36)
            if grown > 0:
                out.append((j, at, grown))
        return out

    def draw(self, base: np.ndarray, look: PlantLook, t: float) -> np.ndarray:
        img = base.copy()
        if t <= 0:
            return img
        stem_h = self._stem_height(look, t)
        pts = self._stem(look, stem_h)
        paint.polyline(img, pts, paint.shade(look.leaf, 0.8), 5 if stem_h > 60 else 3)
        # leaves along the stem, alternating sides, each growing after it appears
        y0 = look.soil_y - 8
        for j, at, grown in self._leaves(stem_h):
            k = min(len(pts) - 1, int(round(at / stem_h * (len(pts) - 1))))
            x, y = pts[k]
            side = -1 if j % 2 == 0 else 1
            length = look.leaf_len * (0.4 + 0.6 * grown) * (0.6 if j == 0 else 1.0)
            ang = -30 if side > 0 else -150
            c = (x + side * length * 0.5, y - length * 0.22)
            paint.ellipse(img, c, (length / 2, length * 0.2), look.leaf, angle=ang if side > 0 else 180 + ang + 180)
            paint.line(img, (x, y), (c[0] + side * length * 0.3, c[1] - length * 0.1), paint.shade(look.leaf, 0.75), 1)
            if j == 0 and t < 0.2:  # the sprout's first pair of seed leaves
                paint.ellipse(img, (x - side * length * 0.45, c[1]), (length / 2.2, length * 0.18), look.leaf)
        del y0
        tx, ty = pts[-1]
        if t >= self.BUD:
            bud = 6 + 8 * min(1.0, (t - self.BUD) / (self.BLOOM - self.BUD))
            if t >= self.BLOOM:
                open_ = (t - self.BLOOM) / (1 - self.BLOOM)
                r = 16 + 12 * open_  # as tall as the bud it opens from
                for p in range(look.petals):
                    a = 2 * math.pi * p / look.petals
                    c = (tx + r * 0.75 * math.cos(a), ty - r * 0.1 + r * 0.75 * math.sin(a))
                    paint.ellipse(img, c, (r * 0.55, r * 0.3), look.flower_rgb, angle=math.degrees(a))
                paint.circle(img, (tx, ty - r * 0.1), 4 + 5 * open_, (226, 178, 40))
            else:
                paint.ellipse(img, (tx, ty - bud * 0.6), (bud * 0.55, bud), paint.mix(look.leaf, look.flower_rgb, 0.25))
        return img

    def measure(self, img: np.ndarray, base: np.ndarray, look: PlantLook) -> Reading:
        x0, x1 = int(look.cx - 110), int(look.cx + 110)
        top_soil = int(look.soil_y - 8)
        fg = paint.differs(img[:top_soil, x0:x1], base[:top_soil, x0:x1], 70)
        rows = np.nonzero(fg.sum(axis=1) >= 2)[0]
        if len(rows) == 0:
            return Reading(0.0, [int(look.cx - 40), top_soil - 30, int(look.cx + 40), int(look.soil_y)])
        top = int(rows.min())
        cols = np.nonzero(fg[top:].any(axis=0))[0]
        return Reading(float(top_soil - top), [x0 + int(cols.min()), top, x0 + int(cols.max()) + 1, int(look.soil_y)])

    def span(self, look: PlantLook) -> float:
        return look.height - 30

    def state(self, look: PlantLook, t: float) -> str:
        if t <= 0:
            return f"a {look.pot} pot of bare soil with nothing growing yet"
        # the stem as draw grows it, beside the pot's height: the leaves alone read the same in frames apart
        stem = f"its stem {_times(self._stem_height(look, t) / look.pot_h, 'tall', 'the pot')}"
        if t < 0.2:
            return f"a small green sprout just out of the soil of a {look.pot} pot, {stem}"
        # the leaves as draw grows them, counted: 'a leafy green stem' was said of one leaf and of four alike
        n = len(self._leaves(self._stem_height(look, t)))
        leaves = "1 leaf" if n == 1 else f"{n} leaves"
        if t < self.BUD:
            return f"a green stem with {leaves} growing in a {look.pot} pot, with no bud yet, {stem}"
        if t < self.BLOOM:
            return f"a tall plant with {leaves} in a {look.pot} pot, a closed bud at its top, {stem}"
        if t < 1:
            # as draw opens it: the petals spread from the moment of bloom and grow to full size
            grown = "just opened" if (t - self.BLOOM) / (1 - self.BLOOM) < 0.4 else "open but not yet full size"
            return f"a tall plant in a {look.pot} pot with {paint.a(look.flower)} flower {grown}, {stem}"
        return f"a tall plant in a {look.pot} pot with {paint.a(look.flower)} flower in full bloom"

    def amount(self, value: float, look: PlantLook) -> str:
        return "nothing above the soil" if value <= 0 else f"{round(value)} px tall"


# -- painting a fence ------------------------------------------------------------------------------------------
PAINTS = {
    "white": (246, 246, 240),
    "red": (190, 44, 40),
    "blue": (56, 98, 186),
    "yellow": (240, 202, 56),
    "green": (40, 120, 150),
}
PAINT_NAMES = {"green": "teal"}


@dataclass(frozen=True)
class FenceLook:
    seed: int
    ground_y: int
    top_y: int
    x0: float
    planks: int
    plank_w: float
    gap: float
    wood: RGB
    colour: str
    rgb: RGB
    leftwards: bool
    bucket: RGB

    def plank_x(self, i: int) -> float:
        return self.x0 + i * (self.plank_w + self.gap)


class Fence(Family):
    name = "fence"
    process = "a fence being painted"
    subject = "fence"
    cue = "share of the fence that is painted"
    unit = "%"
    rising = True
    why = "paint put on a fence stays on it, and the painted share only grows"

    def look(self, rng: np.random.Generator) -> FenceLook:
        planks = int(rng.integers(8, 11))
        plank_w = float(rng.uniform(26, 31))
        gap = float(rng.uniform(6, 10))  # the widest fence, 10 x 31 + 9 x 10 = 400 px, still fits the frame
        width = planks * plank_w + (planks - 1) * gap
        colour = _pick(rng, PAINTS)
        return FenceLook(
            seed=int(rng.integers(2**31)),
            ground_y=int(rng.integers(320, 346)),
            top_y=int(rng.integers(120, 160)),
            x0=float(rng.uniform(16, SIZE - 16 - width)),
            planks=planks,
            plank_w=plank_w,
            gap=gap,
            wood=paint.jitter(rng, (150, 128, 100), 12),
            colour=colour,
            rgb=paint.jitter(rng, PAINTS[colour], 6),
            leftwards=bool(rng.random() < 0.5),
            bucket=paint.jitter(rng, ((150, 154, 160), (60, 100, 170), (200, 70, 50))[int(rng.integers(3))], 10),
        )

    def title(self, look: FenceLook) -> str:
        return f"a wooden fence being painted {PAINT_NAMES.get(look.colour, look.colour)}"

    def _plank(self, img: np.ndarray, look: FenceLook, i: int, rgb: RGB) -> None:
        x, w, top, bottom = look.plank_x(i), look.plank_w, look.top_y, look.ground_y
        paint.poly(img, [(x, bottom), (x, top + 12), (x + w / 2, top), (x + w, top + 12), (x + w, bottom)], rgb)

    def backdrop(self, look: FenceLook) -> np.ndarray:
        rng = np.random.default_rng(look.seed)
        img = _garden(rng, look.ground_y)
        last = look.plank_x(look.planks - 1) + look.plank_w
        for y in (look.top_y + 40, look.ground_y - 50):
            paint.rounded_rect(img, (look.x0 - 8, y, last + 8, y + 14), 2, paint.shade(look.wood, 0.72))
        for i in range(look.planks):
            self._plank(img, look, i, paint.jitter(rng, look.wood, 6))
            x = look.plank_x(i)
            paint.line(
                img,
                (x + look.plank_w - 3, look.top_y + 12),
                (x + look.plank_w - 3, look.ground_y),
                paint.shade(look.wood, 0.85),
                2,
            )
        paint.texture(
            img,
            (int(look.x0), look.top_y, int(last) + 1, look.ground_y),
            paint.smooth_noise(rng, look.ground_y - look.top_y, int(last) + 1 - int(look.x0), 40),
            0.05,
        )
        return img

    def _order(self, look: FenceLook) -> list[int]:
        return list(range(look.planks))[::-1] if look.leftwards else list(range(look.planks))

    def draw(self, base: np.ndarray, look: FenceLook, t: float) -> np.ndarray:
        img = base.copy()
        done = t * look.planks
        order = self._order(look)
        full = int(math.floor(done + 1e-9))
        for i in order[:full]:
            self._plank(img, look, i, look.rgb)
            x = look.plank_x(i)
            paint.line(img, (x + 5, look.top_y + 16), (x + 5, look.ground_y - 4), paint.shade(look.rgb, 1.12), 2)
        part = done - full
        if full < look.planks:
            i = order[full]
            x, w = look.plank_x(i), look.plank_w
            if part > 0:
                # the plank being painted: coated from the top down to the brush
                y = look.top_y + part * (look.ground_y - look.top_y)
                top, bottom = look.top_y, look.ground_y
                outline = [(x, bottom), (x, top + 12), (x + w / 2, top), (x + w, top + 12), (x + w, bottom)]
                mask, at = paint.poly_mask(outline)
                mask[max(0, int(y) - at[1]) :] = 0
                paint.blend(img, mask, look.rgb, 1.0, at=at)
                paint.circle(img, (x + w * 0.3, y + 4), 2.5, look.rgb)
                self._brush(img, look, x + w / 2, y)
            bx = x + w / 2
        else:
            bx = look.plank_x(order[-1]) + look.plank_w / 2
        self._bucket(img, look, bx + (-1 if look.leftwards else 1) * 8, t)
        return img

    def _brush(self, img: np.ndarray, look: FenceLook, x: float, y: float) -> None:
        paint.rounded_rect(img, (x - 9, y - 6, x + 9, y + 6), 2, (70, 60, 55))
        paint.rounded_rect(img, (x - 8, y + 5, x + 8, y + 16), 2, (170, 170, 175))
        paint.line(img, (x, y + 16), (x + 6, y + 46), (120, 74, 40), 6)

    def _bucket(self, img: np.ndarray, look: FenceLook, x: float, t: float) -> None:
        y = look.ground_y + 48
        paint.soft_shadow(img, (x + 6, y + 30), (30, 7), 0.4)
        paint.poly(img, [(x - 26, y - 22), (x + 26, y - 22), (x + 22, y + 30), (x - 22, y + 30)], look.bucket)
        paint.ellipse(img, (x, y - 22), (26, 7), paint.shade(look.bucket, 0.7) if t == 0 else look.rgb)
        paint.ellipse(img, (x, y - 22), (26, 7), paint.shade(look.bucket, 0.6), width=2)
        paint.ellipse(img, (x, y - 22), (24, 20), (90, 90, 96), start=180, end=360, width=2)

    def measure(self, img: np.ndarray, base: np.ndarray, look: FenceLook) -> Reading:
        last = look.plank_x(look.planks - 1) + look.plank_w
        x0, x1 = int(look.x0), int(math.ceil(last))
        region = img[look.top_y : look.ground_y, x0:x1]
        painted = float(paint.near(region, look.rgb, 40).sum())
        return Reading(100.0 * painted / self._area(look), [x0, look.top_y, x1, look.ground_y])

    def _area(self, look: FenceLook) -> float:
        return look.planks * look.plank_w * (look.ground_y - look.top_y - 6)

    def span(self, look: FenceLook) -> float:
        return 100.0

    def state(self, look: FenceLook, t: float) -> str:
        paint_name = PAINT_NAMES.get(look.colour, look.colour)
        if t <= 0:
            return f"a bare wooden picket fence with a closed tin of {paint_name} paint in front of it"
        if t >= 1:
            return f"a picket fence painted {paint_name} from end to end, the paint tin at its far end"
        side = "right" if look.leftwards else "left"
        done = t * look.planks
        full = int(math.floor(done + 1e-9))  # as draw counts them: the brush shows only on a half-painted picket
        # the picket being painted is coated from the top down to the brush (two frames with 4 pickets done and
        # the fifth begun or nearly done read the same)
        down = f"{_way(done - full)} down"
        if full == 0:
            return f"a picket fence with its {side} end picket being painted {paint_name}, a brush {down} it"
        brush = f", a brush {down} the next one" if done - full > 0 else ""
        painted = f"{full} of its {look.planks} pickets painted {paint_name}"
        return f"a picket fence with {painted} from the {side} end{brush}"

    def amount(self, value: float, look: FenceLook) -> str:
        return f"about {round(value)}% painted"


# -- a house being built ---------------------------------------------------------------------------------------
GLASS, FRAME, HOLE = (84, 120, 160), (70, 66, 62), (52, 46, 44)
BRICKS = {
    "red brick": (168, 72, 52),
    "yellow brick": (214, 176, 104),
    "grey block": (150, 150, 146),
    "white": (226, 220, 206),
}
ROOFS = {"red": (160, 52, 40), "dark grey": (72, 74, 84), "green": (60, 106, 74), "brown": (110, 70, 46)}


@dataclass(frozen=True)
class HouseLook:
    seed: int
    ground_y: int
    cx: float
    width: float
    wall_h: float
    roof_h: float
    walls: str
    wall_rgb: RGB
    roof: str
    roof_rgb: RGB
    windows: tuple[tuple[float, float], ...]  # (centre x offset, sill height above the ground)
    door_x: float  # offset of the door's centre
    ladder_left: bool


class House(Family):
    name = "house"
    process = "a house being built"
    subject = "house"
    cue = "height of the building at its middle"
    unit = "px"
    rising = True
    why = (
        "a house under construction only grows, its walls rising course by course to full height before its roof is "
        "tiled from the eaves up"
    )
    WALLS_DONE = 0.55
    COURSE = 12.0

    def look(self, rng: np.random.Generator) -> HouseLook:
        width = float(rng.uniform(200, 250))
        walls = _pick(rng, BRICKS)
        roof = _pick(rng, ROOFS)
        n = int(rng.integers(2, 4))
        xs = [-0.32, 0.32] if n == 2 else [-0.34, 0.0, 0.34]
        door = xs[int(rng.integers(n))] if rng.random() < 0.5 else 0.0
        windows = tuple((x * width, float(rng.uniform(50, 62))) for x in xs if abs(x - door) > 0.1)
        return HouseLook(
            seed=int(rng.integers(2**31)),
            ground_y=int(rng.integers(350, 380)),
            cx=float(rng.uniform(150, SIZE - 150)),
            width=width,
            # whole courses: a top course half laid at full height left the roof's right end on nothing
            wall_h=self.COURSE * round(float(rng.uniform(122, 140)) / self.COURSE),
            roof_h=float(rng.uniform(84, 100)),
            walls=walls,
            wall_rgb=paint.jitter(rng, BRICKS[walls], 8),
            roof=roof,
            roof_rgb=paint.jitter(rng, ROOFS[roof], 8),
            windows=windows,
            door_x=door * width,
            ladder_left=bool(rng.random() < 0.5),
        )

    def title(self, look: HouseLook) -> str:
        return f"a {look.walls} house being built"

    def backdrop(self, look: HouseLook) -> np.ndarray:
        rng = np.random.default_rng(look.seed)
        img = _garden(rng, look.ground_y)
        dirt = paint.jitter(rng, (150, 120, 88), 8)
        paint.ellipse(img, (look.cx, look.ground_y + 34), (look.width * 0.85, 40), dirt)
        paint.rounded_rect(
            img,
            (look.cx - look.width / 2 - 8, look.ground_y - 6, look.cx + look.width / 2 + 8, look.ground_y + 10),
            2,
            (176, 176, 170),
        )
        # a pallet of bricks waiting on the far side from the ladder
        px = look.cx + (1 if look.ladder_left else -1) * (look.width / 2 + 46)
        px = min(max(px, 40), SIZE - 40)
        paint.rounded_rect(img, (px - 30, look.ground_y + 34, px + 30, look.ground_y + 40), 1, (140, 110, 70))
        for r in range(3):
            for c in range(4 - r):
                x = px - 27 + c * 14 + r * 7
                paint.rounded_rect(
                    img, (x, look.ground_y + 26 - r * 8, x + 12, look.ground_y + 33 - r * 8), 1, look.wall_rgb
                )
        return img

    def reason(self, look: HouseLook, times: list[float]) -> str:
        """The walls, the roof or both, as the frames show them (frames of walls alone were told of a roof tiled
        up to the ridge, which no frame but the very last shows)."""
        if all(t < self.WALLS_DONE for t in times):
            return "a house under construction only grows, its walls rising course by course"
        if all(t > self.WALLS_DONE for t in times):
            return (
                "a house under construction only grows, its roof tiled from the eaves up once the walls stand at full "
                "height"
            )
        return self.why

    def _wall_height(self, look: HouseLook, t: float) -> float:
        return look.wall_h * min(1.0, t / self.WALLS_DONE)

    def draw(self, base: np.ndarray, look: HouseLook, t: float) -> np.ndarray:
        img = base.copy()
        g, cx, w = look.ground_y - 6, look.cx, look.width
        x0, x1 = cx - w / 2, cx + w / 2
        hw = self._wall_height(look, t)
        mortar = paint.shade(look.wall_rgb, 1.25)
        if hw > 0:
            # the walls, course by course; the top course is laid from the left
            full = math.floor(hw / self.COURSE + 1e-9)
            part = hw / self.COURSE - full
            paint.poly(
                img, [(x0, g), (x0, g - full * self.COURSE), (x1, g - full * self.COURSE), (x1, g)], look.wall_rgb
            )
            if part > 0:
                y = g - (full + 1) * self.COURSE
                paint.poly(
                    img,
                    [
                        (x0, g - full * self.COURSE),
                        (x0, y),
                        (x0 + part * w, y),
                        (x0 + part * w, g - full * self.COURSE),
                    ],
                    look.wall_rgb,
                )
            courses = full + (1 if part > 0 else 0)
            for k in range(courses):
                y = g - (k + 1) * self.COURSE
                right = x1 if k < full else x0 + part * w
                paint.line(img, (x0, y), (right, y), mortar, 1)
                off = 0 if k % 2 else 13
                for x in np.arange(x0 + off, right, 26):
                    paint.line(img, (x, y), (x, y + self.COURSE), mortar, 1)

            def built(xa: float, xb: float) -> float:
                """The wall's height over columns ``xa``..``xb`` and a few beyond (an opening has wall beside it): the
                top course is laid only up to its end."""
                return (full + (1 if part > 0 and xb + 4 <= x0 + part * w else 0)) * self.COURSE

            # window and door openings, glazed and painted at the end, cut only into wall already built
            for dx, sill in look.windows:
                wy0, wy1 = g - sill - 44, g - sill
                if built(cx + dx - 20, cx + dx + 20) > sill + 4:
                    ytop = max(wy0, g - built(cx + dx - 20, cx + dx + 20))
                    glazed = t >= 0.85
                    paint.rounded_rect(img, (cx + dx - 20, ytop, cx + dx + 20, wy1), 1, GLASS if glazed else HOLE)
                    if glazed:  # a dark frame and glass that reflects the sky, both plainly unlike the sky itself
                        paint.rounded_rect(img, (cx + dx - 20, wy0, cx + dx + 20, wy1), 1, FRAME)
                        paint.rounded_rect(img, (cx + dx - 16, wy0 + 4, cx + dx + 16, wy1 - 4), 1, GLASS)
                        paint.line(img, (cx + dx, wy0 + 4), (cx + dx, wy1 - 4), FRAME, 2)
            dtop = max(g - 74, g - built(cx + look.door_x - 18, cx + look.door_x + 18))
            paint.rounded_rect(
                img,
                (cx + look.door_x - 18, dtop, cx + look.door_x + 18, g),
                1,
                (120, 70, 50) if t >= 0.95 else HOLE,
            )
        if t > self.WALLS_DONE:
            # the roof, tiled in rows from the eaves up to the ridge
            share = (t - self.WALLS_DONE) / (1 - self.WALLS_DONE)
            yb = g - look.wall_h
            hr = look.roof_h * share
            over = 16.0
            half = w / 2 + over
            top_half = half * (1 - share)
            paint.poly(
                img,
                [(cx - half, yb), (cx - top_half, yb - hr), (cx + top_half, yb - hr), (cx + half, yb)],
                look.roof_rgb,
            )
            for k in range(int(hr // 14) + 1):
                y = yb - k * 14
                hw_row = half * (1 - k * 14 / look.roof_h)
                paint.line(img, (cx - hw_row, y), (cx + hw_row, y), paint.shade(look.roof_rgb, 0.75), 2)
        if t < 1:
            self._ladder(img, look, g, hw + 22)
        return img

    def _ladder(self, img: np.ndarray, look: HouseLook, g: float, h: float) -> None:
        """A ladder of height ``h`` against the side of the house: two poles and a rung every 36 px."""
        side = -1 if look.ladder_left else 1
        xa = look.cx + side * (look.width / 2 + 10)
        xb = look.cx + side * (look.width / 2 + 38)
        pole = (110, 110, 118)
        for x in (xa, xb):
            paint.line(img, (x, g + 4), (x, g - h), pole, 3)
        for y in np.arange(g - 30, g - h, -36):
            paint.line(img, (xa, y), (xb, y), pole, 2)
            paint.rounded_rect(img, (min(xa, xb) - 2, y - 4, max(xa, xb) + 2, y), 1, (170, 130, 80))

    def measure(self, img: np.ndarray, base: np.ndarray, look: HouseLook) -> Reading:
        """The walls' mean height (what is built over their width, so a half-laid course counts by half), then,
        above the eaves, the height of the tiled roof at its middle."""
        g = int(look.ground_y - 6)
        eaves = int(round(g - look.wall_h))
        x0, x1 = int(look.cx - look.width / 2) + 1, int(look.cx + look.width / 2) - 1
        walls = paint.differs(img[eaves:g, x0:x1], base[eaves:g, x0:x1], 70)
        height = float(walls.sum()) / (x1 - x0)
        band = slice(int(look.cx - look.width / 6), int(look.cx + look.width / 6))
        roof = paint.differs(img[:eaves, band], base[:eaves, band], 70)
        rows = np.nonzero(roof.sum(axis=1) >= 6)[0]
        if len(rows):
            height += eaves - int(rows.min())
        top = int(round(g - height))
        half = look.width / 2 + 16
        return Reading(height, [int(look.cx - half), min(top, g - 1), int(look.cx + half) + 1, g + 6])

    def span(self, look: HouseLook) -> float:
        return look.wall_h + look.roof_h

    def state(self, look: HouseLook, t: float) -> str:
        if t <= 0:
            return "a bare concrete foundation on a building site, bricks stacked beside it"
        if t < self.WALLS_DONE:
            # the courses as draw lays them: whole ones, then the next one from the left (a sliver under 3 px is
            # not told); 'a few courses high' was said of 2 courses and of 4 alike
            courses = self._wall_height(look, t) / self.COURSE
            full = math.floor(courses + 1e-9)
            laying = (courses - full) * look.width >= 3
            walls = f"{look.walls} walls {full} course{'s' if full != 1 else ''} high on the foundation"
            if full == 0:
                walls = f"the first course of {look.walls} walls being laid on the foundation"
            elif laying:
                walls += f", the {ORDINAL_WORDS[full]} course being laid"
            return f"{walls}, a ladder beside them"
        if t < 1:
            # the roof as draw tiles it, from the eaves up towards the ridge, which no frame before the last reaches
            up = f"{_way((t - self.WALLS_DONE) / (1 - self.WALLS_DONE))} up"
            fitted = ""
            if t >= 0.85:  # as draw glazes the windows and hangs the door
                fitted = ", the windows glazed and the door hung" if t >= 0.95 else ", the windows glazed"
            return (
                f"{look.walls} walls at full height{fitted}, a {look.roof} roof on them tiled {up} from the eaves, a "
                "ladder beside them"
            )
        return f"a finished {look.walls} house with a {look.roof} roof, glazed windows and a door"

    def amount(self, value: float, look: HouseLook) -> str:
        return f"{round(value)} px tall"


# -- vegetables chopped, fried and served ----------------------------------------------------------------------
VEGETABLES = {
    "carrot": ((232, 118, 30), (246, 156, 60)),
    "courgette": ((52, 112, 44), (222, 228, 170)),
    "potato": ((186, 146, 96), (242, 226, 168)),
    "aubergine": ((74, 40, 84), (236, 226, 192)),
}
BROWN = (138, 78, 30)
# the board's reading counts the slices cut out of this many more than there are, so that all cut stays below the
# pan's first reading (100)
BOARD_SPARE = 0.5
PAN = (46, 46, 50)


@dataclass(frozen=True)
class CookLook:
    seed: int
    wall: RGB
    counter: RGB
    mirror: bool
    veg: str
    skin: RGB
    flesh: RGB
    slices: int
    length: float
    thick: float
    plate: RGB
    pan_spots: tuple[tuple[float, float], ...]  # slice centres in the pan (unmirrored frame)
    plate_spots: tuple[tuple[float, float], ...]


BOARD = (14, 224, 226, 356)  # cutting board box in the unmirrored frame
PAN_C, PAN_AX = (318.0, 214.0), (92.0, 48.0)
PLATE_C, PLATE_AX = (316.0, 368.0), (96.0, 46.0)


class Cooking(Family):
    name = "cooking"
    process = "vegetables being chopped, fried and served"
    subject = "food"
    cue = "stage of the cooking"
    runs = (
        "The stages only follow one another (on the board, in the pan, on the plate), and within a stage the reading "
        "only grows, so these frames run from the earliest stage to the latest"
    )
    unit = ""
    rising = True
    why = (
        "a vegetable is sliced on the board, then fried in the pan until brown, then served, never the other way round"
    )

    def look(self, rng: np.random.Generator) -> CookLook:
        veg = _pick(rng, VEGETABLES)
        skin, flesh = VEGETABLES[veg]
        slices = int(rng.integers(8, 11))

        def spots(c: tuple[float, float], n: int) -> tuple[tuple[float, float], ...]:
            """``n`` places on a 4 x 3 grid around ``c``, far enough apart that slices never overlap."""
            grid = [(c[0] + dx, c[1] + dy) for dy in (-23.0, 0.0, 23.0) for dx in (-57.0, -19.0, 19.0, 57.0)]
            return tuple(grid[int(i)] for i in rng.permutation(len(grid))[:n])

        return CookLook(
            seed=int(rng.integers(2**31)),
            wall=paint.jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 8),
            counter=paint.jitter(
                rng, ((210, 206, 198), (120, 116, 112), (190, 170, 140), (230, 226, 216))[int(rng.integers(4))], 8
            ),
            mirror=bool(rng.random() < 0.5),
            veg=veg,
            skin=paint.jitter(rng, skin, 6),
            flesh=paint.jitter(rng, flesh, 6),
            slices=slices,
            length=float(rng.uniform(150, 172)),
            thick=float(rng.uniform(30, 35)),
            plate=paint.jitter(rng, ((240, 240, 236), (200, 222, 236), (236, 222, 196))[int(rng.integers(3))], 6),
            pan_spots=spots(PAN_C, slices),
            plate_spots=spots(PLATE_C, slices),
        )

    def title(self, look: CookLook) -> str:
        return f"{paint.a(look.veg)} being sliced, fried and served"

    def backdrop(self, look: CookLook) -> np.ndarray:
        rng = np.random.default_rng(look.seed)
        img = paint.gradient(SIZE, SIZE, paint.shade(look.wall, 1.04), paint.shade(look.wall, 0.94))
        for y in range(0, 140, 34):  # tiled splashback
            img[y : y + 2] = paint.shade(look.wall, 0.85)
        for x in range(0, SIZE, 34):
            img[:140, x : x + 2] = paint.shade(look.wall, 0.85)
        img[140:] = look.counter
        paint.texture(img, (0, 140, SIZE, SIZE), paint.smooth_noise(rng, SIZE - 140, SIZE, 24), 0.05)
        img[140:146] = paint.shade(look.counter, 0.8)
        x0, y0, x1, y1 = BOARD
        paint.soft_shadow(img, ((x0 + x1) / 2 + 6, y1), ((x1 - x0) / 2, 8), 0.35)
        board = paint.wood(rng, y1 - y0, x1 - x0, (196, 158, 110))
        img[y0:y1, x0:x1] = board
        img[y1 - 5 : y1, x0:x1] = (150, 116, 78)
        # the hob ring and the pan; the plate
        paint.ellipse(img, (PAN_C[0], PAN_C[1] + 10), (PAN_AX[0] + 16, PAN_AX[1] + 12), (60, 60, 66))
        paint.line(
            img, (PAN_C[0] + PAN_AX[0] - 6, PAN_C[1] - 4), (PAN_C[0] + PAN_AX[0] + 60, PAN_C[1] - 34), (36, 36, 40), 12
        )
        paint.ellipse(img, PAN_C, (PAN_AX[0] + 6, PAN_AX[1] + 6), (30, 30, 34))
        paint.ellipse(img, PAN_C, PAN_AX, PAN)
        paint.soft_shadow(img, (PLATE_C[0] + 6, PLATE_C[1] + 8), PLATE_AX, 0.35)
        paint.ellipse(img, PLATE_C, PLATE_AX, look.plate)
        paint.ellipse(
            img, (PLATE_C[0], PLATE_C[1] + 2), (PLATE_AX[0] - 20, PLATE_AX[1] - 12), paint.shade(look.plate, 0.94)
        )
        return img[:, ::-1].copy() if look.mirror else img

    def _phase(self, t: float) -> tuple[str, float]:
        if t <= 1 / 3:
            return "cut", 3 * t
        if t <= 2 / 3:
            return "fry", 3 * t - 1
        return "serve", 3 * t - 2

    def _slice(self, img: np.ndarray, look: CookLook, c: tuple[float, float], rgb: RGB, ring: RGB) -> None:
        r = look.thick / 2
        paint.ellipse(img, c, (r, r * 0.62), ring)
        paint.ellipse(img, c, (r - 3, r * 0.62 - 3), rgb)
        if look.veg in ("carrot", "courgette"):
            paint.ellipse(img, c, (r * 0.35, r * 0.22), paint.shade(rgb, 1.08))

    def draw(self, base: np.ndarray, look: CookLook, t: float) -> np.ndarray:
        img = base[:, ::-1].copy() if look.mirror else base.copy()
        phase, s = self._phase(t)
        x0, y0, x1, y1 = BOARD
        cut = round(s * look.slices) if phase == "cut" else look.slices
        cooked = paint.mix(look.flesh, BROWN, 0.8 * (s if phase == "fry" else 1.0))
        ring = paint.mix(look.skin, BROWN, 0.5 * (s if phase == "fry" else 1.0))
        if phase == "cut":
            # the whole piece left of the cut, slices fanned out to its right
            left = x0 + 16
            whole = look.length * (1 - cut / look.slices)
            cy = y0 + 34
            if whole > 0:
                paint.rounded_rect(
                    img, (left, cy - look.thick / 2, left + whole, cy + look.thick / 2), look.thick / 2, look.skin
                )
                paint.line(
                    img,
                    (left + 10, cy - look.thick * 0.25),
                    (left + whole - 10, cy - look.thick * 0.25),
                    paint.shade(look.skin, 1.15),
                    3,
                )
                if cut:
                    paint.ellipse(img, (left + whole, cy), (5, look.thick / 2 - 1), look.flesh)
            if look.veg == "carrot":
                paint.ellipse(img, (left - 6, cy), (10, 5), (70, 140, 60))
            for k in range(cut):  # the slices lie in two rows below
                self._slice(img, look, (x0 + 26 + 38 * (k % 5), y0 + 80 + 28 * (k // 5)), look.flesh, look.skin)
            # held at a cutting angle across the cut, its handle back over the uncut piece, away from the pan and
            # clear of the rows of slices (which measure counts)
            self._knife(img, (left + whole + 14, cy + look.thick / 2 + 8), -115.0)
        else:
            # put down flat on the board where the vegetable lay (drawn upright it stood over the pan)
            self._knife(img, (x0 + 34, y0 + 36), -4.0)
        if phase in ("fry", "serve"):
            on_plate = round(s * look.slices) if phase == "serve" else 0
            for k, c in enumerate(look.pan_spots):
                if k >= on_plate:
                    self._slice(img, look, c, cooked, ring)
            for c in look.plate_spots[:on_plate]:
                self._slice(img, look, c, cooked, ring)
            if phase == "fry":
                paint.ellipse(
                    img,
                    (PAN_C[0], PAN_C[1] + PAN_AX[1] + 14),
                    (PAN_AX[0] + 10, 6),
                    (90, 120, 235),
                    start=0,
                    end=180,
                    width=3,
                )
                for k in range(3):
                    x = PAN_C[0] - 40 + 40 * k
                    pts = [(x + 6 * math.sin(j / 2 + k), PAN_C[1] - PAN_AX[1] - 8 - 7 * j) for j in range(8)]
                    paint.polyline(img, pts, paint.mix(look.wall, (255, 255, 255), 0.6), 3)
            if t >= 1:  # garnish
                for k in range(5):
                    a = 1.2 * k
                    paint.ellipse(
                        img,
                        (PLATE_C[0] + 30 * math.cos(a), PLATE_C[1] - 6 + 14 * math.sin(a)),
                        (6, 3),
                        (60, 150, 60),
                        angle=40 * k,
                    )
        return img[:, ::-1].copy() if look.mirror else img

    def _knife(self, img: np.ndarray, tip: tuple[float, float], angle: float) -> None:
        """A kitchen knife from its ``tip`` back to the end of its handle, pointing ``angle`` degrees from the
        image's x axis (y down): a steel blade, widening to the heel, then a dark handle with two rivets."""
        ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        nx, ny = -uy, ux

        def at(along: float, across: float) -> tuple[float, float]:
            return (tip[0] + ux * along + nx * across, tip[1] + uy * along + ny * across)

        blade = [at(0, 0), at(14, -4), at(70, -5), at(72, 0), at(72, 6), at(18, 4)]
        paint.poly(img, blade, (200, 204, 210))
        paint.line(img, at(16, -3), at(68, -3), (226, 228, 232), 2)
        paint.line(img, at(76, 0), at(104, 0), (40, 36, 34), 10)
        for k in (84, 96):
            paint.circle(img, at(k, 0), 1.6, (170, 170, 176))

    def _inside(self, img: np.ndarray, look: CookLook, c: tuple[float, float], ax: tuple[float, float]) -> np.ndarray:
        """The pixels inside the ellipse ``(c, ax)`` (mirrored with the frame), a little in from its edge."""
        h, w = img.shape[:2]
        cx = (w - 1 - c[0]) if look.mirror else c[0]
        inside = np.zeros((h, w), np.uint8)
        paint.ellipse_mask(inside, (cx, c[1]), (ax[0] - 6, ax[1] - 5))
        return inside > 127

    def measure(self, img: np.ndarray, base: np.ndarray, look: CookLook) -> Reading:
        """The stage, 0 to 300: the slices cut on the board out of ``BOARD_SPARE`` more than there are (so all cut
        stays below the pan's start, 100, and a slice is still most of 100 / slices), then 100 + the browning in the
        pan (200 when done, nothing served yet), then 200 + the share of the browned slices served on the plate
        (above 200 once one is on it)."""
        done = paint.mix(look.flesh, BROWN, 0.8)
        in_pan = self._inside(img, look, PAN_C, PAN_AX)
        in_plate = self._inside(img, look, PLATE_C, PLATE_AX)
        browned = paint.near(img, done, 30)
        on_plate, in_pan_done = int((in_plate & browned).sum()), int((in_pan & browned).sum())
        # the slices in the pan, off their rims: whatever is not the pan's own dark colour
        food = in_pan & paint.differs(img, np.broadcast_to(np.array(PAN, np.uint8), img.shape), 90)
        pan = cv2.erode(food.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        one = 0.6 * math.pi * (look.thick / 2 - 5) * (look.thick * 0.31 - 5)  # eroded area of one slice, roughly
        if on_plate > one:
            value = 2 + on_plate / (on_plate + in_pan_done)
            where = (in_plate | in_pan) & browned
        elif pan.sum() > one:
            mean = img[pan].astype(np.float32).mean(axis=0)
            raw, brown = np.array(look.flesh, np.float32), np.array(done, np.float32)
            value = 1 + float(np.clip(np.dot(mean - raw, brown - raw) / np.dot(brown - raw, brown - raw), 0, 1))
            where = pan
        else:
            x0, y0, x1, y1 = BOARD
            if look.mirror:
                x0, x1 = SIZE - x1, SIZE - x0
            region = img[y0 + 62 : y1 - 6, x0:x1]
            # the slices cut so far: separate discs of flesh, each inside its ring of skin
            flesh = paint.near(region, look.flesh, 36).astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(flesh, connectivity=8)
            disc = math.pi * (look.thick / 2 - 3) * (look.thick * 0.31 - 3)
            cut = sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= 0.4 * disc)
            value = min(look.slices, cut) / (look.slices + BOARD_SPARE)
            where = np.zeros(img.shape[:2], bool)
            where[y0:y1, x0:x1] = True
        ys, xs = np.nonzero(where)
        box = [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1] if len(xs) else [0, 0, SIZE, SIZE]
        return Reading(100 * value, box)

    def span(self, look: CookLook) -> float:
        return 300.0

    def state(self, look: CookLook, t: float) -> str:
        phase, s = self._phase(t)
        v = look.veg
        if phase == "cut":
            cut = round(s * look.slices)  # as draw cuts them
            if cut <= 0:
                return f"a whole {v} on a cutting board beside an empty pan and an empty plate"
            if cut >= look.slices:
                return f"{paint.a(v)} cut into {cut} slices on the cutting board, the pan and the plate still empty"
            slices = "1 slice" if cut == 1 else f"{cut} slices"
            return f"{paint.a(v)} partly sliced on the cutting board, {slices} cut so far, the knife at the cut"
        if phase == "fry":
            # five shades, as draw browns them evenly: frames of one clip are at least 0.27 of the frying apart,
            # so no two of them share one (with three shades two frames were 'golden' alike)
            tones = ("pale, barely cooked", "just starting to colour", "golden", "golden brown", "well browned")
            tone = tones[min(4, int(5 * s))]
            return f"{look.slices} {v} slices frying in the pan, {tone}, only the knife left on the board"
        if s >= 1:
            return f"browned {v} slices served on the plate with a green garnish, the pan empty"
        moved = round(s * look.slices)  # as draw moves them
        if moved <= 0:
            return f"{look.slices} well browned {v} slices in the pan, the plate still empty"
        if moved >= look.slices:
            return f"all {look.slices} browned {v} slices moved onto the plate, the pan empty"
        return f"browned {v} slices being moved from the pan onto the plate, {moved} of the {look.slices} on it so far"

    def amount(self, value: float, look: CookLook) -> str:
        """Counted where a person counts (slices cut, slices served), the browning as a share; the ranges are
        measure's, each stage's ends told apart (all cut: below 100; done browning, none served: 200)."""
        v, n = value / 100, look.slices

        def count(k: int) -> str:
            return f"all {n} slices" if k == n else f"{k} of the {n} slices"

        if v < 1:
            cut = round(v * (n + BOARD_SPARE))
            return "on the board, still whole" if cut == 0 else f"on the board, {count(cut)} cut"
        if v <= 2:
            return f"in the pan, browned about {round(100 * (v - 1))}% of the way"
        return f"on the plate, {count(round((v - 2) * n))}"


# -- laundry drying on a line ----------------------------------------------------------------------------------
CLOTHES = {
    "blue": (120, 170, 222),
    "pink": (236, 150, 172),
    "yellow": (240, 210, 100),
    "mint": (140, 212, 172),
    "lavender": (182, 160, 224),
    "orange": (242, 164, 92),
}
GARMENTS = ("shirt", "towel", "trousers", "dress")
WET = 0.62  # how dark a soaked garment is


@dataclass(frozen=True)
class LaundryLook:
    seed: int
    ground_y: int
    line_y: float
    sag: float
    items: tuple[tuple[str, str, RGB, float, float, float], ...]  # (garment, colour name, rgb, centre x, width, height)


class Laundry(Family):
    name = "laundry"
    process = "washing drying on a clothesline"
    subject = "washing"
    cue = "share of the washing still wet (darker)"
    unit = "%"
    rising = False
    why = "hung washing only dries, its dark wet part shrinking down to the hems until the dripping stops"

    def look(self, rng: np.random.Generator) -> LaundryLook:
        n = int(rng.integers(3, 5))
        names = [list(CLOTHES)[int(i)] for i in rng.permutation(len(CLOTHES))[:n]]
        kinds = [GARMENTS[int(rng.integers(len(GARMENTS)))] for _ in range(n)]
        slot = (SIZE - 80) / n
        items = []
        for k in range(n):
            w = float(rng.uniform(0.62, 0.8)) * slot
            h = float(rng.uniform(150, 180))
            cx = 40 + slot * (k + 0.5) + float(rng.uniform(-6, 6))
            items.append((kinds[k], names[k], paint.jitter(rng, CLOTHES[names[k]], 6), cx, w, h))
        return LaundryLook(
            seed=int(rng.integers(2**31)),
            ground_y=int(rng.integers(360, 390)),
            line_y=float(rng.uniform(96, 120)),
            sag=float(rng.uniform(14, 26)),
            items=tuple(items),
        )

    def title(self, look: LaundryLook) -> str:
        return "washing drying on a clothesline"

    def _line(self, look: LaundryLook, x: float) -> float:
        u = (x - 24) / (SIZE - 48)
        return look.line_y + 4 * look.sag * u * (1 - u)

    def backdrop(self, look: LaundryLook) -> np.ndarray:
        img = _garden(np.random.default_rng(look.seed), look.ground_y)
        for x in (24, SIZE - 24):
            paint.rounded_rect(img, (x - 6, look.line_y - 12, x + 6, look.ground_y + 20), 2, (120, 96, 70))
        pts = [(float(x), self._line(look, x)) for x in range(24, SIZE - 23, 8)]
        paint.polyline(img, pts, (236, 236, 236), 2)
        return img

    def _outline(self, kind: str, cx: float, top: float, w: float, h: float) -> list[tuple[float, float]]:
        lf, r, b = cx - w / 2, cx + w / 2, top + h
        if kind == "shirt":
            return [
                (lf, top),
                (r, top),
                (r + w * 0.16, top + h * 0.3),
                (r - w * 0.06, top + h * 0.36),
                (r - w * 0.08, b),
                (lf + w * 0.08, b),
                (lf + w * 0.06, top + h * 0.36),
                (lf - w * 0.16, top + h * 0.3),
            ]
        if kind == "trousers":
            return [
                (lf, top),
                (r, top),
                (r + w * 0.04, b),
                (cx + w * 0.08, b),
                (cx, top + h * 0.34),
                (cx - w * 0.08, b),
                (lf - w * 0.04, b),
            ]
        if kind == "dress":
            return [
                (lf + w * 0.18, top),
                (r - w * 0.18, top),
                (r - w * 0.1, top + h * 0.35),
                (r + w * 0.12, b),
                (lf - w * 0.12, b),
                (lf + w * 0.1, top + h * 0.35),
            ]
        return [(lf, top), (r, top), (r, b), (lf, b)]

    def draw(self, base: np.ndarray, look: LaundryLook, t: float) -> np.ndarray:
        img = base.copy()
        wet = 1 - t
        for kind, _, rgb, cx, width, height in look.items:
            top = self._line(look, cx) - 2
            outline = self._outline(kind, cx, top, width, height)
            paint.poly(img, outline, rgb)
            paint.line(
                img, (cx - width / 2 + 4, top + 20), (cx - width / 2 + 9, top + height * 0.7), paint.shade(rgb, 0.9), 2
            )
            if kind == "towel":
                paint.line(
                    img,
                    (cx - width / 2, top + height * 0.82),
                    (cx + width / 2, top + height * 0.82),
                    (250, 250, 250),
                    4,
                )
            if wet > 0:
                # the wet part is darker, from a wavy line down to the hem
                mask, (x0, y0) = paint.poly_mask(outline)
                edge = top + height * (1 - wet) - y0
                wave = edge + 5 * np.sin((np.arange(mask.shape[1], dtype=np.float32) + x0) / 9.0 + cx)
                rows = np.arange(mask.shape[0], dtype=np.float32)[:, None]
                mask = mask * (rows >= wave[None, :])
                view = img[y0 : y0 + mask.shape[0], x0 : x0 + mask.shape[1]]
                m = mask[: view.shape[0], : view.shape[1], None]
                view[:] = np.clip(view.astype(np.float32) * (1 - (1 - WET) * m), 0, 255).astype(np.uint8)
                for k in range(int(round(5 * wet))):
                    x = cx - width * 0.35 + k * width * 0.17
                    paint.ellipse(img, (x, top + height + 8 + 9 * ((k * 7) % 3)), (2, 3.5), (150, 190, 230))
                paint.ellipse(img, (cx, look.ground_y + 26), (width * 0.45 * wet + 2, 6 * wet + 1), (62, 104, 52))
            for px in (cx - width * 0.35, cx + width * 0.35):
                y = self._line(look, px)
                paint.rounded_rect(img, (px - 3, y - 8, px + 3, y + 10), 1, (196, 160, 110))
        return img

    def measure(self, img: np.ndarray, base: np.ndarray, look: LaundryLook) -> Reading:
        wet = total = 0.0
        boxes = []
        for _, _, rgb, cx, width, height in look.items:
            top = int(self._line(look, cx) - 2)
            x0, x1 = int(cx - width / 2 - width * 0.16), int(cx + width / 2 + width * 0.16) + 1
            region = img[top : int(top + height) + 1, x0:x1]
            dry = paint.near(region, rgb, 22)
            soaked = paint.near(region, paint.shade(rgb, WET), 22)
            wet += float(soaked.sum())
            total += float((dry | soaked).sum())
            boxes.append((x0, top, x1, int(top + height) + 1))
        box = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]
        return Reading(100.0 * wet / max(total, 1.0), box)

    def span(self, look: LaundryLook) -> float:
        return 100.0

    def state(self, look: LaundryLook, t: float) -> str:
        n = len(look.items)
        if t <= 0:
            return f"{n} soaking-wet pieces of washing on a line, dark all over and dripping onto the grass"
        if t >= 1:
            return f"{n} pieces of washing hanging dry on the line, light all over, with no drips"
        # as draw darkens them: the lower (1 - t) of each piece's length, up to a wavy line (a frame 13% wet and
        # one 26% wet were both 'wet over only their hems')
        wet = share_words(1 - t)
        wet = f"about the lower {wet[6:]}" if wet.startswith("about ") else f"the lower {_bare(wet)}"
        drips = ", dripping onto the grass" if round(5 * (1 - t)) > 0 else ""  # as draw lets the drops fall
        return (
            f"{n} pieces of washing on a line, dry and light at the top, still wet and dark over {wet} of their "
            f"length{drips}"
        )

    def amount(self, value: float, look: LaundryLook) -> str:
        return f"about {round(value)}% still wet"


FAMILIES: dict[str, Family] = {f.name: f for f in (Cooking(), Plant(), Ice(), House(), Laundry(), Fence(), Candle())}
