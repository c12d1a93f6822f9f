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
  images). Distractors are tiles of the drawing just past the picture's frame, on its grid carried on (level 2: the
  picture's own cells were each found whole in Image 1, so the one tile not found there was the answer; the
  drawing is two tiles larger than the picture for these, see :func:`_beyond`), or crops half a cell off the grid,
  laid out as a 2 x 2 block
  of half-cell steps with the true tile at a random corner (level 3, an inner hole so that every corner fits), so
  no candidate is the others' consensus; at level 3 the hole is an inner cell whose tile shows more detail than a
  drawn number (0 to 3) of its near misses, so the busiest candidate is the answer no more often than the others.
  No wrong tile is ruled out by its colour alone: none lies further from the mean colour around the hole than the
  true tile by more than COLOUR_MARGIN, and a drawn number (0 to 3) of them lie nearer it (see
  :func:`_colour_gaps`), so the candidate of the nearest colour is the answer one time in four, and only the edges
  and what they show tell. (Drawn from any clearly wrong tile, a patch of sky was offered for a hole in a meadow,
  and the nearest colour found the answer in 43% of 201 questions, 50% at level 2.)
- ``neighbour`` (level 3): Image 1 one tile; Images 2 to 5 candidate tiles (option images); which one joins it on
  the named side? No picture is shown: only the edges tell. The answer is a neighbour of the reference, so an inner
  cell is the answer more often than a corner; distractor cells are drawn in the same proportion (the ways a cell
  joins a neighbour that may be asked about, inner cells weighted by ``INNER_WEIGHT``); the tile on the reference's
  other side, which joins it there, is offered whenever it is clearly wrong on the side asked, so the side asked
  matters. Neighbours also look alike, so the answer's rank in likeness to the reference and its rank in likeness
  to the other candidates (see :func:`_look_gap`) are drawn per index: neither the candidate most like the
  reference nor the odd one out is the answer more often than the others.

The verifier works on the rendered images only: it shrinks a tile to a cell and compares it with the picture (mean
absolute difference), pastes a candidate into the hole and measures the colour jump around it, or measures the jump
across a seam. The best option must beat the runner-up by the factor ``margin`` and by ``min_gap`` grey levels, or the
scene is rejected; ``ask`` draws distractors that pass this test on the picture itself, so the loop rarely rejects.
The reasoning steps say what a person checks instead of these numbers (see :func:`_seam_reading`): which things run
on across the border of the hole or a seam, and where a wrong candidate shows another thing against them, or jumps
in brightness or colour.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, permutations
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.sequential.image_puzzle.pictures import (
    EDGE_RUN,
    FAMILIES,
    PIXEL_BLOCK,
    STYLE_WORDS,
    STYLES,
    Picture,
    along,
    describe,
    draw_picture,
)
from mirforge.task import Needs, Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level, place

TILE = 448  # side of a tile, and of every image shown
ROWS = {2: ("top", "bottom"), 3: ("top", "middle", "bottom"), 4: ("top", "upper middle", "lower middle", "bottom")}
COLS = {2: ("left", "right"), 3: ("left", "centre", "right"), 4: ("far left", "left", "right", "far right")}
HOLE = (128, 128, 128)
HOLE_EDGE = (40, 40, 40)
DETAIL_STEP = 7  # :func:`_detail` looks at a tile shrunk to 64 x 64 pixels, blocks of 7: half cells and pixel-art
# blocks (28) are whole blocks, so every crop's detail is read off one shrunk drawing
WINDOWS = 32  # a missing tile: windows of one drawing tried (see :func:`_picture`) before a scene is given up
NEIGHBOUR_DRAWS = 24  # distractor triples drawn per reference tile and side before the next pair is tried
# a neighbour question's distractor from an inner cell is drawn this much more often than its ways of joining a
# neighbour alone say: the questions that can be asked (three clearly wrong tiles, ranks in likeness as drawn) favour
# inner answers, 37% of them against 29% of the distractors; at 1.6, 36.8% against 36.7% (872 questions)
INNER_WEIGHT = 1.6
SEAM_MOST = 12.0  # a neighbour question's true seam at most this busy (mean colour jump across it)
PLAIN_STD = 6.0  # below this colour spread (per channel) a tile shows nothing to place it by
# a wrong missing tile's mean colour lies no further (RGB distance) from the mean colour around the hole than the
# true tile's by more than this, so no candidate is ruled out by its colour alone (sky offered for a meadow)
COLOUR_MARGIN = 16.0
LEVEL_KINDS = (("where2", "arrangement"), ("where2", "missing"), ("missing", "neighbour"))
SIDES = {"right": (0, 1), "left": (0, -1), "below": (1, 0), "above": (-1, 0)}
PLACES = {"top": "above the hole", "bottom": "below the hole", "left": "left of the hole", "right": "right of the hole"}
ALONG_NAMES = {"a grid of streets": "a street"}  # a thing seen along an edge, where its caption name says too much
BREAK = 0.15  # a stretch of a hole's border this long (share of the side) where a candidate shows another thing
SHADE = 12.0  # grey levels: a candidate's edge this much darker or lighter than the picture next to it is said so
HUE = 20.0  # RGB distance: an edge this far from the colour next to it, at about its brightness, is another colour
EDGES = {"right": "right", "left": "left", "below": "bottom", "above": "top"}  # a tile's edge on that side
OPPOSITE = {"right": "left", "left": "right", "below": "above", "above": "below"}
PARTS = (  # the parts of a 3 x 3 split of a tile, in reading order
    "in its top left corner",
    "along its top",
    "in its top right corner",
    "along its left side",
    "in its middle",
    "along its right side",
    "in its bottom left corner",
    "along its bottom",
    "in its bottom right corner",
)
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
    # level 3's neighbour: how many candidates look less like the other candidates than the answer (0 to 3); a missing
    # tile (levels 2 and 3): how many wrong tiles lie nearer the mean colour around the hole than the true tile
    apart: int


class ImagePuzzle(Task):
    name = "image_puzzle"
    category = "sequential"
    description = "Restore a picture cut into tiles: where tiles belong, which fills a hole, which joins another"
    Config = ImagePuzzleConfig
    needs = Needs(renderer=None, cost=0.8)
    variants = 2 * 4 * 4  # the level's question kind, and the ranks of the answer (Scene.rank, Scene.apart)

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
        # the picture at its first window (a missing tile tries windows of its own)
        pic = _picture(scene.family, scene.style, scene.seed, g, 0) if scene.kind in ("where2", "neighbour") else None
        if pic is not None and scene.kind == "where2":
            facts, options = self._ask_where2(scene, pic, rng, slot)
            text = (
                f"<image> shows a picture divided into a {g} x {g} grid. <image> and <image> are two tiles cut out of "
                "it along the grid lines. Which cells do the two tiles come from?"
            )
        elif scene.kind == "missing":
            facts, options = self._ask_missing(scene, rng, slot)
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

    def _ask_missing(self, scene: Scene, rng: np.random.Generator, slot: int) -> tuple[dict[str, Any], list[str]]:
        """The hole and its wrong tiles. Level 2: tiles from past the picture's frame (see :meth:`_other_cells`,
        :func:`_beyond`); drawn from any clearly wrong tile, a patch of sky was offered for a hole in a meadow, and
        the candidate whose mean colour was nearest the colour around the hole was the answer in 50% (n = 233).
        Level 3: near misses, which need a
        hole that a block of half-cell steps fits around with the hole at any of its corners: an inner cell (at a
        border the hole's corner of the block, and with it the answer, would be forced). The block's corner is
        drawn before anything is looked at; the hole is then an inner cell whose block passes
        :meth:`_near_block_fits`: kept by the all-shifts test alone, the true tile was the busiest candidate in 31%
        and the least busy in 24%, and the candidate of the nearest colour was the answer in 36%. Few holes meet
        all the ranks drawn, so several windows of the drawing are tried (see :func:`_picture`) before the scene is
        given up."""
        g = scene.grid
        near = scene.level >= 3
        margin = 1 if near else 2  # level 2's wrong tiles come from the drawing past the picture's frame
        corner = (int(rng.integers(2)), int(rng.integers(2))) if near else (0, 0)
        inner = range(1, g - 1) if near else range(g)
        cells = [(r, c) for r in inner for c in inner]
        drawn = _drawing(scene.family, scene.style, scene.seed, g, margin).img
        grey = _detail_grey(drawn) if near else None  # every crop's detail at once: all lie on its 7-pixel grid
        # and every window's small picture at once where windows lie on its g-pixel grid (g = 2 or 4: a part of the
        # drawing shrunk g times is then the window's own small picture, to the last bit)
        shrunk = _shrink(drawn, g) if PIXEL_BLOCK % g == 0 else None
        for window in range(WINDOWS):
            dy, dx = _offset(scene.seed, window, margin)
            img = drawn[dy : dy + TILE * g, dx : dx + TILE * g]  # the window, as _picture cuts it
            small = _small_picture(img) if shrunk is None else shrunk[dy // g :, dx // g :][:TILE, :TILE]
            order = [cells[int(i)] for i in rng.permutation(len(cells))]
            if near:
                trial = _Trial(img, small, grey[dy // DETAIL_STEP :, dx // DETAIL_STEP :])
                cell = next((x for x in order if self._near_block_fits(trial, x, corner, scene)), None)
                if cell is not None:
                    true = (float(cell[0]), float(cell[1]))
                    block = [
                        (true[0] + (a - corner[0]) / 2, true[1] + (b - corner[1]) / 2) for a in (0, 1) for b in (0, 1)
                    ]
                    picked = [p for p in block if p != true]
                    break
            else:
                pool = {p: _square(drawn, _in_drawing(p, (dy, dx))) for p in _beyond(g, (dy, dx), margin)}
                found = self._other_cells(img, small, order, pool, scene, rng)
                if found is not None:
                    cell, picked = found
                    true = (float(cell[0]), float(cell[1]))
                    break
        else:
            raise Reject("no hole whose wrong tiles rank as drawn against the true tile")
        distractors = [picked[int(i)] for i in rng.permutation(3)]
        cands = place(true, distractors, slot)
        options = [f"Image {2 + i}" for i in range(4)]
        facts = {
            "kind": "missing",
            "grid": g,
            "window": window,
            "margin": margin,
            "cell": list(cell),
            "candidates": [list(p) for p in cands],
        }
        return facts, options

    def _near_block_fits(self, trial: _Trial, cell: tuple[int, int], corner: tuple[int, int], scene: Scene) -> bool:
        """The block of half-cell steps with the hole's tile at ``corner`` makes a level 3 question: the true tile
        shows more detail than exactly ``scene.rank`` near misses, exactly ``scene.apart`` of them lie nearer the
        colour around the hole than it (see :func:`_colour_gaps`), and every crop half a cell around the hole is
        clearly wrong, shows something and is of about the colour around the hole (see
        :meth:`_near_misses_clear`)."""
        true = (float(cell[0]), float(cell[1]))
        block = [(true[0] + (a - corner[0]) / 2, true[1] + (b - corner[1]) / 2) for a in (0, 1) for b in (0, 1)]
        k = block.index(true)
        detail = [trial.detail(p) for p in block]
        if sum(d < detail[k] for d in detail) != scene.rank:
            return False
        hole = _cell_box(cell, trial.img.shape[0] // TILE)
        gaps = _colour_gaps(_holed(trial.small, hole), hole, [_square(trial.img, p) for p in block])
        if sum(d < gaps[k] for d in gaps) != scene.apart:
            return False
        return self._near_misses_clear(trial.img, trial.small, cell)

    def _other_cells(
        self,
        img: np.ndarray,
        small: np.ndarray,
        order: list[tuple[int, int]],
        pool: dict[tuple[float, float], np.ndarray],
        scene: Scene,
        rng: np.random.Generator,
    ) -> tuple[tuple[int, int], list[tuple[float, float]]] | None:
        """The first hole in ``order`` (cells of the picture ``img``, shrunk: ``small``) with three tiles of
        ``pool`` (the drawing past the picture's frame, by place) that make a level 2 question, and their places
        (None if no hole has them). The hole's tile and theirs show something; each fits the hole clearly worse than
        the true tile; none lies further from the colour around the hole than the true tile by more than
        COLOUR_MARGIN, and exactly ``scene.apart`` lie nearer it (so the nearest colour is the answer one time in
        four); and exactly ``scene.rank`` of the four candidates stand further apart in colour from the other three
        than the true tile (see :func:`_odd_rank`): wrong tiles of the colour around the hole alike, the true tile,
        with the hole's own things, was the odd one out in 33% (n = 99). Drawn from the picture's other cells, the
        wrong tiles were each found whole in Image 1, and the one tile not found there was the answer."""
        g = img.shape[0] // TILE
        tiles: dict[Any, np.ndarray] = {x: _square(img, x) for x in order}
        shown = [x for x in order if not _plain(tiles[x])]
        others = [p for p, t in pool.items() if not _plain(t)]
        tiles.update({p: pool[p] for p in others})
        means = {x: np.array(cv2.mean(tiles[x])[:3]) for x in (*shown, *others)}
        fitted: dict[tuple[Any, int, int], np.ndarray] = {}  # tiles shrunk to a hole's size, once
        for cell in shown:
            hole = _cell_box(cell, g)
            holed = _holed(small, hole)
            ring = _ring_colour(holed, hole)
            gaps = {x: float(np.linalg.norm(means[x] - ring)) for x in (cell, *others)}
            mine = gaps[cell]
            close = [x for x in others if gaps[x] < mine]
            far = [x for x in others if mine <= gaps[x] <= mine + COLOUR_MARGIN]
            if len(close) < scene.apart or len(far) < 3 - scene.apart:
                continue
            fits = [
                (*a, *b)
                for a in combinations(close, scene.apart)
                for b in combinations(far, 3 - scene.apart)
                if _odd_rank([means[x] for x in (cell, *a, *b)]) == scene.rank
            ]
            if not fits:
                continue
            size = (hole[2] - hole[0], hole[3] - hole[1])
            seams = {}
            for x in sorted({cell, *(x for fit in fits for x in fit)}):  # the seams these fits need, and only once
                if (x, *size) not in fitted:
                    fitted[(x, *size)] = _shrunk(tiles[x], hole)
                seams[x] = _seam_with_hole(holed, hole, tiles[x], fitted[(x, *size)])
            fits = [fit for fit in fits if all(_clear(seams[cell], seams[x], self.config) for x in fit)]
            if fits:
                return cell, [(float(r), float(c)) for r, c in fits[int(rng.integers(len(fits)))]]
        return None

    def _near_misses_clear(self, img: np.ndarray, small: np.ndarray, cell: tuple[int, int]) -> bool:
        """The cell's tile shows something, and every crop half a cell around it fits the hole clearly worse, shows
        something too and lies no further from the colour around the hole than the true tile by more than
        COLOUR_MARGIN: all eight, whichever block is drawn, so that which corner of the block the answer takes never
        decides whether a hole is kept."""
        true = (float(cell[0]), float(cell[1]))
        mine = _square(img, true)
        if _plain(mine):
            return False
        hole = _cell_box(cell, img.shape[0] // TILE)
        holed = _holed(small, hole)
        best = _seam_with_hole(holed, hole, mine)
        ring = [(true[0] + a / 2, true[1] + b / 2) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
        crops = [_square(img, p) for p in ring]
        if not all(_clear(best, _seam_with_hole(holed, hole, t), self.config) and not _plain(t) for t in crops):
            return False
        gaps = _colour_gaps(holed, hole, [mine, *crops])
        return _colour_fair(gaps[0], gaps[1:])

    def _ask_neighbour(
        self, scene: Scene, pic: Picture, rng: np.random.Generator, slot: int
    ) -> tuple[dict[str, Any], list[str], str]:
        g = scene.grid
        cells = [(r, c) for r in range(g) for c in range(g)]
        tiles = {x: _tile(pic.img, x) for x in cells}
        looks = {x: _look(t) for x, t in tiles.items()}
        # every (reference, side) whose neighbour may be asked for: neither tile plain, their seam no busier than
        # SEAM_MOST (a plain or busy edge: no tile would join it clearly)
        joins = {}
        for ref in cells:
            for side, (dr, dc) in SIDES.items():
                true = (ref[0] + dr, ref[1] + dc)
                if 0 <= true[0] < g and 0 <= true[1] < g and not (_plain(tiles[ref]) or _plain(tiles[true])):
                    cost = _edge_cost(tiles[ref], tiles[true], side)
                    if cost <= SEAM_MOST:
                        joins[ref, side] = true, cost
        # the answer is one of those neighbours, so a cell that joins its neighbours in more ways (an inner one with
        # content on every side) is the answer more often: distractors are drawn in proportion to the same count
        # (and INNER_WEIGHT), or the tile from the picture's middle is the answer
        ways = Counter(true for true, _ in joins.values())
        tries = sorted(joins)
        tries = [tries[int(i)] for i in rng.permutation(len(tries))]
        for ref, side in tries:
            true, best = joins[ref, side]
            others = [x for x in cells if x not in (ref, true) and ways[x]]
            fine = [x for x in others if _clear(best, _edge_cost(tiles[ref], tiles[x], side), self.config)]
            if len(fine) < 3:
                continue
            # the neighbour on the other side joins the reference as well as the answer does, on that side: offered
            # whenever it is clearly wrong on this one, so the side asked matters (with only the tiles above and below
            # offered, any tile that joins the reference's left or right edge was the answer)
            dr, dc = SIDES[side]
            forced = [x for x in fine if x == (ref[0] - dr, ref[1] - dc)]
            rest = [x for x in fine if x not in forced]
            weight = np.array(
                [ways[x] * (INNER_WEIGHT if 0 < x[0] < g - 1 and 0 < x[1] < g - 1 else 1.0) for x in rest]
            )
            chance = weight / weight.sum()
            # and neighbours look alike: kept by the seams alone, the candidate most like the reference was the answer
            # in 47%. So the answer's rank in likeness to the reference is drawn (scene.rank), and so is its rank in
            # likeness to the other candidates (scene.apart): balanced on the first alone, the answer was the odd one
            # out in 33%
            for _ in range(NEIGHBOUR_DRAWS):
                drawn = rng.choice(len(rest), 3 - len(forced), replace=False, p=chance)
                picked = forced + [rest[int(i)] for i in drawn]
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
        g, f = scene.grid, question.facts
        pic = _picture(scene.family, scene.style, scene.seed, g, f.get("window", 0), f.get("margin", 1))
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
            drawing, offset = _surround(scene, f)
            cands = [_crop(drawing.img, _in_drawing(tuple(p), offset)) for p in f["candidates"]]
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
        pic = _picture(scene.family, scene.style, scene.seed, g, f.get("window", 0), f.get("margin", 1))
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
        whole = _words(describe(pic, (0, 0, s, s))[:6])

        def tile_words(p: tuple[float, float]) -> str:  # all it shows: the seams name what runs along its edges
            r, c = p
            return _words(describe(pic, (c * TILE, r * TILE, (c + 1) * TILE, (r + 1) * TILE)))

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
            for t, p in enumerate(out["pairs"]):
                p["best"] = min(p["cells"], key=lambda x: x["cost"])
                p["other"] = max(p["cells"], key=lambda x: x["cost"])
                other = next(tuple(c) for c in f["pairs"][t] if tuple(c) != tuple(f["cells"][t]))
                p["differs"] = _cells_differ(pic, tuple(f["cells"][t]), other)
        elif f["kind"] in ("missing", "neighbour"):
            if f["kind"] == "missing":  # a wrong tile may come from past the picture's frame: read in the drawing
                drawing, offset = _surround(scene, f)
                at = [_in_drawing(tuple(p), offset) for p in f["candidates"]]
                shows = [_words(describe(drawing, (c * TILE, r * TILE, (c + 1) * TILE, (r + 1) * TILE))) for r, c in at]
            else:
                shows = [tile_words(tuple(p)) for p in f["candidates"]]
            out["candidates"] = [
                {"image": 2 + i, "letter": letters[i], "shows": shows[i], "cost": m["costs"][i]}
                for i in range(len(f["candidates"]))
            ]
            out["best"] = out["candidates"][question.answer]
            out["others"] = [c for i, c in enumerate(out["candidates"]) if i != question.answer]
            if f["kind"] == "missing":
                out["cell"] = _cell_name(tuple(f["cell"]), g)
                r, c = f["cell"]
                # what meets the hole's border from outside, which the steps say runs on into the answer (the
                # picture around it, counted in a region a reader cannot see the bounds of, said "four blocks, three
                # of them in part" where any reading finds another number)
                out["around"] = _words(along(pic, list(_outside(pic.labels, (r, c)).values())))
                labels = [_square(drawing.labels, p) for p in at]
                border = _hole_border(pic, tuple(f["cell"]), labels, rendered.images, question.answer)
                out["keeps"] = [{**k, "place": PLACES[k["edge"]]} for k in border["keeps"][question.answer]]
                out["breaks"] = [
                    {"image": 2 + i, "place": PLACES[b["edge"]], **b}
                    for i, b in enumerate(border["breaks"])
                    if i != question.answer
                ]
            else:
                out["side"] = SIDE_WORDS[f["side"]]
                out["edge"] = EDGES[f["side"]]
                out["facing"] = EDGES[OPPOSITE[f["side"]]]
                out["ref"] = tile_words(tuple(f["ref"]))
                seam = _tile_seam(pic, tuple(f["ref"]), f["side"], [tuple(p) for p in f["candidates"]], question.answer)
                out["along_ref"] = seam["context"]
                out["keeps"] = seam["keeps"][question.answer]
                out["breaks"] = [{"image": 2 + i, **b} for i, b in enumerate(seam["breaks"]) if i != question.answer]
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
            shown = [_tile(pic.labels, cuts[c]) for c in f["shown"]], [_tile(pic.img, cuts[c]) for c in f["shown"]]
            truth = set(_seam_names(f["keys"][question.answer]))
            for i, o in enumerate(out["opts"]):
                if i != question.answer:
                    # the seam of this arrangement that the picture breaks across most plainly (none of the right
                    # one's: every wrong arrangement moves two tiles); sorted, so a tie goes the same way in every
                    # process (a set of strings iterates in the order of their salted hashes)
                    name = max(sorted(set(_seam_names(f["keys"][i])) - truth), key=lambda x: m["seams"][x])
                    o["seam"] = _arranged_seam(pic, *shown, name)
        return out


# -- the picture and its tiles -----------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _drawing(family: str, style: str, seed: int, grid: int, margin: int = 1) -> Picture:
    """The drawing a picture at ``448 x grid`` pixels is a window of: ``margin`` tiles larger."""
    return draw_picture(family, style, seed, TILE * (grid + margin))


@lru_cache(maxsize=2)
def _picture(family: str, style: str, seed: int, grid: int, window: int = 0, margin: int = 1) -> Picture:
    """The picture at ``448 x grid`` pixels (drawn once for ask, render and the steps of an attempt): a window of a
    drawing one tile larger, shifted by a whole number of pixel-art blocks drawn from the seed and ``window`` (the
    questions that try several windows of one drawing number them from 0), so that where the drawing's fixed lines
    (a floor, a horizon) cross the grid changes from picture to picture. Cut from the drawing itself, a tile on the
    grid showed them at heights that a near miss half a cell off never did, and the tile was told from its near
    misses without the picture (room pictures: 45% of level 3's missing tiles from the options alone)."""
    return _drawing(family, style, seed, grid, margin).window(*_offset(seed, window, margin), TILE * grid)


def _offset(seed: int, window: int, margin: int = 1) -> tuple[int, int]:
    """Where the window ``window`` of a picture's drawing (``margin`` tiles larger) starts (row, column): whole
    pixel-art blocks."""
    stream = np.random.default_rng([seed, 3] if window == 0 else [seed, 3, window])
    dy, dx = (PIXEL_BLOCK * int(v) for v in stream.integers(margin * TILE // PIXEL_BLOCK, size=2))
    return dy, dx


def _beyond(grid: int, offset: tuple[int, int], margin: int) -> list[tuple[float, float]]:
    """The cells of the grid carried on past the picture's frame (row or column -1 or ``grid``) that the drawing
    holds whole around a window at ``offset``: tiles of the same drawing that the picture does not show."""
    side = TILE * (grid + margin)
    ring = [(r, c) for r in range(-1, grid + 1) for c in range(-1, grid + 1) if not (0 <= r < grid and 0 <= c < grid)]
    return [
        (float(r), float(c))
        for r, c in ring
        if 0 <= offset[0] + r * TILE <= side - TILE and 0 <= offset[1] + c * TILE <= side - TILE
    ]


def _in_drawing(at: tuple[float, float], offset: tuple[int, int]) -> tuple[float, float]:
    """A crop's place ``at`` (cells from the picture's corner) in its drawing, whose window starts at ``offset``."""
    return (at[0] + offset[0] / TILE, at[1] + offset[1] / TILE)


@dataclass(frozen=True)
class _Trial:
    """A window of a drawing tried for a level 3 missing tile: the window (a view), its small picture, and the
    drawing's :func:`_detail_grey` from the window's corner on."""

    img: np.ndarray
    small: np.ndarray
    grey: np.ndarray

    def detail(self, at: tuple[float, float]) -> float:
        """:func:`_detail` of the crop at ``at`` (cells), to the last bit, from the grey picture."""
        y, x = (round(v * TILE) // DETAIL_STEP for v in at)
        n = TILE // DETAIL_STEP
        return _gradient(self.grey[y : y + n, x : x + n])


def _surround(scene: Scene, facts: dict[str, Any]) -> tuple[Picture, tuple[int, int]]:
    """A missing tile's drawing, the picture's surroundings included, and where the picture's window starts."""
    margin, window = facts.get("margin", 1), facts["window"]
    return _drawing(scene.family, scene.style, scene.seed, scene.grid, margin), _offset(scene.seed, window, margin)


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
    return _square(master, at).copy()


def _square(master: np.ndarray, at: tuple[float, float]) -> np.ndarray:
    """:func:`_crop` as a view, to measure and drop."""
    y0, x0 = round(at[0] * TILE), round(at[1] * TILE)
    return master[y0 : y0 + TILE, x0 : x0 + TILE]


def _words(items: list[str]) -> str:
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
    n = TILE // DETAIL_STEP
    return _gradient(cv2.cvtColor(cv2.resize(tile, (n, n), interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY))


def _detail_grey(img: np.ndarray) -> np.ndarray:
    """``img`` shrunk DETAIL_STEP times and made grey, as :func:`_detail` does to a tile: shrinking averages whole
    blocks of DETAIL_STEP pixels, so a tile's part of it, where the tile starts on a block, is the tile's own."""
    return cv2.cvtColor(_shrink(img, DETAIL_STEP), cv2.COLOR_RGB2GRAY)


def _shrink(img: np.ndarray, k: int) -> np.ndarray:
    """``img`` shrunk ``k`` times: each pixel the mean of a block of ``k x k``."""
    h, w = img.shape[:2]
    return cv2.resize(img, (w // k, h // k), interpolation=cv2.INTER_AREA)


def _gradient(grey: np.ndarray) -> float:
    g = grey.astype(np.float32)
    return float(np.abs(np.diff(g, axis=0)).mean() + np.abs(np.diff(g, axis=1)).mean())


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


def _ring_colour(holed: np.ndarray, hole: list[int]) -> np.ndarray:
    """The mean colour of the picture around the hole: a band an eighth of the hole's side wide (cut off at the
    picture's edge), the colours a tile that fits the hole runs on from."""
    x0, y0, x1, y1 = hole
    w = (x1 - x0) // 8
    h, wide = holed.shape[:2]
    outer = holed[max(0, y0 - w) : min(h, y1 + w), max(0, x0 - w) : min(wide, x1 + w)]
    inner = holed[y0:y1, x0:x1]
    n = outer.shape[0] * outer.shape[1] - inner.shape[0] * inner.shape[1]
    return (np.array(cv2.sumElems(outer)[:3]) - np.array(cv2.sumElems(inner)[:3])) / n


def _colour_gaps(holed: np.ndarray, hole: list[int], tiles: list[np.ndarray]) -> list[float]:
    """How far each tile's mean colour lies from the mean colour around the hole (RGB distance)."""
    ring = _ring_colour(holed, hole)
    return [float(np.linalg.norm(np.array(cv2.mean(t)[:3]) - ring)) for t in tiles]


def _odd_rank(colours: list[np.ndarray]) -> int:
    """How many of the mean colours ``colours`` lie further from the mean of the others than the first one does."""
    apart = [float(np.linalg.norm(c - np.mean([d for d in colours if d is not c], axis=0))) for c in colours]
    return sum(a > apart[0] for a in apart)


def _colour_fair(mine: float, others: list[float]) -> bool:
    """Colour alone rules out none of the wrong tiles (colour gaps ``others``, see :func:`_colour_gaps`) beside the
    true tile (``mine``): none lies further from the colour around the hole by more than COLOUR_MARGIN."""
    return max(others) <= mine + COLOUR_MARGIN


def _seam_with_hole(holed: np.ndarray, hole: list[int], tile: np.ndarray, fitted: np.ndarray | None = None) -> float:
    """Mean colour jump between the pasted tile's outer pixels and the picture's pixels next to the hole (``fitted``:
    the tile shrunk to the hole, if at hand)."""
    return float(np.mean([np.abs(a - b).mean() for a, b in _border_lines(holed, hole, tile, fitted).values()]))


def _border_lines(
    holed: np.ndarray, hole: list[int], tile: np.ndarray, fitted: np.ndarray | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per side of the hole where the picture goes on: the outer pixels of ``tile`` shrunk into the hole (``fitted``,
    if at hand), and the picture's pixels next to them."""
    x0, y0, x1, y1 = hole
    small = _shrunk(tile, hole) if fitted is None else fitted
    h, w = holed.shape[:2]
    lines = {}
    if y0 > 0:
        lines["top"] = (small[0], holed[y0 - 1, x0:x1].astype(np.float32))
    if y1 < h:
        lines["bottom"] = (small[-1], holed[y1, x0:x1].astype(np.float32))
    if x0 > 0:
        lines["left"] = (small[:, 0], holed[y0:y1, x0 - 1].astype(np.float32))
    if x1 < w:
        lines["right"] = (small[:, -1], holed[y0:y1, x1].astype(np.float32))
    return lines


def _hole_border(
    pic: Picture, cell: tuple[int, int], labels: list[np.ndarray], images: list[np.ndarray], true: int
) -> dict[str, list[Any]]:
    """:func:`_seam_reading` of the border of the hole: the picture next to the hole on each side where it goes on,
    against the same edge of each candidate (``labels``: the candidates' labels, named as in ``pic``; ``images``:
    the holed picture, then the candidates; ``true``: the candidate that fills the hole)."""
    lut, names = _name_ids(pic)
    outside = {side: lut[line] for side, line in _outside(pic.labels, cell).items()}
    edges = [{side: lut[line] for side, line in _edges(square).items() if side in outside} for square in labels]
    hole = _cell_box(cell, pic.size // TILE)
    pixels = [_border_lines(images[0], hole, t) for t in images[1:]]
    return _seam_reading(outside, edges, pixels, true, names)


def _cells_differ(pic: Picture, cell: tuple[int, int], other: tuple[int, int]) -> dict[str, str]:
    """Where the cell ``other`` plainly differs from ``cell`` (a tile's own cell, whose tile it is), part by part
    of a 3 x 3 split: the part where most pixels show another thing (``how`` "shows": ``other`` shows ``now``
    ``part`` where the tile shows ``was``, the pair of things met most there), if that is at least a quarter of the
    part; else the part whose mean colour differs most, said by its brightness (``how`` "darker" or "lighter") or
    colour ("colour")."""
    lut, names = _name_ids(pic)
    mine, theirs = (lut[_tile(pic.labels, c)] for c in (cell, other))
    n = len(names)
    edges = [round(TILE * j / 3) for j in range(4)]
    parts = [(slice(edges[i], edges[i + 1]), slice(edges[j], edges[j + 1])) for i in range(3) for j in range(3)]
    share = [float((mine[at] != theirs[at]).mean()) for at in parts]
    k = int(np.argmax(share))
    if share[k] >= 0.25:
        differ = mine[parts[k]] != theirs[parts[k]]
        pair = _most((mine[parts[k]] * n + theirs[parts[k]])[differ])
        return {"how": "shows", "part": PARTS[k], "was": names[pair // n], "now": names[pair % n]}
    ours, others = (_tile(pic.img, c).astype(np.float32) for c in (cell, other))
    diffs = [others[at].mean(axis=(0, 1)) - ours[at].mean(axis=(0, 1)) for at in parts]
    k = int(np.argmax([np.linalg.norm(d) for d in diffs]))
    light = float(diffs[k] @ np.array([0.299, 0.587, 0.114]))
    how = ("darker" if light < 0 else "lighter") if abs(light) >= SHADE else "colour"
    return {"how": how, "part": PARTS[k]}


def _arranged_seam(pic: Picture, labels: list[np.ndarray], tiles: list[np.ndarray], seam: str) -> dict[str, Any]:
    """:func:`_seam_reading` of the seam ``seam`` ("2h1": Image 2 left of Image 1, "1v3": Image 1 above Image 3)
    between two of the shown tiles (``labels`` and ``tiles``, in image order): what Image ``b`` shows along its edge
    against Image ``a``'s, where the picture would run on."""
    a, b = int(seam[0]), int(seam[2])
    side = "right" if seam[1] == "h" else "below"
    lut, names = _name_ids(pic)
    ours, theirs = (lut[x] for x in _facing(labels[a - 1], labels[b - 1], side))
    mine, others = (x.astype(np.float32) for x in _facing(tiles[a - 1], tiles[b - 1], side))
    edge = EDGES[side]
    # the picture runs on from Image a's edge into itself: what Image b shows is read against that
    reading = _seam_reading(
        {edge: ours}, [{edge: ours}, {edge: theirs}], [{edge: (mine, mine)}, {edge: (others, mine)}], 0, names
    )
    return {"a": a, "b": b, "edge": edge, "facing": EDGES[OPPOSITE[side]], **reading["breaks"][1]}


def _tile_seam(
    pic: Picture, ref: tuple[int, int], side: str, cands: list[tuple[float, float]], true: int
) -> dict[str, Any]:
    """:func:`_seam_reading` of the seam between the tile of cell ``ref`` and each candidate put on its ``side``,
    and ``context``: what the reference tile shows along that edge (the two things that run along most of it)."""
    lut, names = _name_ids(pic)
    at = (float(ref[0]), float(ref[1]))
    own, seen = _square(pic.labels, at), _square(pic.img, at)
    edge = EDGES[side]
    context = {edge: lut[_facing(own, own, side)[0]]}
    edges, pixels = [], []
    for p in cands:
        edges.append({edge: lut[_facing(own, _square(pic.labels, p), side)[1]]})
        ours, theirs = _facing(seen, _square(pic.img, p), side)
        pixels.append({edge: (theirs.astype(np.float32), ours.astype(np.float32))})
    line = context[edge]
    things = [names[i] for i, n in Counter(line.tolist()).most_common(2) if n >= EDGE_RUN * len(line)]
    return {"context": _words(things), **_seam_reading(context, edges, pixels, true, names)}


def _seam_reading(
    context: dict[str, np.ndarray],
    edges: list[dict[str, np.ndarray]],
    pixels: list[dict[str, tuple[np.ndarray, np.ndarray]]],
    true: int,
    names: list[str],
) -> dict[str, list[Any]]:
    """What a person checks along a seam, per candidate, where the candidate number ``true`` continues the picture:
    ``context`` the names (indices into ``names``) along each side of what a candidate must continue, ``edges``
    each candidate's names along its edge that meets it, ``pixels`` each candidate's edge pixels and the context's
    pixels next to them (as seen, for the colours).

    - ``keeps``: per candidate, per side, the things (the two that run along most of the side) that run on from the
      context into the candidate's edge at the same places;
    - ``breaks``: per candidate (None for the true one), where it breaks the picture most plainly: of the stretches
      of a side (at least BREAK of it) where the context runs on into the true candidate but this one shows one
      other thing against one thing of the context, the one whose colour jump adds up to most (``how`` "meets": it
      shows ``now`` where the context shows ``was``, ``along`` where on the side); else the side whose colour jump
      grows most over the true candidate's, said by its brightness (``how`` "darker" or "lighter"), its colour
      ("colour") or, if neither differs, its lines ("lines"), against ``thing``, what runs along most of that side
      of the context."""
    keeps = []
    for edge in edges:
        kept = []
        for side, line in context.items():
            same = line[line == edge[side]]
            things = [names[i] for i, n in Counter(same.tolist()).most_common(2) if n >= EDGE_RUN * len(line)]
            if things:
                kept.append({"edge": side, "things": _words(things)})
        keeps.append(kept)
    breaks: list[dict[str, str] | None] = []
    for k, edge in enumerate(edges):
        if k == true:
            breaks.append(None)
            continue
        runs = []
        for side, line in context.items():
            mine, theirs = pixels[k][side]
            step = len(mine) / len(line)
            for a, b in _runs(line * len(names) + edge[side], (line == edges[true][side]) & (edge[side] != line)):
                if b - a >= BREAK * len(line):
                    jump = float(np.abs(mine - theirs)[round(a * step) : round(b * step)].mean())
                    runs.append((jump * (b - a), side, a, b, int(line[a]), int(edge[side][a])))
        if runs:
            _, side, a, b, was, now = max(runs)
            breaks.append(
                {
                    "how": "meets",
                    "edge": side,
                    "along": _along(side, a, b, len(context[side])),
                    "was": names[was],
                    "now": names[now],
                    "was_does": "do" if _plural_name(names[was]) else "does",
                    "now_meets": "meet" if _plural_name(names[now]) else "meets",
                }
            )
            continue
        jumps = {side: float(np.abs(mine - theirs).mean()) for side, (mine, theirs) in pixels[k].items()}
        true_jumps = {side: float(np.abs(mine - theirs).mean()) for side, (mine, theirs) in pixels[true].items()}
        side = max(jumps, key=lambda x: jumps[x] - true_jumps[x])
        mine, theirs = pixels[k][side]
        diff = mine.mean(axis=0) - theirs.mean(axis=0)
        light = float(diff @ np.array([0.299, 0.587, 0.114]))
        if abs(light) >= SHADE:
            how = "darker" if light < 0 else "lighter"
        else:
            how = "colour" if np.linalg.norm(diff) >= HUE else "lines"
        breaks.append({"how": how, "edge": side, "thing": names[_most(context[side])]})
    return {"keeps": keeps, "breaks": breaks}


def _plural_name(name: str) -> bool:
    """Whether a thing's name is a plural ("green hills", "bubbles"): no article, and an s at its end."""
    return name.split(" ")[0] not in ("a", "an", "the") and name.endswith("s")


def _name_ids(pic: Picture) -> tuple[np.ndarray, list[str]]:
    """The distinct names of a picture's elements, and a lookup from a label to its name's index: things of one name
    (two trees) read as one. Every pixel shows an element (each picture notes a background)."""
    names = list(dict.fromkeys(pic.names))
    lut = np.array([names.index(n) for n in pic.names])
    return lut, [ALONG_NAMES.get(n, n) for n in names]


def _outside(labels: np.ndarray, cell: tuple[int, int]) -> dict[str, np.ndarray]:
    """The labels of the picture's pixels next to the cell, per side where the picture goes on."""
    y0, x0 = cell[0] * TILE, cell[1] * TILE
    y1, x1 = y0 + TILE, x0 + TILE
    h, w = labels.shape
    lines = {}
    if y0 > 0:
        lines["top"] = labels[y0 - 1, x0:x1]
    if y1 < h:
        lines["bottom"] = labels[y1, x0:x1]
    if x0 > 0:
        lines["left"] = labels[y0:y1, x0 - 1]
    if x1 < w:
        lines["right"] = labels[y0:y1, x1]
    return lines


def _edges(square: np.ndarray) -> dict[str, np.ndarray]:
    """The labels along the four edges of a tile's ``square`` of labels."""
    return {"top": square[0], "bottom": square[-1], "left": square[:, 0], "right": square[:, -1]}


def _runs(values: np.ndarray, mask: np.ndarray) -> list[tuple[int, int]]:
    """The stretches ``[a, b)`` of one value in ``values`` where ``mask`` holds throughout."""
    cuts = np.flatnonzero((np.diff(values) != 0) | (np.diff(mask.astype(np.int8)) != 0)) + 1
    bounds = [0, *cuts.tolist(), len(values)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if mask[a]]


def _most(values: np.ndarray) -> int:
    """The most common value (the first of equals)."""
    found, counts = np.unique(values, return_counts=True)
    return int(found[int(np.argmax(counts))])


def _along(side: str, a: int, b: int, n: int) -> str:
    """Where the stretch ``[a, b)`` of a side ``n`` pixels long lies, in words."""
    if b - a >= 0.8 * n:
        return "all along it"
    third = min(2, int(3 * (a + b) / 2 / n))
    if side in ("top", "bottom"):
        return ("on the left", "in the middle", "on the right")[third]
    return ("at the top", "in the middle", "at the bottom")[third]


def _edge_cost(a: np.ndarray, b: np.ndarray, side: str) -> float:
    """Mean colour jump across the seam when ``b`` is put on ``side`` of ``a``."""
    ea, eb = _facing(a, b, side)
    return float(np.abs(ea.astype(np.float32) - eb.astype(np.float32)).mean())


def _facing(a: np.ndarray, b: np.ndarray, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The edges that meet when ``b`` is put on ``side`` of ``a``: ``a``'s, then ``b``'s."""
    if side == "right":
        return a[:, -1], b[:, 0]
    if side == "left":
        return a[:, 0], b[:, -1]
    if side == "below":
        return a[-1], b[0]
    return a[0], b[-1]


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
