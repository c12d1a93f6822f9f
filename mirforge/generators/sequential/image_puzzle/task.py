"""image_puzzle: where do tiles belong, which tile fills a hole, which tile joins another, which arrangement?

A picture from one of several families (:mod:`.pictures`: landscape, city, underwater, room, abstract art, town map),
in one of several styles (flat, painted, pixel art, poster), is drawn one tile larger than ``448 x grid`` pixels,
a window of that size at a drawn offset is kept (see :func:`_picture`), and it is cut into a ``grid x grid`` set of
448-pixel tiles, so tiles are shown at full resolution. Motifs repeat across the picture, so no
cell is told apart by one landmark of its own. The level's grid is used by every question of the level. Questions:

- ``arrangement`` (level 1, a 2 x 2 cut): four shuffled tiles; which arrangement restores the picture? The options
  are the answer with its top pair, its bottom pair or both swapped (see :func:`_coset_distractors`), so none is the
  centre of the others and no single tile's look decides.
- ``where2`` (levels 1, 2): Image 1 the picture with its grid drawn, Images 2 and 3 two tiles from two rows; the
  options pair one of two cells for the first tile with one of two for the second (every combination), each tile's
  other cell the one of its row most like its own, so each tile decides one half of the answer, both are needed,
  and a tile's look alone (sky above, ground below) cannot tell its two cells apart.
- ``missing`` (levels 2, 3): Image 1 the picture with one cell blanked out; Images 2 to 5 candidate tiles (option
  images). Distractors are other cells' tiles (level 2) or crops half a cell off the grid, laid out as a 2 x 2 block
  of half-cell steps with the true tile at a random corner (level 3, an inner hole so that every corner fits), so
  no candidate is the others' consensus; the hole is an inner cell whose tile shows more detail than a drawn number
  (0 to 3) of its near misses, so the busiest candidate is the answer no more often than the others.
- ``neighbour`` (level 3): Image 1 one tile; Images 2 to 5 candidate tiles (option images); which one joins it on
  the named side? No picture is shown: only the edges tell. The answer is a neighbour of the reference, so an inner
  cell is the answer more often than a corner; distractor cells are drawn in the same proportion (see
  :func:`_degree`). Neighbours also look alike, so the answer's rank in likeness to the reference and its rank in
  likeness to the other candidates (see :func:`_look_gap`) are drawn per index: neither the candidate most like the
  reference nor the odd one out is the answer more often than the others.

The verifier works on the rendered images only: it shrinks a tile to a cell and compares it with the picture (mean
absolute difference), pastes a candidate into the hole and measures the colour jump around it, or measures the jump
across a seam. The best option must beat the runner-up by the factor ``margin`` and by ``min_gap`` grey levels, or the
scene is rejected; ``ask`` draws distractors that pass this test on the picture itself, so the loop rarely rejects.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.sequential.image_puzzle.pictures import (
    FAMILIES,
    PIXEL_BLOCK,
    STYLE_WORDS,
    STYLES,
    Picture,
    describe,
    draw_picture,
)
from mirforge.task import Needs, Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level, place

TILE = 448  # side of a tile, and of every image shown
ROWS = {2: ("top", "bottom"), 3: ("top", "middle", "bottom"), 4: ("top", "upper middle", "lower middle", "bottom")}
COLS = {2: ("left", "right"), 3: ("left", "centre", "right"), 4: ("far left", "left", "right", "far right")}
HOLE = (128, 128, 128)
HOLE_EDGE = (40, 40, 40)
NEIGHBOUR_DRAWS = 24  # distractor triples drawn per reference tile and side before the next pair is tried
PLAIN_STD = 6.0  # below this colour spread (per channel) a tile shows nothing to place it by
LEVEL_KINDS = (("where2", "arrangement"), ("where2", "missing"), ("missing", "neighbour"))
SIDES = {"right": (0, 1), "left": (0, -1), "below": (1, 0), "above": (-1, 0)}
SIDE_WORDS = {
    "right": "directly to the right of",
    "left": "directly to the left of",
    "below": "directly below",
    "above": "directly above",
}


@dataclass
class ImagePuzzleConfig(TaskConfig):
    families: tuple[str, ...] = tuple(FAMILIES)  # the picture families drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)
    styles: tuple[str, ...] = STYLES
    grid_per_level: tuple[int, ...] = per_level(2, 3, 4)
    margin: float = 0.75  # best cost must be below margin x runner-up
    min_gap: float = 4.0  # ... and at least this many grey levels below it

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(len(self.styles) > 0, "styles", f"name at least one style: {', '.join(STYLES)}")
        for name in self.styles:
            ensure(name in STYLES, "styles", f"unknown style {name!r}; styles: {', '.join(STYLES)}")
        ensure(all(g in (2, 3, 4) for g in self.grid_per_level), "grid_per_level", "each grid size must be 2, 3 or 4")
        ensure(
            self.grid_per_level[0] == 2,
            "grid_per_level",
            "level 1 asks for the arrangement of a 2 x 2 cut, so its grid must be 2",
        )
        ensure(
            self.grid_per_level[2] >= 3,
            "grid_per_level",
            "level 3 cuts near-miss tiles around an inner cell, so its grid must be 3 or 4",
        )
        ensure(self.n_options == 4, "n_options", "image_puzzle asks with exactly 4 options")
        ensure(0.1 <= self.margin < 1.0, "margin", "must be between 0.1 and 1")
        ensure(self.min_gap >= 0, "min_gap", "must not be negative")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    family: str
    style: str
    seed: int  # the picture is drawn from its own RNG stream, seeded from the instance RNG
    grid: int
    kind: str
    level: int
    # level 3, drawn per index (balanced), 0 to 3: for a missing tile, how many near misses show less detail than the
    # true tile; for a neighbour, how many distractors look more like the reference tile than the answer does
    rank: int
    apart: int  # level 3's neighbour: how many candidates look less like the other candidates than the answer (0 to 3)


class ImagePuzzle(Task):
    name = "image_puzzle"
    category = "sequential"
    description = "Restore a picture cut into tiles: where tiles belong, which fills a hole, which joins another"
    Config = ImagePuzzleConfig
    needs = Needs(renderer=None, cost=0.8)
    variants = 2 * 4 * 4  # the level's question kind, and level 3's ranks of the answer (Scene.rank, Scene.apart)

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        return {
            "grid": self.config.grid_per_level[i],
            "kinds": list(LEVEL_KINDS[i]),
            "distractors": ("other_cells", "similar_cells", "near_misses")[i],
            "families": list(self.config.chosen()),
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family, "style": scene.style, "kind": scene.kind}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)
        v = int(rng.integers(self.variants)) if variant is None else variant
        names = self.config.chosen()
        family = names[int(rng.integers(len(names)))]
        style = self.config.styles[int(rng.integers(len(self.config.styles)))]
        kind = k["kinds"][v % 2 % len(k["kinds"])]
        return Scene(family, style, int(rng.integers(2**31)), k["grid"], kind, level, v // 2 % 4, v // 8 % 4)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        g = scene.grid
        pic = _picture(scene.family, scene.style, scene.seed, g) if scene.kind != "arrangement" else None
        if pic is not None and scene.kind == "where2":
            facts, options = self._ask_where2(scene, pic, rng, slot)
            text = (
                f"<image> shows a picture divided into a {g} x {g} grid. <image> and <image> are two tiles cut out of "
                "it along the grid lines. Which cells do the two tiles come from?"
            )
        elif pic is not None and scene.kind == "missing":
            facts, options = self._ask_missing(scene, pic, rng, slot)
            cell = tuple(facts["cell"])
            text = (
                f"<image> shows a picture divided into a {g} x {g} grid with one tile missing (the grey "
                f"{_cell_name(cell, g)} cell). Which of the tiles <image>, <image>, <image>, <image> fills the hole so "
                "that the picture is continuous again?"
            )
        elif pic is not None and scene.kind == "neighbour":
            facts, options, side = self._ask_neighbour(scene, pic, rng, slot)
            text = (
                f"The tiles <image>, <image>, <image>, <image>, <image> were cut from one picture along a {g} x {g} "
                f"grid. Which of the last four tiles sits {SIDE_WORDS[side]} the first one in the picture?"
            )
        else:
            quarters = _picture(scene.family, scene.style, scene.seed, 2).img
            if any(_plain(_tile(quarters, (c // 2, c % 2))) for c in range(4)):
                raise Reject("a quarter of the picture is plain")
            shown = tuple(int(v) for v in rng.permutation(4))  # image k shows cell shown[k] (reading order)
            truth = tuple(1 + shown.index(c) for c in range(4))  # image numbers in reading order
            keys = place(truth, _coset_distractors(rng, truth), slot)
            options = [f"Top row: Image {a}, Image {b}; bottom row: Image {c}, Image {d}" for a, b, c, d in keys]
            text = (
                "A picture was cut into a 2 x 2 grid of tiles, shown here in a random order: <image>, <image>, "
                "<image>, <image>. Which arrangement puts the tiles back together into the original picture?"
            )
            facts = {"kind": "arrangement", "grid": 2, "shown": list(shown), "keys": [list(k) for k in keys]}
        return Question(text=text, options=options, answer=slot, facts=facts)

    def _ask_where2(
        self, scene: Scene, pic: Picture, rng: np.random.Generator, slot: int
    ) -> tuple[dict[str, Any], list[str]]:
        """Two tiles from two rows; each gets its own cell and the most alike other cell of its row that is still
        clearly different. Both of a tile's cells are in one row, so its look (sky above, ground below) cannot
        tell them apart: only matching it against the picture can."""
        g = scene.grid
        small = _small_picture(pic.img)
        picked: list[tuple[tuple[int, int], tuple[int, int]]] = []
        for r in (int(i) for i in rng.permutation(g)):
            row = [(r, int(c)) for c in rng.permutation(g)]
            busy = [x for x in row if not _plain(_tile(pic.img, x))]
            if not busy:
                continue
            cell = busy[0]
            tile = _tile(pic.img, cell)
            near = sorted(
                (x for x in row if x != cell and _separable(small, tile, cell, x, g, self.config)),
                key=lambda x: _match_cost(small, _cell_box(x, g), tile),
            )
            if near:
                picked.append((cell, near[0]))
            if len(picked) == 2:
                break
        if len(picked) < 2:
            raise Reject("too few rows hold a tile that is both like another cell of its row and clearly different")
        (a, a2), (b, b2) = picked
        pairs = [tuple(sorted((a, a2))), tuple(sorted((b, b2)))]  # reading order, so the facts hold no hint either
        # the four combinations, the true one at slot; the others in random order
        combos = [(x, y) for x in pairs[0] for y in pairs[1] if (x, y) != (a, b)]
        keys = place((a, b), [combos[int(i)] for i in rng.permutation(3)], slot)
        options = [
            f"Image 2 from the {_cell_name(x, g)} cell, Image 3 from the {_cell_name(y, g)} cell" for x, y in keys
        ]
        facts = {
            "kind": "where2",
            "grid": g,
            "cells": [list(a), list(b)],
            "pairs": [[list(x) for x in p] for p in pairs],
            "keys": [[list(x), list(y)] for x, y in keys],
        }
        return facts, options

    def _ask_missing(
        self, scene: Scene, pic: Picture, rng: np.random.Generator, slot: int
    ) -> tuple[dict[str, Any], list[str]]:
        g = scene.grid
        near = scene.level >= 3
        # near misses need a hole that a block of half-cell steps fits around with the hole at any of its corners:
        # an inner cell (at a border the hole's corner of the block, and with it the answer, would be forced)
        inner = range(1, g - 1) if near else range(g)
        cells = [(r, c) for r in inner for c in inner]
        small = _small_picture(pic.img)
        if near:
            # the block's corner is drawn before anything is looked at; the hole is then an inner cell whose tile
            # shows more detail than exactly ``rank`` of its near misses (drawn per index, balanced): kept by
            # the all-shifts test alone, the true tile was the busiest candidate in 31% and the least busy in 24%
            ka, kb = int(rng.integers(2)), int(rng.integers(2))
            order = [cells[int(i)] for i in rng.permutation(len(cells))]
            for cell in order:
                true = (float(cell[0]), float(cell[1]))
                block = [(true[0] + (a - ka) / 2, true[1] + (b - kb) / 2) for a in (0, 1) for b in (0, 1)]
                detail = [_detail(_crop(pic.img, p)) for p in block]
                mine = detail[block.index(true)]
                if sum(d < mine for d in detail) == scene.rank and self._near_misses_clear(pic, small, cell):
                    break
            else:
                raise Reject("no hole whose tile ranks as drawn in detail among its near misses")
            hole = _cell_box(cell, g)
            picked = [p for p in block if p != true]
        else:
            cell = cells[int(rng.integers(len(cells)))]
            if _plain(_tile(pic.img, cell)):
                raise Reject("the missing tile is plain")
            hole = _cell_box(cell, g)
            holed = _holed(small, hole)
            true = (float(cell[0]), float(cell[1]))
            best = _seam_with_hole(holed, hole, _crop(pic.img, true))
            others = [(float(r), float(c)) for r, c in cells if (r, c) != cell]
            shuffled = (others[int(i)] for i in rng.permutation(len(others)))
            picked = [
                p
                for p in shuffled
                if _clear(best, _seam_with_hole(holed, hole, _crop(pic.img, p)), self.config)
                and not _plain(_crop(pic.img, p))
            ][:3]
            if len(picked) < 3:
                raise Reject("too few candidate tiles are clearly wrong for the hole")
        distractors = [picked[int(i)] for i in rng.permutation(3)]
        cands = place(true, distractors, slot)
        options = [f"Image {2 + i}" for i in range(4)]
        facts = {"kind": "missing", "grid": g, "cell": list(cell), "candidates": [list(p) for p in cands]}
        return facts, options

    def _near_misses_clear(self, pic: Picture, small: np.ndarray, cell: tuple[int, int]) -> bool:
        """The cell's tile shows something, and every crop half a cell around it fits the hole clearly worse and
        shows something too: all eight, whichever block is drawn, so that which corner of the block the answer takes
        never decides whether a hole is kept."""
        if _plain(_tile(pic.img, cell)):
            return False
        hole = _cell_box(cell, pic.size // TILE)
        holed = _holed(small, hole)
        true = (float(cell[0]), float(cell[1]))
        best = _seam_with_hole(holed, hole, _crop(pic.img, true))
        ring = [(true[0] + a / 2, true[1] + b / 2) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
        return all(
            _clear(best, _seam_with_hole(holed, hole, _crop(pic.img, p)), self.config) and not _plain(_crop(pic.img, p))
            for p in ring
        )

    def _ask_neighbour(
        self, scene: Scene, pic: Picture, rng: np.random.Generator, slot: int
    ) -> tuple[dict[str, Any], list[str], str]:
        g = scene.grid
        cells = [(r, c) for r in range(g) for c in range(g)]
        tiles = {x: _tile(pic.img, x) for x in cells}
        looks = {x: _look(t) for x, t in tiles.items()}
        tries = [(cells[int(i)], side) for i in rng.permutation(len(cells)) for side in SIDES]
        tries = [tries[int(i)] for i in rng.permutation(len(tries))]
        for ref, side in tries:
            dr, dc = SIDES[side]
            true = (ref[0] + dr, ref[1] + dc)
            if not (0 <= true[0] < g and 0 <= true[1] < g):
                continue
            if _plain(tiles[ref]) or _plain(tiles[true]):
                continue
            best = _edge_cost(tiles[ref], tiles[true], side)
            others = [x for x in cells if x not in (ref, true) and not _plain(tiles[x])]
            fine = [x for x in others if _clear(best, _edge_cost(tiles[ref], tiles[x], side), self.config)]
            if len(fine) < 3 or best > 12:
                continue  # a plain edge (sky to sky): no tile would join it clearly
            # the answer is a neighbour of the reference, so an inner cell (four neighbours) is the answer twice as
            # often as a corner (two): distractors drawn alike, or the tile from the picture's middle is the answer
            weight = np.array([_degree(x, g) for x in fine], float)
            chance = weight / weight.sum()
            # and neighbours look alike: kept by the seams alone, the candidate most like the reference was the answer
            # in 47%. So the answer's rank in likeness to the reference is drawn (scene.rank), and so is its rank in
            # likeness to the other candidates (scene.apart): balanced on the first alone, the answer was the odd one
            # out in 33%
            for _ in range(NEIGHBOUR_DRAWS):
                picked = [fine[int(i)] for i in rng.choice(len(fine), 3, replace=False, p=chance)]
                shown = [looks[x] for x in (true, *picked)]  # the answer first
                gaps = [_look_gap(looks[ref], s) for s in shown]
                apart = [np.mean([_look_gap(s, t) for t in shown if t is not s]) for s in shown]
                if sum(d < gaps[0] for d in gaps) == scene.rank and sum(d > apart[0] for d in apart) == scene.apart:
                    break
            else:
                continue
            cands = place(true, picked, slot)
            facts = {
                "kind": "neighbour",
                "grid": g,
                "ref": list(ref),
                "side": side,
                "candidates": [list(x) for x in cands],
            }
            return facts, [f"Image {2 + i}" for i in range(4)], side
        raise Reject("no tile edge of this picture is distinctive enough, with distractors that rank as drawn")

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        pic = _picture(scene.family, scene.style, scene.seed, scene.grid)
        g, f = scene.grid, question.facts
        kind = f["kind"]
        small = _small_picture(pic.img)
        full = [0, 0, TILE, TILE]
        measured: dict[str, Any] = {}
        if kind == "where2":
            tiles_at = [tuple(c) for c in f["cells"]]
            tiles = [_tile(pic.img, c) for c in tiles_at]
            images = [_gridded(small, g), *tiles]
            regions = [Region(0, "picture", full)] + [Region(1 + i, "tile", full) for i in range(len(tiles))]
            measured["pair_costs"] = [
                [round(_match_cost(small, _cell_box(tuple(c), g), tiles[t]), 2) for c in f["pairs"][t]]
                for t in range(2)
            ]
            named = sorted(tuple(c) for pair in f["pairs"] for c in pair)  # reading order: no hint of the answer
            regions += [Region(0, f"{_cell_name(c, g)} cell", _cell_box(c, g)) for c in named]
        elif kind == "missing":
            hole = _cell_box(tuple(f["cell"]), g)
            holed = _holed(small, hole)
            cands = [_crop(pic.img, tuple(p)) for p in f["candidates"]]
            measured["costs"] = [round(_seam_with_hole(holed, hole, t), 2) for t in cands]
            images = [holed, *cands]
            regions = [Region(0, "missing cell", hole)] + [Region(1 + i, "candidate tile", full) for i in range(4)]
        elif kind == "neighbour":
            ref = _tile(pic.img, tuple(f["ref"]))
            cands = [_tile(pic.img, tuple(x)) for x in f["candidates"]]
            measured["costs"] = [round(_edge_cost(ref, t, f["side"]), 2) for t in cands]
            images = [ref, *cands]
            regions = [Region(0, "reference tile", full)] + [Region(1 + i, "candidate tile", full) for i in range(4)]
        else:
            cuts = [_tile(pic.img, (c // 2, c % 2)) for c in range(4)]
            images = [cuts[c] for c in f["shown"]]
            seams = {}
            for a, b in permutations(range(4), 2):
                seams[f"{a + 1}h{b + 1}"] = round(_edge_cost(images[a], images[b], "right"), 2)
                seams[f"{a + 1}v{b + 1}"] = round(_edge_cost(images[a], images[b], "below"), 2)
            measured["seams"] = seams
            measured["costs"] = [round(_arrangement_cost(seams, k), 2) for k in f["keys"]]
            regions = [Region(k, "tile", full) for k in range(4)]
        return Rendered(images=images, measured=measured, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        m = rendered.measured
        if question.facts["kind"] == "where2":
            picks = [self._decide(costs) for costs in m["pair_costs"]]
            pairs = question.facts["pairs"]
            want = [pairs[0][picks[0]], pairs[1][picks[1]]]
            return question.facts["keys"].index(want)
        return self._decide(m["costs"])

    def _decide(self, costs: list[float]) -> int:
        order = sorted(range(len(costs)), key=lambda i: costs[i])
        if not _clear(costs[order[0]], costs[order[1]], self.config):
            raise Reject("two options fit the picture about equally well")
        return order[0]

    def roles(self, question: Question, rendered: Rendered) -> list[str]:
        if question.facts["kind"] in ("missing", "neighbour"):
            return ["evidence"] + ["option"] * 4
        return ["evidence"] * len(rendered.images)

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """A hidden picture or tile could show anything: every option its measurements touch stays possible."""
        f, m = question.facts, rendered.measured
        every = set(range(len(question.options)))
        if not hidden:
            return {self.verify(question, rendered)}
        if f["kind"] in ("missing", "neighbour"):
            return every  # the one evidence image, or the one tile compared, is hidden
        if f["kind"] == "where2":
            if 0 in hidden:
                return every
            picks = [None if t + 1 in hidden else self._decide(m["pair_costs"][t]) for t in range(2)]
            pairs = f["pairs"]
            return {
                i
                for i, (x, y) in enumerate(f["keys"])
                if (picks[0] is None or x == pairs[0][picks[0]]) and (picks[1] is None or y == pairs[1][picks[1]])
            }
        # arrangement: an option stays possible unless a seam between two visible tiles plainly does not fit
        best = self.verify(question, rendered)
        fit = 1.5 * max(m["seams"][s] for s in _seam_names(f["keys"][best])) + 2.0
        visible = {str(k + 1) for k in range(4) if k not in hidden}
        out = {best}
        for i, key in enumerate(f["keys"]):
            seen = [s for s in _seam_names(key) if s[0] in visible and s[2] in visible]
            if all(m["seams"][s] <= fit for s in seen):
                out.add(i)
        return out

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f = question.facts
        g = scene.grid
        pic = _picture(scene.family, scene.style, scene.seed, g)
        letters = "ABCD"
        out: dict[str, Any] = {
            "kind": f["kind"],
            "grid": g,
            "style": STYLE_WORDS[scene.style],
            "subject": FAMILIES[scene.family][1],
            "n_images": len(rendered.images),
            "regions": [r.to_json() for r in rendered.regions],
        }
        s = TILE * g
        whole = _words(describe(pic, (0, 0, s, s)), 4)

        def tile_words(p: tuple[float, float]) -> str:
            r, c = p
            return _words(describe(pic, (c * TILE, r * TILE, (c + 1) * TILE, (r + 1) * TILE)), 3)

        out["whole"] = whole
        m = rendered.measured
        if f["kind"] == "where2":
            at = [tuple(c) for c in f["cells"]]
            out["tiles"] = [{"image": 2 + i, "shows": tile_words(c)} for i, c in enumerate(at)]
        if f["kind"] == "where2":
            out["pairs"] = [
                {
                    "image": 2 + t,
                    "cells": [
                        {"cell": _cell_name(tuple(c), g), "cost": m["pair_costs"][t][j]}
                        for j, c in enumerate(f["pairs"][t])
                    ],
                }
                for t in range(2)
            ]
            for p in out["pairs"]:
                p["best"] = min(p["cells"], key=lambda x: x["cost"])
                p["other"] = max(p["cells"], key=lambda x: x["cost"])
        elif f["kind"] in ("missing", "neighbour"):
            out["candidates"] = [
                {"image": 2 + i, "letter": letters[i], "shows": tile_words(tuple(p)), "cost": m["costs"][i]}
                for i, p in enumerate(f["candidates"])
            ]
            out["best"] = out["candidates"][question.answer]
            out["others"] = [c for i, c in enumerate(out["candidates"]) if i != question.answer]
            if f["kind"] == "missing":
                out["cell"] = _cell_name(tuple(f["cell"]), g)
                r, c = f["cell"]
                out["around"] = _words(describe(pic, _around((r, c), g)), 3)
            else:
                out["side"] = SIDE_WORDS[f["side"]]
                out["edge"] = {"right": "right", "left": "left", "below": "bottom", "above": "top"}[f["side"]]
                out["facing"] = {"right": "left", "left": "right", "below": "top", "above": "bottom"}[f["side"]]
                out["ref"] = tile_words(tuple(f["ref"]))
        else:
            cuts = [(c // 2, c % 2) for c in range(4)]
            out["tiles"] = [{"image": k + 1, "shows": tile_words(cuts[c])} for k, c in enumerate(f["shown"])]
            out["opts"] = [
                {
                    "letter": letters[i],
                    "text": question.options[i],
                    "words": "Image {} and Image {} on top, Image {} and Image {} below".format(*f["keys"][i]),
                    "cost": m["costs"][i],
                }
                for i in range(4)
            ]
            out["best"] = out["opts"][question.answer]
            out["others"] = [o for i, o in enumerate(out["opts"]) if i != question.answer]
        return out


# -- the picture and its tiles -----------------------------------------------------------------------------------
@lru_cache(maxsize=2)
def _picture(family: str, style: str, seed: int, grid: int) -> Picture:
    """The picture at ``448 x grid`` pixels (drawn once for ask, render and the steps of an attempt): a window of a
    drawing one tile larger, shifted by a whole number of pixel-art blocks drawn from the seed, so that where the
    drawing's fixed lines (a floor, a horizon) cross the grid changes from picture to picture. Cut from the drawing
    itself, a tile on the grid showed them at heights that a near miss half a cell off never did, and the tile was
    told from its near misses without the picture (room pictures: 45% of level 3's missing tiles from the options
    alone)."""
    size = TILE * grid
    drawn = draw_picture(family, style, seed, size + TILE)
    dy, dx = (PIXEL_BLOCK * int(v) for v in np.random.default_rng([seed, 3]).integers(TILE // PIXEL_BLOCK, size=2))
    return drawn.window(dy, dx, size)


def _small_picture(master: np.ndarray) -> np.ndarray:
    return cv2.resize(master, (TILE, TILE), interpolation=cv2.INTER_AREA)


def _cell_box(cell: tuple[int, int], g: int) -> list[int]:
    edges = [round(TILE * j / g) for j in range(g + 1)]
    r, c = cell
    return [edges[c], edges[r], edges[c + 1], edges[r + 1]]


def _gridded(small: np.ndarray, g: int) -> np.ndarray:
    shown = small.copy()
    for j in range(1, g):
        e = round(TILE * j / g)
        shown[:, e - 1 : e + 1] = 255
        shown[e - 1 : e + 1, :] = 255
    return shown


def _holed(small: np.ndarray, hole: list[int]) -> np.ndarray:
    x0, y0, x1, y1 = hole
    out = small.copy()
    out[y0:y1, x0:x1] = HOLE
    # a dark frame inside the hole, so it never passes for a grey sky; the seams are measured outside it
    out[y0 : y0 + 3, x0:x1] = out[y1 - 3 : y1, x0:x1] = HOLE_EDGE
    out[y0:y1, x0 : x0 + 3] = out[y0:y1, x1 - 3 : x1] = HOLE_EDGE
    return out


def _tile(master: np.ndarray, cell: tuple[int, int]) -> np.ndarray:
    return _crop(master, (float(cell[0]), float(cell[1])))


def _crop(master: np.ndarray, at: tuple[float, float]) -> np.ndarray:
    """The 448-pixel square whose top-left corner is ``at`` (row, column) in cells; half cells allowed."""
    y0, x0 = round(at[0] * TILE), round(at[1] * TILE)
    return master[y0 : y0 + TILE, x0 : x0 + TILE].copy()


def _around(cell: tuple[int, int], g: int) -> tuple[float, float, float, float]:
    r, c = cell
    return (max(0, c - 0.5) * TILE, max(0, r - 0.5) * TILE, min(g, c + 1.5) * TILE, min(g, r + 1.5) * TILE)


def _words(items: list[str], most: int) -> str:
    items = items[:most]
    if not items:
        return "only background"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plain(tile: np.ndarray) -> bool:
    """A tile with nothing to go by: every colour channel nearly constant (a patch of clear sky, a bare background)."""
    return float(cv2.meanStdDev(tile)[1].max()) < PLAIN_STD


def _detail(tile: np.ndarray) -> float:
    """How much a tile shows: its mean brightness gradient at 64 x 64 pixels."""
    grey = cv2.cvtColor(cv2.resize(tile, (64, 64), interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(np.abs(np.diff(grey, axis=0)).mean() + np.abs(np.diff(grey, axis=1)).mean())


def _clear(best: float, other: float, config: ImagePuzzleConfig) -> bool:
    return best <= config.margin * other and other - best >= config.min_gap


def _separable(
    small: np.ndarray, tile: np.ndarray, cell: tuple[int, int], other: tuple[int, int], g: int, config: Any
) -> bool:
    """The tile, shrunk to a cell, matches its own cell clearly better than ``other``."""
    return _clear(_match_cost(small, _cell_box(cell, g), tile), _match_cost(small, _cell_box(other, g), tile), config)


def _shrunk(tile: np.ndarray, box: list[int]) -> np.ndarray:
    return cv2.resize(tile, (box[2] - box[0], box[3] - box[1]), interpolation=cv2.INTER_AREA).astype(np.float32)


def _match_cost(small: np.ndarray, box: list[int], tile: np.ndarray) -> float:
    x0, y0, x1, y1 = box
    return float(np.abs(small[y0:y1, x0:x1].astype(np.float32) - _shrunk(tile, box)).mean())


def _seam_with_hole(holed: np.ndarray, hole: list[int], tile: np.ndarray) -> float:
    """Mean colour jump between the pasted tile's outer pixels and the picture's pixels next to the hole."""
    x0, y0, x1, y1 = hole
    small = _shrunk(tile, hole)
    pic = holed.astype(np.float32)
    h, w = pic.shape[:2]
    jumps = []
    if y0 > 0:
        jumps.append(np.abs(small[0] - pic[y0 - 1, x0:x1]).mean())
    if y1 < h:
        jumps.append(np.abs(small[-1] - pic[y1, x0:x1]).mean())
    if x0 > 0:
        jumps.append(np.abs(small[:, 0] - pic[y0:y1, x0 - 1]).mean())
    if x1 < w:
        jumps.append(np.abs(small[:, -1] - pic[y0:y1, x1]).mean())
    return float(np.mean(jumps))


def _edge_cost(a: np.ndarray, b: np.ndarray, side: str) -> float:
    """Mean colour jump across the seam when ``b`` is put on ``side`` of ``a``."""
    if side == "right":
        ea, eb = a[:, -1], b[:, 0]
    elif side == "left":
        ea, eb = a[:, 0], b[:, -1]
    elif side == "below":
        ea, eb = a[-1], b[0]
    else:
        ea, eb = a[0], b[-1]
    return float(np.abs(ea.astype(np.float32) - eb.astype(np.float32)).mean())


def _seam_names(key: list[int]) -> list[str]:
    """The four seams of a 2 x 2 arrangement ``key`` (image numbers in reading order), named like the measurements."""
    tl, tr, bl, br = key
    return [f"{tl}h{tr}", f"{bl}h{br}", f"{tl}v{bl}", f"{tr}v{br}"]


def _arrangement_cost(seams: dict[str, float], key: list[int]) -> float:
    return float(np.mean([seams[s] for s in _seam_names(key)]))


# -- arrangement options ----------------------------------------------------------------------------------------
# Positions of a 2 x 2 arrangement in reading order: 0 top left, 1 top right, 2 bottom left, 3 bottom right. A
# move ``w`` sends the arrangement ``key`` to ``tuple(key[w[p]] for p in range(4))``.
ROW_SWAPS = ((0, 1, 2, 3), (1, 0, 2, 3), (0, 1, 3, 2), (1, 0, 3, 2))  # none, the top pair, the bottom pair, both


def _compose(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a[b[p]] for p in range(len(b)))


def _coset_distractors(rng: np.random.Generator, truth: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The three other arrangements of the coset ``{truth moved by w : w in ROW_SWAPS}``, in random order.

    Every option reaches the others by the same moves, so the text cannot single out the answer: not by which option
    is the centre of the others, and not through the verifier either, whose rejections (a swap that leaves the seams
    about as smooth, such as swapping two bottom tiles on an even meadow) depend on the moves and on the picture,
    never on which option is the answer. Across the options each tile stands in one of the two cells of its row, so
    no tile's look decides: the order of the top pair and that of the bottom pair are each read off a seam. (Moves
    that each displace all four tiles put every tile in a cell of its own in each option, so the one tile that looked
    like a top left corner gave the answer: 41.5% from one image alone, at n = 301.)"""
    others = [_compose(truth, w) for w in ROW_SWAPS[1:]]
    return [others[int(i)] for i in rng.permutation(len(others))]


def _degree(cell: tuple[int, int], g: int) -> int:
    """How many cells of a ``g x g`` grid share a side with ``cell``."""
    return sum(0 <= cell[0] + dr < g and 0 <= cell[1] + dc < g for dr, dc in SIDES.values())


def _look(tile: np.ndarray) -> np.ndarray:
    """A tile's look as a whole: its 16 x 16 pixel thumbnail."""
    return _shrunk(tile, [0, 0, 16, 16])


def _look_gap(a: np.ndarray, b: np.ndarray) -> float:
    """How unlike two looks (:func:`_look`) are: their mean colour difference."""
    return float(np.abs(a - b).mean())


def _cell_name(cell: tuple[int, int], g: int) -> str:
    r, c = cell
    if g == 3 and (r, c) == (1, 1):
        return "centre"
    return f"{ROWS[g][r]} {COLS[g][c]}"
