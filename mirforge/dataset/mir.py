"""``mir.json``: the MIR-format projection of a dataset folder."""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.dataset.layout import MIR
from mirforge.dataset.manifest import Manifest
from mirforge.dataset.upload import put
from mirforge.dataset.writer import atomic_write
from mirforge.instance import mir_view


def write_mir(root: Path, manifest: Manifest) -> int:
    """``mir.json``: the MIR-format projection of every complete split, ordered by split, task and index."""
    records = []
    for split_name in sorted(manifest.data["splits"]):
        for shard_path in manifest.data["splits"][split_name]["shards"]:
            lines = manifest.read(shard_path).splitlines()
            records += [mir_view(json.loads(line)) for line in lines if line.strip()]
    data = (json.dumps(records, ensure_ascii=False, indent=1) + "\n").encode()
    atomic_write(root / MIR, data)
    if manifest.upload is not None:
        put(manifest.upload, MIR, data)
    return len(records)
