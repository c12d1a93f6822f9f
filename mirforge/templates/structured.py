"""Structured outputs for the rewriter: the JSON schema of its reply, and the run-wide note that an endpoint refuses it.

The rewriter asks for its reply through the endpoint's structured-output support, ``response_format`` of type
``json_schema`` (OpenAI, vLLM and llama.cpp's server accept it, and the last two constrain decoding to the schema,
so even a small model writes the five keys and exactly one caption per image). An endpoint that does not support
it answers HTTP 400 (or 422) naming ``response_format`` or calling it unsupported; the rewriter then asks again
with the plain JSON instructions its prompt already holds, and notes the refusal in the response cache's SQLite
file, which every worker of the run shares, so the endpoint is asked with a schema at most once per worker, and
the run says so once. The note stays with the cache, like the responses: a rerun from the same folder asks as
the first run ended up asking, and gets the same bytes.
"""

from __future__ import annotations

import re
from typing import Any

from mirforge.models.cache import ResponseCache
from mirforge.models.llm import CallFailed

SCHEMA_NAME = "reasoning_steps"
REFUSED_STATUS = (400, 422)  # a bad request, or a body the server's own validation rejects
REFUSAL_RE = re.compile(r"response_format|json_schema|structured output|unsupported|not supported", re.IGNORECASE)
TABLE = """
CREATE TABLE IF NOT EXISTS schema_refusals (endpoint TEXT NOT NULL, model TEXT NOT NULL, reason TEXT NOT NULL,
                                            PRIMARY KEY (endpoint, model))
"""


def steps_schema(n_captions: int, max_lengths: dict[str, int] | None = None) -> dict[str, Any]:
    """The JSON schema of a rewrite: the five steps, the captions a list of exactly ``n_captions`` strings.

    ``max_lengths`` (step name -> characters; "caption" caps every caption) adds ``maxLength`` to those strings,
    so a server that constrains decoding to the schema closes a string that a small model would otherwise repeat
    until ``max_tokens`` runs out. It bounds only the length of the reply: what is in it is checked as before."""
    caps = max_lengths or {}

    def text(name: str) -> dict[str, Any]:
        return {"type": "string", "maxLength": caps[name]} if name in caps else {"type": "string"}

    return {
        "type": "object",
        "properties": {
            "summary": text("summary"),
            "caption": {"type": "array", "items": text("caption"), "minItems": n_captions, "maxItems": n_captions},
            "text2img": text("text2img"),
            "img2img": text("img2img"),
            "conclusion": text("conclusion"),
        },
        "required": ["summary", "caption", "text2img", "img2img", "conclusion"],
        "additionalProperties": False,
    }


def response_format(n_captions: int, max_lengths: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": steps_schema(n_captions, max_lengths)},
    }


def refuses_schema(failure: CallFailed) -> bool:
    """Whether a failed call was the endpoint refusing ``response_format`` (rather than the request as a whole)."""
    status = re.match(r"endpoint refused: HTTP (\d{3})", str(failure))
    return status is not None and int(status.group(1)) in REFUSED_STATUS and bool(REFUSAL_RE.search(failure.detail))


class SchemaRefusals:
    """Whether ``endpoint`` refused ``model``'s structured outputs, shared through the response cache's file."""

    def __init__(self, cache: ResponseCache, endpoint: str, model: str) -> None:
        self.cache = cache
        self.where = (endpoint, model)
        self.known = False
        with cache.lock:
            cache.db.execute(TABLE)

    def refused(self) -> bool:
        if not self.known:
            with self.cache.lock:
                row = self.cache.db.execute(
                    "SELECT 1 FROM schema_refusals WHERE endpoint = ? AND model = ?", self.where
                ).fetchone()
            self.known = row is not None
        return self.known

    def record(self, reason: str) -> bool:
        """Note the refusal; True for the one caller of the run that noted it first."""
        self.known = True
        with self.cache.lock:
            cursor = self.cache.db.execute(
                "INSERT OR IGNORE INTO schema_refusals (endpoint, model, reason) VALUES (?, ?, ?)",
                (*self.where, reason),
            )
        return cursor.rowcount == 1
