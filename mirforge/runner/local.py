"""Local executor: shards on a pool of spawned processes (a GL context never crosses a fork).

The pool is a ``ProcessPoolExecutor``: when a worker dies abruptly (SIGKILL, the OOM killer) it breaks and the
run fails with a clear error, where a ``multiprocessing.Pool`` would silently replace the worker, lose its shard
and wait for it forever. Complete shards are already in the manifest, so rerunning the command resumes. The
workers die with the driver (:func:`~mirforge.runner.worker.die_with`), so a killed driver leaves none behind.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from mirforge.errors import MirforgeError
from mirforge.runner.config import RunConfig
from mirforge.runner.plan import Shard
from mirforge.runner.worker import ShardResult, init_worker, run_shard


def render_threads(workers: int) -> int:
    """llvmpipe threads per worker, so that workers share the cores instead of fighting over them."""
    return max(1, (os.cpu_count() or 1) // workers)


def run_local(
    shards: list[Shard],
    config: RunConfig,
    root: str,
    workers: int,
    on_instance: Callable[[int], None],
    upload: str | None = None,
) -> Iterator[ShardResult]:
    ctx = mp.get_context("spawn")
    progress = ctx.SimpleQueue()

    stop = threading.Event()

    def pump() -> None:  # polls rather than waiting for a sentinel: a killed worker may hold the queue's write lock
        while not stop.is_set():
            if progress.empty():
                stop.wait(0.05)
            else:
                on_instance(progress.get())

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    threads = render_threads(workers) if workers > 1 else None
    pool = ProcessPoolExecutor(
        workers, mp_context=ctx, initializer=init_worker, initargs=(progress, threads, os.getpid())
    )
    try:
        pending = {pool.submit(run_shard, shard, config, root, upload) for shard in shards}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    result = future.result()
                except BrokenProcessPool:
                    raise MirforgeError(
                        f"a worker process died (killed by a signal or out of memory) while generating into {root}; "
                        "complete shards are kept: rerun the same command to resume"
                    ) from None
                yield result
    finally:
        # Stop at once on an error or an interrupt: the executor has no public way to end running workers, and
        # waiting for their shards to finish could take minutes. Their temporary files are removed on resume.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)
        stop.set()
        reader.join(timeout=5)
