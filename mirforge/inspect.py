"""Find one instance in a dataset and regenerate it alone from the manifest's config."""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.errors import InputError
from mirforge.runner.store import MANIFEST


def find_instance(root: Path, instance_id: str) -> str:
    task, _, rest = instance_id.rpartition("-")[0].partition("-")
    folder = Path(root) / "instances" / task
    needle = f'"id":"{instance_id}"'
    for path in sorted(folder.glob("*/shard-*.jsonl")):
        for line in path.read_text().splitlines():
            if line.startswith("{" + needle):
                return line
    raise InputError(f"{instance_id}: not found under {folder}")


def regenerate_and_compare(root: Path, line: str) -> list[str]:
    from mirforge.pipeline import generate_one
    from mirforge.runner.plan import RunConfig
    from mirforge.runner.worker import frozen, task_for, task_settings, use_renderer

    record = json.loads(line)
    manifest = json.loads((Path(root) / MANIFEST).read_text())
    config = RunConfig.from_json(manifest["splits"][record["split"]]["config"])
    use_renderer(config)
    task = task_for(record["task"], frozen(task_settings(config, record["task"])))
    spec = config.spec(root)
    fresh = generate_one(task, spec, record["provenance"]["index"])
    differences = []
    if fresh.instance.to_json() != line:
        differences.append("the record differs")
    for rel, data in zip(fresh.instance.images, fresh.images, strict=True):
        if (Path(root) / rel).read_bytes() != data:
            differences.append(f"{rel} differs")
    return differences
