"""``--upload URL``: every file of the dataset folder is also put to an fsspec URL (object storage or any path).

Workers put each shard's files as they write them, the jsonl last; the driver puts ``manifest.json`` after every
save and the MIR projection (``mir.json``, or ``mir-<split>.json`` per split) at the end, so the URL holds a
byte-identical copy of ``--out`` (a ``mir.json`` put before a second split arrived stays there). A resume reads the
shards that its ``--out`` lacks (written on other nodes) from there. fsspec and its backends (s3fs, gcsfs, ...)
import only when a run has ``--upload``.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from mirforge.errors import InputError, MirforgeError


@cache
def filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path of its root in it, made once per process."""
    try:
        import fsspec
        from fsspec.registry import known_implementations
        from fsspec.utils import get_protocol
    except ImportError:
        raise InputError("--upload needs fsspec, in the [ray] extra: pip install 'mirforge[ray]'") from None
    protocol = get_protocol(url)
    local = protocol in ("file", "local")
    try:  # a local path needs its folders made; object stores have none
        return fsspec.core.url_to_fs(url, **({"auto_mkdir": True} if local else {}))
    except ValueError:
        raise InputError(
            f"--upload: unknown protocol {protocol!r} in {url}; give an fsspec URL such as s3://bucket/prefix, "
            "gs://bucket/prefix or file:///absolute/path"
        ) from None
    except ImportError:
        package = known_implementations.get(protocol, {}).get("class", protocol).split(".")[0]
        raise InputError(f"--upload: {protocol}:// URLs need the {package} package: pip install {package}") from None


def check_upload(url: str) -> str:
    """Fail before anything is written if ``url`` cannot take a dataset. Returns the URL to hand to workers: a
    local path made absolute, since workers may run in another folder."""
    fs, probe = located(url, f".mirforge-probe-{os.getpid()}")
    try:
        fs.pipe_file(probe, b"")
        fs.rm_file(probe)
    except Exception as exc:  # each backend has its own errors (credentials, missing bucket, permissions)
        raise InputError(f"--upload: cannot write to {url} ({exc}); check the URL and your access") from None
    from fsspec.implementations.local import LocalFileSystem

    return fs.unstrip_protocol(filesystem(url)[1]) if isinstance(fs, LocalFileSystem) else url


def located(url: str, rel: str) -> tuple[Any, str]:
    """The filesystem of ``url`` and the path of ``url/rel`` in it."""
    fs, root = filesystem(url)
    return fs, f"{root.rstrip('/')}/{rel}"


def put(url: str, rel: str, data: bytes) -> None:
    """Put ``data`` at ``url/rel`` (object stores make each put atomic)."""
    fs, path = located(url, rel)
    try:
        fs.pipe_file(path, data)
    except Exception as exc:
        raise MirforgeError(f"--upload: cannot put {url}/{rel} ({exc}); rerun the same command to resume") from None


def fetch(url: str, rel: str) -> bytes:
    """The bytes at ``url/rel``; FileNotFoundError if there are none."""
    fs, path = located(url, rel)
    try:
        return fs.cat_file(path)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise MirforgeError(f"--upload: cannot read {url}/{rel} ({exc})") from None
