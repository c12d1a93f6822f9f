"""A disk cache of built assets (catalogue meshes, floor textures), shared by every process on a machine.

Each worker process used to build every object model and floor texture it met (seconds per process, paid again by
every worker of every run). An asset is a dict of numpy arrays, stored as one ``.npz`` file under
``$MIRFORGE_CACHE`` (default ``$XDG_CACHE_HOME/mirforge``, else ``~/.cache/mirforge``; ``off`` disables it), in a
folder named by a digest of the code that builds assets and of the numpy and trimesh versions, so an edit to the
builders or an upgrade never reads a stale file.

The cache changes no byte of what is generated: callers build their objects from the arrays in both cases (freshly
built or read back), and ``np.save`` round-trips arrays exactly. Writes go to a temporary file renamed into place,
so concurrent workers never read half a file; an unreadable file is rebuilt and replaced; an unwritable folder only
costs the time (one warning per process).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import zipfile
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

Arrays = dict[str, np.ndarray]
# the code whose output is cached: any edit here starts a fresh cache folder
SOURCES = ("render", "seeding.py")


def cache_root() -> Path | None:
    """Where assets are kept; None when ``MIRFORGE_CACHE=off``."""
    value = os.environ.get("MIRFORGE_CACHE", "")
    if value == "off":
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mirforge"


@cache
def code_digest() -> str:
    """Digest of the asset builders' source and of the libraries that shape their numbers."""
    package = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"numpy {np.__version__} trimesh {version('trimesh')}".encode())
    for source in SOURCES:
        path = package / source
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(file.relative_to(package).as_posix().encode())
            h.update(file.read_bytes())
    return h.hexdigest()[:16]


def cached(namespace: str, key: str, build: Callable[[], Arrays]) -> Arrays:
    """The arrays ``build()`` returns for ``key``, read from the cache when an earlier process stored them."""
    root = cache_root()
    if root is None:
        return build()
    path = root / f"assets-{code_digest()}" / namespace / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".npz")
    if path.exists():
        try:
            with np.load(path, allow_pickle=False) as stored:
                return {name: stored[name] for name in stored.files}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            log.debug("rebuilding unreadable cache file %s", path)
    arrays = build()
    _store(path, arrays)
    return arrays


def _store(path: Path, arrays: Arrays) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        log.debug("could not write %s: %s", path, exc)
        _warn_unwritable(str(path.parents[2]))


@cache
def _warn_unwritable(root: str) -> None:
    log.warning("asset cache %s is not writable: assets are rebuilt in every process (MIRFORGE_CACHE sets it)", root)
