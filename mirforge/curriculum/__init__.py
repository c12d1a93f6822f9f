"""Curriculum builder: model backends, answer extraction, difficulty filter, MIR stage schedule and exports.

Heavy libraries (torch, transformers, openai) are imported only inside the backends that need them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mirforge.errors import InputError


def dataset_records(root: Path, tasks: set[str] | None = None) -> list[dict[str, Any]]:
    """Every instance of a dataset folder in manifest order (split, then shard path), optionally for some tasks."""
    from mirforge.runner.store import MANIFEST, read_shard

    root = Path(root)
    if not root.is_dir():
        raise InputError(f"DATASET: {root} is not a folder; give a folder made by `mirforge generate`")
    manifest = root / MANIFEST
    shards: list[Path] = []
    if manifest.is_file():
        data = json.loads(manifest.read_text())
        for split in sorted(data.get("splits", {})):
            shards += [root / p for p in sorted(data["splits"][split]["shards"])]
    else:
        shards = sorted((root / "instances").glob("*/*/shard-*.jsonl"))
    shards = [p for p in shards if p.is_file()]
    if not shards:
        raise InputError(f"DATASET: {root} holds no instances/<task>/<split>/shard-*.jsonl; is it a mirforge dataset?")
    records = [r for p in shards for r in read_shard(p)]
    if tasks:
        unknown = tasks - {r["task"] for r in records}
        if unknown:
            raise InputError(f"--tasks: {', '.join(sorted(unknown))} not in {root}")
        records = [r for r in records if r["task"] in tasks]
    return records
