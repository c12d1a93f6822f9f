"""Executor scaling: the Ray executor against the local one, worker memory, and a simulated Ray cluster.

    python benchmarks/scaling.py [--tasks view_3d,chart_analysis] [--n 200] [--repeats 3] [--nodes 4]
                                 [--shard-size N] [--skip-executors] [--skip-cluster]

Part 1 runs ``--repeats`` fresh generations of ``--n`` instances per task with each executor (local, ray) on 2
workers, alternating the executors, and reports medians: wall-clock rates (worker and Ray start-up included), the
steady rate over the shard window (first shard start to last shard end, start-up excluded), the start-up time
(``generate()`` called to first shard started), each worker process's peak RSS (``ru_maxrss``, max over workers;
subprocesses such as ffmpeg not included) and the driver's CPU seconds per 1,000 instances.

Part 2 starts a Ray cluster on loopback (``ray.cluster_utils.Cluster``): a head node with no CPUs, which holds the
driver, and ``--nodes`` worker nodes of one CPU each, so one shard at a time per node. ``--nodes 1,2,4`` grows
the cluster and measures each size. The simulated nodes share this machine's cores, so the table reports how busy
the scheduling keeps the workers and what the driver costs, not a speed-up: makespan is the shard window, a node's
busy % is its summed shard time over the makespan, a gap is the idle time between consecutive shards of one worker
process, and the lead is how long after the first shard a node starts its own first one.

Ray runs on this machine only: loopback addresses (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 keeps ``ray.init`` from
rewriting 127.0.0.1 to the host's outward IP), no dashboard, no usage report, its own temporary folder (also as
RAY_TMPDIR, so that the cluster's address file does not land in the shared /tmp/ray), auth disabled; everything
started here is shut down at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path

from mirforge.registry import resolve
from mirforge.runner import Summary, generate
from mirforge.runner.config import RunConfig

WORKERS = 2


@dataclass
class Run:
    summary: Summary
    called: float  # time.time() just before generate()
    driver_cpu: float  # CPU seconds (user + system) of this process during generate()

    @property
    def window(self) -> tuple[float, float]:
        return min(s.started for s in self.summary.spans), max(s.finished for s in self.summary.spans)

    @property
    def makespan(self) -> float:
        start, end = self.window
        return end - start

    @property
    def startup(self) -> float:
        return self.window[0] - self.called

    @property
    def peak_rss(self) -> float:
        return max(self.summary.peak_rss_mb().values())

    @property
    def driver_cpu_per_1k(self) -> float:
        return self.driver_cpu / self.summary.instances * 1000

    def busy(self) -> dict[str, float]:
        """Busy fraction of each node over the makespan."""
        total: dict[str, float] = defaultdict(float)
        for span in self.summary.spans:
            total[span.node] += span.finished - span.started
        return {node: t / self.makespan for node, t in total.items()}

    def gaps(self) -> list[float]:
        """Idle seconds between consecutive shards of each worker process."""
        by_worker = defaultdict(list)
        for span in self.summary.spans:
            by_worker[(span.node, span.pid)].append(span)
        out = []
        for spans in by_worker.values():
            spans.sort(key=lambda s: s.started)
            out += [max(0.0, b.started - a.finished) for a, b in pairwise(spans)]
        return out

    def leads(self) -> list[float]:
        """Per node: seconds from the first shard start anywhere to the node's own first shard start."""
        first: dict[str, float] = {}
        for span in self.summary.spans:
            first[span.node] = min(first.get(span.node, span.started), span.started)
        start = self.window[0]
        return [t - start for t in first.values()]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_once(config: RunConfig, executor: str, workers: int) -> Run:
    with tempfile.TemporaryDirectory(prefix="mirforge-scaling-") as tmp:
        called, cpu0 = time.time(), cpu_seconds()
        summary = generate(config, Path(tmp) / "data", workers=workers, executor=executor, progress=False)
        cpu = cpu_seconds() - cpu0
    return Run(summary, called, cpu)


def med(values) -> float:
    return statistics.median(list(values))


def warm_up(config: RunConfig) -> None:
    """One untimed tiny local run (file caches, plugin imports, font caches) and the driver's ray import, so that
    neither executor pays a one-off cost the other does not."""
    run_once(replace(config, n=2, shard_size=1), "local", WORKERS)
    import ray  # noqa: F401


def executors_table(config: RunConfig, repeats: int) -> None:
    warm_up(config)
    runs: dict[str, list[Run]] = {"local": [], "ray": []}
    for repeat in range(repeats):
        for executor in ("local", "ray") if repeat % 2 == 0 else ("ray", "local"):
            runs[executor].append(run_once(config, executor, WORKERS))
    rows = {}
    for executor, rs in runs.items():
        rows[executor] = {
            "inst/s": med(r.summary.instances / r.summary.seconds for r in rs),
            "img/s": med(r.summary.images / r.summary.seconds for r in rs),
            "steady": med(r.summary.instances / r.makespan for r in rs),
            "startup": med(r.startup for r in rs),
            "rss": max(r.peak_rss for r in rs),
            "driver": med(r.driver_cpu_per_1k for r in rs),
            "driver %": med(100 * r.driver_cpu / r.summary.seconds for r in rs),
        }
    local = rows["local"]
    head = (
        "| executor | workers | inst/s | img/s | ray/local | steady inst/s | ray/local steady | start-up s "
        "| peak RSS/worker MB | driver CPU s/1k inst | driver CPU % of wall |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for executor, row in rows.items():
        print(
            f"| {executor} | {WORKERS} | {row['inst/s']:.2f} | {row['img/s']:.1f} "
            f"| {row['inst/s'] / local['inst/s']:.2f} | {row['steady']:.2f} | {row['steady'] / local['steady']:.2f} "
            f"| {row['startup']:.1f} | {row['rss']:.0f} "
            f"| {row['driver']:.2f} | {row['driver %']:.1f} |"
        )
    instances = runs["local"][0].summary.instances
    shards = runs["local"][0].summary.shards_done
    print(
        f"\n{instances} instances in {shards} shards per run, median of {repeats} (executor order alternates); "
        "targets: ray/local >= 0.85, peak RSS per worker <= 1024 MB. Driver CPU includes the fixed start-up "
        "(ray.init, manifest, mir.json), so its per-1k figure falls as --n grows\n"
    )


def cluster_table(config: RunConfig, sizes: list[int], repeats: int) -> None:
    import ray
    from ray.cluster_utils import Cluster

    temp_dir = tempfile.mkdtemp(prefix="mirforge-ray-", dir="/tmp")
    saved = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = temp_dir  # Cluster writes its address file to $RAY_TMPDIR/ray, not /tmp/ray
    ray_dir = os.path.join(temp_dir, "ray")
    os.mkdir(ray_dir)
    local = {"node_ip_address": "127.0.0.1", "temp_dir": ray_dir}
    cluster = None
    rows = []
    try:
        t0 = time.perf_counter()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False, **local})
        ray.init(address=cluster.address, log_to_driver=False, _node_ip_address="127.0.0.1")
        nodes = 0
        for size in sizes:
            while nodes < size:
                cluster.add_node(num_cpus=1, **local)
                nodes += 1
            cluster.wait_for_nodes()
            if size == sizes[0]:
                print(f"cluster start-up (head + {size} nodes): {time.perf_counter() - t0:.1f} s")
            rs = [run_once(config, "ray", size) for _ in range(repeats)]
            last = rs[-1]
            busy = last.busy()
            gaps = [g for r in rs for g in r.gaps()]
            rows.append(
                {
                    "nodes": size,
                    "workers": len(last.summary.peak_rss_mb()),
                    "shards": last.summary.shards_done,
                    "makespan": med(r.makespan for r in rs),
                    "wall": med(r.summary.seconds for r in rs),
                    "busy": med(sum(r.busy().values()) / size for r in rs),
                    "per-node": "/".join(f"{100 * b:.0f}" for b in sorted(busy.values(), reverse=True)),
                    "lead": med(max(r.leads()) for r in rs),
                    "gap": statistics.fmean(gaps) * 1000 if gaps else 0.0,
                    "max gap": max(gaps) * 1000 if gaps else 0.0,
                    "driver": med(r.driver_cpu_per_1k for r in rs),
                    "driver %": med(100 * r.driver_cpu / r.summary.seconds for r in rs),
                }
            )
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
        if saved is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = saved
        shutil.rmtree(temp_dir, ignore_errors=True)
    head = (
        "| nodes | workers | shards | makespan s | driver wall s | mean busy % | busy % per node | max lead s "
        "| mean gap ms | max gap ms | driver CPU s/1k inst | driver CPU % of wall |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        print(
            f"| {r['nodes']} | {r['workers']} | {r['shards']} | {r['makespan']:.1f} | {r['wall']:.1f} "
            f"| {100 * r['busy']:.0f} | {r['per-node']} | {r['lead']:.2f} | {r['gap']:.0f} | {r['max gap']:.0f} "
            f"| {r['driver']:.2f} | {r['driver %']:.1f} |"
        )
    print(
        f"\nsimulated nodes of 1 CPU on {os.cpu_count()} cores, median of {repeats} (per-node busy %: the last run); "
        "a node that ran no shard counts as 0 % in the mean\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="view_3d,chart_analysis")
    parser.add_argument("--n", type=int, default=200, help="instances per task and run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nodes", default="4", help="simulated node counts, comma-separated (the cluster grows)")
    parser.add_argument("--shard-size", type=int, default=0, help="instances per shard (default: n // 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-executors", action="store_true", help="only the cluster simulation")
    parser.add_argument("--skip-cluster", action="store_true", help="only the executor comparison")
    args = parser.parse_args()
    # Before anything imports ray: no auth token file, no usage report, and "127.0.0.1" stays the loopback address
    # (ray.init(address=...) otherwise swaps a localhost address for the host's outward IP, where nothing listens).
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    tasks = tuple(resolve(args.tasks))
    config = RunConfig(tasks=tasks, n=args.n, seed=args.seed, shard_size=args.shard_size or max(1, args.n // 8))
    print(f"tasks {','.join(tasks)}, n={args.n} per task, shard size {config.shard_size}\n")
    if not args.skip_executors:
        executors_table(config, args.repeats)
    if not args.skip_cluster:
        cluster_table(config, sorted({int(x) for x in args.nodes.split(",")}), args.repeats)


if __name__ == "__main__":
    main()
