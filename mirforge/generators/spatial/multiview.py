"""Helpers shared by the multi-view spatial tasks (location_relationship, depth_relationship, forced_perspective).

Scene side (pure geometry, no renderer): primitives scattered on a disc without touching, a ring of perspective
cameras around them, projected centres and depths, frame and occlusion checks with a margin.
Measurement side (what a verifier may use): per-object facts read from a rendered view's segmentation mask and
depth buffer: visible pixel count, pixel box, mask centroid, median depth of the visible pixels.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.common import distinct_colors, object_name, random_shapes
from mirforge.render.look import BACKDROPS, Look, draw_look
from mirforge.render.scene3d import PALETTE, Camera, Object3D, orbit_camera
from mirforge.task import TaskConfig, ensure

SCENE_RADIUS = 1.8  # objects stand inside this disc
TARGET = (0.0, 0.0, 0.3)


def footprint_radius(obj: Object3D) -> float:
    """Radius of a circle that covers the object's footprint, whatever its yaw."""
    return 0.5 * math.hypot(obj.size[0], obj.size[1])


def scatter_objects(
    rng: np.random.Generator,
    n: int,
    *,
    radius: float = SCENE_RADIUS,
    width: tuple[float, float] = (0.4, 0.75),
    height: tuple[float, float] = (0.35, 1.0),
    gap: float = 0.2,
) -> tuple[Object3D, ...]:
    """``n`` primitives with distinct colours (so colour + shape names are unique), standing apart on a disc."""
    colors, shapes = distinct_colors(rng, n), random_shapes(rng, n)
    objects: list[Object3D] = []
    for color, shape in zip(colors, shapes, strict=True):
        w = float(rng.uniform(*width))
        d = w if shape != "box" else float(rng.uniform(*width))
        h = float(rng.uniform(*height))
        if shape == "sphere":
            d = h = w
        yaw = float(rng.uniform(0, math.pi / 2)) if shape == "box" else 0.0
        probe = Object3D(object_name(color, shape), shape, (w, d, h), PALETTE[color], (0.0, 0.0), yaw=yaw)
        r = footprint_radius(probe)
        for _ in range(60):
            rho = (radius - r) * math.sqrt(float(rng.uniform()))
            phi = float(rng.uniform(0, 2 * math.pi))
            xy = (rho * math.cos(phi), rho * math.sin(phi))
            if all(math.dist(xy, o.position) >= r + footprint_radius(o) + gap for o in objects):
                break
        else:
            raise Reject("objects do not fit on the table")
        objects.append(Object3D(probe.name, shape, probe.size, probe.color, xy, yaw=yaw))
    return tuple(objects)


def table_radius(n_objects: int) -> float:
    """The disc the objects stand on grows with their number, so that they fit without touching."""
    return 1.2 + 0.15 * n_objects


def camera_ring(
    rng: np.random.Generator,
    n_views: int,
    *,
    radius: float = SCENE_RADIUS,
    elevation: tuple[float, float] = (24.0, 40.0),
    distance: tuple[float, float] = (3.3, 3.7),
) -> tuple[tuple[Camera, ...], tuple[float, ...]]:
    """``n_views`` perspective cameras spread around the scene (azimuths in degrees, 0 = from the front).

    ``distance`` is in units of the table ``radius``, so the whole table stays in frame."""
    start = float(rng.uniform(0, 360))
    step = 360.0 / n_views
    jitter = min(20.0, 0.2 * step)
    azimuths = tuple(float((start + k * step + rng.uniform(-jitter, jitter)) % 360) for k in range(n_views))
    if n_views == 2:  # two cameras: anywhere from a quarter turn to opposite sides, so relations may or may not flip
        azimuths = (start % 360, float((start + rng.choice([-1, 1]) * rng.uniform(60, 180)) % 360))
    cams = tuple(
        orbit_camera(az, float(rng.uniform(*elevation)), radius * float(rng.uniform(*distance)), target=TARGET)
        for az in azimuths
    )
    return cams, azimuths


def centres(objects: tuple[Object3D, ...], cam: Camera, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Projected centre (pixel x, y) and view-axis depth of every object's centre."""
    px, depth = cam.project(np.array([o.center for o in objects]), size)
    return px, depth


def projected_box(obj: Object3D, cam: Camera, size: int) -> tuple[float, float, float, float]:
    """Unclipped projected box of the object's bounding box corners."""
    px, _ = cam.project(obj.corners(), size)
    return float(px[:, 0].min()), float(px[:, 1].min()), float(px[:, 0].max()), float(px[:, 1].max())


def in_frame(obj: Object3D, cam: Camera, size: int, pad: int = 6) -> bool:
    x0, y0, x1, y1 = projected_box(obj, cam, size)
    return x0 >= pad and y0 >= pad and x1 <= size - pad and y1 <= size - pad


def view_boxes(objects: tuple[Object3D, ...], cam: Camera, size: int) -> np.ndarray:
    """Unclipped projected boxes [x0, y0, x1, y1] of all objects' bounding-box corners, one projection call."""
    px, _ = cam.project(np.concatenate([o.corners() for o in objects]), size)
    px = px.reshape(len(objects), 8, 2)
    return np.concatenate([px.min(axis=1), px.max(axis=1)], axis=1)


def all_in_frame(objects: tuple[Object3D, ...], cameras: tuple[Camera, ...], size: int, pad: int = 6) -> bool:
    for cam in cameras:
        boxes = view_boxes(objects, cam, size)
        if boxes[:, :2].min() < pad or boxes[:, 2:].max() > size - pad:
            return False
    return True


def covered_fractions(objects: tuple[Object3D, ...], cam: Camera, size: int) -> list[float]:
    """For each object, the share of its projected box covered by the projected boxes of objects nearer the
    camera (a conservative stand-in for occlusion, computed before rendering)."""
    boxes = view_boxes(objects, cam, size)
    _, depth = centres(objects, cam, size)
    out = []
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        w, h = max(1, math.ceil(x1 - x0)), max(1, math.ceil(y1 - y0))
        covered = np.zeros((h, w), dtype=bool)
        for j, (a0, b0, a1, b1) in enumerate(boxes):
            if j == i or depth[j] >= depth[i]:
                continue
            c0, c1 = max(0, math.floor(a0 - x0)), min(w, math.ceil(a1 - x0))
            r0, r1 = max(0, math.floor(b0 - y0)), min(h, math.ceil(b1 - y0))
            if c0 < c1 and r0 < r1:
                covered[r0:r1, c0:c1] = True
        out.append(float(covered.mean()))
    return out


def in_front(boxes: np.ndarray, depth: np.ndarray, i: int) -> int | None:
    """Of objects with projected ``boxes`` (:func:`view_boxes`) and view ``depth`` (:func:`centres`), the nearer one
    whose box covers most of object ``i``'s (at least a fifth of it): what a partly hidden object stands behind; None
    if none covers that much."""
    x0, y0, x1, y1 = boxes[i]
    area = max(1e-9, (x1 - x0) * (y1 - y0))
    best, most = None, 0.2
    for j, (a0, b0, a1, b1) in enumerate(boxes):
        share = max(0.0, min(x1, a1) - max(x0, a0)) * max(0.0, min(y1, b1) - max(y0, b0)) / area
        if j != i and depth[j] < depth[i] and share >= most:
            best, most = j, share
    return best


def sign(value: float, margin: float) -> int:
    """+1 or -1 when ``value`` clears ``margin``, 0 for a near-tie."""
    if value >= margin:
        return 1
    if value <= -margin:
        return -1
    return 0


# -- measurement from rendered views ------------------------------------------------------------------------------
def measure_view(view: Any, names: list[str], min_px: int) -> dict[str, dict[str, Any]]:
    """Facts read from one view's masks and depth for every object with at least ``min_px`` visible pixels."""
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(names):
        if view.pixels(i) < min_px:  # all objects' counts and boxes come from one pass over the ids
            continue
        m = view.measure(i)  # within the object's box only
        out[name] = {
            "px": m["px"],
            "box": m["box"],
            "cx": round(m["cx"], 2),
            "cy": round(m["cy"], 2),
            "depth": round(m["depth"], 4),
        }
    return out


def left_to_right(measured: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(measured, key=lambda n: (measured[n]["cx"], n))


def near_to_far(measured: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(measured, key=lambda n: (measured[n]["depth"], n))


# -- everyday objects in scene families ---------------------------------------------------------------------------
FAMILIES = ("tabletop", "room", "toys", "yard", "shapes")
# catalogue kinds per family (kinds of similar real size, so that one scale fits a scene). No kind whose back is a
# plain box: the cameras circle the table, and from behind a cabinet or a cereal box shows nothing of what names it
# (a cabinet's back is a brown box, as a cardboard box is)
FAMILY_KINDS: dict[str, tuple[str, ...]] = {
    "tabletop": (
        "mug",
        "can",
        "bottle",
        "jar",
        "glass",
        "candle",
        "thermos",
        "pencil cup",
        "wine glass",
        "alarm clock",
        "teapot",
        "kettle",
        "vase",
        "wine bottle",
        "laptop",
    ),
    "room": (
        "chair",
        "stool",
        "table",
        "trash bin",
        "suitcase",
        "floor lamp",
        "table lamp",
        "flower pot",
        "cardboard box",
        "globe",
    ),
    "toys": (
        "teddy bear",
        "toy car",
        "toy truck",
        "rubber duck",
        "ball",
        "basketball",
        "soccer ball",
        "shoe box",
        "globe",
        "alarm clock",
    ),
    "yard": (
        "traffic cone",
        "fire hydrant",
        "trash bin",
        "flower pot",
        "cardboard box",
        "suitcase",
        "stool",
        "chair",
        "ball",
        "basketball",
        "soccer ball",
    ),
}
# what the objects stand on (mirforge.render.look floors, all reaching the horizon): one is drawn per scene
FAMILY_FLOORS: dict[str, tuple[str, ...]] = {
    "tabletop": ("wood",),
    "room": ("wood", "carpet", "tiles"),
    "toys": ("carpet", "tiles"),
    "yard": ("concrete",),
    "shapes": ("studio",),
}
PLACES = {  # where the objects stand, as the text says it: what the floor shows (every floor runs to the horizon, so
    # no table edge or room wall is ever in the picture)
    "tabletop": "on a wooden surface",
    "room": "on a floor",
    "toys": "on a play mat",
    "yard": "in a paved yard",
    "shapes": "on a plain surface",
}
CAMERA_DISTANCE = (2.7, 3.1)  # in table radii: closer than camera_ring's default, so everyday objects fill more
KIND_TRIES = 4  # draws of kinds (cheap) before a scene is given up
VARIANTS_PER_KIND = 3  # each variant costs a mesh build on first use
MAX_SIZE_RATIO = 3.0  # largest over smallest side of the objects of one scene, in their real sizes
LARGEST_SIDE = (1.1, 1.4)  # world units: the scene is scaled so that its largest object's largest side is in here
SHAPE_WORDS = ("cube", "block", "cylinder", "cone", "ball")
BLOCK_MIN_SPREAD = 1.25  # a block's sides differ by at least 25%, so that it is visibly not a cube


def everyday_radius(n_objects: int) -> float:
    """The disc that ``n_objects`` everyday objects stand on (wider footprints than the plain primitives)."""
    return table_radius(n_objects) + 0.3


@dataclass
class CatalogueConfig(TaskConfig):
    """Knobs of the tasks whose scene families are built from the object catalogue: the kinds, main materials and
    floors a scene may use, each within its family's own (empty: all of them). The ``shapes`` family draws
    primitives on a plain table and ignores them. ``mirforge objects`` lists the kinds and materials."""

    kinds: tuple[str, ...] = ()
    materials: tuple[str, ...] = ()
    backdrops: tuple[str, ...] = ()

    def chosen(self) -> tuple[str, ...]:
        raise NotImplementedError

    def kinds_needed(self) -> int:
        """Distinct kinds the largest scene needs."""
        raise NotImplementedError

    def validate(self) -> None:
        super().validate()
        from mirforge.render.objects import KINDS, MATERIALS

        for field_name, names, valid in (
            ("kinds", self.kinds, KINDS),
            ("materials", self.materials, tuple(MATERIALS)),
            ("backdrops", self.backdrops, BACKDROPS),
        ):
            for name in names:
                ensure(name in valid, field_name, f"unknown name {name!r}; valid names: {', '.join(valid)}")
        for family in self.chosen():
            if family not in FAMILY_KINDS:  # shapes; an unknown family is the task's own check
                continue
            kept, need = catalogue_kinds(family, self.kinds, self.materials), self.kinds_needed()
            ensure(
                len(kept) >= need,
                "kinds" if self.kinds else "materials",
                f"family {family} keeps {len(kept)} kinds ({', '.join(kept) or 'none'}) where its scenes need "
                f"{need}; its kinds: {', '.join(FAMILY_KINDS[family])}",
            )
            ensure(
                bool(family_floors(family, self.backdrops)),
                "backdrops",
                f"family {family} keeps no floor; its floors: {', '.join(FAMILY_FLOORS[family])}",
            )


def catalogue_kinds(family: str, kinds: tuple[str, ...] = (), materials: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The family's kinds that ``kinds`` (all when empty) names and that come in one of ``materials``."""
    pool = tuple(k for k in FAMILY_KINDS[family] if not kinds or k in kinds)
    return tuple(k for k in pool if kind_variants(k, materials))


def kind_variants(kind: str, materials: tuple[str, ...] = ()) -> tuple[int, ...]:
    """The variants of ``kind`` scenes draw from: the first ``VARIANTS_PER_KIND`` base variants, or with
    ``materials`` the first ``VARIANTS_PER_KIND`` of those whose main material is one of them."""
    if not materials:
        return tuple(range(VARIANTS_PER_KIND))
    from mirforge.render.objects import get_kind, variants

    offered = [m for m in materials if m in get_kind(kind).materials]
    return tuple(sorted(v for m in offered for v in variants(kind, m)))[:VARIANTS_PER_KIND]


def family_floors(family: str, backdrops: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(f for f in FAMILY_FLOORS[family] if not backdrops or f in backdrops)


def family_look(rng: np.random.Generator, family: str, backdrops: tuple[str, ...] = ()) -> Look:
    """A floor of the family's kinds (those of ``backdrops`` when given) and a light rig, drawn from a child of
    ``rng`` (the scene's own draws stay the same)."""
    return draw_look(rng, family_floors(family, backdrops))


def everyday_objects(
    rng: np.random.Generator,
    family: str,
    n: int,
    *,
    twins: int = 0,
    pair: bool = False,
    kinds: tuple[str, ...] = (),
    materials: tuple[str, ...] = (),
) -> tuple[Object3D, ...]:
    """``n`` objects of ``family`` at their real proportions (one scale for the scene), not yet placed.

    Every object is a different kind, named by its kind (a ball by its style: ``ObjectModel.noun``), except: the
    first ``twins`` objects are identical (same kind, design, colour and size, so the same name), and with ``pair``
    the last two share a kind in two colours and are named with their colour ("red mug", "blue mug"). In the
    ``shapes`` family the objects are primitives named by colour and a shape word that matches the geometry. A
    painted object is named as it then looks (``ObjectModel.painted_noun``: a pink cardboard box is a "pink box").
    ``kinds`` and ``materials`` narrow the family's catalogue (see :class:`CatalogueConfig`)."""
    if family == "shapes":
        return _shapes(rng, n, twins)
    from mirforge.render.objects import model
    from mirforge.render.objects.place import place as place_object

    pool = list(catalogue_kinds(family, kinds, materials))
    n_kinds = n - max(twins - 1, 0) - (1 if pair else 0)
    for _ in range(KIND_TRIES):
        models = []
        for i in rng.permutation(len(pool)):
            kind = pool[int(i)]
            choices = kind_variants(kind, materials)
            m = model(kind, choices[int(rng.integers(len(choices)))])
            sides = [max(x.extents) for x in models] + [max(m.extents)]
            if max(sides) / min(sides) <= MAX_SIZE_RATIO:
                models.append(m)
                if len(models) == n_kinds:
                    break
        if len(models) == n_kinds:
            break
    else:
        raise Reject(f"{family}: no {n_kinds} kinds of similar size")
    scale = float(rng.uniform(*LARGEST_SIDE)) / max(max(m.extents) for m in models)
    out: list[Object3D] = []
    spread = [models[0]] * max(twins, 1) + models[1:]
    for m in spread:
        yaw = float(rng.uniform(0, 2 * math.pi))
        out.append(place_object(m.kind, m.variant, m.noun, (0.0, 0.0), m.height * scale, yaw=yaw))
    if pair:
        m = spread[-1]
        colors = [c for c in PALETTE if c not in ("brown", "gray")]
        a, b = (colors[int(i)] for i in rng.permutation(len(colors))[:2])
        height = m.height * scale

        def painted(color: str, yaw: float) -> Object3D:  # named as it looks painted: a pink cardboard box is a box
            name = f"{color} {m.painted_noun(PALETTE[color])}"
            return place_object(m.kind, m.variant, name, (0.0, 0.0), height, yaw=yaw, color=PALETTE[color])

        out[-1] = painted(a, out[-1].yaw)
        out.append(painted(b, float(rng.uniform(0, 2 * math.pi))))
    return tuple(out)


def _shapes(rng: np.random.Generator, n: int, twins: int) -> tuple[Object3D, ...]:
    """Clean primitives named by colour and what they are: a cube has equal sides, a block sides at least 25%
    apart, a ball is a sphere; cylinders and cones are round. Twins share colour, shape and size."""
    names = [c for c in PALETTE if c != "brown"]  # brown reads as the table
    n_kinds = n - max(twins - 1, 0)
    colors = [names[int(i)] for i in rng.permutation(len(names))[:n_kinds]]
    out = []
    for color in colors:
        word = SHAPE_WORDS[int(rng.integers(len(SHAPE_WORDS)))]
        w = float(rng.uniform(0.45, 0.8))
        if word in ("cube", "ball"):
            size = (w, w, w)
        elif word == "block":
            while True:
                size = (w, float(rng.uniform(0.45, 0.8)), float(rng.uniform(0.35, 1.2)))
                if max(size) / min(size) >= BLOCK_MIN_SPREAD:
                    break
        else:
            size = (w, w, float(rng.uniform(0.45, 1.2)))
        shape = {"cube": "box", "block": "box", "ball": "sphere"}.get(word, word)
        yaw = float(rng.uniform(0, math.pi / 2)) if shape == "box" else 0.0
        out.append(Object3D(f"{color} {word}", shape, size, PALETTE[color], (0.0, 0.0), yaw=yaw))
    return tuple([out[0]] * max(twins - 1, 0) + out)


def arrange(
    rng: np.random.Generator, objects: tuple[Object3D, ...], *, radius: float, gap: float = 0.2
) -> tuple[Object3D, ...]:
    """The objects placed at random on a disc of ``radius``, their footprints at least ``gap`` apart."""
    placed: list[Object3D] = []
    spots: dict[int, Object3D] = {}
    for k in sorted(range(len(objects)), key=lambda k: -footprint_radius(objects[k])):  # the widest first
        obj = objects[k]
        r = footprint_radius(obj)
        if r >= radius:
            raise Reject("an object is wider than the table")
        for _ in range(60):
            rho = (radius - r) * math.sqrt(float(rng.uniform()))
            phi = float(rng.uniform(0, 2 * math.pi))
            xy = (rho * math.cos(phi), rho * math.sin(phi))
            if all(math.dist(xy, o.position) >= r + footprint_radius(o) + gap for o in placed):
                break
        else:
            raise Reject("objects do not fit on the table")
        spots[k] = dataclasses.replace(obj, position=xy)
        placed.append(spots[k])
    return tuple(spots[k] for k in range(len(objects)))


# -- relations read from measured views ---------------------------------------------------------------------------
BASE_AGREE_PX = 3  # "nearer" needs the nearer object's lowest visible row at least this much lower in the picture
# two objects the steps call too close in depth to tell have their lowest visible rows at most this far apart: further
# apart, a person reads one as nearer, whatever the depth buffer says
TIE_FOOT_PX = 10


def lateral_sign(a: dict[str, Any] | None, b: dict[str, Any] | None, margin_px: float) -> int | None:
    """+1 when ``a`` is right of ``b`` in the picture, -1 left, 0 too close to tell, None when either is unseen."""
    if a is None or b is None:
        return None
    return sign(a["cx"] - b["cx"], margin_px)


def feet_level(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two measured objects' lowest visible rows are within ``TIE_FOOT_PX``: where their depths are too close
    to tell, the picture agrees only then."""
    return abs(a["box"][3] - b["box"][3]) <= TIE_FOOT_PX


def depth_sign(a: dict[str, Any] | None, b: dict[str, Any] | None, margin: float) -> int | None:
    """+1 when ``a`` is farther from the camera than ``b``, -1 nearer, 0 too close to tell, None when either is
    unseen. A depth difference counts only when what a person sees agrees: the nearer object's lowest visible row
    (where it meets the floor, unless something hides its foot) is lower in the picture."""
    if a is None or b is None:
        return None
    s = sign(a["depth"] - b["depth"], margin)
    if s and (b["box"][3] - a["box"][3]) * s < BASE_AGREE_PX:
        return 0
    return s
