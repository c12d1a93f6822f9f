"""The scene families of yes_but: ten kinds of promise and the reality that breaks it.

Every family draws one pair of panels per promise: the YES panel shows the promise as it is printed or pictured
(a label, a menu photo, a timetable, a price tag, a road sign, ...) and the BUT panel shows what is really there
(the contents counted, a scale's display, a clock, a receipt, a measuring jug, a tape measure, a calendar, a
speedometer, the aisle with the spill). Both are numbers on one lattice of ``step`` units: the promise ``P`` read
from the YES panel and the reality ``R`` read from the BUT panel, and the family's ``gap(P, R)`` is how far the
reality falls short of the promise (always counted the way the promise is broken: fewer, later, dearer, ...).

Each reading is measured from the drawn panel: items are counted as connected mask regions, the hands of a clock
and the needle of a speedometer are read from the angle of their mask pixels, a liquid's level and a strap's length
against the drawn scale, the circled day of a calendar from the circle's place in the grid. Printed numbers (a
label, a display, a receipt line) are what was typeset, checked to be large enough to read.
"""

from __future__ import annotations

import calendar
import datetime
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.analytical.canvas import RGB, Canvas, jitter, mask_box, mix, shade
from mirforge.generators.analytical.yes_but.panels import (
    PAPER,
    Style,
    backdrop,
    box_pts,
    edge,
    ellipse_pts,
    panel,
    sticker,
)

MIN_TEXT_PX = 14  # printed numbers at least this tall (cap height of the digits), or the reading is refused
MIN_ITEM_PX = 120  # a counted item shows at least this many pixels
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
MONTH_NAMES = "JANUARY FEBRUARY MARCH APRIL MAY JUNE JULY AUGUST SEPTEMBER OCTOBER NOVEMBER DECEMBER".split()
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # a year that is not a leap year
# the year a calendar prints, by the weekday of its 1 January (0: Monday, its first column): never a leap year, so a
# best-before date in February and a day in March are as many days apart as MONTH_DAYS says, and a reader can tell
CALENDAR_YEARS = {datetime.date(y, 1, 1).weekday(): y for y in range(2018, 2028) if not calendar.isleap(y)}
CURRENCIES = ("$", "€", "£")
WORDS = ("zero", "one", "two", "three", "four")


@dataclass(frozen=True)
class Pair:
    """One promise and its reality: ``promise`` and ``actual`` on the family's lattice, and how they look."""

    promise: int
    actual: int
    look: dict[str, Any] = field(default_factory=dict)


@dataclass
class Drawn:
    canvas: Canvas
    regions: list[tuple[str, list[int]]]
    reading: dict[str, Any]  # what was read from the panel: at least "value"
    names: list[str] | None = None  # mask id k + 1 -> the name of what it covers (for a realism pass)


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def count_items(cv: Canvas, n_ids: int) -> int:
    """Items counted from the mask: ids 1..n_ids, each a region of at least MIN_ITEM_PX pixels."""
    sizes = np.bincount(cv.mask.ravel(), minlength=n_ids + 1)[1 : n_ids + 1]
    if (sizes < MIN_ITEM_PX).any():
        raise Reject("an item is hidden")
    return int((sizes >= MIN_ITEM_PX).sum())


def printed(cv: Canvas, box: list[int], value: int, **extra: Any) -> dict[str, Any]:
    """The reading of a printed number: legible (tall enough, inside the panel) or refused."""
    x0, y0, x1, y1 = box
    if y1 - y0 < MIN_TEXT_PX or x0 < 0 or y0 < 0 or x1 > cv.size or y1 > cv.size:
        raise Reject("a printed number is too small or cut off")
    return {"value": value, "box": box, **extra}


def grid_spots(
    rng: np.random.Generator, n: int, x0: float, y0: float, x1: float, y1: float, r: float
) -> list[tuple[int, int]]:
    """``n`` item centres (every cell for ``n < 0``) on a jittered grid inside the rectangle, in random order; items
    of radius ``r`` never touch."""
    cell = 2 * r + 8
    cols, rows = int((x1 - x0) // cell), int((y1 - y0) // cell)
    n = cols * rows if n < 0 else n
    if cols * rows < n:
        raise Reject("items do not fit")
    slack_x = (x1 - x0 - cols * cell) / 2
    slack_y = (y1 - y0 - rows * cell) / 2
    chosen = rng.permutation(cols * rows)[:n]
    out = []
    for c in chosen:
        col, row = int(c) % cols, int(c) // cols
        jx, jy = rng.uniform(-3, 3, size=2)
        out.append((round(x0 + slack_x + (col + 0.5) * cell + jx), round(y0 + slack_y + (row + 0.5) * cell + jy)))
    return out


def pick(rng: np.random.Generator, items: tuple | list) -> Any:
    return items[int(rng.integers(len(items)))]


def is_plural(noun: str) -> bool:
    """Whether a product's name takes a plural verb: lentils and coffee beans, unlike rice, honey or olive oil."""
    return noun.endswith("s") and not noun.endswith("ss")


# -- the family contract ----------------------------------------------------------------------------------------
class Family:
    name: ClassVar[str]
    step: ClassVar[int]  # the lattice of promises, realities and gaps
    gaps: ClassVar[tuple[int, int]]  # the gap of one pair, in units, both ends included (multiples of step)
    promises: ClassVar[tuple[int, int]]  # promises drawn, both ends included
    cyclic: ClassVar[int] = 0  # readings wrap around this many units (a 12-hour clock), 0: they do not
    kinds: ClassVar[tuple[str, ...]] = ("",)  # what is promised (cookies, coffee, ...): one per instance
    # keys of the look that every pair of a scene takes from the first: one currency to add up, and the look of a
    # device that several BUT panels show (the kitchen scale, the car's speedometer, the wall calendar)
    shared: ClassVar[tuple[str, ...]] = ()

    # -- sampling -------------------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, gap: int, kind: str) -> Pair:
        lo, hi = self.promises
        p = lo + self.step * int(rng.integers((hi - lo) // self.step + 1))
        return Pair(p, self.actual(p, gap, rng), {"kind": kind, **self.look(rng, p)})

    def actual(self, promise: int, gap: int, rng: np.random.Generator) -> int:
        """The reality that falls ``gap`` short of ``promise`` (shortfall families: fewer)."""
        return promise - gap

    def gap(self, promise: int, actual: int) -> int:
        return promise - actual

    def look(self, rng: np.random.Generator, promise: int) -> dict[str, Any]:
        return {}

    # -- text -------------------------------------------------------------------------------------------------
    units: ClassVar[tuple[str, str]] = ("", "")  # the unit of a gap, one and many ("minute", "minutes")
    suffix: ClassVar[str] = ""  # what follows the amount in an option ("fewer than promised")
    suffix_many: ClassVar[str] = ""  # the same for a total over several pairs, where it differs ("... sale prices")
    by: ClassVar[str] = "short by"  # how a pair misses its promise, before the amount
    claim: ClassVar[str] = "promises"  # what a YES panel does with its value ("sets a limit of")
    gap_noun: ClassVar[str] = "shortfall"  # what the steps call a gap ("the delay", "the overcharge")
    stated: ClassVar[str] = "the promised amount"  # what the steps call a YES panel's value ("the limit")

    def unit(self, pair: Pair) -> tuple[str, str]:
        return self.units

    def amount(self, n: int, pair: Pair) -> str:
        one, many = self.unit(pair)
        return f"{n} {one if n == 1 else many}"

    def option(self, n: int, pair: Pair, pairs: int = 1) -> str:
        return f"{self.amount(n, pair)} {self.suffix_many if pairs > 1 and self.suffix_many else self.suffix}"

    def ask(self, pair: Pair, k: int) -> str:
        raise NotImplementedError

    def shows(self, pair: Pair) -> tuple[str, str]:
        """What a YES and a BUT panel show, without any number: for the question."""
        raise NotImplementedError

    def yes_says(self, pair: Pair, reading: dict[str, Any]) -> str:
        """Caption of a YES panel: what it shows, its printed promise included."""
        raise NotImplementedError

    def but_says(self, pair: Pair, reading: dict[str, Any]) -> str:
        raise NotImplementedError

    def value_text(self, value: int, pair: Pair) -> str:
        """A reading as the steps write it, with its unit."""
        return self.amount(value, pair)

    def actual_text(self, value: int, pair: Pair) -> str:
        return self.value_text(value, pair)

    # -- drawing ----------------------------------------------------------------------------------------------
    def yes(self, size: int, style: Style, pair: Pair, title: str) -> Drawn:
        raise NotImplementedError

    def but(self, size: int, style: Style, pair: Pair, title: str) -> Drawn:
        raise NotImplementedError


# -- 1. a box label versus its contents ----------------------------------------------------------------------------
BOX_ITEMS = {  # name -> (colour, radius)
    "cookie": ((176, 122, 70), 15),
    "egg": ((238, 226, 200), 15),
    "chocolate": ((92, 56, 34), 14),
    "macaron": ((236, 150, 180), 14),
    "doughnut": ((214, 150, 90), 16),
}
BRANDS = ("Golden", "Mia's", "Crumb & Co", "Hearth", "Sunny", "Maison", "Nordic", "Bramble")


def draw_item(cv: Canvas, kind: str, x: float, y: float, r: float, mid: int, color: RGB) -> None:
    if kind == "egg":
        cv.ellipse(x, y, r * 0.82, r, color, mid)
        cv.ellipse(x - r * 0.25, y - r * 0.35, r * 0.18, r * 0.28, mix(color, (255, 255, 255), 0.6))
    elif kind == "chocolate":
        cv.rect(x - r, y - r, x + r, y + r, color, mid)
        cv.line((x - r * 0.5, y), (x + r * 0.5, y - r * 0.3), shade(color, 1.5), 2)
    elif kind == "doughnut":
        cv.circle(x, y, r, color, mid)
        cv.circle(x, y, r * 0.72, (236, 120, 160))
        cv.circle(x, y, r * 0.3, shade(color, 0.55))
    elif kind == "macaron":
        cv.circle(x, y, r, color, mid)
        cv.line((x - r, y), (x + r, y), shade(color, 0.7), 3)
    else:  # cookie, and the round dishes
        cv.circle(x, y, r, color, mid)
        for dx, dy in ((-0.4, -0.2), (0.3, 0.35), (0.2, -0.45)):
            cv.circle(x + dx * r, y + dy * r, max(2, r * 0.16), shade(color, 0.45))


class BoxCount(Family):
    name = "box_count"
    stated = "the count printed on the box"
    step = 1
    gaps = (1, 7)
    promises = (9, 20)
    kinds = tuple(BOX_ITEMS)
    suffix = "fewer than promised"

    def unit(self, pair):
        return pair.look["kind"], pair.look["kind"] + "s"

    def shows(self, pair):
        return f"a closed box of {pair.look['kind']}s with its label", "the same box opened"

    def look(self, rng, promise):
        return {
            "box": jitter(rng, pick(rng, [(150, 100, 60), (60, 120, 150), (170, 60, 70), (90, 130, 80)]), 14),
            "brand": pick(rng, BRANDS),
            "layout": int(rng.integers(3)),
            "dx": int(rng.integers(-30, 31)),
            "dy": int(rng.integers(-20, 21)),
            "seed": int(rng.integers(2**31)),
        }

    def ask(self, pair, k):
        item = pair.look["kind"] + "s"
        if k == 1:
            return f"How many {item} fewer than its label promises does the box hold?"
        return f"Added up over the {WORDS[k]} boxes, how many {item} fewer than their labels promise do they hold?"

    def yes_says(self, pair, reading):
        return f"a closed {pair.look['brand']} box whose label promises {reading['value']} {pair.look['kind']}s"

    def but_says(self, pair, reading):
        return f"the same box opened, with {plural(reading['value'], pair.look['kind'])} inside"

    def yes(self, size, style, pair, title):
        lk = pair.look
        floor = 330 + lk["dy"]
        cv = panel(size, style, title, floor)
        x0, x1, y0 = 84 + lk["dx"], 364 + lk["dx"], 150 + lk["dy"]
        cv.rect(x0, y0 + 24, x1, floor + 10, lk["box"])
        cv.rect(x0 - 10, y0, x1 + 10, y0 + 30, shade(lk["box"], 0.78))  # the lid
        outline = [(x0 - 10, y0), (x1 + 10, y0), (x1 + 10, y0 + 30), (x1, y0 + 30), (x1, floor + 10)]
        outline += [(x0, floor + 10), (x0, y0 + 30), (x0 - 10, y0 + 30)]
        edge(cv, style, outline, [lk["box"], shade(lk["box"], 0.78)])
        lx0, ly0, lx1, ly1 = x0 + 40, y0 + 56, x1 - 40, floor - 12
        cv.rect(lx0, ly0, lx1, ly1, PAPER)
        cv.frame(lx0, ly0, lx1, ly1, shade(lk["box"], 0.6), 2)
        cx, item = (lx0 + lx1) / 2, lk["kind"].upper() + "S"
        cv.text(lk["brand"], cx, ly0 + 18, 16, shade(lk["box"], 0.6), "serif-light")
        if lk["layout"] == 0:
            box = cv.text(str(pair.promise), cx, ly0 + 58, 40, (20, 20, 20), style.face)
            cv.text(item, cx, ly0 + 96, 20, (20, 20, 20), style.face, fit=190)
        elif lk["layout"] == 1:
            box = cv.text(f"{pair.promise} {item}", cx, ly0 + 66, 24, (20, 20, 20), style.face, fit=190)
        else:
            cv.text(item, cx, ly0 + 50, 22, (20, 20, 20), style.face, fit=190)
            box = cv.text(f"PACK OF {pair.promise}", cx, ly0 + 88, 22, (20, 20, 20), style.face, fit=190)
        regions = [("box", [x0 - 10, y0, x1 + 11, floor + 11]), ("label", [lx0, ly0, lx1 + 1, ly1 + 1])]
        return Drawn(cv, regions, printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 150 + lk["dy"] // 2)
        x0, y0, x1, y1 = 70 + lk["dx"] // 2, 150, 378 + lk["dx"] // 2, 420
        cv.rect(x0 - 8, y0 - 8, x1 + 8, y1 + 8, lk["box"])
        cv.rect(x0, y0, x1, y1, shade(lk["box"], 0.55))
        edge(cv, style, box_pts(x0 - 8, y0 - 8, x1 + 8, y1 + 8), lk["box"])
        cv.rect(x0 + 30, 70, x1 - 30, y0 - 14, shade(lk["box"], 0.78))  # the lid, propped up behind
        edge(cv, style, box_pts(x0 + 30, 70, x1 - 30, y0 - 14), shade(lk["box"], 0.78))
        color, r = BOX_ITEMS[lk["kind"]]
        rng = np.random.default_rng(lk["seed"])
        for i, (x, y) in enumerate(grid_spots(rng, pair.actual, x0 + 6, y0 + 6, x1 - 6, y1 - 6, r), start=1):
            draw_item(cv, lk["kind"], x, y, r, i, color)
        n = count_items(cv, pair.actual)
        regions = [("open box", [x0 - 8, y0 - 8, x1 + 9, y1 + 9])]
        regions += [(f"{lk['kind']} {i}", mask_box(cv.mask, i)) for i in range(1, pair.actual + 1)]
        return Drawn(cv, regions, {"value": n}, [lk["kind"]] * pair.actual)


# -- 2. a menu photo versus the plate ------------------------------------------------------------------------------
DISHES = {  # dish -> (piece, pieces, colour, radius)
    "dumplings": ("dumpling", "dumplings", (238, 222, 186), 17),
    "meatballs": ("meatball", "meatballs", (132, 72, 44), 16),
    "sushi": ("sushi roll", "sushi rolls", (40, 70, 40), 16),
    "strawberries": ("strawberry", "strawberries", (214, 40, 50), 15),
}


_t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
STRAWBERRY = np.c_[  # unit outline, y down: an ellipse's upper half, a lower half narrowing towards the tip
    0.95 * np.cos(_t) * np.where(np.sin(_t) > 0, 1 - 0.55 * np.sin(_t), 1.0),
    np.where(np.sin(_t) > 0, 1.0, 0.6) * np.sin(_t),
]
SEEDS = ((-0.45, -0.1), (0.0, -0.15), (0.45, -0.1), (-0.25, 0.3), (0.25, 0.3), (0.0, 0.65))
_leaf = np.linspace(0, 2 * np.pi, 10, endpoint=False) - np.pi / 2
CROWN = np.c_[  # five pointed leaves round the stalk, flattened onto the berry's shoulders
    np.where(np.arange(10) % 2 == 0, 0.7, 0.22) * np.cos(_leaf),
    np.where(np.arange(10) % 2 == 0, 0.35, 0.12) * np.sin(_leaf) - 0.55,
]


def draw_piece(cv: Canvas, dish: str, x: float, y: float, r: float, mid: int) -> None:
    color = DISHES[dish][2]
    if dish == "sushi":
        cv.circle(x, y, r, color, mid)
        cv.circle(x, y, r * 0.72, (246, 246, 240))
        cv.circle(x, y, r * 0.3, (240, 120, 90))
    elif dish == "dumplings":
        cv.ellipse(x, y, r, r * 0.72, color, mid)
        for t in (-0.5, 0.0, 0.5):
            cv.line((x + t * r, y - r * 0.7), (x + t * r * 0.6, y - r * 0.2), shade(color, 0.8), 1)
    elif dish == "strawberries":  # broad shoulders tapering to a rounded tip, pale seeds, a crown of leaves
        cv.poly(STRAWBERRY * r + (x, y), color, mid)
        for sx, sy in SEEDS:
            cv.circle(x + sx * r, y + sy * r, max(1.0, 0.075 * r), (250, 224, 130))
        cv.poly(CROWN * r + (x, y), (50, 140, 50))
    else:
        cv.circle(x, y, r, color, mid)
        cv.circle(x - r * 0.3, y - r * 0.3, r * 0.3, shade(color, 1.35))


def plate_spots(
    rng: np.random.Generator, n: int, cx: float, cy: float, rx: float, ry: float, r: float
) -> tuple[list[tuple[int, int]], float]:
    """Piece centres inside an elliptic plate, never touching, and the piece radius: ``r``, or smaller where
    ``n`` pieces of radius ``r`` do not fit."""
    for size in (r, r - 2, r - 4, r - 5):
        grid = grid_spots(rng, -1, cx - rx, cy - ry, cx + rx, cy + ry, size)
        spots = [s for s in grid if _inside(s, cx, cy, rx - size, ry - size)]
        if len(spots) >= n:
            return spots[:n], size
    raise Reject("pieces do not fit on the plate")


def _inside(p: tuple[int, int], cx: float, cy: float, rx: float, ry: float) -> bool:
    return ((p[0] - cx) / rx) ** 2 + ((p[1] - cy) / ry) ** 2 <= 1


class MenuPhoto(Family):
    name = "menu_photo"
    stated = "the number in the menu photo"
    step = 1
    gaps = (1, 7)
    promises = (8, 13)
    kinds = tuple(DISHES)
    suffix = "fewer than in the photo"
    suffix_many = "fewer than in the photos"

    def unit(self, pair):
        return DISHES[pair.look["kind"]][:2]

    def shows(self, pair):
        return f"the menu with a photo of the {pair.look['kind']}", "the plate as it was served"

    def look(self, rng, promise):
        return {
            "board": pick(rng, [(44, 52, 48), (250, 244, 226), (120, 30, 40)]),
            "price": f"{int(rng.integers(6, 19))}.{pick(rng, ['00', '50', '90'])}",
            "dx": int(rng.integers(-24, 25)),
            "seed": int(rng.integers(2**31)),
        }

    def piece(self, pair):
        return DISHES[pair.look["kind"]][0]

    def ask(self, pair, k):
        if k == 1:
            return f"How many {self.unit(pair)[1]} fewer than the menu photo shows are on the plate?"
        pieces = self.unit(pair)[1]
        return f"Added up over the {WORDS[k]} dishes, how many {pieces} fewer than the menu photos show are served?"

    def yes_says(self, pair, reading):
        return f"a menu whose photo of the {pair.look['kind']} shows {self.amount(reading['value'], pair)}"

    def but_says(self, pair, reading):
        return f"the plate of {pair.look['kind']} as served, with {self.amount(reading['value'], pair)}"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        dark = sum(lk["board"]) < 300
        ink = (240, 240, 230) if dark else (30, 30, 30)
        x0, x1 = 56 + lk["dx"], 392 + lk["dx"]
        cv.rect(x0 - 8, 66, x1 + 8, 432, shade(lk["board"], 0.7))
        edge(cv, style, box_pts(x0 - 8, 66, x1 + 8, 432), shade(lk["board"], 0.7))
        cv.rect(x0, 74, x1, 424, lk["board"])
        cv.text("MENU", (x0 + x1) / 2, 96, 22, ink, "serif")
        cv.text(lk["kind"].upper(), (x0 + x1) / 2, 128, 22, ink, style.face)
        px0, py0, px1, py1 = x0 + 24, 150, x1 - 24, 380  # the photo
        cv.rect(px0, py0, px1, py1, (226, 214, 196))
        cv.frame(px0, py0, px1, py1, (255, 255, 255), 4)
        cx, cy = (px0 + px1) / 2, (py0 + py1) / 2
        cv.ellipse(cx, cy + 6, 128, 86, (252, 252, 252))
        cv.ellipse(cx, cy + 6, 104, 66, (238, 238, 236))
        r = DISHES[lk["kind"]][3]
        rng = np.random.default_rng(lk["seed"])
        spots, r = plate_spots(rng, pair.promise, cx, cy + 6, 104, 66, r)
        for i, (x, y) in enumerate(spots, start=1):
            draw_piece(cv, lk["kind"], x, y, r, i)
        cv.text(lk["price"], (x0 + x1) / 2, 404, 20, ink, style.face)
        n = count_items(cv, pair.promise)
        regions = [("menu", [x0 - 8, 66, x1 + 9, 433]), ("menu photo", [px0, py0, px1 + 1, py1 + 1])]
        return Drawn(cv, regions, {"value": n}, [self.piece(pair)] * pair.promise)

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 90)
        cx, cy = 224 + lk["dx"] // 2, 270
        cv.ellipse(cx, cy + 8, 170, 120, shade(style.floor, 0.7))
        cv.ellipse(cx, cy, 170, 120, (252, 252, 252))
        edge(cv, style, ellipse_pts(cx, cy, 170, 120), (252, 252, 252))
        cv.ellipse(cx, cy, 140, 96, (238, 238, 236))
        cv.rect(cx + 180, 150, cx + 190, 400, (190, 190, 196))  # a knife beside the plate
        edge(cv, style, box_pts(cx + 180, 150, cx + 190, 400), (190, 190, 196))
        r = DISHES[lk["kind"]][3] + 3
        rng = np.random.default_rng(lk["seed"] + 1)
        spots, r = plate_spots(rng, pair.actual, cx, cy, 140, 96, r)
        for i, (x, y) in enumerate(spots, start=1):
            draw_piece(cv, lk["kind"], x, y, r, i)
        n = count_items(cv, pair.actual)
        regions = [("plate", [cx - 170, cy - 120, cx + 171, cy + 129])]
        regions += [(f"{self.piece(pair)} {i}", mask_box(cv.mask, i)) for i in range(1, pair.actual + 1)]
        return Drawn(cv, regions, {"value": n}, [self.piece(pair)] * pair.actual)


# -- 3. a net weight on a package versus the kitchen scale ----------------------------------------------------------
PRODUCTS = {  # name -> (package colour, contents colour)
    "coffee": ((70, 44, 30), (96, 60, 36)),
    "rice": ((230, 230, 222), (244, 242, 232)),
    "pasta": ((40, 80, 160), (236, 196, 96)),
    "sugar": ((200, 40, 60), (250, 250, 250)),
    "lentils": ((60, 120, 70), (200, 120, 60)),
}


class NetWeight(Family):
    name = "net_weight"
    stated = "the net weight on the label"
    step = 10
    gaps = (20, 80)
    promises = (250, 1000)
    kinds = tuple(PRODUCTS)
    units = ("g", "g")
    claim = "states a net weight of"
    suffix = "less than stated"
    shared = ("display",)  # one kitchen scale weighs every package

    def shows(self, pair):
        return f"a package of {pair.look['kind']}", "its contents on a kitchen scale"

    def look(self, rng, promise):
        return {
            "wording": pick(rng, ["NET WT {} g", "{} g", "NET {} g"]),
            "display": pick(rng, [((30, 40, 30), (120, 240, 120)), ((20, 20, 24), (240, 80, 60))]),
            "dx": int(rng.integers(-30, 31)),
        }

    def ask(self, pair, k):
        if k == 1:
            kind = pair.look["kind"]
            if is_plural(kind):
                return f"How many grams less than their package states do the {kind} weigh?"
            return f"How many grams less than its package states does the {kind} weigh?"
        return f"Added up over the {WORDS[k]} packages, how many grams less than stated do their contents weigh?"

    def yes_says(self, pair, reading):
        return f"a package of {pair.look['kind']} printed with a net weight of {reading['value']} g"

    def but_says(self, pair, reading):
        return f"the {pair.look['kind']} poured onto a kitchen scale, whose display reads {reading['value']} g"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 380)
        color, _ = PRODUCTS[lk["kind"]]
        x0, x1 = 124 + lk["dx"], 324 + lk["dx"]
        pts = [(x0 + 10, 110), (x1 - 10, 110), (x1, 140), (x1 + 6, 384), (x0 - 6, 384), (x0, 140)]
        cv.poly(pts, color)
        cv.rect(x0 + 10, 92, x1 - 10, 112, shade(color, 0.8))  # the crimped top
        edge(cv, style, [(x0 + 10, 92), (x1 - 10, 92), *pts[1:], pts[0]], [color, shade(color, 0.8)])  # and its top
        ink = (250, 250, 250) if sum(color) < 380 else (30, 30, 30)
        cv.text(lk["kind"].upper(), (x0 + x1) / 2, 180, 28, ink, "serif")
        cv.rect(x0 + 20, 290, x1 - 20, 350, PAPER)
        edge(cv, style, box_pts(x0 + 20, 290, x1 - 20, 350), PAPER, on=[color])  # the label
        box = cv.text(lk["wording"].format(pair.promise), (x0 + x1) / 2, 320, 24, (20, 20, 20), style.face, fit=144)
        return Drawn(cv, [("package", [x0 - 6, 92, x1 + 7, 385])], printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 330)
        color, stuff = PRODUCTS[lk["kind"]]
        cx = 180 + lk["dx"] // 2
        scale, pan = (214, 214, 220), (180, 180, 188)
        cv.rect(cx - 140, 300, cx + 140, 350, scale)
        cv.rect(cx - 150, 290, cx + 150, 302, pan)
        outline = [(cx - 150, 290), (cx + 150, 290), (cx + 150, 302), (cx + 140, 302), (cx + 140, 350)]
        edge(cv, style, [*outline, (cx - 140, 350), (cx - 140, 302), (cx - 150, 302)], [scale, pan])
        bg, fg = lk["display"]
        cv.rect(cx - 60, 308, cx + 60, 344, bg)
        box = cv.text(f"{pair.actual} g", cx, 326, 24, fg, "mono")
        cv.ellipse(cx, 250, 110, 36, stuff)  # the contents heaped in a bowl
        edge(cv, style, ellipse_pts(cx, 250, 110, 36), stuff)
        bowl = [(cx - 120, 250), (cx + 120, 250), (cx + 80, 290), (cx - 80, 290)]
        cv.poly(bowl, (236, 236, 240))
        edge(cv, style, bowl, (236, 236, 240), on=[*backdrop(style), stuff, pan])  # under the heap, on the pan
        pts = [(cx + 170, 230), (cx + 230, 230), (cx + 236, 330), (cx + 164, 330)]
        cv.poly(pts, color)  # the empty package beside the scale
        edge(cv, style, pts, color)
        regions = [("digital display", [cx - 60, 308, cx + 61, 345]), ("empty package", [cx + 164, 230, cx + 237, 331])]
        return Drawn(cv, regions, printed(cv, box, pair.actual))


# -- 4. a timetable versus a clock ---------------------------------------------------------------------------------
def clock_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def hand_angle(mask: np.ndarray, mid: int, cx: float, cy: float) -> float:
    """Clockwise angle from 12 o'clock, in degrees, of the mean direction of a hand's pixels."""
    ys, xs = np.nonzero(mask == mid)
    if len(xs) < 20:
        raise Reject("a clock hand is hidden")
    dx, dy = float((xs - cx).mean()), float((ys - cy).mean())
    return math.degrees(math.atan2(dx, -dy)) % 360


class Timetable(Family):
    name = "timetable"
    stated = "the time in the timetable"
    step = 5
    gaps = (10, 40)
    promises = (6 * 60, 21 * 60 + 55)
    cyclic = 12 * 60
    kinds = ("bus", "tram", "ferry")
    units = ("minute", "minutes")
    suffix = "late"
    by = "late by"
    gap_noun = "delay"
    shared = ("face", "numerals")  # the stop clocks of one city are one model

    def shows(self, pair):
        return f"the timetable at a {pair.look['kind']} stop", f"the {pair.look['kind']} arriving under a clock"

    def actual(self, promise, gap, rng):
        return promise + gap

    def gap(self, promise, actual):
        return (actual - promise) % self.cyclic

    def look(self, rng, promise):
        return {
            "line": int(rng.integers(2, 99)),
            "stop": pick(rng, ["MARKET SQ.", "OLD MILL", "HARBOUR", "STATION RD.", "PARK GATE", "CITY HALL"]),
            "numerals": bool(rng.integers(2)),
            "face": pick(rng, [(250, 250, 246), (246, 236, 210), (30, 34, 40)]),
            "dx": int(rng.integers(-24, 25)),
        }

    def ask(self, pair, k):
        v = pair.look["kind"]
        if k == 1:
            return f"How many minutes later than the timetable says does the {v} arrive?"
        return (
            f"Added up over the {WORDS[k]} trips, how many minutes later than their timetables do the vehicles arrive?"
        )

    def actual_text(self, value, pair):
        # the dial's 12-hour reading on the timetable's day
        return _on_clock((value + 720 * round((pair.promise - value) / 720)) % 1440)

    def value_text(self, value, pair):
        return clock_time(value)

    def yes_says(self, pair, reading):
        when = clock_time(reading["value"])
        return f"the timetable at the {pair.look['kind']} stop, giving the next arrival at {when}"

    def but_says(self, pair, reading):
        return f"the {pair.look['kind']} arriving under a clock that shows {self.actual_text(reading['value'], pair)}"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 400)
        x = 130 + lk["dx"]
        cv.rect(x - 6, 90, x + 6, 402, (120, 124, 130))  # the pole
        edge(cv, style, box_pts(x - 6, 90, x + 6, 402), (120, 124, 130))
        cv.circle(x, 96, 34, (40, 120, 60) if lk["kind"] != "ferry" else (30, 80, 160))
        cv.text(lk["kind"].upper()[0], x, 96, 30, (255, 255, 255), "sans")
        bx0, by0, bx1, by1 = x + 30, 150, x + 262, 360
        cv.rect(bx0, by0, bx1, by1, PAPER)
        cv.frame(bx0, by0, bx1, by1, (60, 60, 70), 3)
        cv.rect(bx0, by0, bx1, by0 + 40, (250, 206, 40))
        cv.text(f"LINE {lk['line']}", (bx0 + bx1) / 2, by0 + 20, 22, (20, 20, 20), "sans")
        cv.text(lk["stop"], (bx0 + bx1) / 2, by0 + 64, 18, (40, 40, 40), style.face)
        cv.text("NEXT ARRIVAL", (bx0 + bx1) / 2, by0 + 104, 16, (40, 40, 40), style.face)
        box = cv.text(clock_time(pair.promise), (bx0 + bx1) / 2, by0 + 150, 40, (20, 20, 20), "mono")
        regions = [("timetable", [bx0, by0, bx1 + 1, by1 + 1])]
        return Drawn(cv, regions, printed(cv, box, pair.promise, text=clock_time(pair.promise)))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 390)
        cx, cy, r = 224 + lk["dx"], 190, 112
        face = lk["face"]
        ink = (240, 240, 240) if sum(face) < 300 else (20, 20, 24)
        cv.rect(cx - 5, cy, cx + 5, 392, (90, 94, 100))
        edge(cv, style, box_pts(cx - 5, cy, cx + 5, 392), (90, 94, 100))  # the clock's post
        cv.circle(cx, cy, r + 10, (70, 74, 82))
        edge(cv, style, ellipse_pts(cx, cy, r + 10, r + 10), (70, 74, 82))
        cv.circle(cx, cy, r, face)
        for m in range(60):
            a = math.radians(m * 6)
            inner = r - (16 if m % 5 == 0 else 7)
            p0 = (cx + inner * math.sin(a), cy - inner * math.cos(a))
            p1 = (cx + (r - 3) * math.sin(a), cy - (r - 3) * math.cos(a))
            cv.line(p0, p1, ink, 4 if m % 5 == 0 else 1)
        if lk["numerals"]:
            for h in range(1, 13):
                a = math.radians(h * 30)
                cv.text(str(h), cx + (r - 32) * math.sin(a), cy - (r - 32) * math.cos(a), 18, ink, "sans")
        t = pair.actual % self.cyclic
        hour_a, minute_a = (t / 720) * 360, (t % 60) * 6
        _hand(cv, cx, cy, hour_a, r * 0.52, 9, ink, 1)
        _hand(cv, cx, cy, minute_a, r * 0.84, 5, ink, 2)
        cv.circle(cx, cy, 7, (200, 40, 40))
        # the vehicle pulling in below the clock, whole between the panel's left edge and the clock's post
        if lk["kind"] != "ferry":
            _coach(cv, style, lk["kind"], lk["line"], 16, 200 + lk["dx"])
        else:  # afloat beside the quay the clock stands on, not on the ground
            _ferry(cv, style, lk["line"], 16, 162 + lk["dx"])
            quay = 176 + lk["dx"]
            cv.rect(0, 386, quay, size, (60, 120, 176))
            cv.rect(quay - 4, 386, quay, size, shade(style.floor, 0.6))
            for wy in (400, 418, 436):
                for wx in range(12 + wy % 24, quay - 24, 40):
                    cv.line((wx, wy), (wx + 18, wy), (150, 196, 228), 2)
        m = hand_angle(cv.mask, 2, cx, cy) / 6
        if abs(m - round(m)) > 0.4:
            raise Reject("the minute hand is between marks")
        minutes = round(m) % 60
        h_raw = (hand_angle(cv.mask, 1, cx, cy) - minutes * 0.5) / 30
        hours = round(h_raw) % 12
        if abs(h_raw - round(h_raw)) > 0.3:
            raise Reject("the hour hand is ambiguous")
        value = hours * 60 + minutes
        regions = [("clock", [cx - r - 10, cy - r - 10, cx + r + 11, cy + r + 11])]
        return Drawn(cv, regions, {"value": value, "clock": _twelve(value)})


VEHICLE = {"bus": (200, 50, 50), "tram": (240, 200, 40), "ferry": (250, 250, 250)}  # body colours
WHEEL = (34, 34, 38)
GLASS = (160, 200, 230)
GROUND = 390  # the stop's pavement, where the BUT panel's floor starts


def _coach(cv: Canvas, style: Style, kind: str, line: int, x0: float, x1: float) -> None:
    """A bus or a tram facing right, from ``x0`` to ``x1``, on its wheels on the ground: a long body with a row
    of side windows, a door and windscreen at the front, the line number on the front display."""
    color, top, bottom = VEHICLE[kind], 318, GROUND - 12
    body = [(x0, top + 8), (x0 + 8, top), (x1 - 14, top), (x1, top + 14), (x1, bottom), (x0, bottom)]
    cv.poly(body, color)
    edge(cv, style, body, color)
    if kind == "tram":  # the pantograph up to the wire
        cv.line(((x0 + x1) / 2 - 16, top), ((x0 + x1) / 2, top - 10), (60, 60, 66), 2)
        cv.line(((x0 + x1) / 2, top - 10), ((x0 + x1) / 2 + 16, top), (60, 60, 66), 2)
    cv.rect(x0, bottom - 14, x1, bottom - 9, shade(color, 0.7))  # the skirt stripe
    for wx in np.arange(x0 + 8, x1 - 70, 30):
        cv.rect(wx, top + 10, wx + 24, top + 30, GLASS)
    cv.rect(x1 - 58, top + 10, x1 - 38, bottom - 16, shade(GLASS, 0.8))  # the door
    cv.poly(
        [(x1 - 30, top + 10), (x1 - 12, top + 10), (x1 - 2, top + 22), (x1 - 2, top + 40), (x1 - 30, top + 40)], GLASS
    )
    cv.rect(x1 - 30, top + 42, x1 - 4, top + 56, (30, 30, 34))  # the front display
    cv.text(str(line), x1 - 17, top + 49, 12, (250, 190, 40), "sans")
    r = 13 if kind == "bus" else 10
    for wx in (x0 + 32, x1 - 48):
        cv.circle(wx, GROUND - r, r, WHEEL)
        edge(cv, style, ellipse_pts(wx, GROUND - r, r, r), WHEEL)
        cv.circle(wx, GROUND - r, r * 0.4, (170, 170, 176))


def _ferry(cv: Canvas, style: Style, line: int, x0: float, x1: float) -> None:
    """A ferry facing right, from ``x0`` to ``x1``: a hull with a pointed bow, low in the water that starts at
    y 386, and a cabin with round windows and the line number on its side."""
    color = VEHICLE["ferry"]
    ship = [(x0, 350), (x0 + 18, 350), (x0 + 18, 318), (x1 - 40, 318), (x1 - 40, 350), (x1, 350)]
    ship += [(x1 - 22, 396), (x0 + 6, 396)]  # the cabin on the hull, one outline: both are white
    cv.poly(ship, color)
    edge(cv, style, ship, color)
    cv.line((x0 + 18, 350), (x1 - 40, 350), shade(color, 0.6), 2)  # the deck
    cv.rect(x0 + 2, 360, x1 - 8, 366, (40, 90, 160))  # the stripe along the hull
    for wx in np.arange(x0 + 32, x1 - 52, 22):
        cv.circle(wx, 332, 6, GLASS)
    cv.text(str(line), x1 - 28, 376, 12, (20, 20, 20), "sans")


def _twelve(minutes: int) -> str:
    t = minutes % 720
    h = t // 60
    return f"{12 if h == 0 else h}:{t % 60:02d}"


def _on_clock(minutes: int) -> str:
    """A time as the dial shows it, with the timetable's 24-hour reading beside it where the two differ
    ("2:00 (14:00)"), so a step that reads 2:00 after a 13:20 arrival does not switch clocks unsaid."""
    twelve, full = _twelve(minutes), clock_time(minutes)
    return twelve if full in (twelve, "0" + twelve) else f"{twelve} ({full})"


def _hand(cv: Canvas, cx: float, cy: float, angle: float, length: float, width: float, color: RGB, mid: int) -> None:
    a = math.radians(angle)
    ux, uy = math.sin(a), -math.cos(a)
    nx, ny = -uy, ux
    w = width / 2
    pts = [
        (cx + nx * w, cy + ny * w),
        (cx + ux * length + nx * w * 0.5, cy + uy * length + ny * w * 0.5),
        (cx + ux * length - nx * w * 0.5, cy + uy * length - ny * w * 0.5),
        (cx - nx * w, cy - ny * w),
    ]
    cv.poly(pts, color, mid)


# -- 5. a sale price versus the receipt ----------------------------------------------------------------------------
# what each good costs on a shelf, in whole units of the currency (both ends included): a jar of jam is no 39.99
GOODS = {
    "OLIVE OIL": (5, 14),
    "COFFEE BEANS": (5, 15),
    "HONEY": (3, 9),
    "SHAMPOO": (2, 8),
    "TEA": (2, 7),
    "CHEESE": (3, 10),
    "JAM": (2, 5),
    "CEREAL": (2, 6),
    "YOGURT": (2, 4),
    "PASTA": (2, 4),
}


class SalePrice(Family):
    name = "sale_price"
    stated = "the sale price"
    step = 50  # cents
    gaps = (50, 350)
    promises = (149, 1499)  # the span of sale tags over GOODS (1.49 to 14.99); each good draws from its own
    suffix = "more than the sale price"
    suffix_many = "more than the sale prices"
    claim = "gives a sale price of"
    by = "dearer by"
    gap_noun = "overcharge"
    shared = ("currency",)  # the steps add the differences up: one currency per scene

    def amount(self, n, pair):
        return self.money(n, pair)

    def shows(self, pair):
        return "a sale tag on a shop shelf", "the receipt from the till"

    def sample(self, rng, gap, kind):
        look = self.look(rng, 0)
        p = _shelf_price(rng, look["good"], [49, 99])
        return Pair(p, p + gap, {"kind": kind, **look})

    def actual(self, promise, gap, rng):
        return promise + gap

    def gap(self, promise, actual):
        return actual - promise

    def look(self, rng, promise):
        names = list(GOODS)
        goods = [names[int(i)] for i in rng.permutation(len(names))[:4]]
        return {
            "good": goods[0],
            "others": [(g, _shelf_price(rng, g, [19, 49, 79, 99])) for g in goods[1:]],
            "line": int(rng.integers(4)),  # where the good sits on the receipt
            "currency": pick(rng, CURRENCIES),
            "tag": pick(rng, [(250, 214, 40), (230, 50, 50), (250, 140, 40)]),
            "dx": int(rng.integers(-24, 25)),
        }

    def money(self, cents: int, pair: Pair) -> str:
        return f"{pair.look['currency']}{cents // 100}.{cents % 100:02d}"

    def value_text(self, value, pair):
        return self.money(value, pair)

    def ask(self, pair, k):
        if k == 1:
            good = pair.look["good"].lower()
            were = "were" if is_plural(good) else "was"
            return f"How much more than the sale price {were} the {good} charged on the receipt?"
        return f"Added up over the {WORDS[k]} purchases, how much more than the sale prices do the receipts charge?"

    def yes_says(self, pair, reading):
        return f"a shelf tag for {pair.look['good'].lower()} marked SALE at {self.money(reading['value'], pair)}"

    def but_says(self, pair, reading):
        return f"the receipt, which charges {self.money(reading['value'], pair)} for the {pair.look['good'].lower()}"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        cv.rect(0, 250, size, 272, (200, 200, 206))  # the shelf edge
        edge(cv, style, box_pts(-4, 250, size + 4, 272), (200, 200, 206))
        w = 56
        for i, x in enumerate(range(40 + lk["dx"] % 30, size - 12 - w, 74)):  # goods on the shelf, each whole
            c = [(60, 120, 60), (200, 170, 60), (90, 60, 130), (40, 100, 170)][i % 4]
            cv.rect(x, 130 + 10 * (i % 3), x + w, 250, c)
        tx0, tx1 = 104 + lk["dx"], 344 + lk["dx"]
        cv.rect(tx0, 268, tx1, 420, lk["tag"])
        cv.frame(tx0, 268, tx1, 420, shade(lk["tag"], 0.6), 2)
        ink = (255, 255, 255) if lk["tag"][1] < 120 else (20, 20, 20)
        cv.text("SALE", (tx0 + tx1) / 2, 294, 28, ink, "sans")
        cv.text(lk["good"], (tx0 + tx1) / 2, 330, 18, ink, style.face, fit=190)
        box = cv.text(self.money(pair.promise, pair), (tx0 + tx1) / 2, 380, 42, ink, style.face)
        return Drawn(cv, [("price tag", [tx0, 268, tx1 + 1, 421])], printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 300)
        x0, x1 = 110 + lk["dx"], 338 + lk["dx"]
        cv.poly([(x0, 70), (x1, 70), (x1, 430), (x0, 430)], PAPER)
        edge(cv, style, box_pts(x0, 70, x1, 430), PAPER)
        cv.text("RECEIPT", (x0 + x1) / 2, 96, 18, (30, 30, 30), "mono")
        cv.line((x0 + 14, 116), (x1 - 14, 116), (120, 120, 120), 1)
        lines = list(lk["others"])
        lines.insert(lk["line"] % (len(lines) + 1), (lk["good"], pair.actual))
        box = None
        for i, (good, cents) in enumerate(lines):
            y = 142 + 32 * i
            cv.text(good, x0 + 14, y, 14, (30, 30, 30), "mono", anchor="lm")
            b = cv.text(f"{cents // 100}.{cents % 100:02d}", x1 - 14, y, 16, (30, 30, 30), "mono", anchor="rm")
            if good == lk["good"]:
                box = b
        total = sum(c for _, c in lines)
        y = 142 + 32 * len(lines) + 10
        cv.line((x0 + 14, y - 18), (x1 - 14, y - 18), (120, 120, 120), 1)
        cv.text("TOTAL", x0 + 14, y + 6, 16, (30, 30, 30), "mono", anchor="lm")
        cv.text(self.money(total, pair), x1 - 14, y + 6, 16, (30, 30, 30), "mono", anchor="rm")
        if box is None:
            raise Reject("the good is not on the receipt")
        reading = printed(cv, [box[0], box[1] - 2, box[2], box[3] + 2], pair.actual)
        return Drawn(cv, [("receipt", [x0, 70, x1 + 1, 431])], reading)


def _shelf_price(rng: np.random.Generator, good: str, cents: list[int]) -> int:
    """A price in cents within ``good``'s range, ending in one of ``cents`` (4.99 for a range reaching 5)."""
    lo, hi = GOODS[good]
    return 100 * int(rng.integers(lo - 1, hi)) + pick(rng, cents)


# -- 6. a volume on the bottle versus the measuring jug -------------------------------------------------------------
DRINKS = {"orange juice": (250, 160, 30), "milk": (248, 248, 244), "apple juice": (230, 200, 90), "cola": (90, 40, 30)}


class FillVolume(Family):
    name = "fill_volume"
    stated = "the volume on the label"
    step = 50
    gaps = (50, 350)
    promises = (450, 1000)
    kinds = tuple(DRINKS)
    units = ("ml", "ml")
    suffix = "less than the label says"
    suffix_many = "less than the labels say"
    shared = ("labels",)  # one measuring jug, one printed scale

    def shows(self, pair):
        return f"a bottle of {pair.look['kind']}", "its contents poured into a measuring jug"

    def look(self, rng, promise):
        return {
            "litres": bool(rng.integers(2)) and promise % 250 == 0,
            "labels": pick(rng, [100, 200]),
            "bottle": pick(rng, [(40, 120, 200), (230, 230, 236), (60, 150, 90)]),
            "dx": int(rng.integers(-24, 25)),
        }

    def volume(self, ml: int, pair: Pair) -> str:
        if pair.look["litres"]:
            return f"{ml / 1000:g} L"
        return f"{ml} ml"

    def ask(self, pair, k):
        if k == 1:
            return f"How many millilitres less than its label says does the bottle of {pair.look['kind']} hold?"
        return f"Added up over the {WORDS[k]} bottles, how many millilitres less than their labels say do they hold?"

    def yes_says(self, pair, reading):
        return f"a bottle of {pair.look['kind']} labelled {self.volume(reading['value'], pair)}"

    def but_says(self, pair, reading):
        return f"the {pair.look['kind']} poured into a measuring jug, reaching the {reading['value']} ml mark"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 392)
        cx = 224 + lk["dx"]
        body = [
            (cx - 70, 392),
            (cx + 70, 392),
            (cx + 70, 180),
            (cx + 30, 130),
            (cx + 30, 96),
            (cx - 30, 96),
            (cx - 30, 130),
            (cx - 70, 180),
        ]
        cv.poly(body, lk["bottle"])
        cv.rect(cx - 34, 80, cx + 34, 100, (200, 40, 40))
        edge(cv, style, body, lk["bottle"])
        cv.rect(cx - 64, 230, cx + 64, 340, PAPER)
        edge(cv, style, box_pts(cx - 64, 230, cx + 64, 340), PAPER, on=[lk["bottle"]])  # the label
        cv.text(lk["kind"].upper(), cx, 252, 14, (40, 40, 40), style.face, fit=112)
        box = cv.text(self.volume(pair.promise, pair), cx, 300, 30, (20, 20, 20), style.face, fit=112)
        return Drawn(cv, [("bottle", [cx - 70, 80, cx + 71, 393])], printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 404)
        top_ml = 1000
        x0, x1, yb, yt = 170 + lk["dx"], 320 + lk["dx"], 400, 90
        ppm = (yb - yt - 20) / top_ml
        glass, inside, handle = (214, 226, 236), (236, 244, 250), (200, 214, 226)
        cv.rect(x0 - 6, yt, x1 + 6, yb + 6, glass)
        cv.rect(x0, yt, x1, yb, inside)
        grip = [(x1 + 6, yt + 40), (x1 + 50, yt + 60), (x1 + 50, yt + 200), (x1 + 6, yt + 220)]
        cv.poly(grip, handle)
        jug = [(x0 - 6, yt), (x1 + 6, yt), *grip, (x1 + 6, yb + 6), (x0 - 6, yb + 6)]
        edge(cv, style, jug, [glass, handle])
        level = yb - pair.actual * ppm
        cv.rect(x0, level, x1, yb, DRINKS[lk["kind"]], 1)
        edge(cv, style, box_pts(x0, level, x1, yb), DRINKS[lk["kind"]], on=[inside])  # milk in clear glass
        ink = style.ink
        for v in range(0, top_ml + 1, 50):  # the scale, printed beside the glass so the drink never hides it
            y = yb - v * ppm
            long_ = v % lk["labels"] == 0
            cv.line((x0 - 8 - (26 if long_ else 14), y), (x0 - 8, y), ink, 2 if long_ else 1)
            if long_ and v:
                cv.text(f"{v}", x0 - 40, y, 15, ink, "sans", anchor="rm")
        cv.text("ml", x0 - 40, yt - 6, 15, ink, "sans", anchor="rm")
        top = float(np.nonzero((cv.mask == 1).any(axis=1))[0].min())
        raw = (yb - top) / ppm
        value = self.step * round(raw / self.step)
        if abs(raw - value) > 0.25 * self.step:
            raise Reject("the level is between marks")
        regions = [("measuring jug", [x0 - 60, yt - 16, x1 + 51, yb + 7]), ("liquid", mask_box(cv.mask, 1))]
        return Drawn(cv, regions, {"value": value}, [lk["kind"]])


# -- 7. 'one size fits all' versus a short strap ---------------------------------------------------------------------
class FitsAll(Family):
    name = "fits_all"
    stated = "the length the label claims"
    step = 5
    gaps = (15, 45)
    promises = (80, 140)
    kinds = ("belt", "strap", "scarf")
    units = ("cm", "cm")
    suffix = "shorter than claimed"
    claim = "claims a length of"
    by = "shorter by"

    def shows(self, pair):
        return f"a {pair.look['kind']} sold as one size fits all", f"the {pair.look['kind']} laid along a tape measure"

    def look(self, rng, promise):
        return {
            "color": pick(rng, [(120, 70, 40), (30, 30, 34), (170, 40, 60), (40, 90, 150)]),
            "card": pick(rng, [(250, 250, 246), (250, 220, 80), (210, 230, 250)]),
            "dx": int(rng.integers(-20, 21)),
        }

    def ask(self, pair, k):
        if k == 1:
            return f"How many centimetres shorter than its packaging claims is the {pair.look['kind']}?"
        return f"Added up over the {WORDS[k]} items, how many centimetres shorter than their packaging claims are they?"

    def yes_says(self, pair, reading):
        return f"a 'one size fits all' {pair.look['kind']} whose card claims a length of {reading['value']} cm"

    def but_says(self, pair, reading):
        return f"the {pair.look['kind']} laid along a tape measure, ending at the {reading['value']} cm mark"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        x0, x1 = 104 + lk["dx"], 344 + lk["dx"]
        cv.circle((x0 + x1) / 2, 84, 12, (120, 120, 130))  # the hook
        cv.rect(x0, 96, x1, 420, lk["card"])
        cv.circle((x0 + x1) / 2, 112, 8, style.wall)
        edge(cv, style, box_pts(x0, 96, x1, 420), lk["card"])
        cv.text("ONE SIZE", (x0 + x1) / 2, 150, 28, (200, 30, 40), "sans")
        cv.text("FITS ALL", (x0 + x1) / 2, 184, 28, (200, 30, 40), "sans")
        cv.rect(x0 + 40, 214, x1 - 40, 300, lk["color"])  # the coiled item behind a window
        cv.circle((x0 + x1) / 2, 257, 30, shade(lk["color"], 1.5))
        cv.text(lk["kind"].upper(), (x0 + x1) / 2, 330, 18, (40, 40, 40), style.face)
        box = cv.text(f"LENGTH {pair.promise} cm", (x0 + x1) / 2, 376, 24, (20, 20, 20), style.face)
        return Drawn(cv, [("card", [x0, 96, x1 + 1, 421])], printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 120)
        span = 150 if pair.actual <= 130 else 200
        x0, x1 = 34, 414
        ppc = (x1 - x0) / span
        ty = 230 + lk["dx"]
        cv.rect(x0 - 10, ty, x1 + 10, ty + 56, (250, 210, 60))  # the tape
        for v in range(0, span + 1, 5):
            x = x0 + v * ppc
            big = v % 10 == 0
            cv.line((x, ty), (x, ty + (20 if big else 10)), (30, 30, 30), 2 if big else 1)
            if v % 20 == 0:
                cv.text(str(v), x, ty + 38, 13, (30, 30, 30), "sans")
        cv.text("cm", x1 - 6, ty + 72, 14, style.ink, "sans")
        y0 = ty - 70
        cv.rect(x0, y0, x0 + pair.actual * ppc, y0 + 40, lk["color"], 1)  # the item, its end at 0
        edge(cv, style, box_pts(x0, y0, x0 + pair.actual * ppc, y0 + 40), lk["color"])
        cv.rect(x0 + 4, y0 + 4, x0 + 30, y0 + 36, (200, 180, 90))
        box = mask_box(cv.mask, 1)
        raw = (box[2] - x0) / ppc
        value = self.step * round(raw / self.step)
        if abs(raw - value) > 0.3 * self.step:
            raise Reject("the strap ends between marks")
        regions = [("tape measure", [x0 - 10, ty, x1 + 11, ty + 57]), (lk["kind"], box)]
        return Drawn(cv, regions, {"value": value}, [lk["kind"]])


# -- 8. a 'fresh' label versus the date on the calendar ---------------------------------------------------------------
def day_of_year(month: int, day: int) -> int:
    return sum(MONTH_DAYS[:month]) + day


def month_day(doy: int) -> tuple[int, int]:
    for m, n in enumerate(MONTH_DAYS):
        if doy <= n:
            return m, doy
        doy -= n
    raise ValueError("day of year past the end")


FRESH_GOODS = {  # good -> (what it is sold in, colour): the YES panel draws that package, printed with the good
    "milk": ("carton", (236, 240, 250)),
    "yogurt": ("pot", (250, 236, 240)),
    "bread": ("bag", (214, 160, 100)),
    "cheese": ("block", (250, 214, 90)),
}


BREAD_BAG = (  # the right half of a bread bag's outline, from the bottom's middle round to the tuft's top
    (0, 380),
    (86, 380),
    (95, 372),
    (99, 300),
    (98, 230),
    (96, 206),
    (88, 178),
    (70, 160),
    (44, 150),
    (12, 128),
    (10, 118),
    (30, 98),
    (18, 104),
    (8, 94),
    (0, 102),
)


def fresh_package(cx: float, package: str) -> list[tuple[float, float]]:
    """The outline of a fresh good's package, standing on the table at y 380, centred on ``cx``."""
    if package == "carton":  # a gable-top carton
        return [(cx - 90, 380), (cx + 90, 380), (cx + 90, 160), (cx, 110), (cx - 90, 160)]
    if package == "pot":  # wider at the rim than at the base
        return [(cx - 78, 380), (cx + 78, 380), (cx + 96, 150), (cx - 96, 150)]
    if package == "bag":  # a soft bread bag: a loaf's rounded shoulders, gathered to a neck, a frilled tuft above
        return [(cx + x, y) for x, y in BREAD_BAG] + [(cx - x, y) for x, y in reversed(BREAD_BAG[1:-1])]
    return box_pts(cx - 104, 160, cx + 104, 380)  # a block


class FreshDate(Family):
    name = "fresh_date"
    stated = "the best-before date"
    step = 1
    gaps = (2, 8)
    promises = (1, 334)  # best-before dates from January to November; the calendar may show the next month
    kinds = tuple(FRESH_GOODS)
    units = ("day", "days")
    suffix = "past its best-before date"
    suffix_many = "past their best-before dates"
    claim = "gives a best-before date of"
    by = "past its date by"
    gap_noun = "time past the best-before date"
    shared = ("first", "paper")  # one wall calendar: its paper, and the weekday of every date within its year

    def package(self, pair: Pair) -> str:
        return FRESH_GOODS[pair.look["kind"]][0]

    def shows(self, pair):
        return f"a {self.package(pair)} of {pair.look['kind']} sold as fresh", "the calendar on the day it is opened"

    def actual(self, promise, gap, rng):
        return promise + gap

    def gap(self, promise, actual):
        return actual - promise

    def look(self, rng, promise):
        return {
            "style": int(rng.integers(2)),  # the order of day and month, on the label and in the steps alike
            "first": int(rng.integers(7)),  # weekday column of 1 January (of the 1st of each month, counted on)
            "paper": pick(rng, [(250, 250, 246), (246, 240, 226)]),
            "dx": int(rng.integers(-20, 21)),
        }

    def date(self, doy: int, pair: Pair, months: tuple[str, ...] = MONTHS) -> str:
        """A date as the panels print it and the steps quote it: "22 OCT" or "OCT 22" by the scene's style
        (with ``MONTH_NAMES``, the calendar's month as its header prints it)."""
        m, d = month_day(doy)
        return f"{d} {months[m]}" if pair.look["style"] == 0 else f"{months[m]} {d}"

    def value_text(self, value, pair):
        return self.date(value, pair)

    def actual_text(self, value, pair):
        year = CALENDAR_YEARS[pair.look["first"]]
        return f"{self.date(value, pair, MONTH_NAMES)}{',' if pair.look['style'] else ''} {year}"

    def ask(self, pair, k):
        if k == 1:
            return f"By how many days has the {pair.look['kind']} passed its best-before date on the day shown?"
        return f"Added up over the {WORDS[k]} products, by how many days have they passed their best-before dates?"

    def yes_says(self, pair, reading):
        good = f"a {self.package(pair)} of {pair.look['kind']}"
        return f"{good} with a FRESH sticker and a best-before date of {self.date(reading['value'], pair)}"

    def but_says(self, pair, reading):
        return f"a wall calendar with today circled: {self.actual_text(reading['value'], pair)}"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 372)
        cx = 214 + lk["dx"]
        package, color = FRESH_GOODS[lk["kind"]]
        body = fresh_package(cx, package)
        cv.poly(body, color)
        if package == "pot":
            foil = (200, 204, 212)
            cv.rect(cx - 102, 140, cx + 102, 152, foil)  # the foil lid
            rim = cx + 78 + 18 * (380 - 152) / 230  # the pot's side where the lid ends
            lidded = [*body[:2], (rim, 152), (cx + 102, 152), (cx + 102, 140), (cx - 102, 140), (cx - 102, 152)]
            edge(cv, style, [*lidded, (2 * cx - rim, 152)], [color, foil])
        else:
            edge(cv, style, body, color)  # before the tie, which stands over the bag's top
        if package == "bag":
            for side in (-1, 1):  # the plastic creased where it is gathered
                cv.line((cx + 8 * side, 132), (cx + 30 * side, 160), shade(color, 0.78), 2)
                cv.line((cx + 4 * side, 134), (cx + 12 * side, 168), shade(color, 0.78), 2)
            cv.rect(cx - 16, 116, cx + 16, 127, (60, 120, 200))  # the twist tie round the neck
        elif package == "block":
            for hx, hy, hr in ((-70, 258, 9), (62, 262, 7), (24, 254, 5), (-28, 270, 6)):
                cv.circle(cx + hx, hy, hr, shade(color, 0.85))  # holes in the cheese
        cv.text(lk["kind"].upper(), cx, 222, 26, (40, 60, 120), "serif")  # below the sticker
        sticker(cv, cx + 86, 150, 46, (60, 180, 80))
        cv.text("FRESH!", cx + 86, 150, 16, (255, 255, 255), "sans", fit=58)
        cv.rect(cx - 80, 286, cx + 80, 360, PAPER)
        edge(cv, style, box_pts(cx - 80, 286, cx + 80, 360), PAPER, on=[color])  # the label
        cv.text("BEST BEFORE", cx, 304, 14, (40, 40, 40), style.face)
        date = self.date(pair.promise, pair)
        box = cv.text(date, cx, 336, 28, (20, 20, 20), "mono", fit=144)
        x0 = min(x for x, _ in body)
        y0 = min(104, *(y for _, y in body))  # the sticker's top, or the bag's tuft above it
        region = (f"{lk['kind']} {package}", [round(x0), round(y0), cx + 133, 381])
        return Drawn(cv, [region], printed(cv, box, pair.promise, text=date))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        m, d = month_day(pair.actual)
        x0, x1, y0 = 60 + lk["dx"], 388 + lk["dx"], 70
        cv.rect(x0, y0, x1, 428, lk["paper"])
        cv.rect(x0, y0, x1, y0 + 50, (200, 50, 50))
        edge(cv, style, box_pts(x0, y0, x1, 428), lk["paper"])
        header = f"{MONTH_NAMES[m]} {CALENDAR_YEARS[lk['first']]}"
        cv.text(header, (x0 + x1) / 2, y0 + 26, 26, (255, 255, 255), "sans", fit=x1 - x0 - 24)
        cw, gy = (x1 - x0 - 20) / 7, y0 + 92
        first = (lk["first"] + day_of_year(m, 1) - 1) % 7  # weekday column of the month's 1st
        rows = -(-(first + MONTH_DAYS[m]) // 7)
        ch = min(50.0, (428 - 4 - gy) / rows)  # a month over six weeks stays on the sheet
        for i, wd in enumerate("MTWTFSS"):
            cv.text(wd, x0 + 10 + (i + 0.5) * cw, y0 + 68, 14, (90, 90, 90), "sans")
        for day in range(1, MONTH_DAYS[m] + 1):
            cell = first + day - 1
            col, row = cell % 7, cell // 7
            x, y = x0 + 10 + (col + 0.5) * cw, gy + (row + 0.5) * ch
            cv.text(str(day), x, y, 16, (200, 40, 40) if col == 6 else (30, 30, 30), style.face)
            if day == d:
                cv.ring(x, y, 20, (220, 30, 30), 3)
                cv_mask_circle(cv, x, y, 21, 1)
        ys, xs = np.nonzero(cv.mask == 1)
        col = int((xs.mean() - x0 - 10) // cw)
        row = int((ys.mean() - gy) // ch)
        day = row * 7 + col - first + 1
        if not 1 <= day <= MONTH_DAYS[m]:
            raise Reject("the circle is not on a day")
        regions = [("calendar", [x0, y0, x1 + 1, 429]), ("circled day", mask_box(cv.mask, 1))]
        return Drawn(cv, regions, {"value": day_of_year(m, day), "month": MONTH_NAMES[m]})


def cv_mask_circle(cv: Canvas, x: float, y: float, r: float, mid: int) -> None:
    cv2.circle(cv.mask, (round(x), round(y)), round(r), mid, -1)


# -- 9. a speed limit versus the speedometer -------------------------------------------------------------------------
class SpeedLimit(Family):
    name = "speed_limit"
    stated = "the limit"
    step = 10
    gaps = (10, 70)
    promises = (30, 120)
    units = ("km/h", "km/h")
    suffix = "over the limit"
    claim = "sets a limit of"
    by = "over the limit by"
    gap_noun = "speed over the limit"
    shared = ("max", "dial")  # one car: its speedometer on every road

    def shows(self, pair):
        return "a speed limit sign by the road", "the car's speedometer on that road"

    def actual(self, promise, gap, rng):
        return promise + gap

    def gap(self, promise, actual):
        return actual - promise

    def look(self, rng, promise):
        return {
            "max": pick(rng, [200, 220, 240]),
            "dial": pick(rng, [(24, 26, 32), (240, 240, 236), (20, 40, 60)]),
            "side": int(rng.integers(2)),
            "grass": pick(rng, [(110, 160, 80), (190, 180, 120), (150, 170, 110)]),
        }

    def ask(self, pair, k):
        if k == 1:
            return "By how many km/h does the car's speed exceed the limit?"
        return f"Added up over the {WORDS[k]} roads, by how many km/h do the car's speeds exceed the limits?"

    def yes_says(self, pair, reading):
        return f"a road with a speed limit sign of {reading['value']}"

    def but_says(self, pair, reading):
        return f"the car's speedometer, its needle at {reading['value']} km/h"

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, 250)
        cv.rect(0, 250, size, size, lk["grass"])
        cv.poly([(200, 250), (248, 250), (440, 448), (8, 448)], (96, 96, 104))  # the road
        for y0 in (270, 320, 390):
            cv.poly(
                [(222, y0), (226, y0), (226 + (y0 - 250) * 0.04, y0 + 24), (222 - (y0 - 250) * 0.04, y0 + 24)],
                (250, 250, 250),
            )
        sx = 340 if lk["side"] else 108
        cv.rect(sx - 5, 200, sx + 5, 400, (150, 150, 156))
        cv.circle(sx, 160, 70, (220, 30, 30))
        cv.circle(sx, 160, 54, (252, 252, 252))
        box = cv.text(str(pair.promise), sx, 160, 46 if pair.promise < 100 else 38, (20, 20, 20), "sans")
        return Drawn(cv, [("speed limit sign", [sx - 70, 90, sx + 71, 401])], printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        cv.rect(0, 70, size, size, (34, 34, 40))  # the dashboard
        edge(cv, style, box_pts(-4, 70, size + 4, size + 4), (34, 34, 40))
        cx, cy, r = 224, 270, 150
        dial = lk["dial"]
        ink = (240, 240, 240) if sum(dial) < 300 else (20, 20, 24)
        cv.circle(cx, cy, r + 8, (120, 120, 130))
        cv.circle(cx, cy, r, dial)
        top = lk["max"]

        def angle(v: float) -> float:
            return math.radians(225 - 270 * v / top)

        for v in range(0, top + 1, 10):
            a = angle(v)
            inner = r - (20 if v % 20 == 0 else 10)
            cv.line(
                (cx + inner * math.cos(a), cy - inner * math.sin(a)),
                (cx + (r - 4) * math.cos(a), cy - (r - 4) * math.sin(a)),
                ink,
                3 if v % 20 == 0 else 1,
            )
            if v % 20 == 0:
                cv.text(str(v), cx + (r - 42) * math.cos(a), cy - (r - 42) * math.sin(a), 16, ink, "sans")
        cv.text("km/h", cx, cy + 60, 16, ink, "sans")
        a = angle(pair.actual)
        ux, uy = math.cos(a), -math.sin(a)
        nx, ny = -uy, ux
        pts = [(cx + nx * 4, cy + ny * 4), (cx + ux * (r - 16), cy + uy * (r - 16)), (cx - nx * 4, cy - ny * 4)]
        cv.poly(pts, (230, 40, 30), 1)
        cv.circle(cx, cy, 14, (60, 60, 66))
        ys, xs = np.nonzero(cv.mask == 1)
        theta = math.degrees(math.atan2(-(ys.mean() - cy), xs.mean() - cx))
        if theta < -90:
            theta += 360
        raw = (225 - theta) / 270 * top
        value = self.step * round(raw / self.step)
        if abs(raw - value) > 0.3 * self.step:
            raise Reject("the needle is between marks")
        regions = [("speedometer", [cx - r - 8, cy - r - 8, cx + r + 9, cy + r + 9]), ("needle", mask_box(cv.mask, 1))]
        return Drawn(cv, regions, {"value": value}, ["needle"])


# -- 10. a 'wet floor' sign versus where the floor is wet ------------------------------------------------------------
SECTIONS = ("DAIRY", "BAKERY", "DRINKS", "SNACKS", "PASTA", "FRUIT", "CEREAL", "FROZEN", "CLEANING", "PET FOOD")


class WetFloor(Family):
    name = "wet_floor"
    stated = "the sign's aisle"
    step = 1
    gaps = (1, 7)
    promises = (1, 24)
    units = ("aisle", "aisles")
    suffix = "away from the sign"
    suffix_many = "away from the signs"
    claim = "puts the warning sign in"
    by = "off by"
    gap_noun = "distance from the sign to the wet floor"

    def shows(self, pair):
        return "a warning sign in a shop", "another aisle of the same shop"

    def sample(self, rng, gap, kind):
        lo, hi = self.promises
        for _ in range(20):
            p = int(rng.integers(lo, hi + 1))
            a = p + gap * (1 if rng.random() < 0.5 else -1)
            if lo <= a <= hi:
                return Pair(p, a, {"kind": kind, **self.look(rng, p)})
        raise Reject("no aisle for the spill")

    def gap(self, promise, actual):
        return abs(actual - promise)

    def look(self, rng, promise):
        sec = [SECTIONS[int(i)] for i in rng.permutation(len(SECTIONS))[:2]]
        return {
            "sections": sec,
            "floor": pick(rng, [(220, 220, 214), (200, 190, 170), (230, 226, 236)]),
            "sign_x": int(rng.integers(150, 300)),
            "spill_x": int(rng.integers(150, 300)),
        }

    def ask(self, pair, k):
        if k == 1:
            return "How many aisles away from the warning sign is the floor actually wet?"
        return f"Added up over the {WORDS[k]} shops, how many aisles away from the warning signs are the wet floors?"

    def value_text(self, value, pair):
        return f"aisle {value}"

    def yes_says(self, pair, reading):
        return f"aisle {reading['value']} of a shop, where a yellow WET FLOOR sign stands on a dry floor"

    def but_says(self, pair, reading):
        return f"aisle {reading['value']} of the same shop, with a puddle on the floor and no sign"

    def aisle(self, cv: Canvas, style: Style, pair: Pair, number: int, section: str) -> list[int]:
        lk = pair.look
        cv.poly([(150, 210), (298, 210), (448, 448), (0, 448)], lk["floor"])  # the aisle floor
        for side in (-1, 1):
            x_out, x_in = (0, 150) if side < 0 else (448, 298)
            shelf = [(x_out, 60), (x_in, 150), (x_in, 210), (x_out, 448)]
            cv.poly(shelf, (200, 206, 214))
            edge(cv, style, shelf, (200, 206, 214), on=[*backdrop(style), lk["floor"]])
            for k in range(4):  # shelves with goods
                y_out, y_in = 120 + 80 * k, 160 + 13 * k
                cv.line((x_out, y_out), (x_in, y_in), (150, 156, 166), 3)
                c = [(220, 80, 60), (60, 140, 200), (240, 200, 60), (90, 170, 90)][(k + number) % 4]
                cv.poly([(x_out, y_out - 30), (x_in, y_in - 8), (x_in, y_in), (x_out, y_out)], c)
        cv.rect(150, 150, 298, 210, (180, 186, 196))
        cv.line((224, 60), (224, 86), (90, 90, 90), 2)
        cv.rect(144, 86, 304, 146, (30, 90, 160))
        cv.text(section, 224, 102, 14, (255, 255, 255), "sans")
        return cv.text(f"AISLE {number}", 224, 128, 22, (255, 255, 255), style.face)

    def yes(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        box = self.aisle(cv, style, pair, pair.promise, lk["sections"][0])
        x = lk["sign_x"]
        pts = [(x - 46, 420), (x - 30, 260), (x + 30, 260), (x + 46, 420)]
        cv.poly(pts, (250, 210, 30))
        cv.outline(pts, (40, 40, 40), 2)
        cv.text("CAUTION", x, 290, 13, (20, 20, 20), "sans")
        cv.text("WET", x, 330, 16, (20, 20, 20), "sans")
        cv.text("FLOOR", x, 352, 14, (20, 20, 20), "sans")
        regions = [("aisle sign", [144, 86, 305, 147]), ("wet floor sign", [x - 46, 260, x + 47, 421])]
        return Drawn(cv, regions, printed(cv, box, pair.promise))

    def but(self, size, style, pair, title):
        lk = pair.look
        cv = panel(size, style, title, None)
        box = self.aisle(cv, style, pair, pair.actual, lk["sections"][1])
        x = lk["spill_x"]
        cv.ellipse(x, 380, 96, 26, (120, 170, 220), 1)
        cv.ellipse(x + 30, 372, 34, 8, (200, 226, 246))
        cv.ellipse(x - 60, 360, 22, 10, (120, 170, 220))
        regions = [("aisle sign", [144, 86, 305, 147]), ("puddle", mask_box(cv.mask, 1))]
        return Drawn(cv, regions, printed(cv, box, pair.actual), ["puddle"])


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        BoxCount(),
        MenuPhoto(),
        NetWeight(),
        Timetable(),
        SalePrice(),
        FillVolume(),
        FitsAll(),
        FreshDate(),
        SpeedLimit(),
        WetFloor(),
    )
}
