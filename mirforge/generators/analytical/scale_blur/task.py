"""scale_blur: the real height of an object whose scale no single picture gives away.

A model house, a bonsai tree or a toy rocket looks exactly like the real thing when nothing of known size stands
beside it. The scene is a chain of such look-alikes (houses, trees, lighthouses, windmills, rockets, water towers),
each from a few centimetres to tens of metres tall. The first image shows the first object beside a measuring
device (a ruler, a height chart or a surveyor's levelling staff) whose printed marks give its height. Every other
image shows two neighbours of the chain side by side, photographed at its own zoom, camera height and place, so
pixel sizes never compare across images. The question asks the real height of the last object: only the chain of
ratios, link by link from the measured first object, gives it, so every image is needed (``consistent``: with the
device image hidden the first height could be anything; with a link hidden its ratio could be anything from 1/10
to 10, drawn links stay within 5, and the options are at most 2 apart, so at least two stay consistent).

Levels: 2, 3 and 5 links (3, 4 and 6 images); at level 3 the images come in shuffled order, so the chain must be
found by the objects the images share. Scene families are backdrops (a meadow, a desert, a snowfield, a beach, a
table top, a night scene), drawn with the instance's own palette, outline weight; the family of an index
is the task's balanced variant. The backdrop never depends on the real scale.

Options are four heights in a geometric ladder (ratio ``option_ratio``); the answer's rank is the balanced answer
slot, and the target's height is log-uniform and drawn before the chain, with the ladder kept inside its range (an
``ask`` that would push it out rejects the draw), so given the options every rank is equally likely. The verifier
reads the first height from the device's marks and every ratio from the objects' mask heights, multiplies them out,
and keeps the option within a quarter of a ladder step of the product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.generators.analytical.canvas import Canvas, jitter, mask_box, mix, shade
from mirforge.render.scene3d import PALETTE
from mirforge.task import Layer, Needs, Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level

FAMILIES = ("meadow", "desert", "snowfield", "beach", "tabletop", "night")
BACKDROPS = {  # sky top, sky bottom, ground
    "meadow": ((150, 196, 240), (214, 232, 246), (120, 170, 90)),
    "desert": ((120, 170, 230), (236, 220, 190), (222, 190, 130)),
    "snowfield": ((170, 190, 214), (230, 236, 242), (242, 244, 248)),
    "beach": ((90, 160, 230), (200, 226, 246), (236, 214, 160)),
    "tabletop": ((226, 220, 210), (200, 192, 180), (160, 110, 70)),
    "night": ((20, 26, 60), (60, 60, 100), (50, 60, 50)),
}
KINDS = {  # kind -> (width / height, plural)
    "house": (0.9, "houses"),
    "tree": (0.7, "trees"),
    "lighthouse": (0.38, "lighthouses"),
    "windmill": (0.8, "windmills"),
    "rocket": (0.34, "rockets"),
    "water tower": (0.55, "water towers"),
}
# an object is called by its colour ("red rocket") where most of it shows that colour; a lighthouse is a white
# tower with bands of its colour
NAMES = {"lighthouse": "{}-striped lighthouse"}
COLORS = ("blue", "orange", "red", "purple", "green", "yellow", "pink", "cyan")
DEVICES = {  # name -> (labelled length in cm, label every, tick every, unit, range of first heights it measures)
    "ruler": (30, 5, 1, "cm", (8.0, 28.0)),
    "height chart": (200, 20, 10, "cm", (40.0, 190.0)),
    "levelling staff": (500, 100, 10, "m", (160.0, 480.0)),
}
LOWEST = 5.0  # cm: the smallest target height asked about
HIDDEN_RATIO = 10.0  # a hidden link could show its two objects at any height ratio up to this
MAX_LINK = 5.0  # a drawn link: the taller object at most this many times the shorter
LABEL_PX = 13  # the device's printed numbers and unit, right of its face


@dataclass
class ScaleBlurConfig(TaskConfig):
    families: tuple[str, ...] = FAMILIES
    family: str = ""  # one backdrop only (empty: every family in ``families``)
    links_per_level: tuple[int, ...] = per_level(2, 3, 5)  # object pairs after the device image: 3, 4, 6 images
    shuffle_per_level: tuple[bool, ...] = per_level(False, False, True)  # images in shuffled order
    tallest_per_level: tuple[float, ...] = per_level(3000.0, 5000.0, 8000.0)  # cm: the tallest target asked about
    option_ratio: float = 1.6
    min_px: int = 60

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(all(1 <= k <= 7 for k in self.links_per_level), "links_per_level", "each 1 to 7")
        ensure(all(t >= 100 for t in self.tallest_per_level), "tallest_per_level", "each at least 100 cm")
        ensure(1.3 <= self.option_ratio <= HIDDEN_RATIO / MAX_LINK, "option_ratio", "must be between 1.3 and 2")
        ensure(self.min_px >= 30, "min_px", "must be at least 30")
        ensure(self.n_options == 4, "n_options", "must be 4")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Shot:
    """How one image is taken: the zoom (the taller object's height in pixels), where the ground is, which object
    stands on the left, and a horizontal shift."""

    top_px: float
    ground: int
    left_first: bool
    shift: float


@dataclass(frozen=True)
class Scene:
    family: str
    kinds: tuple[str, ...]  # chain objects, first to target
    colors: tuple[str, ...]
    heights: tuple[float, ...]  # cm
    device: str
    tallest: float  # cm: the tallest target height of the level
    order: tuple[int, ...]  # image k shows link order[k] (0: the device image)
    shots: tuple[Shot, ...]  # per link, in chain order
    palette: tuple[tuple[int, int, int], ...]  # sky top, sky bottom, ground: this instance's shift of the family's
    outline: int
    seed: int  # incidental scenery (hills, stars)

    @property
    def names(self) -> list[str]:
        return [NAMES.get(k, "{} " + k).format(c) for c, k in zip(self.colors, self.kinds, strict=True)]


class ScaleBlur(Task):
    name = "scale_blur"
    category = "analytical"
    description = "Chain known sizes across pictures taken at different zooms to find an object's real height"
    Config = ScaleBlurConfig
    needs = Needs(renderer=None, cost=0.2, realism=True)
    variants = len(FAMILIES)

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        c = self.config
        return {
            "links": c.links_per_level[i],
            "images": c.links_per_level[i] + 1,
            "shuffled": c.shuffle_per_level[i],
            "tallest_cm": c.tallest_per_level[i],
            "option_ratio": c.option_ratio,
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family, "device": scene.device}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        kn = self.knobs(level)
        m = kn["links"]
        names = self.config.chosen()
        family = names[(int(rng.integers(len(names))) if variant is None else variant) % len(names)]
        target = _log_uniform(rng, LOWEST, kn["tallest_cm"])
        reach = MAX_LINK**m
        devices = [d for d, spec in DEVICES.items() if spec[4][0] <= target * reach and spec[4][1] >= target / reach]
        device = devices[int(rng.integers(len(devices)))]
        lo, hi = DEVICES[device][4]
        first = _log_uniform(rng, max(lo, target / reach), min(hi, target * reach))
        heights = _bridge(rng, first, target, m)
        kinds = [list(KINDS)[int(i)] for i in rng.integers(len(KINDS), size=m + 1)]
        colors = [COLORS[int(i)] for i in rng.permutation(len(COLORS))[: m + 1]]
        order = tuple(range(m + 1))
        if kn["shuffled"]:
            order = tuple(int(i) for i in rng.permutation(m + 1))
        shots = tuple(
            Shot(
                float(rng.uniform(230, 300)),
                int(rng.integers(360, 412)),
                bool(rng.integers(2)),
                float(rng.uniform(-0.5, 0.5)),
            )
            for _ in range(m + 1)
        )
        sky, sky2, ground = BACKDROPS[family]
        palette = (jitter(rng, sky, 12), jitter(rng, sky2, 12), jitter(rng, ground, 14))
        return Scene(
            family,
            tuple(kinds),
            tuple(colors),
            tuple(heights),
            device,
            kn["tallest_cm"],
            order,
            shots,
            palette,
            int(rng.integers(0, 3)),
            int(rng.integers(2**31)),
        )

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int, variant: int | None = None) -> Question:
        q = self.config.option_ratio
        target = scene.heights[-1]
        values = [target * q ** (j - slot) for j in range(self.config.n_options)]
        if values[0] < LOWEST or values[-1] > scene.tallest:
            raise Reject("the ladder of options would leave the range of heights")  # keeps every rank equally likely
        options = [_fmt(v) for v in values]
        if len(set(options)) != len(options):
            raise Reject("two options read alike")
        names = scene.names
        device = scene.device
        images = ", ".join("<image>" for _ in scene.order)
        intro = [
            f"These pictures were taken with different cameras and zoom settings: {images}. ",
            f"Look at {images}; each picture was taken at its own distance and zoom. ",
        ][int(rng.integers(2))]
        text = (
            intro + f"One of them shows the {names[0]} beside a {device}, and the others each show two of the objects "
            "side by side, standing on the same ground. "
            # a windmill's top is a turning sail's tip, not its cap: say which
            + (
                "A windmill's height is measured to the tip of its highest sail. "
                if any("windmill" in n for n in names)
                else ""
            )
            + [f"About how tall is the {names[-1]} in reality?", f"What is the real height of the {names[-1]}?"][
                int(rng.integers(2))
            ]
        )
        return Question(text=text, options=options, answer=slot, facts={"values": values, "names": names})

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        names = scene.names
        images: list[np.ndarray] = []
        regions: list[Region] = []
        layers: list[Layer | None] = []
        links: list[dict[str, Any]] = []
        for k, link in enumerate(scene.order):
            cv = self._backdrop(scene, scene.shots[link].ground)
            if link == 0:
                link_facts = self._device_image(cv, scene)
                pair_names = [names[0]]
            else:
                link_facts = self._pair_image(cv, scene, link)
                pair_names = [names[link - 1], names[link]]
            for mid, nm in enumerate(pair_names, start=1):
                regions.append(Region(k, nm, mask_box(cv.mask, mid)))
            if link == 0:
                regions.append(Region(k, scene.device, link_facts.pop("device_box")))
            images.append(cv.img)
            layers.append(Layer(ids=cv.mask.astype(np.int32), names=pair_names))
            links.append({"image": k, "link": link, **link_facts})
        measured = {"links": links, "target": names[-1], "option_ratio": self.config.option_ratio}
        return Rendered(images=images, measured=measured, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        hits = self.consistent(question, rendered, frozenset())
        if len(hits) != 1:
            raise Reject(f"{len(hits)} options fit the measured chain")
        return hits.pop()

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options the chain can give with the hidden images' readings unknown: the device image's height could be
        anything, a link's ratio anything from 1/HIDDEN_RATIO to HIDDEN_RATIO; an option survives when its ratio to
        the product of the known readings lies within the hidden readings' range, widened by a quarter step (the
        verifier's tolerance)."""
        q = rendered.measured["option_ratio"]
        tol = math.log(q) / 4
        lo = hi = 0.0
        for link in rendered.measured["links"]:
            if link["image"] in hidden:
                if link["link"] == 0:
                    return set(range(len(question.options)))
                lo -= math.log(HIDDEN_RATIO)
                hi += math.log(HIDDEN_RATIO)
            else:
                value = math.log(link["first_cm"]) if link["link"] == 0 else math.log(link["ratio"])
                lo += value
                hi += value
        return {i for i, v in enumerate(question.facts["values"]) if lo - tol <= math.log(v) <= hi + tol}

    # -- drawing --------------------------------------------------------------------------------------------
    def _backdrop(self, scene: Scene, ground: int) -> Canvas:
        sky, sky2, soil = scene.palette
        cv = Canvas.blank(self.image_size, sky)
        cv.gradient(0, ground, sky, sky2)
        cv.gradient(ground, self.image_size, soil, shade(soil, 0.8))
        rng = np.random.default_rng(scene.seed + ground)  # incidental scenery: hills, stars
        if scene.family == "tabletop":
            cv.rect(0, ground - 6, self.image_size, ground, shade(soil, 1.15))
        elif scene.family == "night":
            for x, y in rng.integers(0, self.image_size, size=(30, 2)):
                if y < ground - 20:
                    cv.circle(float(x), float(y), 1.2, (240, 240, 220))
        else:
            for _ in range(int(rng.integers(1, 4))):
                cx, r = float(rng.uniform(0, 448)), float(rng.uniform(60, 160))
                cv.ellipse(cx, ground, r, r * 0.35, mix(soil, sky2, 0.35))
            cv.gradient(ground, self.image_size, soil, shade(soil, 0.8))
        cv.line((0, ground), (self.image_size, ground), shade(soil, 0.7), 2)
        return cv

    def _device_image(self, cv: Canvas, scene: Scene) -> dict[str, Any]:
        shot = scene.shots[0]
        length, label_every, tick_every, unit, _ = DEVICES[scene.device]
        h = scene.heights[0]
        top = max(h, length)
        ppc = shot.top_px / top
        ground = shot.ground
        obj_w = h * KINDS[scene.kinds[0]][0] * ppc
        dev_w = max(26.0, 0.09 * length * ppc) if scene.device != "ruler" else 40.0
        labels = [_label(v, unit) for v in range(label_every, length + 1, label_every)]
        # the printed numbers belong to the device: an object on its right stands clear of them, not of its face
        dev_span = dev_w + 4 + max(cv.text_width(t, LABEL_PX) for t in [unit, *labels])
        gap = 30.0
        total = obj_w + gap + dev_span
        left = (self.image_size - total) / 2 + shot.shift * max(0.0, self.image_size - 24 - total)
        x_obj, x_dev = (left + obj_w / 2, left + obj_w + gap + dev_w / 2)
        if not shot.left_first:
            x_dev, x_obj = left + dev_w / 2, left + dev_span + gap + obj_w / 2
        _draw_kind(cv, scene.kinds[0], PALETTE[scene.colors[0]], x_obj, ground, h * ppc, 1, scene.outline)
        x0, x1 = x_dev - dev_w / 2, x_dev + dev_w / 2
        y_top = ground - length * ppc
        face = (250, 220, 80) if scene.device == "ruler" else (250, 250, 246)
        cv.rect(x0, y_top, x1, ground, face)
        cv.frame(x0, y_top, x1, ground, (60, 60, 60), 1)
        for v in range(0, length + 1, tick_every):
            y = ground - v * ppc
            major = v % label_every == 0
            cv.line((x0, y), (x0 + (dev_w * 0.5 if major else dev_w * 0.25), y), (30, 30, 30), 2 if major else 1)
            if major and v:
                cv.text(_label(v, unit), x1 + 4, y, LABEL_PX, _ink(scene), "sans", anchor="lm")
        cv.text(unit, x1 + 4, y_top - 12, LABEL_PX, _ink(scene), "sans", anchor="lm")
        box = mask_box(cv.mask, 1)
        if box is None or box[3] - box[1] < self.config.min_px * 0.6 or box[0] <= 0 or box[2] >= self.image_size:
            raise Reject("the first object is too small or cut off")
        first_cm = (box[3] - box[1]) / ppc  # read against the device's marks
        return {
            "first_cm": first_cm,
            "object_px": box[3] - box[1],
            "px_per_cm": ppc,
            "device_box": [round(x0), round(y_top), round(x1) + 1, ground + 1],
        }

    def _pair_image(self, cv: Canvas, scene: Scene, link: int) -> dict[str, Any]:
        shot = scene.shots[link]
        a, b = link - 1, link
        ha, hb = scene.heights[a], scene.heights[b]
        ppc = shot.top_px / max(ha, hb)
        wa, wb = ha * KINDS[scene.kinds[a]][0] * ppc, hb * KINDS[scene.kinds[b]][0] * ppc
        gap = 30.0
        fit = (self.image_size - 30 - gap) / (wa + wb)
        if fit < 1:
            ppc, wa, wb = ppc * fit, wa * fit, wb * fit
        total = wa + gap + wb
        left = (self.image_size - total) / 2 + shot.shift * max(0.0, self.image_size - 24 - total)
        xa, xb = left + wa / 2, left + wa + gap + wb / 2
        if not shot.left_first:
            xb, xa = left + wb / 2, left + wb + gap + wa / 2
        _draw_kind(cv, scene.kinds[a], PALETTE[scene.colors[a]], xa, shot.ground, ha * ppc, 1, scene.outline)
        _draw_kind(cv, scene.kinds[b], PALETTE[scene.colors[b]], xb, shot.ground, hb * ppc, 2, scene.outline)
        ba, bb = mask_box(cv.mask, 1), mask_box(cv.mask, 2)
        for box in (ba, bb):
            if box is None or box[3] - box[1] < self.config.min_px * 0.5:
                raise Reject("an object is too small to measure")
            if box[0] <= 0 or box[2] >= self.image_size or box[1] <= 0:
                raise Reject("an object is cut by the frame")
        pa, pb = ba[3] - ba[1], bb[3] - bb[1]
        return {"ratio": pb / pa, "first_px": pa, "second_px": pb}

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        names = scene.names
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        links = sorted(rendered.measured["links"], key=lambda x: x["link"])
        dev = links[0]
        length, label_every, tick_every, unit, _ = DEVICES[scene.device]
        precision = tick_every / 2  # a top between two marks is read as halfway (65 cm, not 70)
        first = precision * round(dev["first_cm"] / precision)
        chain = [{"name": names[0], "height": _fmt(dev["first_cm"]), "image": dev["image"] + 1}]
        # each estimate is the one before as written times the ratio as written, so a reader who redoes the chain
        # gets the same numbers (on unrounded values, 4.2 m x 1.28 was written 5.3 m); the estimates on the way
        # keep three figures and the last two, as the options do (at two all along, 2.7 m x 0.62 x 0.67 x 0.60
        # drifted to 66 cm from 67.5)
        estimate = float(first)
        steps = []
        for link in links[1:]:
            j = link["link"]
            figures = 2 if link is links[-1] else 3
            estimate = _rounded(estimate * round(link["ratio"], 2), figures)
            steps.append(
                {
                    "image": link["image"] + 1,
                    "from": names[j - 1],
                    "to": names[j],
                    "from_px": link["first_px"],
                    "to_px": link["second_px"],
                    "ratio": f"{link['ratio']:.2f}",
                    "estimate": _fmt(estimate, figures),
                    "from_box": boxes[(link["image"], names[j - 1])],
                    "to_box": boxes[(link["image"], names[j])],
                }
            )
        return {
            "family": scene.family,
            "device": scene.device,
            "device_image": dev["image"] + 1,
            "device_box": boxes[(dev["image"], scene.device)],
            "first": names[0],
            "first_box": boxes[(dev["image"], names[0])],
            "first_reading": _fmt_reading(first, unit),
            "target": names[-1],
            "steps": steps,
            "chain": chain,
            "estimate": _fmt(estimate),
            "shuffled": list(scene.order) != sorted(scene.order),
            "n_images": len(scene.order),
            "kinds": sorted({KINDS[k][1] for k in scene.kinds}),
            "answer_text": question.options[question.answer],
        }


# -- heights ------------------------------------------------------------------------------------------------------
def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def _bridge(rng: np.random.Generator, first: float, target: float, m: int) -> list[float]:
    """Heights from ``first`` to ``target`` in ``m`` links, each link a ratio within MAX_LINK (never closer than
    1.15, so the two objects of a picture differ visibly)."""
    total = math.log(target / first)
    bound = math.log(MAX_LINK)
    for _ in range(200):
        steps = rng.uniform(-bound, bound, size=m)
        steps += (total - steps.sum()) / m
        if np.all(np.abs(steps) <= bound) and np.all(np.abs(steps) >= math.log(1.15)):
            return [first * math.exp(s) for s in np.concatenate([[0.0], np.cumsum(steps)])]
    raise Reject("no chain of heights between the first object and the target")


def _rounded(cm: float, figures: int = 2) -> float:
    """``cm`` at ``figures`` significant figures, as ``_fmt`` writes it (at least 0.1 cm)."""
    return float(round(cm, min(1, _decimals(cm, figures))))


def _fmt(cm: float, figures: int = 2) -> str:
    """A height at ``figures`` significant figures, in cm below 1 m and in m above."""
    cm = _rounded(cm, figures)
    if cm >= 100:
        return f"about {cm / 100:.{max(0, _decimals(cm / 100, figures))}f} m"
    text = f"{cm:.{max(0, min(1, _decimals(cm, figures)))}f}"
    return f"about {text.removesuffix('.0') if figures > 2 else text} cm"  # 66 cm on the way, not 66.0


def _decimals(value: float, figures: int) -> int:
    """The decimal places that keep ``figures`` significant figures of ``value`` (negative: tens, hundreds)."""
    return figures - 1 - math.floor(math.log10(value))


def _fmt_reading(value: float, unit: str) -> str:
    return f"{value / 100:g} m" if unit == "m" else f"{value:g} cm"


def _label(cm: int, unit: str) -> str:
    """The number printed at the mark ``cm`` up a device that counts in ``unit``."""
    return str(cm) if unit == "cm" else f"{cm // 100}"


def _ink(scene: Scene) -> tuple[int, int, int]:
    return (240, 240, 240) if scene.family == "night" else (30, 30, 30)


# -- the look-alikes --------------------------------------------------------------------------------------------
def _draw_kind(cv: Canvas, kind: str, color: Any, cx: float, g: float, h: float, mid: int, outline: int) -> None:
    w = h * KINDS[kind][0]
    dark = shade(color, 0.6)
    if kind == "house":
        wall_top = g - 0.6 * h
        cv.rect(cx - w / 2 * 0.9, wall_top, cx + w / 2 * 0.9, g, color, mid)
        cv.poly([(cx - w / 2, wall_top), (cx + w / 2, wall_top), (cx, g - h)], dark, mid)
        cv.rect(cx - 0.08 * w, g - 0.3 * h, cx + 0.08 * w, g, (90, 60, 40), mid)
        for dx in (-0.26, 0.26):
            cv.rect(cx + (dx - 0.08) * w, g - 0.47 * h, cx + (dx + 0.08) * w, g - 0.33 * h, (230, 240, 250), mid)
    elif kind == "tree":
        cv.rect(cx - 0.06 * w, g - 0.45 * h, cx + 0.06 * w, g, (110, 75, 45), mid)
        cv.circle(cx, g - 0.64 * h, 0.36 * h, color, mid)
        cv.circle(cx - 0.1 * h, g - 0.56 * h, 0.2 * h, dark, mid)
    elif kind == "lighthouse":
        cv.poly(
            [(cx - w / 2, g), (cx + w / 2, g), (cx + 0.3 * w, g - 0.8 * h), (cx - 0.3 * w, g - 0.8 * h)],
            (245, 245, 240),
            mid,
        )
        for t0 in (0.15, 0.45):
            y0, y1 = g - t0 * h, g - (t0 + 0.15) * h
            a0, a1 = 0.5 - 0.2 * t0 / 0.8, 0.5 - 0.2 * (t0 + 0.15) / 0.8
            cv.poly([(cx - a0 * w, y0), (cx + a0 * w, y0), (cx + a1 * w, y1), (cx - a1 * w, y1)], color, mid)
        cv.rect(cx - 0.22 * w, g - 0.92 * h, cx + 0.22 * w, g - 0.8 * h, (250, 220, 90), mid)
        cv.poly([(cx - 0.32 * w, g - 0.92 * h), (cx + 0.32 * w, g - 0.92 * h), (cx, g - h)], color, mid)
    elif kind == "windmill":
        hub = (cx, g - 0.62 * h)
        cv.poly([(cx - 0.22 * w, g), (cx + 0.22 * w, g), (cx + 0.12 * w, hub[1]), (cx - 0.12 * w, hub[1])], color, mid)
        r = 0.38 * h / math.sin(math.radians(60))  # the top blade's tip is the windmill's top
        for a in (60, 150, 240, 330):
            t = math.radians(a)
            tip = (hub[0] + r * math.cos(t), hub[1] - r * math.sin(t))
            n = (-math.sin(t) * 0.05 * h, -math.cos(t) * 0.05 * h)
            blade = [hub, (tip[0] + n[0], tip[1] + n[1]), tip]
            cv.poly(blade, (240, 236, 220), mid)
            for p, q in zip(blade, blade[1:] + blade[:1], strict=True):  # pale sails vanish against a pale sky
                cv.line(p, q, dark, 1, mid)
        cv.circle(hub[0], hub[1], 0.04 * h, dark, mid)
    elif kind == "rocket":  # the body carries the colour it is named by; nose and fins a darker shade of it
        cv.rect(cx - 0.3 * w, g - 0.78 * h, cx + 0.3 * w, g - 0.08 * h, color, mid)
        cv.poly([(cx - 0.3 * w, g - 0.78 * h), (cx + 0.3 * w, g - 0.78 * h), (cx, g - h)], dark, mid)
        for s in (-1, 1):
            cv.poly(
                [(cx + s * 0.3 * w, g - 0.3 * h), (cx + s * 0.5 * w, g), (cx + s * 0.3 * w, g - 0.08 * h)], dark, mid
            )
        cv.circle(cx, g - 0.55 * h, 0.14 * w, (230, 240, 250), mid)
        cv.rect(cx - 0.2 * w, g - 0.08 * h, cx + 0.2 * w, g, (90, 90, 96), mid)
    else:  # water tower
        cv.rect(cx - 0.4 * w, g - h, cx + 0.4 * w, g - 0.62 * h, color, mid)
        cv.poly([(cx - 0.45 * w, g - 0.62 * h), (cx + 0.45 * w, g - 0.62 * h), (cx, g - 0.55 * h)], dark, mid)
        for s in (-1, 1):
            cv.line((cx + s * 0.3 * w, g - 0.6 * h), (cx + s * 0.5 * w, g), (90, 90, 96), max(2, round(0.03 * h)), mid)
        cv.line((cx - 0.42 * w, g - 0.3 * h), (cx + 0.42 * w, g - 0.3 * h), (90, 90, 96), max(1, round(0.015 * h)))
    if outline:
        contours, _ = cv2.findContours((cv.mask == mid).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(cv.img, contours, -1, (30, 30, 30), outline, lineType=cv2.LINE_AA)
