"""Local executor: shards on a pool of spawned processes (a GL context never crosses a fork).

The pool is a ``ProcessPoolExecutor``: when a worker dies abruptly (a crash in native code, SIGKILL, the OOM
killer) it breaks, where a ``multiprocessing.Pool`` would silently replace the worker, lose its shard and wait for
it forever. The run then says so on stderr, removes the dead pool's partial files and runs the unfinished shards on
a fresh pool, at most ``RESTARTS`` times (a shard's bytes do not depend on the process that makes it); past that it
fails with a clear error. Complete shards are already in the manifest, so rerunning the command resumes. The
workers die with the driver (:func:`~mirforge.runner.worker.die_with`), so a killed driver leaves none behind.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from mirforge.dataset.writer import remove_temporaries
from mirforge.errors import MirforgeError
from mirforge.runner.config import RunConfig
from mirforge.runner.plan import Shard
from mirforge.runner.worker import ShardResult, init_worker, run_shard


def render_threads(workers: int) -> int:
    """llvmpipe threads per worker, so that workers share the cores instead of fighting over them."""
    return max(1, (os.cpu_count() or 1) // workers)


RESTARTS = 2  # fresh pools per run after a worker died; a shard that kills every worker fails the run


class WorkerDied(Exception):
    def __init__(self, pids: list[int]):
        super().__init__(f"a worker process died (pids {pids})")
        self.pids = pids


def run_local(
    shards: list[Shard],
    config: RunConfig,
    root: str,
    workers: int,
    on_instance: Callable[[int], None],
    upload: str | None = None,
) -> Iterator[ShardResult]:
    todo = list(shards)
    for restart in range(RESTARTS + 1):
        try:
            for result in _run_pool(todo, config, root, workers, on_instance, upload):
                todo.remove(result.shard)
                yield result
            return
        except WorkerDied as died:
            remove_temporaries(Path(root), died.pids)
            if restart == RESTARTS:
                raise MirforgeError(
                    f"a worker process died (killed by a signal or out of memory) while generating into {root}, "
                    f"{RESTARTS + 1} times; complete shards are kept: rerun the same command to resume"
                ) from None
            print(
                f"warning: a worker process died (killed by a signal or out of memory) while generating into {root}; "
                f"{len(todo)} unfinished shard(s) go to a fresh pool ({restart + 1} of {RESTARTS} restarts)",
                file=sys.stderr,
            )


def _run_pool(
    shards: list[Shard],
    config: RunConfig,
    root: str,
    workers: int,
    on_instance: Callable[[int], None],
    upload: str | None,
) -> Iterator[ShardResult]:
    """Results of ``shards`` as a pool of ``workers`` finishes them; :class:`WorkerDied` when a worker dies."""
    ctx = mp.get_context("spawn")
    progress = ctx.SimpleQueue()  # one per pool: a killed worker may hold its write lock

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
    processes: list = []
    try:
        pending = {pool.submit(run_shard, shard, config, root, upload) for shard in shards}
        # every worker is started by now; a broken pool forgets its own, so keep them
        processes = list((getattr(pool, "_processes", None) or {}).values())
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    result = future.result()
                except BrokenProcessPool:
                    raise WorkerDied([p.pid for p in processes]) from None
                yield result
    finally:
        # Stop at once on an error or an interrupt: the executor has no public way to end running workers, and
        # waiting for their shards to finish could take minutes. Their temporary files are removed on resume.
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)
        stop.set()
        reader.join(timeout=5)
