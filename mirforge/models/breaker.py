"""A run-wide circuit breaker for an LLM endpoint, kept in the response cache's SQLite file.

Every worker process of a run opens the same cache file, so they share one count of consecutive failed calls (a
connection error, a timeout, or a status the openai client retries, each after its retries) and the time the
failing streak began. A success resets both. The breaker opens after ``failures`` consecutive failures, or once the
streak has lasted ``seconds``, whichever comes first; from then on :meth:`CircuitBreaker.reason` says why, callers
stop calling, and the process that opened it is told so (to say it once). A hanging endpoint therefore costs a
run at most ``seconds`` plus one call in flight per worker, whatever the number of instances.

The driver resets the breaker when a run starts (:func:`reset_breaker`), so a later run tries the endpoint again.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from mirforge.models.cache import BUSY_TIMEOUT_S, ResponseCache

TABLE = """
CREATE TABLE IF NOT EXISTS breakers (name TEXT PRIMARY KEY, failures INTEGER NOT NULL, since REAL NOT NULL,
                                     opened TEXT)
"""


class CircuitBreaker:
    """Consecutive call failures of one endpoint, shared through ``cache``'s file; ``name`` keeps breakers apart."""

    def __init__(self, cache: ResponseCache, *, failures: int = 5, seconds: float = 50.0, name: str = "llm") -> None:
        if failures < 1 or not seconds > 0:
            raise ValueError(f"CircuitBreaker: failures must be >= 1 and seconds > 0, got {failures}, {seconds}")
        self.cache = cache
        self.failures = failures
        self.seconds = seconds
        self.name = name
        with cache.lock:
            cache.db.execute(TABLE)

    def reason(self) -> str | None:
        """Why the breaker is open, or None while calls may be made."""
        with self.cache.lock:
            row = self.cache.db.execute("SELECT opened FROM breakers WHERE name = ?", (self.name,)).fetchone()
        return None if row is None else row[0]

    def succeeded(self) -> None:
        with self.cache.lock:
            self.cache.db.execute("DELETE FROM breakers WHERE name = ? AND opened IS NULL", (self.name,))

    def failed(self, started: float, why: str) -> str | None:
        """Count a failed call that began at ``started`` (``time.time()``); the reason when this failure opened the
        breaker (only one caller of a run gets it), else None."""
        db = self.cache.db
        with self.cache.lock:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT failures, since, opened FROM breakers WHERE name = ?", (self.name,)).fetchone()
                if row is not None and row[2] is not None:
                    db.execute("COMMIT")
                    return None
                failures, since = (1, started) if row is None else (row[0] + 1, min(row[1], started))
                lasted = time.time() - since
                opened = None
                if failures >= self.failures or lasted >= self.seconds:
                    opened = f"circuit open after {failures} consecutive failed calls in {lasted:.0f} s (last: {why})"
                db.execute(
                    "INSERT INTO breakers (name, failures, since, opened) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(name) DO UPDATE SET failures = excluded.failures, since = excluded.since, "
                    "opened = excluded.opened",
                    (self.name, failures, since, opened),
                )
                db.execute("COMMIT")
                return opened
            except BaseException:
                db.execute("ROLLBACK")
                raise


def reset_breaker(path: Path | str, name: str = "llm") -> None:
    """Close the breaker ``name`` in the cache file at ``path`` (a new run tries the endpoint again)."""
    if not Path(path).is_file():
        return
    db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        db.execute(TABLE)
        db.execute("DELETE FROM breakers WHERE name = ?", (name,))
    finally:
        db.close()
