"""Check a whole dataset folder: every record, every invariant, every file, against the manifest.

Every image a record names is read once: its bytes go into the shard's image digest (compared with the manifest's
``images_sha256``), a PNG's chunks are checked against their CRCs (a flipped byte that still decodes is caught
there), it is decoded in full, its size compared with its task's (what the manifest records, else the installed
task's ``image_size``), and every region of the record must lie inside its image.
"""

from __future__ import annotations

import io
import json
import struct
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from mirforge.dataset.layout import MANIFEST, TMP_MARK
from mirforge.dataset.reader import BadLine, Dataset, ShardFile, numbered_lines, parse_line
from mirforge.dataset.writer import digest, file_hash, sha256
from mirforge.errors import InputError
from mirforge.instance import problems

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass
class Report:
    records: int = 0
    shards: int = 0
    images: int = 0  # decoded
    seconds: float = 0.0  # the whole check
    image_seconds: float = 0.0  # reading, hashing, checking and decoding the images
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def seconds_per_1000_images(self) -> float:
        return 1000 * self.image_seconds / self.images if self.images else 0.0


def validate_dataset(root: Path) -> Report:
    t0 = time.perf_counter()
    dataset = Dataset(root)
    root = dataset.root
    report = Report()
    listed: dict[str, dict] = {}
    sizes: dict[str, dict[str, Any]] = {}  # split -> task -> pixels
    manifest_path = root / MANIFEST
    if manifest_path.is_file():
        listed, sizes = read_listed(manifest_path, report)
    else:
        report.problems.append(f"{MANIFEST}: missing")
    expected = ImageSizes(sizes, report)
    seen: dict[str, str] = {}
    referenced: set[str] = set()
    for shard in dataset.shards:
        rel = shard.rel
        report.shards += 1
        try:
            data = dataset.read(shard)
        except OSError as exc:
            report.problems.append(f"{rel}: unreadable ({exc.strerror or exc})")
            continue
        entry = listed.pop(rel, None)
        if entry is None:
            report.problems.append(f"{rel}: not listed in {MANIFEST}")
        elif entry.get("sha256") != sha256(data):
            report.problems.append(f"{rel}: checksum differs from {MANIFEST} (edited or truncated)")
        hashes: list[bytes] | None = []  # of the shard's images in order; None once one cannot be read
        for lineno, raw in numbered_lines(data):
            where = shard.where(lineno)
            try:
                _, record = parse_line(raw)
            except BadLine as exc:
                report.problems.append(f"{where}: {exc}")
                hashes = None
                continue
            report.records += 1
            if isinstance(record.get("images"), list):
                referenced.update(i for i in record["images"] if isinstance(i, str))
            rid = record.get("id", "?")
            found = problems(record)
            report.problems += [f"{where} ({rid}) {p}" for p in found]
            if isinstance(rid, str) and rid in seen:
                report.problems.append(f"{where}: id {rid} duplicates the one in {seen[rid]}")
            seen[str(rid)] = where
            size = expected.of(shard.split, shard.task)
            record_hashes = check_images(dataset, shard, where, record, size, report)
            hashes = None if found or hashes is None or record_hashes is None else hashes + record_hashes
        if entry is not None and hashes is not None and entry.get("images_sha256") != digest(hashes):
            report.problems.append(
                f"{rel}: its images differ from {MANIFEST}'s images_sha256 (an image was replaced or edited)"
            )
    for rel in listed:
        report.problems.append(f"{rel}: listed in {MANIFEST} but missing")
    for path in sorted((root / "images").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in referenced and TMP_MARK not in path.name:
            report.problems.append(f"{rel}: not referenced by any instance (an orphan)")
    report.seconds = time.perf_counter() - t0
    return report


def check_images(
    dataset: Dataset, shard: ShardFile, where: str, record: dict[str, Any], size: int | None, report: Report
) -> list[bytes] | None:
    """Read, check and decode a record's images, then check its regions against their sizes; the images' hashes
    in order, or None when one could not be read. A record that breaks the schema is checked as far as its fields
    have the right types (the schema's own problems are reported by ``problems``)."""
    t0 = time.perf_counter()
    rid = record.get("id", "?")
    hashes: list[bytes] | None = []
    measured: list[tuple[int, int] | None] = []
    images = record.get("images")
    for rel in images if isinstance(images, list) else []:
        if not isinstance(rel, str):
            hashes = None
            measured.append(None)
            continue
        try:
            data = dataset.image_path(rel).read_bytes()
        except InputError as exc:
            report.problems.append(f"{where}: {exc}")
            hashes, data = None, None
        except FileNotFoundError:
            report.problems.append(f"{where} ({rid}) images: file {rel} does not exist")
            hashes, data = None, None
        except OSError as exc:
            report.problems.append(f"{rel}: unreadable ({exc.strerror or exc}) (named by {where})")
            hashes, data = None, None
        if data is None:
            measured.append(None)
            continue
        if hashes is not None:
            hashes.append(file_hash(data))
        problem, dims = image_problem(data, rel)
        report.images += 1
        if problem is None and size is not None and dims != (size, size):
            problem = f"is {dims[0]}x{dims[1]} pixels; task {shard.task} draws {size}x{size}"
        if problem is not None:
            report.problems.append(f"{rel}: {problem} (named by {where})")
            dims = None
        measured.append(dims)
    report.image_seconds += time.perf_counter() - t0
    regions = record.get("regions")
    for i, region in enumerate(regions if isinstance(regions, list) else []):
        k, box = (region.get("image"), region.get("box")) if isinstance(region, dict) else (None, None)
        if not isinstance(k, int) or not 0 <= k < len(measured) or measured[k] is None or not _is_box(box):
            continue
        width, height = measured[k]
        x0, y0, x1, y1 = box
        if not (0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height):
            report.problems.append(
                f"{where} ({rid}) regions[{i}].box: {box} is not inside image {k} ({width}x{height})"
            )
    return hashes


def _is_box(box: Any) -> bool:
    return (
        isinstance(box, list)
        and len(box) == 4
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in box)
    )


def image_problem(data: bytes, rel: str) -> tuple[str | None, tuple[int, int]]:
    """Why the bytes of an image file are not a sound image, or None; and its size in pixels."""
    if rel.lower().endswith(".png"):
        broken = png_problem(data)
        if broken is not None:
            return f"not a sound PNG ({broken})", (0, 0)
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return None, image.size
    except Exception as exc:  # PIL raises many kinds for broken data: OSError, SyntaxError, ValueError, ...
        return f"does not decode ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})", (0, 0)


def png_problem(data: bytes) -> str | None:
    """Walk a PNG's chunks: the signature, every chunk's CRC, IEND last and nothing after it. A PNG decoder checks
    few of these (it reads pixel data without its CRC), so a changed byte can decode to other pixels unnoticed."""
    if not data.startswith(PNG_SIGNATURE):
        return "no PNG signature"
    pos = len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            return f"chunk {kind!r} at byte {pos} runs past the end of the file"
        (crc,) = struct.unpack_from(">I", data, end - 4)
        if zlib.crc32(data[pos + 4 : end - 4]) != crc:
            return f"chunk {kind!r} at byte {pos} fails its CRC"
        pos = end
        if kind == b"IEND":
            return None if pos == len(data) else f"{len(data) - pos} bytes after IEND"
    return "truncated: no IEND chunk"


class ImageSizes:
    """The image size of each split's tasks: what the manifest records, else the installed task's ``image_size``."""

    def __init__(self, recorded: dict[str, dict[str, Any]], report: Report) -> None:
        self.recorded = recorded
        self.report = report
        self.known: dict[tuple[str, str], int | None] = {}

    def of(self, split: str, task: str) -> int | None:
        if (split, task) not in self.known:
            size = self.recorded.get(split, {}).get(task)
            if not isinstance(size, int) or isinstance(size, bool):
                size = self._installed(task)
            self.known[split, task] = size
        return self.known[split, task]

    def _installed(self, task: str) -> int | None:
        from mirforge.registry import available, load

        if task in available():
            try:
                return int(load(task).image_size)
            except Exception:  # a broken plugin: its sizes go unchecked, said below
                pass
        self.report.notes.append(f"task {task} is not installed and {MANIFEST} records no image size: sizes unchecked")
        return None


def read_listed(path: Path, report: Report) -> tuple[dict[str, dict], dict[str, dict[str, Any]]]:
    """The shards the manifest lists (path -> entry) and the image sizes its splits record (split -> task ->
    pixels); what is malformed becomes a problem naming the manifest."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, OSError, RecursionError) as exc:
        report.problems.append(f"{MANIFEST}: unreadable ({' '.join(str(exc).split())})")
        return {}, {}
    splits = data.get("splits") if isinstance(data, dict) else None
    if not isinstance(splits, dict):
        report.problems.append(f"{MANIFEST}: expected an object with a 'splits' object")
        return {}, {}
    listed: dict[str, dict] = {}
    sizes: dict[str, dict[str, Any]] = {}
    for name, split in splits.items():
        shards = split.get("shards") if isinstance(split, dict) else None
        if not isinstance(shards, dict):
            report.problems.append(f"{MANIFEST}: splits.{name}: expected an object with a 'shards' object")
            continue
        if isinstance(split.get("image_size"), dict):
            sizes[name] = split["image_size"]
        for rel, entry in shards.items():
            if isinstance(entry, dict):
                listed[rel] = entry
            else:
                report.problems.append(f"{MANIFEST}: splits.{name}.shards.{rel}: expected an object")
    return listed, sizes
