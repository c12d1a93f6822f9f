"""The one model loader: what a model folder is, which dtype it loads in, and how a LoRA adapter is applied.

A model folder holds ``config.json`` (a full model). A LoRA adapter folder (``mirforge train --lora`` checkpoints)
holds ``adapter_config.json`` naming its base model, which must be a local model folder; the adapter's own
processor files win over the base's when it has them. Weights load in bf16 when asked (``bf16=True``), or by
default on a CUDA device that supports it, else in float32. Difficulty, eval and training all load through here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.models.processor import load_processor

ADAPTER_CONFIG = "adapter_config.json"
TRAIN_EXTRA = "pip install 'mirforge[train]'"


@dataclass(frozen=True)
class ModelFolder:
    path: Path
    base: Path  # the full model: ``path`` itself, or the base an adapter names
    adapter: bool

    @property
    def processor_folder(self) -> Path:
        return self.path if (self.path / "tokenizer_config.json").is_file() else self.base


def model_folder(path: Path | str) -> ModelFolder:
    """``path`` as a model folder or a LoRA adapter folder on a local base; a one-line error otherwise."""
    path = Path(path)
    if (path / "config.json").is_file():
        return ModelFolder(path, path, adapter=False)
    if not (path / ADAPTER_CONFIG).is_file():
        raise InputError(
            f"--model: {path} is neither a model folder (config.json) nor a LoRA adapter folder ({ADAPTER_CONFIG}); "
            "give a local model path"
        )
    base = json.loads((path / ADAPTER_CONFIG).read_text()).get("base_model_name_or_path")
    if not base or not (Path(base) / "config.json").is_file():
        raise InputError(
            f"--model: the adapter {path} names base model {base!r}, which is not a local model folder; "
            f"merge the adapter or point {ADAPTER_CONFIG} at the base model"
        )
    return ModelFolder(path, Path(base), adapter=True)


def require_transformers(flag: str = "--backend transformers") -> tuple[Any, Any]:
    """(torch, transformers), or the error naming the extra to install."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise InputError(f"{flag} needs the [train] extra ({exc}); {TRAIN_EXTRA}") from None
    return torch, transformers


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def use_bf16(device: str, bf16: bool | None = None) -> bool:
    """The one dtype rule: ``bf16`` when given, else bf16 on a CUDA device that supports it, float32 otherwise."""
    if bf16 is not None:
        return bf16
    import torch

    return device.startswith("cuda") and torch.cuda.is_bf16_supported()


@dataclass
class LoadedModel:
    model: Any
    processor: Any
    device: str
    bf16: bool


def load_model(
    path: Path | str, *, device: str | None = None, bf16: bool | None = None, train: bool = False
) -> LoadedModel:
    """The model at ``path`` and its processor.

    For inference (the default) the model is on ``device`` (CUDA when present) in eval mode, and an adapter is
    merged into its base. With ``train`` the model stays where it loaded for the trainer to place, and an adapter
    stays a trainable ``PeftModel`` (a resumed LoRA run goes on training the same adapter).
    """
    torch, transformers = require_transformers()
    folder = model_folder(path)
    device = device or default_device()
    bf16 = use_bf16(device, bf16)
    dtype = torch.bfloat16 if bf16 else torch.float32
    model = transformers.AutoModelForImageTextToText.from_pretrained(folder.base, dtype=dtype)
    if folder.adapter:
        try:
            from peft import PeftModel
        except ImportError as exc:
            raise InputError(f"--model: a LoRA adapter folder needs the [train] extra ({exc}); {TRAIN_EXTRA}") from None
        model = PeftModel.from_pretrained(model, folder.path, is_trainable=train)
        if not train:
            model = model.merge_and_unload()
    processor = load_processor(folder.processor_folder)
    if not train:
        model.to(device).eval()
    return LoadedModel(model, processor, device, bf16)
