"""Model backends behind one interface: answer these interleaved multi-image questions k times.

- ``TransformersBackend``: a local vision-language model (``AutoModelForImageTextToText`` + its processor) from a
  path; images interleaved at the ``<image>`` slots through the model's chat template; batched; sampled.
- ``OpenAIBackend``: any OpenAI-compatible endpoint that takes images (vLLM serving Qwen2.5-VL is the usual one);
  base64 ``image_url`` parts in slot order; ``n=k`` where the server honours it, else more requests; a concurrency
  limit, retries with backoff and an on-disk SQLite cache keyed by (model, prompt, parameters, seed).
- ``ScriptedBackend``: answers from a function, for tests and dry runs.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import inspect
import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from mirforge.errors import InputError, MirforgeError

IMAGE_SLOT = "<image>"


@dataclass(frozen=True)
class Sampling:
    """Decoding parameters (MIR's difficulty sampler: k=10, T=0.7, top-p 0.8, repetition penalty 1.05, 512 tokens)."""

    k: int = 10
    temperature: float = 0.7
    top_p: float = 0.8
    max_new_tokens: int = 512
    repetition_penalty: float = 1.05
    seed: int = 0

    def validate(self) -> None:
        if self.k < 1:
            raise InputError(f"-k: must be at least 1, got {self.k}")
        if self.temperature < 0:
            raise InputError(f"--temperature: must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise InputError(f"--top-p: must be in (0, 1], got {self.top_p}")
        if self.max_new_tokens < 1:
            raise InputError(f"--max-new-tokens: must be at least 1, got {self.max_new_tokens}")
        if self.repetition_penalty <= 0:
            raise InputError(f"--repetition-penalty: must be > 0, got {self.repetition_penalty}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Query:
    """One question: ``text`` holds one ``<image>`` slot per entry of ``images`` (absolute paths), in order."""

    id: str
    text: str
    images: tuple[Path, ...]

    def parts(self) -> list[str | int]:
        """Text pieces and image indices in reading order; empty text pieces are dropped."""
        pieces = self.text.split(IMAGE_SLOT)
        if len(pieces) - 1 != len(self.images):
            raise MirforgeError(
                f"{self.id}: the prompt has {len(pieces) - 1} {IMAGE_SLOT} slots for {len(self.images)} images"
            )
        out: list[str | int] = []
        for i, piece in enumerate(pieces):
            if piece:
                out.append(piece)
            if i < len(self.images):
                out.append(i)
        return out


class Backend(Protocol):
    """Answers each query ``sampling.k`` times; returns one list of k raw texts per query, in query order."""

    model_id: str
    name: str

    def answer(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]: ...

    def close(self) -> None: ...


def query_seed(seed: int, query_id: str) -> int:
    """A per-question seed that does not depend on batching or order."""
    digest = hashlib.sha256(f"{seed}:{query_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# ---------------------------------------------------------------------------------------------------- scripted


class ScriptedBackend:
    """Answers from ``respond(query, j)`` for j in 0..k-1; counts calls. For tests and dry runs."""

    name = "scripted"

    def __init__(self, respond: Callable[[Query, int], str], model_id: str = "scripted") -> None:
        self.respond = respond
        self.model_id = model_id
        self.calls = 0

    def answer(self, queries: Sequence[Query], sampling: Sampling) -> list[list[str]]:
        self.calls += 1
        return [[self.respond(q, j) for j in range(sampling.k)] for q in queries]

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------------------------------- transformers


def image_only_processor_class(base: type) -> type:
    """``base`` without its video processor, so it loads and runs without torchvision (transformers 5).

    ``ProcessorMixin`` takes its attributes from the ``__init__`` signature, so dropping the argument is enough.
    """

    # transformers reads the accepted keywords from ``__init__.__code__``, so the signature must be a real one.
    keep = [
        p.name
        for p in inspect.signature(base.__init__).parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "video_processor")
    ]
    defaults = {
        p.name: (None if p.default is p.empty else p.default)
        for p in inspect.signature(base.__init__).parameters.values()
        if p.name in keep
    }
    source = (
        f"def __init__(self, {', '.join(f'{n}=_defaults[{n!r}]' for n in keep)}, **kwargs):\n"
        f"    _base.__init__(self, {', '.join(f'{n}={n}' for n in keep)}, video_processor=None, **kwargs)\n"
    )
    namespace: dict[str, Any] = {"_base": base, "_defaults": defaults}
    exec(compile(source, f"<image-only {base.__name__}>", "exec"), namespace)  # noqa: S102
    __init__ = namespace["__init__"]
    return type(f"ImageOnly{base.__name__}", (base,), {"__init__": __init__, "__module__": __name__})


def load_processor(path: Path) -> Any:
    """The model's processor; falls back to an image-only variant when the stock one needs torchvision."""
    import transformers

    try:
        processor = transformers.AutoProcessor.from_pretrained(path)
        if hasattr(processor, "image_processor"):
            return processor
    except (OSError, AttributeError, ValueError, ImportError):
        pass
    name = None
    for file in ("processor_config.json", "preprocessor_config.json", "tokenizer_config.json"):
        if (Path(path) / file).is_file():
            name = json.loads((Path(path) / file).read_text()).get("processor_class") or name
            if name:
                break
    base = getattr(transformers, (name or "").removeprefix("ImageOnly"), None)
    if base is None:
        raise MirforgeError(f"--model: {path} has no loadable processor (processor_class {name!r})")
    return image_only_processor_class(base).from_pretrained(path)


def check_transformers(path: Path | str, batch_size: int) -> None:
    """The cheap checks of a local model backend (the extra, the folder, the batch size); loads nothing."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise InputError(
            f"--backend transformers needs the [train] extra ({exc}); pip install 'mirforge[train]'"
        ) from None
    if not (Path(path) / "config.json").is_file():
        raise InputError(f"--model: {path} is not a model folder (no config.json); give a local model path")
    if batch_size < 1:
        raise InputError(f"--batch-size: must be at least 1, got {batch_size}")


class TransformersBackend:
    """A local vision-language model; CPU or GPU picked automatically."""

    name = "transformers"

    def __init__(
        self, path: Path | str, batch_size: int = 4, device: str | None = None, max_pixels: int | None = None
    ) -> None:
        check_transformers(path, batch_size)
        import torch
        import transformers

        path = Path(path)
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        self.model = transformers.AutoModelForImageTextToText.from_pretrained(path, dtype=dtype).to(self.device)
        self.model.eval()
        self.processor = load_processor(path)
        self.model_id = str(path)
        tokenizer = getattr(self.processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"
        if max_pixels is not None:
            self._limit_pixels(max_pixels)
        self.batch_size = batch_size

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


# ---------------------------------------------------------------------------------------------------- openai


class SqliteCache:
    """A key -> JSON store in one SQLite file (WAL), safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL)")
        self.db.commit()

    @staticmethod
    def key(*parts: Any) -> str:
        return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def get(self, key: str) -> Any | None:
        with self.lock:
            row = self.db.execute("SELECT value FROM cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            self.db.execute(
                "INSERT OR REPLACE INTO cache (key, value, created) VALUES (?, ?, ?)",
                (key, json.dumps(value, ensure_ascii=False), time.time()),
            )
            self.db.commit()

    def __len__(self) -> int:
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM cache").fetchone()[0]

    def close(self) -> None:
        with self.lock:
            self.db.close()


def image_data_url(path: Path) -> tuple[str, str]:
    """A ``data:`` URL for an image file and the sha256 of its bytes (what the cache key uses)."""
    data = Path(path).read_bytes()
    mime = "image/jpeg" if Path(path).suffix.lower() in (".jpg", ".jpeg") else "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}", hashlib.sha256(data).hexdigest()


class OpenAIBackend:
    """An OpenAI-compatible chat endpoint that accepts images.

    ``n_mode``: ``auto`` asks for n=k once and tops up with single requests if the server returned fewer choices
    (llama.cpp and ``transformers serve`` ignore n); ``n`` trusts n=k; ``loop`` always sends k requests.
    """

    name = "openai"
    RETRYABLE_STATUS = (408, 409, 429, 500, 502, 503, 504)

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        concurrency: int = 8,
        retries: int = 5,
        backoff: float = 1.0,
        timeout: float = 120.0,
        n_mode: str = "auto",
        cache: Path | None = None,
        client: Any = None,
    ) -> None:
        if n_mode not in ("auto", "n", "loop"):
            raise InputError(f"--n-mode: {n_mode!r} is not one of auto, n, loop")
        if concurrency < 1:
            raise InputError(f"--concurrency: must be at least 1, got {concurrency}")
        if retries < 0:
            raise InputError(f"--retries: must be >= 0, got {retries}")
        if client is None:
            try:
                import openai
            except ImportError as exc:
                raise InputError(
                    f"--backend openai needs the [llm] extra ({exc}); pip install 'mirforge[llm]'"
                ) from None
            client = openai.OpenAI(base_url=base_url, api_key=api_key or "EMPTY", timeout=timeout, max_retries=0)
        self.client = client
        self.model_id = model
        self.base_url = base_url
        self.concurrency = concurrency
        self.retries = retries
        self.backoff = backoff
        self.n_mode = n_mode
        self.cache = SqliteCache(cache) if cache else None
        self.requests = 0
        self.cache_hits = 0
        self._count = threading.Lock()

    def messages(self, query: Query) -> tuple[list[dict[str, Any]], list[str]]:
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
        key = SqliteCache.key(self.model_id, prompt_key, params, seed)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                with self._count:
                    self.cache_hits += 1
                return hit
        extra = {"repetition_penalty": sampling.repetition_penalty} if sampling.repetition_penalty != 1.0 else None
        kwargs: dict[str, Any] = dict(
            model=self.model_id,
            messages=messages,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_new_tokens,
            seed=seed,
        )
        if n > 1:
            kwargs["n"] = n
        if extra:
            kwargs["extra_body"] = extra
        response = self._with_retries(kwargs)
        texts = [(c.message.content or "") for c in sorted(response.choices, key=lambda c: c.index or 0)]
        if self.cache is not None:
            self.cache.put(key, texts)
        return texts

    def _with_retries(self, kwargs: dict[str, Any]) -> Any:
        import openai

        for attempt in range(self.retries + 1):
            with self._count:
                self.requests += 1
            try:
                return self.client.chat.completions.create(**kwargs)
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                error: Exception = exc
            except openai.APIStatusError as exc:
                if exc.status_code not in self.RETRYABLE_STATUS:
                    raise MirforgeError(f"{self.base_url}: HTTP {exc.status_code}: {_short(exc)}") from None
                error = exc
            if attempt < self.retries:
                time.sleep(self.backoff * (2**attempt) * (0.5 + random.random() / 2))
        raise MirforgeError(f"{self.base_url}: gave up after {self.retries + 1} attempts: {_short(error)}")

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def _short(exc: Exception) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) < 300 else text[:297] + "..."


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
) -> Backend:
    """The backend named ``backend``; ``lazy`` checks a local model and loads it on first use (a LazyBackend)."""
    if backend == "transformers":
        if lazy:
            check_transformers(model, batch_size)
            make = functools.partial(
                TransformersBackend, Path(model).resolve(), batch_size=batch_size, max_pixels=max_pixels
            )
            return LazyBackend(make, TransformersBackend.name, str(Path(model)))
        return TransformersBackend(model, batch_size=batch_size, max_pixels=max_pixels)
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
        )
    raise InputError(f"--backend: {backend!r} is not one of transformers, openai")
