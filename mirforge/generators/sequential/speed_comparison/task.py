"""speed_comparison: which object moves fastest (or slowest), or how do the objects rank by speed?

Families (config ``families``):

- ``lanes``: flat shapes slide along horizontal lanes, filmed top-down by one fixed camera; pixels are distances.
- ``tabletop`` and ``floor``: everyday objects of the catalogue slide in straight lines over a tiled tabletop or
  a tiled floor, filmed in perspective (rendered through ``render.gl``). An object far from the camera crosses
  fewer pixels for the same distance, so speeds are read in tiles, the grid a person counts; from level 2 every
  clip is filmed from another spot, and at level 3 the camera pans during the clips. The tiles are all alike, so a
  pan of a tile would look like none: a panned clip has three flat marks on the floor, each its own colour and
  shape, still and in view in its frames and never passed over (``clips3d.mark_floor``), which show how far the
  view slid; they are part of the floor, in the verifier's empty-floor plate too, and never an option. The
  captions name them by paint and shape ("a red disc"), and the steps count each object's tiles from the mark
  nearest its path.

Level 1 shows three frames of one clip. From level 2 the objects are split over four clips (``clips_per_level``)
with their own frame times, two frames each, so every frame is needed: hiding one leaves the speeds of its clip's
objects unknown, and the options are drawn so that another option then fits (in a ranking, the swap that puts a
hidden object beyond its shown neighbour needs room there: the ranks just outside each swapped pair stand the
verifier's ratio squared apart, ``_fits``). Each option is the fastest (slowest) object of its clip: level 3's
fifth object shares a clip, in a quarter of the scenes the answer's, and is never an option. Consecutive true
speeds differ by at least ``speed_ratio``. From level 2, three 3D scenes in four are laid out so that ranking the
objects by pixels per second, ignoring depth, picks a wrong option
(``pixels_mislead_per_level``); and, in every family, three scenes in four so that ranking them by the distance
covered between a clip's first and last shown frame, ignoring how long each clip ran, picks a wrong option
(``distance_mislead_per_level``), and three in four so that ranking them by how short their clip ran, ignoring the
distance, does (``time_mislead_per_level``). Each of the three is right alone in a different quarter of the scenes,
as often as a guess. Each clip is encoded to an mp4 and the question's frames are extracted from the file; the
verifier measures every object in the decoded frames (3D: carried to the floor through the camera of each frame),
takes its speed as distance over time, and rejects measured speeds closer than ``min_measured_ratio``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.sequential import clips3d
from mirforge.generators.sequential.clips import (
    ClipConfig,
    Filming,
    room_for_hidden,
    seconds,
    track_colors,
    where_in_frame,
)
from mirforge.generators.sequential.clips3d import SETTINGS, Prop, Stage
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import ColorRange, track_frames
from mirforge.task import Needs, Question, Region, Rendered, Task, check_families, ensure, per_level, place

FAMILIES = ("lanes", "tabletop", "floor")
KINDS = ("fastest", "slowest", "order")
MARGIN = 24  # lanes: pixels kept free at the left and right edges
TRAVEL = (0.8, 5.0)  # tiles an object covers within its clip: enough to measure, little enough to stay in view
MAX_FRAMES = 9  # frames per clip at most: clips stay cheap to render
LAYOUT_TRIES = 30  # speeds and paths drawn for one scene before the attempt is rejected
CLIP_TRIES = 50  # clip assignments and lengths drawn for one set of speeds (cheap: no layout)
CLEAR_RATIO = 1.5  # steps call a speed "clearly" above the next only from this ratio
PLAN_MARGIN = 1.05  # the plans ask true speeds this much beyond the measured ratios the verifier needs


@dataclass
class SpeedComparisonConfig(ClipConfig):
    fps: int = 5
    families: tuple[str, ...] = FAMILIES
    family: str = ""  # one family only (the same as families=<name>)
    objects_per_level: tuple[int, ...] = per_level(4, 4, 5)
    # From level 2, four clips, each option the fastest (slowest) object of its own clip. With fewer clips than
    # options, a reader who compares the objects within each clip (they share the times, so distances rank them)
    # is left with at most one winner per clip: with three, a guess among them was right in at least a third of
    # the questions, and an image-only scorer that picked an option with no other option in its pictures took 35%.
    # (With two, the shorter clip's winner alone was right in 64%.) With four, that reader is left with all four
    # options, a guess.
    clips_per_level: tuple[int, ...] = per_level(1, 4, 4)
    speed_ratio_per_level: tuple[float, ...] = per_level(1.6, 1.4, 1.25)
    pan_per_level: tuple[bool, ...] = per_level(False, False, True)  # 3D families: the camera pans during clips
    shared_kind_share: float = 0.3  # 3D families, from level 2: share of scenes with one kind twice, in two colours
    # 3D families: share of scenes where ranking by pixels per second (ignoring depth) picks a wrong option, in
    # quarters (balanced over each level's indices). Left to chance, pixels picked the answer in 100% of level 1's
    # 3D scenes, 79% of level 2's and 40% of level 3's; at 1 - 1/n_options they pick it as often as a guess does.
    # Level 1 (one fixed camera, paths across the picture, speeds 1.6x apart) can hardly mislead: asking half of
    # its scenes to drove 88% of them to the lanes family
    pixels_mislead_per_level: tuple[float, ...] = per_level(0.0, 0.75, 0.75)
    # From level 2 (clips of their own lengths): share of scenes where ranking by the distance covered between the
    # shown frames, ignoring the times, picks a wrong option, in quarters. Left to chance, it found the answer in
    # 79-91% of level 2's questions in every family (each clip's length is drawn so its objects cover 0.8-5 tiles,
    # so a faster object mostly covers more), and the frame times went unread
    distance_mislead_per_level: tuple[float, ...] = per_level(0.0, 0.75, 0.75)
    # The same for ranking by how short each clip ran, ignoring the distance: a clip's length is drawn from its
    # objects' speeds, so the shortest clip held the fastest object in half of the questions once distances misled.
    # The objects of a clip tie on time and a reader picks among them. (With two clips, times or distances always
    # find the fastest or slowest object; see ``sample`` for how those scenes are shared.)
    time_mislead_per_level: tuple[float, ...] = per_level(0.0, 0.75, 0.75)
    min_measured_ratio: float = 1.15  # the verifier rejects measured speeds closer than this

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(
            all(max(3, self.n_options) <= n <= 6 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between max(3, n_options={self.n_options}) and 6",
        )
        ensure(all(1 <= c <= 4 for c in self.clips_per_level), "clips_per_level", "each must be 1, 2, 3 or 4")
        ensure(
            all(c <= n for c, n in zip(self.clips_per_level, self.objects_per_level, strict=True)),
            "clips_per_level",
            "needs at least one object per clip (see objects_per_level)",
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
        ensure(0.0 <= self.shared_kind_share <= 1.0, "shared_kind_share", "must be between 0 and 1")
        for name in ("pixels_mislead_per_level", "distance_mislead_per_level", "time_mislead_per_level"):
            ensure(
                all(v in (0.0, 0.25, 0.5, 0.75, 1.0) for v in getattr(self, name)),
                name,
                "each share must be 0, 0.25, 0.5, 0.75 or 1 (it is balanced over the indices in quarters)",
            )

    @property
    def drawn_families(self) -> tuple[str, ...]:
        return (self.family,) if self.family else tuple(self.families)


@dataclass(frozen=True)
class Flat:
    """A flat shape on a horizontal lane (the ``lanes`` family), in pixels."""

    color: str
    shape: str
    radius: float
    lane_y: float
    x0: float
    vx: float  # pixels per second, signed


@dataclass(frozen=True)
class Runner:
    name: str
    clip: int
    speed: float  # true speed in tiles per second
    flat: Flat | None = None
    prop: Prop | None = None


@dataclass(frozen=True)
class ClipPlan:
    n_frames: int
    indices: tuple[int, ...]  # extracted frames
    stage: Stage | None = None  # 3D clips: floor, tiles and camera


class _Shortcut(NamedTuple):
    """A way to rank the objects without measuring speed, that a scene is laid out so as to mislead or not."""

    name: str
    wrong: bool | None  # whether it must pick a wrong option (None: left to chance)
    values: Callable[[], dict[str, float]]  # per object, higher: faster
    right: tuple[float, float]  # where it may pick the answer, the least and most chance it may give then

    def holds(self, share: float) -> bool:
        """Whether a reader's chance ``share`` of picking the fastest (slowest) object by this shortcut is as drawn:
        none, or some in ``right`` (the objects of a clip tie on time)."""
        return share == 0 if self.wrong else 0 < share and self.right[0] <= share <= self.right[1]


@dataclass(frozen=True)
class Scene:
    family: str
    level: int
    runners: tuple[Runner, ...]
    clips: tuple[ClipPlan, ...]
    kind: str
    fps: int
    tile: float  # measuring units per tile: pixels (lanes) or metres
    pairs: tuple[tuple[int, int], ...] = ()  # ranking questions: the two rank pairs the distractors swap
    mislead: bool | None = None  # 3D: whether pixels per second must pick a wrong option (None: left to chance)
    # several clips: whether the distance covered between the shown frames, and the time between them, must pick a
    # wrong option
    distance_misleads: bool | None = None
    time_misleads: bool | None = None


class SpeedComparison(Filming, Task):
    name = "speed_comparison"
    category = "sequential"
    description = "Compare the speeds of objects measured across frames extracted from video clips"
    Config = SpeedComparisonConfig
    needs = Needs(renderer="gl", cost=3.0)
    image_size = 320

    # The answer's place in depth among the objects of a one-clip scene (0: highest in the picture, the farthest),
    # modulo the number of objects (60: any count from 3 to 6); with several clips, modulo 4, whether the answer
    # shares its clip with the object that is no option (four clips, five objects). Found rather than drawn, the
    # fastest stood farthest 38% of the time at level 1 (a long path across the picture fits where the view is
    # wide) and the slowest farthest 19%, which one frame and the question's word tell without any measuring.
    # Times 6: the question kind (two or three kinds; drawn per attempt, a rejection redrew it, and the kinds hard
    # to lay out in a quarter left it: the fastest object covered the most ground in 36% of level 3's questions).
    # Times 4: the quarter that says whether pixels mislead (drawn per attempt, 87% of level 3's scenes misled for
    # 75% asked) and whether distances and times do (each from another quarter, so each is right alone in a
    # quarter of its own).
    variants = 1440

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        n_clips = self.config.clips_per_level[i]
        return {
            "n_objects": self.config.objects_per_level[i],
            "speed_ratio": self.config.speed_ratio_per_level[i],
            "n_clips": n_clips,
            "frames_per_clip": 3 if n_clips == 1 else 2,
            "kinds": list(KINDS[:2] if level == self.levels[0] else KINDS),
            "pixels_mislead": self.config.pixels_mislead_per_level[i],
            "distance_mislead": self.config.distance_mislead_per_level[i],
            "time_mislead": self.config.time_mislead_per_level[i],
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        names = [r.prop.kind for r in scene.runners if r.prop is not None]
        stages = [plan.stage for plan in scene.clips if plan.stage is not None]
        return {
            "family": scene.family,
            "shared_kind": len(names) != len(set(names)),
            # what was filmed (the lanes have one fixed camera whatever the level's pan_per_level says), and
            # whether pixels per second were laid out to mislead (None: left to chance)
            "camera_pan": any(stage.shot.moving for stage in stages),
            "new_viewpoint_per_clip": len(stages) > 1,
            "pixels_pick_wrong": scene.mislead,
            "distances_pick_wrong": scene.distance_misleads,
            "times_pick_wrong": scene.time_misleads,
        }

    # -- scene ----------------------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)
        families = self.config.drawn_families
        family = families[int(rng.integers(len(families)))]
        v = int(rng.integers(self.variants)) if variant is None else variant
        quarter, sixth, rest = v // 360, v // 60 % 6, v % 60
        kind = k["kinds"][sixth % len(k["kinds"])]
        depth = rest % k["n_objects"] if k["n_clips"] == 1 and kind != "order" and family != "lanes" else None
        share = k["pixels_mislead"]
        mislead = None if family == "lanes" or share == 0 else quarter < round(4 * share)
        several = k["n_clips"] > 1
        distance = quarter >= 4 - round(4 * k["distance_mislead"]) if several and k["distance_mislead"] else None
        timing = quarter < round(4 * k["time_mislead"]) if several and k["time_mislead"] else None
        # four clips and a fifth object: whether the answer shares its clip (with an object that is no option), in
        # a quarter of the scenes, as any option does
        shares = rest % 4 == 0 if kind != "order" and 4 <= k["n_clips"] < k["n_objects"] else None
        if distance and timing and k["n_clips"] == 2 and kind != "order":
            # with two clips the fastest (slowest) object's clip is the shorter (longer) or it covers the most
            # (least) ground, so one of the two finds it: a sixth of these two quarters goes to distances alone, the
            # rest to times alone, so that distances find it in a third of the scenes and times in two thirds,
            # shared with another object of the clip (a third). That is why the levels film four clips: see
            # clips_per_level
            distance, timing = (False, True) if rest < 10 else (True, False)
        # the family, the kind, the answer's depth and whether pixels, distances and times mislead stay as drawn:
        # speeds and paths that do not fit are drawn again here, so a rejection never shifts the mix to easy ones
        for _ in range(LAYOUT_TRIES - 1):
            try:
                return self._layout(rng, level, k, family, kind, depth, shares, (mislead, distance, timing))
            except Reject:
                continue
        return self._layout(rng, level, k, family, kind, depth, shares, (mislead, distance, timing))

    def _layout(
        self,
        rng: np.random.Generator,
        level: int,
        k: dict[str, Any],
        family: str,
        kind: str,
        depth: int | None,
        shares: bool | None,
        misleads: tuple[bool | None, bool | None, bool | None],
    ) -> Scene:
        n, n_clips = k["n_objects"], k["n_clips"]
        fps = self.config.fps
        pairs = _swap_pairs(rng, n)
        # a ranking's swapped pair may put a hidden object beyond its shown neighbour: the ranks just outside each
        # pair leave room for it, a measured ratio clear of both (see _fits)
        room = self._plan_room**2 if kind == "order" and n_clips > 1 else 0.0
        outside = {r for i, _ in pairs for r in (i - 1, i + 1)}  # r: the gap between ranks r and r + 1
        chain = [float(rng.uniform(0.55, 0.85))]  # tiles per second, slowest first
        for g in range(n - 2, -1, -1):  # the gap between ranks g and g + 1, slowest first
            step = max(k["speed_ratio"], room if g in outside else 0.0) * float(rng.uniform(1.0, 1.1))
            chain.append(chain[-1] * step)
        rank = [int(i) for i in rng.permutation(n)]  # object i is the rank[i]-th fastest (0: the fastest)
        speeds = [chain[n - 1 - r] for r in rank]
        # which clip holds which object and how long each clip runs settle what distances and times alone pick, so
        # they are drawn until those pick as the scene asks, before the costly layout (3D: paths and cameras)
        for _ in range(CLIP_TRIES):
            if kind == "order" and n_clips > 1:
                clip_of_rank = _clips_for_pairs(rng, pairs, n, n_clips)
                clip_of = [clip_of_rank[r] for r in rank]
            else:
                order = [int(i) for i in rng.permutation(n)]
                clip_of = [0] * n
                for j, i in enumerate(order):
                    clip_of[i] = j if j < n_clips else int(rng.integers(n_clips))
            try:
                lasts = _durations(rng, speeds, clip_of, n_clips, fps, k["frames_per_clip"])
            except Reject:
                continue
            answer = rank.index(0 if kind == "fastest" else n - 1)
            if shares is not None and (clip_of.count(clip_of[answer]) > 1) != shares:
                continue
            if _clips_fit(kind, speeds, clip_of, lasts, pairs, misleads[1:], self.config.n_options):
                break
        else:
            raise Reject("no clips where distances and times pick as drawn")
        if family == "lanes":
            runners, clips, tile = self._lanes(rng, speeds, clip_of, lasts, k)
        else:
            runners, clips, tile = self._floor(rng, family, level, speeds, clip_of, lasts, k)
        if depth is not None and _depth_place(runners, clips[0], fps, self.image_size, kind) != depth:
            raise Reject("the answer does not stand at its drawn depth")
        runners = tuple(sorted(runners, key=lambda r: r.clip))
        scene = Scene(family, level, runners, clips, kind, fps, tile, pairs, *misleads)
        if kind != "order" and not self._distractor_sets(scene):
            raise Reject("no set of options needs every frame, with pixels, distances and times misleading as drawn")
        if kind == "order" and scene.mislead is not None:  # distances and times were settled with the clips
            share = _truth_share(self._rankings(scene), _pixel_rates(scene, self.image_size))
            if (share == 0) != scene.mislead:
                raise Reject("ranking by pixels per second does not " + ("miss" if scene.mislead else "find") + " it")
        return scene

    def _shortcuts(self, scene: Scene) -> list[_Shortcut]:
        """The shortcuts the scene is laid out against, as drawn."""
        covered, quick = _timing_cues(
            {r.name: r.speed for r in scene.runners},
            {r.name: r.clip for r in scene.runners},
            [plan.indices[-1] - plan.indices[0] for plan in scene.clips],
        )
        every = (
            _Shortcut("pixels per second", scene.mislead, lambda: _pixel_rates(scene, self.image_size), (0.0, 1.0)),
            _Shortcut("distances", scene.distance_misleads, covered.copy, (0.0, 1.0)),
            _Shortcut("times", scene.time_misleads, quick.copy, _times_right(len(scene.clips))),
        )
        return [cue for cue in every if cue.wrong is not None]

    def _indices(self, last: int, frames: int) -> tuple[int, ...]:
        return (0, last) if frames == 2 else (0, last // 2, last)

    def _lanes(self, rng, speeds, clip_of, lasts, k) -> tuple[list[Runner], tuple[ClipPlan, ...], float]:
        size, fps = self.image_size, self.config.fps
        tile = size / 8  # the ruler's tick spacing
        colors = track_colors(rng, len(speeds))
        shapes = [canvas2d.SHAPES_2D[int(i)] for i in rng.integers(len(canvas2d.SHAPES_2D), size=len(speeds))]
        runners, plans = [], []
        for c, last in enumerate(lasts):
            plans.append(ClipPlan(n_frames=last + 1, indices=self._indices(last, k["frames_per_clip"])))
            members = [i for i in range(len(speeds)) if clip_of[i] == c]
            lanes = np.linspace(60, size - 60, len(members)) if len(members) > 1 else [size / 2]
            for lane_k, i in zip(rng.permutation(len(members)), members, strict=True):
                radius = float(rng.uniform(11, 14))
                travel = speeds[i] * tile * last / fps
                lo, hi = MARGIN + radius, size - MARGIN - radius
                # the start is drawn over the whole lane and the direction is one that stays in the picture, so
                # where an object starts does not tell how fast it goes
                for _ in range(50):
                    x0 = float(rng.uniform(lo, hi))
                    signs = [sign for sign in (1.0, -1.0) if lo <= x0 + sign * travel <= hi]
                    if signs:
                        break
                else:
                    raise Reject("object would leave the frame")
                sign = signs[int(rng.integers(len(signs)))]
                flat = Flat(colors[i], shapes[i], radius, float(lanes[int(lane_k)]), x0, sign * speeds[i] * tile)
                runners.append(Runner(canvas2d.shape_name(colors[i], shapes[i]), c, speeds[i], flat=flat))
        return runners, tuple(plans), tile

    def _floor(self, rng, family, level, speeds, clip_of, lasts, k) -> tuple[list[Runner], tuple[ClipPlan, ...], float]:
        size, fps = self.image_size, self.config.fps
        setting = SETTINGS[family]
        look = clips3d.draw_look(rng, setting)
        shared = level != self.levels[0] and rng.random() < self.config.shared_kind_share
        picks = clips3d.pick_props(rng, setting, len(speeds), clips3d.floor_colors(look), shared_kind=shared)
        tile = setting.tile
        runners, plans = [], []
        for c, last in enumerate(lasts):
            shot = clips3d.shoot_from(rng, setting, pan=self.config.pan_per_level[self.levels.index(level)])
            indices = self._indices(last, k["frames_per_clip"])
            right, _ = clips3d.view_axes(shot.camera(0.0))
            # placed in a random order: the first placed get the middle, so an order by speed would put the slow
            # objects at the edges
            members = [i for i in (int(v) for v in rng.permutation(len(speeds))) if clip_of[i] == c]
            layout = clips3d.Layout(shot, [f / fps for f in indices], [f / fps for f in range(last + 1)], size)
            for i in members:
                name, kind, variant = picks[i]
                height = clips3d.height_of(rng, kind, variant)
                travel = speeds[i] * tile * last / fps
                # the start is drawn where the camera sees, then a heading that keeps the path in the picture,
                # so where an object starts does not tell how fast it goes
                for attempt in range(300):
                    if attempt % 6 == 0:
                        a = layout.spot(rng)
                    if k["n_clips"] == 1:  # level 1: across the picture, to the right or to the left
                        across = math.atan2(right[1], right[0]) + math.pi * int(rng.integers(2))
                        heading = across + math.radians(float(rng.uniform(-20, 20)))
                    else:
                        heading = float(rng.uniform(0, 2 * math.pi))
                    b = a + np.array([math.cos(heading), math.sin(heading)]) * travel
                    yaw = clips3d.nose_first(heading) if kind in clips3d.VEHICLES else clips3d.turned(rng, kind, right)
                    path = ((0.0, float(a[0]), float(a[1])), (last / fps, float(b[0]), float(b[1])))
                    prop = Prop(name, kind, variant, height, path, yaw)
                    if layout.add(prop):
                        runners.append(Runner(name, c, speeds[i], prop=prop))
                        break
                else:
                    raise Reject("no room for the objects' paths")
            # a panned clip gets still marks on the floor: the tiles are all alike, so without them a reader cannot
            # tell how far the view slid, and so how far an object really moved
            marks = clips3d.mark_floor(rng, layout, setting, clips3d.floor_colors(look)) if shot.moving else ()
            plans.append(ClipPlan(n_frames=last + 1, indices=indices, stage=Stage(setting, look, shot, marks)))
        return runners, tuple(plans), tile

    # -- question -------------------------------------------------------------------------------------------
    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        by_speed = [r.name for r in sorted(scene.runners, key=lambda r: -r.speed)]
        true_speeds = {r.name: r.speed for r in scene.runners}
        clip_of = {r.name: r.clip for r in scene.runners}
        need = self.requires_needed(scene.level) and len(scene.clips) > 1
        if scene.kind in ("fastest", "slowest"):
            correct = by_speed[0] if scene.kind == "fastest" else by_speed[-1]
            sets = self._distractor_sets(scene)
            if not sets:
                raise Reject("no set of options needs every frame")
            chosen = sets[int(rng.integers(len(sets)))]
            keys: list[Any] = place(correct, [chosen[int(i)] for i in rng.permutation(len(chosen))], slot)
            options = list(keys)
        else:
            # hiding a clip leaves the option that swaps a pair holding one of its objects
            truth, *distractors = self._rankings(scene)
            keys = place(truth, [distractors[int(i)] for i in rng.permutation(3)], slot)
            if need and not _every_clip_needed("order", keys, true_speeds, clip_of, self._plan_room):
                raise Reject("no set of rankings needs every frame")
            options = [" > ".join(order) for order in keys]
        text = " ".join([*self._intro(scene), _ask_text(scene)])
        facts = {
            "kind": scene.kind,
            "family": scene.family,
            "keys": [list(k) if isinstance(k, tuple) else k for k in keys],
            "times": self.times(scene),
        }
        return Question(text=text, options=options, answer=slot, facts=facts)

    def _distractor_sets(self, scene: Scene) -> list[list[str]]:
        """For fastest and slowest: the sets of other objects that, with the answer, need every frame (where the
        level requires it): hiding a frame of any clip leaves two options that could be right."""
        by_speed = [r.name for r in sorted(scene.runners, key=lambda r: -r.speed)]
        correct = by_speed[0] if scene.kind == "fastest" else by_speed[-1]
        speeds = {r.name: r.speed for r in scene.runners}
        clip_of = {r.name: r.clip for r in scene.runners}
        sets = _option_sets(scene.kind, correct, speeds, clip_of, self.config.n_options)
        for cue in self._shortcuts(scene):
            by = cue.values()
            sets = [s for s in sets if cue.holds(_pick_share(scene.kind, correct, s, by))]
        if not self.requires_needed(scene.level) or len(scene.clips) == 1:
            return sets
        return [s for s in sets if _every_clip_needed(scene.kind, [correct, *s], speeds, clip_of, self._plan_room)]

    def _rankings(self, scene: Scene) -> list[tuple[str, ...]]:
        return _swap_options(tuple(r.name for r in sorted(scene.runners, key=lambda r: -r.speed)), scene.pairs)

    def _intro(self, scene: Scene) -> list[str]:
        times = self.times(scene)
        lanes = scene.family == "lanes"
        if len(scene.clips) == 1:
            slots = ", ".join(["<image>"] * len(scene.clips[0].indices))
            stamps = ", ".join(f"{seconds(t)} s" for t in times[0])
            where = "" if lanes else f" of objects on a {SETTINGS[scene.family].noun}"
            intro = [f"The frames {slots} were extracted from one video{where} at t = {stamps}."]
        else:
            intro = []
            for c, plan in enumerate(scene.clips):
                slots = " and ".join(["<image>"] * len(plan.indices))
                stamps = " and ".join(f"{seconds(t)} s" for t in times[c])
                if c == 0:
                    intro.append(f"Clip 1 gives the frames {slots} at t = {stamps}.")
                else:
                    spot = "" if lanes else ", filmed from another spot,"
                    intro.append(f"Clip {c + 1}{spot} gives {slots} at t = {stamps}.")
        if lanes:
            intro.append(
                "Each object slides along its own horizontal lane at a constant speed."
                if len(scene.clips) == 1
                else "All clips were filmed by the same fixed camera at the same scale; each object slides along its "
                "own horizontal lane at a constant speed."
            )
        else:
            surface = SETTINGS[scene.family].noun
            if len(scene.clips) > 1:
                intro.append(f"Every clip shows the same {surface} and different objects.")
            intro.append("Each object moves in a straight line at a constant speed.")  # a toy car drives
            if any(p.stage is not None and p.stage.shot.moving for p in scene.clips):
                where = SETTINGS[scene.family].surface
                intro.append(f"The camera pans during each clip; the flat coloured marks on the {where} stay put.")
        return intro

    def times(self, scene: Scene) -> list[list[float]]:
        return [[i / scene.fps for i in plan.indices] for plan in scene.clips]

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        images: list[np.ndarray] = []
        tracks: dict[str, dict[str, Any]] = {}
        cameras: list[dict[str, Any] | None] = []
        for c, plan in enumerate(scene.clips):
            members = [r for r in scene.runners if r.clip == c]
            first = len(images)
            if plan.stage is None:
                frames, found = self._film_lanes(scene, plan, members, question.facts["times"][c])
                cams: list[dict[str, Any] | None] = [None] * len(frames)
                floors = {name: [list(b.centroid) for b in blobs] for name, blobs in found.items()}
            else:
                shots = clips3d.film(
                    self.shoot,
                    self.image_size,
                    [r.prop for r in members],
                    plan.stage,
                    plan.n_frames,
                    scene.fps,
                    plan.indices,
                )
                frames = [s.image for s in shots]
                cams = [s.calibration(self.image_size) for s in shots]
                found = {r.name: [s.blobs[j] for s in shots] for j, r in enumerate(members)}
                floors = {
                    r.name: [
                        list(p) for p in clips3d.on_floor(found[r.name], [s.camera for s in shots], self.image_size)
                    ]
                    for r in members
                }
            for r in members:
                blobs = found[r.name]
                tracks[r.name] = {
                    "clip": c,
                    "images": [first + j for j in range(len(blobs))],
                    "px": [[round(b.centroid[0], 2), round(b.centroid[1], 2)] for b in blobs],
                    "box": [b.box for b in blobs],
                    "floor": [[round(v, 4) for v in p] for p in floors[r.name]],
                }
            images.extend(frames)
            cameras.extend(cams)
        regions = [
            Region(img, name, box)
            for name, t in sorted(tracks.items(), key=lambda kv: kv[1]["images"][0])
            for img, box in zip(t["images"], t["box"], strict=True)
        ]
        measured = {"tracks": tracks, "cameras": cameras, "unit": "px" if scene.family == "lanes" else "m"}
        return Rendered(images=images, measured=measured, regions=regions, videos=self.videos())

    def _film_lanes(self, scene: Scene, plan: ClipPlan, members: list[Runner], times: list[float]):
        size = self.image_size
        base = _lane_floor(size, [r.flat.lane_y for r in members], scene.tile)
        n_clips = len(scene.clips)
        c = members[0].clip

        def draw(f: int) -> np.ndarray:
            img = base.copy()
            t = f / scene.fps
            for r in members:
                m = r.flat
                canvas2d.draw_shape(img, m.shape, (m.x0 + m.vx * t, m.lane_y), m.radius, m.color)
            canvas2d.timecode(img, f"clip {c + 1}  t = {t:.2f} s" if n_clips > 1 else f"t = {t:.2f} s")
            return img

        decoded = self.shoot(draw, plan.n_frames, plan.indices)
        ranges = [ColorRange.around(r.name, PALETTE[r.flat.color], 40) for r in members]
        track = track_frames(decoded, times, ranges, min_pixels=120)
        for blobs in track.blobs.values():
            if any(b is None for b in blobs):
                raise Reject("an object is not found in a decoded frame")
        return decoded, track.blobs

    def verify(self, question: Question, rendered: Rendered) -> int:
        speeds = _measured_speeds(question, rendered, frozenset())
        ranked = sorted(speeds, key=lambda n: -speeds[n])
        for a, b in zip(ranked, ranked[1:], strict=False):
            if speeds[a] < self.config.min_measured_ratio * speeds[b]:
                raise Reject("measured speeds too close")
        matches = [i for i, key in enumerate(question.facts["keys"]) if _fits(question.facts["kind"], key, speeds)]
        if len(matches) != 1:
            raise Reject("the measured answer is not exactly one option")
        return matches[0]

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        speeds = _measured_speeds(question, rendered, hidden)
        room = self.config.min_measured_ratio
        return {i for i, key in enumerate(question.facts["keys"]) if _fits(question.facts["kind"], key, speeds, room)}

    @property
    def _plan_room(self) -> float:
        """The ratio the plans leave between shown neighbours for each hidden object between them (true speeds)."""
        return self.config.min_measured_ratio * PLAN_MARGIN

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        tracks = rendered.measured["tracks"]
        times = question.facts["times"]
        lanes = scene.family == "lanes"
        # a lane's x is read off the picture exactly; an object on a floor is placed as a person counts the tiles
        # under it, where it stands (the verifier's centroids carried to the floor lean a few percent with an
        # object's shape: a toy car's 1.08 tiles measured 1.00)
        speeds = _measured_speeds(question, rendered, frozenset()) if lanes else {}
        objs = []
        for r in scene.runners:
            t = tracks[r.name]
            ts = times[t["clip"]]
            px = np.asarray(t["px"], float)
            # the distance and the rate as the steps give them: the lanes' x subtracted as written, the tiles to a
            # tenth, so a reader who redoes the arithmetic gets the same numbers
            if lanes:
                dist = float(abs(round(px[-1][0]) - round(px[0][0])))
            else:
                ends = [np.asarray(r.prop.at(ts[0])), np.asarray(r.prop.at(ts[-1]))]
                dist = round(float(np.linalg.norm(ends[1] - ends[0])) / scene.tile, 1) * scene.tile
                speeds[r.name] = r.speed * scene.tile
            rate = dist / (ts[-1] - ts[0])
            written = _written_rate(rate, scene.tile, lanes)
            stage = scene.clips[t["clip"]].stage
            # a panned clip's tiles are counted from a still mark: the steps name the one nearest the object's path
            mark = None
            if stage and stage.marks:
                middle = (ends[0] + ends[1]) / 2
                mark = min(stage.marks, key=lambda m: math.dist(m.position, middle))
            objs.append(
                {
                    "name": r.name,
                    "clip": t["clip"] + 1,
                    "frames": [
                        {
                            "image": img + 1,
                            "time": seconds(tt),
                            "x": round(p[0]),
                            "box": box,
                            "where": where_in_frame(p, self.image_size, lanes),
                        }
                        for img, tt, p, box in zip(t["images"], ts, t["px"], t["box"], strict=True)
                    ],
                    "pixels": round(float(np.linalg.norm(px[-1] - px[0]))),
                    "tiles": f"{dist / scene.tile:.1f}",
                    "distance": _length(dist, lanes),
                    "duration": seconds(ts[-1] - ts[0]),
                    "speed": speeds[r.name],
                    "rate": _rate(rate, scene.tile, "" if lanes else SETTINGS[scene.family].tile_word),
                    "written": written,
                    # from the written tiles per second, so the two agree for a reader who multiplies by the tile
                    "metric": "" if lanes else f"{_length(written * scene.tile, False)}/s",
                    "pixel_rate": float(np.linalg.norm(px[-1] - px[0])) / (ts[-1] - ts[0]),
                    "direction": "right" if px[-1][0] > px[0][0] else "left",
                    "mark": mark.name if mark else None,
                }
            )
        ranked = sorted(objs, key=lambda o: -o["speed"])
        by_pixels = sorted(objs, key=lambda o: -o["pixel_rate"])
        frames = []
        for img in range(len(rendered.images)):
            here = [o for o in objs if any(f["image"] == img + 1 for f in o["frames"])]
            fr = [next(f for f in o["frames"] if f["image"] == img + 1) for o in here]
            stage = scene.clips[here[0]["clip"] - 1].stage
            frames.append(
                {
                    "image": img + 1,
                    "clip": here[0]["clip"],
                    "marks": [m.name for m in stage.marks] if stage else [],
                    "time": fr[0]["time"],
                    "objects": [
                        {"name": o["name"], "x": f["x"], "where": f["where"], "box": f["box"]}
                        for o, f in zip(here, fr, strict=True)
                    ],
                }
            )
        top, second = ranked[0], ranked[1]
        low, next_low = ranked[-1], ranked[-2]
        return {
            "kind": scene.kind,
            "lanes": lanes,
            "surface": "" if lanes else SETTINGS[scene.family].surface,
            "tile_word": "" if lanes else SETTINGS[scene.family].tile_word,
            "tile": _length(scene.tile, lanes),
            "n_clips": len(scene.clips),
            "pan": any(p.stage is not None and p.stage.shot.moving for p in scene.clips),
            "objects": objs,
            "ranked": ranked,
            "frames": frames,
            "pixels_mislead": not lanes and [o["name"] for o in by_pixels] != [o["name"] for o in ranked],
            "ratio_top": _ratio(top, second),
            "clearly_top": top["speed"] >= CLEAR_RATIO * second["speed"],
            "ratio_low": _ratio(next_low, low),
            "clearly_low": next_low["speed"] >= CLEAR_RATIO * low["speed"],
        }


# -- helpers ------------------------------------------------------------------------------------------------------
def _depth_place(runners: list[Runner], plan: ClipPlan, fps: int, size: int, kind: str) -> int:
    """Where the answer (the fastest or the slowest) stands in depth among the objects of a one-clip scene: how many
    stand higher in the picture (by the bottom of their box, over the shown frames); 0 is the farthest."""
    shown = [f / fps for f in plan.indices]
    layout = clips3d.Layout(plan.stage.shot, shown, shown, size)
    bottom = {r.name: np.mean([layout.box(r.prop, j)[3] for j in range(len(shown))]) for r in runners}
    answer = (max if kind == "fastest" else min)(runners, key=lambda r: r.speed).name
    return sum(b < bottom[answer] for b in bottom.values())


def _pixel_rates(scene: Scene, size: int) -> dict[str, float]:
    """Each object's speed in pixels per second between the first and the last shown frame of its clip, as the
    camera projects its box's centre (the lanes: its speed along the lane): what a reader who ignores depth sees."""
    rates: dict[str, float] = {}
    for c, plan in enumerate(scene.clips):
        shown = [f / scene.fps for f in plan.indices]
        layout = clips3d.Layout(plan.stage.shot, shown, shown, size) if plan.stage is not None else None
        for r in (r for r in scene.runners if r.clip == c):
            if layout is None:
                rates[r.name] = abs(r.flat.vx)
                continue
            (a0, b0, a1, b1), (c0, d0, c1, d1) = layout.box(r.prop, 0), layout.box(r.prop, len(shown) - 1)
            rates[r.name] = math.hypot((c0 + c1 - a0 - a1) / 2, (d0 + d1 - b0 - b1) / 2) / (shown[-1] - shown[0])
    return rates


def _timing_cues(
    speeds: dict[str, float], clip_of: dict[str, int], spans: Sequence[int]
) -> tuple[dict[str, float], dict[str, float]]:
    """What two readers who each read half of a speed rank the objects by (higher: faster), from the frames between
    each clip's first and last shown frame (``spans``): the distance covered, never reading a time, and how short
    the clip ran, never measuring a distance (the objects of one clip tie)."""
    covered = {n: v * spans[clip_of[n]] for n, v in speeds.items()}
    quick = {n: 1.0 / spans[clip_of[n]] for n in speeds}
    return covered, quick


def _times_right(n_clips: int) -> tuple[float, float]:
    """Where the shortest (longest) clip holds the fastest (slowest) option, the least and most chance that a reader
    who picks by how short the clip ran picks it. With three or four clips times are right in a quarter of the
    scenes, as distances are, and the answer is the one option of its clip: a quarter in all. (Asked to share its
    clip, the answer's clip was the one with the most options in 63% of level 3's questions, a reader of times
    alone took it in 12% and one who avoided the shortest clip in 29%.) With two, where times are right in two
    thirds of the scenes, another option shares it."""
    return (1.0, 1.0) if n_clips > 2 else (0.0, 0.5)


def _pick_share(kind: str, correct: str, others: Sequence[str], values: dict[str, float]) -> float:
    """The chance that a reader who picks the fastest (or slowest) option by ``values`` picks ``correct``: the
    options tied best share it (the objects of one clip tie on time)."""
    sign = 1.0 if kind == "fastest" else -1.0
    scores = [sign * values[n] for n in (correct, *others)]
    return 1 / scores.count(scores[0]) if scores[0] == max(scores) else 0.0


def _truth_share(rankings: Sequence[tuple[str, ...]], values: dict[str, float]) -> float:
    """The chance that a reader who takes a ranking nearest the order by ``values`` (fewest pairs the other way
    round) takes the first, the truth."""
    flips = [_reversed_pairs(order, values) for order in rankings]
    return 1 / flips.count(flips[0]) if flips[0] == min(flips) else 0.0


def _clips_fit(
    kind: str,
    speeds: list[float],
    clip_of: list[int],
    lasts: list[int],
    pairs: tuple[tuple[int, int], ...],
    misleads: tuple[bool | None, bool | None],
    n_options: int,
) -> bool:
    """Whether, with these clips, ranking by the distance covered and by how short the clip ran can pick (or miss)
    the answer as ``misleads`` (distances, times) asks, for some set of options: neither depends on the layout
    that follows. Objects are named by their index here."""
    names = [str(i) for i in range(len(speeds))]
    covered, quick = _timing_cues(dict(zip(names, speeds, strict=True)), dict(zip(names, clip_of, strict=True)), lasts)
    cues = [
        _Shortcut(what, wrong, values.copy, right)
        for what, wrong, values, right in (
            ("distances", misleads[0], covered, (0.0, 1.0)),
            ("times", misleads[1], quick, _times_right(len(lasts))),
        )
        if wrong is not None
    ]
    truth = tuple(sorted(names, key=lambda n: -speeds[int(n)]))
    if kind == "order":  # times tie only the pairs within a clip here: no cap on their share
        rankings = _swap_options(truth, pairs)
        return all((_truth_share(rankings, cue.values()) == 0) == cue.wrong for cue in cues)
    correct = truth[0] if kind == "fastest" else truth[-1]
    return any(
        all(cue.holds(_pick_share(kind, correct, chosen, cue.values())) for cue in cues)
        for chosen in _option_sets(
            kind, correct, dict(zip(names, speeds, strict=True)), dict(zip(names, clip_of, strict=True)), n_options
        )
    )


def _option_sets(
    kind: str, correct: str, speeds: dict[str, float], clip_of: dict[str, int], n_options: int
) -> list[list[str]]:
    """For fastest and slowest: the sets of other objects that may stand beside the answer as options. Where there
    are as many clips as options, each option is the fastest (slowest) object of its clip, so a reader who compares
    the objects within each clip, and nothing across clips, is left with every option."""
    others = sorted((n for n in speeds if n != correct), key=lambda n: -speeds[n])
    sets = [list(s) for s in combinations(others, n_options - 1)]
    if len(set(clip_of.values())) < n_options:
        return sets
    sign = 1.0 if kind == "fastest" else -1.0
    best = {c: max((n for n in speeds if clip_of[n] == c), key=lambda n: sign * speeds[n]) for c in clip_of.values()}
    return [s for s in sets if all(best[clip_of[n]] == n for n in s)]


def _reversed_pairs(order: tuple[str, ...], values: dict[str, float]) -> int:
    """How many pairs of ``order`` (fastest first) stand the other way round by ``values``; ties count for neither."""
    return sum(values[a] < values[b] for i, a in enumerate(order) for b in order[i + 1 :])


def _swap_pairs(rng: np.random.Generator, n: int) -> tuple[tuple[int, int], ...]:
    """Two disjoint pairs of neighbouring ranks, e.g. ((0, 1), (2, 3))."""
    choices = [((i, i + 1), (j, j + 1)) for i in range(n - 1) for j in range(i + 2, n - 1)]
    return choices[int(rng.integers(len(choices)))]


def _clips_for_pairs(rng: np.random.Generator, pairs, n: int, n_clips: int) -> list[int]:
    """The clip of each rank such that swapping one pair (or both) moves only the objects of one clip relative to
    the others, for every clip: with two clips one object of each pair goes to its own clip; with three, one of
    each pair to a shared clip and the other two to one clip each; with four, each of the four to its own clip."""
    (a0, a1), (b0, b1) = [tuple(int(v) for v in rng.permutation(list(p))) for p in pairs]
    labels = [int(v) for v in rng.permutation(n_clips)]
    clip_of = [int(rng.integers(n_clips)) for _ in range(n)]
    if n_clips == 2:
        clip_of[a0], clip_of[b0] = labels[0], labels[1]
    elif n_clips >= 4:
        clip_of[a0], clip_of[a1], clip_of[b0], clip_of[b1] = labels[:4]
    else:
        clip_of[a0], clip_of[b0] = labels[2], labels[2]
        clip_of[a1], clip_of[b1] = labels[0], labels[1]
    return clip_of


def _swap_options(truth: tuple[str, ...], pairs: tuple[tuple[int, int], ...]) -> list[tuple[str, ...]]:
    """A ranking question's options, truth first: the true order with the first pair swapped, the second, or both,
    so each is the others with the same swaps and none sits in the middle of the rest."""
    return [truth, *(_swapped(truth, pair) for pair in (pairs[:1], pairs[1:], pairs))]


def _swapped(order: tuple[str, ...], pairs) -> tuple[str, ...]:
    items = list(order)
    for i, j in pairs:
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def _durations(rng, speeds, clip_of, n_clips, fps, frames) -> list[int]:
    """The last frame index of each clip: every object there covers ``TRAVEL`` tiles, and the clips of one scene
    last different times (so pixels per frame are not comparable between clips)."""
    lasts: list[int] = []
    for c in range(n_clips):
        members = [speeds[i] for i in range(len(speeds)) if clip_of[i] == c]
        lo = max(2 if frames == 2 else 4, math.ceil(TRAVEL[0] * fps / min(members)))
        hi = min(MAX_FRAMES - 1, math.floor(TRAVEL[1] * fps / max(members)))
        choices = [v for v in range(lo, hi + 1) if v not in lasts and (frames == 2 or v % 2 == 0)]
        if not choices:
            raise Reject("the speeds of one clip are too far apart to film")
        lasts.append(choices[int(rng.integers(len(choices)))])
    return lasts


def _ask_text(scene: Scene) -> str:
    over = "" if scene.family == "lanes" else f" over the {SETTINGS[scene.family].surface}"
    if scene.kind == "order":
        return f"Which ranking lists the objects from fastest to slowest{over}?"
    return f"Which object moves {scene.kind}{over}?"


def _fit_speed(times: list[float], points: list[list[float]]) -> float:
    t = np.asarray(times, float)
    p = np.asarray(points, float)
    tc = t - t.mean()
    v = (tc[:, None] * p).sum(axis=0) / float((tc**2).sum())
    return float(np.hypot(*v))


def _measured_speeds(question: Question, rendered: Rendered, hidden: frozenset[int]) -> dict[str, float | None]:
    """Each object's speed (units per second) from the frames not ``hidden``; None where fewer than two are left."""
    times = question.facts["times"]
    out: dict[str, float | None] = {}
    for name, t in sorted(rendered.measured["tracks"].items()):
        keep = [j for j, img in enumerate(t["images"]) if img not in hidden]
        ts = times[t["clip"]]
        out[name] = _fit_speed([ts[j] for j in keep], [t["floor"][j] for j in keep]) if len(keep) >= 2 else None
    return out


def _fits(kind: str, key: Any, speeds: dict[str, float | None], room: float = 1.0) -> bool:
    """Whether the option ``key`` can be right when the speeds that are None could be anything the verifier takes:
    in a ranking, h of them between two shown neighbours need those two ``room`` ** (h + 1) apart, every measured
    speed being ``room`` above the next (else no world the verifier takes makes the ranking right; at level 3,
    whose true speeds stand 1.25 to 1.375 apart, most order questions let a reader who knows that rule out the
    swap without the hidden clip: 60 of 81, seed 90201)."""
    known = {n: v for n, v in speeds.items() if v is not None}
    if kind == "order":
        seen = [n for n in key if speeds[n] is not None]
        # fastest first: minus the log speeds rise, and a ratio of room ** (h + 1) is a gap of (h + 1) * log(room)
        falling = [None if n not in known else -math.log(known[n]) for n in key]
        return seen == sorted(seen, key=lambda n: -known[n]) and room_for_hidden(falling, math.log(room))
    v = speeds[key]
    if v is None or not known:
        return True
    return v >= max(known.values()) if kind == "fastest" else v <= min(known.values())


def _every_clip_needed(
    kind: str, keys: list[Any], speeds: dict[str, float], clip_of: dict[str, int], room: float
) -> bool:
    """With the true speeds: hiding a frame of any clip (its objects' speeds unknown) leaves two options that fit,
    each hidden object ``room`` clear of its shown neighbours (``_fits``)."""
    for c in sorted(set(clip_of.values())):
        known: dict[str, float | None] = {n: (None if clip_of[n] == c else v) for n, v in speeds.items()}
        if sum(_fits(kind, key, known, room) for key in keys) < 2:
            return False
    return True


def _length(value: float, lanes: bool) -> str:
    """A distance as the text gives it: whole pixels, or metres to two significant figures (what tiles counted
    to a tenth support)."""
    if lanes:
        return f"{value:.0f} px"
    cm = float(f"{value * 100:.2g}")
    return f"{cm:.0f} cm" if cm < 100 else f"{cm / 100:.1f} m"


def _rate(speed: float, tile: float, tile_word: str) -> str:
    written = _written_rate(speed, tile, not tile_word)
    return f"{written:.1f} {tile_word}s/s" if tile_word else f"{written:.0f} px/s"


def _written_rate(speed: float, tile: float, lanes: bool) -> float:
    """The rate as the steps write it: tiles per second to a tenth, or (the lanes) whole pixels per second. Half a
    tenth rounds up, as a reader rounds (2.7 tiles in 1.20 s: 2.25, written 2.3), whatever the float noise of the
    division (it gave 2.2499999... and 2.2)."""
    return round(speed) if lanes else round(speed / tile + 1e-9, 1)


def _ratio(faster: dict[str, Any], slower: dict[str, Any]) -> str:
    """How many times as fast, from the rates as the steps write them (1.9 and 1.4 tiles/s: 1.4 times), so a
    reader who divides the written numbers gets the written ratio."""
    return f"{faster['written'] / slower['written']:.1f}"


def _lane_floor(size: int, lanes: list[float], tick: float) -> np.ndarray:
    img = canvas2d.floor(size)
    gap = (lanes[1] - lanes[0]) if len(lanes) > 1 else 90.0
    for y in [lanes[0] - gap / 2, *(y + gap / 2 for y in lanes)]:
        yy = int(round(y))
        if 0 <= yy < size:
            img[yy : yy + 2, :] = canvas2d.LINE
    for x in np.arange(MARGIN, size, tick):  # a ruler of tick marks along the top and bottom
        xx = int(round(x))
        img[:8, xx : xx + 2] = canvas2d.LINE
        img[size - 8 :, xx : xx + 2] = canvas2d.LINE
    return img
