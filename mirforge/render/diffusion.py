"""The diffusion realism pass: a depth-conditioned ControlNet img2img over rendered images (extra ``[diffusion]``).

The rendered RGB is the init image and the rendered depth (or, for a task without depth, a pseudo-depth made from
the id mask) the control image, so the layout is kept while the look becomes photo-like. Models load only from
what the user names (a folder, or a Hub id already in the local cache: ``local_files_only=True``); nothing is
downloaded. Each worker process loads the pipeline once (:func:`pipeline`) and reuses it; several images go through
one pipeline call; each image has its own ``torch.Generator`` (on the CPU) seeded from the instance seed, so an
image's bytes do not depend on the batch it ran in, nor on the machine's global RNG state.

Device, dtype and memory options: the device is picked automatically (CUDA, then MPS, then CPU); on CUDA the
weights are bf16 where supported, else fp16; ``channels_last`` and ``torch.compile`` are opt-in on GPU; CPU offload
(``model`` or ``sequential``) is chosen automatically on GPUs with less than 10 GiB.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from mirforge.errors import InputError

EXTRA_HINT = "pip install 'mirforge[diffusion]'"
DTYPES = ("auto", "fp32", "fp16", "bf16")
OFFLOADS = ("auto", "none", "model", "sequential")
SMALL_GPU_GIB = 10.0
NEGATIVE = "cartoon, drawing, illustration, render, text, watermark, blurry, deformed, extra objects"


@dataclass(frozen=True)
class Loader:
    """What decides the pipeline object a process holds (hashable: the key of the per-process cache)."""

    model: str
    controlnet: str
    device: str = "auto"
    dtype: str = "auto"
    offload: str = "auto"
    compile: bool = False
    channels_last: bool = False


@dataclass(frozen=True)
class Job:
    """One image through the pass."""

    image: np.ndarray  # H x W x 3 uint8
    control: np.ndarray  # H x W x 3 uint8
    prompt: str
    seed: int


def require_diffusers(flag: str = "--realism diffusion") -> None:
    try:
        import diffusers  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise InputError(f"{flag} needs the [diffusion] extra: {EXTRA_HINT}") from None


# -- where the weights are ------------------------------------------------------------------------------------
def resolve_weights(value: str | Path | None, flag: str, kind: str) -> str:
    """A local folder (or a Hub id present in the local cache) holding a ``kind`` ("pipeline" or "controlnet")."""
    marker = "model_index.json" if kind == "pipeline" else "config.json"
    example = (
        "a Stable Diffusion 1.5 folder (with model_index.json)"
        if kind == "pipeline"
        else ("a ControlNet folder (with config.json), e.g. a local copy of lllyasviel/control_v11f1p_sd15_depth")
    )
    hint = f"pass {flag} DIR with {example}; for a tiny test pipeline run `mirforge dev tiny-diffusion DIR`"
    if value is None or str(value) == "":
        raise InputError(f"{flag}: --realism diffusion needs {flag}; {hint}")
    path = Path(value).expanduser()
    if path.is_dir():
        if not (path / marker).is_file():
            raise InputError(f"{flag}: {path} has no {marker}, so it is not a diffusers {kind} folder; {hint}")
        return str(path.resolve())
    if _cached_hub_id(str(value), marker):
        return str(value)
    raise InputError(
        f"{flag}: {value} is not a folder (nor a Hub id in the local cache; nothing is downloaded); {hint}"
    )


def _cached_hub_id(value: str, marker: str) -> bool:
    parts = value.split("/")
    if len(parts) != 2 or not all(parts) or value.startswith((".", "~")):
        return False
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        found = try_to_load_from_cache(value, marker)
    except Exception:  # a malformed id: not in the cache
        return False
    return isinstance(found, str)


# -- device and pipeline --------------------------------------------------------------------------------------
def pick_device(requested: str = "auto") -> str:
    import torch

    if requested != "auto":
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(device: str, requested: str = "auto") -> Any:
    import torch

    table = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    if requested != "auto":
        return table[requested]
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device == "mps":
        return torch.float16
    return torch.float32


def _gpu_gib(device: str) -> float:
    import torch

    return torch.cuda.get_device_properties(torch.device(device)).total_memory / 2**30


@lru_cache(maxsize=1)  # one pipeline per process: a second configuration replaces the first (GPU memory)
def pipeline(loader: Loader) -> Any:
    """This process's ControlNet img2img pipeline, loaded on first use and reused."""
    require_diffusers()
    import torch
    from diffusers import ControlNetModel, StableDiffusionControlNetImg2ImgPipeline

    device = pick_device(loader.device)
    dtype = pick_dtype(device, loader.dtype)
    typed = {_dtype_key(): dtype}
    try:
        controlnet = ControlNetModel.from_pretrained(loader.controlnet, local_files_only=True, **typed)
        pipe = StableDiffusionControlNetImg2ImgPipeline.from_pretrained(
            loader.model,
            controlnet=controlnet,
            **typed,
            local_files_only=True,
            safety_checker=None,
            requires_safety_checker=False,
        )
    except (OSError, ValueError) as exc:
        raise InputError(
            f"--diffusion-model {loader.model} / --controlnet {loader.controlnet}: could not load them "
            f"({exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); pass a Stable Diffusion "
            "1.5-class folder and a matching ControlNet folder"
        ) from None
    pipe.set_progress_bar_config(disable=True)
    offload = loader.offload
    if offload == "auto":
        offload = "model" if device.startswith("cuda") and _gpu_gib(device) < SMALL_GPU_GIB else "none"
    if offload == "model" and device.startswith("cuda"):
        pipe.enable_model_cpu_offload(device=device)
    elif offload == "sequential" and device.startswith("cuda"):
        pipe.enable_sequential_cpu_offload(device=device)
    else:
        pipe.to(device)
    if loader.channels_last:
        pipe.unet.to(memory_format=torch.channels_last)
        pipe.controlnet.to(memory_format=torch.channels_last)
    if loader.compile:
        pipe.unet = torch.compile(pipe.unet, fullgraph=False)
    return pipe


def _dtype_key() -> str:
    """``dtype`` in newer diffusers (which deprecate ``torch_dtype``), ``torch_dtype`` before."""
    from diffusers.utils import deprecation_utils

    return "dtype" if hasattr(deprecation_utils, "_resolve_dtype") else "torch_dtype"


def native_size(pipe: Any) -> int:
    """The side the model was trained at (512 for SD1.5; 128 for the tiny test model)."""
    return int(pipe.unet.config.sample_size) * int(pipe.vae_scale_factor)


# -- control images and prompts -------------------------------------------------------------------------------
def depth_control(depth: np.ndarray) -> np.ndarray:
    """A MiDaS-style control image: inverse depth scaled to 0.15-1 over what was hit (near is bright), 0 elsewhere."""
    hit = depth > 0
    out = np.zeros(depth.shape, np.float32)
    if hit.any():
        inv = 1.0 / depth[hit]
        lo, hi = float(inv.min()), float(inv.max())
        out[hit] = 0.15 + 0.85 * (inv - lo) / (hi - lo) if hi > lo else 1.0
    return _grey(out)


def ids_control(ids: np.ndarray) -> np.ndarray:
    """A pseudo-depth from an id mask, for tasks drawn without depth: a ground plane getting nearer towards the
    bottom of the image, and each object a flat cut-out standing in front of it."""
    h = ids.shape[0]
    out = np.repeat(np.linspace(0.05, 0.45, h, dtype=np.float32)[:, None], ids.shape[1], axis=1)
    labels = [int(v) for v in np.unique(ids) if v > 0]
    for k, label in enumerate(labels):
        out[ids == label] = 0.7 + 0.25 * (k + 1) / len(labels)
    return _grey(out)


def _grey(values: np.ndarray) -> np.ndarray:
    g = np.clip(np.round(values * 255), 0, 255).astype(np.uint8)
    return np.repeat(g[..., None], 3, axis=2)


def prompt_for(names: list[str], setting: str) -> str:
    """A photo prompt naming the scene's objects (duplicates and trailing numbers dropped) and its setting."""
    seen: list[str] = []
    for name in names:
        noun = " ".join(w for w in name.split() if not w.isdigit())
        if noun and noun not in seen:
            seen.append(noun)
    things = (
        ", ".join(f"a {n}" for n in seen[:-1]) + (" and " if len(seen) > 1 else "") + (f"a {seen[-1]}" if seen else "")
    )
    what = f"a photo of {things}" if things else "a photo"
    return f"{what}, {setting}, realistic, natural light, sharp focus, high detail"


# -- running ----------------------------------------------------------------------------------------------------
def working_size(shape: tuple[int, int], side: int) -> tuple[int, int]:
    """(height, width) for the model: the longer side ``side``, both multiples of 8."""
    h, w = shape
    scale = side / max(h, w)
    return max(8, int(round(h * scale / 8)) * 8), max(8, int(round(w * scale / 8)) * 8)


def effective_steps(steps: int, strength: float) -> int:
    """img2img runs int(steps x strength) denoising steps; keep at least one."""
    return max(steps, math.ceil(1.0 / strength - 1e-9))


def _resize(img: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    if img.shape[:2] == hw:
        return img
    shrink = hw[0] * hw[1] < img.shape[0] * img.shape[1]
    return cv2.resize(img, (hw[1], hw[0]), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_CUBIC)


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence diffusers' and transformers' per-call warnings (prompt truncation and the like) during one call."""
    from diffusers.utils import logging as dlog
    from transformers.utils import logging as tlog

    levels = dlog.get_verbosity(), tlog.get_verbosity()
    dlog.set_verbosity_error()
    tlog.set_verbosity_error()
    try:
        yield
    finally:
        dlog.set_verbosity(levels[0])
        tlog.set_verbosity(levels[1])


def run(
    pipe: Any,
    jobs: list[Job],
    *,
    steps: int,
    strength: float,
    guidance: float = 5.0,
    control_scale: float = 1.0,
    resolution: int | None = None,
    batch: int = 4,
) -> list[np.ndarray]:
    """Run the pass over ``jobs``, ``batch`` images per pipeline call; images come back at their own size."""
    import torch
    from PIL import Image

    side = resolution or native_size(pipe)
    out: list[np.ndarray] = []
    for start in range(0, len(jobs), max(1, batch)):
        group = jobs[start : start + max(1, batch)]
        hw = working_size(group[0].image.shape[:2], side)
        same = [j for j in group if working_size(j.image.shape[:2], side) == hw]
        if len(same) != len(group):  # differently shaped images: one call each
            out.extend(
                img
                for j in group
                for img in run(
                    pipe,
                    [j],
                    steps=steps,
                    strength=strength,
                    guidance=guidance,
                    control_scale=control_scale,
                    resolution=resolution,
                    batch=1,
                )
            )
            continue
        with _quiet():
            result = pipe(
                prompt=[j.prompt for j in group],
                negative_prompt=[NEGATIVE] * len(group),
                image=[Image.fromarray(_resize(j.image, hw)) for j in group],
                control_image=[Image.fromarray(_resize(j.control, hw)) for j in group],
                height=hw[0],
                width=hw[1],
                strength=strength,
                num_inference_steps=effective_steps(steps, strength),
                guidance_scale=guidance,
                controlnet_conditioning_scale=control_scale,
                generator=[torch.Generator("cpu").manual_seed(j.seed) for j in group],
                output_type="np",
            )
        for j, img in zip(group, result.images, strict=True):
            rgb = np.clip(np.round(np.asarray(img, dtype=np.float32) * 255), 0, 255).astype(np.uint8)
            out.append(_resize(rgb, j.image.shape[:2]))
    return out
