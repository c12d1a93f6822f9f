"""``manifest.json``: per split the run config, per shard its counts and checksums; the completeness test that
makes resume a filter.

With an upload URL (``--upload``) the manifest is also put there, and shard files missing from the folder are read
from there.
"""

from __future__ import annotations

import hashlib
import json
import platform
import socket
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from mirforge import __version__
from mirforge.dataset.layout import MANIFEST
from mirforge.dataset.upload import fetch, put
from mirforge.dataset.writer import atomic_write, images_digest, sha256
from mirforge.errors import InputError

VERSIONED = (
    "numpy",
    "deflate",  # the PNGs' deflate (libdeflate)
    "trimesh",
    "moderngl",
    "glcontext",
    "pyrender2",
    "PyOpenGL",
    "opencv-python-headless",
    "matplotlib",
    "jinja2",
    "jsonschema",
    "av",  # FFmpeg and libx264 of the filmed clips
)


def package_versions() -> dict[str, str]:
    found = {"python": platform.python_version(), "mirforge": __version__}
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


def read_manifest(path: Path, fix: str) -> dict[str, Any]:
    """The manifest at ``path``; a file that is not one is a one-line InputError ending with ``fix``."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{path}: not a mirforge manifest ({' '.join(str(exc).split())}); {fix}") from None
    problem = manifest_problem(data)
    if problem is not None:
        raise InputError(f"{path}: not a mirforge manifest ({problem}); {fix}")
    return data


def manifest_problem(data: Any) -> str | None:
    """What keeps ``data`` from having a manifest's shape (the fields every reader and writer relies on), or None."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    splits = data.get("splits")
    if not isinstance(splits, dict):
        return f"'splits' is {_kind(splits)}, not an object of splits"
    for name, split in splits.items():
        where = f"splits[{_short(name)}]"
        if not isinstance(split, dict):
            return f"{where} is {_kind(split)}, not an object"
        for key in ("config", "shards"):
            if not isinstance(split.get(key), dict):
                return f"{where}.{key} is {_kind(split.get(key))}, not an object"
        for rel, entry in split["shards"].items():
            if not isinstance(entry, dict):
                return f"{where}.shards[{_short(rel)}] is {_kind(entry)}, not an object"
    return None


def _kind(value: Any) -> str:
    return "null or missing" if value is None else f"a {type(value).__name__}"


def _short(key: str) -> str:
    text = repr(key)
    return text if len(text) <= 40 else text[:37] + "..."


class Manifest:
    """``manifest.json``: per split, the run config, and per shard its counts and checksums.

    ``upload`` is the URL the dataset is also put to (never recorded: it is where the bytes go, not what they are).
    A manifest is saved split by split (see :meth:`save`), so runs of different splits never drop each other's.
    """

    def __init__(self, root: Path, upload: str | None = None):
        self.root = root
        self.upload = upload
        self.path = root / MANIFEST
        self.mine: set[str] = set()  # the splits this run writes; every other split is the file's
        if self.path.is_file():
            self.data = read_manifest(self.path, "use a new --out folder")
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
        self.mine.add(split)
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
        """Write the manifest as a merge with the file as it is now: the entries of the splits this run began are
        this run's, every other split is taken from the file, so a split another run saved meanwhile stays. (The
        folder's lock keeps two runs from writing at once; the merge keeps any writer from dropping a split.)"""
        if self.path.is_file():
            on_disk = read_manifest(self.path, "use a new --out folder")
            for name, split in on_disk["splits"].items():
                if name not in self.mine:
                    self.data["splits"][name] = split
            self.data["created"] = on_disk.get("created", self.data.get("created"))
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
