"""3D clips for the sequential tasks: catalogue objects sliding over a tiled floor, filmed by a perspective camera
that may pan, encoded to an mp4 and measured in the frames decoded from it.

Every frame of a clip is rendered through :mod:`mirforge.render.gl` and the clip is encoded like any video; the
question's frames are pulled back out of the file. Positions come from those decoded frames: an object is the
foreground (decoded frame against a render of the empty floor from the same camera) near its pixels in the id
render kept beside the clip, which only says which object a blob is. Each blob's centroid is carried to the floor
through the camera that filmed the frame (its calibration), at half the height the blob stands up from the floor,
so offsets are in metres on the floor whatever the camera did. The floor's tiles let a person do the same; where
the camera pans, flat coloured marks painted on the floor (:func:`mark_floor`, each a colour and a shape of its own)
stay in view for the whole clip, so a person also sees how far the tiles slid, which the tiles alone, all alike,
do not tell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.render import gl
from mirforge.render.look import HORIZON, SKIES, Backdrop, LightKnobs, Look, light_rig
from mirforge.render.objects import model, variants
from mirforge.render.objects.place import place
from mirforge.render.scene3d import Camera, Object3D, Scene3D
from mirforge.render.textures import TILES
from mirforge.render.video import Blob

RGB = tuple[int, int, int]
FOREGROUND_DIFF = 30  # a decoded pixel differing from the empty floor by more (any channel) is foreground
NEAR_PX = 3  # foreground within this many pixels of an object's id pixels belongs to it
MIN_FOUND = 0.55  # an object's decoded foreground must cover this share of its id pixels, or it is not clear
MIN_PIXELS = 200  # an object smaller than this in a frame is too small to name and place
BOX_PER_PIXEL = 2.5  # an object's bounding box spans about this many pixels per pixel it covers
EDGE_PX = 6  # objects keep this far from the frame's border
SHARED_CONTRAST = 110  # two objects of one kind differ this much in colour (any channel), so the names tell them apart
SUN_ELEVATION = (45.0, 70.0)  # degrees: shadows stay short, so they seldom reach another object
SEE_THROUGH = ("glass", "liquid")  # materials that show the floor behind them, so they blend into it
MIN_CONTRAST = 60  # every part of an object differs in colour from the floor by at least this much (any channel)
VARIANT_POOL = 4  # variants per kind in a scene
VARIANT_SCAN = 6  # variants per kind looked at to find them (each builds its mesh once per process, ~15 ms)
# Seen from 38-55 degrees above, an object's silhouette reaches above its real height (its top shows) and below its
# base (its contact shadow), and its centroid sits at about this share of the silhouette's height above the floor
# (fitted on the catalogue objects: offsets over the floor then come out 1.6% short on the tabletop and 0.3% long on
# the floor, sd 3%; with half the height, 5% short).
CENTROID_HEIGHT = 0.3


@dataclass(frozen=True)
class Setting:
    """The look of a 3D family: which objects, how large the tiles, where the camera stands."""

    name: str
    kinds: tuple[str, ...]
    tile: float  # metres from one tile's edge to the next
    tiles: tuple[int, ...]  # variants of the renderer's tiled floor (mirforge.render.textures.TILES) drawn from
    distance: tuple[float, float]  # camera distance from the point it looks at, metres
    elevation: tuple[float, float]  # degrees above the floor
    noun: str  # what the tiles are, as the question says it
    surface: str  # what the objects stand on, in a word
    tile_word: str  # what one tile is called
    alike: tuple[tuple[str, ...], ...] = ()  # kinds too alike at this size to share a scene
    max_width: float = 3.0  # tiles: wider variants are left out


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting(
            "tabletop",
            kinds=(
                "mug",
                "apple",
                "alarm clock",
                "rubber duck",
                "toy car",
                "bottle",
                "teapot",
                "can",
                "cup",
                "jar",
                "kettle",
                "toy truck",
                "pencil cup",
                "candle",
                "thermos",
            ),
            tile=0.1,
            tiles=(0, 2, 3, 5),
            distance=(1.1, 1.45),
            elevation=(38.0, 55.0),
            noun="tiled tabletop (tiles 10 cm wide)",
            surface="tabletop",
            tile_word="tile",
            alike=(
                ("can", "cup", "jar", "pencil cup", "candle"),
                ("teapot", "kettle"),
                ("toy car", "toy truck"),
                ("bottle", "thermos"),
            ),
            max_width=2.2,
        ),
        Setting(
            "floor",
            kinds=(
                "cardboard box",
                "suitcase",
                "bucket",
                "trash bin",
                "traffic cone",
                "stool",
                "basketball",
                "soccer ball",
                "teddy bear",
                "ball",
                "flower pot",
                "chair",
            ),
            tile=0.3,
            tiles=(0, 2, 3, 5),
            distance=(3.5, 4.3),
            elevation=(38.0, 55.0),
            noun="tiled floor (tiles 30 cm wide)",
            surface="floor",
            tile_word="tile",
            alike=(("bucket", "trash bin"), ("basketball", "soccer ball", "ball"), ("stool", "chair")),
        ),
    )
}


# -- what moves --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prop:
    """A catalogue object sliding over the floor along straight legs between waypoints ``(t, x, y)``; it stands
    at the first waypoint before it and at the last one after it."""

    name: str
    kind: str
    variant: int
    height: float
    path: tuple[tuple[float, float, float], ...]
    yaw: float = 0.0

    def at(self, t: float) -> tuple[float, float]:
        pts = self.path
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2]
        for (t0, x0, y0), (t1, x1, y1) in zip(pts, pts[1:], strict=False):
            if t <= t1:
                a = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
                return x0 + a * (x1 - x0), y0 + a * (y1 - y0)
        return pts[-1][1], pts[-1][2]

    def placed(self, t: float) -> Object3D:
        return place(self.kind, self.variant, self.name, self.at(t), self.height, yaw=self.yaw)

    @property
    def radius(self) -> float:
        """Half the diagonal of the footprint: two props whose centres stay this far apart never touch."""
        w, d, _ = model(self.kind, self.variant).size_for_height(self.height)
        return 0.5 * math.hypot(w, d)


@dataclass(frozen=True)
class Mark:
    """A flat coloured mark painted on the floor, still for the whole clip: a ``disc``, a ``square`` or a ``cross``
    (two crossed strips) ``size`` metres across, turned by ``yaw``. Marks are part of the floor, not objects of the
    question: they never move, stand a few millimetres high, and are drawn in the empty-floor plate too."""

    shape: str
    color: RGB
    position: tuple[float, float]
    size: float
    yaw: float = 0.0

    def objects(self, name: str) -> tuple[Object3D, ...]:
        """The mark as primitives named ``name`` (a cross is two strips)."""
        s, h = self.size, max(MARK_HEIGHT, MARK_HEIGHT_SHARE * self.size)
        if self.shape == "disc":
            return (Object3D(name, "cylinder", (s, s, h), self.color, self.position, yaw=self.yaw),)
        if self.shape == "square":
            side = s / math.sqrt(2)  # its diagonal spans ``size``
            return (Object3D(name, "box", (side, side, h), self.color, self.position, yaw=self.yaw),)
        if self.shape == "cross":
            arm = (s, s * CROSS_WIDTH, h)
            return tuple(
                Object3D(name, "box", arm, self.color, self.position, yaw=self.yaw + turn)
                for turn in (0.0, math.pi / 2)
            )
        raise ValueError(f"unknown mark shape {self.shape!r}; expected one of {MARK_SHAPES}")

    @property
    def name(self) -> str:
        """What a person calls it: its paint and shape, "red disc"."""
        return f"{next(n for n, c in MARK_COLORS.items() if c == self.color)} {self.shape}"

    @property
    def radius(self) -> float:
        """Half its size: the mark lies within this of its centre."""
        return self.size / 2


@dataclass(frozen=True)
class Shot:
    """A perspective camera that may pan: eye and target move together by ``pan`` metres per second."""

    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    pan: tuple[float, float] = (0.0, 0.0)
    yfov: float = math.radians(45)

    def camera(self, t: float) -> Camera:
        dx, dy = self.pan[0] * t, self.pan[1] * t
        eye = (self.eye[0] + dx, self.eye[1] + dy, self.eye[2])
        target = (self.target[0] + dx, self.target[1] + dy, self.target[2])
        return Camera(eye=eye, target=target, yfov=self.yfov)

    @property
    def moving(self) -> bool:
        return self.pan != (0.0, 0.0)


def aim(center: tuple[float, float], azimuth: float, elevation: float, distance: float) -> Shot:
    """A camera looking at ``center`` on the floor from ``azimuth`` degrees (0: from -y) and ``elevation``."""
    az, el = math.radians(azimuth), math.radians(elevation)
    eye = (
        center[0] + distance * math.cos(el) * math.sin(az),
        center[1] - distance * math.cos(el) * math.cos(az),
        distance * math.sin(el),
    )
    return Shot(eye=eye, target=(center[0], center[1], 0.0))


def shoot_from(
    rng: np.random.Generator, setting: Setting, pan: bool, pan_speed: tuple[float, float] = (0.6, 1.0)
) -> Shot:
    """A camera for ``setting`` looking at a random point near the middle of the tiles, from any side; with
    ``pan``, moving sideways (within 30 degrees of its own right or left) at ``pan_speed`` tiles per second."""
    center = (float(rng.uniform(-2, 2)) * setting.tile, float(rng.uniform(-2, 2)) * setting.tile)
    az, el, dist = (
        float(rng.uniform(0, 360)),
        float(rng.uniform(*setting.elevation)),
        float(rng.uniform(*setting.distance)),
    )
    shot = aim(center, az, el, dist)
    if not pan:
        return shot
    right, _ = view_axes(shot.camera(0.0))
    angle = math.atan2(right[1], right[0]) + math.radians(float(rng.uniform(-30, 30))) + math.pi * int(rng.integers(2))
    speed = float(rng.uniform(*pan_speed)) * setting.tile
    return Shot(shot.eye, shot.target, (speed * math.cos(angle), speed * math.sin(angle)), shot.yfov)


# kinds with a handle on one side (+x of the model): seen from behind the body the handle is hidden, and a mug
# without a handle reads as a cup or a can
SIDE_HANDLED = frozenset({"mug", "cup", "kettle", "teapot"})
HANDLE_SPREAD = math.radians(25)  # how far from the camera's left or right the handle may point (at 50 degrees a
# handle turned away hid behind the body: a mug read as a tumbler)


VEHICLES = frozenset({"toy car", "toy truck"})  # drive nose first; other objects slide at any angle


def nose_first(heading: float) -> float:
    """The yaw that points a vehicle's nose along ``heading`` (radians on the floor): its model's nose points along
    -x. (Turned a quarter less, toy cars drove sideways.)"""
    return heading + math.pi


def turned(rng: np.random.Generator, kind: str, right: np.ndarray) -> float:
    """A random yaw for an object of ``kind``; a kind in ``SIDE_HANDLED`` is turned so its handle points within
    ``HANDLE_SPREAD`` of the camera's ``right`` or left, where its outline shows it. One draw either way."""
    u = float(rng.uniform(0, 2 * math.pi))
    if kind not in SIDE_HANDLED:
        return u
    side = math.atan2(right[1], right[0]) + (0.0 if u < math.pi else math.pi)
    return side + HANDLE_SPREAD * ((u % math.pi) / math.pi * 2 - 1)


def view_axes(cam: Camera) -> tuple[np.ndarray, np.ndarray]:
    """Unit floor vectors of the camera's right and of its viewing direction (away from the camera)."""
    pose = cam.pose()
    right = pose[:2, 0] / np.linalg.norm(pose[:2, 0])
    away = -pose[:2, 2] / np.linalg.norm(pose[:2, 2])
    return right, away


def pick_props(
    rng: np.random.Generator, setting: Setting, n: int, ground: tuple[RGB, ...], *, shared_kind: bool = False
) -> list[tuple[str, str, int]]:
    """``n`` objects for ``setting`` as (name, kind, variant): kinds that do not look alike, or, with
    ``shared_kind``, one kind twice in two colours that the names carry ("the red mug", "the blue mug"). Every
    object stands out from the floor (``ground``: its colours, tiles and grout)."""
    kinds: list[str] = []
    for i in rng.permutation(len(setting.kinds)):
        kind = setting.kinds[int(i)]
        alike = any(kind in group and set(group) & set(kinds) for group in setting.alike)
        if not alike and _pool(setting, kind, ground):
            kinds.append(kind)
    if shared_kind:
        twins = [k for k in kinds if _twin(k, _pool(setting, k, ground))]
        if not twins:
            raise Reject("no kind comes in two colours that stand out here")
        kinds = [twins[0], *(k for k in kinds if k != twins[0])][: n - 1]
        kinds.insert(int(rng.integers(1, n)), twins[0])
    kinds = kinds[:n]
    if len(kinds) < n:
        raise ValueError(f"setting {setting.name} has too few distinct kinds for {n} objects")
    out: list[tuple[str, int]] = []
    for kind in kinds:
        taken = [model(k, v).color for k, v in out if k == kind]
        pool = [
            v
            for v in _pool(setting, kind, ground)
            if all(_contrast(model(kind, v).color, c) >= SHARED_CONTRAST for c in taken)
        ]
        if not pool:
            raise Reject(f"no {kind} stands out from the floor")
        out.append((kind, pool[int(rng.integers(len(pool)))]))
    twice = {k for k in kinds if kinds.count(k) > 1}
    named = [(_called(k, v) if k in twice else model(k, v).noun, k, v) for k, v in out]
    return [named[int(i)] for i in rng.permutation(len(named))]  # the twins first would make them the first picked


@lru_cache(maxsize=1024)
def _pool(setting: Setting, kind: str, ground: tuple[RGB, ...]) -> tuple[int, ...]:
    """The variants of ``kind`` used in ``setting`` on ``ground``: the first ``VARIANT_POOL`` of the first
    ``VARIANT_SCAN`` that are narrow enough and stand out from the floor (looked at in order, so most kinds build
    only the variants they use)."""
    fitting = (
        v
        for v in variants(kind)[:VARIANT_SCAN]
        if max(model(kind, v).extents[:2]) <= setting.max_width * setting.tile and _stands_out(kind, v, ground)
    )
    return tuple(islice(fitting, VARIANT_POOL))


def _twin(kind: str, pool: tuple[int, ...]) -> bool:
    """Whether two variants in ``pool`` differ enough in colour to be told apart by name."""
    colors = [model(kind, v).color for v in pool]
    return any(_contrast(a, b) >= SHARED_CONTRAST for i, a in enumerate(colors) for b in colors[i + 1 :])


# a wood is named by how it looks, not by the tree ("the walnut stool" asks the reader to know the timber)
WOOD_WORDS = {"walnut": "dark wooden", "pine": "light wooden", "oak": "wooden"}


def _called(kind: str, variant: int) -> str:
    """The name of one of two objects of a kind: its colour, then what it is ("red mug", "dark wooden stool")."""
    m = model(kind, variant)
    return f"{WOOD_WORDS.get(m.color_name, m.color_name)} {m.noun}"


def _stands_out(kind: str, variant: int, ground: tuple[RGB, ...]) -> bool:
    """Every part that makes up a sixth or more of the object's surface differs in colour from every colour of the
    floor, and less than a third of it is see-through."""
    parts = model(kind, variant).parts
    total = sum(p.area for p in parts)
    clear = [p for p in parts if p.material in SEE_THROUGH or p.color_name == "clear"]
    if sum(p.area for p in clear) >= total / 3:
        return False  # it shows the floor it stands on
    large = [p for p in parts if p.area >= total / 6 and p not in clear]
    return all(_contrast(p.color, c) >= MIN_CONTRAST for p in large for c in ground)


def _contrast(a: Sequence[int], b: Sequence[int]) -> int:
    return max(abs(int(x) - int(y)) for x, y in zip(a, b, strict=True))


def footprint_radius(kind: str, variant: int) -> float:
    """Half the footprint's diagonal at the tallest :func:`height_of` gives (metres)."""
    w, d, _ = model(kind, variant).extents
    return 0.55 * math.hypot(w, d)


def height_of(rng: np.random.Generator, kind: str, variant: int) -> float:
    """A real height for the object: its variant's height, give or take 10%."""
    return float(model(kind, variant).height * rng.uniform(0.9, 1.1))


# -- geometry checks before anything is drawn ---------------------------------------------------------------------
def in_view(box: tuple[float, float, float, float], size: int, margin: float = EDGE_PX) -> bool:
    x0, y0, x1, y1 = box
    return x0 >= margin and y0 >= margin and x1 <= size - margin and y1 <= size - margin


def _apart(a: tuple[float, ...], b: tuple[float, ...], gap: float = 2 * NEAR_PX + 2) -> bool:
    return not (a[0] - gap < b[2] and b[0] - gap < a[2] and a[1] - gap < b[3] and b[1] - gap < a[3])


_RIM_ANGLES = np.linspace(0, 2 * np.pi, 8, endpoint=False)
_RIM_COS, _RIM_SIN = np.cos(_RIM_ANGLES), np.sin(_RIM_ANGLES)


class Layout:
    """Objects placed one by one in a clip: each new one whole in the frame and apart from the others in every
    shown frame (times ``shown``), and never touching another during the clip (times ``clip``)."""

    def __init__(self, shot: Shot, shown: Sequence[float], clip: Sequence[float], size: int):
        self.shot, self.shown, self.clip, self.size = shot, list(shown), list(clip), size
        self.views = [np.linalg.inv(shot.camera(t).pose()) for t in self.shown]
        self.focal = 1.0 / math.tan(shot.yfov / 2)
        self._middle = shot.camera(0.5 * (self.shown[0] + self.shown[-1]))  # where spot() looks from
        self._frames = [(view[:3, :3].T, view[:3, 3]) for view in self.views]
        self.props: list[Prop] = []
        self.marks: list[Mark] = []
        self._boxes: list[list[tuple[float, float, float, float]]] = []

    def spot(self, rng: np.random.Generator) -> np.ndarray:
        """A random floor point that the camera sees, halfway through the shown frames, in the lower two thirds of
        the picture (far objects look small)."""
        x = float(rng.uniform(0.12, 0.88)) * self.size
        y = float(rng.uniform(0.33, 0.9)) * self.size
        return np.array(floor_at(self._middle, self.size, x, y))

    def sees_disc(self, center: np.ndarray, radius: float) -> bool:
        """Whether a floor disc around ``center`` is in view (with the usual margin) in every shown frame (eight
        points of its rim; motion's layout search asks a few hundred times a scene)."""
        rim = np.zeros((len(_RIM_COS), 3))
        rim[:, 0] = center[0] + radius * _RIM_COS
        rim[:, 1] = center[1] + radius * _RIM_SIN
        half = self.size / 2
        for rotation, shift in self._frames:
            cam = rim @ rotation + shift
            depth = -cam[:, 2]
            if depth.min() <= 0.05:
                return False
            ndc = cam[:, :2] * self.focal / depth[:, None]
            lo, hi = ndc.min(axis=0), ndc.max(axis=0)  # x grows with ndc x, y falls with ndc y
            box = ((lo[0] + 1) * half, (1 - hi[1]) * half, (hi[0] + 1) * half, (1 - lo[1]) * half)
            if not in_view(box, self.size):
                return False
        return True

    def box(self, prop: Prop, k: int) -> tuple[float, float, float, float]:
        """Pixel box of the prop's bounding box corners in shown frame ``k`` (unclipped)."""
        return self._box(prop.placed(self.shown[k]).corners(), k)

    def _box(self, corners: np.ndarray, k: int) -> tuple[float, float, float, float]:
        cam = corners @ self.views[k][:3, :3].T + self.views[k][:3, 3]
        depth = -cam[:, 2]
        if (depth <= 0.05).any():
            return (-1e9, -1e9, 1e9, 1e9)
        x = (cam[:, 0] * self.focal / depth + 1) * self.size / 2
        y = (1 - cam[:, 1] * self.focal / depth) * self.size / 2
        return float(x.min()), float(y.min()), float(x.max()), float(y.max())

    def sees(self, prop: Prop) -> bool:
        """Whether ``prop`` is whole in the frame in every shown frame (others aside)."""
        return all(in_view(self.box(prop, k), self.size) for k in range(len(self.shown)))

    def add(self, prop: Prop) -> bool:
        """Place ``prop`` if it fits; whether it did."""
        r = prop.radius
        for other in self.props:
            reach = 1.15 * (r + other.radius)
            if any(math.dist(prop.at(t), other.at(t)) <= reach for t in self.clip):
                return False
        boxes = []
        for k in range(len(self.shown)):
            box = self.box(prop, k)
            if not in_view(box, self.size) or not all(_apart(box, b[k]) for b in self._boxes):
                return False
            if (box[2] - box[0]) * (box[3] - box[1]) < BOX_PER_PIXEL * MIN_PIXELS:
                return False  # too far away to be found (and named) in the frame
            boxes.append(box)
        self.props.append(prop)
        self._boxes.append(boxes)
        return True

    def add_mark(self, mark: Mark) -> bool:
        """Place a flat ``mark`` if it is in view (with the usual margin) in every shown frame, no prop passes over
        it during the clip, and its pixel box is apart from every prop's and mark's in every shown frame; whether
        it did."""
        reach = mark.radius * 1.15
        if not self.sees_disc(np.asarray(mark.position), reach):
            return False
        for prop in self.props:
            gap = 1.15 * prop.radius + reach
            if any(math.dist(prop.at(t), mark.position) <= gap for t in self.clip):
                return False
        corners = np.concatenate([o.corners() for o in mark.objects("mark")])
        boxes = [self._box(corners, k) for k in range(len(self.shown))]
        if not all(_apart(box, b[k]) for b in self._boxes for k, box in enumerate(boxes)):
            return False
        self.marks.append(mark)
        self._boxes.append(boxes)
        return True


# -- marks on a panned floor --------------------------------------------------------------------------------------
MARK_SHAPES = ("disc", "square", "cross")
MARK_COLORS: dict[str, RGB] = {  # bright paints, far from the tiles' colours and from each other
    "red": (214, 36, 36),
    "blue": (36, 78, 222),
    "yellow": (240, 204, 28),
    "green": (30, 160, 64),
    "purple": (146, 52, 196),
}
MARK_CONTRAST = 90  # a mark's paint differs from every colour of the floor by this much (any channel)
MARK_SIZE = 0.8  # tiles across
MARK_HEIGHT = 0.002  # metres: flat on the floor
MARK_HEIGHT_SHARE = 0.01  # of the mark's size, where that is higher
CROSS_WIDTH = 0.26  # a cross's strips, as a share of their length
MARK_SPACING = 2.5  # tiles at least between two marks' centres, so they spread over the picture
MARK_TRIES = 200  # spots tried for the marks of one clip


def mark_floor(
    rng: np.random.Generator, layout: Layout, setting: Setting, ground: tuple[RGB, ...], n: int = len(MARK_SHAPES)
) -> tuple[Mark, ...]:
    """``n`` flat marks on the floor of a laid-out clip, each its own shape and colour (a paint that stands out
    clearly from the floor, ``ground``, and where it can from the clip's objects), where the camera sees them in
    every shown frame and no object passes over them (``Layout.add_mark``): a panning camera's still reference,
    which the tiles, all alike, are not. Rejects a clip where fewer fit."""
    colors = [c for c in MARK_COLORS.values() if all(_contrast(c, g) >= MARK_CONTRAST for g in ground)]
    if len(colors) < n or n > len(MARK_SHAPES):
        raise ValueError(f"{n} marks need {n} shapes and colours that stand out from the floor")
    shapes = [MARK_SHAPES[int(i)] for i in rng.permutation(len(MARK_SHAPES))[:n]]
    bodies = [model(p.kind, p.variant).color for p in layout.props]
    # paints unlike every object's colour first, so a mark never looks like a flattened object beside it
    paints = sorted(
        (colors[int(i)] for i in rng.permutation(len(colors))),
        key=lambda c: not all(_contrast(c, b) >= MIN_CONTRAST for b in bodies),
    )[:n]
    size = MARK_SIZE * setting.tile
    marks: list[Mark] = []
    for _ in range(MARK_TRIES):
        if len(marks) == n:
            break
        x = float(rng.uniform(0.08, 0.92)) * layout.size
        y = float(rng.uniform(0.3, 0.92)) * layout.size
        at = floor_at(layout._middle, layout.size, x, y)
        yaw = float(rng.uniform(0, math.pi / 2))
        mark = Mark(shapes[len(marks)], paints[len(marks)], (round(at[0], 5), round(at[1], 5)), size, round(yaw, 4))
        if all(math.dist(at, m.position) >= MARK_SPACING * setting.tile for m in marks) and layout.add_mark(mark):
            marks.append(mark)
    if len(marks) < n:
        raise Reject("no room for the floor's marks")
    return tuple(marks)


# -- filming and measuring ----------------------------------------------------------------------------------------
TILES_PER_REPEAT = 4  # tiles across one repeat of the renderer's tiled floor texture


@dataclass(frozen=True)
class Stage:
    """Everything that is the same in every frame of a clip but the objects: the floor, the light, the camera."""

    setting: Setting
    look: Look
    shot: Shot
    marks: tuple[Mark, ...] = ()  # flat marks on the floor, still in every frame (see mark_floor)

    @property
    def colors(self) -> tuple[RGB, ...]:
        """The floor's colours (tiles and grout), which objects must stand out from."""
        return floor_colors(self.look)


def floor_colors(look: Look) -> tuple[RGB, ...]:
    first, second, grout = TILES[look.backdrop.variant]
    return tuple(c for c in (first, second, grout) if c is not None)


def draw_look(rng: np.random.Generator, setting: Setting) -> Look:
    """A tiled floor reaching the horizon, its tiles ``setting.tile`` wide and turned at random, under a random
    sun high enough that shadows stay short."""
    variant = setting.tiles[int(rng.integers(len(setting.tiles)))]
    repeat = TILES_PER_REPEAT * setting.tile
    floor = Backdrop(
        "tiles",
        variant,
        sky=SKIES[int(rng.integers(len(SKIES)))],
        tile=repeat,
        rotation=round(float(rng.uniform(0, math.pi / 2)), 4),
        offset=(round(float(rng.uniform(0, repeat)), 4), round(float(rng.uniform(0, repeat)), 4)),
        extent=HORIZON,
    )
    return Look(floor, light_rig(rng, LightKnobs(elevation=SUN_ELEVATION)))


@dataclass
class Frame:
    """One extracted frame: the decoded image, when it was taken, the camera, and each object's blob in it."""

    image: np.ndarray
    time: float
    camera: Camera
    blobs: list[Blob]

    def calibration(self, size: int) -> dict[str, Any]:
        c = self.camera
        return {
            "eye": [round(v, 5) for v in c.eye],
            "target": [round(v, 5) for v in c.target],
            "yfov": round(c.yfov, 6),
            "size": size,
        }


def film(
    shoot: Any, size: int, props: Sequence[Prop], stage: Stage, n_frames: int, fps: int, indices: Sequence[int]
) -> list[Frame]:
    """Film the clip's ``n_frames`` frames with ``shoot(draw, n_frames, indices)`` (see
    :class:`mirforge.generators.sequential.clips.Filming`), and measure every prop in the decoded frames at
    ``indices``. Rejects a frame where a prop is not clearly found."""
    renderer = gl.renderer(size)
    regions = {}
    floor_marks = tuple(o for k, m in enumerate(stage.marks) for o in m.objects(f"mark {k + 1}"))

    def draw(f: int) -> np.ndarray:
        t = f / fps
        scene = Scene3D((*(p.placed(t) for p in props), *floor_marks), look=stage.look)  # ids: the props' first
        view = renderer.views(scene, [stage.shot.camera(t)], seg=f in indices)[0]
        if f in indices:  # checked as drawn: a frame the ids rule out is never encoded
            regions[f] = object_regions(view.ids, len(props))
        return view.rgb

    decoded = shoot(draw, n_frames, list(indices))
    plate_scene = Scene3D(floor_marks, look=stage.look)  # the empty floor, its marks on it
    plates: dict[float, np.ndarray] = {}
    out = []
    for f, image in zip(indices, decoded, strict=True):
        t = f / fps
        key = t if stage.shot.moving else 0.0
        cam = stage.shot.camera(t)
        if key not in plates:
            plates[key] = renderer.views(plate_scene, [cam], seg=False)[0].rgb
        blobs = locate(image, plates[key], *regions[f])
        out.append(Frame(image, t, cam, blobs))
    return out


def object_regions(ids: np.ndarray, n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each object's id pixels in a frame, and the pixels within ``NEAR_PX`` of them. Rejects an object that is
    small or hidden, and two that touch."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * NEAR_PX + 1, 2 * NEAR_PX + 1))
    cores = [(ids == i + 1) for i in range(n)]
    if any(int(core.sum()) < MIN_PIXELS for core in cores):
        raise Reject("an object is too small or hidden in a frame")
    reach = [cv2.dilate(c.astype(np.uint8), kernel) > 0 for c in cores]
    for i, r in enumerate(reach):
        if any((r & other).any() for j, other in enumerate(reach) if j != i):
            raise Reject("two objects touch in a frame")
    return cores, reach


def locate(decoded: np.ndarray, plate: np.ndarray, cores: list[np.ndarray], reach: list[np.ndarray]) -> list[Blob]:
    """Each object's blob in a decoded frame: the foreground (decoded vs the empty floor) within its ``reach`` of
    its id pixels (``cores``), which only say which object a blob is (see ``object_regions``). Rejects an object
    cut by the frame's border or not clearly apart from the floor."""
    d = cv2.absdiff(decoded, plate)
    diff = cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2]) > FOREGROUND_DIFF
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    h, w = diff.shape
    blobs = []
    for core, near in zip(cores, reach, strict=True):
        # closing fills the grout lines an object hides where its colour is close to theirs
        mask = cv2.morphologyEx((diff & near).astype(np.uint8), cv2.MORPH_CLOSE, close) > 0
        # every piece within reach, not the largest alone: a band of an object about as bright as the floor cuts it
        # in two (the largest piece of a traffic cone put its centre 7 px below the true one)
        ys, xs = np.nonzero(mask & near)
        if len(xs) < max(MIN_PIXELS, MIN_FOUND * int(core.sum())):
            raise Reject("an object is not clearly apart from the floor in a decoded frame")
        x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
        blob = Blob((float(xs.mean()), float(ys.mean())), [x0, y0, x1, y1], len(xs))
        if x0 <= 0 or y0 <= 0 or x1 >= w or y1 >= h:
            raise Reject("an object is cut by the frame's border")
        blobs.append(blob)
    return blobs


# -- from pixels to the floor --------------------------------------------------------------------------------------
def camera_of(calibration: dict[str, Any]) -> Camera:
    return Camera(eye=tuple(calibration["eye"]), target=tuple(calibration["target"]), yfov=calibration["yfov"])


def pixel_ray(cam: Camera, size: int, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """Origin and direction (world) of the ray through pixel position (x, y)."""
    f = 1.0 / math.tan(cam.yfov / 2)
    ndc = np.array([2 * x / size - 1, 1 - 2 * y / size])
    pose = cam.pose()
    direction = pose[:3, :3] @ np.array([ndc[0] / f, ndc[1] / f, -1.0])
    return pose[:3, 3], direction


def floor_at(cam: Camera, size: int, x: float, y: float, z: float = 0.0) -> tuple[float, float]:
    """Where the ray through pixel (x, y) meets the horizontal plane at height ``z``."""
    origin, direction = pixel_ray(cam, size, x, y)
    if direction[2] >= -1e-9:
        raise Reject("a measured point lies above the horizon")
    s = (z - origin[2]) / direction[2]
    return float(origin[0] + s * direction[0]), float(origin[1] + s * direction[1])


def standing_height(cam: Camera, size: int, blob: Blob) -> float:
    """How tall an object standing on the floor must be to reach from its blob's bottom row to its top row."""
    x = blob.centroid[0]
    base = np.array([*floor_at(cam, size, x, blob.box[3]), 0.0])
    pose_inv = np.linalg.inv(cam.pose())
    a = pose_inv[:3, :3] @ base + pose_inv[:3, 3]
    b = pose_inv[:3, 2]  # the camera-frame image of the world's up axis
    f = 1.0 / math.tan(cam.yfov / 2)
    top = 1 - 2 * blob.box[1] / size  # ndc y of the top row
    denom = top * b[2] + f * b[1]
    if abs(denom) < 1e-9:
        return 0.0
    return max(0.0, float(-(top * a[2] + f * a[1]) / denom))


def on_floor(blobs: Sequence[Blob], cameras: Sequence[Camera], size: int) -> list[tuple[float, float]]:
    """One object's positions on the floor, from its blobs in frames filmed by ``cameras``: each centroid carried
    to the plane at ``CENTROID_HEIGHT`` of the height its silhouette reaches above the floor (the median over the
    frames: one object, one height, so a row of rounding in one frame does not move it)."""
    heights = [standing_height(cam, size, b) for b, cam in zip(blobs, cameras, strict=True)]
    z = CENTROID_HEIGHT * float(np.median(heights))
    return [floor_at(cam, size, b.centroid[0], b.centroid[1], z) for b, cam in zip(blobs, cameras, strict=True)]
