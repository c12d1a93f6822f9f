"""Local executor: shards on a pool of spawned processes (a GL context never crosses a fork)."""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterator

from mirforge.runner.plan import RunConfig, Shard
from mirforge.runner.worker import ShardResult, init_worker, run_shard


def render_threads(workers: int) -> int:
    """llvmpipe threads per worker, so that workers share the cores instead of fighting over them."""
    return max(1, (os.cpu_count() or 1) // workers)


def run_local(
    shards: list[Shard], config: RunConfig, root: str, workers: int, on_instance: Callable[[int], None]
) -> Iterator[ShardResult]:
    ctx = mp.get_context("spawn")
    progress = ctx.SimpleQueue()

    def pump() -> None:
        while (item := progress.get()) is not None:
            on_instance(item)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    threads = render_threads(workers) if workers > 1 else None
    with ctx.Pool(workers, initializer=init_worker, initargs=(progress, threads), maxtasksperchild=None) as pool:
        try:
            jobs = [(shard, config, root) for shard in shards]
            yield from pool.imap_unordered(_run, jobs, chunksize=1)
        finally:
            pool.terminate()
            progress.put(None)
            reader.join(timeout=5)


def _run(job: tuple[Shard, RunConfig, str]) -> ShardResult:
    return run_shard(*job)
