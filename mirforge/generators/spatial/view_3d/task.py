"""view_3d: which top view belongs to the objects shown from the front and from the side?

A few objects stand on a square grid, each in its own column and its own row, so nothing hides anything in the
front view (orthographic, looking along +y) or in the side view (from the right, looking along -x). The question
shows those two views, then four candidate top views drawn with the grid on the table.

The four candidates are built as a set, not as perturbations of the answer: two column assignments {C, C'} that
differ by one move (two objects swap columns, one object moves to a free column, or one object moves to the
neighbouring column: ``moves``), and two row assignments {R, R'} made the same way, give the four layouts
(C, R), (C, R'), (C', R), (C', R'). The answer is (C, R). Each candidate shares its columns with one other, its
rows with another, and differs in both from the last, so every candidate is equally central: the per-pixel median
of the four top views, or the one nearest the others, is no better than chance. The move is drawn symmetrically
(the layout and its moved copy are exchangeable), so nothing tells which corner of the square is the scene.

The front view gives the columns only and the side view the rows only: with the side view hidden, (C, R') fits
as well as the answer; with the front view hidden, (C', R) does. Both are needed (``consistent``).

Orthographic views share one scale, so an object's pixel columns in the front view lie inside its columns in the
true top view, and its columns in the side view lie inside its (flipped) rows there. The verifier applies exactly
that test to the rendered segmentation masks and accepts a scene only when a single candidate passes.

Scene families (``families``): ``shapes`` (clean primitives whose names match their geometry: a cube has equal
sides, a ball is round), ``tabletop`` (small catalogue objects: mugs, cans, bottles) and ``furniture`` (chairs,
stools, cabinets, lamps), each object painted its own colour so that it can be found in every view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge import LETTERS
from mirforge.errors import Reject
from mirforge.render.objects import model
from mirforge.render.objects.place import place as place_object
from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, ortho_view
from mirforge.task import Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level, place

CELL = 1.0  # grid spacing; footprints are at most FOOTPRINT wide, so neighbours never touch
FOOTPRINT = 0.8
MARGIN = 0.35  # world units around the grid in every view
TOLERANCE_PX = 2
MIN_SIDE_PX = 8  # a region narrower than this shows a sliver of its object, not the object
LINE_WIDTH = 0.02  # grid lines drawn on the table in the top views
LINE_COLOR = (95, 85, 75)
MOVES = ("swap", "shift", "nudge")
FAMILIES = ("shapes", "tabletop", "furniture")
CUBE_TOLERANCE = 0.03  # a box is called a cube only when its sides agree to 3%
BLOCK_MIN_SPREAD = 1.25  # a box that is not a cube has sides at least 25% apart, visibly not a cube

# catalogue kinds per family, with the variants drawn (a small pool: each variant is built once per process)
KINDS: dict[str, tuple[str, ...]] = {
    "tabletop": (
        "mug",
        "can",
        "bottle",
        "jar",
        "glass",
        "candle",
        "thermos",
        "pencil cup",
        "wine glass",
        "alarm clock",
        "rubber duck",
        "vase",
    ),
    "furniture": (
        "chair",
        "stool",
        "cabinet",
        "trash bin",
        "suitcase",
        "table lamp",
        "flower pot",
        "cardboard box",
        "traffic cone",
        "fire hydrant",
        "bucket",
        "globe",
    ),
}
VARIANTS_PER_KIND = 3
SHAPE_WORDS = ("cube", "block", "cylinder", "cone", "ball")

Cells = tuple[int, ...]  # one grid index (column or row) per object, in object order


@dataclass
class View3DConfig(TaskConfig):
    families: tuple[str, ...] = FAMILIES  # the scene families drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)
    objects_per_level: tuple[int, ...] = per_level(3, 4, 5)
    grid_per_level: tuple[int, ...] = per_level(4, 5, 6)  # the grid is grid x grid cells
    move_per_level: tuple[str, ...] = per_level("swap", "shift", "nudge")  # how the candidates' layouts differ
    min_visible_px: int = 40

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(self.n_options == 4, "n_options", "must be 4 (the candidates are two column by two row layouts)")
        ensure(
            all(2 <= n <= 6 for n in self.objects_per_level),
            "objects_per_level",
            "each count must be between 2 and 6",
        )
        ensure(all(3 <= g <= 7 for g in self.grid_per_level), "grid_per_level", "each grid must be 3 to 7 cells wide")
        for n, g, move in zip(self.objects_per_level, self.grid_per_level, self.move_per_level, strict=True):
            ensure(move in MOVES, "move_per_level", f"unknown move {move!r}; moves: {', '.join(MOVES)}")
            ensure(n <= g, "grid_per_level", f"a {g} x {g} grid has no room for {n} objects in their own columns")
            ensure(
                move == "swap" or n < g,
                "move_per_level",
                f"{move!r} needs a free column: {n} objects on a {g} x {g} grid leave none",
            )
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    family: str
    objects: tuple[Object3D, ...]  # at the answer's layout
    grid: int
    cols: tuple[Cells, Cells]  # the answer's columns first
    rows: tuple[Cells, Cells]  # the answer's rows first
    move: str


class View3D(Task):
    name = "view_3d"
    category = "spatial"
    description = "Match the top view to the front and side views of objects standing on a grid"
    Config = View3DConfig

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        c = self.config
        return {
            "families": list(c.chosen()),
            "n_objects": c.objects_per_level[i],
            "grid": c.grid_per_level[i],
            "move": c.move_per_level[i],
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        families = k["families"]
        family = families[int(rng.integers(len(families)))]
        n, grid, move = k["n_objects"], k["grid"], k["move"]
        cols = _pair(rng, n, grid, move)
        rows = _pair(rng, n, grid, move)
        shapes = _shapes(rng, n) if family == "shapes" else _catalogue(rng, family, n)
        objects = tuple(_at(o, cols[0][i], rows[0][i], grid) for i, o in enumerate(shapes))
        return Scene(family, objects, grid, cols, rows, move)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        answer = (0, 0)
        others = [(0, 1), (1, 0), (1, 1)]
        distractors = [others[int(i)] for i in rng.permutation(3)]
        corners = place(answer, distractors, slot)
        layouts = [[list(scene.cols[c]), list(scene.rows[r])] for c, r in corners]
        k = len(layouts)
        slots = " ".join(["<image>"] * k)
        text = (
            f"<image> is the front view and <image> the side view (seen from the right) of some objects "
            f"standing on a {scene.grid} x {scene.grid} grid. All views are drawn to the same scale and line up with "
            f"the grid: a column of the front view is a column of the top view, a column of the side view a row of "
            f"it. Which of these {k} top views, {slots}, shows the same objects from above?"
        )
        options = [f"The top view in Image {3 + i}" for i in range(k)]
        return Question(text=text, options=options, answer=slot, facts={"layouts": layouts, "grid": scene.grid})

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        r = renderer(self.image_size)
        grid = scene.grid
        extent = grid * CELL / 2 + MARGIN
        height = extent - MARGIN  # the camera's height: the table's edge near the bottom of the front and side views
        if max(o.size[2] for o in scene.objects) > height + extent - MARGIN:
            raise Reject("an object is too tall for the frame")
        front, side = r.views(
            Scene3D(scene.objects), [ortho_view("front", extent, height), ortho_view("side", extent, height)]
        )
        lines = _grid_lines(grid)
        tops = []
        for cols, rows in question.facts["layouts"]:
            moved = tuple(_at(o, c, rw, grid) for o, c, rw in zip(scene.objects, cols, rows, strict=True))
            tops.extend(r.views(Scene3D(moved + lines), [ortho_view("top", extent)]))
        names = [o.name for o in scene.objects]
        min_px = self.config.min_visible_px

        def shown(view: Any, i: int) -> bool:  # enough pixels, and not a sliver
            box = view.box(i)
            return view.pixels(i) >= min_px and min(box[2] - box[0], box[3] - box[1]) >= MIN_SIDE_PX

        for view in (front, side, *tops):
            if not all(shown(view, i) for i in range(len(names))):
                raise Reject("an object is too small to see in one of the views")
        regions = []
        for image, view in enumerate([front, side, *tops]):
            regions += [Region(image, name, view.box(i)) for i, name in enumerate(names)]
        size = self.image_size
        measured = {
            "front_x": {n: _cols(front, i) for i, n in enumerate(names)},
            "side_y": {n: _cols(side, i) for i, n in enumerate(names)},
            "top_xy": [{n: [_cols(top, i), _flipped_rows(top, i, size)] for i, n in enumerate(names)} for top in tops],
        }
        return Rendered(images=[front.rgb, side.rgb, *(t.rgb for t in tops)], measured=measured, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        fits = self.consistent(question, rendered, frozenset())
        if len(fits) != 1:
            raise Reject(f"{len(fits)} top views agree with the front and side views")
        return next(iter(fits))

    def roles(self, question: Question, rendered: Rendered) -> list[str]:
        return ["evidence", "evidence"] + ["option"] * len(question.options)

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Candidates that no shown evidence view contradicts; a hidden candidate image contradicts nothing."""
        views = tuple(v for k, v in enumerate(("front", "side")) if k not in hidden)
        return {
            k for k in range(len(question.options)) if 2 + k in hidden or not _conflicts(rendered.measured, k, views)
        }

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        names = [o.name for o in scene.objects]
        front_order = sorted(names, key=lambda n: m["front_x"][n][0])
        side_order = sorted(names, key=lambda n: m["side_y"][n][0])
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        layouts = question.facts["layouts"]
        true_cols, true_rows = (dict(zip(names, axis, strict=True)) for axis in layouts[question.answer])
        candidates = []
        for k, (cols, rows) in enumerate(layouts):
            at_col, at_row = dict(zip(names, cols, strict=True)), dict(zip(names, rows, strict=True))
            front = [
                {**c, "seen_at": true_cols[c["name"]] + 1, "candidate_at": at_col[c["name"]] + 1}
                for c in _conflicts(m, k, ("front",))
            ]
            side = [
                {**c, "seen_at": true_rows[c["name"]] + 1, "candidate_at": at_row[c["name"]] + 1}
                for c in _conflicts(m, k, ("side",))
            ]
            cells = [
                {"name": n, "col": c + 1, "row": r + 1, "box": boxes[(2 + k, n)]}
                for n, c, r in sorted(zip(names, cols, rows, strict=True), key=lambda t: (t[1], t[2]))
            ]
            candidates.append(
                {
                    "image": 3 + k,
                    "cells": cells,
                    "placed": [f"the {c['name']} in column {c['col']}, row {c['row']}" for c in cells],
                    "front_conflict": front[0] if front else None,
                    "side_conflict": side[0] if side else None,
                }
            )
        return {
            "family": scene.family,
            "grid": scene.grid,
            "names": names,
            "front": [{"name": n, "box": boxes[(0, n)]} for n in front_order],
            "front_names": [f"the {n}" for n in front_order],
            "side_names": [f"the {n}" for n in side_order],
            "side": [{"name": n, "box": boxes[(1, n)]} for n in side_order],
            "candidates": candidates,
            "correct": candidates[question.answer],
            "letters": LETTERS[: len(question.options)],
        }


# -- layouts ------------------------------------------------------------------------------------------------------
def _pair(rng: np.random.Generator, n: int, grid: int, move: str) -> tuple[Cells, Cells]:
    """A uniformly random assignment of ``n`` distinct cells (columns or rows) of ``grid`` and a copy changed by one
    ``move``, drawn so that the two are exchangeable: the move is proposed with a probability that does not depend
    on the assignment and drawn again (with a fresh assignment) when it does not fit, so P(a, b) = P(b, a)."""
    for _ in range(100):
        cells = tuple(int(c) for c in rng.choice(grid, n, replace=False))
        moved = list(cells)
        if move == "swap":
            i, j = (int(v) for v in rng.choice(n, 2, replace=False))
            moved[i], moved[j] = moved[j], moved[i]
        elif move == "shift":  # to any free cell: n * (grid - n) choices from either side
            i = int(rng.integers(n))
            free = [c for c in range(grid) if c not in cells]
            moved[i] = free[int(rng.integers(len(free)))]
        else:  # nudge: one object one cell over, if that cell is on the grid and free
            i, step = int(rng.integers(n)), int(rng.choice([-1, 1]))
            target = cells[i] + step
            if not 0 <= target < grid or target in cells:
                continue
            moved[i] = target
        return cells, tuple(moved)
    raise Reject("no move fits the layout")


def _cell_xy(col: int, row: int, grid: int) -> tuple[float, float]:
    """Column 0 is on the left (-x), row 0 at the front (-y)."""
    half = (grid - 1) / 2
    return ((col - half) * CELL, (row - half) * CELL)


def _at(obj: Object3D, col: int, row: int, grid: int) -> Object3D:
    return Object3D(obj.name, obj.shape, obj.size, obj.color, _cell_xy(col, row, grid), obj.base, obj.yaw, obj.variant)


def _grid_lines(grid: int) -> tuple[Object3D, ...]:
    """Thin strips on the table along the cell borders (drawn in the top views only; edge-on elsewhere)."""
    span = grid * CELL
    out = []
    for k in range(grid + 1):
        at = (k - grid / 2) * CELL
        out.append(Object3D(f"line x{k}", "box", (LINE_WIDTH, span, 0.004), LINE_COLOR, (at, 0.0)))
        out.append(Object3D(f"line y{k}", "box", (span, LINE_WIDTH, 0.004), LINE_COLOR, (0.0, at)))
    return tuple(out)


# -- objects ------------------------------------------------------------------------------------------------------
def _colors(rng: np.random.Generator, n: int) -> list[str]:
    names = [c for c in PALETTE if c != "brown"]  # brown reads as the wooden table
    return [names[int(i)] for i in rng.permutation(len(names))[:n]]


def _shapes(rng: np.random.Generator, n: int) -> list[Object3D]:
    """Clean primitives named by what they are: a cube has equal sides, a block sides at least 25% apart, a ball
    is a sphere; cylinders and cones are round."""
    out = []
    for color in _colors(rng, n):
        word = SHAPE_WORDS[int(rng.integers(len(SHAPE_WORDS)))]
        w = float(rng.uniform(0.45, FOOTPRINT))
        if word == "cube" or word == "ball":
            size = (w, w, w)
        elif word == "block":
            while True:
                size = (w, float(rng.uniform(0.45, FOOTPRINT)), float(rng.uniform(0.35, 1.3)))
                if max(size) / min(size) >= BLOCK_MIN_SPREAD:
                    break
        else:
            size = (w, w, float(rng.uniform(0.4, 1.3)))
        shape = {"cube": "box", "block": "box", "ball": "sphere"}.get(word, word)
        out.append(Object3D(f"{color} {word}", shape, size, PALETTE[color], (0.0, 0.0)))
    return out


def shape_word(obj: Object3D) -> str:
    """The word the geometry earns (used by the tests to check the names)."""
    w, d, h = obj.size
    if obj.shape == "box":
        return "cube" if max(w, d, h) / min(w, d, h) <= 1 + CUBE_TOLERANCE else "block"
    if obj.shape == "sphere":
        return "ball" if max(w, d, h) / min(w, d, h) <= 1 + CUBE_TOLERANCE else "ellipsoid"
    return obj.shape


def _catalogue(rng: np.random.Generator, family: str, n: int) -> list[Object3D]:
    """``n`` different kinds of the family at their real proportions, one scale for the whole scene (the widest
    footprint fills FOOTPRINT of a cell), each painted its own colour and named as it then looks (a pink
    cardboard box is a "box": ``ObjectModel.painted_noun``)."""
    pool = KINDS[family]
    kinds = [pool[int(i)] for i in rng.permutation(len(pool))[:n]]
    models = [model(kind, int(rng.integers(VARIANTS_PER_KIND))) for kind in kinds]
    scale = FOOTPRINT / max(max(m.extents[0], m.extents[1]) for m in models)
    return [
        place_object(m.kind, m.variant, m.painted_noun(PALETTE[c]), (0.0, 0.0), m.height * scale, color=PALETTE[c])
        for m, c in zip(models, _colors(rng, n), strict=True)
    ]


# -- measurement --------------------------------------------------------------------------------------------------
def _cols(view: Any, i: int) -> list[int]:
    box = view.box(i)
    return [box[0], box[2]]


def _flipped_rows(view: Any, i: int, size: int) -> list[int]:
    """Rows of a top view mapped to the side view's columns (+y is up in the top view, right in the side view)."""
    box = view.box(i)
    return [size - box[3], size - box[1]]


def _inside(inner: list[int], outer: list[int]) -> bool:
    return inner[0] >= outer[0] - TOLERANCE_PX and inner[1] <= outer[1] + TOLERANCE_PX


def _conflicts(measured: dict[str, Any], k: int, views: tuple[str, ...] = ("front", "side")) -> list[dict[str, Any]]:
    """What the k-th candidate top view contradicts in ``views``: one entry per object and view."""
    top = measured["top_xy"][k]
    found = []
    for view, key, axis in (("front", "front_x", 0), ("side", "side_y", 1)):
        if view not in views:
            continue
        for name, seen in measured[key].items():
            if not _inside(seen, top[name][axis]):
                found.append({"name": name, "view": view, "seen": seen, "candidate": top[name][axis]})
    return found
