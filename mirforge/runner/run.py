"""A run: plan it, execute its shards, keep the manifest, write the MIR view. Resume is a completeness filter."""

from __future__ import annotations

import shutil
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mirforge import registry
from mirforge.dataset.layout import LOCK, MANIFEST
from mirforge.dataset.lock import folder_lock
from mirforge.dataset.manifest import Manifest
from mirforge.dataset.mir import write_mir
from mirforge.dataset.upload import check_upload
from mirforge.dataset.writer import check_writable, remove_temporaries
from mirforge.errors import InputError, MirforgeError
from mirforge.models.breaker import reset_breaker
from mirforge.runner.config import Execution, RunConfig
from mirforge.runner.plan import Shard, plan, schedule
from mirforge.runner.worker import ShardResult
from mirforge.templates.identity import changed, template_hashes
from mirforge.templates.identity import digest as templates_digest


@dataclass(frozen=True)
class Span:
    """Where and when one shard ran (for measuring the scheduling; not part of the dataset)."""

    node: str
    pid: int
    started: float  # time.time() in the worker
    finished: float
    instances: int
    peak_rss_mb: float  # the worker process's peak RSS when the shard finished


@dataclass
class Summary:
    instances: int = 0
    images: int = 0
    rejected: int = 0  # attempts the tasks refused on the way to these instances
    shards_done: int = 0
    shards_skipped: int = 0
    seconds: float = 0.0
    timings: Counter = field(default_factory=Counter)
    per_task: dict[str, Counter] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)

    def add(self, result: ShardResult) -> None:
        self.instances += result.instances
        self.images += result.images
        self.rejected += sum(result.entry["rejections"].values())
        self.shards_done += 1
        self.timings.update(result.timings)
        self.spans.append(
            Span(result.node, result.pid, result.started, result.finished, result.instances, result.peak_rss_mb)
        )
        task = self.per_task.setdefault(result.shard.task, Counter())
        task.update(result.timings)
        task["instances"] += result.instances
        task["images"] += result.images

    def peak_rss_mb(self) -> dict[tuple[str, int], float]:
        """Peak RSS in MiB of each worker process, keyed by (node, pid)."""
        peaks: dict[tuple[str, int], float] = {}
        for span in self.spans:
            key = (span.node, span.pid)
            peaks[key] = max(peaks.get(key, 0.0), span.peak_rss_mb)
        return peaks


def prepare(
    config: RunConfig, out: Path, upload: str | None = None, force_templates: bool = False
) -> tuple[Manifest, list[Shard], list[Shard]]:
    """Check everything that can be wrong with the input before a single file is written. The shards to do come
    in the order the workers take them."""
    config.validate()
    check_writable(out)
    if upload is not None:
        upload = check_upload(upload)
    manifest = open_manifest(config, out, upload, force_templates)
    shards = plan(config)
    todo = schedule([s for s in shards if not manifest.is_complete(config.split, s.path)])
    return manifest, shards, todo


def open_manifest(config: RunConfig, out: Path, upload: str | None = None, force_templates: bool = False) -> Manifest:
    """The folder's manifest (in memory) with this run begun; refuses a split generated with another config, or
    with other step templates unless ``force_templates`` (then the new templates are recorded for the shards
    written from now on)."""
    manifest = Manifest(out, upload)
    recorded = manifest.split(config.split)
    if recorded is not None:  # an older manifest recorded the raw --set strings: compare the effective configs
        recorded["config"] = RunConfig.recorded(recorded["config"])
    manifest.begin(config.to_json())
    split = manifest.split(config.split)
    record_templates(split, config, out, force_templates)
    split["image_size"] = {name: config.task(name).image_size for name in config.tasks}  # what validate expects
    return manifest


def record_templates(split: dict, config: RunConfig, out: Path, force: bool) -> str:
    """Check the run's template files against those the split was begun with, and record them: the split's
    ``templates`` names the set the next shards are written with, ``template_files`` holds every set its shards
    were written with (a manifest from before template hashes records the current set)."""
    hashes = template_hashes([config.task(name) for name in config.tasks], config.templates)
    current = templates_digest(hashes)
    sets = split.setdefault("template_files", {})
    before = sets.get(split.get("templates", ""))
    if before is not None and before != hashes and not force:
        differ = changed(before, hashes)
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        raise InputError(
            f"--out: the step templates changed since split {config.split!r} in {out} was begun ({shown}); use a "
            "new --out folder, or --force-templates to keep its shards and write the rest with the new templates"
        )
    sets[current] = hashes
    split["templates"] = current
    return current


def generate(
    config: RunConfig,
    out: Path,
    *,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
    progress: bool = True,
    upload: str | None = None,
    force_templates: bool = False,
) -> Summary:
    """Generate a split into ``out``; with ``upload`` (an fsspec URL) every file is also put there. The folder is
    locked for the whole run: a second generate into it is refused, naming this one's pid. ``force_templates``
    resumes a split whose step templates changed (its text then mixes old and new templates)."""
    Execution(out, workers, executor, address, upload).validate()
    check_writable(out)  # before the lock creates anything in it
    with folder_lock(out), sigterm_as_error(out):
        return _generate(config, out, workers, executor, address, progress, upload, force_templates)


@contextmanager
def sigterm_as_error(out: Path) -> Iterator[None]:
    """SIGTERM ends the run like an error, so that the executor stops its workers (a private Ray instance
    included) and the lock is released; without it the process would end on the spot. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise MirforgeError(f"stopped by SIGTERM while generating into {out}; rerun the same command to resume")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _generate(
    config: RunConfig,
    out: Path,
    workers: int,
    executor: str,
    address: str | None,
    progress: bool,
    upload: str | None,
    force_templates: bool,
) -> Summary:
    fresh = not (out / MANIFEST).is_file()  # then the folder holds nothing but the lock (check_writable)
    manifest, shards, todo = prepare(config, out, upload, force_templates)
    templates = manifest.split(config.split)["templates"]
    warn_unproven(config.tasks)
    remove_temporaries(out)
    if config.rewriter is not None:  # the run's rewriter starts with its circuit breaker closed
        reset_breaker(config.spec(out).llm_cache)
    try:
        return _execute(config, out, workers, executor, address, progress, manifest, shards, todo, templates)
    except InputError:
        if fresh:  # bad input found mid-run (a user template failing on an instance): leave no half dataset
            discard(out)
        raise


def _execute(
    config: RunConfig,
    out: Path,
    workers: int,
    executor: str,
    address: str | None,
    progress: bool,
    manifest: Manifest,
    shards: list[Shard],
    todo: list[Shard],
    templates: str,
) -> Summary:
    manifest.save()
    summary = Summary(shards_skipped=len(shards) - len(todo))
    bar = tqdm(
        total=sum(len(s) for s in shards),
        initial=sum(len(s) for s in shards if s not in todo),
        unit="inst",
        desc=f"generate {config.split}",
        disable=None if progress else True,  # None: off when stderr is not a terminal
        dynamic_ncols=True,
    )
    t0 = time.perf_counter()
    try:
        if executor == "local":
            from mirforge.runner.local import run_local

            results = run_local(todo, config, str(out), workers, bar.update, manifest.upload)
        else:
            from mirforge.runner.ray_executor import run_ray

            results = run_ray(todo, config, str(out), workers, address, bar.update, manifest.upload)
        for result in results:
            manifest.record(config.split, result.shard.path, {**result.entry, "templates": templates})
            manifest.save()
            summary.add(result)
    finally:
        bar.close()
    summary.seconds = time.perf_counter() - t0
    manifest.finish(config.split)
    manifest.save()
    write_mir(out, manifest)
    return summary


def discard(out: Path) -> None:
    """Remove everything a run wrote into a folder that held nothing before it (the lock file stays with its
    holder)."""
    for child in out.iterdir():
        if child.name == LOCK:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def warn_unproven(tasks: tuple[str, ...]) -> None:
    """One line per task whose images cannot be proven needed (it does not implement ``Task.consistent``)."""
    for name in tasks:
        if not registry.load(name).proves_necessity():
            print(f"warning: task {name} does not implement consistent(); provenance.needed is null", file=sys.stderr)
