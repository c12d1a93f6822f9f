"""The backend a command asked for: ``transformers`` (a local model or LoRA adapter folder) or ``openai``."""

from __future__ import annotations

import functools
from pathlib import Path

from mirforge.errors import InputError
from mirforge.models.backend import Backend
from mirforge.models.loader import model_folder, require_transformers
from mirforge.models.openai_backend import OpenAIBackend
from mirforge.models.transformers_backend import LazyBackend, TransformersBackend, check_batch_size

BACKENDS = ("transformers", "openai")


def check_transformers(path: Path | str, batch_size: int) -> None:
    """The cheap checks of a local model backend (the extra, the folder, the batch size); loads nothing."""
    require_transformers()
    model_folder(path)
    check_batch_size(batch_size)


def make_backend(
    backend: str,
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    batch_size: int = 4,
    max_pixels: int | None = None,
    concurrency: int = 8,
    retries: int = 5,
    timeout: float = 120.0,
    n_mode: str = "auto",
    cache: Path | None = None,
    lazy: bool = False,
    allow_insecure_endpoint: bool = False,
) -> Backend:
    """The backend named ``backend``; ``lazy`` checks a local model and loads it on first use (a LazyBackend);
    ``allow_insecure_endpoint`` lets the openai backend send the key over plain http to another machine."""
    if backend == "transformers":
        if base_url:
            raise InputError("--base-url: only for --backend openai")
        check_transformers(model, batch_size)
        if lazy:
            make = functools.partial(
                TransformersBackend.load, Path(model).resolve(), batch_size=batch_size, max_pixels=max_pixels
            )
            return LazyBackend(make, TransformersBackend.name, str(Path(model)))
        return TransformersBackend.load(model, batch_size=batch_size, max_pixels=max_pixels)
    if backend == "openai":
        if not base_url:
            raise InputError("--base-url: the openai backend needs the endpoint, e.g. http://127.0.0.1:8000/v1")
        return OpenAIBackend(
            model,
            base_url,
            api_key,
            concurrency=concurrency,
            retries=retries,
            timeout=timeout,
            n_mode=n_mode,
            cache=cache,
            allow_insecure=allow_insecure_endpoint,
        )
    raise InputError(f"--backend: {backend!r} is not one of {', '.join(BACKENDS)}")
