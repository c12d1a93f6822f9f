"""Check a whole dataset folder: every record, every invariant, every file, against the manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mirforge.errors import InputError
from mirforge.instance import problems
from mirforge.runner.store import MANIFEST, sha256


@dataclass
class Report:
    records: int = 0
    shards: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate_dataset(root: Path) -> Report:
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such dataset folder")
    report = Report()
    listed: dict[str, dict] = {}
    manifest_path = root / MANIFEST
    if manifest_path.is_file():
        try:
            for split in json.loads(manifest_path.read_text())["splits"].values():
                listed.update(split["shards"])
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            report.problems.append(f"{MANIFEST}: unreadable ({exc})")
    else:
        report.problems.append(f"{MANIFEST}: missing")
    shard_files = sorted((root / "instances").glob("*/*/shard-*.jsonl"))
    if not shard_files:
        raise InputError(f"{root}: no instances/<task>/<split>/shard-*.jsonl files; is this a mirforge dataset?")
    seen: dict[str, str] = {}
    for path in shard_files:
        rel = path.relative_to(root).as_posix()
        report.shards += 1
        data = path.read_bytes()
        entry = listed.pop(rel, None)
        if entry is None:
            report.problems.append(f"{rel}: not listed in {MANIFEST}")
        elif entry.get("sha256") != sha256(data):
            report.problems.append(f"{rel}: checksum differs from {MANIFEST} (edited or truncated)")
        for lineno, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{rel}:{lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                report.problems.append(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            if not isinstance(record, dict):
                report.problems.append(f"{where}: expected a JSON object, got {type(record).__name__}")
                continue
            report.records += 1
            rid = record.get("id", "?")
            report.problems += [f"{where} ({rid}) {p}" for p in problems(record, root)]
            if isinstance(rid, str) and rid in seen:
                report.problems.append(f"{where}: id {rid} duplicates the one in {seen[rid]}")
            seen[str(rid)] = where
    for rel in listed:
        report.problems.append(f"{rel}: listed in {MANIFEST} but missing")
    return report
