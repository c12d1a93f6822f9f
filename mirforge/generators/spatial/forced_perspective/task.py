"""forced_perspective: true size when apparent size lies, by chaining reference objects across images.

MIR's example: "Is the hand or the tower in <image> bigger? Assume the car in <image> is the same size as in
<image>." Here a chain of everyday objects from the catalogue is photographed two at a time: Image 1 shows O0 with
O1, Image 2 the same O1 with O2, and so on. Each photo is taken by a level camera from its own height and distance,
on a patterned floor that reaches the horizon (``floor.py``); within a photo the two objects stand at different
distances, often the smaller one nearer so that it looks bigger (forced perspective). The question asks how the
real height of the last object compares with the first.

What can be seen answers it. A level camera's horizon is at the camera's height, so the part of an object below the
horizon line is exactly as tall as the camera is high: an object's pixel height over the pixels from its base up
to the horizon is its real height in camera heights. Within one photo the camera height is shared, so the ratio of
those two numbers is the ratio of the objects' real heights; the ratios multiply along the chain. The base of the
nearer object is lower in the picture, which the steps point out, but no distance is needed.

Objects have their real heights: every object's height is drawn within its style's real range (a pillar candle is
10 to 20 cm), so the pictures look right. World knowledge alone must still not answer, so the four options are four
independent draws of the same thing, the last object's height over the first's with both drawn from their real
ranges, at least ``option_gap`` apart, and the scene's heights are those of the first draw: the options are
exchangeable, and a guesser who knows every object's range is at chance. The apparent-size option (the pixel
heights of the first and the last object compared across their photos, depth ignored) is one of the three wrong
options, chosen at random: the photos are built to show it, so that naive reading always lands on a distractor and
never on the key (the verifier checks it on the rendered pixels). The price: a reader who knows this rule and
computes the naive ratio can drop one option (33% by guessing among the other three).

An object is named by what is measured, the whole object from its base to its top (the catalogue's ``noun``):
"potted plant", not "flower pot", whose pot alone is 40% of the height.

Every image is needed (``consistent``): with one photo hidden, its ratio is known only from the two objects' real
ranges, and the chain's objects are chosen so that this range leaves at least two options open; the verifier
rejects a chain where it does not.

The verifier reads only the pixels: the horizon row where the sky meets the floor, each object's pixel box, its
height and its base's distance below the horizon, and picks the option nearest the product in log ratio,
rejecting the scene unless it lies well inside half the option gap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from mirforge import LETTERS
from mirforge.errors import Reject
from mirforge.generators.spatial.forced_perspective.floor import Floor, draw_floor, horizon_row, paint
from mirforge.generators.spatial.multiview import projected_box
from mirforge.render.objects import describe, model
from mirforge.render.objects.place import place as place_object
from mirforge.render.scene3d import Camera, Object3D, Scene3D
from mirforge.task import (
    Layer,
    Needs,
    Question,
    Region,
    Rendered,
    Task,
    TaskConfig,
    check_families,
    ensure,
    per_level,
    place,
)

T = TypeVar("T")
YFOV = math.radians(30)  # a longer lens: objects stand far relative to their own depth, so heights read cleanly
MAX_IMAGES = 6
MAX_LINK = 3.5  # the two objects of one photo: the taller at most this many times the shorter, whatever their draws
MIN_LINK_SPREAD = 1.8  # the real ranges of two neighbours leave their ratio open by at least this factor
CAMERA_SHARE = (0.3, 0.85)  # the camera's height over the shorter object's: below both tops
WIDEST = 0.45  # an object at most this share of the frame's width, so that two fit side by side
CAMERA_GRID = 33  # camera heights tried (analytically) per photo
CAMERA_HEIGHTS = np.linspace(*CAMERA_SHARE, CAMERA_GRID)
MIN_BELOW_PX = 40  # an object's base at least this far below the horizon (its height reads to about 2%)
PAD = 10  # pixels kept free at the image's edges
MIN_PX, MAX_PX = 70.0, 380.0  # pixel heights the apparent-size option may compare
SAME = math.log(1.1)  # ratios within 10% of 1 read "about the same height"
MUCH_NEARER = 1.8  # "much nearer": its base at least this many times farther below the horizon
NEARER = 1.15  # "nearer": at least this; below it "a little nearer", its base "slightly lower"
# bases "at about the same height in the picture", the two "about as far from the camera": at most this many rows
# apart and within this factor below the horizon (a 13% gap, 20 rows, read "the same" under NEARER alone)
SAME_ROWS = 5
SAME_DISTANCE = 1.05
TALLER_LOOK = 1.05  # "looks taller": at least 5% more pixels
MEASURE_TOL = 0.4  # the measured ratio must lie within this share of the option gap (in log) of an option
SAMPLE_TRIES = 6  # chains and option sets drawn for one family before the attempt is rejected
HEIGHT_TRIES = 40  # height draws tried for one chain and set of options
SHOT_TRIES = 40  # placements tried per photo before the photos are taken again
CHAIN_TRIES = 10  # times the photos of one chain (kinds, heights, options) are taken before it is drawn again
ENDS = math.log(1.03)  # options keep 3% from the extreme ratios the real ranges allow
VARIANTS = 4  # variants drawn per kind (the first variants show every style)


# catalogue kinds per family and the floor they stand on; kinds whose silhouette top is not above their base front
# (tables, kettles, teapots, buckets with handles, candles with flames, pencils in a cup) read their height less
# exactly and are left out
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "living_room": (
        "boards",
        (
            "chair",
            "stool",
            "cabinet",
            "bookshelf",
            "floor lamp",
            "table lamp",
            "trash bin",
            "suitcase",
            "flower pot",
            "vase",
            "cardboard box",
            "teddy bear",
            "globe",
            "ball",
        ),
    ),
    "street": (
        "paving",
        (
            "traffic cone",
            "fire hydrant",
            "trash bin",
            "suitcase",
            "cardboard box",
            "flower pot",
            "ball",
            "stool",
            "chair",
            "bookshelf",
        ),
    ),
    "kitchen": (
        "tiles",
        (
            "vase",
            "bottle",
            "glass",
            "jar",
            "can",
            "mug",
            "cup",
            "thermos",
            "alarm clock",
            "wine glass",
            "wine bottle",
            "flower pot",
            "cereal box",
        ),
    ),
    "playroom": (
        "mat",
        ("teddy bear", "ball", "rubber duck", "globe", "cardboard box", "cup", "alarm clock", "jar", "vase", "mug"),
    ),
}
FLOOR_WORDS = {
    "boards": "wooden floor",
    "paving": "paved square",
    "tiles": "tiled floor",
    "mat": "foam play mat",
}
BACK_FACING = frozenset({"chair"})  # turned away from the camera, so the top of the backrest is its nearest top
# styles whose lowest point is not under their front (a wheelie bin stands on wheels at its back) read worse; an
# open box's flaps stand above its walls, so "the box's height" reads two ways
LEFT_OUT = frozenset({("trash bin", "wheelie bin"), ("cardboard box", "open")})


@dataclass
class ForcedPerspectiveConfig(TaskConfig):
    families: tuple[str, ...] = tuple(FAMILIES)  # the scene families drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)
    images_per_level: tuple[int, ...] = per_level(3, 4, 6)  # chain links; the chain has one more object than images
    option_gap: tuple[float, ...] = per_level(1.5, 1.35, 1.25)  # options differ by at least this factor
    # share of photos where the smaller object looks bigger (among photos whose objects differ in height by 10%)
    misleading: tuple[float, ...] = per_level(0.5, 0.7, 0.85)
    max_tries: int = 60

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(
            all(2 <= n <= MAX_IMAGES for n in self.images_per_level),
            "images_per_level",
            f"each count must be 2 to {MAX_IMAGES} (longer chains compound measurement error past the option gap)",
        )
        ensure(all(1.2 <= g <= 1.8 for g in self.option_gap), "option_gap", "each gap must be between 1.2 and 1.8")
        ensure(self.n_options == 4, "n_options", "must be 4")
        ensure(all(0 <= m <= 1 for m in self.misleading), "misleading", "shares must be between 0 and 1")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Item:
    """A catalogue object as a chain member: its kind, variant and the real height range of its style (metres)."""

    kind: str
    variant: int
    low: float
    high: float
    name: str  # what the question and the steps call it: the catalogue noun, naming all that is measured

    @property
    def spread(self) -> float:
        return self.high / self.low


@dataclass(frozen=True)
class Shot:
    """One photo: two chain objects (earlier, later), the camera's height (metres) and the floor. World units are
    camera heights: the camera's eye is at (0, 0, 1) looking along +y."""

    objects: tuple[Object3D, Object3D]
    camera_m: float
    floor: Floor
    misleading: bool


@dataclass(frozen=True)
class Scene:
    family: str
    chain: tuple[Item, ...]  # O0 .. On
    heights: tuple[float, ...]  # real heights in metres
    shots: tuple[Shot, ...]
    gap: float
    values: tuple[float, ...]  # the options' ratios (last over first), the truth first
    apparent: int  # which option the pixel heights of the first and the last object show


class ForcedPerspective(Task):
    name = "forced_perspective"
    category = "spatial"
    description = "Real size ratios through a chain of reference objects when apparent size misleads"
    Config = ForcedPerspectiveConfig
    needs = Needs(realism=True)

    @property
    def focal(self) -> float:
        return self.image_size / 2 / math.tan(YFOV / 2)

    def knobs(self, level: int) -> dict[str, Any]:
        c = self.config
        i = self.levels.index(level)
        n = c.images_per_level[i]
        return {
            "families": list(c.chosen()),
            "n_images": n,
            "chain_length": n + 1,
            "option_gap": c.option_gap[i],
            "misleading": c.misleading[i],
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        families = k["families"]
        family = families[int(rng.integers(len(families)))]
        # the family is drawn once per attempt and kept while its chains are drawn again: families that are harder
        # to photograph would otherwise be drawn less often
        return _retry(SAMPLE_TRIES, lambda: self._sample(rng, level, family))

    def _sample(self, rng: np.random.Generator, level: int, family: str) -> Scene:
        k = self.knobs(level)
        n, gap = k["n_images"], k["option_gap"]
        chain = _chain(rng, FAMILIES[family][1], n + 1, gap)
        first, last = chain[0], chain[-1]
        ratios = _option_values(rng, first, last, gap)
        truth = int(rng.integers(len(ratios)))
        values = (ratios[truth], *ratios[:truth], *ratios[truth + 1 :])  # the truth first
        # the apparent-size option (what the pixel heights of the first and the last object show, depth ignored) is
        # a wrong one: that naive reading must never give the key (verify checks what was rendered)
        showable = [i for i, v in enumerate(values) if i != 0 and abs(math.log(v)) <= math.log(MAX_PX / MIN_PX) - 0.05]
        if not showable:
            raise Reject("no option can be shown by pixel heights")
        apparent = showable[int(rng.integers(len(showable)))]
        heights = _retry(HEIGHT_TRIES, lambda: _heights(rng, chain, values, gap, self.requires_needed(level)))
        # which photos mislead is decided before any is placed and kept while placements are tried, so that
        # hard-to-place misleading photos are not quietly replaced by easy ones; the share holds among photos whose
        # objects differ in height
        pairs = zip(heights[:-1], heights[1:], strict=True)
        misleading = [bool(rng.uniform() < k["misleading"]) and _differ(a, b) for a, b in pairs]

        plan = self._plan(chain, heights, values[apparent], misleading)

        def photograph() -> Scene:
            shots = self._shots(rng, family, plan, values[apparent])
            return Scene(family, chain, heights, shots, float(gap), values, apparent)

        return _retry(CHAIN_TRIES, photograph)

    def _plan(
        self, chain: tuple[Item, ...], heights: tuple[float, ...], apparent: float, misleading: list[bool]
    ) -> tuple[list[Framing], list[float]]:
        """Each photo's framing and the pixel heights (of a grid) at which the first object can be shown in the
        first photo with the last shown ``apparent`` times as tall in the last. Deterministic: a chain that cannot
        be framed is refused at once, not tried again."""
        n = len(chain) - 1
        framings = [
            Framing(self.image_size, (chain[i], chain[i + 1]), (heights[i], heights[i + 1]), misleading[i])
            for i in range(n)
        ]
        lo, hi = max(MIN_PX, MIN_PX / apparent), min(MAX_PX, MAX_PX / apparent)
        grid = np.linspace(lo, hi, 25) if lo < hi else np.array([])
        shows = [float(p) for p in grid if framings[0].cameras((0, p)) and framings[-1].cameras((1, apparent * p))]
        if not shows:
            raise Reject("no pixel height shows the first and the last object as pinned")
        if not all(framing.cameras(None) for framing in framings[1:-1]):
            raise Reject("no camera height frames both objects of a photo")
        return framings, shows

    def _shots(
        self, rng: np.random.Generator, family: str, plan: tuple[list[Framing], list[float]], apparent: float
    ) -> tuple[Shot, ...]:
        """One photo per link, the first object in the first photo and the last in the last pinned to pixel heights
        ``apparent`` apart."""
        framings, shows = plan
        n = len(framings)
        step = (shows[1] - shows[0]) if len(shows) > 1 else 0.0
        first_px = shows[int(rng.integers(len(shows)))]
        jittered = first_px + float(rng.uniform(-0.5, 0.5)) * step
        if framings[0].cameras((0, jittered)) and framings[-1].cameras((1, apparent * jittered)):
            first_px = jittered
        pinned = {0: (0, first_px), n - 1: (1, apparent * first_px)} if n > 1 else {}
        pattern = FAMILIES[family][0]
        return tuple(
            _retry(SHOT_TRIES, lambda i=i: self._shot(rng, framings[i], pinned.get(i), pattern)) for i in range(n)
        )

    def _shot(self, rng: np.random.Generator, framing: Framing, fixed: tuple[int, float] | None, pattern: str) -> Shot:
        """Two objects photographed by a level camera, below both their tops, at chosen pixel heights."""
        size, f = self.image_size, self.focal
        pair, metres = framing.pair, framing.metres
        fits = framing.cameras(fixed)
        if not fits:
            raise Reject("no camera height frames both objects")
        width = (CAMERA_SHARE[1] - CAMERA_SHARE[0]) / (CAMERA_GRID - 1)
        u = fits[int(rng.integers(len(fits)))] + float(rng.uniform(-0.5, 0.5)) * width
        u = min(max(u, CAMERA_SHARE[0]), CAMERA_SHARE[1])
        px = framing.pixels(rng, u, fixed)
        camera_m = u * min(metres)
        tall = [r / u for r in framing.rel]  # heights in camera heights

        scale = [metres[i] / camera_m / model(pair[i].kind, pair[i].variant).height for i in range(2)]
        extents = [np.array(model(p.kind, p.variant).extents) * s for p, s in zip(pair, scale, strict=True)]
        front = [f * tall[i] / px[i] for i in range(2)]  # distance to each object's front face
        depth = [front[i] + extents[i][1] / 2 for i in range(2)]
        widths = [f * extents[i][0] / front[i] for i in range(2)]
        centres = _side_by_side(widths, int(rng.integers(2)), np.sort(rng.uniform(0, 1, 2)), size)
        objects = tuple(
            place_object(
                pair[i].kind,
                pair[i].variant,
                pair[i].name,
                ((centres[i] - size / 2) * front[i] / f, depth[i]),  # the front face centred there
                tall[i],
                yaw=math.pi if pair[i].kind in BACK_FACING else 0.0,
            )
            for i in range(2)
        )
        camera = _camera()
        boxes = [projected_box(o, camera, size) for o in objects]
        for x0, y0, x1, y1 in boxes:
            if x0 < PAD or y0 < PAD or x1 > size - PAD or y1 > size - PAD:
                raise Reject("an object leaves the frame")
        if min(boxes[0][2], boxes[1][2]) - max(boxes[0][0], boxes[1][0]) > -8:
            raise Reject("the two objects overlap in the image")
        return Shot(objects, camera_m, draw_floor(rng, pattern, 1.0), framing.misleading)  # type: ignore[arg-type]

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        first, last = scene.chain[0].name, scene.chain[-1].name
        order = [0, *(1 + int(i) for i in rng.permutation(len(scene.values) - 1))]
        values = [scene.values[i] for i in order[1:]]
        ordered = place(scene.values[0], values, slot)
        kinds = place("truth", ["apparent" if i == scene.apparent else "other" for i in order[1:]], slot)
        options = [_ratio_text(v, first, last) for v in ordered]
        if len(set(options)) != len(options):
            raise Reject("two options read the same")
        facts = {
            "chain": [it.name for it in scene.chain],
            "priors": [[it.low, it.high] for it in scene.chain],
            "values": [round(v, 4) for v in ordered],
            "kinds": kinds,
            "gap": scene.gap,
        }
        return Question(text=_question_text(scene, rng), options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        r = renderer(self.image_size)
        images, measured, regions, layers = [], [], [], []
        for i, shot in enumerate(scene.shots):
            camera = _camera()
            (view,) = r.views(Scene3D(shot.objects, ground=False), [camera])
            rgb = paint(view.rgb, view.ids, shot.floor, shot.objects, camera.eye, self.focal)
            names = [o.name for o in shot.objects]
            layers.append(Layer(ids=view.ids, names=names, depth=view.depth))  # for a realism pass
            horizon = horizon_row(rgb, view.ids)
            seen: dict[str, Any] = {"horizon": horizon, "objects": {}}
            for k, name in enumerate(names):
                box = view.box(k)
                if box is None:
                    continue
                seen["objects"][name] = {
                    "box": box,
                    "cx": (box[0] + box[2]) / 2,
                    "height_px": box[3] - box[1],
                    "below_px": None if horizon is None else box[3] - horizon,
                }
                regions.append(Region(i, name, box))
            images.append(rgb)
            measured.append(seen)
        return Rendered(images=images, measured={"images": measured}, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        fits = self.consistent(question, rendered, frozenset())
        if len(fits) != 1:
            raise Reject("the measured ratio is not close enough to exactly one option")
        if _apparent_option(question.facts, rendered.measured["images"]) in fits:
            raise Reject("the pixel heights alone, depth ignored, point at the answer")
        return next(iter(fits))

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options within the measurement tolerance of the range the shown photos leave for the total ratio: a
        hidden photo's ratio is known only from its two objects' real height ranges (``facts['priors']``)."""
        f = question.facts
        lo = hi = 0.0  # log range of the total ratio
        for i, seen in enumerate(rendered.measured["images"]):
            if i in hidden:
                (a_lo, a_hi), (b_lo, b_hi) = f["priors"][i], f["priors"][i + 1]
                lo += math.log(b_lo / a_hi)
                hi += math.log(b_hi / a_lo)
                continue
            link = math.log(_link(f["chain"][i], f["chain"][i + 1], seen))
            lo += link
            hi += link
        tol = MEASURE_TOL * math.log(f["gap"])
        return {k for k, v in enumerate(f["values"]) if lo - tol <= math.log(v) <= hi + tol}

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f = question.facts
        chain = f["chain"]
        shots, running = [], 1.0
        for i, seen in enumerate(rendered.measured["images"]):
            a, b = chain[i], chain[i + 1]
            ma, mb = seen["objects"][a], seen["objects"][b]
            sa, sb = ma["height_px"] / ma["below_px"], mb["height_px"] / mb["below_px"]
            link = sb / sa
            # the chain multiplies the links as written (two decimals), so the product the steps state is the one
            # a reader gets from the factors shown; links rounded to two digits drifted up to 5% from it
            running *= round(link, 2)
            near, far = (a, b) if ma["below_px"] > mb["below_px"] else (b, a)
            looks = max(ma["height_px"], mb["height_px"]) / min(ma["height_px"], mb["height_px"])
            taller_look = a if ma["height_px"] > mb["height_px"] else b
            shots.append(
                {
                    "image": i + 1,
                    "a": a,
                    "b": b,
                    "a_box": ma["box"],
                    "b_box": mb["box"],
                    "horizon": seen["horizon"],
                    "a_px": ma["height_px"],
                    "b_px": mb["height_px"],
                    "a_below": ma["below_px"],
                    "b_below": mb["below_px"],
                    "a_size": sig(sa),
                    "b_size": sig(sb),
                    "link": f"{link:.2f}",
                    "link_text": _lower(_ratio_text(round(link, 2), a, b, digits=2)),
                    "running": sig(running),
                    "left": a if ma["cx"] < mb["cx"] else b,
                    "right": b if ma["cx"] < mb["cx"] else a,
                    "nearer": near,
                    "farther": far,
                    "distance": _distance(ma["below_px"], mb["below_px"]),
                    "looks_taller": taller_look if looks >= TALLER_LOOK else None,
                    "deceives": looks >= TALLER_LOOK and (taller_look == b) != (link > 1),
                    "floor": FLOOR_WORDS[scene.shots[i].floor.pattern],
                    "crossed": all(m["box"][1] < seen["horizon"] < m["box"][3] for m in (ma, mb)),
                }
            )
        first_px, last_px = _end_pixels(f, rendered.measured["images"])
        return {
            "chain": chain,
            "first": chain[0],
            "last": chain[-1],
            "shots": shots,
            "total": f"{running:.2f}",
            "total_text": _lower(_ratio_text(running, chain[0], chain[-1], digits=2)),
            "links": [s["link"] for s in shots],
            "first_px": first_px,
            "last_px": last_px,
            "apparent_ratio": sig(max(last_px / first_px, first_px / last_px)),
            # the option nearest what the pixel heights show, quoted as it reads: a wrong one (verify)
            "apparent_text": question.options[_apparent_option(f, rendered.measured["images"])],
            "answer_text": question.options[question.answer],
            "letters": LETTERS[: len(question.options)],
        }


class Framing:
    """What pixel heights two objects of one photo may take: the camera at ``u`` times the shorter object's height
    (``CAMERA_SHARE``), each base at least MIN_BELOW_PX below the horizon, each top inside the frame, each object
    narrow enough to stand beside the other, and the smaller one's pixel height over the bigger one's in the range
    the photo asks for (above 1 when it misleads)."""

    def __init__(self, size: int, pair: tuple[Item, Item], metres: tuple[float, float], misleading: bool):
        self.size, self.pair, self.metres, self.misleading = size, pair, metres, misleading
        self.half = size / 2 - PAD
        self.rel = [m / min(metres) for m in metres]  # heights in units of the shorter one
        extents = [model(p.kind, p.variant).extents for p in pair]
        self.aspect = [e[0] / e[2] for e in extents]  # width over height
        self.big = 0 if metres[0] >= metres[1] else 1
        self.small = 1 - self.big
        rho = metres[self.big] / metres[self.small]
        self.want = (1.1, 1.8) if misleading else (0.6 / rho, 0.93)

    def px_range(self, i: int, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pixel heights object ``i`` may take at camera heights ``u`` (lowest, highest)."""
        tall = self.rel[i] / u  # in camera heights
        with np.errstate(divide="ignore"):
            top = np.where(tall > 1, self.half / (1 - 1 / tall), math.inf)
        wide = WIDEST * (self.size - 2 * PAD) / self.aspect[i]
        return MIN_BELOW_PX * tall, np.minimum(np.minimum(self.half * tall, top), min(MAX_PX, wide))

    def ratios(self, u: np.ndarray, fixed: tuple[int, float] | None) -> tuple[np.ndarray, np.ndarray]:
        """The ratios that fit at camera heights ``u`` (with the pinned object at its pixel height): from the first
        array to the second, none where the first is not below the second."""
        lo, hi = self.want
        ranges = [self.px_range(0, u), self.px_range(1, u)]
        fit = (ranges[0][0] < ranges[0][1]) & (ranges[1][0] < ranges[1][1])
        big, small = self.big, self.small
        with np.errstate(divide="ignore"):
            if fixed is None:  # px_big in ranges[big] and px_big * ratio in ranges[small]
                r_lo, r_hi = (
                    np.maximum(lo, ranges[small][0] / ranges[big][1]),
                    np.minimum(hi, ranges[small][1] / ranges[big][0]),
                )
            else:
                i, p = fixed
                fit &= (ranges[i][0] <= p) & (p <= ranges[i][1])
                j_lo, j_hi = ranges[1 - i]
                if i == big:  # px_small = p * ratio
                    r_lo, r_hi = np.maximum(lo, j_lo / p), np.minimum(hi, j_hi / p)
                else:  # px_big = p / ratio
                    r_lo, r_hi = np.maximum(lo, p / j_hi), np.minimum(hi, p / j_lo)
        return np.where(fit, r_lo, 1.0), np.where(fit, r_hi, 0.0)

    def cameras(self, fixed: tuple[int, float] | None) -> list[float]:
        """The camera heights of a fine grid at which some ratio fits."""
        r_lo, r_hi = self.ratios(CAMERA_HEIGHTS, fixed)
        return CAMERA_HEIGHTS[r_lo < r_hi].tolist()

    def pixels(self, rng: np.random.Generator, u: float, fixed: tuple[int, float] | None) -> list[float]:
        """Pixel heights of the two objects at camera height ``u``."""
        r_lo, r_hi = map(float, self.ratios(np.float64(u), fixed))
        if r_lo >= r_hi:
            raise Reject("no ratio fits at this camera height")
        ratio = float(rng.uniform(r_lo, r_hi))
        big, small = self.big, self.small
        px = [0.0, 0.0]
        if fixed is not None:
            i, p = fixed
            px[i] = p
            px[1 - i] = p * ratio if i == big else p / ratio
        else:
            ranges = [tuple(map(float, self.px_range(j, np.float64(u)))) for j in (0, 1)]
            b_lo = max(ranges[big][0], ranges[small][0] / ratio)
            b_hi = min(ranges[big][1], ranges[small][1] / ratio)
            px[big] = float(rng.uniform(b_lo, b_hi))
            px[small] = px[big] * ratio
        return px


# -- helpers ------------------------------------------------------------------------------------------------------
def sig(value: float) -> str:
    """Two significant digits (three below 1 would claim too much; "1.0", never "1"): what a ratio of pixel counts
    of 40 px and more supports."""
    if value >= 10:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def _camera() -> Camera:
    """The level camera of every photo, in camera-height units."""
    return Camera(eye=(0.0, 0.0, 1.0), target=(0.0, 10.0, 1.0), yfov=YFOV)


def _differ(a: float, b: float) -> bool:
    """Heights more than 10% apart: only then can the smaller look bigger."""
    return abs(math.log(a / b)) > SAME


def _log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


@lru_cache(maxsize=16)
def items(kinds: tuple[str, ...]) -> tuple[Item, ...]:
    """The (kind, variant) pool of a family with each style's real height range."""
    out = []
    for kind in kinds:
        styles = {s["name"]: s["height_m"] for s in describe(kind)["styles"]}
        for v in range(VARIANTS):
            style = model(kind, v).style
            if (kind, style) not in LEFT_OUT:
                low, high = styles[style]
                out.append(Item(kind, v, float(low), float(high), model(kind, v).noun))
    return tuple(out)


def _compatible(a: Item, b: Item) -> bool:
    """Any heights the two may have fit one photo (at most MAX_LINK apart), and their ranges leave the ratio open."""
    return b.high / a.low <= MAX_LINK and a.high / b.low <= MAX_LINK and a.spread * b.spread >= MIN_LINK_SPREAD


def _chain(rng: np.random.Generator, kinds: tuple[str, ...], n: int, gap: float) -> tuple[Item, ...]:
    """A random walk of ``n`` different kinds, each neighbour compatible with the last; the two ends' ranges wide
    enough together that four ratios ``gap`` apart fit between their extremes."""
    pool = items(kinds)
    need = 3 * math.log(gap) + 2 * ENDS
    widest = max(math.log(it.spread) for it in pool)
    starts = [it for it in pool if math.log(it.spread) + widest >= need]
    for _ in range(100):
        picked = [starts[int(rng.integers(len(starts)))]]
        while len(picked) < n:
            used = {p.kind for p in picked}
            nxt = [it for it in pool if it.kind not in used and _compatible(picked[-1], it)]
            if len(picked) == n - 1:
                nxt = [it for it in nxt if math.log(it.spread * picked[0].spread) >= need]
            if not nxt:
                break
            picked.append(nxt[int(rng.integers(len(nxt)))])
        if len(picked) == n:
            return tuple(picked)
    raise Reject("no chain of compatible kinds")


def _option_values(rng: np.random.Generator, first: Item, last: Item, gap: float) -> list[float]:
    """Four ratios (last over first) that the two real ranges allow, at least ``gap`` apart, drawn uniformly over
    all such sets (in log), smallest first. Which of them is the truth is drawn afterwards, uniformly: the set tells
    nothing about it, whatever one knows of the objects' real heights."""
    step = math.log(gap)
    low = math.log(last.low / first.high) + ENDS
    span = math.log(last.high / first.low) - ENDS - low
    slack = span - 3 * step
    if slack < 0:
        raise Reject("the ends' real ranges are too narrow for four options")
    return [math.exp(low + u + k * step) for k, u in enumerate(np.sort(rng.uniform(0, slack, 4)))]


def _heights(
    rng: np.random.Generator, chain: tuple[Item, ...], values: tuple[float, ...], gap: float, needed: bool
) -> tuple[float, ...]:
    """Real heights (metres) within each style's range, the last over the first equal to the truth (``values[0]``).

    With ``needed``, drawn again until hiding any one photo would leave a second option open (judged from the true
    heights with half the measurement tolerance to spare): only the heights are redrawn, never the options or which
    of them is the truth, so the options stay exchangeable."""
    first, last, truth = chain[0], chain[-1], values[0]
    h0 = _log_uniform(rng, max(first.low, last.low / truth), min(first.high, last.high / truth))
    heights = (h0, *(_log_uniform(rng, it.low, it.high) for it in chain[1:-1]), h0 * truth)
    if needed:
        tol = 0.5 * MEASURE_TOL * math.log(gap)
        for k in range(len(chain) - 1):
            a, b = chain[k], chain[k + 1]
            rest = math.log(truth / (heights[k + 1] / heights[k]))
            lo, hi = rest + math.log(b.low / a.high) - tol, rest + math.log(b.high / a.low) + tol
            if sum(lo <= math.log(v) <= hi for v in values) < 2:
                raise Reject("a photo would not be needed")
    return heights


def _retry(tries: int, attempt: Callable[[], T]) -> T:
    """The first result of ``attempt`` that is not rejected (each try draws on from the same RNG stream)."""
    why = "nothing tried"
    for _ in range(tries):
        try:
            return attempt()
        except Reject as exc:
            why = str(exc)
    raise Reject(why)


def _side_by_side(widths: list[float], left: int, shares: np.ndarray, size: int) -> list[float]:
    """Pixel x of the centres of two objects ``widths`` wide, object ``left`` on the left, the free width of the
    frame cut at ``shares`` (two sorted fractions) into the left margin, the space between and the right margin."""
    free = size - 2 * PAD - sum(widths) - 16
    if free < 0:
        raise Reject("the two objects are too wide to stand side by side")
    right = 1 - left
    centres = [0.0, 0.0]
    centres[left] = PAD + shares[0] * free + widths[left] / 2
    centres[right] = PAD + shares[1] * free + widths[left] + 16 + widths[right] / 2
    return centres


def _link(a: str, b: str, seen: dict[str, Any]) -> float:
    """Real height of ``b`` over ``a`` in one photo: each is its pixel height over its base's pixels below the
    horizon (its height in camera heights)."""
    objects = seen["objects"]
    if seen["horizon"] is None:
        raise Reject("no horizon in a photo")
    if a not in objects or b not in objects:
        raise Reject("a chain object is hidden")
    ma, mb = objects[a], objects[b]
    if min(ma["below_px"], mb["below_px"]) < MIN_BELOW_PX * 0.8:
        raise Reject("an object's base is too close to the horizon to measure")
    return (mb["height_px"] / mb["below_px"]) / (ma["height_px"] / ma["below_px"])


def _distance(a_below: int, b_below: int) -> str:
    """How much nearer the object whose base is lower stands, in the captions' words (its base's rows below the
    horizon over the other's is the other's distance over its)."""
    near, far = max(a_below, b_below), min(a_below, b_below)
    if near / far >= MUCH_NEARER:
        return "much"
    if near / far >= NEARER:
        return "some"
    if near - far <= SAME_ROWS and near / far < SAME_DISTANCE:
        return "same"
    return "slight"


def _end_pixels(facts: dict[str, Any], images: list[dict[str, Any]]) -> tuple[int, int]:
    """Pixel heights of the first object in the first photo and of the last object in the last photo."""
    chain = facts["chain"]
    return images[0]["objects"][chain[0]]["height_px"], images[-1]["objects"][chain[-1]]["height_px"]


def _apparent_option(facts: dict[str, Any], images: list[dict[str, Any]]) -> int:
    """The option (last over first) nearest in log ratio to the measured pixel heights of the two ends: the answer
    of a reader who compares apparent sizes and ignores depth."""
    first_px, last_px = _end_pixels(facts, images)
    seen = math.log(last_px / first_px)
    return min(range(len(facts["values"])), key=lambda k: abs(math.log(facts["values"][k]) - seen))


def _lower(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:]


def _ratio_text(value: float, first: str, last: str, digits: int = 1) -> str:
    """An option's ratio (one decimal, "about the same height" within SAME), or a step's (``digits=2``, the same
    height only where it reads 1.00: a step that called 0.92 "about the same height" then multiplied by 0.92, and a
    product of 1.26 written "about 1.3" sat beside the answer "about 1.2")."""
    same = abs(math.log(value)) < SAME if digits == 1 else f"{value:.2f}" == "1.00"
    if same:
        return f"The {first} and the {last} are about the same height"
    if value >= 1:
        return f"The {last} is about {value:.{digits}f} times as tall as the {first}"
    return f"The {first} is about {1 / value:.{digits}f} times as tall as the {last}"


def _question_text(scene: Scene, rng: np.random.Generator) -> str:
    chain = [it.name for it in scene.chain]
    parts = []
    for i in range(len(scene.shots)):
        a, b = chain[i], chain[i + 1]
        # "and", "in one photo": never "next to" or "beside", which would say the two stand equally far away
        if i == 0:
            verb = ("shows the {a} and the {b}", "is a photo of the {a} and the {b}")[int(rng.integers(2))]
        else:
            verb = ("shows the same {a} and the {b}", "is a photo of that {a} and the {b}")[int(rng.integers(2))]
        parts.append("<image> " + verb.format(a=a, b=b) + ".")
    assume = (
        "Every object has the same real size in every photo it appears in. Each photo was taken with the camera "
        "held level; its height and distance may change from photo to photo."
    )
    ask = (
        f"How does the real height of the {chain[-1]} compare with that of the {chain[0]}?",
        f"Which statement about the real heights of the {chain[0]} and the {chain[-1]} is correct?",
    )[int(rng.integers(2))]
    return " ".join(parts) + " " + assume + " " + ask
