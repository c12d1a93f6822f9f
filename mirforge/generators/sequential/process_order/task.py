"""process_order: put the shuffled frames of a process in order, or find the step after / between frames.

MIR's "cooking process" asks for the order of the steps of a procedure. Here the procedures are causal and
visible: a tower built block by block (or taken apart), a glass filled from a jug (or drained through a tap).
The process is filmed to an H.264 mp4, frames are extracted at chosen steps and shown shuffled. Questions:

- ``order``: which order of the images is chronological?
- ``next``: which image shows the state right after Image a?
- ``between``: which image shows the step that comes between Image a and Image b?

The verifier measures the process's progress in every decoded frame from pixels (the tower's height above the
table from a foreground mask, the liquid's height in the glass from a colour mask), sorts the frames by it in
the direction the text states (building/filling: rising; dismantling/draining: falling) and re-derives the
answer; frames whose measured progress differs by less than ``min_gap_px`` reject the scene.

Every clip has its own look, drawn from the instance's rng: wall and table paint, the table's height, a window
beside the scene, where the tower or the glass stands, block widths, heights and shades, the glass's size, the
jug's or tap's side and the liquid's shade, so no two instances share a frame (block and glass heights stay large
enough that one step is always well above ``min_gap_px``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import permutation_distractors
from mirforge.generators.sequential.clips import ClipConfig, Filming, image_list
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import ColorRange
from mirforge.task import Needs, Question, Region, Rendered, Task, ensure, per_level, place

RGB = tuple[int, int, int]
SIZE = 448  # Task.image_size
BLOCK_H = (24, 34)  # block height range, pixels (the low end rises with min_gap_px)
TOWER_REACH = 100  # half-width of the columns searched for the tower (blocks reach at most 82 px off centre)
HOLD = 3  # frames each discrete step is held in the clip
MAX_STATES = 9  # most states a clip has (the knobs' n_states)
# pale wall paints and wood tones the scene's colours are drawn around (each then jittered a little)
WALLS = ((236, 232, 222), (226, 226, 230), (216, 227, 238), (222, 234, 220), (240, 224, 222), (236, 224, 200))
WOODS = ((176, 140, 104), (150, 106, 72), (198, 164, 124), (124, 88, 60), (164, 128, 96))
PROCESSES = {
    "stack": ("a tower being built by stacking blocks one at a time", True),
    "unstack": ("a tower being taken apart, one block at a time from the top", False),
    "fill": ("a glass being filled from a jug", True),
    "drain": ("a glass being drained through a tap at its bottom", False),
}
LIQUIDS = {
    "orange": "orange juice",
    "blue": "water",
    "red": "cherry juice",
    "purple": "grape juice",
    "yellow": "lemonade",
    "green": "lime juice",
    "brown": "cola",
    "pink": "strawberry milk",
}
LIQUID_TOL = 40  # the colour mask's tolerance around the liquid's shade, per channel


@dataclass
class ProcessOrderConfig(ClipConfig):
    images_per_level: tuple[int, ...] = per_level(4, 5, 6)
    min_gap_px: int = 14

    def validate(self) -> None:
        super().validate()
        ensure(all(3 <= n <= 8 for n in self.images_per_level), "images_per_level", "each count must be 3 to 8")
        ensure(
            self.images_per_level[2] >= self.n_options + 2,
            "images_per_level",
            f"level 3 asks 'between' questions and needs at least n_options + 2 = {self.n_options + 2} images",
        )
        ensure(
            self.images_per_level[1] >= self.n_options + 1,
            "images_per_level",
            f"level 2 asks 'next' questions and needs at least n_options + 1 = {self.n_options + 1} images",
        )
        ensure(4 <= self.min_gap_px <= 25, "min_gap_px", "must be between 4 and 25")


@dataclass(frozen=True)
class Block:
    color: RGB
    width: int
    dx: int


@dataclass(frozen=True)
class Stage:
    """The room every frame of a clip is drawn in: wall and table paint, where the table's top edge is, a window."""

    wall: RGB
    table: RGB
    table_y: int
    window: tuple[int, int, int, int]
    pane: RGB


@dataclass(frozen=True)
class Glass:
    """The glass (its outer box stands on the table) and the jug (filling) or tap (draining) on one side of it."""

    box: tuple[int, int, int, int]
    edge: RGB
    side: int  # +1: the jug or tap is on the glass's right, -1: on its left
    jug: tuple[int, int, int, int]  # the jug's box (filling only)
    kit: RGB  # colour of the jug or the tap


@dataclass(frozen=True)
class Scene:
    process: str
    blocks: tuple[Block, ...]  # stack/unstack: the whole tower, bottom first
    liquid: str  # fill/drain: palette name of the liquid
    states: tuple[int, ...]  # chronological progress values shown (blocks on the table, or fill level step)
    n_states: int  # states of the whole clip
    shown: tuple[int, ...]  # image k shows chronological state shown[k]
    kind: str
    pair: tuple[int, int]  # chronological positions referred to by next / between
    stage: Stage
    cx: int  # stack/unstack: the tower's centre column
    block_h: int  # stack/unstack: height of every block, pixels
    glass: Glass | None  # fill/drain only
    shade: RGB  # fill/drain: the liquid's colour (a shade of the palette colour)

    @property
    def tower(self) -> bool:
        return self.process in ("stack", "unstack")

    def capacity(self) -> int:
        """Pixels of liquid height of a full glass (the liquid's height is ``capacity * state / n_states``)."""
        assert self.glass is not None
        return self.glass.box[3] - self.glass.box[1] - 12


class ProcessOrder(Filming, Task):
    name = "process_order"
    category = "sequential"
    description = "Order the shuffled frames of a filmed process, or find the step after or between frames"
    Config = ProcessOrderConfig
    needs = Needs(renderer=None, cost=1.0)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_images": self.config.images_per_level[level - 1],
            "processes": [["stack", "fill"], list(PROCESSES), list(PROCESSES)][level - 1],
            "kinds": [["order"], ["order", "next"], ["order", "next", "between"]][level - 1],
            "n_states": (8, 9, 9)[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n = k["n_images"]
        process = k["processes"][int(rng.integers(len(k["processes"])))]
        kind = k["kinds"][int(rng.integers(len(k["kinds"])))]
        n_states = k["n_states"]
        names = [canvas2d.TRACK_COLORS[int(i)] for i in rng.integers(len(canvas2d.TRACK_COLORS), size=n_states)]
        for i in range(1, n_states):  # neighbouring blocks differ in colour
            while names[i] == names[i - 1]:
                names[i] = canvas2d.TRACK_COLORS[int(rng.integers(len(canvas2d.TRACK_COLORS)))]
        blocks = tuple(
            Block(_jitter(rng, PALETTE[c], 12), int(rng.integers(56, 141)), int(rng.integers(-12, 13))) for c in names
        )
        liquid = list(LIQUIDS)[int(rng.integers(len(LIQUIDS)))]
        states = tuple(sorted(int(v) for v in rng.choice(np.arange(1, n_states + 1), size=n, replace=False)))
        if not PROCESSES[process][1]:
            states = tuple(reversed(states))
        shown = tuple(int(v) for v in rng.permutation(n))
        if shown == tuple(range(n)):
            shown = (*shown[1:], shown[0])
        if kind == "between":
            a = int(rng.integers(n - 2))
            pair = (a, a + 2)
        else:
            a = int(rng.integers(n - 1))
            pair = (a, a + 1)
        # the look of this clip: paint, table, where the tower or the glass stands, block and glass sizes
        table_y = int(rng.integers(366, 397))
        wall = _jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 8)
        table = _jitter(rng, WOODS[int(rng.integers(len(WOODS)))], 10)
        gap = self.config.min_gap_px + 4  # measured steps must stay clearly above min_gap_px
        block_h = int(rng.integers(max(BLOCK_H[0], gap), BLOCK_H[1] + 1))
        cx = int(rng.integers(TOWER_REACH + 20, SIZE - TOWER_REACH - 20 + 1))
        shade = _jitter(rng, PALETTE[liquid], 12)
        glass = None
        if process in ("fill", "drain"):
            hi = table_y - 92  # room above the glass for the jug
            height = int(rng.integers(min(max(180, 12 + MAX_STATES * gap), hi), hi + 1))
            width = int(rng.integers(90, 151))
            side = 1 if rng.random() < 0.5 else -1
            reach = 50 if process == "fill" else 30  # how far the jug or the tap sticks out
            left = int(
                rng.integers(16 + (reach if side < 0 else 0), SIZE - 16 - width - (reach if side > 0 else 0) + 1)
            )
            box = (left, table_y - height, left + width, table_y)
            jug_top = int(rng.integers(14, 31))
            jug_bottom = int(rng.integers(jug_top + 40, box[1] - 10 + 1))
            jug_x = (box[2] - 30, box[2] + 50) if side > 0 else (box[0] - 50, box[0] + 30)
            glass = Glass(
                box,
                _jitter(rng, (120, 130, 140), 16),
                side,
                (jug_x[0], jug_top, jug_x[1], jug_bottom),
                _jitter(rng, (150, 150, 160) if process == "fill" else (90, 90, 100), 14),
            )
            span = (box[0] - (reach if side < 0 else 0), box[2] + (reach if side > 0 else 0))
        else:
            span = (cx - TOWER_REACH, cx + TOWER_REACH)
        stage = Stage(wall, table, table_y, _window(rng, span), _jitter(rng, (160, 196, 228), 14))
        scene = Scene(process, blocks, liquid, states, n_states, shown, kind, pair, stage, cx, block_h, glass, shade)
        if glass is not None:  # nothing but the liquid may pass the liquid's colour mask inside the glass
            near = ColorRange.around("liquid", shade, LIQUID_TOL).mask(np.array([[wall, glass.edge]], np.uint8))
            if near.any():
                raise Reject("the liquid's colour is too close to the wall or the glass")
        return scene

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        n = len(scene.states)
        image_of = [1 + scene.shown.index(c) for c in range(n)]  # chronological position -> image number
        what, _rising = PROCESSES[scene.process]
        slots = ", ".join(["<image>"] * n)
        intro = f"The frames {slots} were extracted from a video of {what}, and are shown in a random order."
        if scene.process in ("fill", "drain"):
            intro = intro.replace("a glass", f"a glass of {LIQUIDS[scene.liquid]}")
        n_opt = self.config.n_options
        if scene.kind == "order":
            chrono = tuple(image_of)
            keys: list[Any] = place(chrono, permutation_distractors(rng, chrono, n_opt - 1, near=n > 4), slot)
            options = [" -> ".join(f"Image {i}" for i in order) for order in keys]
            ask_text = "Which order of the frames is chronological (earliest first)?"
        else:
            a, b = scene.pair
            correct = image_of[a + 1] if scene.kind == "between" else image_of[b]
            excluded = {image_of[a], image_of[b]} if scene.kind == "between" else {image_of[a]}
            others = [i for i in (1 + int(v) for v in rng.permutation(n)) if i not in excluded and i != correct]
            keys = place(correct, others[: n_opt - 1], slot)
            options = [f"Image {i}" for i in keys]
            if scene.kind == "next":
                ask_text = f"Which frame shows the state that comes right after Image {image_of[a]}?"
            else:
                first, second = sorted((image_of[a], image_of[b]))
                ask_text = (
                    f"Exactly one of the other frames shows a step between Image {first} and Image {second}. Which one?"
                )
        facts = {
            "kind": scene.kind,
            "rising": PROCESSES[scene.process][1],
            "keys": [list(k) if isinstance(k, tuple) else k for k in keys],
            "anchor": [image_of[a] for a in scene.pair],
        }
        return Question(text=f"{intro} {ask_text}", options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        base = _room(self.image_size, scene.stage)
        rising = PROCESSES[scene.process][1]
        # the clip plays every state in time order, each held HOLD frames; the extracted frames are mid-hold
        timeline = list(range(1, scene.n_states + 1)) if rising else list(range(scene.n_states, 0, -1))
        frames, index_of = [], {}
        for state in timeline:
            for h in range(HOLD):
                if h == HOLD // 2:
                    index_of[state] = len(frames)
                frames.append(self._draw(base, scene, state))
        decoded = self.shoot(frames, [index_of[s] for s in scene.states])
        images = [decoded[c] for c in scene.shown]
        amounts, regions = [], []
        name = "tower" if scene.tower else "glass"
        for k, img in enumerate(images):
            height, box = self._measure(img, scene)
            amounts.append(height)
            regions.append(Region(k, name, box))
        return Rendered(
            images=images,
            measured={"heights": amounts, "boxes": [r.box for r in regions]},
            regions=regions,
            videos=self.videos(),
        )

    def _draw(self, base: np.ndarray, scene: Scene, state: int) -> np.ndarray:
        img = base.copy()
        table_y = scene.stage.table_y
        if scene.tower:
            bh = scene.block_h
            for i, b in enumerate(scene.blocks[:state]):
                y1 = table_y - i * bh
                x0, x1 = scene.cx + b.dx - b.width / 2, scene.cx + b.dx + b.width / 2
                canvas2d.rect(img, (x0, y1 - bh + 1, x1, y1), b.color)
                img[y1 - bh + 1, int(x0) : int(x1)] = (250, 250, 250)
            return img
        assert scene.glass is not None
        g = scene.glass
        x0, y0, x1, y1 = g.box
        level = scene.capacity() * state / scene.n_states
        colour = scene.shade
        canvas2d.rect(img, (x0 + 4, y1 - 4 - level, x1 - 4, y1 - 4), colour)
        if scene.process == "fill":  # the jug's stream into the glass
            canvas2d.rect(img, g.jug, g.kit)
            sx = x1 - 30 if g.side > 0 else x0 + 22
            canvas2d.rect(img, (sx, (g.jug[1] + g.jug[3]) // 2, sx + 8, y1 - 4 - level), colour)
        else:  # the tap and what runs out of it
            tap = (x1, y1 - 22, x1 + 30, y1 - 14) if g.side > 0 else (x0 - 30, y1 - 22, x0, y1 - 14)
            canvas2d.rect(img, tap, g.kit)
            dx = x1 + 22 if g.side > 0 else x0 - 28
            canvas2d.rect(img, (dx, y1 - 14, dx + 6, table_y + 20), colour)
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), g.edge, 3)
        img[y0 - 2 : y0 + 2, x0:x1] = scene.stage.wall  # open top
        return img

    def _measure(self, img: np.ndarray, scene: Scene) -> tuple[float, list[int]]:
        """Progress from pixels: the tower's height above the table, or the liquid's height in the glass."""
        table_y = scene.stage.table_y
        if scene.tower:
            lo, hi = max(0, scene.cx - TOWER_REACH), min(img.shape[1], scene.cx + TOWER_REACH)
            diff = np.abs(img[:table_y, lo:hi].astype(int) - np.array(scene.stage.wall)).sum(axis=2) > 60
            rows = np.nonzero(diff.sum(axis=1) >= 20)[0]
            if len(rows) == 0:
                raise Reject("no tower found")
            top = int(rows.min())
            cols = np.nonzero(diff[top:].any(axis=0))[0]
            return float(table_y - top), [lo + int(cols.min()), top, lo + int(cols.max()) + 1, table_y]
        assert scene.glass is not None
        x0, y0, x1, y1 = scene.glass.box
        mask = ColorRange.around("liquid", scene.shade, LIQUID_TOL).mask(img[y0:y1, x0 + 4 : x1 - 4])
        rows = np.nonzero(mask.sum(axis=1) >= (x1 - x0 - 8) // 2)[0]
        top = y0 + int(rows.min()) if len(rows) else y1 - 4
        return float(y1 - 4 - top), [x0, y0, x1, y1]

    def verify(self, question: Question, rendered: Rendered) -> int:
        heights = rendered.measured["heights"]
        sign = 1 if question.facts["rising"] else -1
        chrono = sorted(range(len(heights)), key=lambda k: sign * heights[k])
        steps = [abs(heights[b] - heights[a]) for a, b in zip(chrono, chrono[1:], strict=False)]
        if min(steps) < self.config.min_gap_px:
            raise Reject("two frames show nearly the same progress")
        images = [k + 1 for k in chrono]
        kind = question.facts["kind"]
        if kind == "order":
            want: Any = images
        else:
            a, b = (images.index(i) for i in question.facts["anchor"])
            if b - a != (2 if kind == "between" else 1):
                raise Reject("the measured order does not fit the question's frames")
            want = images[a + 1]
        matches = [i for i, key in enumerate(question.facts["keys"]) if key == want]
        if len(matches) != 1:
            raise Reject("the measured answer is not exactly one option")
        return matches[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        heights = rendered.measured["heights"]
        boxes = rendered.measured["boxes"]
        rising = PROCESSES[scene.process][1]
        tower = scene.tower
        n = len(heights)
        per_image = []
        for k in range(n):
            h = heights[k]
            amount = f"{round(h / scene.block_h)} blocks" if tower else f"{round(100 * h / scene.capacity())}%"
            per_image.append({"image": k + 1, "height": round(h), "amount": amount, "box": boxes[k]})
        chrono = sorted(per_image, key=lambda p: p["height"] * (1 if rising else -1))
        return {
            "kind": question.facts["kind"],
            "process": PROCESSES[scene.process][0].replace("a glass", f"a glass of {LIQUIDS[scene.liquid]}")
            if not tower
            else PROCESSES[scene.process][0],
            "tower": tower,
            "rising": rising,
            "thing": "tower" if tower else "glass",
            "measure": "height of the tower" if tower else "level of the liquid",
            "images": per_image,
            "chrono": chrono,
            "chrono_text": image_list([p["image"] for p in chrono]),
            "anchor": question.facts["anchor"],
            "n_images": n,
        }


def _jitter(rng: np.random.Generator, rgb: RGB, spread: int) -> RGB:
    """A shade of ``rgb``: every channel moved by up to ``spread``."""
    r, g, b = (int(np.clip(c + int(rng.integers(-spread, spread + 1)), 0, 255)) for c in rgb)
    return (r, g, b)


def _window(rng: np.random.Generator, span: tuple[int, int]) -> tuple[int, int, int, int]:
    """A window on the wall, on whichever side of the columns ``span`` (the tower's or the glass's) has room."""
    room_left, room_right = span[0] - 8 - 12, SIZE - 12 - (span[1] + 8)
    width = int(rng.integers(50, min(100, max(room_left, room_right)) + 1))
    if room_left >= width and (room_right < width or rng.random() < 0.5):
        x0 = int(rng.integers(12, span[0] - 8 - width + 1))
    else:
        x0 = int(rng.integers(span[1] + 8, SIZE - 12 - width + 1))
    y0 = int(rng.integers(24, 81))
    return (x0, y0, x0 + width, y0 + int(rng.integers(70, 131)))


def _room(size: int, stage: Stage) -> np.ndarray:
    img = np.empty((size, size, 3), np.uint8)
    img[:] = stage.wall
    img[stage.table_y :] = stage.table
    img[stage.table_y : stage.table_y + 3] = tuple(int(0.8 * c) for c in stage.table)
    x0, y0, x1, y1 = stage.window
    canvas2d.rect(img, stage.window, stage.pane)  # a window, away from the tower and the glass
    canvas2d.rect(img, ((x0 + x1) // 2 - 2, y0, (x0 + x1) // 2 + 2, y1), stage.wall)
    canvas2d.rect(img, (x0, (y0 + y1) // 2 - 2, x1, (y0 + y1) // 2 + 2), stage.wall)
    return img
