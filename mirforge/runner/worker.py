"""The shard function every executor runs: generate a shard's instances, write its images and its jsonl."""

from __future__ import annotations

import json
import os
import resource
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge.dataset.upload import put
from mirforge.dataset.writer import atomic_write, digest, file_hash, sha256
from mirforge.errors import MirforgeError
from mirforge.instance import problems
from mirforge.pipeline import generate_one
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
    peak_rss_mb: float = 0.0  # the worker process's peak resident set size so far (children, e.g. ffmpeg, not included)


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def init_worker(progress: Any = None, threads: int | None = None) -> None:
    """Process initializer: runs before any GL import, so the render thread count applies."""
    global _progress
    _progress = progress
    if threads is not None:
        os.environ["LP_NUM_THREADS"] = str(threads)


def run_shard(shard: Shard, config: RunConfig, root: str, upload: str | None = None) -> ShardResult:
    """Generate one shard into the folder ``root`` (and put each file to ``upload`` too); the jsonl comes last."""
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
        generated = generate_one(task, spec, index)
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
