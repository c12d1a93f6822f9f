"""The difficulty filter fanned out over Ray: a pool of actors, one per worker, each scoring whole chunks.

Each actor holds a pickled copy of the backend (a ``LazyBackend`` for a local model: the recipe, not the weights)
and calls the same ``score_batch`` as the local executor on the same chunks, so every sidecar line is the one a
local run writes. The driver hands out chunks round-robin, at most two queued per actor, and yields the results in
chunk order, so ``run_difficulty`` writes, fsyncs and resumes exactly as it does locally. On a cluster the dataset
and the model folder must be paths every node sees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mirforge.curriculum.difficulty import score_batch
from mirforge.curriculum.models import Backend, Sampling
from mirforge.ray_session import ray_session


class Scorer:
    """A Ray actor: its backend loads the model on the first chunk (LazyBackend), never in ``__init__``."""

    def __init__(self, backend: Backend, root: Path, sampling: Sampling, config: dict[str, Any], keep: bool) -> None:
        self.backend, self.root, self.sampling, self.config, self.keep = backend, root, sampling, config, keep

    def score(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return score_batch(self.backend, batch, self.root, self.sampling, self.config, self.keep)


def score_ray(
    chunks: list[list[dict[str, Any]]],
    backend: Backend,
    root: Path,
    sampling: Sampling,
    config: dict[str, Any],
    keep: bool,
    workers: int,
    address: str | None,
) -> Iterator[list[dict[str, Any]]]:
    """The sidecar lines of each chunk, in chunk order. Starts a private loopback Ray instance unless one is up
    or ``address`` names a cluster; shuts down only what it started."""
    if not chunks:  # nothing left to measure: no Ray instance is started
        return
    with ray_session(workers, address) as ray:
        gpus = int(ray.cluster_resources().get("GPU", 0))
        n = max(1, min(workers, len(chunks), gpus or workers))  # with GPUs: one per actor, so no actor waits forever
        actor = ray.remote(Scorer).options(num_cpus=1, num_gpus=1 if gpus else 0)
        pool = [actor.remote(backend, root, sampling, config, keep) for _ in range(n)]
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
