"""Load a model folder for evaluation: a full model, or a LoRA adapter folder (``mirforge train`` checkpoints) on
top of the base model it names; and a transformers backend around an already loaded model (the trainer's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mirforge.curriculum.models import TransformersBackend, load_processor
from mirforge.errors import InputError

ADAPTER_CONFIG = "adapter_config.json"


def is_adapter(path: Path) -> bool:
    return (Path(path) / ADAPTER_CONFIG).is_file() and not (Path(path) / "config.json").is_file()


def base_of(adapter: Path) -> Path:
    data = json.loads((Path(adapter) / ADAPTER_CONFIG).read_text())
    base = data.get("base_model_name_or_path")
    if not base or not (Path(base) / "config.json").is_file():
        raise InputError(
            f"--model: the adapter {adapter} names base model {base!r}, which is not a local model folder; "
            "merge the adapter or point adapter_config.json at the base model"
        )
    return Path(base)


def load_model(path: Path | str, device: str | None = None, bf16: bool | None = None) -> tuple[Any, Any, str]:
    """(model in eval mode on ``device``, processor, device). A LoRA adapter folder is merged into its base."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        extra = "pip install 'mirforge[train]'"
        raise InputError(f"--backend transformers needs the [train] extra ({exc}): {extra}") from None
    path = Path(path)
    adapter = is_adapter(path)
    base = base_of(path) if adapter else path
    if not (base / "config.json").is_file():
        raise InputError(f"--model: {path} is neither a model folder (config.json) nor a LoRA adapter folder")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if bf16 is None:
        bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
    dtype = torch.bfloat16 if bf16 else torch.float32
    model = transformers.AutoModelForImageTextToText.from_pretrained(base, dtype=dtype)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, path).merge_and_unload()
    processor = load_processor(path if (path / "tokenizer_config.json").is_file() else base)
    model.to(device).eval()
    return model, processor, device


class LoadedBackend(TransformersBackend):
    """``TransformersBackend`` around a model and processor already in memory (no loading)."""

    def __init__(self, model: Any, processor: Any, model_id: str, batch_size: int = 4) -> None:
        import torch

        if batch_size < 1:
            raise InputError(f"--batch-size: must be at least 1, got {batch_size}")
        self.torch = torch
        self.model = model
        self.processor = processor
        self.model_id = model_id
        self.batch_size = batch_size
        self.device = str(next(model.parameters()).device)
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"


def open_backend(
    backend: str,
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    batch_size: int = 4,
    cache: Path | None = None,
    concurrency: int = 8,
    timeout: float = 120.0,
) -> Any:
    """The backend ``mirforge eval`` uses: transformers (model folder or adapter folder) or openai."""
    if backend == "transformers":
        if base_url:
            raise InputError("--base-url: only for --backend openai")
        loaded, processor, _ = load_model(model)
        return LoadedBackend(loaded, processor, str(model), batch_size=batch_size)
    if backend == "openai":
        from mirforge.curriculum.models import make_backend

        return make_backend(
            "openai", model, base_url=base_url, api_key=api_key, cache=cache, concurrency=concurrency, timeout=timeout
        )
    raise InputError(f"--backend: {backend!r} is not one of transformers, openai")
