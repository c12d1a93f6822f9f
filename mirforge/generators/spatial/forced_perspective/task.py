"""forced_perspective: true size when apparent size lies, by chaining reference objects across images.

MIR's example: "Is the hand or the tower in <image> bigger? Assume the car in <image> is the same size as in
<image>." Here a chain of everyday objects (coloured primitives from a small catalogue; their real heights are drawn
at random, independently of what they are, so world knowledge cannot answer) is photographed two at a time: Image 1
shows O0 with O1, Image 2 the same O1 with O2, and so on. Within one image the two objects stand at different
distances, usually with the smaller one nearer so that it looks bigger (forced perspective), and every image is
taken at its own unknown scale. The question asks how the real height of the last object compares with the first.
Only the chain answers it: in each image the real height ratio is (pixel height x distance) of one object over the
other's, and the ratios multiply along the chain.

The options are height ratios, 25% or more apart (``option_gap``): the true ratio, the apparent-size answer (pixel
heights compared across the first and the last image), and other ratios of the same kind (random, not computed),
one of the options offered with its inverse (the answer as often as its fair share). A text-only guesser must not
tell them apart, so every option's ratio is drawn the same way (sizes spread over [sqrt(gap), MAX_RATIO] and handed
to the kinds at random, directions by coin flip) and the scene is built to match: the chain's heights are pinned to
the true ratio, and the first and the last object are photographed at pixel heights whose ratio is the apparent
one. (Distractors computed from the scene's own mistakes, such as chaining pixel heights without distances, had
their own size distributions, and a text-only classifier learned to avoid them: 40% on four options.) The verifier
measures each object's pixel height from its segmentation mask and its distance as the median of the depth buffer
over its mask, estimates its size as pixel height x depth / focal length, multiplies the within-image ratios along
the chain and picks the option nearest in log ratio, rejecting the scene unless it lies well inside half the option
gap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import numpy as np

from mirforge import LETTERS
from mirforge.errors import Reject
from mirforge.generators.spatial.multiview import in_frame, measure_view, projected_box
from mirforge.render.look import BACKDROPS, Look, draw_look
from mirforge.render.scene3d import PALETTE, Camera, Object3D, Scene3D
from mirforge.task import Layer, Needs, Question, Region, Rendered, Task, TaskConfig, ensure, place

T = TypeVar("T")
YFOV = math.pi / 4
MAX_IMAGES = 6
MAX_LINK_RATIO = 3.2  # real height ratio of the two objects of one image, at most
MAX_RATIO = 4.0  # every option's ratio lies between 1 / MAX_RATIO and MAX_RATIO (pixel heights can show it)
MAX_PX = 300.0  # tallest an object may look in an image
SAME = math.log(1.1)  # ratios within 10% of 1 read "about the same height"
SHOT_TRIES = 25  # placements tried per image before the chain is drawn again
CHAIN_TRIES = 10  # chains (items, heights, shots) tried for one set of options before the options are drawn again
CAM_Y = -8.0  # cameras stand here and look along +y, so objects up to 24 units away stay on the 40 x 40 ground


@dataclass(frozen=True)
class Item:
    noun: str
    shape: str
    color: str
    height: float  # cm
    width: float  # cm
    depth: float  # cm

    @property
    def aspect(self) -> float:
        """Width over height as the camera sees it (the narrow side faces the camera)."""
        return min(self.width, self.depth) / self.height


CATALOGUE: tuple[Item, ...] = (
    Item("can", "cylinder", "red", 12, 6.6, 6.6),
    Item("mug", "cylinder", "blue", 10, 9, 9),
    Item("toy truck", "box", "yellow", 11, 22, 10),
    Item("table lamp", "cone", "green", 45, 28, 28),
    Item("bottle", "capsule", "cyan", 30, 8, 8),
    Item("ball", "sphere", "pink", 22, 22, 22),
    Item("cardboard box", "box", "brown", 30, 40, 35),
    Item("traffic cone", "cone", "orange", 70, 40, 40),
    Item("trash bin", "cylinder", "gray", 70, 45, 45),
    Item("globe", "sphere", "cyan", 34, 34, 34),
    Item("thermos", "capsule", "purple", 28, 9, 9),
    Item("cabinet", "box", "purple", 100, 55, 45),
    Item("flower pot", "cylinder", "orange", 20, 18, 18),
    Item("stool", "cylinder", "brown", 45, 35, 35),
)


NARROW = tuple(it for it in CATALOGUE if it.aspect <= 0.8)


@dataclass
class ForcedPerspectiveConfig(TaskConfig):
    images_per_level: tuple[int, ...] = (3, 4, 6)  # chain links; the chain has one more object than images
    option_gap: tuple[float, ...] = (1.6, 1.4, 1.25)  # per level: options differ by at least this factor
    misleading: tuple[float, ...] = (0.5, 0.7, 0.85)  # per level: share of images where the smaller looks bigger
    size_jitter: float = 0.15  # link ratios drawn within MAX_LINK_RATIO ** (1 / (1 + size_jitter)), then shifted
    min_height_px: int = 60
    max_tries: int = 100
    backdrops: tuple[str, ...] = BACKDROPS  # the floors (and skies) the photos are taken on

    def validate(self) -> None:
        super().validate()
        for field_name in ("images_per_level", "option_gap", "misleading"):
            ensure(len(getattr(self, field_name)) == 3, field_name, "needs one value per level (3 values)")
        ensure(
            all(2 <= n <= MAX_IMAGES for n in self.images_per_level),
            "images_per_level",
            f"each count must be 2 to {MAX_IMAGES} (longer chains compound measurement error past the option gap)",
        )
        ensure(all(g >= 1.25 for g in self.option_gap), "option_gap", "must be at least 1.25 (options 25% apart)")
        sizes = self.n_options - (self.n_options >= 4)  # distinct |log ratio| among the options
        widest = MAX_RATIO ** (1 / (sizes - 0.5))
        ensure(
            all(g <= widest + 1e-9 for g in self.option_gap),
            "option_gap",
            f"must be at most {widest:.2f} with {self.n_options} options (their ratios, this far apart, must fit "
            f"between 1/{MAX_RATIO:g} and {MAX_RATIO:g})",
        )
        ensure(all(0 <= m <= 1 for m in self.misleading), "misleading", "shares must be between 0 and 1")
        ensure(0 <= self.size_jitter < 0.5, "size_jitter", "must be in [0, 0.5)")
        tallest = int(MAX_PX / MAX_RATIO / 1.1)
        ensure(
            40 <= self.min_height_px <= tallest,
            "min_height_px",
            f"must be between 40 and {tallest} (the apparent-size option needs one object up to {MAX_RATIO:g} times "
            f"taller than another within {MAX_PX:g} px)",
        )
        ensure(
            bool(self.backdrops) and set(self.backdrops) <= set(BACKDROPS),
            "backdrops",
            f"each must be one of {', '.join(BACKDROPS)}",
        )


@dataclass(frozen=True)
class Shot:
    """One image: two chain objects (earlier, later) and its camera, at the image's own scale."""

    objects: tuple[Object3D, Object3D]
    camera: Camera
    pitch: float  # radians the camera looks down (its calibration, like the focal length)
    misleading: bool


@dataclass(frozen=True)
class Scene:
    chain: tuple[str, ...]  # object nouns, O0 .. On
    heights: tuple[float, ...]  # real heights in cm
    shots: tuple[Shot, ...]
    gap: float
    options: tuple[tuple[str, float], ...]  # (kind, ratio) of every option, the truth first, the apparent second
    look: Look = Look()  # one floor and light for every photo


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
        n = c.images_per_level[level - 1]
        return {
            "n_images": n,
            "chain_length": n + 1,
            "option_gap": c.option_gap[level - 1],
            "misleading": c.misleading[level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n = k["n_images"]
        plan = _option_plan(rng, self.config.n_options, k["option_gap"])
        (_, truth), (_, apparent) = plan[:2]

        def chain() -> Scene:
            items = _chain(rng, n + 1)
            heights = _heights(rng, n + 1, truth, self.config.size_jitter)
            shots = self._shots(rng, items, heights, apparent, k["misleading"])
            look = draw_look(rng, self.config.backdrops)
            return Scene(tuple(it.noun for it in items), heights, shots, float(k["option_gap"]), plan, look)

        # a chain that cannot be photographed is drawn again with the same options: rejecting the options instead
        # would make some (a large apparent ratio) rarer than others
        return _retry(CHAIN_TRIES, chain)

    def _shots(
        self, rng: np.random.Generator, items: list[Item], heights: tuple[float, ...], apparent: float, share: float
    ) -> tuple[Shot, ...]:
        """One shot per link; the first object in the first shot and the last in the last are pinned to pixel
        heights ``apparent`` apart (``validate`` keeps MAX_RATIO within the pixel range)."""
        lo, hi = self.px_range
        first_px = float(rng.uniform(max(lo, lo / apparent), min(hi, hi / apparent)))
        pinned = {0: (0, first_px), len(items) - 2: (1, apparent * first_px)}
        return tuple(
            _retry(
                SHOT_TRIES,
                partial(self._shot, rng, (items[i], items[i + 1]), (heights[i], heights[i + 1]), share, pinned.get(i)),
            )
            for i in range(len(items) - 1)
        )

    @property
    def px_range(self) -> tuple[float, float]:
        """Pixel heights an object may have in an image: measurable, and inside the frame."""
        return self.config.min_height_px * 1.1, MAX_PX

    def _shot(
        self,
        rng: np.random.Generator,
        pair: tuple[Item, Item],
        cm: tuple[float, float],
        misleading_share: float,
        fixed: tuple[int, float] | None,
    ) -> Shot:
        """Two objects photographed at chosen pixel heights; ``fixed`` pins one object's pixel height (the first
        and the last object of the chain carry the apparent-size option between them)."""
        size, f = self.image_size, self.focal
        big = 0 if cm[0] >= cm[1] else 1
        misleading = bool(rng.uniform() < misleading_share) and abs(math.log(cm[0] / cm[1])) > SAME
        lo, hi = self.px_range

        def ratios(misleading: bool) -> tuple[float, float]:
            """Range of r, the smaller object's pixel height over the bigger one's (above 1: it stands nearer),
            narrowed to keep the other object's pixel height in range when one is pinned."""
            r_lo, r_hi = (1.15, 1.8) if misleading else (0.9 * cm[1 - big] / cm[big], 2.0 * cm[1 - big] / cm[big])
            if fixed is None:
                return r_lo, r_hi
            pinned, p = fixed
            if pinned == big:
                return max(r_lo, lo / p), min(r_hi, hi / p)
            return max(r_lo, p / hi), min(r_hi, p / lo)

        r_lo, r_hi = ratios(misleading)
        if misleading and r_lo >= r_hi:  # a pinned object near the pixel limits cannot mislead here
            misleading = False
            r_lo, r_hi = ratios(False)
        if r_lo >= r_hi:
            raise Reject("an object would look too small or too large")
        r = float(rng.uniform(r_lo, r_hi))
        pinned, pinned_px = fixed or (1 - big if r >= 1 else big, float(rng.uniform(90, 160)))  # or the bigger-looking
        px = [0.0, 0.0]
        px[pinned] = pinned_px
        px[1 - pinned] = pinned_px * r if pinned == big else pinned_px / r
        if min(px) < lo or max(px) > hi:
            raise Reject("an object would look too small or too large")
        depth_cm = [f * cm[i] / px[i] for i in range(2)]
        unit = min(depth_cm) / float(rng.uniform(2.5, 4.0))  # cm per world unit: the image's own, unknown scale
        h = [c / unit for c in cm]
        depth = [d / unit for d in depth_cm]
        pitch = math.radians(float(rng.uniform(6, 12)))
        cam_h = float(rng.uniform(*_camera_heights(h, [d / math.cos(pitch) for d in depth], pitch, size / 2 / f)))
        camera = Camera(eye=(0.0, CAM_Y, cam_h), target=(0.0, CAM_Y + 10.0, cam_h - 10.0 * math.tan(pitch)), yfov=YFOV)
        xs = [0.0, 0.0]  # world x of the objects, centred until their widths in pixels are known
        yaws = [float(rng.uniform(-0.4, 0.4)) if item.shape == "box" else 0.0 for item in pair]

        def stand(i: int) -> Object3D:
            s = cm[i] / pair[i].height / unit  # scale of this object in world units per catalogue cm
            narrow, wide = sorted((pair[i].width, pair[i].depth))  # the narrow side faces the camera
            return Object3D(
                name=pair[i].noun,
                shape=pair[i].shape,
                size=(narrow * s, wide * s, pair[i].height * s),
                color=PALETTE[pair[i].color],
                position=(xs[i], CAM_Y + depth[i] / math.cos(pitch)),
                yaw=yaws[i],
            )

        objects = [stand(0), stand(1)]
        left, shares = int(rng.integers(2)), np.sort(rng.uniform(0, 1, 2))
        for _ in range(4):  # move the objects until the pinned one looks as tall as asked and both stand in place
            widths = [box[2] - box[0] for box in (projected_box(o, camera, size) for o in objects)]
            centres = _side_by_side(widths, left, shares, size)
            depth[pinned] *= _px_height(objects[pinned], camera, size) / pinned_px
            for i in range(2):
                x0, _, x1, _ = projected_box(stand(i), camera, size)
                xs[i] += (centres[i] - (x0 + x1) / 2) / f * depth[i]
            objects = [stand(0), stand(1)]
        if max(depth) > 24:
            raise Reject("an object would stand beyond the ground")
        for o in objects:
            if not in_frame(o, camera, size, pad=8):
                raise Reject("an object leaves the frame")
        b0, b1 = (projected_box(o, camera, size) for o in objects)
        if min(b0[2], b1[2]) - max(b0[0], b1[0]) > -6:
            raise Reject("the two objects overlap in the image")
        return Shot((objects[0], objects[1]), camera, pitch, misleading)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        first, last = scene.chain[0], scene.chain[-1]
        px = [[_px_height(o, s.camera, self.image_size) for o in s.objects] for s in scene.shots]
        pictured = {"truth": scene.heights[-1] / scene.heights[0], "apparent": px[-1][1] / px[0][0]}
        chosen = []
        for kind, value in scene.options:  # the planned ratios, with the truth and the apparent one as pictured
            base = kind.removeprefix("inverse_")
            if base in pictured:
                value = pictured[base] if kind == base else 1 / pictured[base]
            chosen.append((kind, value))
        step = math.log(scene.gap)
        for i, (_, v) in enumerate(chosen):
            if any(1e-6 < abs(abs(math.log(v)) - abs(math.log(w))) < step for _, w in chosen[:i]):
                raise Reject("the pictured apparent ratio moved too close to another option")
        distractors = [chosen[1:][i] for i in rng.permutation(len(chosen) - 1)]
        ordered = place(chosen[0], distractors, slot)
        options = [_ratio_text(value, first, last) for _, value in ordered]
        if len(set(options)) != len(options):
            raise Reject("two options read the same")
        text = _question_text(scene, rng)
        facts = {
            "chain": list(scene.chain),
            "values": [round(v, 4) for _, v in ordered],
            "kinds": [kind for kind, _ in ordered],
            "gap": scene.gap,
            "focal": self.focal,
            "center": self.image_size / 2,
            "pitch": [round(s.pitch, 6) for s in scene.shots],
            "min_px": self.config.min_height_px,
        }
        return Question(text=text, options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        from mirforge.render.gl import renderer

        r = renderer(self.image_size)
        images, measured, regions, layers = [], [], [], []
        for i, shot in enumerate(scene.shots):
            (view,) = r.views(Scene3D(shot.objects, look=scene.look), [shot.camera])
            names = [o.name for o in shot.objects]
            layers.append(Layer(ids=view.ids, names=names, depth=view.depth))  # for a realism pass
            seen = measure_view(view, names, 1)
            for name, m in seen.items():
                m.update(_extremes(view, names.index(name)))
                m["height_px"] = m["box"][3] - m["box"][1]
                regions.append(Region(i, name, m["box"]))
            images.append(view.rgb)
            measured.append(seen)
        return Rendered(images=images, measured={"images": measured}, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        f = question.facts
        ratio = _measured_ratio(f, rendered.measured)["total"]
        dist = [abs(math.log(ratio / v)) for v in f["values"]]
        best = int(np.argmin(dist))
        if dist[best] > 0.4 * math.log(f["gap"]):
            raise Reject("the measured ratio is not close enough to any option")
        return best

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        f = question.facts
        chain = f["chain"]
        est = _measured_ratio(f, rendered.measured)
        shots = []
        for i, seen in enumerate(rendered.measured["images"]):
            a, b = chain[i], chain[i + 1]
            ma, mb = seen[a], seen[b]
            link = est["links"][i]
            shots.append(
                {
                    "image": i + 1,
                    "a": a,
                    "b": b,
                    "a_box": ma["box"],
                    "b_box": mb["box"],
                    "a_px": ma["height_px"],
                    "b_px": mb["height_px"],
                    "a_depth": f"{ma['depth']:.2f}",
                    "b_depth": f"{mb['depth']:.2f}",
                    "nearer": a if ma["depth"] < mb["depth"] else b,
                    "looks_bigger": a if ma["height_px"] > mb["height_px"] else b,
                    "really_bigger": b if link > 1 else a,
                    "misleading": (ma["height_px"] > mb["height_px"]) != (link < 1),
                    "a_size": f"{_size(ma, f, f['pitch'][i]):.2f}",
                    "b_size": f"{_size(mb, f, f['pitch'][i]):.2f}",
                    "link": f"{link:.2f}",
                    "link_text": _ratio_text(link, a, b),
                    "running": f"{est['running'][i]:.2f}",
                    "left": a if ma["cx"] < mb["cx"] else b,
                    "right": b if ma["cx"] < mb["cx"] else a,
                }
            )
        first_px = rendered.measured["images"][0][chain[0]]["height_px"]
        last_px = rendered.measured["images"][-1][chain[-1]]["height_px"]
        return {
            "chain": chain,
            "first": chain[0],
            "last": chain[-1],
            "shots": shots,
            "total": f"{est['total']:.2f}",
            "first_px": first_px,
            "last_px": last_px,
            "apparent_text": _ratio_text(last_px / first_px, chain[0], chain[-1]),
            "answer_text": question.options[question.answer],
            "letters": LETTERS[: len(question.options)],
        }


# -- helpers ------------------------------------------------------------------------------------------------------
def _side_by_side(widths: list[float], left: int, shares: np.ndarray, size: int, pad: float = 10) -> list[float]:
    """Pixel x of the centres of two objects ``widths`` wide, object ``left`` on the left, the free width of the
    frame cut at ``shares`` (two sorted fractions) into the left margin, the space between and the right margin."""
    free = size - 2 * pad - sum(widths) - 12
    if free < 0:
        raise Reject("the two objects are too wide to stand side by side")
    right = 1 - left
    centres = [0.0, 0.0]
    centres[left] = pad + shares[0] * free + widths[left] / 2
    centres[right] = pad + shares[1] * free + widths[left] + 12 + widths[right] / 2
    return centres


def _chain(rng: np.random.Generator, n: int) -> list[Item]:
    """A random walk of ``n`` different catalogue items with different colours, neighbours at most
    ``MAX_LINK_RATIO / 1.3`` apart in catalogue height (plausible proportions in a picture; the real heights are
    drawn separately). The two ends are narrow items:
    they carry the apparent-size option, and up to ``MAX_RATIO`` times taller than the other in pixels a wide
    item would not fit beside its neighbour."""
    limit = math.log(MAX_LINK_RATIO / 1.3)
    for _ in range(50):
        picked = [NARROW[int(rng.integers(len(NARROW)))]]
        while len(picked) < n:
            last = picked[-1]
            pool = [
                it
                for it in (NARROW if len(picked) == n - 1 else CATALOGUE)
                if it.color not in {p.color for p in picked} and abs(math.log(it.height / last.height)) <= limit
            ]
            if not pool:
                break
            picked.append(pool[int(rng.integers(len(pool)))])
        if len(picked) == n:
            return picked
    raise Reject("no chain of distinctly coloured items")


def _heights(rng: np.random.Generator, n: int, ratio: float, jitter: float) -> tuple[float, ...]:
    """Real heights (cm) of a chain of ``n`` objects whose last is ``ratio`` times the first, drawn independently of
    what the objects are.

    A random walk in log height pinned at both ends: link ratios uniform in log (within ``MAX_LINK_RATIO``,
    narrowed by ``jitter``), shifted together to end at ``ratio``, drawn again while a link passes
    ``MAX_LINK_RATIO``; the start lies between 15 and 80 cm. Heights taken from the catalogue would let world
    knowledge ("a cabinet is taller than a can") answer the question without the images.
    """
    step = math.log(MAX_LINK_RATIO) / (1 + jitter)
    for _ in range(100):
        links = rng.uniform(-step, step, n - 1)
        links += (math.log(ratio) - links.sum()) / (n - 1)
        if np.abs(links).max() <= math.log(MAX_LINK_RATIO):
            start = math.log(float(rng.uniform(15, 80)))
            return tuple(float(h) for h in np.exp(start + np.concatenate([[0.0], np.cumsum(links)])))
    raise Reject("no chain of heights with links inside MAX_LINK_RATIO")


def _retry(tries: int, attempt: Callable[[], T]) -> T:
    """The first result of ``attempt`` that is not rejected (each try draws on from the same RNG stream)."""
    why = "nothing tried"
    for _ in range(tries):
        try:
            return attempt()
        except Reject as exc:
            why = str(exc)
    raise Reject(why)


def _option_plan(rng: np.random.Generator, n_options: int, gap: float) -> list[tuple[str, float]]:
    """The options' ratios, (kind, ratio), the truth first and the apparent-size one second.

    Every kind of option is drawn the same way, so nothing in an option's text tells the truth apart: the
    options' sizes (|log ratio|) are points of [log(gap) / 2, log(MAX_RATIO)] at least log(gap) apart, drawn
    uniformly over all such sets and handed out to the kinds at random; each ratio's direction (which object is
    taller) is a coin flip. With four or more options, one of them is offered together with its inverse ("A is
    2.6 times B" and "B is 2.6 times A" read alike): the truth with its fair share of probability (two options
    of n), otherwise another option, the apparent one included.
    """
    paired = n_options >= 4
    m = n_options - paired
    step, floor = math.log(gap), math.log(gap) / 2
    slack = max(0.0, math.log(MAX_RATIO) - floor - (m - 1) * step)  # validate() keeps it >= 0 up to rounding
    sizes = floor + np.sort(rng.uniform(0, slack, m)) + step * np.arange(m)
    sizes = sizes[rng.permutation(m)]
    signs = rng.choice([-1.0, 1.0], m)
    kinds = ["truth", "apparent", *["other"] * (m - 2)]
    plan = [(kind, float(math.exp(sign * size))) for kind, sign, size in zip(kinds, signs, sizes, strict=True)]
    if paired:
        host = 0 if rng.random() < 2 / n_options else 1 + int(rng.integers(m - 1))
        kind, value = plan[host]
        plan.append((f"inverse_{kind}", 1 / value))
    return plan


def _camera_heights(heights: list[float], distances: list[float], pitch: float, half: float) -> tuple[float, float]:
    """Camera heights from which objects (``heights`` tall, ``distances`` away along the ground) fit in the frame
    of a camera pitched down by ``pitch`` whose half-frame spans ``half`` (tan of the half field of view); a
    tenth of the frame is kept free at the top and the bottom for the objects' own depth."""
    a = math.atan(0.8 * half)
    tops = max(h - d * math.tan(a - pitch) for h, d in zip(heights, distances, strict=True))  # below the top edge
    low = max(tops, 0.2 * max(heights))  # a camera above the ground, not in the grass
    high = min(d * math.tan(a + pitch) for d in distances)  # feet above the bottom edge
    if low >= high:
        raise Reject("no camera height frames both objects")
    return low, high


def _px_height(obj: Object3D, cam: Camera, size: int) -> float:
    _, y0, _, y1 = projected_box(obj, cam, size)
    return y1 - y0


def _measured_ratio(f: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    """Real height ratios measured from pixels: per image (later over earlier object), running and total."""
    chain, links, running = f["chain"], [], []
    total = 1.0
    for i, seen in enumerate(measured["images"]):
        a, b = chain[i], chain[i + 1]
        if a not in seen or b not in seen:
            raise Reject("a chain object is hidden")
        if min(seen[a]["height_px"], seen[b]["height_px"]) < f["min_px"]:
            raise Reject("a chain object is too small to measure")
        size_a, size_b = _size(seen[a], f, f["pitch"][i]), _size(seen[b], f, f["pitch"][i])
        links.append(size_b / size_a)
        total *= size_b / size_a
        running.append(total)
    return {"links": links, "running": running, "total": total}


def _extremes(view: Any, i: int) -> dict[str, float]:
    """Top and bottom pixel rows of object ``i``'s mask and the median depth buffer value along each."""
    mask = view.ids == i + 1
    rows = np.nonzero(mask.any(axis=1))[0]
    top, bottom = int(rows[0]), int(rows[-1])
    return {
        "top_y": top,
        "top_depth": round(float(np.median(view.depth[top][mask[top]])), 4),
        "bottom_y": bottom + 1,  # the lower edge of the lowest row
        "bottom_depth": round(float(np.median(view.depth[bottom][mask[bottom]])), 4),
    }


def _size(m: dict[str, Any], f: dict[str, Any], pitch: float) -> float:
    """Real height (in the image's own units) from pixels and depth (pinhole: size ~ pixels x depth / focal).

    The top and bottom rows of the mask are back-projected with their depths to camera coordinates, and the
    difference of the two points is taken along the world's vertical, which the downward ``pitch`` tilts."""
    c, focal = f["center"], f["focal"]
    y_top = (c - m["top_y"]) * m["top_depth"] / focal
    y_bottom = (c - m["bottom_y"]) * m["bottom_depth"] / focal
    return math.cos(pitch) * (y_top - y_bottom) - math.sin(pitch) * (m["top_depth"] - m["bottom_depth"])


def _ratio_text(value: float, first: str, last: str) -> str:
    if abs(math.log(value)) < SAME:
        return f"The {first} and the {last} are about the same height"
    if value >= 1:
        return f"The {last} is about {value:.1f} times as tall as the {first}"
    return f"The {first} is about {1 / value:.1f} times as tall as the {last}"


def _question_text(scene: Scene, rng: np.random.Generator) -> str:
    chain = scene.chain
    parts = []
    for i in range(len(scene.shots)):
        a, b = chain[i], chain[i + 1]
        if i == 0:
            verb = ("shows the {a} and the {b}", "is a photo of the {a} next to the {b}")[int(rng.integers(2))]
        else:
            verb = ("shows the same {a} with the {b}", "is a photo of that {a} beside the {b}")[int(rng.integers(2))]
        parts.append("<image> " + verb.format(a=a, b=b) + ".")
    assume = (
        "Assume every object has the same real size in every photo it appears in; the photos were taken from "
        "different distances and the objects stand at different distances from the camera."
    )
    ask = (
        f"How does the real height of the {chain[-1]} compare with that of the {chain[0]}?",
        f"Which statement about the real heights of the {chain[0]} and the {chain[-1]} is correct?",
    )[int(rng.integers(2))]
    return " ".join(parts) + " " + assume + " " + ask
