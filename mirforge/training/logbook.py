"""``training_log.jsonl``: one JSON object per line, flushed as it is written, so a crashed run keeps its history.

Events: ``start`` (config, stages and their sizes), ``stage_start`` (rows, planned steps, weights fingerprint),
``step`` (stage, global and stage step, loss, learning rate, grad norm, the sample ids of the step), ``drop`` (a row
left out and why: its token count against ``--max-length``), ``stage_end`` (steps, mean loss, checkpoint, weights
fingerprint), ``eval`` (per-stage held-out accuracy), ``skip`` (a stage resumed from its checkpoint), ``end``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


class RunLog:
    def __init__(self, path: Path, append: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("a" if append else "w", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> dict[str, Any]:
        line = {"event": event, "time": round(time.time(), 3), **fields}
        self.file.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self.file.flush()
        return line

    def close(self) -> None:
        self.file.close()


def read_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
