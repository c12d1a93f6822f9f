"""The one client of OpenAI-compatible chat endpoints (a hosted API, vLLM, llama.cpp, ``transformers serve``).

The official ``openai`` client sends each request and retries it itself (``max_retries``): connection errors,
timeouts, 408, 409, 429 and 5xx, with exponential backoff that honours the server's ``Retry-After``. On top of it
this client adds the on-disk response cache (:mod:`.cache`), consulted before any request, and an optional call
budget charged in the same file, so every worker process of a run shares both, and an optional run-wide circuit
breaker (:mod:`.breaker`) that stops calling a failing endpoint. The API key comes from the caller or
``OPENAI_API_KEY``, is never written anywhere, and is sent only where :func:`.endpoint.check_endpoint` allows.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mirforge.errors import InputError, MirforgeError
from mirforge.models.breaker import CircuitBreaker
from mirforge.models.cache import MEMORY, ResponseCache
from mirforge.models.endpoint import check_endpoint, effective_url

RETRIED_STATUS = (408, 409, 429)  # and every 5xx: the statuses the openai client retries
REFUSED_STATUS = (401, 403, 404)  # a bad key or an unknown model: not asked again by this client


class CallFailed(MirforgeError):
    """The endpoint refused the request, or it still failed after the client's retries."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.detail = detail


class BudgetExhausted(MirforgeError):
    pass


def endpoint_host(base_url: str | None) -> str:
    """host[:port] of the endpoint, without scheme, credentials, path or query."""
    parts = urlsplit(effective_url(base_url)[0])
    host = parts.hostname or "unknown"
    return f"{host}:{parts.port}" if parts.port else host


def import_openai(flag: str) -> Any:
    try:
        import openai
    except ImportError:
        raise InputError(f"{flag} needs the [llm] extra: pip install 'mirforge[llm]'") from None
    return openai


def describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    if status is not None:
        return f"HTTP {status}"
    return "timeout" if "Timeout" in type(exc).__name__ else type(exc).__name__


def attempts(exc: Exception) -> int:
    """How many times the openai client sent the request that ended in ``exc`` (it numbers its retries)."""
    request = getattr(exc, "request", None)
    try:
        return int(request.headers.get("x-stainless-retry-count", 0)) + 1
    except (AttributeError, ValueError):
        return 1


def _short(exc: Exception) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) < 300 else text[:297] + "..."


class LLMClient:
    """Chat completions from one endpoint and model, cached on disk; safe to share between threads.

    ``flag`` names the option that asked for it, for the missing-extra error; ``cache`` is the SQLite file (None:
    this process only); ``max_calls`` caps the requests charged to that file (None: no cap); ``breaker`` (failures,
    seconds) opens a :class:`~.breaker.CircuitBreaker` in that file; ``allow_insecure`` lets the key go over plain
    http to another machine.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        retries: int = 4,
        cache: Path | str | None = None,
        max_calls: int | None = None,
        breaker: tuple[int, float] | None = None,
        allow_insecure: bool = False,
        flag: str = "--backend openai",
    ) -> None:
        self.openai = import_openai(flag)
        check_endpoint(base_url, allow_insecure=allow_insecure)
        self.model = model
        self.base_url = base_url
        self.endpoint = endpoint_host(base_url)
        self.retries = retries
        self.max_calls = max_calls
        self.cache = ResponseCache(cache if cache is not None else MEMORY)
        self.breaker = None if breaker is None else CircuitBreaker(self.cache, failures=breaker[0], seconds=breaker[1])
        self.opened: str | None = None  # the breaker's reason, when this client's failure opened it
        self.client = self.openai.OpenAI(
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY",
            base_url=base_url,
            timeout=timeout,
            max_retries=retries,
        )
        self.requests = 0  # calls sent (a call's retries inside the openai client are not counted)
        self.cache_hits = 0
        self.refused: str | None = None
        self._count = threading.Lock()

    def complete(self, messages: list[dict[str, Any]], key: str, *, seed: int, n: int = 1, **request: Any) -> list[str]:
        """The texts of the choices for ``messages`` (at most ``n``; fewer where the server ignores ``n``): from the
        cache under ``key``, else from the endpoint, then cached. ``request`` holds further request fields
        (temperature, top_p, max_tokens, extra_body). Raises :class:`CallFailed` or :class:`BudgetExhausted`."""
        hit = self.cache.get(key)
        if hit is not None:
            with self._count:
                self.cache_hits += 1
            return json.loads(hit) if n > 1 else [hit]
        if self.refused:
            raise CallFailed(self.refused)
        if self.breaker is not None and (reason := self.breaker.reason()):
            raise CallFailed(reason)
        if not self.cache.claim(self.max_calls):
            raise BudgetExhausted("budget exhausted")
        with self._count:
            self.requests += 1
        if n > 1:
            request["n"] = n
        response = self._create(model=self.model, messages=messages, seed=seed, **request)
        texts = [(c.message.content or "") for c in sorted(response.choices or [], key=lambda c: c.index or 0)][:n]
        if n > 1:
            self.cache.put(key, self.model, json.dumps(texts, ensure_ascii=False))
        elif texts:
            self.cache.put(key, self.model, texts[0])
        return texts

    def _create(self, **kwargs: Any) -> Any:
        openai = self.openai
        started = time.time()
        try:
            response = self.client.chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in RETRIED_STATUS or status >= 500:
                raise self._failed(started, f"call failed: HTTP {status} after {attempts(exc)} attempts", exc) from None
            reason = f"endpoint refused: HTTP {status}"
            if status in REFUSED_STATUS:
                self.refused = reason
            raise CallFailed(reason, _short(exc)) from None
        except openai.APIConnectionError as exc:  # timeouts included
            raise self._failed(started, f"call failed: {describe(exc)} after {attempts(exc)} attempts", exc) from None
        except openai.OpenAIError as exc:
            raise CallFailed(f"call failed: {describe(exc)}", _short(exc)) from None
        if self.breaker is not None:
            self.breaker.succeeded()
        return response

    def _failed(self, started: float, reason: str, exc: Exception) -> CallFailed:
        """A call that failed after the client's retries (the endpoint down, hanging or overloaded): counted by the
        breaker, which may open on it."""
        if self.breaker is not None:
            self.opened = self.breaker.failed(started, reason) or self.opened
        return CallFailed(reason, _short(exc))

    def close(self) -> None:
        self.client.close()
        self.cache.close()
