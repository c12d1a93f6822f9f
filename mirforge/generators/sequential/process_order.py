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
from mirforge.task import Needs, Question, Region, Rendered, Task, ensure, place

WALL = (236, 232, 222)
TABLE = (176, 140, 104)
TABLE_Y = 380
BLOCK_H = 30
GLASS_BOX = (164, 110, 284, TABLE_Y)
GLASS_EDGE = (120, 130, 140)
HOLD = 3  # frames each discrete step is held in the clip
PROCESSES = {
    "stack": ("a tower being built by stacking blocks one at a time", True),
    "unstack": ("a tower being taken apart, one block at a time from the top", False),
    "fill": ("a glass being filled from a jug", True),
    "drain": ("a glass being drained through a tap at its bottom", False),
}
LIQUIDS = {"orange": "orange juice", "blue": "water", "red": "cherry juice", "purple": "grape juice"}


@dataclass
class ProcessOrderConfig(ClipConfig):
    images_per_level: tuple[int, ...] = (4, 5, 6)
    min_gap_px: int = 14

    def validate(self) -> None:
        super().validate()
        ensure(len(self.images_per_level) == 3, "images_per_level", "needs one count per level (3 values)")
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
    color: str
    width: int
    dx: int


@dataclass(frozen=True)
class Scene:
    process: str
    blocks: tuple[Block, ...]  # stack/unstack: the whole tower, bottom first
    liquid: str  # fill/drain: palette colour of the liquid
    states: tuple[int, ...]  # chronological progress values shown (blocks on the table, or fill level step)
    n_states: int  # states of the whole clip
    shown: tuple[int, ...]  # image k shows chronological state shown[k]
    kind: str
    pair: tuple[int, int]  # chronological positions referred to by next / between


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
        colors = [canvas2d.TRACK_COLORS[int(i)] for i in rng.integers(len(canvas2d.TRACK_COLORS), size=n_states)]
        for i in range(1, n_states):  # neighbouring blocks differ in colour
            while colors[i] == colors[i - 1]:
                colors[i] = canvas2d.TRACK_COLORS[int(rng.integers(len(canvas2d.TRACK_COLORS)))]
        blocks = tuple(Block(c, int(rng.integers(70, 131)), int(rng.integers(-12, 13))) for c in colors)
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
        return Scene(process, blocks, liquid, states, n_states, shown, kind, pair)

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
        size = self.image_size
        base = _room(size)
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
        name = "tower" if scene.process in ("stack", "unstack") else "glass"
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
        cx = self.image_size // 2
        if scene.process in ("stack", "unstack"):
            for i, b in enumerate(scene.blocks[:state]):
                y1 = TABLE_Y - i * BLOCK_H
                canvas2d.rect(
                    img, (cx + b.dx - b.width / 2, y1 - BLOCK_H + 1, cx + b.dx + b.width / 2, y1), PALETTE[b.color]
                )
                img[y1 - BLOCK_H + 1, int(cx + b.dx - b.width / 2) : int(cx + b.dx + b.width / 2)] = (250, 250, 250)
            return img
        x0, y0, x1, y1 = GLASS_BOX
        level = (y1 - y0 - 12) * state / scene.n_states
        colour = PALETTE[scene.liquid]
        canvas2d.rect(img, (x0 + 4, y1 - 4 - level, x1 - 4, y1 - 4), colour)
        if scene.process == "fill":  # the jug's stream into the glass
            jug = (x1 - 30, 40, x1 + 50, 90)
            canvas2d.rect(img, jug, (150, 150, 160))
            canvas2d.rect(img, (x1 - 30, 60, x1 - 22, y1 - 4 - level), colour)
        else:  # the tap and what runs out of it
            canvas2d.rect(img, (x1, y1 - 22, x1 + 30, y1 - 14), (90, 90, 100))
            canvas2d.rect(img, (x1 + 22, y1 - 14, x1 + 28, TABLE_Y + 20), colour)
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), GLASS_EDGE, 3)
        img[y0 - 2 : y0 + 2, x0:x1] = WALL  # open top
        return img

    def _measure(self, img: np.ndarray, scene: Scene) -> tuple[float, list[int]]:
        """Progress from pixels: the tower's height above the table, or the liquid's height in the glass."""
        if scene.process in ("stack", "unstack"):
            lo, hi = 224 - 110, 224 + 110
            diff = np.abs(img[:TABLE_Y, lo:hi].astype(int) - np.array(WALL)).sum(axis=2) > 60
            rows = np.nonzero(diff.sum(axis=1) >= 20)[0]
            if len(rows) == 0:
                raise Reject("no tower found")
            top = int(rows.min())
            cols = np.nonzero(diff[top:].any(axis=0))[0]
            return float(TABLE_Y - top), [lo + int(cols.min()), top, lo + int(cols.max()) + 1, TABLE_Y]
        x0, y0, x1, y1 = GLASS_BOX
        mask = ColorRange.around("liquid", PALETTE[scene.liquid], 40).mask(img[y0:y1, x0 + 4 : x1 - 4])
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
        tower = scene.process in ("stack", "unstack")
        n = len(heights)
        per_image = []
        for k in range(n):
            h = heights[k]
            amount = (
                f"{round(h / BLOCK_H)} blocks" if tower else f"{round(100 * h / (GLASS_BOX[3] - GLASS_BOX[1] - 12))}%"
            )
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


def _room(size: int) -> np.ndarray:
    img = np.empty((size, size, 3), np.uint8)
    img[:] = WALL
    img[TABLE_Y:] = TABLE
    img[TABLE_Y : TABLE_Y + 3] = (140, 108, 78)
    canvas2d.rect(img, (16, 40, 96, 150), (200, 220, 235))  # a window, away from the tower and the glass
    canvas2d.rect(img, (54, 40, 58, 150), WALL)
    canvas2d.rect(img, (16, 93, 96, 97), WALL)
    return img
