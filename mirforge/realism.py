"""Realism passes over rendered images, and the check that they kept what the answer needs.

``realism_config(...)`` turns the command line's ``--realism diffusion --diffusion-model DIR --controlnet DIR ...``
into a json-able dict (recorded in the manifest as ``RunConfig.realism``); ``apply_realism(...)`` is what
:func:`mirforge.pipeline.generate_one` calls after a verified render. It runs the diffusion pass
(:mod:`mirforge.render.diffusion`) over every image whose ``Rendered.layers`` entry is set, then re-measures each
object of the layer on the output and compares it with the rendered mask:

- a segmentation of the output seeded by the rendered ids: in a window around each object, every pixel goes to the
  object or to its surroundings by which of the two colour histograms (measured on the output under the rendered
  labels) explains its colour better. Its IoU with the rendered mask, relative to the same measure on the rendered
  image itself, must be at least ``iou_min``;
- the extent (height, width) and centre of that segment must stay within ``size_tol`` (log ratio, and share of the
  object's size) of the same measure on the rendered image: apparent sizes and left/right order are kept;
- a saturated object keeps its hue within ``hue_tol`` degrees (colours that a question may name).

When an object drifts, the pass runs once more at ``retry_strength`` times the strength; if it drifts again the
scene is rejected (:class:`~mirforge.errors.Reject`) and the pipeline draws another. Regions, boxes and every
measured fact stay those of the rendered masks, which the check guarantees within its tolerances, so the
verifier's guarantee holds for the output images.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from mirforge.errors import InputError, Reject
from mirforge.task import Layer, Question, Rendered, Task

MODES = ("diffusion",)
DEFAULTS: dict[str, Any] = {
    "steps": 20,
    "strength": 0.5,
    "guidance": 5.0,
    "control_scale": 1.0,
    "resolution": None,  # None: the model's native size (512 for SD1.5)
    "iou_min": 0.75,
    "size_tol": 0.15,
    "hue_tol": 35.0,
    "retry_strength": 0.6,
    "batch": 4,
    "device": "auto",
    "dtype": "auto",
    "offload": "auto",
    "compile": False,
    "channels_last": False,
    "setting": None,  # None: the task's own (SETTINGS), else a generic one
}
SETTINGS = {
    "forced_perspective": "standing on a wide paved town square, daylight",
    "scale_blur": "on a grassy meadow under a clear sky",
    "yes_but": "on a table in a bright room",
}
DEFAULT_SETTING = "in a bright room"
HINTS_FILE = "mirforge_realism.json"
MIN_PIXELS = 16  # objects smaller than this are not measured


# -- configuration ------------------------------------------------------------------------------------------------
def realism_config(
    mode: str | None,
    model: str | Path | None = None,
    controlnet: str | Path | None = None,
    steps: int | None = None,
    strength: float | None = None,
    **options: Any,
) -> dict[str, Any] | None:
    """Validate the realism flags and return the dict a run records (None: keep the procedural images).

    ``options`` may set any other key of :data:`DEFAULTS` (resolution, guidance, iou_min, batch, device, ...).
    Unset values come from the model folder's ``mirforge_realism.json`` when it has one, else from DEFAULTS.
    Raises :class:`InputError` naming the flag at fault, or the ``[diffusion]`` extra when it is not installed."""
    if mode is None:
        given = [
            flag
            for flag, value in (
                ("--diffusion-model", model),
                ("--controlnet", controlnet),
                ("--realism-steps", steps),
                ("--realism-strength", strength),
            )
            if value is not None
        ]
        if given:
            raise InputError(f"{'/'.join(given)}: need --realism diffusion")
        return None
    if mode not in MODES:
        raise InputError(f"--realism: {mode!r} is not a realism pass; use one of: {', '.join(MODES)}")
    from mirforge.render.diffusion import DTYPES, OFFLOADS, require_diffusers, resolve_weights

    require_diffusers()
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise InputError(f"realism: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(DEFAULTS))}")
    model_path = resolve_weights(model, "--diffusion-model", "pipeline")
    config = {**DEFAULTS, **model_hints(model_path), **{k: v for k, v in options.items() if v is not None}}
    if steps is not None:
        config["steps"] = steps
    if strength is not None:
        config["strength"] = strength
    _check_numbers(config)
    if config["dtype"] not in DTYPES:
        raise InputError(f"realism dtype: {config['dtype']!r} is not one of {', '.join(DTYPES)}")
    if config["offload"] not in OFFLOADS:
        raise InputError(f"realism offload: {config['offload']!r} is not one of {', '.join(OFFLOADS)}")
    config["model"] = model_path
    config["controlnet"] = resolve_weights(controlnet, "--controlnet", "controlnet")
    return {"mode": mode, **config}


def model_hints(model: str) -> dict[str, Any]:
    """Defaults a model folder suggests in ``HINTS_FILE`` (the tiny test model: 2 steps); flags override them."""
    path = Path(model) / HINTS_FILE
    if not path.is_file():
        return {}
    try:
        hints = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"--diffusion-model: {path} is not valid JSON ({exc})") from None
    if not isinstance(hints, dict) or set(hints) - set(DEFAULTS):
        raise InputError(f"--diffusion-model: {path} must be an object with keys among {', '.join(sorted(DEFAULTS))}")
    return hints


def _check_numbers(c: dict[str, Any]) -> None:
    def need(ok: bool, flag: str, what: str) -> None:
        if not ok:
            raise InputError(f"{flag}: {what}")

    need(_is_int(c["steps"]) and 1 <= c["steps"] <= 500, "--realism-steps", f"must be 1 to 500, got {c['steps']!r}")
    need(_is_num(c["strength"]) and 0 < c["strength"] <= 1, "--realism-strength", "must be in (0, 1]")
    need(_is_num(c["guidance"]) and c["guidance"] >= 0, "realism guidance", "must be >= 0")
    need(_is_num(c["control_scale"]) and c["control_scale"] >= 0, "realism control_scale", "must be >= 0")
    need(
        c["resolution"] is None or (_is_int(c["resolution"]) and 32 <= c["resolution"] <= 2048),
        "realism resolution",
        "must be 32 to 2048 pixels",
    )
    need(_is_num(c["iou_min"]) and 0 <= c["iou_min"] <= 1, "realism iou_min", "must be in [0, 1]")
    need(_is_num(c["size_tol"]) and c["size_tol"] > 0, "realism size_tol", "must be > 0")
    need(_is_num(c["hue_tol"]) and 0 < c["hue_tol"] <= 180, "realism hue_tol", "must be in (0, 180] degrees")
    need(_is_num(c["retry_strength"]) and 0 < c["retry_strength"] < 1, "realism retry_strength", "must be in (0, 1)")
    need(_is_int(c["batch"]) and c["batch"] >= 1, "realism batch", "must be a positive count of images")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# -- the pass -------------------------------------------------------------------------------------------------------
def apply_realism(task: Task, question: Question, rendered: Rendered, config: dict[str, Any], seed: int) -> Rendered:
    """The rendered images with the realism pass applied where ``rendered.layers`` allows it.

    The returned ``measured["realism"]`` records what happened (see :func:`record`). Raises ``Reject`` when an
    object drifts beyond the tolerances even at the lowered retry strength."""
    todo = [k for k, layer in enumerate(rendered.layers) if layer is not None]
    if not todo:
        return rendered
    c = {**DEFAULTS, **config}
    if c.get("mode", "diffusion") not in MODES:
        raise InputError(f"realism: {c['mode']!r} is not a realism pass; use one of: {', '.join(MODES)}")
    from mirforge.render.diffusion import Job, Loader, pipeline, prompt_for, run

    pipe = pipeline(
        Loader(c["model"], c["controlnet"], c["device"], c["dtype"], c["offload"], c["compile"], c["channels_last"])
    )
    setting = c["setting"] or SETTINGS.get(task.name, DEFAULT_SETTING)
    jobs = []
    for k in todo:
        layer = rendered.layers[k]
        jobs.append(Job(rendered.images[k], control_for(layer), prompt_for(layer.names, setting), image_seed(seed, k)))
    strength, tries = float(c["strength"]), []
    for _ in range(2):
        outs = run(
            pipe,
            jobs,
            steps=c["steps"],
            strength=strength,
            guidance=c["guidance"],
            control_scale=c["control_scale"],
            resolution=c["resolution"],
            batch=c["batch"],
        )
        drift = combine(
            [check_geometry(rendered.images[k], out, rendered.layers[k], c) for k, out in zip(todo, outs, strict=True)]
        )
        tries.append(drift)
        if drift.ok:
            break
        strength *= float(c["retry_strength"])
    else:
        raise Reject(f"realism pass changed an object ({', '.join(tries[-1].kinds)})")  # stable: counted by reason
    images = list(rendered.images)
    for k, out in zip(todo, outs, strict=True):
        images[k] = out
    measured = {**rendered.measured, "realism": record(c, todo, strength, len(tries), drift)}
    return dataclasses.replace(rendered, images=images, measured=measured)


def image_seed(seed: int, k: int) -> int:
    """The torch seed of image ``k`` of an instance (independent of the batch it runs in)."""
    return int(np.random.SeedSequence([int(seed), k]).generate_state(1, dtype=np.uint32)[0])


def control_for(layer: Layer) -> np.ndarray:
    from mirforge.render.diffusion import depth_control, ids_control

    if layer.depth is not None and np.any(layer.depth > 0):
        return depth_control(layer.depth)
    return ids_control(layer.ids)


def record(c: dict[str, Any], todo: list[int], strength: float, passes: int, drift: Drift) -> dict[str, Any]:
    """What the pass did, json-able: for the instance's provenance."""
    return {
        "mode": c.get("mode", "diffusion"),
        "model": Path(str(c["model"])).name,
        "controlnet": Path(str(c["controlnet"])).name,
        "steps": int(c["steps"]),
        "strength": round(strength, 4),
        "passes": passes,
        "resolution": c["resolution"],
        "images": todo,
        "iou_min": round(drift.iou, 4),
        "size_drift": round(drift.size, 4),
        "hue_drift": round(drift.hue, 2),
    }


# -- the geometry check ---------------------------------------------------------------------------------------
@dataclass
class Drift:
    """How far the output strayed from the rendered image, over the objects checked."""

    iou: float = 1.0  # lowest relative IoU
    size: float = 0.0  # largest change of extent (log ratio) or of centre (share of the object's size)
    hue: float = 0.0  # largest hue change of a saturated object, degrees
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def kinds(self) -> list[str]:
        """What drifted, as stable words: "IoU", "size" (or position), "hue", "shape"."""
        return sorted({f.split(": ", 1)[1].split(" ", 1)[0] if ": " in f else "shape" for f in self.failures})


def combine(drifts: list[Drift]) -> Drift:
    return Drift(
        iou=min((d.iou for d in drifts), default=1.0),
        size=max((d.size for d in drifts), default=0.0),
        hue=max((d.hue for d in drifts), default=0.0),
        failures=[f for d in drifts for f in d.failures],
    )


def check_geometry(before: np.ndarray, after: np.ndarray, layer: Layer, tol: dict[str, Any]) -> Drift:
    """Re-measure every object of ``layer`` on ``after`` and compare with the rendered image ``before``."""
    c = {**DEFAULTS, **tol}
    drift = Drift()
    if after.shape != before.shape:
        drift.failures.append(f"output is {after.shape}, the render {before.shape}")
        return drift
    for label, name in enumerate(layer.names, start=1):
        mask = layer.ids == label
        if int(mask.sum()) < MIN_PIXELS:
            continue
        window = _window(mask)
        m = mask[window]
        ref, out = _segment(before[window], m), _segment(after[window], m)
        iou = min(1.0, _iou(out, m) / max(_iou(ref, m), 1e-6))
        size = _extent_drift(ref, out)
        hue = _hue_drift(before, after, mask)
        drift.iou, drift.size, drift.hue = min(drift.iou, iou), max(drift.size, size), max(drift.hue, hue)
        if iou < c["iou_min"]:
            drift.failures.append(f"{name}: IoU {iou:.2f} < {c['iou_min']}")
        if size > c["size_tol"]:
            drift.failures.append(f"{name}: size or position moved by {size:.2f} > {c['size_tol']}")
        if hue > c["hue_tol"]:
            drift.failures.append(f"{name}: hue moved by {hue:.0f} > {c['hue_tol']} degrees")
    return drift


def _window(mask: np.ndarray) -> tuple[slice, slice]:
    """The object's box grown by a third of its size (at least 4 px), clipped to the image."""
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    my, mx = max(4, (y1 - y0) // 3), max(4, (x1 - x0) // 3)
    h, w = mask.shape
    return slice(max(0, y0 - my), min(h, y1 + my)), slice(max(0, x0 - mx), min(w, x1 + mx))


def _segment(img: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Pixels whose colour the object's histogram explains better than the surroundings' (both measured on
    ``img`` under ``labels``), cleaned by a small median filter."""
    smooth = cv2.GaussianBlur(img, (3, 3), 0) if min(img.shape[:2]) >= 3 else img
    q = (smooth >> 5).astype(np.int32)
    bins = q[..., 0] * 64 + q[..., 1] * 8 + q[..., 2]
    inside, outside = int(labels.sum()), int((~labels).sum())
    p_in = np.bincount(bins[labels], minlength=512) / max(inside, 1)
    p_out = np.bincount(bins[~labels], minlength=512) / max(outside, 1)
    pred = (p_in[bins] > p_out[bins]).astype(np.uint8) * 255
    if min(pred.shape) >= 5:
        pred = cv2.medianBlur(pred, 5)
    return pred > 0


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = int(np.count_nonzero(a | b))
    return int(np.count_nonzero(a & b)) / union if union else 1.0


def _extent_drift(ref: np.ndarray, out: np.ndarray) -> float:
    """Change of a segment's robust height, width (log ratio) and centre (share of its size)."""
    a, b = _extent(ref), _extent(out)
    if a is None or b is None:
        return math.inf if a is not None else 0.0
    (ay0, ay1, ax0, ax1), (by0, by1, bx0, bx1) = a, b
    ha, wa, hb, wb = ay1 - ay0, ax1 - ax0, by1 - by0, bx1 - bx0
    logs = [abs(math.log(max(hb, 1.0) / max(ha, 1.0))), abs(math.log(max(wb, 1.0) / max(wa, 1.0)))]
    size = max(ha, wa, 1.0)
    shift = math.hypot((by0 + by1 - ay0 - ay1) / 2, (bx0 + bx1 - ax0 - ax1) / 2) / size
    return max(*logs, shift)


def _extent(seg: np.ndarray) -> tuple[float, float, float, float] | None:
    ys, xs = np.nonzero(seg)
    if len(ys) < MIN_PIXELS:
        return None
    y0, y1 = np.percentile(ys, [2, 98])
    x0, x1 = np.percentile(xs, [2, 98])
    return float(y0), float(y1) + 1, float(x0), float(x1) + 1


def _hue_drift(before: np.ndarray, after: np.ndarray, mask: np.ndarray) -> float:
    """Hue change (degrees) of the object's mean colour, for objects drawn in a saturated colour; else 0."""
    core = cv2.erode(mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    core = core if int(core.sum()) >= MIN_PIXELS else mask
    hsv = [_hsv(img[core].mean(axis=0)) for img in (before, after)]
    (h0, s0, v0), (h1, s1, _) = hsv
    if s0 < 0.35 or v0 < 0.25:
        return 0.0
    if s1 < 0.12:
        return 180.0  # the colour is gone
    d = abs(h0 - h1) % 360
    return min(d, 360 - d)


def _hsv(rgb: np.ndarray) -> tuple[float, float, float]:
    px = np.asarray(rgb, dtype=np.float32).reshape(1, 1, 3) / 255.0
    h, s, v = cv2.cvtColor(px, cv2.COLOR_RGB2HSV)[0, 0]
    return float(h), float(s), float(v)
