"""``generate --dry-run``: the plan of a run, without writing anything."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mirforge.dataset.layout import MANIFEST
from mirforge.errors import Reject
from mirforge.instance import IMAGE_SLOT
from mirforge.pipeline import attempts, pose
from mirforge.runner.config import RunConfig
from mirforge.runner.plan import plan
from mirforge.runner.run import open_manifest


@dataclass
class PlannedTask:
    task: str
    category: str
    instances: int
    shards: int
    complete_shards: int
    images_per_instance: float  # estimated from questions sampled without rendering

    @property
    def images(self) -> int:
        return round(self.instances * self.images_per_instance)


def dry_run(
    config: RunConfig, out: Path | None, sample: int = 6, upload: str | None = None, force_templates: bool = False
) -> list[PlannedTask]:
    """What ``generate`` would do, without writing anything. Images are estimated by asking (not rendering)
    up to ``sample`` questions per task: the number of ``<image>`` slots is the number of images. Shards missing
    from ``out`` count as complete when ``upload`` holds them."""
    config.validate()
    manifest = None
    if out is not None and (Path(out) / MANIFEST).is_file():
        manifest = open_manifest(config, Path(out), upload, force_templates)  # raises on another config or templates
    shards = plan(config)
    planned = []
    for name in config.tasks:
        task = config.task(name)
        counts = []
        for index in range(min(sample, config.count(name))):
            for attempt in attempts(task, config.seed, config.split, index):
                try:
                    _, question = pose(task, attempt)
                except Reject:
                    continue
                counts.append(question.text.count(IMAGE_SLOT))
                break
        mine = [s for s in shards if s.task == name]
        done = sum(1 for s in mine if manifest is not None and manifest.is_complete(config.split, s.path))
        planned.append(
            PlannedTask(
                task=name,
                category=task.category,
                instances=config.count(name),
                shards=len(mine),
                complete_shards=done,
                images_per_instance=sum(counts) / len(counts) if counts else 0.0,
            )
        )
    return planned


def format_plan(config: RunConfig, planned: list[PlannedTask], out: Path | None) -> str:
    lines = [
        f"plan of split {config.split!r}, seed {config.seed}, shard size {config.shard_size}"
        + (f", into {out}" if out else ""),
        f"{'task':24} {'category':11} {'instances':>9} {'shards':>6} {'complete':>8} {'images/inst':>11} "
        f"{'~images':>8}",
    ]
    for p in planned:
        lines.append(
            f"{p.task:24} {p.category:11} {p.instances:9d} {p.shards:6d} {p.complete_shards:8d} "
            f"{p.images_per_instance:11.2f} {p.images:8d}"
        )
    total_i = sum(p.instances for p in planned)
    total_img = sum(p.images for p in planned)
    lines.append(
        f"{'total':24} {'':11} {total_i:9d} {sum(p.shards for p in planned):6d} "
        f"{sum(p.complete_shards for p in planned):8d} {total_img / max(total_i, 1):11.2f} {total_img:8d}"
    )
    lines.append("dry run: nothing was written (images estimated from sampled questions, not rendered)")
    return "\n".join(lines)
