"""``mirforge show``: regenerate one instance alone from the manifest's config and compare it byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.dataset import Dataset


def regenerate_and_compare(root: Path, line: str) -> list[str]:
    """What differs between the stored instance ``line`` (record and images) and its regeneration; empty if none."""
    from mirforge.pipeline import generate_one
    from mirforge.runner.config import RunConfig

    dataset = Dataset(root)
    record = json.loads(line)
    config = RunConfig.from_json(dataset.run_config(record["split"]))
    spec = config.spec(root)  # the manifest's renderer with it
    fresh = generate_one(config.task(record["task"]), spec, record["provenance"]["index"])
    differences = []
    if fresh.instance.to_json() != line:
        differences.append("the record differs")
    for rel, data in zip(fresh.instance.images, fresh.images, strict=True):
        if dataset.image_path(rel).read_bytes() != data:
            differences.append(f"{rel} differs")
    return differences
