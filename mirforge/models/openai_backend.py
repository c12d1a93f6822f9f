"""An OpenAI-compatible chat endpoint that takes images as a backend (vLLM serving Qwen2.5-VL is the usual one):
base64 ``image_url`` parts in slot order, ``n=k`` where the server honours it, a concurrency limit, and the one
LLM client (:mod:`.llm`: retries, on-disk cache keyed by model, prompt, parameters and seed)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mirforge.errors import InputError, MirforgeError
from mirforge.models.backend import Query, Sampling, query_seed
from mirforge.models.cache import cache_key
from mirforge.models.llm import CallFailed, LLMClient

N_MODES = ("auto", "n", "loop")


def image_data_url(path: Path) -> tuple[str, str]:
    """A ``data:`` URL for an image file and the sha256 of its bytes (what the cache key uses)."""
    data = Path(path).read_bytes()
    mime = "image/jpeg" if Path(path).suffix.lower() in (".jpg", ".jpeg") else "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}", hashlib.sha256(data).hexdigest()


class OpenAIBackend:
    """``n_mode``: ``auto`` asks for n=k once and tops up with single requests if the server returned fewer choices
    (llama.cpp and ``transformers serve`` ignore n); ``n`` trusts n=k; ``loop`` always sends k requests."""

    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        concurrency: int = 8,
        retries: int = 5,
        timeout: float = 120.0,
        n_mode: str = "auto",
        cache: Path | None = None,
        allow_insecure: bool = False,
    ) -> None:
        if n_mode not in N_MODES:
            raise InputError(f"--n-mode: {n_mode!r} is not one of {', '.join(N_MODES)}")
        if concurrency < 1:
            raise InputError(f"--concurrency: must be at least 1, got {concurrency}")
        if retries < 0:
            raise InputError(f"--retries: must be >= 0, got {retries}")
        self.llm = LLMClient(
            model, base_url, api_key, timeout=timeout, retries=retries, cache=cache, allow_insecure=allow_insecure
        )
        self.model_id = model
        self.concurrency = concurrency
        self.n_mode = n_mode

    def messages(self, query: Query) -> tuple[list[dict[str, Any]], list[str]]:
        """The chat messages of a query, and the digests of its images (the cache key holds those, not the bytes)."""
        content: list[dict[str, Any]] = []
        digests: list[str] = []
        for part in query.parts():
            if isinstance(part, int):
                url, digest = image_data_url(query.images[part])
                content.append({"type": "image_url", "image_url": {"url": url}})
                digests.append(digest)
            else:
                content.append({"type": "text", "text": part})
        return [{"role": "user", "content": content}], digests

    def answer(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]:
        if not queries:
            return []
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(queries))) as pool:
            return list(pool.map(lambda q: self._one(q, sampling), queries))

    def _one(self, query: Query, sampling: Sampling) -> list[str]:
        messages, digests = self.messages(query)
        prompt_key = [json.dumps([p.get("text") for p in messages[0]["content"]]), digests]
        seed = query_seed(sampling.seed, query.id)
        answers: list[str] = []
        if self.n_mode != "loop":
            answers += self._request(messages, prompt_key, sampling, seed, sampling.k)[: sampling.k]
        j = 0
        while len(answers) < sampling.k:
            j += 1
            answers += self._request(messages, prompt_key, sampling, seed + j, 1)[:1]
            if j > 4 * sampling.k:
                raise MirforgeError(f"{query.id}: the server returned no choices in {j} requests")
        return answers

    def _request(self, messages: list[dict], prompt_key: list, sampling: Sampling, seed: int, n: int) -> list[str]:
        params = {
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_new_tokens,
            "repetition_penalty": sampling.repetition_penalty,
            "n": n,
        }
        request: dict[str, Any] = dict(
            temperature=sampling.temperature, top_p=sampling.top_p, max_tokens=sampling.max_new_tokens
        )
        if sampling.repetition_penalty != 1.0:  # vLLM's extra field; other servers ignore it
            request["extra_body"] = {"repetition_penalty": sampling.repetition_penalty}
        try:
            return self.llm.complete(
                messages, cache_key(self.model_id, prompt_key, params, seed), seed=seed, n=n, **request
            )
        except CallFailed as why:
            raise MirforgeError(f"{self.llm.base_url}: {why}" + (f": {why.detail}" if why.detail else "")) from None

    @property
    def requests(self) -> int:
        return self.llm.requests

    @property
    def cache_hits(self) -> int:
        return self.llm.cache_hits

    def close(self) -> None:
        self.llm.close()
