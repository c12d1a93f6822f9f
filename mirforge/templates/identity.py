"""The step templates a run uses, by content: part of the identity a resumed split must keep.

A split is resumed shard by shard, so a template edited between two runs of it would mix old and new step text in
one split. The manifest therefore records the sha256 of every template file the run's tasks read (each task's
own ``templates/`` folder and, with ``--templates DIR``, the task's folder there) and a rerun compares them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

from mirforge.task import Task

OVERRIDE = "--templates"


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def template_hashes(tasks: Iterable[Task], override_dir: Path | str | None = None) -> dict[str, str]:
    """``{"<task>/<file>": sha256}`` for each task's own template files, and ``{"--templates/<task>/<file>":
    sha256}`` for the override files of ``override_dir`` (its path is part of the run config already)."""
    hashes: dict[str, str] = {}
    for task in tasks:
        folders = [(task.template_dir(), task.name)]
        if override_dir is not None:
            folders.append((Path(override_dir) / task.name, f"{OVERRIDE}/{task.name}"))
        for folder, prefix in folders:
            for path in _files(folder):
                name = f"{prefix}/{path.relative_to(folder).as_posix()}"
                hashes[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(hashes.items()))


def digest(hashes: Mapping[str, str]) -> str:
    """One short digest of a set of template hashes, for the shards written with them."""
    blob = "\n".join(f"{name} {sha}" for name, sha in sorted(hashes.items()))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def changed(recorded: Mapping[str, str], current: Mapping[str, str]) -> list[str]:
    """The template files that differ between two hash sets: edited, added or removed."""
    return sorted(name for name in set(recorded) | set(current) if recorded.get(name) != current.get(name))
