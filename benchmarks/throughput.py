"""Generation throughput per task: instances/s, images/s, where the time goes, and the 2-worker speed-up.

    python benchmarks/throughput.py [--tasks all] [--n 40] [--repeats 3]
    python benchmarks/throughput.py --tasks none --mir-sample 2400 [--repeats 3]

Each (task, workers) cell runs ``--repeats`` fresh generations of ``--n`` instances into a temporary folder and
reports the median. Rates are wall-clock, worker start-up included; the ms-per-image split comes from the workers'
own timers (summed over workers, so it is CPU-side time per image, not wall time); "rejected" is the time spent on
attempts a task refused (in sample, ask, render or verify), which the other phases leave out; "rejected per 100"
counts those attempts per 100 accepted instances (over every run of the row).

Assets (catalogue meshes, floor textures) come from the machine's asset cache, so only a first run builds them;
``--cold-cache`` gives every run an empty cache of its own instead (what a first run on a new machine pays).

``--mir-sample N`` also runs one generation of N instances in the proportions of ``--scale`` (MIR's per-task counts)
on each of ``--mir-workers`` (default 2), ``--repeats`` times, and projects the full scale from the median run in two
ways: linearly (wall time x full / sample, which counts worker start-up and the final tail once per sample-sized
piece, so it overestimates) and as start-up once plus the full count at the steady rate (first shard start to last
shard end). The manifest and mir.json writes at the end are in the wall time of both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

import yaml

from mirforge.registry import resolve
from mirforge.render.asset_cache import cache_root
from mirforge.runner import Summary, generate
from mirforge.runner.config import RunConfig

PHASES = ("sample", "render", "verify", "rejected", "steps", "encode", "validate", "write")


def fresh_run(config: RunConfig, workers: int, cold: bool) -> Summary:
    """One generation into a temporary folder; ``cold``: with an empty asset cache of its own (what a first run on
    a new machine pays), else with the machine's (``MIRFORGE_CACHE``), warm after the first run."""
    saved = os.environ.get("MIRFORGE_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        if cold:
            os.environ["MIRFORGE_CACHE"] = str(Path(tmp) / "assets")
        try:
            return generate(config, Path(tmp) / "data", workers=workers, progress=False)
        finally:
            if saved is None:
                os.environ.pop("MIRFORGE_CACHE", None)
            else:
                os.environ["MIRFORGE_CACHE"] = saved


def run_once(task: str, n: int, workers: int, seed: int, cold: bool) -> tuple[float, int, dict[str, float], int]:
    """Wall seconds, images, phase timings and rejected attempts of one fresh generation."""
    config = RunConfig(tasks=(task,), n=n, seed=seed, shard_size=max(1, n // 8))
    summary = fresh_run(config, workers, cold)
    return summary.seconds, summary.images, dict(summary.timings), summary.rejected


def steady_rate(summary: Summary) -> float:
    """Instances per second from the first shard's start to the last shard's end: worker start-up left out."""
    first = min(span.started for span in summary.spans)
    last = max(span.finished for span in summary.spans)
    return summary.instances / (last - first)


def mir_sample(scale: Path, total: int, repeats: int, worker_counts: list[int], cold: bool) -> None:
    spec = yaml.safe_load(scale.read_text())
    counts = spec["n"]
    full = sum(counts.values())
    n = {task: max(1, round(c * total / full)) for task, c in counts.items()}
    config = RunConfig(tasks=tuple(n), n=n, seed=0, shard_size=int(spec.get("shard_size", 50)))
    print(f"\nMIR-proportioned sample of {scale}: {sum(n.values())} instances, median of {repeats} runs per row\n")
    print(
        "| workers | wall s (runs) | inst/s | img/s | steady inst/s | validate + write % | peak RSS/worker MiB "
        "| projected full scale: linear | start-up once + steady |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rates = {}
    for workers in worker_counts:
        runs = []
        for _ in range(repeats):
            runs.append(fresh_run(config, workers, cold))
        summary = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
        done = summary.instances
        written = summary.timings.get("validate", 0.0) + summary.timings.get("write", 0.0)
        rates[workers] = (done / summary.seconds, steady_rate(summary))
        once = summary.seconds - done / rates[workers][1] + full / rates[workers][1]
        print(
            f"| {workers} | {summary.seconds:.1f} ({', '.join(f'{r.seconds:.1f}' for r in runs)}) "
            f"| {done / summary.seconds:.2f} | {summary.images / summary.seconds:.1f} | {rates[workers][1]:.2f} "
            f"| {100 * written / sum(summary.timings.values()):.1f} | {max(summary.peak_rss_mb().values()):.0f} "
            f"| {full} instances, ~{summary.images * full / done:.0f} images: "
            f"{summary.seconds * full / done / 60:.1f} min | {once / 60:.1f} min |"
        )
    if 1 in rates and 2 in rates:
        wall, steady = (rates[2][i] / rates[1][i] for i in range(2))
        print(f"\nspeed-up 1 -> 2 workers: {wall:.2f} wall-clock, {steady:.2f} steady (start-up left out)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--n", type=int, default=40, help="instances per task and run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=Path, default=Path("configs/mir-scale.yaml"), help="per-task counts to project")
    parser.add_argument("--mir-sample", type=int, default=0, help="instances of a MIR-proportioned run to project from")
    parser.add_argument("--mir-workers", default="2", help="worker counts for --mir-sample, e.g. 1,2")
    parser.add_argument("--cold-cache", action="store_true", help="every run starts with an empty asset cache")
    args = parser.parse_args()
    print(f"asset cache: {'empty for every run' if args.cold_cache else cache_root() or 'off'}")
    rows = []
    for task in resolve(args.tasks) if args.tasks != "none" else []:
        cells = {}
        all_runs = []
        for workers in (1, 2):
            runs = [run_once(task, args.n, workers, seed, args.cold_cache) for seed in range(args.repeats)]
            all_runs.append(runs)
            seconds = statistics.median(r[0] for r in runs)
            images = statistics.median(r[1] for r in runs)
            phases = {p: statistics.median(r[2].get(p, 0.0) / max(r[1], 1) * 1000 for r in runs) for p in PHASES}
            cells[workers] = (seconds, images, phases)
        s1, _, _ = cells[1]
        s2, images2, phases2 = cells[2]
        rejected = sum(r[3] for seed_runs in all_runs for r in seed_runs) / (len(all_runs) * args.repeats * args.n)
        rows.append((task, args.n / s2, images2 / s2, phases2, s1 / s2, 100 * rejected))
    if rows:
        head = (
            "| task | inst/s (2 w) | img/s (2 w) | "
            + " | ".join(f"{p} ms/img" for p in PHASES)
            + " | speed-up 1->2 | rejected per 100 |"
        )
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for task, ips, imgs, phases, speedup, rejected in rows:
            cols = " | ".join(f"{phases[p]:.1f}" for p in PHASES)
            print(f"| {task} | {ips:.2f} | {imgs:.1f} | {cols} | {speedup:.2f} | {rejected:.1f} |")
        total_inst = sum(r[1] for r in rows)
        print(
            f"\n{len(rows)} tasks, n={args.n} per run, median of {args.repeats}; mean inst/s over tasks "
            f"{total_inst / len(rows):.2f}"
        )
    if args.scale.is_file() and rows:
        counts = yaml.safe_load(args.scale.read_text())["n"]
        rate = {task: ips for task, ips, *_ in rows}
        known = [t for t in counts if t in rate]
        seconds = sum(counts[t] / rate[t] for t in known)
        images = sum(counts[t] * imgs / ips for t, ips, imgs, *_ in rows if t in counts)
        print(
            f"projected {args.scale} ({sum(counts[t] for t in known)} instances of {len(known)} tasks, "
            f"~{images:.0f} images) on 2 workers: {seconds / 60:.1f} min"
        )
    if args.mir_sample:
        workers = [int(w) for w in args.mir_workers.split(",")]
        mir_sample(args.scale, args.mir_sample, args.repeats, workers, args.cold_cache)


if __name__ == "__main__":
    main()
