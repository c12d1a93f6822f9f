"""motion_detection: which object moved, in which direction, along which path, or in which order were the
frames taken?

Families (config ``families``):

- ``flat``: flat shapes on a gridded floor, filmed top-down; directions are those of the picture (up, left, ...).
- ``tabletop`` and ``floor``: everyday objects of the catalogue on a tiled tabletop or a tiled floor, filmed in
  perspective (rendered through ``render.gl``); directions are the camera's (to the left, away from the camera,
  ...). At level 3 the camera pans during the clip, so the still objects shift in the picture too and motion has
  to be judged against the tiles (the flat floor slides likewise). Order questions are never panned: a steady pan
  would order the frames by any still object. In a panned which-statement question the wrong direction is the one
  the still objects slide in, what a reader who judges motion against the frame would pick.

One object slides while the others stay still. The scene is filmed to an mp4 and the question's frames are pulled
back out of the file. Questions:

- ``which``: which object moved between two frames?
- ``direction``: in which direction did the named object move (4 directions at level 1, 8 above)?
- ``which_direction``: which statement (object and direction) is true? The options are two objects crossed with
  two directions, so no object or direction is named more often than another.
- ``order``: the frames are shown shuffled; the text says where the named object is heading; which order is
  chronological? The distractors are drawn so that hiding any frame leaves a second order that fits. The text
  promises neither an even pace nor frames even in time, and neither holds (``_order_gaps``): with both, the
  spacing of three frames placed the fourth.
- ``path``: the named object turned once, at the middle frame; which two directions did it take? The options are
  two first legs crossed with two second legs.

Every frame is needed: with two frames either one alone shows no motion; a shuffled frame left out could sit in
more than one place; for a path, the first and the last frame each decide one leg, and the middle one where the
object turned. The verifier measures every object in every decoded frame (3D: carried to the floor through the
camera of each frame) and re-derives the answer from those positions: exactly one object moved by more than
``min_move`` tiles and every other by less than ``still`` tiles, its direction within ``angle_margin`` degrees of
a compass direction, shuffled frames at least ``min_move`` apart along the motion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import permutation_distractors
from mirforge.generators.sequential import clips3d
from mirforge.generators.sequential.clips import (
    ClipConfig,
    Filming,
    image_list,
    room_for_hidden,
    seconds,
    track_colors,
    where_in_frame,
)
from mirforge.generators.sequential.clips3d import SETTINGS, Prop, Stage
from mirforge.render import canvas2d
from mirforge.render.scene3d import PALETTE
from mirforge.render.video import DIRECTIONS, ColorRange, track_frames
from mirforge.task import Needs, Question, Region, Rendered, Task, check_families, ensure, per_level, place

FAMILIES = ("flat", "tabletop", "floor")
KINDS = ("which", "direction", "which_direction", "order", "path")
EDGE = 20  # flat: keep shapes this far from the image border
PHRASE_FLAT = {
    "right": "to the right",
    "up-right": "up and to the right",
    "up": "up",
    "up-left": "up and to the left",
    "left": "to the left",
    "down-left": "down and to the left",
    "down": "down",
    "down-right": "down and to the right",
}
PHRASE_3D = {
    "right": "to the right",
    "up-right": "away from the camera and to the right",
    "up": "away from the camera",
    "up-left": "away from the camera and to the left",
    "left": "to the left",
    "down-left": "towards the camera and to the left",
    "down": "towards the camera",
    "down-right": "towards the camera and to the right",
}
ORDER_STEP = 0.5  # tiles at least between consecutive shuffled frames (the verifier asks for min_move)
# tiles at most between them (drawn uniformly between the two); a longer path leaves the flat family's objects too
# little room to stand clear of it (at 0.55 to 0.9, four order layouts in 24 failed every try)
ORDER_GAP_MAX = 0.8
PLAN_ROOM = 0.1  # tiles a planned gap clears what the verifier measures by (the 3D measuring error: 0.14 at most)
LAYOUT_TRIES = 30  # layouts drawn for one scene before the attempt is rejected
# A three-leg path's signature: whether its first and its last turn are sharper (+1) or gentler (-1) than those of
# the option that changes both legs. A changed leg must add up with the middle one to what the hidden frame's
# neighbours show, which a gentler turn does only where the path hugs the middle leg, so unthinned plans favour a
# gentler answer (counted below: the default config, seed 21, 1,800 indices), and a text classifier of the options
# alone read 40% of level-3 paths (seed 90411). Each plan is kept with the least common signature's count over its
# own: every signature is as likely.
PATH_PLANS = {(-1, -1): 92, (-1, 1): 43, (1, -1): 44, (1, 1): 20}
PATH_KEEP = {signature: min(PATH_PLANS.values()) / n for signature, n in PATH_PLANS.items()}
PAN_SPEED = (0.4, 0.6)  # tiles per second the camera pans, at the levels where it does


@dataclass
class MotionDetectionConfig(ClipConfig):
    fps: int = 5
    families: tuple[str, ...] = FAMILIES
    family: str = ""  # one family only (the same as families=<name>)
    objects_per_level: tuple[int, ...] = per_level(4, 5, 5)
    directions_per_level: tuple[int, ...] = per_level(4, 8, 8)
    order_frames_per_level: tuple[int, ...] = per_level(3, 4, 4)
    path_legs_per_level: tuple[int, ...] = per_level(2, 2, 3)  # a path's straight legs: frames are legs + 1
    pan_per_level: tuple[bool, ...] = per_level(False, False, True)  # the camera pans during the clip
    min_move: float = 0.35  # tiles: an object moved when it shifted at least this far over the floor
    still: float = 0.16  # tiles: an object stayed still when it shifted less than this (3D measuring error: 0.14)
    angle_margin: float = 12.0  # degrees a measured direction may leave its compass direction
    shared_kind_share: float = 0.3  # 3D families, from level 2: share of scenes with one kind twice, in two colours

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(
            all(max(2, self.n_options) <= n <= 7 for n in self.objects_per_level),
            "objects_per_level",
            f"each count must be between max(2, n_options={self.n_options}) and 7",
        )
        ensure(all(d in (4, 8) for d in self.directions_per_level), "directions_per_level", "each must be 4 or 8")
        ensure(
            all(m in (3, 4) for m in self.order_frames_per_level),
            "order_frames_per_level",
            "each must be 3 or 4 frames (with 4, swapping the first two and/or the last two gives four orders that "
            "each need every frame)",
        )
        ensure(all(n in (2, 3) for n in self.path_legs_per_level), "path_legs_per_level", "each must be 2 or 3")
        ensure(0 < self.still < self.min_move <= 0.6, "min_move", "must exceed still and be at most 0.6 tiles")
        ensure(0 < self.angle_margin < 22.5, "angle_margin", "must be between 0 and 22.5 degrees")
        ensure(0.0 <= self.shared_kind_share <= 1.0, "shared_kind_share", "must be between 0 and 1")

    @property
    def drawn_families(self) -> tuple[str, ...]:
        return (self.family,) if self.family else tuple(self.families)


@dataclass(frozen=True)
class Thing:
    """One object: where it is at each waypoint ``(t, x, y)`` (floor units: pixels for ``flat``, else metres)."""

    name: str
    path: tuple[tuple[float, float, float], ...]
    flat: tuple[str, str, float] | None = None  # (colour, shape, radius) of a flat shape
    prop: Prop | None = None


@dataclass(frozen=True)
class Scene:
    family: str
    level: int
    things: tuple[Thing, ...]
    mover: int
    legs: tuple[str, ...]  # the mover's compass direction per leg (two for a path)
    n_frames: int
    indices: tuple[int, ...]  # extracted frames, chronological
    shown: tuple[int, ...]  # image k shows chronological frame shown[k]
    kind: str
    sectors: int
    fps: int
    tile: float  # floor units per tile
    stage: Stage | None = None  # 3D families
    pan: tuple[float, float] = (0.0, 0.0)  # flat: picture shift per second (pixels, x right and y down)


class MotionDetection(Filming, Task):
    name = "motion_detection"
    category = "sequential"
    description = "Find which object moved between video frames, where to, along which path, or the frames' order"
    Config = MotionDetectionConfig
    needs = Needs(renderer="gl", cost=2.0)
    image_size = 320
    # the mover's first direction (of four at level 1: variant modulo four) and the question kind (of three or four
    # at a level: the variant's eighth modulo their count; 12 is a multiple of both), balanced over every block
    variants = len(DIRECTIONS) * 12

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        return {
            "n_objects": self.config.objects_per_level[i],
            "distance_tiles": [(1.2, 1.8), (0.9, 1.4), (0.7, 1.0)][min(i, 2)],
            "directions": self.config.directions_per_level[i],
            "order_frames": self.config.order_frames_per_level[i],
            "path_legs": self.config.path_legs_per_level[i],
            "kinds": [
                ["which", "direction", "order"],
                ["which", "which_direction", "order", "path"],
                ["which_direction", "order", "path"],
            ][min(i, 2)],
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        # camera_pan: whether the view moved in what was filmed (the level's pan_per_level, in each family)
        kinds = [t.prop.kind for t in scene.things if t.prop is not None]
        return {"family": scene.family, "shared_kind": len(kinds) != len(set(kinds)), "camera_pan": _pans(scene)}

    # -- scene ----------------------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)
        families = self.config.drawn_families
        family = families[int(rng.integers(len(families)))]
        v = int(rng.integers(self.variants)) if variant is None else variant
        # the kind and the first direction are the index's balanced variant: drawn at random, the kinds that lay
        # out less easily came out rarer (an order question's path is longer: 6 in 100 at level 2 against 23
        # planned), and 'away from the camera' three times as often as 'to the right' at level 1
        kind = k["kinds"][v // len(DIRECTIONS) % len(k["kinds"])]
        sectors = k["directions"]
        pool = list(DIRECTIONS) if sectors == 8 else list(DIRECTIONS[::2])
        first = pool[v % len(pool)]
        legs: tuple[str, ...] = (first,)
        if kind == "path":
            while len(legs) < k["path_legs"]:
                turns = [d for d in pool if _turn(legs[-1], d) in ((2,) if sectors == 4 else (1, 2, 3))]
                legs = (*legs, turns[int(rng.integers(len(turns)))])
        # the family, the kind and the directions stay as drawn: a layout that does not fit is drawn again here, so
        # a rejection never shifts the mix towards the kinds or directions that are easy to lay out
        for _ in range(LAYOUT_TRIES - 1):
            try:
                return self._layout(rng, level, k, family, kind, legs)
            except Reject:
                continue
        return self._layout(rng, level, k, family, kind, legs)

    def _layout(
        self, rng: np.random.Generator, level: int, k: dict[str, Any], family: str, kind: str, legs: tuple[str, ...]
    ) -> Scene:
        sectors = k["directions"]
        fps = self.config.fps
        if kind == "order":
            m = k["order_frames"]
            lengths = self._order_gaps(rng, m)
            directions = legs * (m - 1)  # one straight line, its pace changing from frame to frame
            indices = tuple(2 * j for j in range(m))
            shown = tuple(int(v) for v in rng.permutation(m))  # any order, chronological too (none never wins)
        else:
            lengths, directions = [float(rng.uniform(*k["distance_tiles"])) for _ in legs], legs
            if kind == "path":
                step = 2 if len(legs) > 2 else int(rng.integers(2, 4))
                indices = tuple(step * j for j in range(len(legs) + 1))
                shown = tuple(range(len(legs) + 1))
            else:
                indices, shown = (0, int(rng.integers(4, 7))), (0, 1)
        # waypoints of the mover in tiles, in the camera's frame (x: right, y: away / up the picture)
        t_end = indices[-1] / fps
        times = tuple(i / fps for i in indices) if kind in ("path", "order") else (0.0, t_end)
        offsets = [np.zeros(2)]
        for d, length in zip(directions, lengths, strict=True):
            offsets.append(offsets[-1] + np.array(_unit(d)) * length)
        args = (rng, level, k, kind, legs, offsets, times, indices, fps)
        if family == "flat":
            things, mover, stage, tile, pan = self._flat(*args)
        else:
            things, mover, stage, tile, pan = self._floor(family, *args)
        scene = Scene(
            family,
            level,
            tuple(things),
            mover,
            legs,
            indices[-1] + 1,
            indices,
            shown,
            kind,
            sectors,
            fps,
            tile,
            stage,
            pan,
        )
        if kind == "path" and not self._path_choices(scene):
            raise Reject("no set of paths needs every frame")
        return scene

    def _order_gaps(self, rng: np.random.Generator, m: int) -> list[float]:
        """Tiles the mover covers between consecutive frames of an order question, drawn apart, so that the frames'
        spacing does not place a frame left out (at an even pace between frames even in time, three frames placed
        the fourth, and no frame was needed: 75 of 75 questions, seed 90201). With four frames the middle gap holds
        a frame ``min_move`` from both sides: the orders that swap the first two or the last two frames put the
        first or the last frame there (``consistent``)."""
        room = 2 * self.config.min_move + PLAN_ROOM
        gaps = [float(rng.uniform(ORDER_STEP, ORDER_GAP_MAX)) for _ in range(m - 1)]
        if m == 4:
            gaps[1] = float(rng.uniform(room, room + PLAN_ROOM))  # the shortest that holds a frame, give or take
        return gaps

    def _flat(self, rng, level, k, kind, legs, offsets, times, indices, fps):
        size = self.image_size
        tile = size / 8  # the floor's grid spacing
        n = k["n_objects"]
        colors = track_colors(rng, n)
        shapes = [canvas2d.SHAPES_2D[int(i)] for i in rng.integers(len(canvas2d.SHAPES_2D), size=n)]
        radii = [float(rng.uniform(11, 15)) for _ in range(n)]
        pan = (0.0, 0.0)
        if self._pans(level, kind):
            angle = float(rng.uniform(0, 2 * math.pi))
            speed = float(rng.uniform(*PAN_SPEED)) * tile
            pan = (speed * math.cos(angle), speed * math.sin(angle))
        span = np.array(pan) * times[-1]
        # picture offsets of the mover's waypoints: tiles (x right, y up) to pixels (x right, y down)
        pts = [np.array([o[0], -o[1]]) * tile for o in offsets]
        # every object, the mover and the still ones alike, starts where a disc as wide as the mover's path fits in
        # the picture, at the start and at the end of the pan: where an object stands does not tell whether or
        # where it moves
        reach = max(float(np.linalg.norm(p)) for p in pts) + max(radii)
        lo = EDGE + reach + np.maximum(0.0, -span)
        hi = size - EDGE - reach - np.maximum(0.0, span) - np.array([0.0, 14.0])  # the time code sits at the bottom
        if (hi <= lo).any():
            raise Reject("the mover's path does not fit in the picture")
        # every object keeps a corridor shaped like the mover's path clear: the mover's own path, the others' turned
        # by a random angle; the mover is placed at a random turn, so neither room nor order singles it out
        mover = int(rng.integers(n))
        corridors: list[list[np.ndarray]] = []
        for i in range(n):
            for _ in range(200):
                p = rng.uniform(lo, hi)
                turn = np.eye(2) if i == mover else _rotation(float(rng.uniform(0, 2 * math.pi)))
                corridor = [p + turn @ q for q in pts]
                if _clear(corridor, corridors, 2 * max(radii) + 10):
                    corridors.append(corridor)
                    break
            else:
                raise Reject("no room for the objects")
        things = []
        for i, corridor in enumerate(corridors):
            stops = corridor if i == mover else corridor[:1]
            waypoints = tuple((t, float(p[0]), float(p[1])) for t, p in zip(times, stops, strict=False))
            name = canvas2d.shape_name(colors[i], shapes[i])
            things.append(Thing(name, waypoints, flat=(colors[i], shapes[i], radii[i])))
        return things, mover, None, tile, pan

    def _floor(self, family, rng, level, k, kind, legs, offsets, times, indices, fps):
        size = self.image_size
        setting = SETTINGS[family]
        tile = setting.tile
        n = k["n_objects"]
        look = clips3d.draw_look(rng, setting)
        shared = level != self.levels[0] and rng.random() < self.config.shared_kind_share
        picks = clips3d.pick_props(rng, setting, n, clips3d.floor_colors(look), shared_kind=shared)
        shot = clips3d.shoot_from(rng, setting, pan=self._pans(level, kind), pan_speed=PAN_SPEED)
        stage = Stage(setting, look, shot)
        right, away = clips3d.view_axes(shot.camera(0.0))
        shown = [f / fps for f in indices]
        layout = clips3d.Layout(shot, shown, [f / fps for f in range(indices[-1] + 1)], size)
        world = [o[0] * right + o[1] * away for o in offsets]  # tiles, on the floor
        # every object starts where a disc as wide as the mover's path is in view, and keeps a corridor shaped like
        # that path clear (the mover's own path, the others' turned by a random angle: each is placed as if it
        # moved along it, then stands at its start); the mover is placed at a random turn. So neither where an
        # object stands, nor the room around it, tells whether or where it moves.
        reach = max(float(np.linalg.norm(w)) for w in world) * tile
        mover = int(rng.integers(n))
        props: list[Prop] = []
        corridors: list[list[np.ndarray]] = []
        radius = max(
            Prop(n_, k_, v_, clips3d.height_of(rng, k_, v_), ((0.0, 0.0, 0.0),)).radius for n_, k_, v_ in picks
        )
        for i, (name, kind_, variant) in enumerate(picks):
            height = clips3d.height_of(rng, kind_, variant)
            for _ in range(150):
                start = layout.spot(rng)
                if not layout.sees_disc(start, reach):
                    continue
                turn = np.eye(2) if i == mover else _rotation(float(rng.uniform(0, 2 * math.pi)))
                corridor = [start + turn @ w * tile for w in world]
                if not _clear(corridor, corridors, 2.3 * radius):
                    continue
                waypoints = tuple((t, float(q[0]), float(q[1])) for t, q in zip(times, corridor, strict=True))
                first = world[1] - world[0]
                if i == mover and kind_ in clips3d.VEHICLES and len(legs) == 1:
                    yaw = clips3d.nose_first(math.atan2(first[1], first[0]))
                else:
                    yaw = clips3d.turned(rng, kind_, right)
                ghost = Prop(name, kind_, variant, height, waypoints, yaw)  # as if it moved along its corridor
                prop = ghost if i == mover else Prop(name, kind_, variant, height, waypoints[:1], yaw)
                if layout.sees(ghost) and layout.add(prop):
                    props.append(prop)
                    corridors.append(corridor)
                    break
            else:
                raise Reject("no room for the objects")
        things = [Thing(p.name, p.path, prop=p) for p in props]
        return things, mover, stage, tile, (0.0, 0.0)

    def _pans(self, level: int, kind: str) -> bool:
        """Whether the view pans in a question of ``kind`` at ``level``: as the level says, but never in an order
        question, where a steady pan would order the frames by any still object (all slide one way as time goes)."""
        return self.config.pan_per_level[self.levels.index(level)] and kind != "order"

    # -- question -------------------------------------------------------------------------------------------
    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        names = [t.name for t in scene.things]
        mover = names[scene.mover]
        n_opt = self.config.n_options
        phrase = PHRASE_FLAT if scene.family == "flat" else PHRASE_3D
        pool = list(DIRECTIONS) if scene.sectors == 8 else list(DIRECTIONS[::2])
        facts: dict[str, Any] = {"kind": scene.kind, "sectors": scene.sectors, "names": names, "family": scene.family}
        times = [scene.indices[c] / scene.fps for c in scene.shown]
        facts["times"] = times
        intro = self._intro(scene, times)
        direction = scene.legs[0]
        if scene.kind == "which":
            others = [names[int(i)] for i in rng.permutation(len(names)) if int(i) != scene.mover][: n_opt - 1]
            keys: list[Any] = place(mover, others, slot)
            options = [f"The {k}" for k in keys]
            ask = "Which object moved between the two frames?"
        elif scene.kind == "direction":
            others = [d for d in (pool[int(i)] for i in rng.permutation(len(pool))) if d != direction]
            keys = place(direction, others[: n_opt - 1], slot)
            options = [phrase[d].capitalize() for d in keys]
            ask = f"Between them the {mover} moved while everything else stayed still. In which direction did it move?"
            facts["object"] = mover
        elif scene.kind == "which_direction":
            other = names[[int(i) for i in rng.permutation(len(names)) if int(i) != scene.mover][0]]
            turn = [d for d in pool if d != direction]
            wrong = turn[int(rng.integers(len(turn)))]
            drift = _still_drift(scene)
            if drift is not None and drift != direction:  # what a reader who forgets the pan sees the other do
                wrong = drift
            grid = [(who, d) for who, d in product((mover, other), (direction, wrong))]
            distractors = [g for g in grid if g != (mover, direction)]
            keys = place((mover, direction), [distractors[int(i)] for i in rng.permutation(3)], slot)
            options = [f"The {who} moved {phrase[d]}" for who, d in keys]
            ask = "Which statement describes what changed between the two frames?"
        elif scene.kind == "path":
            choices = self._path_choices(scene)
            if not choices:
                raise Reject("no set of paths needs every frame")
            first, last = choices[int(rng.integers(len(choices)))]
            if len(scene.legs) == 3 and rng.uniform() >= PATH_KEEP.get(_turn_signature(scene.legs, first, last), 1):
                raise Reject("the answer's turns are the gentler ones the plans favour (thinned)")
            changed = _changed_paths(scene.legs, first, last)
            keys = place(tuple(scene.legs), [changed[int(i)] for i in rng.permutation(3)], slot)
            options = [", then ".join(phrase[d] for d in key).capitalize() for key in keys]
            turns = (
                "once, at the moment of the second frame"
                if len(scene.legs) == 2
                else ("twice, at the moments of the second and the third frame")
            )
            ask = (
                f"The {mover} moved in straight lines and turned {turns}; everything else stayed still. Which "
                "describes its path?"
            )
            facts["object"] = mover
        else:
            m = len(scene.indices)
            chrono = tuple(1 + scene.shown.index(c) for c in range(m))
            if m == 4:
                # the true order with its first two frames swapped, its last two, or both: four orders each of which
                # is the others with the same swaps, so none sits in the middle of the rest, and a hidden frame
                # leaves the order that swaps it with its neighbour
                swaps = [((0, 1),), ((2, 3),), ((0, 1), (2, 3))]
                distractors = [_swapped(chrono, pairs) for pairs in swaps]
            else:
                distractors = permutation_distractors(rng, chrono, n_opt - 1, near=False)
            keys = place(chrono, [distractors[int(i)] for i in rng.permutation(len(distractors))], slot)
            options = [" -> ".join(f"Image {i}" for i in order) for order in keys]
            ask = (
                f"In the video the {mover} moves {phrase[direction]} in a straight line, at a changing pace and never "
                "turning back, while everything else stays still. "
                "Which order of the frames is chronological (earliest first)?"
            )
            facts["object"] = mover
            facts["direction"] = direction
        facts["keys"] = [list(k) if isinstance(k, tuple) else k for k in keys]
        return Question(text=f"{intro} {ask}", options=options, answer=slot, facts=facts)

    def _intro(self, scene: Scene, times: list[float]) -> str:
        n = len(scene.things)
        where = "a floor" if scene.family == "flat" else f"a {SETTINGS[scene.family].noun}"
        surface = "floor" if scene.family == "flat" else SETTINGS[scene.family].surface
        pan = (
            # what moved in the picture is not what moved: the statements are about the world
            f" The camera pans during the video, so an object moved only if it moved over the {surface}."
            if scene.pan != (0.0, 0.0) or (scene.stage and scene.stage.shot.moving)
            else ""
        )
        if scene.family == "flat" and scene.kind != "which":
            pan += " Up is towards the top of the picture."
        if scene.kind == "order":
            slots = ", ".join(["<image>"] * len(scene.indices))
            return (
                f"The frames {slots} were extracted from one video of {n} objects on {where} and are shown in a "
                f"random order.{pan}"
            )
        slots = ", ".join(["<image>"] * len(times[:-1])) + " and <image>"
        stamps = ", ".join(seconds(t) for t in times[:-1]) + f" and {seconds(times[-1])} s"
        return f"{slots} are frames of one video of {n} objects on {where}, taken at t = {stamps}.{pan}"

    def _path_choices(self, scene: Scene) -> list[tuple[str, str]]:
        """The (other first leg, other last leg) pairs for a path's options: the true legs with the first leg
        changed, the last one, or both, so each first and each last direction is named twice, and a middle leg
        (of three) is the same in every option. Hiding the first (last) frame leaves the option with the other
        first (last) leg; hiding a frame between two legs leaves only their sum, so where the level requires every
        frame, the changed leg must be able to add up to that sum with its neighbour too."""
        legs = scene.legs
        pool = list(DIRECTIONS) if scene.sectors == 8 else list(DIRECTIONS[::2])
        mover = scene.things[scene.mover]
        at = [_tiles(mover, scene, k) for k in range(len(legs) + 1)]
        need = self.requires_needed(scene.level)
        leg = self.config.min_move  # the measured legs may turn by angle_margin, which gives them room
        out = []
        for first, last in product(pool, pool):
            changed = _changed_paths(legs, first, last)
            if first == legs[0] or last == legs[-1]:
                continue
            if any(_turn(a, b) in (0, 4) for c in changed for a, b in zip(c, c[1:], strict=False)):
                continue
            # hiding frame 1 merges legs 1 and 2: the option with the other first leg must still add up; likewise
            # hiding the frame before the last leg, for the option with the other last leg
            head = _spans(at[2] - at[0], first, legs[1], leg)
            tail = _spans(at[-1] - at[-3], legs[-2], last, leg)
            if len(legs) == 2:  # one middle frame: any one of the three others adding up will do
                enough = head or tail or _spans(at[2] - at[0], first, last, leg)
            else:
                enough = head and tail
            if enough or not need:
                out.append((first, last))
        return out

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        size = self.image_size
        if scene.stage is None:
            frames, cams, blobs = self._film_flat(scene)
            floors = {
                t.name: [_flat_floor(b.centroid, c) for b, c in zip(blobs[t.name], cams, strict=True)]
                for t in scene.things
            }
            axes = {"right": [1.0, 0.0], "away": [0.0, 1.0]}
        else:
            shots = clips3d.film(
                self.shoot, size, [t.prop for t in scene.things], scene.stage, scene.n_frames, scene.fps, scene.indices
            )
            frames = [s.image for s in shots]
            cams = [s.calibration(size) for s in shots]
            blobs = {t.name: [s.blobs[i] for s in shots] for i, t in enumerate(scene.things)}
            floors = {
                t.name: [list(p) for p in clips3d.on_floor(blobs[t.name], [s.camera for s in shots], size)]
                for t in scene.things
            }
            right, away = clips3d.view_axes(shots[0].camera)
            axes = {"right": [round(float(v), 6) for v in right], "away": [round(float(v), 6) for v in away]}
        # frames are chronological here; images are shown in the order scene.shown
        images = [frames[c] for c in scene.shown]
        tracks = {}
        for t in scene.things:
            b = [blobs[t.name][c] for c in scene.shown]
            tracks[t.name] = {
                "px": [[round(x.centroid[0], 2), round(x.centroid[1], 2)] for x in b],
                "box": [x.box for x in b],
                "floor": [[round(float(v), 4) for v in floors[t.name][c]] for c in scene.shown],
            }
        regions = [Region(k, name, box) for name, tr in tracks.items() for k, box in enumerate(tr["box"])]
        measured = {
            "tracks": tracks,
            "cameras": [cams[c] for c in scene.shown],
            "axes": axes,
            "tile": scene.tile,
        }
        return Rendered(images=images, measured=measured, regions=regions, videos=self.videos())

    def _film_flat(self, scene: Scene):
        size = self.image_size

        def draw(f: int) -> np.ndarray:
            t = f / scene.fps
            ox, oy = scene.pan[0] * t, scene.pan[1] * t
            img = _grid_floor(size, round(scene.tile), ox, oy)
            for th in scene.things:
                x, y = _at(th.path, t)
                color, shape, radius = th.flat
                canvas2d.draw_shape(img, shape, (x + ox, y + oy), radius, color)
            canvas2d.timecode(img, f"t = {t:.2f} s" if scene.kind != "order" else "")
            return img

        decoded = self.shoot(draw, scene.n_frames, scene.indices)
        times = [i / scene.fps for i in scene.indices]
        ranges = [ColorRange.around(th.name, PALETTE[th.flat[0]], 40) for th in scene.things]
        track = track_frames(decoded, times, ranges, min_pixels=120)
        for b in track.blobs.values():
            if any(x is None for x in b):
                raise Reject("an object is not found in a decoded frame")
        cams = [{"offset": [round(scene.pan[0] * t, 3), round(scene.pan[1] * t, 3)], "size": size} for t in times]
        return decoded, cams, track.blobs

    def verify(self, question: Question, rendered: Rendered) -> int:
        want = self._measured_key(question, rendered)
        matches = [i for i, key in enumerate(question.facts["keys"]) if key == want]
        if len(matches) != 1:
            raise Reject("the measured answer is not exactly one option")
        return matches[0]

    def _measured_key(self, question: Question, rendered: Rendered) -> Any:
        facts = question.facts
        kind = facts["kind"]
        pos = _positions(rendered.measured)
        if kind == "order":
            progress = _progress(pos[facts["object"]], facts["direction"])
            chrono = sorted(range(len(progress)), key=lambda k: progress[k])
            gaps = [progress[b] - progress[a] for a, b in zip(chrono, chrono[1:], strict=False)]
            if min(gaps) < self.config.min_move:
                raise Reject("frames too close along the motion")
            return [k + 1 for k in chrono]
        moved = {n: float(np.linalg.norm(p[-1] - p[0])) for n, p in pos.items()}
        if kind == "path":
            mover = facts["object"]
            legs = [pos[mover][k + 1] - pos[mover][k] for k in range(len(pos[mover]) - 1)]
            others = [n for n in pos if n != mover]
            if any(moved[n] >= self.config.still for n in others):
                raise Reject("an object that should stay still moved")
            if min(float(np.linalg.norm(g)) for g in legs) < self.config.min_move:
                raise Reject("a leg of the path is too short to see")
            return [self._sector(g, facts["sectors"]) for g in legs]
        movers = [n for n, d in moved.items() if d >= self.config.min_move]
        unclear = [n for n, d in moved.items() if self.config.still <= d < self.config.min_move]
        if len(movers) != 1 or unclear:
            raise Reject(f"{len(movers)} objects clearly moved, {len(unclear)} unclear")
        mover = movers[0]
        direction = self._sector(pos[mover][-1] - pos[mover][0], facts["sectors"])
        if kind == "direction" and mover != facts["object"]:
            raise Reject("a different object moved")
        return {"which": mover, "direction": direction, "which_direction": [mover, direction]}[kind]

    def _sector(self, shift: np.ndarray, sectors: int) -> str:
        angle = math.degrees(math.atan2(shift[1], shift[0])) % 360
        width = 360 / sectors
        off = (angle + width / 2) % width - width / 2
        if abs(off) > self.config.angle_margin:
            raise Reject("measured direction between two compass directions")
        return _compass(angle, sectors)

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        keys = question.facts["keys"]
        kind = question.facts["kind"]
        if not hidden:
            return {self.verify(question, rendered)}
        if kind in ("which", "direction", "which_direction"):
            return set(range(len(keys)))  # one frame alone shows no change
        pos = _positions(rendered.measured)
        if kind == "order":
            progress = _progress(pos[question.facts["object"]], question.facts["direction"])
            seen = sorted((k for k in range(len(progress)) if k not in hidden), key=lambda k: progress[k])
            return {
                i
                for i, key in enumerate(keys)
                if [k - 1 for k in key if k - 1 not in hidden] == seen
                and room_for_hidden([None if k - 1 in hidden else progress[k - 1] for k in key], self.config.min_move)
            }
        p = pos[question.facts["object"]]
        sectors = question.facts["sectors"]
        seen = [k for k in range(len(p)) if k not in hidden]
        out = set()
        for i, key in enumerate(keys):
            fits = True
            for a, b in zip(seen, seen[1:], strict=False):  # legs a+1 .. b between two frames that are shown
                shift = p[b] - p[a]
                if b == a + 1:
                    fits &= _compass_of(shift, sectors) == key[a]
                else:
                    fits &= any(
                        _spans(shift, x, y, self.config.min_move, self.config.angle_margin)
                        for x, y in combinations(key[a:b], 2)
                    )
            if fits:
                out.add(i)
        return out

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        tracks = rendered.measured["tracks"]
        pos = _positions(rendered.measured)
        names = [t.name for t in scene.things]
        mover = names[scene.mover]
        n_img = len(rendered.images)
        flat = scene.family == "flat"
        phrase = PHRASE_FLAT if flat else PHRASE_3D
        times = question.facts["times"]
        objects = []
        for t in scene.things:
            p = pos[t.name]
            shift = p[-1] - p[0]
            objects.append(
                {
                    "name": t.name,
                    "boxes": [{"image": k + 1, "box": tracks[t.name]["box"][k]} for k in range(n_img)],
                    "where": [where_in_frame(tracks[t.name]["px"][k], self.image_size, flat) for k in range(n_img)],
                    "shift": f"{float(np.linalg.norm(shift)):.1f}",
                    "across": f"{abs(shift[0]):.1f}",
                    "along": f"{abs(shift[1]):.1f}",
                    "side": "right" if shift[0] > 0 else "left",
                    "depth": ("up" if shift[1] > 0 else "down")
                    if flat
                    else ("away from" if shift[1] > 0 else "towards"),
                }
            )
        chrono = [1 + scene.shown.index(c) for c in range(len(scene.indices))]
        drift = _still_drift(scene)
        facts: dict[str, Any] = {
            "kind": scene.kind,
            "flat": flat,
            "surface": "floor" if flat else SETTINGS[scene.family].surface,
            "unit": "grid square" if flat else SETTINGS[scene.family].tile_word,
            "pan": _pans(scene),
            "drift": phrase[drift] if drift not in (None, scene.legs[0]) else "",
            "mover": mover,
            "direction": phrase[scene.legs[0]],
            "objects": objects,
            "still": [o for o in objects if o["name"] != mover],
            "moving": next(o for o in objects if o["name"] == mover),
            "n_images": n_img,
            "times": [seconds(t) for t in times],
            "chrono_text": image_list(chrono),
            "chrono": [],
            "dt": seconds(max(times) - min(times)),
        }
        if scene.kind == "order":
            progress = _progress(pos[mover], scene.legs[0])
            facts["chrono"] = [{"image": k, "progress": f"{progress[k - 1] - min(progress):.1f}"} for k in chrono]
        if scene.kind == "path":
            p = pos[mover]
            facts["legs"] = [
                {
                    "from": k + 1,
                    "to": k + 2,
                    "length": f"{float(np.linalg.norm(p[k + 1] - p[k])):.1f}",
                    "direction": phrase[d],
                }
                for k, d in enumerate(scene.legs)
            ]
        return facts


# -- helpers ------------------------------------------------------------------------------------------------------
def _pans(scene: Scene) -> bool:
    """Whether the view moves during the clip (the flat floor slides, or the 3D camera travels)."""
    return scene.pan != (0.0, 0.0) or bool(scene.stage and scene.stage.shot.moving)


def _still_drift(scene: Scene) -> str | None:
    """The direction in which everything that stays still slides across the picture as the view pans (in the
    question's frame: x right, y up the picture or away from the camera), or None without a pan."""
    if not _pans(scene):
        return None
    if scene.stage is None:  # flat: the picture shifts by ``pan`` (y down)
        shift = np.array([scene.pan[0], -scene.pan[1]])
    else:  # the camera travels by ``pan`` over the floor: what stands still slides the other way
        right, away = clips3d.view_axes(scene.stage.shot.camera(0.0))
        travel = np.asarray(scene.stage.shot.pan, float)
        shift = -np.array([travel @ right, travel @ away])
    return _compass_of(shift, scene.sectors)


def _unit(direction: str) -> tuple[float, float]:
    a = math.radians(45 * DIRECTIONS.index(direction))
    return math.cos(a), math.sin(a)


def _turn(a: str, b: str) -> int:
    """Eighths of a turn between two compass directions (0 to 4)."""
    d = abs(DIRECTIONS.index(a) - DIRECTIONS.index(b)) % 8
    return min(d, 8 - d)


def _compass(angle: float, sectors: int) -> str:
    if sectors == 4:
        return DIRECTIONS[2 * (int((angle + 45) // 90) % 4)]
    return DIRECTIONS[int((angle + 22.5) // 45) % 8]


def _compass_of(shift: np.ndarray, sectors: int) -> str:
    return _compass(math.degrees(math.atan2(shift[1], shift[0])) % 360, sectors)


def _spans(net: np.ndarray, a: str, b: str, min_leg: float, slack: float = 0.0) -> bool:
    """Whether a leg along ``a`` then one along ``b``, each at least ``min_leg`` tiles long and each within
    ``slack`` degrees of its direction (tried in steps of half of it), can add up to ``net``: the paths the
    verifier takes. Any two positive legs along the exact directions let through paths it refuses (legs too short
    to see), so a frame between them counted as needed where a reader who knows the verifier's rule placed it:
    13 of 100 path questions, seed 90201."""
    turns = np.radians(np.linspace(-slack, slack, 5)) if slack else np.zeros(1)
    base = [math.atan2(*_unit(d)[::-1]) for d in (a, b)]
    for da in turns:
        for db in turns:
            ua, ub = base[0] + da, base[1] + db
            m = np.array([[math.cos(ua), math.cos(ub)], [math.sin(ua), math.sin(ub)]])
            if abs(np.linalg.det(m)) < 1e-6:
                continue
            s, t = np.linalg.solve(m, np.asarray(net, float))
            if s >= min_leg and t >= min_leg:
                return True
    return False


def _turn_signature(legs: tuple[str, ...], first: str, last: str) -> tuple[int, int]:
    """Whether the path's first turn is sharper (+1), as sharp (0) or gentler (-1) than the turn from ``first`` into
    its second leg, and likewise its last turn against the turn into ``last``: what a reader of the options sees."""
    a = _turn(legs[0], legs[1]) - _turn(first, legs[1])
    b = _turn(legs[-2], legs[-1]) - _turn(legs[-2], last)
    return (a > 0) - (a < 0), (b > 0) - (b < 0)


def _changed_paths(legs: tuple[str, ...], first: str, last: str) -> list[tuple[str, ...]]:
    return [(first, *legs[1:]), (*legs[:-1], last), (first, *legs[1:-1], last)]


def _swapped(order: tuple[int, ...], pairs) -> tuple[int, ...]:
    items = list(order)
    for i, j in pairs:
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def _at(path: tuple[tuple[float, float, float], ...], t: float) -> tuple[float, float]:
    if t <= path[0][0]:
        return path[0][1], path[0][2]
    for (t0, x0, y0), (t1, x1, y1) in zip(path, path[1:], strict=False):
        if t <= t1:
            a = (t - t0) / (t1 - t0)
            return x0 + a * (x1 - x0), y0 + a * (y1 - y0)
    return path[-1][1], path[-1][2]


def _tiles(thing: Thing, scene: Scene, k: int) -> np.ndarray:
    """True position of ``thing`` at chronological extracted frame ``k``, in tiles on the camera's axes."""
    t = scene.indices[k] / scene.fps
    x, y = thing.prop.at(t) if thing.prop is not None else _at(thing.path, t)
    if scene.stage is None:
        return np.array([x, -y]) / scene.tile
    right, away = clips3d.view_axes(scene.stage.shot.camera(0.0))
    p = np.array([x, y])
    return np.array([p @ right, p @ away]) / scene.tile


def _flat_floor(centroid: tuple[float, float], cam: dict[str, Any]) -> list[float]:
    """A flat frame's pixel position on the floor: the picture's shift taken off; y up."""
    return [round(centroid[0] - cam["offset"][0], 3), round(-(centroid[1] - cam["offset"][1]), 3)]


def _positions(measured: dict[str, Any]) -> dict[str, np.ndarray]:
    """Each object's positions per image in tiles, on the camera's axes (x: right, y: away from the camera)."""
    axes = np.array([measured["axes"]["right"], measured["axes"]["away"]])
    return {
        name: (np.asarray(t["floor"], float) @ axes.T) / measured["tile"]
        for name, t in sorted(measured["tracks"].items())
    }


def _progress(p: np.ndarray, direction: str) -> list[float]:
    u = np.array(_unit(direction))
    return [float(v @ u) for v in p]


def _grid_floor(size: int, grid: int, ox: float, oy: float) -> np.ndarray:
    img = canvas2d.solid(size, canvas2d.FLOOR)
    for v in range(-grid + int(round(ox)) % grid, size, grid):
        if 0 <= v < size:
            img[:, v] = canvas2d.LINE
    for v in range(-grid + int(round(oy)) % grid, size, grid):
        if 0 <= v < size:
            img[v, :] = canvas2d.LINE
    return img


def _rotation(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _clear(corridor: list[np.ndarray], others: list[list[np.ndarray]], gap: float) -> bool:
    """Whether a new object's corridor keeps ``gap`` from where the others stand (their corridors' starts), and
    where it stands keeps ``gap`` from their corridors: each object has a way to move that the others leave free."""
    for other in others:
        if _gap_to_point(corridor, other[0]) <= gap or _gap_to_point(other, corridor[0]) <= gap:
            return False
    return True


Point = tuple[float, float]


def _gap_to_point(line: list[np.ndarray], q: np.ndarray) -> float:
    """Smallest distance from point ``q`` to a polyline (plain floats: the layout search asks ~10^4 times a
    scene)."""
    point = (float(q[0]), float(q[1]))
    pts = [(float(p[0]), float(p[1])) for p in line]
    return min(_segment_distance(point, a, b) for a, b in zip(pts, pts[1:] or pts, strict=False))


def _segment_distance(p: Point, a: Point, b: Point) -> float:
    vx, vy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / max(vx * vx + vy * vy, 1e-9)))
    dx, dy = p[0] - (a[0] + t * vx), p[1] - (a[1] + t * vy)
    return math.sqrt(dx * dx + dy * dy)
