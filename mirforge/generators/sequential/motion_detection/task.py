"""motion_detection: which object moved between two frames, in which direction, or in which order were the
frames taken?

Flat shapes rest on a floor; one of them slides in a straight line at constant speed while the others stay
still. The scene is filmed to an H.264 mp4 and the question's frames are extracted from the file. Questions:

- ``which``: which object moved between the two frames?
- ``direction``: in which direction did the named object move (4 directions at level 1, 8 above)?
- ``which_direction``: which statement (object and direction) describes the change?
- ``order``: the frames are shown shuffled; the text says where the object is heading; which order is
  chronological?

The verifier measures every object's centroid in every decoded frame: exactly one object must have moved by
more than ``min_move_px`` and every other by less than ``still_px``; its measured direction must lie within
``angle_margin`` degrees of a compass direction; for ``order`` the frames are sorted by the mover's measured
progress along the stated direction, with gaps of at least ``min_move_px``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import draw_distinct, permutation_distractors
from mirforge.generators.sequential.clips import ClipConfig, Filming, image_list, seconds, track_colors
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import DIRECTIONS, ColorRange, angle_of, direction_of, track_frames
from mirforge.task import Needs, Question, Region, Rendered, Task, ensure, per_level, place

EDGE = 40  # keep shapes this far from the image border
PHRASE = {
    "right": "to the right",
    "up-right": "up and to the right",
    "up": "up",
    "up-left": "up and to the left",
    "left": "to the left",
    "down-left": "down and to the left",
    "down": "down",
    "down-right": "down and to the right",
}
KINDS = ("which", "direction", "which_direction", "order")


@dataclass
class MotionDetectionConfig(ClipConfig):
    objects_per_level: tuple[int, ...] = per_level(4, 5, 6)
    min_move_px: float = 12.0
    still_px: float = 3.0
    angle_margin: float = 12.0

    def validate(self) -> None:
        super().validate()
        ensure(
            all(max(2, self.n_options) <= n <= 8 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between max(2, n_options={self.n_options}) and 8",
        )
        ensure(0 < self.still_px < self.min_move_px <= 24, "min_move_px", "must exceed still_px and be at most 24")
        ensure(0 < self.angle_margin < 22.5, "angle_margin", "must be between 0 and 22.5 degrees")


@dataclass(frozen=True)
class Thing:
    name: str
    color: str
    shape: str
    radius: float
    x: float
    y: float


@dataclass(frozen=True)
class Scene:
    things: tuple[Thing, ...]
    mover: int
    direction: str
    distance: float  # pixels over the clip
    n_frames: int
    indices: tuple[int, ...]  # extracted frames, chronological
    shown: tuple[int, ...]  # image k shows chronological frame shown[k]
    kind: str
    sectors: int
    fps: int


class MotionDetection(Filming, Task):
    name = "motion_detection"
    category = "sequential"
    description = "Find which object moved between video frames, where to, or the order of shuffled frames"
    Config = MotionDetectionConfig
    needs = Needs(renderer=None, cost=1.0)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_objects": self.config.objects_per_level[level - 1],
            "distance_px": [(90, 140), (50, 90), (28, 55)][level - 1],
            "directions": (4, 8, 8)[level - 1],
            "order_frames": (3, 3, 4)[level - 1],
            "kinds": [["which", "direction"], ["which", "direction", "order"], ["which_direction", "order"]][level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n, size = k["n_objects"], self.image_size
        kind = k["kinds"][int(rng.integers(len(k["kinds"])))]
        sectors = k["directions"]
        direction = DIRECTIONS[int(rng.integers(8))] if sectors == 8 else DIRECTIONS[2 * int(rng.integers(4))]
        distance = float(rng.uniform(*k["distance_px"]))
        if kind == "order":
            distance *= 1.6  # room for the intermediate frames
        angle = math.radians(45 * DIRECTIONS.index(direction))
        ux, uy = math.cos(angle), -math.sin(angle)
        colors = track_colors(rng, n)
        shapes = [canvas2d.SHAPES_2D[int(i)] for i in rng.integers(len(canvas2d.SHAPES_2D), size=n)]
        radii = [float(rng.uniform(15, 21)) for _ in range(n)]
        # the mover first: its whole path must stay inside the frame
        lo_x, hi_x = EDGE - min(0, ux * distance), size - EDGE - max(0, ux * distance)
        lo_y, hi_y = EDGE - min(0, uy * distance), size - EDGE - max(0, uy * distance)
        start = (float(rng.uniform(lo_x, hi_x)), float(rng.uniform(lo_y, hi_y)))
        end = (start[0] + ux * distance, start[1] + uy * distance)
        spots = [start]
        for i in range(1, n):
            for _ in range(200):
                p = (float(rng.uniform(EDGE, size - EDGE)), float(rng.uniform(EDGE, size - EDGE - 20)))
                if _segment_distance(p, start, end) > radii[0] + radii[i] + 14 and all(
                    math.dist(p, q) > radii[i] + 21 + 14 for q in spots[1:]
                ):
                    spots.append(p)
                    break
            else:
                raise Reject("no room for the objects")
        order = rng.permutation(n)  # the mover is a random one of the named objects
        things = [None] * n
        for slot_i, j in enumerate(order):
            things[int(j)] = Thing(
                canvas2d.shape_name(colors[slot_i], shapes[slot_i]),
                colors[slot_i],
                shapes[slot_i],
                radii[slot_i],
                *spots[slot_i],
            )
        mover = int(order[0])
        fps = self.config.fps
        last = int(round(1.5 * fps))
        if kind == "order":
            m = k["order_frames"]
            indices = tuple(round(last * j / (m - 1)) for j in range(m))
            shown = tuple(int(v) for v in rng.permutation(m))
            if shown == tuple(range(m)):
                shown = tuple(reversed(shown)) if rng.random() < 0.5 else (*shown[1:], shown[0])
        else:
            indices, shown = (0, last), (0, 1)
        return Scene(tuple(things), mover, direction, distance, last + 1, indices, shown, kind, sectors, fps)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        names = [t.name for t in scene.things]
        mover = names[scene.mover]
        n_opt = self.config.n_options
        dt = (scene.indices[-1] - scene.indices[0]) / scene.fps
        pool = list(DIRECTIONS) if scene.sectors == 8 else list(DIRECTIONS[::2])
        facts: dict[str, Any] = {"kind": scene.kind, "sectors": scene.sectors, "names": names}
        if scene.kind == "which":
            others = [names[int(i)] for i in rng.permutation(len(names)) if int(i) != scene.mover][: n_opt - 1]
            keys: list[Any] = place(mover, others, slot)
            options = [f"The {k}" for k in keys]
            text = (
                f"<image> and <image> are two frames of one video of a floor with {len(names)} objects, taken "
                f"{seconds(dt)} s apart. Which object moved between the two frames?"
            )
        elif scene.kind == "direction":
            others = [d for d in (pool[int(i)] for i in rng.permutation(len(pool))) if d != scene.direction]
            keys = place(scene.direction, others[: n_opt - 1], slot)
            options = [PHRASE[d].capitalize() for d in keys]
            text = (
                f"<image> and <image> are two frames of one video, taken {seconds(dt)} s apart. Between them the "
                f"{mover} moved while everything else stayed still. In which direction did the {mover} move?"
            )
            facts["object"] = mover
        elif scene.kind == "which_direction":
            correct = (mover, scene.direction)

            def make() -> tuple[str, str]:
                who = mover if rng.random() < 0.4 else names[int(rng.integers(len(names)))]
                return (who, pool[int(rng.integers(len(pool)))])

            keys = place(correct, draw_distinct(make, n_opt - 1, exclude=[correct]), slot)
            options = [f"The {who} moved {PHRASE[d]}" for who, d in keys]
            text = (
                f"<image> and <image> are two frames of one video of a floor with {len(names)} objects, taken "
                f"{seconds(dt)} s apart. Which statement describes what changed between the two frames?"
            )
        else:
            m = len(scene.indices)
            # image numbers (1-based) in chronological order
            chrono = tuple(1 + scene.shown.index(c) for c in range(m))
            keys = place(chrono, permutation_distractors(rng, chrono, n_opt - 1, near=m > 3), slot)
            options = [" -> ".join(f"Image {i}" for i in order) for order in keys]
            slots = ", ".join(["<image>"] * m)
            text = (
                f"The frames {slots} were extracted from one video, spaced equally in time, and are shown in a "
                f"random order. In the video the {mover} slides steadily {PHRASE[scene.direction]} while everything "
                "else stays still. Which order of the frames is chronological (earliest first)?"
            )
            facts["object"] = mover
            facts["direction"] = scene.direction
        facts["keys"] = [list(k) if isinstance(k, tuple) else k for k in keys]
        return Question(text=text, options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        size = self.image_size
        base = canvas2d.floor(size, grid=56)
        angle = math.radians(45 * DIRECTIONS.index(scene.direction))
        ux, uy = math.cos(angle), -math.sin(angle)
        last = scene.n_frames - 1
        frames = []
        for f in range(scene.n_frames):
            img = base.copy()
            for i, t in enumerate(scene.things):
                x, y = t.x, t.y
                if i == scene.mover:
                    x, y = x + ux * scene.distance * f / last, y + uy * scene.distance * f / last
                canvas2d.draw_shape(img, t.shape, (x, y), t.radius, t.color)
            canvas2d.timecode(img, f"t = {f / scene.fps:.2f} s" if scene.kind != "order" else "")
            frames.append(img)
        decoded = self.shoot(frames, scene.indices)
        images = [decoded[c] for c in scene.shown]
        times = [scene.indices[c] / scene.fps for c in scene.shown]
        ranges = [ColorRange.around(t.name, PALETTE[t.color], 40) for t in scene.things]
        track = track_frames(images, times, ranges, min_pixels=150)
        regions, positions = [], {}
        for name, blobs in track.blobs.items():
            if any(b is None for b in blobs):
                raise Reject("an object is not found in a decoded frame")
            regions += [Region(k, name, b.box) for k, b in enumerate(blobs)]
            positions[name] = {
                "x": [round(b.centroid[0], 2) for b in blobs],
                "y": [round(b.centroid[1], 2) for b in blobs],
                "box": [b.box for b in blobs],
            }
        return Rendered(images=images, measured={"positions": positions}, regions=regions, videos=self.videos())

    def verify(self, question: Question, rendered: Rendered) -> int:
        facts, pos = question.facts, rendered.measured["positions"]
        kind = facts["kind"]
        if kind == "order":
            d = DIRECTIONS.index(facts["direction"])
            ux, uy = math.cos(math.radians(45 * d)), -math.sin(math.radians(45 * d))
            p = pos[facts["object"]]
            progress = [x * ux + y * uy for x, y in zip(p["x"], p["y"], strict=True)]
            chrono = sorted(range(len(progress)), key=lambda k: progress[k])
            gaps = [progress[b] - progress[a] for a, b in zip(chrono, chrono[1:], strict=False)]
            if min(gaps) < self.config.min_move_px:
                raise Reject("frames too close along the motion")
            want: Any = [k + 1 for k in chrono]
        else:
            moved = {n: math.hypot(p["x"][-1] - p["x"][0], p["y"][-1] - p["y"][0]) for n, p in pos.items()}
            movers = [n for n, d in moved.items() if d >= self.config.min_move_px]
            unclear = [n for n, d in moved.items() if self.config.still_px <= d < self.config.min_move_px]
            if len(movers) != 1 or unclear:
                raise Reject(f"{len(movers)} objects clearly moved, {len(unclear)} unclear")
            mover = movers[0]
            p = pos[mover]
            dx, dy = p["x"][-1] - p["x"][0], p["y"][-1] - p["y"][0]
            sectors = facts["sectors"]
            width = 360 / sectors
            off = (angle_of(dx, dy) + width / 2) % width - width / 2
            if abs(off) > self.config.angle_margin:
                raise Reject("measured direction between two compass directions")
            direction = direction_of(dx, dy, sectors)
            want = {"which": mover, "direction": direction, "which_direction": [mover, direction]}[kind]
            if kind == "direction" and mover != facts["object"]:
                raise Reject("a different object moved")
        matches = [i for i, key in enumerate(facts["keys"]) if key == want]
        if len(matches) != 1:
            raise Reject("the measured answer is not exactly one option")
        return matches[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        pos = rendered.measured["positions"]
        names = [t.name for t in scene.things]
        mover = names[scene.mover]
        n_img = len(rendered.images)
        objects = []
        for t in scene.things:
            p = pos[t.name]
            dx, dy = p["x"][-1] - p["x"][0], p["y"][-1] - p["y"][0]
            objects.append(
                {
                    "name": t.name,
                    "where": [{"image": k + 1, "x": round(p["x"][k]), "y": round(p["y"][k])} for k in range(n_img)],
                    "boxes": [{"image": k + 1, "box": p["box"][k]} for k in range(n_img)],
                    "shift": round(math.hypot(dx, dy), 1),
                    "dx": round(dx),
                    "dy": round(dy),
                }
            )
        chrono = [1 + scene.shown.index(c) for c in range(len(scene.indices))]
        p = pos[mover]
        times = [scene.indices[c] / scene.fps for c in range(len(scene.indices))]
        return {
            "kind": scene.kind,
            "mover": mover,
            "direction": PHRASE[scene.direction],
            "objects": objects,
            "still": [o for o in objects if o["name"] != mover],
            "moving": next(o for o in objects if o["name"] == mover),
            "n_images": n_img,
            "chrono": [
                {"image": k, "x": round(p["x"][k - 1]), "y": round(p["y"][k - 1]), "time": seconds(t)}
                for k, t in zip(chrono, times, strict=True)
            ],
            "chrono_text": image_list(chrono),
            "dt": seconds(times[-1] - times[0]),
        }


def _segment_distance(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = a
    bx, by = b
    vx, vy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((p[0] - ax) * vx + (p[1] - ay) * vy) / max(vx * vx + vy * vy, 1e-9)))
    return math.dist(p, (ax + t * vx, ay + t * vy))
