"""The difficulty filter fanned out over Ray: a pool of actors, one per worker, each scoring whole chunks.

Each actor holds a pickled copy of ``score`` (``score_batch`` bound to the backend and the run's settings; a
``LazyBackend`` for a local model, so the recipe travels, not the weights), the same function the local executor
calls on the same chunks, so every sidecar line is the one a local run writes. The driver hands out chunks
round-robin, at most two queued per actor, and yields the results in chunk order, so ``run_difficulty`` writes,
fsyncs and resumes exactly as it does locally. On a cluster the dataset and the model folder must be paths every
node sees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from mirforge.ray_session import ray_session

Chunk = list[dict[str, Any]]


class Scorer:
    """A Ray actor: a LazyBackend inside ``score`` loads the model on the first chunk, never in ``__init__``."""

    def __init__(self, score: Callable[[Chunk], Chunk]) -> None:
        self.fn = score

    def score(self, batch: Chunk) -> Chunk:
        return self.fn(batch)


def score_ray(
    chunks: list[Chunk], score: Callable[[Chunk], Chunk], workers: int, address: str | None
) -> Iterator[Chunk]:
    """``score(chunk)`` of each chunk, in chunk order. Starts a private loopback Ray instance unless one is up or
    ``address`` names a cluster; shuts down only what it started."""
    if not chunks:  # nothing left to measure: no Ray instance is started
        return
    with ray_session(workers, address) as ray:
        gpus = int(ray.cluster_resources().get("GPU", 0))
        n = max(1, min(workers, len(chunks), gpus or workers))  # with GPUs: one per actor, so no actor waits forever
        actor = ray.remote(Scorer).options(num_cpus=1, num_gpus=1 if gpus else 0)
        pool = [actor.remote(score) for _ in range(n)]
        queue = iter(enumerate(chunks))
        pending: deque = deque()

        def submit() -> None:
            for i, batch in queue:
                pending.append(pool[i % n].score.remote(batch))
                return

        for _ in range(2 * n):
            submit()
        while pending:
            lines = ray.get(pending.popleft())
            submit()
            yield lines
