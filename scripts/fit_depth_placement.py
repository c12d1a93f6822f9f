"""Fit depth_relationship's PLACEMENT_WEIGHTS: per question shape (form, photos, premise photos), a conditional logit
of the answer on the options' placement features (mirforge.placement) as the audit reads them, from the regions of
a split generated without thinning:

    mirforge generate --tasks depth_relationship --n 10800 --seed 3 --out fit \\
        --set depth_relationship.even_placement=false
    python scripts/fit_depth_placement.py fit [more splits ...]

Prints, per shape, how often the fitted scorer's top option is the answer (in sample, and cross-validated over 5
folds), then the weights to paste into mirforge/generators/spatial/depth_relationship/task.py. Refit after any
change to the plans or the rendering, and check what the weights leave (below): fitted on 1,200 questions a shape,
they once left the kept questions leaning. The present weights: both shapes' from the default config unthinned
(3,000 questions, seed 73611: 1,000 named, 2,000 premise), once the plans were thinned by the answer's size rank; on
the questions they keep, a refitted scorer reads 21-24% held out (``--thin`` 1 to 3), the weights before 27-32%.
On a thinned split (the default config) the same numbers say what is left; so do they on a fresh unthinned split
with ``--thin SEED``, which first keeps each question with its keep chance under the present weights (draws from
SEED), as the verifier would: the way to compare two sets of weights on the same questions and draws.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from mirforge.audit_images import placement_rows
from mirforge.generators.spatial.depth_relationship.task import PLACEMENT_WEIGHTS
from mirforge.placement import fit_odds, keep_chance


def shape_of(record: dict) -> tuple[str, int, int]:
    knobs = record["difficulty"]["knobs"]
    return knobs["form"], len(record["images"]), knobs["premises"] if knobs["form"] == "premise" else 0


def hits(x: np.ndarray, answers: np.ndarray, w: np.ndarray) -> float:
    return 100.0 * float(np.mean((x @ w).argmax(axis=1) == answers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path, help="splits generated with even_placement=false")
    parser.add_argument("--l2", type=float, default=1.0, help="ridge penalty on the weights")
    parser.add_argument("--thin", type=int, metavar="SEED", help="thin by the present weights first (draws from SEED)")
    args = parser.parse_args()
    by_shape: dict[tuple[str, int, int], list[tuple[np.ndarray, int]]] = {}
    for root in args.datasets:
        for path in sorted((root / "instances" / "depth_relationship").rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                rows = placement_rows(record)
                if rows is not None:
                    answer = list(record["options"]).index(record["answer"])
                    by_shape.setdefault(shape_of(record), []).append((rows, answer))
    if not by_shape:
        raise SystemExit("no depth_relationship instances with boxed options in " + ", ".join(map(str, args.datasets)))
    weights = {}
    for shape, found in sorted(by_shape.items()):
        x, answers = np.array([r for r, _ in found]), np.array([a for _, a in found])
        if args.thin is not None:
            draws = np.random.default_rng(args.thin).uniform(size=len(x))
            kept = [i for i in range(len(x)) if draws[i] < keep_chance(x[i], PLACEMENT_WEIGHTS[shape], int(answers[i]))]
            x, answers = x[kept], answers[kept]
        fold = np.arange(len(x)) % 5
        held_out = np.mean(
            [
                hits(x[fold == f], answers[fold == f], fit_odds(x[fold != f], answers[fold != f], args.l2))
                for f in range(5)
            ]
        )
        w = fit_odds(x, answers, args.l2)
        weights[shape] = tuple(round(float(v), 3) for v in w)
        print(
            f"{shape}: {len(x)} questions, the top option is the answer {hits(x, answers, w):.1f}% in sample, "
            f"{held_out:.1f}% held out (5 folds); chance 25"
        )
    print("PLACEMENT_WEIGHTS: dict[tuple[str, int, int], tuple[float, ...]] = {")
    for shape, w in weights.items():
        print(f"    {shape!r}: {w!r},")
    print("}")


if __name__ == "__main__":
    main()
