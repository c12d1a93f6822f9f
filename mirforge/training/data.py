"""Training rows: a curriculum folder's stages (or the baseline built from the same instances) as TRL rows.

A TRL row is ``{"id", "prompt": [user message with text and {"type": "image"} parts in slot order], "completion":
[assistant message], "images": [absolute paths]}``; the k-th image part is filled with ``images[k]`` by TRL's
vision-language collator, so the images stay interleaved at their slots.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.errors import InputError

CURRICULUM = "curriculum.json"


@dataclass
class StagePlan:
    """One training stage: its name and rows (in training order)."""

    name: str
    rows: list[dict[str, Any]]


@dataclass
class Curriculum:
    folder: Path
    dataset: Path
    schedule: Any  # mirforge.curriculum.stages.Schedule
    stages: list[StagePlan]


def load_curriculum(folder: Path, only: tuple[str, ...] = ()) -> Curriculum:
    """Read ``curriculum.json`` and ``stages/<name>.jsonl`` in the schedule's order; check every image exists."""
    from mirforge.curriculum.stages import parse_schedule

    folder = Path(folder)
    meta_path = folder / CURRICULUM
    if not meta_path.is_file():
        raise InputError(f"--curriculum: {folder} holds no {CURRICULUM}; build one with `mirforge curriculum`")
    meta = json.loads(meta_path.read_text())
    dataset = Path(meta["dataset"])
    if not dataset.is_dir():
        raise InputError(f"--curriculum: its dataset {dataset} is gone; rebuild the curriculum from the dataset")
    schedule = parse_schedule(meta["schedule"], where=f"{meta_path}: schedule")
    names = [s.name for s in schedule.stages]
    unknown = [s for s in only if s not in names]
    if unknown:
        raise InputError(f"--stage: {', '.join(unknown)} not in {folder} (stages: {', '.join(names)})")
    dropped = {d["stage"] for d in meta.get("dropped", [])}  # stages that had no rows: no file, nothing to train
    stages = []
    for name in names:
        if (only and name not in only) or name in dropped:
            continue
        path = folder / "stages" / f"{name}.jsonl"
        if not path.is_file():
            raise InputError(f"--curriculum: {path} is missing; rebuild with `mirforge curriculum`")
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for row in rows:
            for rel in row["images"]:
                if not (dataset / rel).is_file():
                    raise InputError(f"--curriculum: image {rel} of {row['id']} is missing under {dataset}")
        stages.append(StagePlan(name, rows))
    return Curriculum(folder, dataset, schedule, stages)


def baseline_plan(cur: Curriculum, seed: int) -> StagePlan:
    """The same instances as the curriculum (with repeats), question -> full chain, shuffled with ``seed``."""
    from mirforge.curriculum.stages import STEPS, Stage, build_stage
    from mirforge.dataset import Dataset

    by_id = {r["id"]: r for r in Dataset(cur.dataset).records()}
    ids = [row["id"] for stage in cur.stages for row in stage.rows]
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise InputError(f"--baseline: {len(missing)} curriculum ids are not in {cur.dataset} (first: {missing[0]})")
    full = Stage("baseline", "all", 1.0, (), STEPS)
    rows = build_stage([by_id[i] for i in ids], full, cur.schedule)
    random.Random(seed).shuffle(rows)
    return StagePlan("baseline", rows)


def to_trl(row: dict[str, Any], dataset: Path) -> dict[str, Any]:
    from mirforge.curriculum.export import to_trl as convert

    record = convert(row, [str((Path(dataset) / rel).resolve()) for rel in row["images"]])
    return {"id": row["id"], "prompt": record["prompt"], "completion": record["completion"], "images": record["images"]}


def hf_dataset(rows: list[dict[str, Any]]) -> Any:
    """A ``datasets.Dataset`` whose ``images`` column decodes to PIL images, rows in the given order."""
    import datasets

    ds = datasets.Dataset.from_list(rows)
    return ds.cast_column("images", datasets.List(datasets.Image()))


def optimizer_steps(n_rows: int, batch_size: int, grad_accum: int, world: int, epochs: float) -> int:
    """Optimizer steps the HF Trainer takes for ``n_rows`` (what ``--baseline`` matches the curriculum to)."""
    if n_rows == 0:
        return 0
    batches = math.ceil(n_rows / (batch_size * world))
    per_epoch = max(batches // grad_accum + int(batches % grad_accum > 0), 1)
    return math.ceil(epochs * per_epoch)
