"""The shard function every executor runs: generate a shard's instances, write its images and its jsonl.

What leaves a worker crosses a process boundary pickled, so the shard function lets only mirforge's own errors out,
each holding one line: a plugin's exception (even one that cannot be pickled, or ``SystemExit``) becomes a
:class:`MirforgeError` naming the task, its plugin and the index. A local worker also dies with the driver.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import socket
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge.dataset.upload import put
from mirforge.dataset.writer import atomic_write, digest, file_hash, sha256
from mirforge.errors import InputError, MirforgeError
from mirforge.instance import problems
from mirforge.pipeline import generate_one
from mirforge.registry import target
from mirforge.runner.config import RunConfig
from mirforge.runner.plan import Shard

_progress: Any = None  # a queue the driver reads, one item per finished instance


@dataclass
class ShardResult:
    shard: Shard
    entry: dict[str, Any]  # what the manifest records
    timings: dict[str, float] = field(default_factory=dict)
    instances: int = 0
    images: int = 0
    # Where and when the shard ran, for measurement only: these differ run to run, so they never reach the manifest.
    node: str = ""  # host name; the Ray executor puts its node id here
    pid: int = 0
    started: float = 0.0  # time.time() at the start and the end of the shard
    finished: float = 0.0
    peak_rss_mb: float = 0.0  # the worker process's peak resident set size so far


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def init_worker(progress: Any = None, threads: int | None = None, driver: int | None = None) -> None:
    """Process initializer: runs before any GL import, so the render thread count applies. With ``driver`` (its
    pid) the worker ends when the driver does, however it ends."""
    global _progress
    if driver is not None:
        die_with(driver)
    _progress = progress
    if threads is not None:
        os.environ["LP_NUM_THREADS"] = str(threads)


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with(parent: int) -> None:
    """SIGKILL this process when ``parent`` (its parent process) ends, even by SIGKILL: Linux's parent-death
    signal, or elsewhere a thread that polls for the parent."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:  # the parent ended before the signal was armed
                os._exit(1)
            return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="mirforge-parent-watch", daemon=True).start()


def run_shard(shard: Shard, config: RunConfig, root: str, upload: str | None = None) -> ShardResult:
    """Generate one shard into the folder ``root`` (and put each file to ``upload`` too); the jsonl comes last.
    Raises only :class:`MirforgeError` or :class:`InputError` with a one-line message (see the module's doc)."""
    try:
        return _run_shard(shard, config, root, upload)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise portable(exc, f"task {shard.task}, shard {shard.path}") from None


def portable(exc: BaseException, where: str, plugin: str | None = None) -> MirforgeError:
    """``exc`` as an exception that survives pickling: mirforge's own errors keep their one-line message (it names
    the task already); anything else says ``where`` it happened, what it was, and the line of the ``plugin``'s
    module ("module:Class") that raised it."""
    if type(exc) in (MirforgeError, InputError):
        return exc  # type: ignore[return-value]
    if isinstance(exc, MirforgeError):
        return (InputError if isinstance(exc, InputError) else MirforgeError)(one_line(exc))
    what = f"called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else f"raised {type(exc).__name__}"
    detail = "" if isinstance(exc, SystemExit) else f": {one_line(exc)}"
    return MirforgeError(f"{where}: {what}{detail}{origin(exc, plugin)}; the task plugin must be fixed")


def plugin_failure(exc: BaseException, task: str, index: int) -> MirforgeError:
    plugin = target(task)
    return portable(exc, f"task {task}, index {index}: plugin {plugin}", plugin)


def one_line(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose __str__ fails still gets reported
        text = f"<{type(exc).__name__} that cannot be printed>"
    return " ".join(text.split())[:300]


def origin(exc: BaseException, plugin: str | None) -> str:
    """Where ``exc`` was raised: the innermost frame in the plugin's package folder, else the innermost of all."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_name, tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    module = sys.modules.get(plugin.partition(":")[0]) if plugin else None
    folder = os.path.dirname(getattr(module, "__file__", None) or "\0")
    own = [f for f in frames if os.path.dirname(f[1]) == folder] or frames
    if not own:
        return ""
    function, filename, line = own[-1]
    return f" (in {function}, {filename}, line {line})"


def _run_shard(shard: Shard, config: RunConfig, root: str, upload: str | None) -> ShardResult:
    started = time.time()
    out = Path(root)

    def save(rel: str, data: bytes) -> None:
        atomic_write(out / rel, data, durable=False)
        if upload is not None:
            put(upload, rel, data)

    task = config.task(shard.task)
    spec = config.spec(out)  # the run's renderer travels in it, to the pipeline
    lines: list[str] = []
    hashes: list[bytes] = []  # of the images, in order
    timings: Counter = Counter()
    rejections: Counter = Counter()
    for index in range(shard.start, shard.stop):
        try:
            generated = generate_one(task, spec, index)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise plugin_failure(exc, shard.task, index) from None
        t0 = time.perf_counter()
        line = generated.instance.to_json()
        found = problems(json.loads(line))
        if found:
            raise MirforgeError(
                f"task {shard.task} made an invalid record ({generated.instance.id}: {'; '.join(found[:3])}); "
                "the task plugin must be fixed"
            )
        t1 = time.perf_counter()
        for rel, data in zip(generated.instance.images, generated.images, strict=True):
            save(rel, data)
        for k, data in enumerate(generated.videos):
            save(f"videos/{shard.task}/{shard.split}/{index:06d}-{k}.mp4", data)
        lines.append(line)
        hashes += [file_hash(data) for data in generated.images]
        timings.update(generated.timings)
        timings["validate"] += t1 - t0
        timings["write"] += time.perf_counter() - t1
        rejections.update(generated.rejections)
        if _progress is not None:
            _progress.put(1)
    t2 = time.perf_counter()
    data = ("\n".join(lines) + "\n").encode()
    save(shard.path, data)
    os.sync()  # one flush of the shard's files before the driver's manifest says they are complete
    timings["write"] += time.perf_counter() - t2
    entry = {
        "task": shard.task,
        "start": shard.start,
        "stop": shard.stop,
        "instances": len(lines),
        "images": len(hashes),
        "sha256": sha256(data),
        "images_sha256": digest(hashes),
        "rejections": dict(sorted(rejections.items())),
    }
    return ShardResult(
        shard,
        entry,
        dict(timings),
        len(lines),
        len(hashes),
        node=socket.gethostname(),
        pid=os.getpid(),
        started=started,
        finished=time.time(),
        peak_rss_mb=peak_rss_mb(),
    )
