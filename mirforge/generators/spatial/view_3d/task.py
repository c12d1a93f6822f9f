"""view_3d: which top view belongs to the objects shown from the front and from the side?

The scene is a few coloured primitives standing on a 3 x 3 grid. The question shows the orthographic front
view (looking along +y) and side view (from the right, looking along -x), then candidate top views: the true
layout and layouts with objects swapped or moved. Orthographic views share one scale, so an object's pixel
columns in the front view lie inside its columns in the true top view, and its columns in the side view lie
inside its (flipped) rows there. The verifier applies exactly that test to the rendered segmentation masks and
accepts a scene only when a single candidate passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import distinct_colors, draw_distinct, object_name, random_shapes
from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, ortho_view
from mirforge.task import Question, Region, Rendered, Task, TaskConfig, ensure, per_level, place

CELL = 1.1  # grid spacing; objects are at most 0.8 wide, so footprints never overlap
HALF_EXTENT = 2.0
TOLERANCE_PX = 2
MIN_SIDE_PX = 8  # a region narrower than this shows a sliver of its object, not the object
COLUMNS = ("left", "middle", "right")
ROWS = ("front", "middle", "back")

Layout = tuple[tuple[int, int], ...]  # grid cell (column, row) of each object, in object order


@dataclass
class View3DConfig(TaskConfig):
    objects_per_level: tuple[int, ...] = per_level(2, 3, 5)
    min_visible_px: int = 40

    def validate(self) -> None:
        super().validate()
        ensure(
            all(2 <= n <= 9 for n in self.objects_per_level),
            "objects_per_level",
            "each count must be between 2 and 9 (the grid has 9 cells)",
        )
        ensure(self.min_visible_px > 0, "min_visible_px", "must be positive")


@dataclass(frozen=True)
class Scene:
    objects: tuple[Object3D, ...]
    layout: Layout
    distractor_kind: str  # how candidate layouts differ: "shuffle", "swap" or "nudge"


class View3D(Task):
    name = "view_3d"
    category = "spatial"
    description = "Match the top view to the front and side views of primitives on a grid"
    Config = View3DConfig

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_objects": self.config.objects_per_level[level - 1],
            "distractors": ("shuffle", "swap", "nudge")[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        knobs = self.knobs(level)
        n = knobs["n_objects"]
        cells = [(int(c % 3), int(c // 3)) for c in rng.permutation(9)[:n]]
        colors, shapes = distinct_colors(rng, n), random_shapes(rng, n)
        objects = []
        for color, shape, cell in zip(colors, shapes, cells, strict=True):
            width = float(rng.uniform(0.45, 0.8))
            depth = width if shape != "box" else float(rng.uniform(0.45, 0.8))
            objects.append(
                Object3D(
                    name=object_name(color, shape),
                    shape=shape,
                    size=(width, depth, float(rng.uniform(0.4, 1.1))),
                    color=PALETTE[color],
                    position=_cell_xy(cell),
                )
            )
        return Scene(objects=tuple(objects), layout=tuple(cells), distractor_kind=knobs["distractors"])

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        distractors = draw_distinct(
            lambda: _mutate(scene.layout, scene.distractor_kind, rng), self.config.n_options - 1, exclude=[scene.layout]
        )
        layouts = place(scene.layout, distractors, slot)
        k = len(layouts)
        slots = " ".join(["<image>"] * k)
        text = (
            f"<image> is the front view and <image> the side view (seen from the right) of some objects "
            f"standing on a table. Which of these {k} top views, {slots}, shows the same objects from above?"
        )
        options = [f"The top view in Image {3 + i}" for i in range(k)]
        return Question(text=text, options=options, answer=slot, facts={"layouts": layouts})

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        r = renderer(self.image_size)
        front, side = r.views(
            Scene3D(scene.objects), [ortho_view("front", HALF_EXTENT), ortho_view("side", HALF_EXTENT)]
        )
        tops = []
        for layout in question.facts["layouts"]:
            moved = tuple(_moved(o, cell) for o, cell in zip(scene.objects, layout, strict=True))
            tops.extend(r.views(Scene3D(moved), [ortho_view("top", HALF_EXTENT)]))
        names = [o.name for o in scene.objects]
        min_px = self.config.min_visible_px

        def shown(view: Any, i: int) -> bool:  # enough pixels, and not a sliver peeking out behind another object
            box = view.box(i)
            return view.pixels(i) >= min_px and min(box[2] - box[0], box[3] - box[1]) >= MIN_SIDE_PX

        for i, _name in enumerate(names):
            if not (shown(front, i) or shown(side, i)):
                raise Reject("object hidden in both front and side views")
        regions = []
        for image, view in enumerate([front, side, *tops]):
            regions += [Region(image, name, view.box(i)) for i, name in enumerate(names) if shown(view, i)]
        size = self.image_size
        measured = {
            "front_x": {n: _cols(front, i) if shown(front, i) else None for i, n in enumerate(names)},
            "side_y": {n: _cols(side, i) if shown(side, i) else None for i, n in enumerate(names)},
            "top_xy": [{n: [_cols(top, i), _flipped_rows(top, i, size)] for i, n in enumerate(names)} for top in tops],
        }
        return Rendered(images=[front.rgb, side.rgb, *(t.rgb for t in tops)], measured=measured, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        consistent = [k for k in range(len(question.options)) if not _conflicts(rendered.measured, k)]
        if len(consistent) != 1:
            raise Reject(f"{len(consistent)} top views agree with the front and side views")
        return consistent[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        names = [o.name for o in scene.objects]
        front_order = sorted((n for n in names if m["front_x"][n]), key=lambda n: m["front_x"][n][0])
        side_order = sorted((n for n in names if m["side_y"][n]), key=lambda n: m["side_y"][n][0])
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        candidates = []
        for k, layout in enumerate(question.facts["layouts"]):
            conflicts = _conflicts(m, k)
            candidates.append(
                {
                    "letter": "ABCDEFGH"[k],
                    "image": 3 + k,
                    "cells": [
                        {"name": n, "where": _where(col, row), "box": boxes.get((2 + k, n))}
                        for n, (col, row) in zip(names, layout, strict=True)
                    ],
                    "conflict": conflicts[0] if conflicts else None,
                }
            )
        return {
            "names": names,
            "front": [{"name": n, "box": boxes[(0, n)]} for n in front_order],
            "side": [{"name": n, "box": boxes[(1, n)]} for n in side_order],
            "hidden_front": [n for n in names if not m["front_x"][n]],
            "hidden_side": [n for n in names if not m["side_y"][n]],
            "candidates": candidates,
            "correct": candidates[question.answer],
        }


def _where(col: int, row: int) -> str:
    return "centre" if (col, row) == (1, 1) else f"{ROWS[row]} {COLUMNS[col]}"


def _cell_xy(cell: tuple[int, int]) -> tuple[float, float]:
    return ((cell[0] - 1) * CELL, (cell[1] - 1) * CELL)


def _moved(obj: Object3D, cell: tuple[int, int]) -> Object3D:
    return Object3D(obj.name, obj.shape, obj.size, obj.color, _cell_xy(cell), obj.base, obj.yaw)


def _mutate(layout: Layout, kind: str, rng: np.random.Generator) -> Layout:
    cells = list(layout)
    if kind == "shuffle":
        free = [(c % 3, c // 3) for c in rng.permutation(9)]
        return tuple(free[: len(cells)])
    if kind == "swap" or len(cells) == 9:
        i, j = rng.choice(len(cells), size=2, replace=False)
        cells[i], cells[j] = cells[j], cells[i]
        return tuple(cells)
    # nudge: one object to a free neighbouring cell
    i = int(rng.integers(len(cells)))
    col, row = cells[i]
    options = [
        (col + dc, row + dr)
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if 0 <= col + dc < 3 and 0 <= row + dr < 3 and (col + dc, row + dr) not in cells
    ]
    if not options:
        return _mutate(layout, "swap", rng)
    cells[i] = options[int(rng.integers(len(options)))]
    return tuple(cells)


def _cols(view: Any, i: int) -> list[int] | None:
    box = view.box(i)
    return None if box is None else [box[0], box[2]]


def _flipped_rows(view: Any, i: int, size: int) -> list[int] | None:
    """Rows of a top view mapped to the side view's columns (+y is up in the top view, right in the side view)."""
    box = view.box(i)
    return None if box is None else [size - box[3], size - box[1]]


def _inside(inner: list[int], outer: list[int] | None) -> bool:
    return outer is not None and inner[0] >= outer[0] - TOLERANCE_PX and inner[1] <= outer[1] + TOLERANCE_PX


def _conflicts(measured: dict[str, Any], k: int) -> list[dict[str, Any]]:
    """What the k-th candidate top view contradicts: one entry per object and view."""
    top = measured["top_xy"][k]
    found = []
    for name, cols in measured["front_x"].items():
        if cols and not _inside(cols, top[name][0]):
            found.append({"name": name, "view": "front", "seen": cols, "candidate": top[name][0]})
    for name, cols in measured["side_y"].items():
        if cols and not _inside(cols, top[name][1]):
            found.append({"name": name, "view": "side", "seen": cols, "candidate": top[name][1]})
    return found
