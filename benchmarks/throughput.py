"""Generation throughput per task: instances/s, images/s, where the time goes, and the 2-worker speed-up.

    python benchmarks/throughput.py [--tasks all] [--n 40] [--repeats 3] [--size 448]

Each (task, workers) cell runs ``--repeats`` fresh generations of ``--n`` instances into a temporary folder and
reports the median. Rates are wall-clock, worker start-up included; the ms-per-image split comes from the workers'
own timers (summed over workers, so it is CPU-side time per image, not wall time).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import yaml

from mirforge.registry import resolve
from mirforge.runner import generate
from mirforge.runner.plan import RunConfig

PHASES = ("sample", "render", "verify", "steps", "encode", "validate", "write")


def run_once(task: str, n: int, workers: int, seed: int) -> tuple[float, int, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(tasks=(task,), n=n, seed=seed, shard_size=max(1, n // 8))
        summary = generate(config, Path(tmp) / "data", workers=workers, progress=False)
    return summary.seconds, summary.images, dict(summary.timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--n", type=int, default=40, help="instances per task and run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=Path, default=Path("configs/mir-scale.yaml"), help="per-task counts to project")
    args = parser.parse_args()
    rows = []
    for task in resolve(args.tasks):
        cells = {}
        for workers in (1, 2):
            runs = [run_once(task, args.n, workers, seed) for seed in range(args.repeats)]
            seconds = statistics.median(r[0] for r in runs)
            images = statistics.median(r[1] for r in runs)
            phases = {p: statistics.median(r[2].get(p, 0.0) / max(r[1], 1) * 1000 for r in runs) for p in PHASES}
            cells[workers] = (seconds, images, phases)
        s1, _, _ = cells[1]
        s2, images2, phases2 = cells[2]
        rows.append((task, args.n / s2, images2 / s2, phases2, s1 / s2))
    head = "| task | inst/s (2 w) | img/s (2 w) | " + " | ".join(f"{p} ms/img" for p in PHASES) + " | speed-up 1->2 |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for task, ips, imgs, phases, speedup in rows:
        cols = " | ".join(f"{phases[p]:.1f}" for p in PHASES)
        print(f"| {task} | {ips:.2f} | {imgs:.1f} | {cols} | {speedup:.2f} |")
    total_inst = sum(r[1] for r in rows)
    print(
        f"\n{len(rows)} tasks, n={args.n} per run, median of {args.repeats}; mean inst/s over tasks "
        f"{total_inst / len(rows):.2f}"
    )
    if args.scale.is_file():
        counts = yaml.safe_load(args.scale.read_text())["n"]
        rate = {task: ips for task, ips, *_ in rows}
        known = [t for t in counts if t in rate]
        seconds = sum(counts[t] / rate[t] for t in known)
        images = sum(counts[t] * imgs / ips for t, ips, imgs, *_ in rows if t in counts)
        print(
            f"projected {args.scale} ({sum(counts[t] for t in known)} instances of {len(known)} tasks, "
            f"~{images:.0f} images) on 2 workers: {seconds / 60:.1f} min"
        )


if __name__ == "__main__":
    main()
