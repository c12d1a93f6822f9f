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
heights compared across the first and the last image), the apparent ratios chained without distances, the inverse of
the true ratio, and the chain with a link forgotten. Besides the apparent-size option, exactly one ratio is offered
with its inverse, and it is the answer's only with the answer's fair share of probability. The verifier measures
each object's pixel height from its segmentation mask and its distance as the median of the depth buffer over its
mask, estimates its size as pixel height x depth / focal length, multiplies the within-image ratios along the chain
and picks the option nearest in log ratio, rejecting the scene unless it lies well inside half the option gap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge import LETTERS
from mirforge.errors import Reject
from mirforge.generators.spatial.multiview import in_frame, measure_view, projected_box
from mirforge.render.scene3d import PALETTE, Camera, Object3D, Scene3D
from mirforge.task import Layer, Needs, Question, Region, Rendered, Task, TaskConfig, ensure, place

YFOV = math.pi / 4
MAX_IMAGES = 6
MAX_LINK_RATIO = 3.2  # real height ratio of the two objects of one image, at most
SAME = math.log(1.1)  # ratios within 10% of 1 read "about the same height"
SHOT_TRIES = 25  # placements tried per image before the scene is redrawn
CAM_Y = -8.0  # cameras stand here and look along +y, so objects up to 24 units away stay on the 40 x 40 ground


@dataclass(frozen=True)
class Item:
    noun: str
    shape: str
    color: str
    height: float  # cm
    width: float  # cm
    depth: float  # cm


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


@dataclass
class ForcedPerspectiveConfig(TaskConfig):
    images_per_level: tuple[int, ...] = (3, 4, 6)  # chain links; the chain has one more object than images
    option_gap: tuple[float, ...] = (1.6, 1.4, 1.25)  # per level: options differ by at least this factor
    misleading: tuple[float, ...] = (0.5, 0.7, 0.85)  # per level: share of images where the smaller looks bigger
    size_jitter: float = 0.15  # neighbouring heights differ by at most MAX_LINK_RATIO ** (1 / (1 + size_jitter))
    min_height_px: int = 60
    max_tries: int = 100  # the apparent-size option must stand apart from the true ratio and its inverse

    def validate(self) -> None:
        super().validate()
        ensure(self.n_options <= 5, "n_options", "at most 5 (there are five kinds of candidate ratio)")
        for field_name in ("images_per_level", "option_gap", "misleading"):
            ensure(len(getattr(self, field_name)) == 3, field_name, "needs one value per level (3 values)")
        ensure(
            all(2 <= n <= MAX_IMAGES for n in self.images_per_level),
            "images_per_level",
            f"each count must be 2 to {MAX_IMAGES} (longer chains compound measurement error past the option gap)",
        )
        ensure(all(g >= 1.25 for g in self.option_gap), "option_gap", "must be at least 1.25 (options 25% apart)")
        ensure(all(g <= 2.5 for g in self.option_gap), "option_gap", "must be at most 2.5")
        ensure(all(0 <= m <= 1 for m in self.misleading), "misleading", "shares must be between 0 and 1")
        ensure(0 <= self.size_jitter < 0.5, "size_jitter", "must be in [0, 0.5)")
        ensure(40 <= self.min_height_px <= 150, "min_height_px", "must be between 40 and 150")


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
        items = _chain(rng, k["chain_length"])
        heights = _heights(rng, len(items), self.config.size_jitter)
        if any(max(a, b) / min(a, b) > MAX_LINK_RATIO for a, b in zip(heights, heights[1:], strict=False)):
            raise Reject("neighbouring objects too different in size")
        shots = tuple(
            self._retry_shot(rng, (items[i], items[i + 1]), (heights[i], heights[i + 1]), k["misleading"])
            for i in range(k["n_images"])
        )
        return Scene(tuple(it.noun for it in items), heights, shots, float(k["option_gap"]))

    def _retry_shot(
        self, rng: np.random.Generator, pair: tuple[Item, Item], cm: tuple[float, float], misleading_share: float
    ) -> Shot:
        """A shot of the pair that fits the frame, drawing placements again (same RNG stream) when one does not."""
        why = "no shot"
        for _ in range(SHOT_TRIES):
            try:
                return self._shot(rng, pair, cm, misleading_share)
            except Reject as exc:
                why = str(exc)
        raise Reject(why)

    def _shot(
        self, rng: np.random.Generator, pair: tuple[Item, Item], cm: tuple[float, float], misleading_share: float
    ) -> Shot:
        size, f = self.image_size, self.focal
        big = 0 if cm[0] >= cm[1] else 1
        misleading = bool(rng.uniform() < misleading_share) and abs(math.log(cm[0] / cm[1])) > SAME
        px = [0.0, 0.0]
        if misleading:  # the smaller object stands nearer and looks bigger
            px[1 - big] = float(rng.uniform(90, 160))
            px[big] = px[1 - big] / float(rng.uniform(1.15, 1.8))
        else:
            px[big] = float(rng.uniform(90, 160))
            px[1 - big] = px[big] * (cm[1 - big] / cm[big]) * float(rng.uniform(0.9, 2.0))
        if min(px) < self.config.min_height_px * 1.1 or max(px) > 230:
            raise Reject("an object would look too small or too large")
        depth_cm = [f * cm[i] / px[i] for i in range(2)]
        unit = min(depth_cm) / float(rng.uniform(2.5, 4.0))  # cm per world unit: the image's own, unknown scale
        h = [c / unit for c in cm]
        depth = [d / unit for d in depth_cm]
        if max(depth) > 24:
            raise Reject("an object would stand beyond the ground")
        cam_h = float(rng.uniform(0.55, 0.95)) * max(h)
        pitch = math.radians(float(rng.uniform(6, 12)))
        camera = Camera(eye=(0.0, CAM_Y, cam_h), target=(0.0, CAM_Y + 10.0, cam_h - 10.0 * math.tan(pitch)), yfov=YFOV)
        sides = [float(rng.uniform(0.2, 0.36)), float(rng.uniform(0.64, 0.8))]
        if rng.uniform() < 0.5:
            sides.reverse()
        objects = []
        for i, (item, cmv) in enumerate(zip(pair, cm, strict=True)):
            s = cmv / item.height / unit  # scale of this object in world units per catalogue cm
            x = (sides[i] - 0.5) * size / f * depth[i]
            objects.append(
                Object3D(
                    name=item.noun,
                    shape=item.shape,
                    size=(item.width * s, item.depth * s, item.height * s),
                    color=PALETTE[item.color],
                    position=(x, CAM_Y + depth[i] / math.cos(pitch)),
                    yaw=float(rng.uniform(-0.5, 0.5)) if item.shape == "box" else 0.0,
                )
            )
        for o in objects:
            if not in_frame(o, camera, size, pad=8):
                raise Reject("an object leaves the frame")
        b0, b1 = (projected_box(o, camera, size) for o in objects)
        if min(b0[2], b1[2]) - max(b0[0], b1[0]) > -6:
            raise Reject("the two objects overlap in the image")
        return Shot((objects[0], objects[1]), camera, pitch, misleading)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        heights, gap = scene.heights, scene.gap
        first, last = scene.chain[0], scene.chain[-1]
        truth = heights[-1] / heights[0]
        px = [[_px_height(o, s.camera, self.image_size) for o in s.objects] for s in scene.shots]
        apparent = px[-1][1] / px[0][0]
        chained_px = math.prod(p[1] / p[0] for p in px)
        links = [heights[i + 1] / heights[i] for i in range(len(heights) - 1)]
        forgot = truth / links[int(rng.integers(len(links)))]
        candidates = [("apparent", apparent), ("chained_apparent", chained_px), ("forgot_link", forgot)]
        for _ in range(6):
            candidates.append(("nearby", truth * math.exp(float(rng.choice([-1, 1]) * rng.uniform(0.35, 1.0)))))
        # One inverse pair ("A is 2.6 times B" and "B is 2.6 times A" read alike to a text-only guesser) among the
        # options other than the apparent-size one, holding the answer with its fair share of probability: the
        # answer is never the only ratio offered with its inverse.
        n_opt = self.config.n_options
        floor = math.log(gap) / 2  # a ratio and its inverse stay `gap` apart
        if abs(math.log(truth)) < floor:
            raise Reject("the true ratio is too close to 1 to be told from its inverse")
        paired = n_opt >= 4  # options beside the apparent one: a pair and n_opt - 3 singles (none below 4)
        answer_paired = paired and rng.random() < 2 / (n_opt - 1)
        wanted = n_opt - 2 if answer_paired else n_opt - 1 - (1 if paired else 0)
        groups = [("truth", truth)]
        for kind, value in candidates:
            if len(groups) == wanted + 1:
                break
            fits = 1 / 12 <= value <= 12 and abs(math.log(value)) >= floor
            fits = fits and all(abs(abs(math.log(value)) - abs(math.log(v))) >= math.log(gap) for _, v in groups)
            if kind == "apparent" and not fits:
                raise Reject("the apparent-size answer is too close to the true ratio or out of range")
            if fits:
                groups.append((kind, value))
        if len(groups) < wanted + 1:
            raise Reject("not enough well-separated ratios")
        chosen = [*groups]
        if answer_paired:
            chosen.append(("inverse", 1 / truth))
        elif paired:
            kind, value = groups[-1]  # not the apparent one
            chosen.append((f"inverse_{kind}", 1 / value))
        distractors = chosen[1:]
        distractors = [distractors[i] for i in rng.permutation(len(distractors))]
        ordered = place(chosen[0], distractors, slot)
        options = [_ratio_text(value, first, last) for _, value in ordered]
        if len(set(options)) != len(options):
            raise Reject("two options read the same")
        text = _question_text(scene, rng)
        facts = {
            "chain": list(scene.chain),
            "values": [round(v, 4) for _, v in ordered],
            "kinds": [kind for kind, _ in ordered],
            "gap": gap,
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
            (view,) = r.views(Scene3D(shot.objects), [shot.camera])
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
def _chain(rng: np.random.Generator, n: int) -> list[Item]:
    """A random walk of ``n`` different catalogue items with different colours, neighbours at most
    ``MAX_LINK_RATIO / 1.3`` apart in catalogue height (the jitter may widen it)."""
    limit = math.log(MAX_LINK_RATIO / 1.3)
    for _ in range(50):
        picked = [CATALOGUE[int(rng.integers(len(CATALOGUE)))]]
        while len(picked) < n:
            last = picked[-1]
            pool = [
                it
                for it in CATALOGUE
                if it.color not in {p.color for p in picked} and abs(math.log(it.height / last.height)) <= limit
            ]
            if not pool:
                break
            picked.append(pool[int(rng.integers(len(pool)))])
        if len(picked) == n:
            return picked
    raise Reject("no chain of distinctly coloured items")


def _heights(rng: np.random.Generator, n: int, jitter: float) -> tuple[float, ...]:
    """Real heights (cm) of a chain of ``n`` objects, drawn independently of what the objects are.

    A random walk in log height: neighbours at most ``MAX_LINK_RATIO`` apart (a link ratio uniform in log,
    widened by ``jitter``), from a start between 15 and 80 cm. Heights taken from the catalogue would let
    world knowledge ("a cabinet is taller than a can") answer the question without the images.
    """
    step = math.log(MAX_LINK_RATIO) / (1 + jitter)
    out = [math.exp(float(rng.uniform(math.log(15), math.log(80))))]
    for _ in range(n - 1):
        out.append(out[-1] * math.exp(float(rng.uniform(-step, step))))
    return tuple(out)


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
