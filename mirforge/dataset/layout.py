"""The names of a dataset folder, in one place for the writer and the reader.

A dataset folder holds ``manifest.json``, ``instances/<task>/<split>/shard-NNNNN.jsonl``,
``images/<task>/<split>/NNNNNN-K.png`` and the MIR projection: ``mir.json`` for one split, ``mir-<split>.json``
for each of several. A file under a temporary name (``TMP_MARK`` in it) is one a writer had not finished.
"""

from __future__ import annotations

MANIFEST = "manifest.json"
MIR = "mir.json"
INSTANCES = "instances"
SHARD_FILES = "*/*/shard-*.jsonl"  # under INSTANCES: <task>/<split>/shard-NNNNN.jsonl
TMP_MARK = ".tmp-"
LOCK = ".mirforge.lock"  # held by the generate writing into the folder (see dataset.lock)


def mir_split_file(split: str) -> str:
    """The MIR projection of one split of a folder that holds several."""
    return f"mir-{split}.json"
