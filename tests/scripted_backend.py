"""A backend that answers from a function, for tests: ``ScriptedBackend(lambda query, j: "Your option: A")``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mirforge.models.backend import Query, Sampling


class ScriptedBackend:
    """Answers from ``respond(query, j)`` for j in 0..k-1; counts calls."""

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
