"""The rewriter's on-disk memory: cached LLM responses and the run's call budget, in one SQLite file.

Several worker processes open the same file at once, so it runs in WAL mode with a busy timeout, every write
is a short transaction, and the budget is claimed with ``BEGIN IMMEDIATE`` (one writer at a time decides).
Only the raw response text is stored, never a checked or parsed result: changing the faithfulness checker
re-judges old responses without calling the model again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

BUSY_TIMEOUT_S = 60.0
CALLS = "calls"  # the counter the budget is charged against

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, content TEXT NOT NULL,
                                      created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


def cache_key(model: str, messages: list[dict[str, str]], params: dict[str, Any], seed: int) -> str:
    """sha256 of everything that decides a response (the checker is deliberately not part of it)."""
    payload = {"model": model, "messages": messages, "params": params, "seed": int(seed)}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class LLMCache:
    """Responses keyed by :func:`cache_key`, plus named counters; safe to share between processes."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: transactions are explicit, so none is left open between calls
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)

    def get(self, key: str) -> str | None:
        row = self.db.execute("SELECT content FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, key: str, model: str, content: str) -> None:
        # first writer wins: two workers racing on one key keep the same, first, response
        self.db.execute(
            "INSERT OR IGNORE INTO responses (key, model, content, created) VALUES (?, ?, ?, ?)",
            (key, model, content, time.time()),
        )

    def count(self, name: str = CALLS) -> int:
        row = self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def claim(self, limit: int | None, name: str = CALLS) -> bool:
        """Charge one call to the counter ``name``; False (and nothing charged) once ``limit`` calls were made."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            used = self.count(name)
            if limit is not None and used >= limit:
                self.db.execute("ROLLBACK")
                return False
            self.db.execute(
                "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1",
                (name,),
            )
            self.db.execute("COMMIT")
            return True
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def __len__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self.db.close()
