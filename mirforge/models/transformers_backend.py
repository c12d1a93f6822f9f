"""A local vision-language model (``AutoModelForImageTextToText`` + its processor) as a backend: images
interleaved at the ``<image>`` slots through the model's chat template, batched, sampled with a per-batch seed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.models.backend import Backend, Query, Sampling, query_seed
from mirforge.models.loader import load_model


def check_batch_size(batch_size: int) -> None:
    if batch_size < 1:
        raise InputError(f"--batch-size: must be at least 1, got {batch_size}")


class TransformersBackend:
    """A model and processor in memory (loaded by :meth:`load`, or the trainer's own model between stages)."""

    name = "transformers"

    def __init__(
        self, model: Any, processor: Any, model_id: str, batch_size: int = 4, max_pixels: int | None = None
    ) -> None:
        import torch

        check_batch_size(batch_size)
        self.torch = torch
        self.model = model
        self.processor = processor
        self.model_id = model_id
        self.batch_size = batch_size
        self.device = str(next(model.parameters()).device)
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"
        if max_pixels is not None:
            self._limit_pixels(max_pixels)

    @classmethod
    def load(
        cls, path: Path | str, batch_size: int = 4, device: str | None = None, max_pixels: int | None = None
    ) -> TransformersBackend:
        """A model folder or a LoRA adapter folder, loaded by the one loader (:func:`mirforge.models.loader`)."""
        check_batch_size(batch_size)
        loaded = load_model(path, device=device)
        return cls(loaded.model, loaded.processor, str(path), batch_size=batch_size, max_pixels=max_pixels)

    def _limit_pixels(self, max_pixels: int) -> None:
        """Cap the pixels per image (MIR's sampler: 1280*28*28) where the image processor has such a knob."""
        ip = getattr(self.processor, "image_processor", None)
        size = getattr(ip, "size", None)
        edges = size if isinstance(size, dict) else vars(size) if size is not None else {}
        if edges.get("longest_edge") and edges.get("shortest_edge"):  # Qwen2-VL family: edges are pixel counts
            shortest = min(edges["shortest_edge"], max_pixels)
            if isinstance(size, dict):
                size.update(longest_edge=max_pixels, shortest_edge=shortest)
            else:
                size.longest_edge, size.shortest_edge = max_pixels, shortest
        elif ip is not None and hasattr(ip, "max_pixels"):
            ip.max_pixels = max_pixels
        else:
            raise InputError(f"--max-pixels: the image processor of {self.model_id} has no pixel budget; drop the flag")

    def messages(self, query: Query) -> list[dict[str, Any]]:
        content = [{"type": "image"} if isinstance(p, int) else {"type": "text", "text": p} for p in query.parts()]
        return [{"role": "user", "content": content}]

    def answer(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]:
        out: list[list[str]] = []
        for start in range(0, len(queries), self.batch_size):
            out += self._batch(queries[start : start + self.batch_size], sampling)
        return out

    def _batch(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]:
        from PIL import Image

        torch = self.torch
        texts = [
            self.processor.apply_chat_template(self.messages(q), add_generation_prompt=True, tokenize=False)
            for q in queries
        ]
        images = []
        for q in queries:
            loaded = []
            for p in q.images:
                with Image.open(p) as im:
                    loaded.append(im.convert("RGB"))
            images.append(loaded)
        inputs = self.processor(text=texts, images=images, padding=True, return_tensors="pt").to(self.device)
        seed = query_seed(sampling.seed, "|".join(q.id for q in queries))
        torch.manual_seed(seed)
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)
        sample = sampling.temperature > 0
        kwargs: dict[str, Any] = dict(
            max_new_tokens=sampling.max_new_tokens,
            do_sample=sample,
            num_return_sequences=sampling.k,
            repetition_penalty=sampling.repetition_penalty,
        )
        if sample:
            kwargs.update(temperature=sampling.temperature, top_p=sampling.top_p)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
            if sampling.k > 1:
                raise InputError("--temperature 0 gives k identical answers; use -k 1 or a temperature above 0")
        with torch.inference_mode():
            generated = self.model.generate(**inputs, **kwargs)
        new = generated[:, inputs["input_ids"].shape[1] :]
        decoded = self.processor.batch_decode(new, skip_special_tokens=True)
        return [decoded[i * sampling.k : (i + 1) * sampling.k] for i in range(len(queries))]

    def close(self) -> None:
        self.model = None


class LazyBackend:
    """A backend built by ``make()`` on its first ``answer``; pickles without it, so a Ray worker gets the recipe
    and loads the model once, when it first needs it."""

    def __init__(self, make: Callable[[], Backend], name: str, model_id: str) -> None:
        self.make, self.name, self.model_id = make, name, model_id
        self.backend: Backend | None = None

    def answer(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]:
        if self.backend is None:
            self.backend = self.make()
        return self.backend.answer(queries, sampling)

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "backend": None}
