"""Check a whole dataset folder: every record, every invariant, every file, against the manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mirforge.dataset.layout import MANIFEST, TMP_MARK
from mirforge.dataset.reader import BadLine, Dataset, numbered_lines, parse_line
from mirforge.dataset.writer import sha256
from mirforge.instance import problems


@dataclass
class Report:
    records: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_dataset(root: Path) -> Report:
    dataset = Dataset(root)
    root = dataset.root
    report = Report()
    listed: dict[str, dict] = {}
    manifest_path = root / MANIFEST
    if manifest_path.is_file():
        listed = read_listed(manifest_path, report)
    else:
        report.problems.append(f"{MANIFEST}: missing")
    seen: dict[str, str] = {}
    referenced: set[str] = set()
    for shard in dataset.shards:
        rel = shard.rel
        report.shards += 1
        try:
            data = dataset.read(shard)
        except OSError as exc:
            report.problems.append(f"{rel}: unreadable ({exc.strerror or exc})")
            continue
        entry = listed.pop(rel, None)
        if entry is None:
            report.problems.append(f"{rel}: not listed in {MANIFEST}")
        elif entry.get("sha256") != sha256(data):
            report.problems.append(f"{rel}: checksum differs from {MANIFEST} (edited or truncated)")
        for lineno, raw in numbered_lines(data):
            where = shard.where(lineno)
            try:
                _, record = parse_line(raw)
            except BadLine as exc:
                report.problems.append(f"{where}: {exc}")
                continue
            report.records += 1
            if isinstance(record.get("images"), list):
                referenced.update(i for i in record["images"] if isinstance(i, str))
            rid = record.get("id", "?")
            report.problems += [f"{where} ({rid}) {p}" for p in problems(record, root)]
            if isinstance(rid, str) and rid in seen:
                report.problems.append(f"{where}: id {rid} duplicates the one in {seen[rid]}")
            seen[str(rid)] = where
    for rel in listed:
        report.problems.append(f"{rel}: listed in {MANIFEST} but missing")
    for path in sorted((root / "images").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in referenced and TMP_MARK not in path.name:
            report.problems.append(f"{rel}: not referenced by any instance (an orphan)")
    return report


def read_listed(path: Path, report: Report) -> dict[str, dict]:
    """The shards the manifest lists, path -> entry; what is malformed becomes a problem naming the manifest."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, OSError) as exc:
        report.problems.append(f"{MANIFEST}: unreadable ({exc})")
        return {}
    splits = data.get("splits") if isinstance(data, dict) else None
    if not isinstance(splits, dict):
        report.problems.append(f"{MANIFEST}: expected an object with a 'splits' object")
        return {}
    listed: dict[str, dict] = {}
    for name, split in splits.items():
        shards = split.get("shards") if isinstance(split, dict) else None
        if not isinstance(shards, dict):
            report.problems.append(f"{MANIFEST}: splits.{name}: expected an object with a 'shards' object")
            continue
        for rel, entry in shards.items():
            if isinstance(entry, dict):
                listed[rel] = entry
            else:
                report.problems.append(f"{MANIFEST}: splits.{name}.shards.{rel}: expected an object")
    return listed
