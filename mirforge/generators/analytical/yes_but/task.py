"""yes_but: what contradicts the expectation set up by a "YES" panel in the "BUT" panel?

Two panels: the YES panel sets an expectation, the BUT panel reveals what breaks it.

- ``count``: a closed box whose label promises N items of a colour; the open box holds fewer.
- ``colour``: the label promises items of one colour; the items inside have another.
- ``order``: a plan on a board shows a tower of coloured blocks; the built tower has two blocks swapped.

Both panels are structured facts (label, contents, plan, tower, box and table colour), so the contradiction is
computed. Options are claims that all look like contradictions, and only one holds: for a box, half of them are
count claims ("the label promises 8 balls, but the box holds only 5") and half colour claims ("the label promises
red balls, but the balls inside are green"), whichever of the two the box breaks; for a tower, every option names
a pair of swapped blocks. The true claim is drawn exactly like the false ones (a count from the same range of
shortfalls, a colour from the same non-label colours, a pair from the same pairs), and count and colour boxes
are equally likely, so neither the form, the wording nor the numbers of an option tell the answer without the
pictures. The label's stated values are text in the picture and travel in the question facts; everything else
the verifier needs is measured from the pixels: items are counted and their colours read from the BUT panel,
block colours are read bottom to top from both panels, and the verifier keeps the one claim that is a
contradiction of what it measured.

Incidental appearance is drawn per scene (``Look``) so that no two scenes share a picture: where the box (or the
plan board) stands and the table top, the item size, where the label sits on the box, where and at what angle the
lifted lid lies, the tower's block size and place and the floor line, and small shifts of the wall, table, box
and board colours around their named values. None of it is in the text or decides an answer; the item and block
colours stay the exact palette colours the verifier reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.render.scene3d import PALETTE
from mirforge.task import Layer, Needs, Question, Region, Rendered, Task, TaskConfig, ensure, per_level, place

COLORS = {name: PALETTE[name] for name in ("red", "blue", "green", "yellow", "purple", "orange")}
BOX_COLORS = {"brown": (150, 100, 60), "gray": (140, 140, 145), "teal": (40, 130, 130)}
TABLE_COLORS = {"wooden": (200, 160, 110), "white": (240, 240, 236), "dark": (90, 85, 80)}
ITEMS = ("ball", "marble", "sweet")
KINDS = ("count", "colour", "order")
ORDINALS = ("bottom", "second", "third", "fourth", "fifth")
BG = (246, 244, 238)


@dataclass
class YesButConfig(TaskConfig):
    min_count_gap_per_level: tuple[int, ...] = per_level(3, 2, 1)
    min_item_px: int = 200

    def validate(self) -> None:
        super().validate()
        ensure(all(1 <= g <= 5 for g in self.min_count_gap_per_level), "min_count_gap_per_level", "each 1 to 5")
        ensure(self.n_options <= 4, "n_options", "at most 4")
        ensure(self.min_item_px > 0, "min_item_px", "must be positive")


@dataclass(frozen=True)
class Look:
    """How a scene looks beyond its facts (see the module docstring); the same box and room in both panels."""

    wall: tuple[int, int, int]  # wall colour, a small shift of BG
    table: tuple[int, int, int]  # table (or floor) colour, a small shift of the named one
    box: tuple[int, int, int]  # box (or plan board) colour, a small shift of the named one
    shift: tuple[int, int]  # offset of the box or the plan board from the panel's reference place
    table_top: int  # y of the table top (or of the floor under the tower)
    item_r: int  # item radius in pixels
    label: tuple[int, int]  # label offset on the box front
    lid: tuple[int, int, int]  # lifted lid: offset from its reference place and tilt in degrees
    plan_block: tuple[int, int, int]  # plan blocks: width, height, x offset on the board
    tower_block: tuple[int, int, int]  # built blocks: width, height, x offset from the panel centre


@dataclass(frozen=True)
class Scene:
    kind: str
    item: str
    label_count: int
    label_color: str
    actual_count: int
    actual_color: str
    box_color: str
    table_color: str
    plan: tuple[str, ...]  # order kind: block colours bottom to top
    tower: tuple[str, ...]
    layout: tuple[tuple[int, int], ...]  # item centres in the BUT panel
    gaps: tuple[int, ...]  # shortfalls a count claim may state (the true one, if the box holds fewer, among them)
    look: Look


class YesBut(Task):
    name = "yes_but"
    category = "analytical"
    description = "Find what the BUT panel reveals that contradicts the YES panel (counts, colours, plans)"
    Config = YesButConfig
    needs = Needs(renderer=None, cost=0.1, realism=True)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "kinds": [("count", "colour"), ("count", "colour"), KINDS][level - 1],  # as many count as colour boxes
            "min_count_gap": self.config.min_count_gap_per_level[level - 1],
            "max_items": (8, 12, 14)[level - 1],
            "n_blocks": (3, 4, 5)[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        kind = k["kinds"][int(rng.integers(len(k["kinds"])))]
        names = list(COLORS)
        label_color = names[int(rng.integers(len(names)))]
        label_count = int(rng.integers(max(4, k["min_count_gap"] + 3), k["max_items"] + 1))
        actual_count, actual_color = label_count, label_color
        gaps = tuple(range(k["min_count_gap"], min(k["min_count_gap"] + 3, label_count - 2) + 1))  # 2 at least
        if kind == "count":
            actual_count = label_count - gaps[int(rng.integers(len(gaps)))]
        elif kind == "colour":
            actual_color = [c for c in names if c != label_color][int(rng.integers(len(names) - 1))]
        plan: tuple[str, ...] = ()
        tower: tuple[str, ...] = ()
        if kind == "order":
            plan = tuple(names[int(i)] for i in rng.permutation(len(names))[: k["n_blocks"]])
            i, j = sorted(int(v) for v in rng.choice(len(plan), size=2, replace=False))
            t = list(plan)
            t[i], t[j] = t[j], t[i]
            tower = tuple(t)
        box_color = list(BOX_COLORS)[int(rng.integers(len(BOX_COLORS)))]
        table_color = list(TABLE_COLORS)[int(rng.integers(len(TABLE_COLORS)))]
        look = _look(rng, kind, box_color, table_color)
        layout = _layout(rng, actual_count, look.shift) if kind != "order" else ()
        return Scene(
            kind=kind,
            item=ITEMS[int(rng.integers(len(ITEMS)))],
            label_count=label_count,
            label_color=label_color,
            actual_count=actual_count,
            actual_color=actual_color,
            box_color=box_color,
            table_color=table_color,
            plan=plan,
            tower=tower,
            layout=layout,
            gaps=gaps,
            look=look,
        )

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        n = self.config.n_options
        correct, pool = _claims(scene, rng, n)
        if len(pool) < n - 1:
            raise Reject("not enough claims")
        pool = [pool[int(i)] for i in rng.permutation(len(pool))]
        options_c = place(correct, pool, slot)
        options = [c["text"] for c in options_c]
        if len(set(options)) != n:
            raise Reject("duplicate claims")
        if scene.kind == "order":
            setup = [
                "In the YES panel <image> a plan for a tower of blocks is pinned to a board; "
                "in the BUT panel <image> the tower has been built. ",
                "<image> (YES) shows the plan of a block tower on a board, "
                "and <image> (BUT) shows the finished tower. ",
            ][int(rng.integers(2))]
        else:
            setup = [
                f'In the YES panel <image> a closed box is labelled "{scene.label_count} {scene.label_color.upper()} '
                f'{scene.item.upper()}S"; in the BUT panel <image> the box is open. ',
                f'<image> (YES) shows a box whose label reads "{scene.label_count} {scene.label_color.upper()} '
                f'{scene.item.upper()}S", and <image> (BUT) shows what is inside. ',
            ][int(rng.integers(2))]
        q = ["What does the BUT panel reveal that contradicts the YES panel?", "What is the contradiction?"][
            int(rng.integers(2))
        ]
        facts = {
            "claims": options_c,
            "label": {"count": scene.label_count, "color": scene.label_color, "item": scene.item},
        }
        return Question(text=setup + q, options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        size = self.image_size
        if scene.kind == "order":
            yes, yes_mask, yes_regions = _draw_plan(size, scene)
            but, but_mask, but_regions = _draw_tower(size, scene)
            measured = {
                "kind": "order",
                "plan": _read_stack(yes, yes_mask, len(scene.plan)),
                "tower": _read_stack(but, but_mask, len(scene.tower)),
            }
            layers = [  # for a realism pass
                Layer(ids=yes_mask, names=[f"{c} block" for c in scene.plan]),
                Layer(ids=but_mask, names=[f"{c} block" for c in scene.tower]),
            ]
        else:
            yes, _, yes_regions = _draw_closed_box(size, scene)
            but, but_mask, but_regions = _draw_open_box(size, scene)
            items = []
            for i in range(1, len(scene.layout) + 1):
                px = but_mask == i
                if int(px.sum()) < self.config.min_item_px:
                    raise Reject("an item is hidden")
                items.append(_color_name(but[px].mean(axis=0)))
            measured = {"kind": scene.kind, "n_items": len(items), "item_colors": sorted(set(items))}
            layers = [None, Layer(ids=but_mask, names=[scene.item] * len(scene.layout))]  # the label stays legible
        regions = [Region(0, n, b) for n, b in yes_regions] + [Region(1, n, b) for n, b in but_regions]
        return Rendered(images=[yes, but], measured=measured, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        m = rendered.measured
        label = question.facts["label"]
        hits = [i for i, c in enumerate(question.facts["claims"]) if _contradiction_holds(c, m, label)]
        if len(hits) != 1:
            raise Reject(f"{len(hits)} claims match what the panels show")
        return hits[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        claims = []
        for i, c in enumerate(question.facts["claims"]):
            claims.append(
                {
                    "letter": "ABCDEFGH"[i],
                    "text": c["text"],
                    "type": c["type"],
                    "holds": _contradiction_holds(c, m, question.facts["label"]),
                    "why": _why(c, m, question.facts["label"]),
                }
            )
        facts: dict[str, Any] = {
            "kind": scene.kind,
            "item": scene.item,
            "box_color": scene.box_color,
            "table_color": scene.table_color,
            "claims": claims,
            "regions": [{"image": r.image + 1, "name": r.name, "box": r.box} for r in rendered.regions],
            "boxes": {f"{i}:{n}": b for (i, n), b in boxes.items()},
        }
        if scene.kind == "order":
            diff = [k for k, (a, b) in enumerate(zip(m["plan"], m["tower"], strict=True)) if a != b]
            facts.update(
                plan=m["plan"],
                tower=m["tower"],
                swapped=[{"level": ORDINALS[k], "plan": m["plan"][k], "tower": m["tower"][k]} for k in diff],
            )
        else:
            facts.update(
                label_count=scene.label_count,
                label_color=scene.label_color,
                n_items=m["n_items"],
                item_colors=m["item_colors"],
            )
        return facts


# -- claims ---------------------------------------------------------------------------------------------------
def _claims(scene: Scene, rng: np.random.Generator, n: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The true contradiction and ``n - 1`` false ones, all drawn the same way (see the module docstring)."""
    if scene.kind == "order":
        diff = [k for k, (a, b) in enumerate(zip(scene.plan, scene.tower, strict=True)) if a != b]
        pairs = [(a, b) for a in range(len(scene.plan)) for b in range(a + 1, len(scene.plan))]
        others = [p for p in pairs if p != tuple(diff)]
        chosen = [tuple(diff)] + [others[int(x)] for x in rng.permutation(len(others))[: n - 1]]
        swaps = [
            {
                "type": "swap",
                "pair": sorted([scene.plan[a], scene.plan[b]]),
                "text": f"The {scene.plan[a]} and {scene.plan[b]} blocks are swapped compared with the plan",
            }
            for a, b in chosen
        ]
        return swaps[0], swaps[1:]
    # Half the options are count claims and half colour claims; with an odd number, the form of the answer
    # gets the larger half in proportion to its size, so that each option is the answer as often as any other.
    sizes = sorted({n // 2, n - n // 2})
    mine = sizes[0] if len(sizes) == 1 else sizes[int(rng.random() * n >= sizes[0])]
    label_n, label_c, it = scene.label_count, scene.label_color, scene.item
    n_count = mine if scene.kind == "count" else n - mine
    # Count claims: distinct shortfalls from the scene's range; the true one, if any, comes first.
    true_gap = [scene.label_count - scene.actual_count] if scene.kind == "count" else []
    rest = [g for g in scene.gaps if g not in true_gap]
    gaps = true_gap + [rest[int(x)] for x in rng.permutation(len(rest))][: n_count - len(true_gap)]
    counts = [
        {
            "type": "count",
            "count": label_n - g,
            "text": f"The label promises {label_n} {it}s, but the box holds only {label_n - g}",
        }
        for g in gaps
    ]
    # Colour claims: distinct colours other than the label's; the true one, if any, comes first.
    true_color = [scene.actual_color] if scene.kind == "colour" else []
    rest_c = [c for c in COLORS if c != label_c and c not in true_color]
    colors = true_color + [rest_c[int(x)] for x in rng.permutation(len(rest_c))][: n - n_count - len(true_color)]
    hues = [
        {"type": "colour", "color": c, "text": f"The label promises {label_c} {it}s, but the {it}s inside are {c}"}
        for c in colors
    ]
    claims = counts + hues if scene.kind == "count" else hues + counts
    return claims[0], claims[1:]


def _contradiction_holds(claim: dict[str, Any], m: dict[str, Any], label: dict[str, Any]) -> bool:
    """Is this claim a contradiction that the measured panels actually show?"""
    t = claim["type"]
    if t == "count":
        return m.get("n_items") == claim["count"] and claim["count"] != label["count"]
    if t == "colour":
        return m.get("item_colors") == [claim["color"]] and claim["color"] != label["color"]
    if t == "swap":
        plan, tower = m["plan"], m["tower"]
        diff = [k for k in range(len(plan)) if plan[k] != tower[k]]
        return len(diff) == 2 and sorted(plan[k] for k in diff) == claim["pair"] and plan[diff[0]] == tower[diff[1]]
    return False


def _why(claim: dict[str, Any], m: dict[str, Any], label: dict[str, Any]) -> str:
    t = claim["type"]
    if t == "count":
        return f"the BUT panel shows {m['n_items']} {label['item']}s" + (
            ", exactly as stated here" if m["n_items"] == claim["count"] else f", not {claim['count']}"
        )
    if t == "colour":
        shown = " and ".join(m["item_colors"])
        return f"the {label['item']}s inside are {shown}" + (
            "" if m["item_colors"] == [claim["color"]] else ", not " + claim["color"]
        )
    return "bottom to top the plan reads " + ", ".join(m["plan"]) + " and the tower " + ", ".join(m["tower"])


# -- drawing and measuring ------------------------------------------------------------------------------------
def _jitter(rng: np.random.Generator, rgb: tuple[int, ...], by: int) -> tuple[int, int, int]:
    r, g, b = (int(np.clip(c + int(rng.integers(-by, by + 1)), 0, 255)) for c in rgb)
    return r, g, b


def _look(rng: np.random.Generator, kind: str, box_color: str, table_color: str) -> Look:
    """Incidental appearance; every range keeps each part inside the panel and clear of the title."""
    wall = _jitter(rng, BG, 8)
    if kind == "order":
        table = _jitter(rng, (170, 160, 150), 14)  # the floor under the tower
        board = _jitter(rng, (70, 60, 50), 14)
        shift = (int(rng.integers(-40, 41)), int(rng.integers(-12, 17)))
        plan_block = (int(rng.integers(64, 101)), int(rng.integers(40, 49)), int(rng.integers(-40, 41)))
        tower_block = (int(rng.integers(110, 151)), int(rng.integers(50, 63)), int(rng.integers(-70, 71)))
        return Look(
            wall, table, board, shift, int(rng.integers(388, 417)), 0, (0, 0), (0, 0, 0), plan_block, tower_block
        )
    table = _jitter(rng, TABLE_COLORS[table_color], 12)
    box = _jitter(rng, BOX_COLORS[box_color], 12)
    shift = (int(rng.integers(-40, 41)), int(rng.integers(-30, 51)))
    table_top = 370 + shift[1] - int(rng.integers(24, 91))
    label = (int(rng.integers(-24, 25)), int(rng.integers(-8, 9)))
    lid = (int(rng.integers(-16, 17)), int(rng.integers(-10, 11)), int(rng.integers(-6, 7)))
    return Look(wall, table, box, shift, table_top, int(rng.integers(13, 17)), label, lid, (0, 0, 0), (0, 0, 0))


def _layout(rng: np.random.Generator, n: int, shift: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """Item centres inside the open box (x 104-344, y 210-350 before the box's shift), on a jittered grid so items
    of radius 16 or less never touch."""
    cols, rows = 5, 3
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    chosen = [cells[int(i)] for i in rng.permutation(len(cells))[:n]]
    out = []
    for c, r in chosen:
        x = 124 + c * 50 + int(rng.integers(-6, 7)) + shift[0]
        y = 232 + r * 46 + int(rng.integers(-5, 6)) + shift[1]
        out.append((x, y))
    return tuple(out)


def _panel(size: int, title: str, look: Look, table_top: int | None) -> np.ndarray:
    img = np.empty((size, size, 3), dtype=np.uint8)
    img[:] = look.wall
    if table_top is not None:
        img[table_top:] = look.table
    cv2.rectangle(img, (0, 0), (size - 1, size - 1), (40, 40, 40), 3)
    cv2.putText(img, title, (20, 52), cv2.FONT_HERSHEY_DUPLEX, 1.5, (30, 30, 30), 3, cv2.LINE_AA)
    return img


def _box(mask: np.ndarray, value: int) -> list[int]:
    ys, xs = np.nonzero(mask == value)
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]


def _shade(rgb: tuple[int, ...], f: float) -> tuple[int, ...]:
    return tuple(int(c * f) for c in rgb)


def _draw_closed_box(size: int, scene: Scene) -> tuple[np.ndarray, np.ndarray, list]:
    look = scene.look
    (dx, dy), (lx, ly) = look.shift, look.label
    img = _panel(size, "YES", look, look.table_top)
    cv2.rectangle(img, (84 + dx, 190 + dy), (364 + dx, 370 + dy), look.box, -1)
    cv2.rectangle(img, (74 + dx, 170 + dy), (374 + dx, 200 + dy), _shade(look.box, 0.75), -1)  # lid
    x0, y0, x1, y1 = 120 + dx + lx, 238 + dy + ly, 328 + dx + lx, 330 + dy + ly
    cv2.rectangle(img, (x0, y0), (x1, y1), (252, 252, 250), -1)
    cv2.rectangle(img, (x0, y0), (x1, y1), (60, 60, 60), 2)
    text1 = f"{scene.label_count} {scene.label_color.upper()}"
    text2 = f"{scene.item.upper()}S"
    for t, y in ((text1, y0 + 40), (text2, y0 + 78)):
        (w, _), _ = cv2.getTextSize(t, cv2.FONT_HERSHEY_DUPLEX, 0.9, 2)
        cv2.putText(img, t, ((x0 + x1) // 2 - w // 2, y), cv2.FONT_HERSHEY_DUPLEX, 0.9, (20, 20, 20), 2, cv2.LINE_AA)
    regions = [("box", [74 + dx, 170 + dy, 375 + dx, 371 + dy]), ("label", [x0, y0, x1 + 1, y1 + 1])]
    return img, np.zeros((size, size), np.uint8), regions


def _draw_open_box(size: int, scene: Scene) -> tuple[np.ndarray, np.ndarray, list]:
    look = scene.look
    (dx, dy), (ldx, ldy, tilt), r = look.shift, look.lid, look.item_r
    img = _panel(size, "BUT", look, look.table_top)
    mask = np.zeros((size, size), np.uint8)
    cv2.rectangle(img, (84 + dx, 190 + dy), (364 + dx, 370 + dy), look.box, -1)
    cv2.rectangle(img, (96 + dx, 202 + dy), (352 + dx, 360 + dy), _shade(look.box, 0.55), -1)  # inside of the box
    centre = (224.0 + dx + ldx, 135.0 + dy + ldy)  # lid, lifted and a little tilted
    corners = cv2.boxPoints((centre, (328.0, 30.0), float(tilt)))
    corners = np.clip(np.round(corners), 4, size - 5).astype(np.int32)
    cv2.fillConvexPoly(img, corners, _shade(look.box, 0.75), lineType=cv2.LINE_AA)
    color = COLORS[scene.actual_color]
    glint = tuple(min(255, c + 70) for c in color)
    for i, (x, y) in enumerate(scene.layout, start=1):
        cv2.circle(img, (x, y), r, color, -1, lineType=cv2.LINE_AA)
        cv2.circle(img, (x - r // 3, y - r // 3), max(3, r // 4), glint, -1, lineType=cv2.LINE_AA)
        cv2.circle(mask, (x, y), r - 1, i, -1)
    top = min(int(corners[:, 1].min()), 190 + dy)
    box = [min(int(corners[:, 0].min()), 84 + dx), top, max(int(corners[:, 0].max()) + 1, 365 + dx), 371 + dy]
    regions = [("box", box)]
    regions += [(f"{scene.item} {i}", _box(mask, i)) for i in range(1, len(scene.layout) + 1)]
    return img, mask, regions


def _block_rects(n: int, x0: int, width: int, bottom: int, height: int) -> list[tuple[int, int, int, int]]:
    return [(x0, bottom - (k + 1) * height, x0 + width, bottom - k * height) for k in range(n)]


def _draw_stack(img: np.ndarray, mask: np.ndarray, colors: tuple[str, ...], rects: list) -> list:
    regions = []
    for k, (c, (x0, y0, x1, y1)) in enumerate(zip(colors, rects, strict=True), start=1):
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), COLORS[c], -1)
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), (40, 40, 40), 1)
        mask[y0 + 3 : y1 - 3, x0 + 3 : x1 - 3] = k
        regions.append((f"{c} block", [x0, y0, x1, y1]))
    return regions


def _draw_plan(size: int, scene: Scene) -> tuple[np.ndarray, np.ndarray, list]:
    look = scene.look
    (dx, dy), (w, h, bx) = look.shift, look.plan_block
    img = _panel(size, "YES", look, None)
    mask = np.zeros((size, size), np.uint8)
    cv2.rectangle(img, (90 + dx, 80 + dy), (358 + dx, 420 + dy), look.box, -1)
    cv2.rectangle(img, (102 + dx, 92 + dy), (346 + dx, 408 + dy), (252, 252, 248), -1)
    cv2.circle(img, (224 + dx, 86 + dy), 5, (200, 40, 40), -1, lineType=cv2.LINE_AA)  # the pin
    cv2.putText(img, "PLAN", (180 + dx, 130 + dy), cv2.FONT_HERSHEY_DUPLEX, 1.0, (30, 30, 30), 2, cv2.LINE_AA)
    rects = _block_rects(len(scene.plan), 224 + dx + bx - w // 2, w, 390 + dy, h)
    regions = [("plan", [90 + dx, 80 + dy, 359 + dx, 421 + dy])] + _draw_stack(img, mask, scene.plan, rects)
    return img, mask, regions


def _draw_tower(size: int, scene: Scene) -> tuple[np.ndarray, np.ndarray, list]:
    look = scene.look
    w, h, tx = look.tower_block
    floor = look.table_top
    img = _panel(size, "BUT", look, floor)
    mask = np.zeros((size, size), np.uint8)
    x0 = 224 + tx - w // 2
    rects = _block_rects(len(scene.tower), x0, w, floor, h)
    regions = [("tower", [x0, floor - h * len(scene.tower), x0 + w, floor])]
    return img, mask, regions + _draw_stack(img, mask, scene.tower, rects)


def _read_stack(img: np.ndarray, mask: np.ndarray, n: int) -> list[str]:
    """Block colours bottom to top, from the pixels of each block."""
    found = []
    for k in range(1, n + 1):
        px = mask == k
        if not px.any():
            raise Reject("a block is not visible")
        ys = np.nonzero(px)[0]
        found.append((-float(ys.mean()), _color_name(img[px].mean(axis=0))))
    return [c for _, c in sorted(found)]


def _color_name(rgb: np.ndarray) -> str:
    d = {name: float(np.sum((np.asarray(c, dtype=float) - rgb) ** 2)) for name, c in COLORS.items()}
    best = min(d, key=d.get)
    if d[best] > 60.0**2:
        raise Reject("item colour does not match a known colour")
    return best
