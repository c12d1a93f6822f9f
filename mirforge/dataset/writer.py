"""Writing a dataset folder: atomic files, their checksums, and the checks before anything is written.

Every file appears under its final name only when complete (temporary name, then rename), so a kill at any moment
leaves nothing half-written. A shard's files are flushed to the device together, before the manifest (itself
flushed) records their checksums.
"""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from mirforge.dataset.layout import LOCK, MANIFEST, TMP_MARK
from mirforge.errors import InputError, MirforgeError


def atomic_write(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``path`` whole or not at all; a full disk or another OS failure is a one-line MirforgeError.

    ``durable`` flushes the file to the device before it takes its name, so it survives a power cut too. A
    shard's files skip that (an fsync per image cost more than writing it): the worker flushes them all at once
    before the manifest records their checksums."""
    tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise MirforgeError(
                f"{path.parent}: no space left on the device (writing {path.name}); free some space and rerun "
                "the same command to resume"
            ) from None
        raise MirforgeError(f"cannot write {path} ({exc.strerror or exc}); rerun the same command to resume") from None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_hash(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def digest(hashes: Iterable[bytes]) -> str:
    """One digest over several files, from each file's ``file_hash`` in order."""
    h = hashlib.sha256()
    for file_digest in hashes:
        h.update(file_digest)
    return h.hexdigest()


def images_digest(read: Callable[[str], bytes], images: list[str]) -> str | None:
    """The digest of a shard's images as ``read`` finds them, or None if any is missing."""
    try:
        return digest(file_hash(read(rel)) for rel in images)
    except FileNotFoundError:
        return None


def check_writable(out: Path) -> None:
    """Fail before anything is written if ``out`` cannot hold a dataset."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise InputError(f"--out: {probe} exists and is not a folder")
    try:  # os.access is not enough: root passes it on read-only file systems
        fd, name = tempfile.mkstemp(prefix=".mirforge-probe-", dir=probe)
        os.close(fd)
        os.unlink(name)
    except OSError as exc:
        raise InputError(f"--out: {probe} is not writable ({exc.strerror}); choose another folder") from None
    if out.exists() and any(p.name != LOCK for p in out.iterdir()) and not (out / MANIFEST).is_file():
        raise InputError(f"--out: {out} is not empty and holds no {MANIFEST}; choose an empty or new folder")


def remove_temporaries(root: Path, pids: Sequence[int] | None = None) -> int:
    """Remove the files writers left under temporary names below ``root`` (only those of ``pids`` when given)."""
    count = 0
    patterns = [f"*{TMP_MARK}*"] if pids is None else [f"*{TMP_MARK}{pid}" for pid in pids]
    for pattern in patterns:
        for path in root.rglob(pattern):
            path.unlink(missing_ok=True)
            count += 1
    return count
