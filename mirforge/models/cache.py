"""The one on-disk cache of LLM responses, with named counters (a run's call budget), in one SQLite file.

Worker processes and threads share a file: it runs in WAL mode with a busy timeout, every write is a short
transaction, and a budget is claimed with ``BEGIN IMMEDIATE`` (one writer at a time decides). The first response
stored under a key stays (two workers racing on a key keep the same one). Only raw response text is stored, never
a parsed or checked result, so changing a checker re-judges old responses without calling the model again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

BUSY_TIMEOUT_S = 60.0
CALLS = "calls"  # the counter a call budget is charged against
MEMORY = ":memory:"

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, content TEXT NOT NULL,
                                      created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


def cache_key(model: str, messages: Any, params: dict[str, Any], seed: int) -> str:
    """sha256 of what decides a response: the model, the messages (or a digest of them), parameters and seed."""
    payload = {"model": model, "messages": messages, "params": params, "seed": int(seed)}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    """Responses keyed by :func:`cache_key`, plus named counters; ``":memory:"`` keeps them for this process only."""

    def __init__(self, path: Path | str = MEMORY) -> None:
        self.path = Path(path)
        if str(path) != MEMORY:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()  # one connection shared by a backend's request threads
        # autocommit mode: transactions are explicit, so none is left open between calls
        self.db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        self._setup()

    def _setup(self) -> None:
        # Switching a new file to WAL can answer "database is locked" at once, without waiting on busy_timeout,
        # while another process makes the same switch; it is retried until the timeout.
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
                self.db.executescript(SCHEMA)
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT content FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, key: str, model: str, content: str) -> None:
        with self.lock:
            self.db.execute(
                "INSERT OR IGNORE INTO responses (key, model, content, created) VALUES (?, ?, ?, ?)",
                (key, model, content, time.time()),
            )

    def count(self, name: str = CALLS) -> int:
        with self.lock:
            return self._count(name)

    def _count(self, name: str) -> int:
        row = self.db.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
        return 0 if row is None else int(row[0])

    def claim(self, limit: int | None, name: str = CALLS) -> bool:
        """Charge one call to the counter ``name``; False (and nothing charged) once ``limit`` calls were made."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                if limit is not None and self._count(name) >= limit:
                    self.db.execute("ROLLBACK")
                    return False
                self.db.execute(
                    "INSERT INTO counters (name, value) VALUES (?, 1) "
                    "ON CONFLICT(name) DO UPDATE SET value = value + 1",
                    (name,),
                )
                self.db.execute("COMMIT")
                return True
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def __len__(self) -> int:
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self.lock:
            self.db.close()
