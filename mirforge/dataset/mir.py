"""``mir.json``: the MIR-format projection of a dataset folder, one file per split.

MIR's preprocess ignores ``split``, so splits are never mixed in one file: a folder with one split gets
``mir.json``, a folder with several gets ``mir-<split>.json`` for each (and no ``mir.json``). Each record is
:func:`mirforge.instance.mir_view`: ``conclusion`` is the answer letter, as in MIR's data, and our reasoning
conclusion is ``reasoning``.
"""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.dataset.layout import MIR, mir_split_file
from mirforge.dataset.manifest import Manifest
from mirforge.dataset.upload import put
from mirforge.dataset.writer import atomic_write
from mirforge.instance import mir_view


def mir_files(splits: list[str]) -> dict[str, str]:
    """split -> the file name of its MIR projection."""
    if len(splits) == 1:
        return {splits[0]: MIR}
    return {split: mir_split_file(split) for split in splits}


def write_mir(root: Path, manifest: Manifest) -> int:
    """Write the MIR projection of every complete split, ordered by task and index; return the records written.
    A projection file of an earlier layout (``mir.json`` once a second split arrives) is removed."""
    splits = sorted(manifest.data["splits"])
    files = mir_files(splits)
    total = 0
    for split_name, name in files.items():
        records = []
        for shard_path in manifest.data["splits"][split_name]["shards"]:
            lines = manifest.read(shard_path).splitlines()
            records += [mir_view(json.loads(line)) for line in lines if line.strip()]
        data = (json.dumps(records, ensure_ascii=False, indent=1) + "\n").encode()
        atomic_write(root / name, data)
        if manifest.upload is not None:
            put(manifest.upload, name, data)
        total += len(records)
    for stale in [root / MIR, *root.glob(mir_split_file("*"))]:
        if stale.name not in files.values() and stale.is_file():
            stale.unlink()
    return total
