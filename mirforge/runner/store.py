"""Files of a dataset folder: atomic writes, the manifest, and the completeness test that makes resume a filter.

A dataset folder holds ``manifest.json``, ``instances/<task>/<split>/shard-NNNNN.jsonl``,
``images/<task>/<split>/NNNNNN-K.png`` and ``mir.json``. Every file appears under its final name only when
complete (temporary name, then rename), so a kill at any moment leaves nothing half-written. A shard's files are
flushed to the device together, before the manifest (itself flushed) records their checksums. With an upload URL
(``--upload``) every file is also put there, and files missing from the folder are read from there.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import platform
import socket
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from mirforge import __version__
from mirforge.errors import InputError, MirforgeError
from mirforge.instance import mir_view
from mirforge.runner.upload import fetch, put

MANIFEST = "manifest.json"
TMP_MARK = ".tmp-"
VERSIONED = (
    "numpy",
    "trimesh",
    "pyrender2",
    "PyOpenGL",
    "opencv-python-headless",
    "matplotlib",
    "jinja2",
    "jsonschema",
    "moviepy",
    "imageio-ffmpeg",
)


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


def package_versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "mirforge": __version__, "zlib": zlib.ZLIB_RUNTIME_VERSION}
    for name in VERSIONED:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def source_digest() -> str:
    """A digest of mirforge's own code, templates and schemas: two runs that differ here may differ in bytes."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".j2", ".json") and "__pycache__" not in path.parts:
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


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
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise InputError(f"--out: {out} is not empty and holds no {MANIFEST}; choose an empty or new folder")


class Manifest:
    """``manifest.json``: per split, the run config, and per shard its counts and checksums.

    ``upload`` is the URL the dataset is also put to (never recorded: it is where the bytes go, not what they are).
    """

    def __init__(self, root: Path, upload: str | None = None):
        self.root = root
        self.upload = upload
        self.path = root / MANIFEST
        if self.path.is_file():
            try:
                self.data = json.loads(self.path.read_text())
                self.data["splits"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"{self.path}: not a mirforge manifest ({exc}); use a new --out folder") from None
        else:
            self.data = {"format": 1, "splits": {}}

    def split(self, name: str) -> dict[str, Any] | None:
        return self.data["splits"].get(name)

    def begin(self, config: dict[str, Any]) -> None:
        """Record the run of one split; refuse to mix a different config into an existing split."""
        split = config["split"]
        existing = self.split(split)
        if existing is not None and existing["config"] != config:
            changed = sorted(k for k in config if existing["config"].get(k) != config[k])
            raise InputError(
                f"--out: split {split!r} in {self.root} was generated with a different config "
                f"({', '.join(changed)} differ); use a new --out folder or another --split"
            )
        if existing is None:
            self.data["splits"][split] = {"config": config, "shards": {}, "complete": False}
        self.data["mirforge"] = __version__
        self.data["source_sha256"] = source_digest()
        self.data["versions"] = package_versions()
        self.data["host"] = socket.gethostname()
        self.data.setdefault("created", _now())

    def is_complete(self, split: str, shard_path: str) -> bool:
        entry = self.data["splits"][split]["shards"].get(shard_path)
        if entry is None:
            return False
        try:
            data = self.read(shard_path)
        except FileNotFoundError:
            return False
        if sha256(data) != entry["sha256"]:
            return False
        images = [img for line in data.splitlines() for img in json.loads(line)["images"]]
        return images_digest(self.read, images) == entry["images_sha256"]

    def read(self, rel: str) -> bytes:
        """A file of the dataset: from the folder, else from the upload URL (a shard written on another node of a
        cluster without shared storage). FileNotFoundError if neither has it."""
        try:
            return (self.root / rel).read_bytes()
        except FileNotFoundError:
            if self.upload is None:
                raise
            return fetch(self.upload, rel)

    def record(self, split: str, shard_path: str, entry: dict[str, Any]) -> None:
        self.data["splits"][split]["shards"][shard_path] = entry

    def finish(self, split: str) -> None:
        self.data["splits"][split]["complete"] = True

    def save(self) -> None:
        self.data["updated"] = _now()
        shards = self.data["splits"]
        for split in shards.values():
            split["shards"] = dict(sorted(split["shards"].items()))
        data = (json.dumps(self.data, indent=1, sort_keys=True) + "\n").encode()
        atomic_write(self.path, data)
        if self.upload is not None:
            put(self.upload, MANIFEST, data)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def read_shard(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def write_mir(root: Path, manifest: Manifest) -> int:
    """``mir.json``: the MIR-format projection of every complete split, ordered by split, task and index."""
    records = []
    for split_name in sorted(manifest.data["splits"]):
        for shard_path in manifest.data["splits"][split_name]["shards"]:
            lines = manifest.read(shard_path).splitlines()
            records += [mir_view(json.loads(line)) for line in lines if line.strip()]
    data = (json.dumps(records, ensure_ascii=False, indent=1) + "\n").encode()
    atomic_write(root / "mir.json", data)
    if manifest.upload is not None:
        put(manifest.upload, "mir.json", data)
    return len(records)


def remove_temporaries(root: Path) -> int:
    count = 0
    for path in root.rglob(f"*{TMP_MARK}*"):
        path.unlink(missing_ok=True)
        count += 1
    return count
