"""The names of a dataset folder, in one place for the writer and the reader.

A dataset folder holds ``manifest.json``, ``instances/<task>/<split>/shard-NNNNN.jsonl``,
``images/<task>/<split>/NNNNNN-K.png`` and the MIR projection: ``mir.json`` for one split, ``mir-<split>.json``
for each of several. A file under a temporary name (``TMP_MARK`` in it) is one a writer had not finished.
"""

from __future__ import annotations

import re

from mirforge.errors import InputError

MANIFEST = "manifest.json"
MIR = "mir.json"
INSTANCES = "instances"
SHARD_FILES = "*/*/shard-*.jsonl"  # under INSTANCES: <task>/<split>/shard-NNNNN.jsonl
TMP_MARK = ".tmp-"
LOCK = ".mirforge.lock"  # held by the generate writing into the folder (see dataset.lock)


def mir_split_file(split: str) -> str:
    """The MIR projection of one split of a folder that holds several."""
    return f"mir-{split}.json"


SPLIT_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_split(name: object, flag: str = "--split") -> str:
    """A split name as a folder name: 1-64 letters, digits, ``_`` or ``-`` (no dots, so ``..`` cannot climb out of
    ``instances/<task>/``); anything else is a one-line InputError naming ``flag``."""
    if isinstance(name, str) and SPLIT_NAME.fullmatch(name):
        return name
    shown = repr(name) if len(repr(name)) <= 40 else f"{repr(name)[:37]}..."
    length = f" ({len(name)} characters)" if isinstance(name, str) and len(name) > 64 else ""
    raise InputError(f"{flag}: {shown}{length} is not a split name; use 1-64 letters, digits, '_' or '-', e.g. test")
