"""The advisory lock on a dataset folder: one ``generate`` at a time writes into it.

The lock is ``flock`` on :data:`~mirforge.dataset.layout.LOCK` in the folder, held for the whole run. The kernel
drops it when the holder ends, however it ends (a file left behind by a killed run is simply taken over), and it
works across the nodes of an NFS mount on Linux. The file names its holder, so a refused run can say who.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mirforge.dataset.layout import LOCK
from mirforge.errors import InputError, MirforgeError


@contextmanager
def folder_lock(root: Path) -> Iterator[None]:
    """Hold the lock of the dataset folder ``root`` for the block, creating the folder if needed; another holder is
    an InputError naming its pid. On release the lock file goes, and so does a folder this call created when the
    block left it empty (a run refused on bad input leaves the file system as it was)."""
    created = make_folders(root)
    try:
        fd = acquire(root / LOCK)
        try:
            yield
        finally:
            if fd is not None:
                (root / LOCK).unlink(missing_ok=True)  # while still locked: a run that opened it finds it gone
                os.close(fd)
    finally:
        for folder in created:
            try:
                folder.rmdir()
            except OSError:  # not empty: the run wrote something
                break


def make_folders(root: Path) -> list[Path]:
    """Create ``root`` and its missing parents; the ones created, deepest first."""
    missing = []
    probe = root
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    root.mkdir(parents=True, exist_ok=True)
    return missing


def acquire(path: Path) -> int | None:
    """The descriptor holding the lock at ``path``; None where the file system has no locks (said once)."""
    for _ in range(50):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = read_holder(fd)
            os.close(fd)
            raise InputError(
                f"--out: {path.parent} is in use by another mirforge generate ({holder}); wait for it to finish, "
                "or use another --out folder"
            ) from None
        except OSError as exc:  # ENOLCK, EOPNOTSUPP: a file system without locks
            os.close(fd)
            print(
                f"warning: --out: cannot lock {path.parent} ({exc.strerror}); run one generate at a time",
                file=sys.stderr,
            )
            return None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:  # else the holder removed the file between our open and our lock: try the new one
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
            return fd
        os.close(fd)
    raise MirforgeError(f"--out: could not lock {path.parent}: its lock file keeps changing")


def read_holder(fd: int) -> str:
    """Who holds the lock, as its file says; a holder that has just taken it may not have written yet."""
    for _ in range(20):
        text = os.pread(fd, 200, 0).decode(errors="replace").strip()
        if text:
            return " ".join(text.split())
        time.sleep(0.05)
    return "pid unknown"
