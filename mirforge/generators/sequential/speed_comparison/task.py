"""speed_comparison: which object moves fastest (or slowest), or how do the objects rank by speed?

Flat shapes slide along their own horizontal lanes at constant, clearly different speeds (consecutive speeds
differ by at least ``speed_ratio``, never less than 25%). The scene is filmed to an H.264 mp4; the question
shows frames extracted from the file at the times stated in the text. At level 3 the objects are split over
two clips filmed by the same fixed camera at different frame times, so speeds must be compared in pixels per
second, not pixels per frame. The verifier measures each object's centroid in every decoded frame (colour
segmentation), fits its speed by least squares over the stated times, and re-derives the answer from those
measured speeds; near-ties in the measured speeds reject the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import permutation_distractors
from mirforge.generators.sequential.clips import ClipConfig, Filming, seconds, track_colors
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import ColorRange, Track, track_frames
from mirforge.task import Needs, Question, Region, Rendered, Task, ensure, per_level, place

MARGIN = 34  # pixels kept free at the left and right edges
KINDS = ("fastest", "slowest", "order")


@dataclass
class SpeedComparisonConfig(ClipConfig):
    objects_per_level: tuple[int, ...] = per_level(4, 5, 5)
    speed_ratio_per_level: tuple[float, ...] = per_level(1.6, 1.4, 1.25)
    min_measured_ratio: float = 1.15  # the verifier rejects measured speeds closer than this

    def validate(self) -> None:
        super().validate()
        ensure(
            all(max(3, self.n_options) <= n <= 6 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between max(3, n_options={self.n_options}) and 6",
        )
        ensure(
            all(1.25 <= r <= 2.0 for r in self.speed_ratio_per_level),
            "speed_ratio_per_level",
            "each ratio must be between 1.25 (speeds differ by 25%) and 2.0",
        )
        ensure(
            1.0 < self.min_measured_ratio < min(self.speed_ratio_per_level),
            "min_measured_ratio",
            "must be above 1 and below every speed_ratio_per_level",
        )


@dataclass(frozen=True)
class Mover:
    name: str
    color: str
    shape: str
    radius: float
    clip: int
    lane_y: float
    x0: float
    vx: float  # pixels per second, signed


@dataclass(frozen=True)
class ClipPlan:
    n_frames: int
    indices: tuple[int, ...]  # extracted frames


@dataclass(frozen=True)
class Scene:
    movers: tuple[Mover, ...]
    clips: tuple[ClipPlan, ...]
    kind: str
    fps: int


class SpeedComparison(Filming, Task):
    name = "speed_comparison"
    category = "sequential"
    description = "Compare the speeds of objects measured across frames extracted from video clips"
    Config = SpeedComparisonConfig
    needs = Needs(renderer=None, cost=1.5)

    def knobs(self, level: int) -> dict[str, Any]:
        return {
            "n_objects": self.config.objects_per_level[level - 1],
            "speed_ratio": self.config.speed_ratio_per_level[level - 1],
            "n_clips": (1, 1, 2)[level - 1],
            "frames_per_clip": (3, 4, 3)[level - 1],
            "uneven_times": level >= 2,
            "both_directions": level >= 2,
            "kinds": list(KINDS[:2] if level == 1 else KINDS),
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n, n_clips, fps = k["n_objects"], k["n_clips"], self.config.fps
        speeds = [float(rng.uniform(24, 40))]
        for _ in range(n - 1):
            speeds.append(speeds[-1] * k["speed_ratio"] * float(rng.uniform(1.0, 1.12)))
        speeds = [speeds[int(i)] for i in rng.permutation(n)]
        clip_of = [0] * n
        if n_clips == 2:
            split = int(rng.integers(2, n - 1)) if n > 3 else 2
            clip_of = [0 if i < split else 1 for i in range(n)]
        colors = track_colors(rng, n)
        shapes = [canvas2d.SHAPES_2D[int(i)] for i in rng.integers(len(canvas2d.SHAPES_2D), size=n)]
        size = self.image_size
        plans, movers = [], []
        for c in range(n_clips):
            members = [i for i in range(n) if clip_of[i] == c]
            fastest = max(speeds[i] for i in members)
            span = min(2.5, (size - 2 * MARGIN - 40) / fastest)  # seconds between first and last extracted frame
            if c == 1:
                span *= float(rng.uniform(0.45, 0.75))  # the second clip spans a different time
            n_frames = k["frames_per_clip"]
            last = max(2 * n_frames, int(span * fps))
            if k["uneven_times"]:
                inner = _spaced(rng, last, n_frames - 2, gap=2)
            else:
                inner = [round(last * j / (n_frames - 1)) for j in range(1, n_frames - 1)]
            indices = (0, *inner, last)
            plans.append(ClipPlan(n_frames=last + 1, indices=tuple(indices)))
            lanes = np.linspace(70, size - 70, len(members)) if len(members) > 1 else [size / 2]
            order = rng.permutation(len(members))
            for lane_k, i in zip(order, members, strict=True):
                travel = speeds[i] * last / fps
                sign = -1.0 if (k["both_directions"] and rng.random() < 0.5) else 1.0
                lo, hi = MARGIN + 22, size - MARGIN - 22 - travel
                if hi < lo:
                    raise Reject("object would leave the frame")
                start = float(rng.uniform(lo, hi))
                x0 = start if sign > 0 else size - start
                movers.append(
                    Mover(
                        name=canvas2d.shape_name(colors[i], shapes[i]),
                        color=colors[i],
                        shape=shapes[i],
                        radius=float(rng.uniform(15, 20)),
                        clip=c,
                        lane_y=float(lanes[int(lane_k)]),
                        x0=x0,
                        vx=sign * speeds[i],
                    )
                )
        movers.sort(key=lambda m: (m.clip, m.lane_y))
        kind = k["kinds"][int(rng.integers(len(k["kinds"])))]
        return Scene(movers=tuple(movers), clips=tuple(plans), kind=kind, fps=fps)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        names = [m.name for m in scene.movers]
        by_speed = [m.name for m in sorted(scene.movers, key=lambda m: -abs(m.vx))]
        n_opt = self.config.n_options
        if scene.kind in ("fastest", "slowest"):
            correct = by_speed[0] if scene.kind == "fastest" else by_speed[-1]
            others = [names[int(i)] for i in rng.permutation(len(names)) if names[int(i)] != correct][: n_opt - 1]
            options = place(correct, others, slot)
            keys: list[Any] = list(options)
            ask_text = f"Which object moves {scene.kind}?"
        else:
            distractors = permutation_distractors(rng, tuple(by_speed), n_opt - 1, near=True)
            keys = place(tuple(by_speed), distractors, slot)
            options = [" > ".join(order) for order in keys]
            ask_text = "Which ranking lists the objects from fastest to slowest?"
        times = self.times(scene)
        intro, image = [], 0
        for c, plan in enumerate(scene.clips):
            slots = ", ".join(["<image>"] * len(plan.indices))
            stamps = ", ".join(f"{seconds(t)} s" for t in times[c])
            n_img = len(plan.indices)
            span = f"Images {image + 1}-{image + n_img}"
            if len(scene.clips) == 1:
                intro.append(f"The frames {slots} ({span}) were extracted from one video at t = {stamps}.")
            else:
                which = ("first", "second")[c]
                intro.append(f"The {which} clip gives the frames {slots} ({span}) at t = {stamps}.")
            image += n_img
        setting = (
            "Each object slides along its own horizontal lane at a constant speed."
            if len(scene.clips) == 1
            else "Both clips were filmed by the same fixed camera at the same scale, but with different frame times; "
            "each object slides along its own lane at a constant speed."
        )
        text = " ".join([*intro, setting, ask_text])
        facts = {"kind": scene.kind, "keys": [list(k) if isinstance(k, tuple) else k for k in keys], "times": times}
        return Question(text=text, options=options, answer=slot, facts=facts)

    def times(self, scene: Scene) -> list[list[float]]:
        return [[i / scene.fps for i in plan.indices] for plan in scene.clips]

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        size = self.image_size
        images: list[np.ndarray] = []
        tracks: list[Track] = []
        for c, plan in enumerate(scene.clips):
            members = [m for m in scene.movers if m.clip == c]
            base = _track_floor(size, [m.lane_y for m in members])
            frames = []
            for f in range(plan.n_frames):
                img = base.copy()
                t = f / scene.fps
                for m in members:
                    canvas2d.draw_shape(img, m.shape, (m.x0 + m.vx * t, m.lane_y), m.radius, m.color)
                canvas2d.timecode(img, f"clip {c + 1}  t = {t:.2f} s" if len(scene.clips) > 1 else f"t = {t:.2f} s")
                frames.append(img)
            decoded = self.shoot(frames, plan.indices)
            ranges = [ColorRange.around(m.name, PALETTE[m.color], 40) for m in members]
            tracks.append(track_frames(decoded, question.facts["times"][c], ranges, min_pixels=150))
            images.extend(decoded)
        regions, measured_tracks, first_image = [], {}, 0
        for c, tr in enumerate(tracks):
            for name, blobs in tr.blobs.items():
                if any(b is None for b in blobs):
                    raise Reject("an object is not found in a decoded frame")
                regions += [Region(first_image + k, name, b.box) for k, b in enumerate(blobs)]
                measured_tracks[name] = {
                    "clip": c,
                    "images": [first_image + k for k in range(len(blobs))],
                    "x": [round(b.centroid[0], 2) for b in blobs],
                    "y": [round(b.centroid[1], 2) for b in blobs],
                    "box": [b.box for b in blobs],
                    "speed": round(tr.speed(name), 2),
                }
            first_image += len(tr.times)
        return Rendered(images=images, measured={"tracks": measured_tracks}, regions=regions, videos=self.videos())

    def verify(self, question: Question, rendered: Rendered) -> int:
        tracks = rendered.measured["tracks"]
        times = question.facts["times"]
        speeds = {name: _fit_speed(times[t["clip"]], t["x"], t["y"]) for name, t in tracks.items()}
        ranked = sorted(speeds, key=lambda n: -speeds[n])
        for a, b in zip(ranked, ranked[1:], strict=False):
            if speeds[a] < self.config.min_measured_ratio * speeds[b]:
                raise Reject("measured speeds too close")
        kind = question.facts["kind"]
        if kind == "order":
            want: Any = ranked
        else:
            want = ranked[0] if kind == "fastest" else ranked[-1]
        matches = [i for i, key in enumerate(question.facts["keys"]) if key == want]
        if len(matches) != 1:
            raise Reject("the measured answer is not exactly one option")
        return matches[0]

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        tracks = rendered.measured["tracks"]
        times = question.facts["times"]
        objs = []
        for m in scene.movers:
            t = tracks[m.name]
            ts = times[t["clip"]]
            dx = t["x"][-1] - t["x"][0]
            objs.append(
                {
                    "name": m.name,
                    "clip": t["clip"] + 1,
                    "frames": [
                        {"image": img + 1, "time": seconds(tt), "x": round(x), "box": box}
                        for img, tt, x, box in zip(t["images"], ts, t["x"], t["box"], strict=True)
                    ],
                    "distance": round(abs(dx)),
                    "duration": seconds(ts[-1] - ts[0]),
                    "speed": round(_fit_speed(ts, t["x"], t["y"]), 1),
                    "direction": "right" if dx > 0 else "left",
                    "per_frame": round(abs(dx) / (len(ts) - 1)),
                }
            )
        ranked = sorted(objs, key=lambda o: -o["speed"])
        n_images = sum(len(p.indices) for p in scene.clips)
        frames = []
        for img in range(n_images):
            here = [o for o in objs if any(f["image"] == img + 1 for f in o["frames"])]
            c = here[0]["clip"]
            fr = [next(f for f in o["frames"] if f["image"] == img + 1) for o in here]
            frames.append(
                {
                    "image": img + 1,
                    "clip": c,
                    "time": fr[0]["time"],
                    "objects": [{"name": o["name"], "x": f["x"]} for o, f in zip(here, fr, strict=True)],
                }
            )
        return {
            "kind": question.facts["kind"],
            "n_clips": len(scene.clips),
            "objects": objs,
            "ranked": ranked,
            "frames": frames,
            "fps": scene.fps,
        }


def _spaced(rng: np.random.Generator, last: int, n: int, gap: int) -> list[int]:
    """``n`` sorted frame indices strictly between 0 and ``last``, at least ``gap`` apart (and from both ends)."""
    for _ in range(100):
        picks = sorted(int(v) for v in rng.choice(np.arange(gap, last - gap + 1), size=n, replace=False))
        if all(b - a >= gap for a, b in zip(picks, picks[1:], strict=False)):
            return picks
    raise Reject("no spaced frame times")


def _track_floor(size: int, lanes: list[float]) -> np.ndarray:
    img = canvas2d.floor(size)
    gap = (lanes[1] - lanes[0]) if len(lanes) > 1 else 120.0
    for y in [lanes[0] - gap / 2, *(y + gap / 2 for y in lanes)]:
        yy = int(round(y))
        if 0 <= yy < size:
            img[yy : yy + 2, :] = canvas2d.LINE
    for x in range(MARGIN, size, 56):  # a ruler of tick marks along the top and bottom
        img[:10, x : x + 2] = canvas2d.LINE
        img[size - 10 :, x : x + 2] = canvas2d.LINE
    return img


def _fit_speed(times: list[float], xs: list[float], ys: list[float]) -> float:
    t = np.asarray(times, float)
    tc = t - t.mean()
    denom = float((tc**2).sum())
    vx = float((tc * np.asarray(xs)).sum() / denom)
    vy = float((tc * np.asarray(ys)).sum() / denom)
    return float(np.hypot(vx, vy))
