"""What every backend shares: a question (``Query``), how to decode (``Sampling``) and the ``Backend`` protocol."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
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
