"""The one reader of a dataset folder, shared by every command that reads one.

Instances come in one order: by split, then task, then shard, then line; for a folder ``mirforge generate`` wrote
that is split, task and index. Shards are read when iterated and images when asked for, so a command that needs a
few instances reads only those. A folder that is missing or holds no instances, and a line that is not an instance
record, are one-line InputErrors; a bad line is named by its file and line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from mirforge.dataset.layout import INSTANCES, MANIFEST, SHARD_FILES, check_split
from mirforge.dataset.manifest import read_manifest
from mirforge.errors import InputError

GENERATE = "give a folder written by `mirforge generate`"


@dataclass(frozen=True, order=True)
class ShardFile:
    """One ``instances/<task>/<split>/shard-NNNNN.jsonl``; instances sort by these fields, in this order."""

    split: str
    task: str
    rel: str  # its path in the dataset folder, with forward slashes

    def where(self, lineno: int) -> str:
        return f"{self.rel}:{lineno}"


@dataclass(frozen=True)
class Entry:
    """One instance as stored: its record, its line (for byte comparisons) and where it is."""

    record: dict[str, Any]
    line: str
    where: str  # instances/<task>/<split>/shard-NNNNN.jsonl:LINE
    task: str
    split: str


class BadLine(ValueError):
    """A shard line that is not an instance record; the message says why."""


def numbered_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of a shard file with their numbers, from 1."""
    for lineno, raw in enumerate(data.splitlines(), 1):
        if raw.strip():
            yield lineno, raw


def parse_line(raw: bytes) -> tuple[str, dict[str, Any]]:
    """A shard line as text and as a record; BadLine if it is not UTF-8 JSON of an object."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        raise BadLine(f"not valid UTF-8 (byte 0x{bad} at column {exc.start + 1})") from None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise BadLine(f"expected a JSON object, got {type(record).__name__}")
    return line, record


class Dataset:
    """A dataset folder, read-only; optionally only some of its tasks (none or empty: all) and one split.

    ``Dataset(root, tasks=["view_3d"], split="test")`` fails at once, naming the option, when the folder holds no
    instances of a task or no such split."""

    def __init__(self, root: Path | str, tasks: Iterable[str] | None = None, split: str | None = None):
        self.root = Path(root)
        if not self.root.is_dir():
            raise InputError(f"{self.root}: no such dataset folder; {GENERATE}")
        shards = sorted(self._shard_files())
        if not shards:
            held = "no instances yet" if (self.root / MANIFEST).is_file() else f"no {MANIFEST} and no instances"
            raise InputError(f"{self.root}: holds {held} ({INSTANCES}/<task>/<split>/shard-*.jsonl); {GENERATE}")
        if split is not None:
            check_split(split)
            splits = sorted({s.split for s in shards})
            if split not in splits:
                raise InputError(f"--split: {self.root} holds no split {split!r}; it holds {', '.join(splits)}")
            shards = [s for s in shards if s.split == split]
        wanted = set(tasks or ())  # none: every task
        if wanted:
            held = ", ".join(sorted({s.task for s in shards}))
            missing = ", ".join(sorted(wanted - {s.task for s in shards}))
            if missing:
                raise InputError(f"--tasks: no instances of {missing} in {self.root}; it holds {held}")
            shards = [s for s in shards if s.task in wanted]
        self.shards: list[ShardFile] = shards

    def _shard_files(self) -> Iterator[ShardFile]:
        for path in (self.root / INSTANCES).glob(SHARD_FILES):
            rel = path.relative_to(self.root)
            yield ShardFile(split=rel.parts[2], task=rel.parts[1], rel=rel.as_posix())

    # -- what it holds ---------------------------------------------------------------------------------------
    @property
    def tasks(self) -> list[str]:
        return sorted({s.task for s in self.shards})

    @property
    def splits(self) -> list[str]:
        return sorted({s.split for s in self.shards})

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``manifest.json``, parsed."""
        path = self.root / MANIFEST
        if not path.is_file():
            raise InputError(f"{self.root}: holds no {MANIFEST}; {GENERATE}")
        return read_manifest(path, f"run `mirforge validate {self.root}`")

    def run_config(self, split: str) -> dict[str, Any]:
        """The config the manifest records for ``split`` (what regenerates its instances)."""
        entry = self.manifest["splits"].get(split)
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise InputError(f"{self.root / MANIFEST}: records no config for split {split!r}; {GENERATE}")
        return entry["config"]

    # -- instances -------------------------------------------------------------------------------------------
    def read(self, shard: ShardFile) -> bytes:
        """A shard file's bytes; OSError if it cannot be read."""
        return (self.root / shard.rel).read_bytes()

    def entries(self, task: str | None = None, split: str | None = None) -> Iterator[Entry]:
        """Every instance in order (optionally of one task or split), read shard by shard as the caller goes."""
        for shard in self.shards:
            if (task is None or shard.task == task) and (split is None or shard.split == split):
                for lineno, raw in numbered_lines(self._data(shard)):
                    yield self._entry(shard, lineno, raw)

    def records(self, task: str | None = None, split: str | None = None) -> list[dict[str, Any]]:
        """Every instance record in order (optionally of one task or split)."""
        return [entry.record for entry in self.entries(task, split)]

    def find(self, instance_id: str) -> Entry:
        """The instance with this id. Only lines that contain the id are parsed, and only the shards of its task
        when the id starts with a task's name (as generated ids do)."""
        needle = instance_id.encode()
        shards = [s for s in self.shards if instance_id.startswith(f"{s.task}-")] or self.shards
        for shard in shards:
            for lineno, raw in numbered_lines(self._data(shard)):
                if needle in raw:
                    entry = self._entry(shard, lineno, raw)
                    if entry.record.get("id") == instance_id:
                        return entry
        raise InputError(f"{instance_id}: no such instance in {self.root}; check the id and --dataset")

    def _data(self, shard: ShardFile) -> bytes:
        try:
            return self.read(shard)
        except OSError as exc:
            raise InputError(f"{self.root / shard.rel}: unreadable ({exc.strerror or exc})") from None

    def _entry(self, shard: ShardFile, lineno: int, raw: bytes) -> Entry:
        where = shard.where(lineno)
        try:
            line, record = parse_line(raw)
        except BadLine as exc:
            raise InputError(f"{where}: {exc}; run `mirforge validate {self.root}` to list every problem") from None
        return Entry(record, line, where, shard.task, shard.split)

    # -- images ----------------------------------------------------------------------------------------------
    def image_path(self, rel: str) -> Path:
        """Where an image a record names is; a path that would leave the folder is an InputError."""
        path = PurePosixPath(rel)
        if path.is_absolute() or ".." in path.parts:
            raise InputError(f"{rel}: an image path must be relative and stay inside {self.root}")
        return self.root / path

    def image(self, rel: str) -> Any:
        """An image a record names, decoded (BGR, as OpenCV reads it) when asked for."""
        import cv2

        image = cv2.imread(str(self.image_path(rel)), cv2.IMREAD_COLOR)
        if image is None:
            raise InputError(f"{self.image_path(rel)}: missing or not a readable image; run `mirforge validate`")
        return image
