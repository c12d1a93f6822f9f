"""Exporters of staged rows for ms-swift, LLaMA-Factory, TRL and LLaVA(-OneVision).

A row is ``{"id", "task", "stage", "prompt" (with <image> slots), "target", "images" (relative to the dataset)}``.
In every format the number and order of image tags equal the images; literal ``<image>`` in step text was already
escaped by the stage builder. Image paths are relative to the format's folder, or point at copies under
``OUT/images`` with ``copy_images``. Besides one file per stage, ``all`` concatenates the stages in order; the flags
that keep that order in each trainer are written to ``OUT/ORDER.md`` and returned.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge.dataset.writer import atomic_write
from mirforge.errors import InputError, MirforgeError

FORMATS = ("swift", "llamafactory", "trl", "llava")
IMAGE_SLOT = "<image>"
ALL = "all"

ORDER_FLAGS = {
    "swift": (
        "ms-swift 3.2: swift sft --dataset {dir}/all.jsonl --train_sampler_random false ...\n"
        "ms-swift >= 3.3: swift sft --dataset {dir}/all.jsonl --dataset_shuffle false "
        "--train_dataloader_shuffle false ...\n"
        "(run from {dir} or keep the image paths valid from the working directory)"
    ),
    "llamafactory": (
        "LLaMA-Factory: dataset_dir: {dir}  dataset: mirforge_all  disable_shuffling: true\n"
        "(several stage datasets at once: dataset: mirforge_stage0,mirforge_stage1,...  mix_strategy: concat)"
    ),
    "trl": (
        "TRL: dataset = mirforge.curriculum.export.load_trl('{dir}/all.jsonl'); "
        'SFTConfig(train_sampling_strategy="sequential", shuffle_dataset=False, completion_only_loss=True, '
        "max_length=None)"
    ),
    "llava": (
        "LLaVA-NeXT: --data_path {dir}/order.yaml (stages in order, sampling_strategy: all); "
        "--group_by_modality_length False and a sequential sampler, or train one stage at a time"
    ),
}


@dataclass
class ExportReport:
    out: Path
    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    images_copied: int = 0
    flags: dict[str, str] = field(default_factory=dict)


def _split_prompt(prompt: str) -> list[str | None]:
    """Text pieces with None where an image goes."""
    parts: list[str | None] = []
    pieces = prompt.split(IMAGE_SLOT)
    for i, piece in enumerate(pieces):
        if piece:
            parts.append(piece)
        if i < len(pieces) - 1:
            parts.append(None)
    return parts


def to_swift(row: dict[str, Any], images: list[str]) -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": row["prompt"]}, {"role": "assistant", "content": row["target"]}],
        "images": images,
    }


def to_llamafactory(row: dict[str, Any], images: list[str]) -> dict[str, Any]:
    return to_swift(row, images)


def to_trl(row: dict[str, Any], images: list[str]) -> dict[str, Any]:
    content = [{"type": "image"} if p is None else {"type": "text", "text": p} for p in _split_prompt(row["prompt"])]
    return {
        "id": row["id"],
        "prompt": [{"role": "user", "content": content}],
        "completion": [{"role": "assistant", "content": [{"type": "text", "text": row["target"]}]}],
        "images": images,
    }


def to_llava(row: dict[str, Any], images: list[str]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "image": images,
        "conversations": [{"from": "human", "value": row["prompt"]}, {"from": "gpt", "value": row["target"]}],
    }


CONVERTERS: dict[str, Callable[[dict[str, Any], list[str]], dict[str, Any]]] = {
    "swift": to_swift,
    "llamafactory": to_llamafactory,
    "trl": to_trl,
    "llava": to_llava,
}


def image_tags(fmt: str, record: dict[str, Any]) -> tuple[int, int, int]:
    """(image tags in the prompt, image tags elsewhere, images) of an exported record."""
    if fmt == "trl":
        prompt = sum(1 for m in record["prompt"] for p in m["content"] if p["type"] == "image")
        rest = sum(1 for m in record["completion"] for p in m["content"] if p["type"] == "image")
        rest += sum(p.get("text", "").count(IMAGE_SLOT) for m in record["prompt"] for p in m["content"])
        rest += sum(p.get("text", "").count(IMAGE_SLOT) for m in record["completion"] for p in m["content"])
        return prompt, rest, len(record["images"])
    if fmt == "llava":
        turns, images = [t["value"] for t in record["conversations"]], record["image"]
    else:
        turns, images = [m["content"] for m in record["messages"]], record["images"]
    return turns[0].count(IMAGE_SLOT), sum(t.count(IMAGE_SLOT) for t in turns[1:]), len(images)


def check_record(fmt: str, record: dict[str, Any], where: str) -> None:
    prompt, rest, images = image_tags(fmt, record)
    if prompt != images or rest:
        raise MirforgeError(
            f"{where}: {fmt} record has {prompt} image tags in the prompt and {rest} elsewhere for {images} images"
        )


class _Images:
    """Maps dataset-relative image paths to paths relative to a format folder (copying them if asked)."""

    def __init__(self, dataset: Path, out: Path, copy: bool) -> None:
        self.dataset = Path(dataset).resolve()
        self.out = Path(out).resolve()
        self.copy = copy
        self.copied = 0
        self.done: set[str] = set()

    def source(self, rel: str) -> Path:
        path = self.dataset / rel
        if not path.is_file():
            raise InputError(f"DATASET: image {rel} is missing under {self.dataset}; regenerate or fix the dataset")
        return path

    def path(self, rel: str, folder: Path) -> str:
        src = self.source(rel)
        if self.copy:
            dst = self.out / "images" / rel
            if rel not in self.done:
                if not (dst.is_file() and dst.stat().st_size == src.stat().st_size):
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
                    self.copied += 1
                self.done.add(rel)
            src = dst
        return Path(os.path.relpath(src, folder.resolve())).as_posix()


def _jsonl(rows: Sequence[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _json(rows: Any) -> bytes:
    return (json.dumps(rows, ensure_ascii=False, indent=1) + "\n").encode()


def export_stages(
    stages: Sequence[tuple[str, list[dict[str, Any]]]],
    dataset: Path,
    out: Path,
    formats: Sequence[str] = FORMATS,
    *,
    copy_images: bool = False,
    single_file: bool = True,
) -> ExportReport:
    """Write each stage (and ``all``, the stages concatenated in order) in each format under ``out/<format>/``."""
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise InputError(f"--format: {', '.join(bad)} not one of {', '.join(FORMATS)}")
    if ALL in {name for name, _ in stages}:
        raise InputError(f"--schedule: a stage may not be called {ALL!r}; that name is the concatenation")
    out = Path(out)
    images = _Images(dataset, out, copy_images)
    report = ExportReport(out=out)
    for fmt in formats:
        folder = out / fmt
        folder.mkdir(parents=True, exist_ok=True)
        convert = CONVERTERS[fmt]
        written: list[tuple[str, list[dict[str, Any]]]] = []
        for name, rows in stages:
            records = []
            for row in rows:
                record = convert(row, [images.path(rel, folder) for rel in row["images"]])
                check_record(fmt, record, f"{name}/{row['id']}")
                records.append(record)
            written.append((name, records))
        if single_file and len(stages) > 1:
            written.append((ALL, [r for _, records in written for r in records]))
        for name, records in written:
            if fmt in ("swift", "trl"):
                path = folder / f"{name}.jsonl"
                atomic_write(path, _jsonl(records))
            else:
                path = folder / f"{name}.json"
                atomic_write(path, _json(records))
            report.files.append(path)
            report.rows[f"{fmt}/{name}"] = len(records)
        if fmt == "llamafactory":
            info = {
                f"mirforge_{name}": {
                    "file_name": f"{name}.json",
                    "formatting": "sharegpt",
                    "columns": {"messages": "messages", "images": "images"},
                    "tags": {
                        "role_tag": "role",
                        "content_tag": "content",
                        "user_tag": "user",
                        "assistant_tag": "assistant",
                    },
                }
                for name, _ in written
            }
            atomic_write(folder / "dataset_info.json", _json(info))
            report.files.append(folder / "dataset_info.json")
        if fmt == "llava":
            lines = ["datasets:"] + [
                f"  - json_path: {(folder / f'{name}.json').resolve().as_posix()}\n    sampling_strategy: all"
                for name, _ in stages
            ]
            atomic_write(folder / "order.yaml", ("\n".join(lines) + "\n").encode())
            report.files.append(folder / "order.yaml")
        report.flags[fmt] = ORDER_FLAGS[fmt].format(dir=folder.as_posix())
    report.images_copied = images.copied
    order = ["# Keeping the stage order", ""]
    order += [f"## {fmt}\n\n```\n{flags}\n```\n" for fmt, flags in report.flags.items()]
    atomic_write(out / "ORDER.md", ("\n".join(order)).encode())
    return report


def load_trl(path: Path) -> Any:
    """A TRL export as a ``datasets.Dataset`` with its ``images`` column decoded (paths resolved from the file)."""
    try:
        import datasets
    except ImportError as exc:
        raise InputError(f"load_trl needs the [train] extra ({exc}); pip install 'mirforge[train]'") from None
    path = Path(path)
    folder = path.parent.resolve()
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        row["images"] = [(folder / p).as_posix() for p in row["images"]]
    ds = datasets.Dataset.from_list(rows)
    return ds.cast_column("images", datasets.List(datasets.Image()))
