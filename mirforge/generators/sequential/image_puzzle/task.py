"""image_puzzle: where does a tile belong, which tile fills the hole, which arrangement restores the picture?

A procedural landscape (sky, sun, clouds, hills, a lake, a path, houses, trees, and one distinct landmark in
every grid cell) is rendered at high resolution and cut into a ``grid x grid`` set of tiles. Questions:

- ``where``: Image 1 is the picture with its grid drawn, Image 2 one tile; which cell does the tile come from?
- ``missing``: Image 1 is the picture with one cell blanked out, the next images are candidate tiles; which
  one fills the hole? Distractors are other cells' tiles, and at level 3 also the true tile mirrored and tiles
  cut half a cell off the grid.
- ``arrangement``: the four tiles of a 2 x 2 cut are shown shuffled; which arrangement restores the picture?
  The options are a coset of a group of tile moves (see :func:`_coset_distractors`): at level 3 swaps of
  neighbouring tiles, otherwise moves that displace every tile.

The verifier works on the rendered images only: for ``where`` it shrinks the tile to a cell and compares it
with every cell of the picture (mean absolute difference); for ``missing`` it pastes each candidate into the
hole and measures the colour jump across the hole's border; for ``arrangement`` it reassembles each option from
the tile images and measures the jump across the seams. The best option must beat the runner-up by the factor
``margin`` or the scene is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import permutations
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import draw_distinct
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.task import Needs, Question, Region, Rendered, Task, TaskConfig, ensure, per_level, place

MASTER = 1344  # rendering size: 3 x 448 and 2 x 672, so every tile is cut without resampling error
ROWS = {2: ("top", "bottom"), 3: ("top", "middle", "bottom")}
COLS = {2: ("left", "right"), 3: ("left", "centre", "right")}
HOLE = (128, 128, 128)
LANDMARKS = ("balloon", "kite", "bird", "flower", "star", "tree", "house", "sign")


@dataclass
class ImagePuzzleConfig(TaskConfig):
    grid_per_level: tuple[int, ...] = per_level(2, 3, 3)
    margin: float = 0.75  # best cost must be below margin x runner-up
    min_gap: float = 4.0  # ... and at least this many grey levels below it

    def validate(self) -> None:
        super().validate()
        ensure(all(g in (2, 3) for g in self.grid_per_level), "grid_per_level", "each grid size must be 2 or 3")
        ensure(self.n_options <= 4, "n_options", "image_puzzle supports at most 4 options (a 2 x 2 grid)")
        ensure(0.1 <= self.margin < 1.0, "margin", "must be between 0.1 and 1")
        ensure(self.min_gap >= 0, "min_gap", "must not be negative")


@dataclass(frozen=True)
class Scene:
    seed: int  # the picture is drawn from its own RNG stream, seeded from the instance RNG
    grid: int
    kind: str
    cell: tuple[int, int]  # (row, col) of the tile asked about (where / missing)
    distractor_kind: str


class ImagePuzzle(Task):
    name = "image_puzzle"
    category = "sequential"
    description = "Restore a picture cut into tiles: where a tile belongs, which tile fills a hole, which arrangement"
    Config = ImagePuzzleConfig
    needs = Needs(renderer=None, cost=0.6)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "grid": self.config.grid_per_level[level - 1],
            "kinds": [["where", "arrangement"], ["where", "missing"], ["missing", "arrangement"]][level - 1],
            "distractors": ("other_cells", "other_cells", "near_misses")[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        kind = k["kinds"][int(rng.integers(len(k["kinds"])))]
        grid = 2 if kind == "arrangement" else k["grid"]
        cell = (int(rng.integers(grid)), int(rng.integers(grid)))
        return Scene(int(rng.integers(2**31)), grid, kind, cell, k["distractors"])

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        g, n_opt = scene.grid, self.config.n_options
        cells = [(r, c) for r in range(g) for c in range(g)]
        if scene.kind == "where":
            others = [cells[int(i)] for i in rng.permutation(len(cells)) if cells[int(i)] != scene.cell]
            keys: list[Any] = place(scene.cell, others[: n_opt - 1], slot)
            options = [f"The {_cell_name(c, g)} cell" for c in keys]
            text = (
                f"<image> shows a picture divided into a {g} x {g} grid. <image> is one tile cut out of it along "
                "the grid lines. Which cell of the picture does the tile come from?"
            )
            facts = {"kind": "where", "grid": g, "keys": [list(c) for c in keys]}
        elif scene.kind == "missing":
            true = ("cell", scene.cell[0], scene.cell[1])

            def make() -> tuple[Any, ...]:
                if scene.distractor_kind == "near_misses" and rng.random() < 0.6:
                    if rng.random() < 0.4:
                        return ("mirror", scene.cell[0], scene.cell[1])
                    dr, dc = [(0, 1), (0, -1), (1, 0), (-1, 0)][int(rng.integers(4))]
                    return ("shift", scene.cell[0], scene.cell[1], dr, dc)
                other = cells[int(rng.integers(len(cells)))]
                return ("cell", other[0], other[1])

            cands = place(true, draw_distinct(make, n_opt - 1, exclude=[true]), slot)
            keys = list(range(len(cands)))
            slots = ", ".join(["<image>"] * len(cands))
            options = [f"Image {2 + i}" for i in keys]
            text = (
                f"<image> shows a picture divided into a {g} x {g} grid with one tile missing (the grey "
                f"{_cell_name(scene.cell, g)} cell). Which of the tiles {slots} fills the hole so that the picture "
                "is continuous again?"
            )
            facts = {"kind": "missing", "grid": g, "cell": list(scene.cell), "candidates": [list(c) for c in cands]}
        else:
            shown = tuple(int(v) for v in rng.permutation(4))  # image k shows cell shown[k] (reading order)
            truth = tuple(1 + shown.index(c) for c in range(4))  # image numbers in reading order
            keys = place(
                truth, _coset_distractors(rng, truth, n_opt, near=scene.distractor_kind != "other_cells"), slot
            )
            options = [f"Top row: Image {a}, Image {b}; bottom row: Image {c}, Image {d}" for a, b, c, d in keys]
            text = (
                "A picture was cut into a 2 x 2 grid of tiles, shown here in a random order: <image>, <image>, "
                "<image>, <image>. Which arrangement puts the tiles back together into the original picture?"
            )
            facts = {"kind": "arrangement", "grid": 2, "shown": list(shown), "keys": [list(k) for k in keys]}
        return Question(text=text, options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        size, g = self.image_size, scene.grid
        master = _landscape(np.random.default_rng(scene.seed), g)
        picture = cv2.resize(master, (size, size), interpolation=cv2.INTER_AREA)
        kind = question.facts["kind"]
        edges = [round(size * j / g) for j in range(g + 1)]
        cell_box = {(r, c): [edges[c], edges[r], edges[c + 1], edges[r + 1]] for r in range(g) for c in range(g)}
        full = [0, 0, size, size]
        if kind == "where":
            tile = _tile(master, g, tuple(scene.cell))
            shown = picture.copy()
            for e in edges[1:-1]:
                shown[:, e - 1 : e + 1] = 255
                shown[e - 1 : e + 1, :] = 255
            costs = [_match_cost(picture, cell_box[tuple(k)], tile) for k in question.facts["keys"]]
            regions = [Region(0, f"{_cell_name(tuple(k), g)} cell", cell_box[tuple(k)]) for k in question.facts["keys"]]
            regions.append(Region(1, "tile", full))
            images = [shown, tile]
        elif kind == "missing":
            hole = cell_box[tuple(question.facts["cell"])]
            holed = picture.copy()
            x0, y0, x1, y1 = hole
            holed[y0:y1, x0:x1] = HOLE
            tiles = [_candidate(master, g, tuple(c)) for c in question.facts["candidates"]]
            costs = [_seam_with_hole(holed, hole, t) for t in tiles]
            regions = [Region(0, "missing cell", hole)] + [
                Region(1 + i, "candidate tile", full) for i in range(len(tiles))
            ]
            images = [holed, *tiles]
        else:
            cuts = [_tile(master, 2, (c // 2, c % 2)) for c in range(4)]
            images = [cuts[c] for c in question.facts["shown"]]
            costs = [_arrangement_cost(images, key) for key in question.facts["keys"]]
            regions = [Region(k, "tile", full) for k in range(4)]
        return Rendered(images=images, measured={"costs": [round(c, 3) for c in costs]}, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        costs = rendered.measured["costs"]
        order = sorted(range(len(costs)), key=lambda i: costs[i])
        best, second = costs[order[0]], costs[order[1]]
        if best > self.config.margin * second or second - best < self.config.min_gap:
            raise Reject("two options fit the picture about equally well")
        return order[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f = question.facts
        costs = rendered.measured["costs"]
        letters = "ABCDEFGH"
        opts = [{"letter": letters[i], "text": question.options[i], "cost": costs[i]} for i in range(len(costs))]
        boxes = [r.to_json() for r in rendered.regions]
        out: dict[str, Any] = {
            "kind": f["kind"],
            "grid": f["grid"],
            "opts": opts,
            "best": opts[question.answer],
            "others": [o for i, o in enumerate(opts) if i != question.answer],
            "regions": boxes,
            "n_images": len(rendered.images),
        }
        if f["kind"] == "where":
            out["cell"] = _cell_name(scene.cell, scene.grid)
        elif f["kind"] == "missing":
            out["cell"] = _cell_name(scene.cell, scene.grid)
            out["candidates"] = [
                {"image": 2 + i, "what": _describe(c, scene.grid), "cost": costs[i]}
                for i, c in enumerate(f["candidates"])
            ]
        else:
            out["layout"] = question.options[question.answer]
        return out


# -- arrangement options ----------------------------------------------------------------------------------------
# Positions of a 2 x 2 arrangement in reading order: 0 top left, 1 top right, 2 bottom left, 3 bottom right. A
# move ``w`` sends the arrangement ``key`` to ``tuple(key[w[p]] for p in range(4))``.
NEIGHBOUR_SWAPS = ((1, 0, 2, 3), (0, 1, 3, 2), (2, 1, 0, 3), (0, 3, 2, 1))  # tl-tr, bl-br, tl-bl, tr-br


def _compose(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a[b[p]] for p in range(len(b)))


@cache
def _move_groups(n: int, near: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The subgroups of order ``n`` of the moves of a 2 x 2 arrangement, as sorted tuples of moves.

    ``near``: those holding a swap of two neighbouring tiles; otherwise those whose every move displaces all four
    tiles (each falls back to every subgroup of order ``n`` where there is none such)."""
    moves = list(permutations(range(4)))
    groups = set()
    for a in moves:
        for b in moves:
            group = {tuple(range(4))}
            while True:
                more = group | {_compose(x, y) for x in group for y in (a, b)}
                if more == group:
                    break
                group = more
            if len(group) == n:
                groups.add(tuple(sorted(group)))
    every = sorted(groups)
    if near:
        chosen = [g for g in every if any(s in g for s in NEIGHBOUR_SWAPS)]
    else:
        chosen = [g for g in every if all(all(x[p] != p for p in range(4)) for x in g if x != tuple(range(4)))]
    return tuple(chosen or every)


def _coset_distractors(rng: np.random.Generator, truth: tuple[int, ...], n: int, near: bool) -> list[tuple[int, ...]]:
    """The ``n - 1`` other arrangements of the coset ``{truth moved by w : w in H}`` of a random group ``H`` of
    ``n`` moves (see :func:`_move_groups`), in random order.

    Every option then stands in the same relation to the others (it reaches them by the moves of ``H``), so the
    text cannot single out the answer: not by which option is the centre of the others, and not through the
    verifier either, whose rejections (a move that leaves the seams about as smooth, such as swapping two
    bottom tiles on an even meadow) depend on the moves of ``H`` and on the picture, never on which member of
    the coset is the answer. With distractors drawn around the answer instead, the scenes the verifier keeps
    are those whose cheap moves were not applied to the answer, and the answer stands out by its relations."""
    groups = _move_groups(n, near)
    group = groups[int(rng.integers(len(groups)))]
    others = [_compose(truth, w) for w in group if w != tuple(range(4))]
    return [others[int(i)] for i in rng.permutation(len(others))]


def _cell_name(cell: tuple[int, int], g: int) -> str:
    r, c = cell
    if g == 3 and (r, c) == (1, 1):
        return "centre"
    return f"{ROWS[g][r]} {COLS[g][c]}"


def _describe(cand: list[Any], g: int) -> str:
    if cand[0] == "cell":
        return f"the {_cell_name((cand[1], cand[2]), g)} tile"
    if cand[0] == "mirror":
        return "a mirrored tile"
    return "a tile cut off the grid"


def _tile(master: np.ndarray, g: int, cell: tuple[int, int], shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    step = MASTER // g
    r, c = cell
    y0 = int(np.clip(round((r + shift[0]) * step), 0, MASTER - step))
    x0 = int(np.clip(round((c + shift[1]) * step), 0, MASTER - step))
    crop = master[y0 : y0 + step, x0 : x0 + step]
    return crop.copy() if step == 448 else cv2.resize(crop, (448, 448), interpolation=cv2.INTER_AREA)


def _candidate(master: np.ndarray, g: int, cand: tuple[Any, ...]) -> np.ndarray:
    if cand[0] == "cell":
        return _tile(master, g, (cand[1], cand[2]))
    if cand[0] == "mirror":
        return _tile(master, g, (cand[1], cand[2]))[:, ::-1].copy()
    r, c, dr, dc = cand[1:]
    if not (0 <= r + dr * 0.5 <= g - 1 and 0 <= c + dc * 0.5 <= g - 1):
        dr, dc = -dr, -dc
    return _tile(master, g, (r, c), (dr * 0.5, dc * 0.5))


def _small(tile: np.ndarray, box: list[int]) -> np.ndarray:
    return cv2.resize(tile, (box[2] - box[0], box[3] - box[1]), interpolation=cv2.INTER_AREA).astype(np.float32)


def _match_cost(picture: np.ndarray, box: list[int], tile: np.ndarray) -> float:
    x0, y0, x1, y1 = box
    return float(np.abs(picture[y0:y1, x0:x1].astype(np.float32) - _small(tile, box)).mean())


def _seam_with_hole(holed: np.ndarray, hole: list[int], tile: np.ndarray) -> float:
    """Mean colour jump between the pasted tile's outer pixels and the picture's pixels next to the hole."""
    x0, y0, x1, y1 = hole
    small = _small(tile, hole)
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


def _arrangement_cost(images: list[np.ndarray], key: list[int]) -> float:
    """Mean colour jump across the seams of the 2 x 2 picture assembled from ``key`` (image numbers)."""
    tl, tr, bl, br = (images[i - 1].astype(np.float32) for i in key)
    seams = [
        np.abs(tl[:, -1] - tr[:, 0]).mean(),
        np.abs(bl[:, -1] - br[:, 0]).mean(),
        np.abs(tl[-1] - bl[0]).mean(),
        np.abs(tr[-1] - br[0]).mean(),
    ]
    return float(np.mean(seams))


# -- the picture ----------------------------------------------------------------------------------------------
def _landscape(rng: np.random.Generator, g: int) -> np.ndarray:
    s = MASTER
    horizon = int(s * rng.uniform(0.38, 0.5))
    sky_top = np.array([rng.uniform(60, 120), rng.uniform(120, 170), rng.uniform(200, 250)])
    sky_low = np.array([rng.uniform(200, 250), rng.uniform(190, 230), rng.uniform(170, 220)])
    y = np.arange(s, dtype=np.float32) / s
    t = np.clip(np.float32(0.75 * s / horizon) * y[:, None] + np.float32(0.25) * y[None, :], 0, 1)[..., None]
    img = (sky_top.astype(np.float32) + t * (sky_low - sky_top).astype(np.float32)).astype(np.uint8)
    sun = (int(rng.uniform(0.1, 0.9) * s), int(rng.uniform(0.06, 0.25) * s))
    cv2.circle(img, sun, int(s * 0.06), (250, 210, 80), -1, cv2.LINE_AA)
    for _ in range(int(rng.integers(2, 5))):
        c = (int(rng.uniform(0, s)), int(rng.uniform(0.05, 0.3) * s))
        for dx in (-1, 0, 1):
            cv2.ellipse(
                img,
                (c[0] + dx * int(s * 0.04), c[1]),
                (int(s * 0.05), int(s * 0.025)),
                0,
                0,
                360,
                (248, 248, 250),
                -1,
                cv2.LINE_AA,
            )
    # hills: two ranges of random peaks
    for shade, base in (((110, 140, 120), horizon), ((80, 150, 70), horizon + int(s * 0.06))):
        xs = np.linspace(0, s, int(rng.integers(5, 9)))
        ys = base - rng.uniform(0.04, 0.2, size=len(xs)) * s
        poly = np.array([[0, s], *[[int(x), int(y)] for x, y in zip(xs, ys, strict=True)], [s, s]], np.int32)
        cv2.fillPoly(img, [poly], tuple(int(v + rng.integers(-20, 20)) for v in shade), cv2.LINE_AA)
    ground = horizon + int(s * 0.08)
    img[ground:] = (np.array([95, 165, 75]) * (1 - 0.3 * y[ground:, None])).astype(np.uint8)[:, None, :]
    lake_c = (int(rng.uniform(0.2, 0.8) * s), int(rng.uniform(ground / s + 0.15, 0.85) * s))
    cv2.ellipse(
        img, lake_c, (int(s * rng.uniform(0.12, 0.2)), int(s * 0.06)), 0, 0, 360, (70, 130, 200), -1, cv2.LINE_AA
    )
    path = np.array(
        [
            [int(rng.uniform(0.3, 0.7) * s), s],
            [int(rng.uniform(0.2, 0.8) * s), int(s * 0.75)],
            [int(rng.uniform(0.3, 0.7) * s), ground],
        ],
        np.int32,
    )
    cv2.polylines(img, [path], False, (200, 180, 140), int(s * 0.025), cv2.LINE_AA)
    # one landmark in every grid cell, so each tile has something of its own
    step = s // g
    kinds = [LANDMARKS[int(i)] for i in rng.permutation(len(LANDMARKS))]
    colours = [PALETTE[c] for c in canvas2d.TRACK_COLORS]
    for k in range(g * g):
        r, c = divmod(k, g)
        cx = int((c + rng.uniform(0.25, 0.75)) * step)
        cy = int((r + rng.uniform(0.25, 0.75)) * step)
        colour = colours[int(rng.integers(len(colours)))]
        _landmark(img, kinds[k % len(kinds)], cx, cy, int(step * rng.uniform(0.12, 0.2)), colour)
    return img


def _landmark(img: np.ndarray, kind: str, cx: int, cy: int, r: int, colour: tuple[int, int, int]) -> None:
    dark = (60, 50, 40)
    if kind == "balloon":
        cv2.line(img, (cx, cy + r), (cx, cy + 2 * r), dark, 3, cv2.LINE_AA)
        cv2.ellipse(img, (cx, cy), (int(r * 0.8), r), 0, 0, 360, colour, -1, cv2.LINE_AA)
    elif kind == "kite":
        canvas2d.draw_shape(img, "diamond", (cx, cy), r, colour, shadow=False)
        cv2.line(img, (cx, cy + r), (cx - r, cy + 3 * r), dark, 2, cv2.LINE_AA)
    elif kind == "bird":
        cv2.ellipse(img, (cx - r // 2, cy), (r // 2, r // 3), 0, 180, 360, dark, 4, cv2.LINE_AA)
        cv2.ellipse(img, (cx + r // 2, cy), (r // 2, r // 3), 0, 180, 360, dark, 4, cv2.LINE_AA)
    elif kind == "flower":
        for a in range(0, 360, 60):
            px, py = cx + int(r * 0.6 * np.cos(np.radians(a))), cy + int(r * 0.6 * np.sin(np.radians(a)))
            cv2.circle(img, (px, py), int(r * 0.45), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(r * 0.35), (250, 220, 60), -1, cv2.LINE_AA)
    elif kind == "star":
        pts = []
        for j in range(10):
            rad = r if j % 2 == 0 else r * 0.45
            a = np.radians(90 + 36 * j)
            pts.append([cx + int(rad * np.cos(a)), cy - int(rad * np.sin(a))])
        cv2.fillPoly(img, [np.array(pts, np.int32)], colour, cv2.LINE_AA)
    elif kind == "tree":
        cv2.rectangle(img, (cx - r // 6, cy), (cx + r // 6, cy + r), (110, 70, 40), -1)
        cv2.circle(img, (cx, cy - r // 3), int(r * 0.8), (40, 120, 50), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy - r // 3), int(r * 0.3), colour, -1, cv2.LINE_AA)
    elif kind == "house":
        cv2.rectangle(img, (cx - r, cy - r // 2), (cx + r, cy + r), colour, -1)
        roof = np.array(
            [[cx - r - r // 5, cy - r // 2], [cx, cy - r - r // 3], [cx + r + r // 5, cy - r // 2]], np.int32
        )
        cv2.fillPoly(img, [roof], (150, 60, 50), cv2.LINE_AA)
        cv2.rectangle(img, (cx - r // 4, cy + r // 4), (cx + r // 4, cy + r), dark, -1)
    else:  # sign
        cv2.rectangle(img, (cx - 3, cy), (cx + 3, cy + r), dark, -1)
        cv2.rectangle(img, (cx - r, cy - r // 2), (cx + r, cy + r // 6), colour, -1)
