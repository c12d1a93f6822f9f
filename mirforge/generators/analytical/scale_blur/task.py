"""scale_blur: the real size of look-alike objects whose scale is ambiguous without a reference.

A model house, a bonsai tree or a toy lighthouse looks exactly like the real thing when it fills the picture
alone. The scene has 2-4 look-alikes of one kind (a blue house, an orange house, ...) with very different real
heights, from a few centimetres to many metres. Some images show a look-alike alone at a standard size (no
clue to its scale); others show each look-alike standing next to an everyday reference of known height (a soda
can, a wine bottle, a chair, a person, a door). The question asks how tall one look-alike really is, or which
is the tallest / the shortest in reality. Real heights of look-alikes differ by at least ``min_ratio`` (25%),
and numeric options are at least that far apart.

Images are drawn procedurally (OpenCV) into an RGB image and an id mask at once. The verifier measures, in the
reference images, the pixel heights of the look-alike and of its reference from the mask, scales the known
reference height by their ratio and answers from those estimates alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from mirforge.errors import Reject
from mirforge.render.scene3d import PALETTE
from mirforge.task import Layer, Needs, Question, Region, Rendered, Task, TaskConfig, ensure, per_level, place

GROUND_Y = 392
MAX_PX = 300  # the taller thing of a reference image is drawn this high
ALONE_PX = 280
HEIGHTS = (6.0, 60.0, 600.0)  # real heights of look-alikes, cm: the miniatures' decade, then the full-size one
KINDS = {  # look-alike kind -> (width / height, plural)
    "house": (0.9, "houses"),  # the roof overhangs the walls by 5% on each side
    "tree": (0.7, "trees"),
    "lighthouse": (0.38, "lighthouses"),
}
REFERENCES = {  # name -> (real height in cm, width / height)
    "soda can": (12.0, 0.55),
    "wine bottle": (30.0, 0.26),
    "chair": (90.0, 0.55),
    "person": (180.0, 0.3),
    "door": (210.0, 0.45),
}
COLORS = {name: PALETTE[name] for name in ("blue", "orange", "red", "purple", "green", "yellow")}
SKY = (214, 230, 245)
GROUND = (190, 200, 170)


@dataclass
class ScaleBlurConfig(TaskConfig):
    lookalikes_per_level: tuple[int, ...] = per_level(2, 3, 4)
    min_ratio: float = 1.25
    min_px: int = 40

    def validate(self) -> None:
        super().validate()
        ensure(all(2 <= n <= 4 for n in self.lookalikes_per_level), "lookalikes_per_level", "each must be 2 to 4")
        ensure(1.1 <= self.min_ratio <= 3.0, "min_ratio", "must be between 1.1 and 3")
        ensure(self.min_px > 0, "min_px", "must be positive")


@dataclass(frozen=True)
class Scene:
    kind: str
    colors: tuple[str, ...]
    heights: tuple[float, ...]  # real heights, cm
    references: tuple[str, ...]  # the reference each look-alike is shown with
    alone: tuple[int, ...]  # look-alikes shown alone, in image order
    order: tuple[int, ...]  # order of the reference images (look-alike indices)
    qtype: str  # "size", "tallest" or "shortest"
    target: int  # the look-alike asked about (size)
    xs: tuple[float, ...]  # horizontal placement jitter per reference image


class ScaleBlur(Task):
    name = "scale_blur"
    category = "analytical"
    description = "Tell the real size of look-alike objects from images with and without a reference"
    Config = ScaleBlurConfig
    needs = Needs(renderer=None, cost=0.2, realism=True)

    def knobs(self, level: int) -> dict[str, Any]:
        k = self.config.lookalikes_per_level[level - 1]
        return {
            "n_lookalikes": k,
            "n_alone": (2, 2, 1)[level - 1],
            "questions": ("size",) if k < self.config.n_options else ("size", "tallest", "shortest"),
            "min_ratio": self.config.min_ratio,
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        kn = self.knobs(level)
        k = kn["n_lookalikes"]
        kind = list(KINDS)[int(rng.integers(len(KINDS)))]
        colors = tuple(list(COLORS)[int(i)] for i in rng.permutation(len(COLORS))[:k])
        lo, mid, hi = HEIGHTS
        for _ in range(50):  # log-uniform from 6 cm to 6 m; one miniature and one full-size thing at least
            heights = [_log_uniform(rng, lo, mid), _log_uniform(rng, mid, hi)]
            heights += [_log_uniform(rng, lo, hi) for _ in range(k - 2)]
            heights = [round(h, 0) if h >= 20 else round(h, 1) for h in heights]
            srt = sorted(heights)
            if all(b / a >= self.config.min_ratio for a, b in zip(srt, srt[1:], strict=False)):
                break
        else:
            raise Reject("look-alikes too close in size")
        heights = [heights[int(i)] for i in rng.permutation(k)]
        refs = []
        for h in heights:
            fits = [r for r, (rh, _) in REFERENCES.items() if 1 / 3.2 <= h / rh <= 3.2]
            if not fits:
                raise Reject("no reference fits")
            refs.append(fits[int(rng.integers(len(fits)))])
        qtype = kn["questions"][int(rng.integers(len(kn["questions"])))]
        alone = tuple(int(i) for i in rng.permutation(k)[: kn["n_alone"]])
        order = tuple(int(i) for i in rng.permutation(k))
        xs = tuple(float(rng.uniform(-0.08, 0.08)) for _ in range(k))
        return Scene(kind, colors, tuple(heights), tuple(refs), alone, order, qtype, int(rng.integers(k)), xs)

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        names = [f"{c} {scene.kind}" for c in scene.colors]
        n = self.config.n_options
        values = None
        if scene.qtype == "size":
            h = scene.heights[scene.target]
            chosen = _height_distractors(scene, rng, n, self.config.min_ratio)
            values = place(h, chosen, slot)
            options = [_fmt_height(v) for v in values]
            q = [
                f"About how tall is the {names[scene.target]} in reality?",
                f"What is the real height of the {names[scene.target]}?",
            ][int(rng.integers(2))]
        else:
            order = np.argsort(scene.heights)
            answer = int(order[-1] if scene.qtype == "tallest" else order[0])
            others = [i for i in range(len(names)) if i != answer]
            picks = [others[int(i)] for i in rng.permutation(len(others))][: n - 1]
            options = place(names[answer], [names[i] for i in picks], slot)
            q = f"Which {scene.kind} is the {scene.qtype} in reality?"
        if len(set(options)) != len(options):
            raise Reject("duplicate options")
        alone_txt = ", ".join("<image>" for _ in scene.alone)
        alone_names = _join([f"the {names[i]}" for i in scene.alone])
        ref_parts = []
        for i in scene.order:
            r = scene.references[i]
            ref_parts.append(
                f"<image> shows the {names[i]} next to a {r} ({_fmt_height(REFERENCES[r][0], about=False)} tall)"
            )
        if len(scene.alone) == 1:
            intro = f"{alone_txt} shows {alone_names} on its own, with nothing to judge its scale by. "
        else:
            intro = [
                f"{alone_txt} show {alone_names} on their own; seen alone, every {scene.kind} looks the same size. ",
                f"Alone, the {KINDS[scene.kind][1]} give no clue to their scale: {alone_txt} show {alone_names}. ",
            ][int(rng.integers(2))]
        text = intro + "; ".join(ref_parts) + ". " + q
        return Question(text=text, options=options, answer=slot, facts={"values": values, "names": names})

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        size = self.image_size
        names = question.facts["names"]
        images, regions, refs, layers = [], [], [], []
        for i in scene.alone:
            img, mask = _canvas(size)
            h_px = ALONE_PX
            _draw_lookalike(img, mask, 1, scene.kind, COLORS[scene.colors[i]], size / 2, h_px)
            regions.append(Region(len(images), names[i], _mask_box(mask, 1)))
            layers.append(Layer(ids=mask, names=[names[i]]))  # for a realism pass
            images.append(img)
        for j, i in enumerate(scene.order):
            img, mask = _canvas(size)
            ref = scene.references[i]
            h, rh = scene.heights[i], REFERENCES[ref][0]
            gap = 24 + 20 * abs(scene.xs[j])
            obj_unit = h * KINDS[scene.kind][0] * (1.1 if scene.kind == "house" else 1.0)  # width per px/cm
            ref_unit = rh * REFERENCES[ref][1]
            px_per_cm = min(MAX_PX / max(h, rh), (size - 24 - gap) / (obj_unit + ref_unit))  # fit both in frame
            obj_w, ref_w = obj_unit * px_per_cm, ref_unit * px_per_cm + 8
            total = obj_w + gap + ref_w
            left = (size - total) / 2 + scene.xs[j] * (size - 16 - total)
            if j % 2 == 0:
                x_obj, x_ref = left + obj_w / 2, left + obj_w + gap + ref_w / 2
            else:
                x_ref, x_obj = left + ref_w / 2, left + ref_w + gap + obj_w / 2
            _draw_lookalike(img, mask, 1, scene.kind, COLORS[scene.colors[i]], x_obj, h * px_per_cm)
            _draw_reference(img, mask, 2, ref, x_ref, rh * px_per_cm)
            k = len(images)
            ob, rb = _mask_box(mask, 1), _mask_box(mask, 2)
            if ob is None or rb is None or min(ob[3] - ob[1], rb[3] - rb[1]) < self.config.min_px:
                raise Reject("object too small to measure")
            if ob[0] <= 0 or ob[2] >= size or rb[0] <= 0 or rb[2] >= size:
                raise Reject("object cut by the frame")
            regions += [Region(k, names[i], ob), Region(k, ref, rb)]
            layers.append(Layer(ids=mask, names=[names[i], ref]))
            refs.append(
                {
                    "name": names[i],
                    "reference": ref,
                    "reference_cm": rh,
                    "object_px": ob[3] - ob[1],
                    "reference_px": rb[3] - rb[1],
                }
            )
            images.append(img)
        measured = {
            "pairs": refs,
            "qtype": scene.qtype,
            "target": names[scene.target],
            "min_ratio": self.config.min_ratio,
        }
        return Rendered(images=images, measured=measured, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        m = rendered.measured
        est = estimates(m)
        if m["qtype"] == "size":
            h = est[m["target"]]
            dist = [abs(math.log(v / h)) for v in question.facts["values"]]
            best = int(np.argmin(dist))
            tol = math.log(m["min_ratio"]) / 2
            if dist[best] > tol / 2 or sorted(dist)[1] < tol:
                raise Reject("measured height does not single out one option")
            return best
        ranked = sorted(est.items(), key=lambda kv: kv[1], reverse=m["qtype"] == "tallest")
        if max(ranked[0][1], ranked[1][1]) / min(ranked[0][1], ranked[1][1]) < math.sqrt(m["min_ratio"]):
            raise Reject("measured heights too close")
        if question.options.count(ranked[0][0]) != 1:
            raise Reject("answer not among options")
        return question.options.index(ranked[0][0])

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        m = rendered.measured
        est = estimates(m)
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        names = question.facts["names"]
        n_alone = len(scene.alone)
        alone = [{"image": k + 1, "name": names[i], "box": boxes[(k, names[i])]} for k, i in enumerate(scene.alone)]
        pairs = []
        for j, p in enumerate(m["pairs"]):
            k = n_alone + j
            pairs.append(
                {
                    "image": k + 1,
                    "name": p["name"],
                    "reference": p["reference"],
                    "reference_height": _fmt_height(p["reference_cm"], about=False),
                    "object_px": p["object_px"],
                    "reference_px": p["reference_px"],
                    "ratio": round(p["object_px"] / p["reference_px"], 2),
                    "estimate": _fmt_height(est[p["name"]], about=False),
                    "object_box": boxes[(k, p["name"])],
                    "reference_box": boxes[(k, p["reference"])],
                }
            )
        ranked = sorted(est, key=lambda nm: est[nm], reverse=True)
        return {
            "kind": scene.kind,
            "plural": KINDS[scene.kind][1],
            "qtype": scene.qtype,
            "target": m["target"],
            "alone": alone,
            "pairs": pairs,
            "ranked": [{"name": nm, "estimate": _fmt_height(est[nm], about=False)} for nm in ranked],
            "answer_text": question.options[question.answer],
        }


# -- measuring ----------------------------------------------------------------------------------------------
def estimates(measured: dict[str, Any]) -> dict[str, float]:
    """Real height (cm) of each look-alike: its pixel height over its reference's, times the reference height."""
    return {p["name"]: p["object_px"] / p["reference_px"] * p["reference_cm"] for p in measured["pairs"]}


def _height_distractors(scene: Scene, rng: np.random.Generator, n: int, min_ratio: float) -> list[float]:
    """Wrong heights for a size question: the answer's decade slip, wrong estimates and their decade slips.

    Options come in pairs {v, v x 10^s} (a model taken for the real thing, or the other way round): one pair
    around the answer and the others around a wrong estimate w, the real height of another look-alike (the
    image of the wrong look-alike read); with an odd number of options one base, drawn like the others, goes
    without its slip. Real heights are log-uniform over the two decades of ``HEIGHTS`` (half of them in each) and
    a slip moves a base into the other decade (up from the lower one, down from the upper one), so a slip is
    drawn exactly like a base: given a pair, either of its values is the base as often as the other, and given
    the options, the answer's pair is any pair (the answer and the look-alike whose height is w are drawn
    alike). Neither the magnitude, the shared digits nor the middle of the ladder tell the answer. Only without
    another look-alike to use does w fall back to the height the target would have next to another reference.
    """
    h = scene.heights[scene.target]
    others = [x for i, x in enumerate(scene.heights) if i != scene.target]
    rh = REFERENCES[scene.references[scene.target]][0]
    wrong_ref = [h * REFERENCES[r][0] / rh for r in REFERENCES if REFERENCES[r][0] != rh]
    wrong_ref = [round(w, 0) if w >= 20 else round(w, 1) for w in wrong_ref]  # as precise as the heights
    candidates = [others[int(i)] for i in rng.permutation(len(others))]
    candidates += [wrong_ref[int(i)] for i in rng.permutation(len(wrong_ref))]
    bases = [h]
    for w in candidates:
        if len(bases) == (n + 1) // 2:
            break
        if HEIGHTS[0] <= w <= HEIGHTS[2] and _apart(w, bases, min_ratio):
            bases.append(w)
    if len(bases) < (n + 1) // 2:
        raise Reject("not enough distinct heights")
    slipped = [int(i) for i in rng.permutation(len(bases))[: n // 2]]  # the bases that get a slip
    values = bases + [bases[b] * 10 if bases[b] < HEIGHTS[1] else bases[b] / 10 for b in slipped]
    if not all(_apart(v, values[k + 1 :], min_ratio) for k, v in enumerate(values)):
        raise Reject("decade slips too close to another option")
    out = values[1:]
    return [out[int(j)] for j in rng.permutation(len(out))]


def _apart(v: float, old: list[float], min_ratio: float) -> bool:
    return all(max(v, u) / min(v, u) >= min_ratio for u in old)


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def _fmt_height(cm: float, about: bool = True) -> str:
    pre = "about " if about else ""
    if cm >= 1000:
        return f"{pre}{cm / 100:.0f} m"
    if cm >= 100:
        return f"{pre}{cm / 100:.1f} m"
    if cm >= 20:
        return f"{pre}{cm:.0f} cm"
    return f"{pre}{cm:.0f} cm" if cm >= 10 else f"{pre}{cm:.1f} cm"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# -- drawing --------------------------------------------------------------------------------------------------
def _canvas(size: int) -> tuple[np.ndarray, np.ndarray]:
    img = np.empty((size, size, 3), dtype=np.uint8)
    img[:GROUND_Y] = SKY
    img[GROUND_Y:] = GROUND
    cv2.line(img, (0, GROUND_Y), (size, GROUND_Y), (150, 160, 130), 2)
    return img, np.zeros((size, size), dtype=np.uint8)


def _mask_box(mask: np.ndarray, value: int) -> list[int] | None:
    ys, xs = np.nonzero(mask == value)
    if len(xs) == 0:
        return None
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]


def _shade(color: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(c * f, 0, 255)) for c in color)


def _poly(img: np.ndarray, mask: np.ndarray, mid: int, pts: list[tuple[float, float]], color: Any) -> None:
    arr = np.round(np.asarray(pts, dtype=float)).astype(np.int32)
    cv2.fillPoly(img, [arr], color, lineType=cv2.LINE_AA)
    cv2.fillPoly(mask, [arr], mid)


def _rect(img: np.ndarray, mask: np.ndarray, mid: int, x0: float, y0: float, x1: float, y1: float, color: Any) -> None:
    _poly(img, mask, mid, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], color)


def _circle(img: np.ndarray, mask: np.ndarray, mid: int, cx: float, cy: float, r: float, color: Any) -> None:
    c, rr = (round(cx), round(cy)), max(1, round(r))
    cv2.circle(img, c, rr, color, -1, lineType=cv2.LINE_AA)
    cv2.circle(mask, c, rr, mid, -1)


def _draw_lookalike(img: np.ndarray, mask: np.ndarray, mid: int, kind: str, color: Any, cx: float, h: float) -> None:
    g = GROUND_Y
    w = h * KINDS[kind][0]
    if kind == "house":
        wall_top = g - 0.6 * h
        _rect(img, mask, mid, cx - w / 2, wall_top, cx + w / 2, g, color)
        _poly(
            img,
            mask,
            mid,
            [(cx - w / 2 - 0.05 * w, wall_top), (cx + w / 2 + 0.05 * w, wall_top), (cx, g - h)],
            _shade(color, 0.6),
        )
        _rect(img, mask, mid, cx - 0.08 * w, g - 0.3 * h, cx + 0.08 * w, g, (90, 60, 40))
        for dx in (-0.28, 0.28):
            _rect(
                img, mask, mid, cx + (dx - 0.09) * w, g - 0.45 * h, cx + (dx + 0.09) * w, g - 0.3 * h, (230, 240, 250)
            )
    elif kind == "tree":
        _rect(img, mask, mid, cx - 0.08 * w, g - 0.45 * h, cx + 0.08 * w, g, (110, 75, 45))
        _circle(img, mask, mid, cx, g - 0.66 * h, 0.34 * h, color)
        _circle(img, mask, mid, cx - 0.12 * h, g - 0.58 * h, 0.2 * h, _shade(color, 0.8))
    else:  # lighthouse
        body = [(cx - w / 2, g), (cx + w / 2, g), (cx + 0.3 * w, g - 0.8 * h), (cx - 0.3 * w, g - 0.8 * h)]
        _poly(img, mask, mid, body, (245, 245, 240))
        for t0 in (0.15, 0.45):
            y0, y1 = g - t0 * h, g - (t0 + 0.15) * h
            a0, a1 = 0.5 - 0.2 * t0 / 0.8, 0.5 - 0.2 * (t0 + 0.15) / 0.8
            _poly(img, mask, mid, [(cx - a0 * w, y0), (cx + a0 * w, y0), (cx + a1 * w, y1), (cx - a1 * w, y1)], color)
        _rect(img, mask, mid, cx - 0.22 * w, g - 0.92 * h, cx + 0.22 * w, g - 0.8 * h, (250, 220, 90))
        _poly(img, mask, mid, [(cx - 0.32 * w, g - 0.92 * h), (cx + 0.32 * w, g - 0.92 * h), (cx, g - h)], color)


def _draw_reference(img: np.ndarray, mask: np.ndarray, mid: int, ref: str, cx: float, h: float) -> None:
    g = GROUND_Y
    w = h * REFERENCES[ref][1]
    if ref == "soda can":
        _rect(img, mask, mid, cx - w / 2, g - h, cx + w / 2, g, (200, 30, 40))
        _rect(img, mask, mid, cx - w / 2, g - 0.6 * h, cx + w / 2, g - 0.4 * h, (245, 245, 245))
    elif ref == "wine bottle":
        _rect(img, mask, mid, cx - w / 2, g - 0.65 * h, cx + w / 2, g, (30, 90, 50))
        _rect(img, mask, mid, cx - w / 6, g - h, cx + w / 6, g - 0.65 * h, (30, 90, 50))
        _rect(img, mask, mid, cx - w / 2, g - 0.45 * h, cx + w / 2, g - 0.25 * h, (235, 225, 200))
    elif ref == "chair":
        c = (120, 80, 45)
        _rect(img, mask, mid, cx - w / 2, g - 0.5 * h, cx - w / 2 + 0.1 * w, g, c)
        _rect(img, mask, mid, cx + w / 2 - 0.1 * w, g - 0.5 * h, cx + w / 2, g, c)
        _rect(img, mask, mid, cx - w / 2, g - 0.55 * h, cx + w / 2, g - 0.48 * h, c)
        _rect(img, mask, mid, cx + w / 2 - 0.12 * w, g - h, cx + w / 2, g - 0.5 * h, c)
    elif ref == "person":
        _circle(img, mask, mid, cx, g - 0.93 * h, 0.07 * h, (230, 190, 160))
        _rect(img, mask, mid, cx - w / 2, g - 0.84 * h, cx + w / 2, g - 0.45 * h, (60, 90, 160))
        _rect(img, mask, mid, cx - w / 2.2, g - 0.46 * h, cx - w / 20, g, (50, 50, 60))
        _rect(img, mask, mid, cx + w / 20, g - 0.46 * h, cx + w / 2.2, g, (50, 50, 60))
    else:  # door
        _rect(img, mask, mid, cx - w / 2 - 4, g - h, cx + w / 2 + 4, g, (90, 70, 50))
        _rect(img, mask, mid, cx - w / 2, g - h + 4, cx + w / 2, g, (150, 105, 60))
        _circle(img, mask, mid, cx + 0.35 * w, g - 0.48 * h, max(2.0, 0.03 * h), (230, 200, 80))
