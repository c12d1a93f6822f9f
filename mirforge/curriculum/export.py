"""Exporters of staged rows for ms-swift, LLaMA-Factory, TRL and LLaVA(-OneVision).

A row is ``{"id", "task", "stage", "prompt" (with <image> slots), "target", "images" (relative to the dataset)}``.
In every format the number and order of image tags equal the images; literal ``<image>`` in step text was already
escaped by the stage builder.

Image paths are absolute by default, so every file loads from any working directory with the consumer's own loader.
With ``copy_images`` the images are copied to ``OUT/images/...`` and the paths are relative to ``OUT``, the image
root each consumer is told in the commands (ms-swift ``ROOT_IMAGE_DIR``, LLaMA-Factory ``media_dir``, LLaVA
``--image_folder``, :func:`load_trl`'s ``image_root``): the folder can then be moved as a whole.

A stage without rows is neither written nor listed (a trainer stops on an empty dataset); the report says why it
was dropped. Besides one file per stage, ``all`` concatenates the stages in order; the commands that train on it in
that order are written to ``OUT/ORDER.md`` and returned.
"""

from __future__ import annotations

import json
import shlex
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
DATASET_PREFIX = "mirforge_"  # LLaMA-Factory dataset names: mirforge_<stage>


@dataclass
class ExportReport:
    out: Path
    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    images_copied: int = 0
    flags: dict[str, str] = field(default_factory=dict)
    stages: list[str] = field(default_factory=list)  # the stages written, in order
    dropped: dict[str, str] = field(default_factory=dict)  # stage -> why it was not written
    image_root: Path | None = None  # where relative image paths start (copy_images), else None: absolute paths


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


def stage_file(fmt: str, name: str) -> str:
    return f"{name}.jsonl" if fmt in ("swift", "trl") else f"{name}.json"


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
    """Maps dataset-relative image paths to what the export writes: absolute paths to the dataset's images, or
    (``copy``) paths relative to ``out`` of copies at ``out/<same relative path>``."""

    def __init__(self, dataset: Path, out: Path, copy: bool) -> None:
        self.dataset = Path(dataset).resolve()
        self.out = Path(out).resolve()
        self.copy = copy
        self.copied = 0
        self.done: set[str] = set()

    def path(self, rel: str) -> str:
        src = self.dataset / rel
        if not src.is_file():
            raise InputError(f"DATASET: image {rel} is missing under {self.dataset}; regenerate or fix the dataset")
        if not self.copy:
            return src.as_posix()
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise InputError(f"DATASET: image path {rel!r} leaves the dataset folder; --copy-images cannot place it")
        dst = self.out / rel
        if rel not in self.done:
            if not (dst.is_file() and dst.stat().st_size == src.stat().st_size):
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
                self.copied += 1
            self.done.add(rel)
        return Path(rel).as_posix()


def _jsonl(rows: Sequence[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _json(rows: Any) -> bytes:
    return (json.dumps(rows, ensure_ascii=False, indent=1) + "\n").encode()


def llamafactory_info(names: Sequence[str]) -> dict[str, Any]:
    """``dataset_info.json`` entries, one per written stage file."""
    tags = {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"}
    return {
        f"{DATASET_PREFIX}{name}": {
            "file_name": stage_file("llamafactory", name),
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": tags,
        }
        for name in names
    }


def commands(fmt: str, folder: Path, names: Sequence[str], root: Path | None) -> str:
    """The lines that train on ``folder``'s stages in order; they run as printed from any working directory once
    ``MODEL`` (and for LLaMA-Factory ``TEMPLATE``) name the model. ``names`` are the written files (``all`` last
    when there is one); ``root`` is the image root of relative paths, None for absolute ones."""
    data = folder.resolve()
    main = ALL if ALL in names else names[0]
    q = shlex.quote
    if fmt == "swift":
        env = f"ROOT_IMAGE_DIR={q(str(root))} " if root else ""
        dataset = q(str(data / stage_file(fmt, main)))
        base = f'{env}swift sft --model "$MODEL" --dataset {dataset} --split_dataset_ratio 0'
        return (
            f"# ms-swift >= 3.3\n{base} --dataset_shuffle false --train_dataloader_shuffle false\n"
            f"# ms-swift 3.2\n{base} --train_sampler_random false"
        )
    if fmt == "llamafactory":
        media = f" --media_dir {q(str(root))}" if root else ""
        stages = [n for n in names if n != ALL]
        line = (
            'llamafactory-cli train --stage sft --do_train true --model_name_or_path "$MODEL" --template "$TEMPLATE" '
            f"--dataset_dir {q(str(data))} --dataset {DATASET_PREFIX}{main}{media} --disable_shuffling true "
            "--finetuning_type lora --output_dir saves/mirforge"
        )
        several = ",".join(f"{DATASET_PREFIX}{n}" for n in stages)
        return f"{line}\n# the stages as separate datasets, in order: --dataset {several} --mix_strategy concat"
    if fmt == "trl":
        root_arg = f", image_root={json.dumps(str(root))}" if root else ""
        path = json.dumps(str(data / stage_file(fmt, main)))
        code = f"from mirforge.curriculum.export import load_trl; ds = load_trl({path}{root_arg}); print(ds)"
        return (
            f"python -c {q(code)}\n"
            '# then SFTTrainer(model, args=SFTConfig(train_sampling_strategy="sequential", shuffle_dataset=False, '
            "completion_only_loss=True, max_length=None), train_dataset=ds, processing_class=processor)"
        )
    folder_arg = f" --image_folder {q(str(root))}" if root else ""
    return (
        f'# LLaVA-NeXT: python llava/train/train_mem.py --model_name_or_path "$MODEL" --data_path '
        f"{q(str(data / 'order.yaml'))}{folder_arg} --group_by_modality_length False ...\n"
        "# order.yaml lists the stages in order (sampling_strategy: all); keep a sequential sampler, or train one "
        "stage at a time"
    )


def export_stages(
    stages: Sequence[tuple[str, list[dict[str, Any]]]],
    dataset: Path,
    out: Path,
    formats: Sequence[str] = FORMATS,
    *,
    copy_images: bool = False,
    single_file: bool = True,
    dropped: dict[str, str] | None = None,
) -> ExportReport:
    """Write each stage that has rows (and ``all``, those stages concatenated in order) in each format under
    ``out/<format>/``. A stage without rows is left out; ``dropped`` may say why (the schedule knows)."""
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise InputError(f"--format: {', '.join(bad)} not one of {', '.join(FORMATS)}")
    if ALL in {name for name, _ in stages}:
        raise InputError(f"--schedule: a stage may not be called {ALL!r}; that name is the concatenation")
    out = Path(out)
    report = ExportReport(out=out, image_root=out.resolve() if copy_images else None)
    for name, rows in stages:
        if rows:
            report.stages.append(name)
        else:
            report.dropped[name] = (dropped or {}).get(name) or "it has no rows"
    kept = [(name, rows) for name, rows in stages if rows]
    if not kept:
        why = "; ".join(f"{n}: {r}" for n, r in report.dropped.items())
        raise InputError(f"--schedule: every stage is empty ({why}); nothing to export")
    images = _Images(dataset, out, copy_images)
    for fmt in formats:
        folder = out / fmt
        folder.mkdir(parents=True, exist_ok=True)
        convert = CONVERTERS[fmt]
        written: list[tuple[str, list[dict[str, Any]]]] = []
        for name, rows in kept:
            records = []
            for row in rows:
                record = convert(row, [images.path(rel) for rel in row["images"]])
                check_record(fmt, record, f"{name}/{row['id']}")
                records.append(record)
            written.append((name, records))
        if single_file and len(kept) > 1:
            written.append((ALL, [r for _, records in written for r in records]))
        for name, records in written:
            path = folder / stage_file(fmt, name)
            atomic_write(path, _jsonl(records) if path.suffix == ".jsonl" else _json(records))
            report.files.append(path)
            report.rows[f"{fmt}/{name}"] = len(records)
        names = [name for name, _ in written]
        if fmt == "llamafactory":
            atomic_write(folder / "dataset_info.json", _json(llamafactory_info(names)))
            report.files.append(folder / "dataset_info.json")
        if fmt == "llava":
            lines = ["datasets:"] + [
                f"  - json_path: {json.dumps((folder / stage_file(fmt, name)).resolve().as_posix())}\n"
                "    sampling_strategy: all"
                for name, _ in kept
            ]
            atomic_write(folder / "order.yaml", ("\n".join(lines) + "\n").encode())
            report.files.append(folder / "order.yaml")
        report.flags[fmt] = commands(fmt, folder, names, report.image_root)
    report.images_copied = images.copied
    atomic_write(out / "ORDER.md", order_md(report).encode())
    return report


def order_md(report: ExportReport) -> str:
    lines = ["# Training on the stages in order", ""]
    lines.append(f"Stages, in order: {', '.join(report.stages)}.")
    for name, why in report.dropped.items():
        lines.append(f"Dropped: {name}, {why}; it has no file and is in no list.")
    if report.image_root is None:
        lines.append("Image paths are absolute: the files load from any working directory.")
    else:
        lines.append(
            f"Image paths are relative to {report.image_root} (the copies under images/): each command passes that "
            "folder as the image root; after moving the folder, change it there."
        )
    lines.append('Set MODEL (and TEMPLATE for LLaMA-Factory: its template name for the model, e.g. "qwen2_vl").')
    lines.append("")
    lines += [f"## {fmt}\n\n```\n{text}\n```\n" for fmt, text in report.flags.items()]
    return "\n".join(lines)


def load_trl(path: Path, image_root: Path | str | None = None) -> Any:
    """A TRL export as a ``datasets.Dataset`` with its ``images`` column decoded. Relative image paths (an export
    made with ``--copy-images``) start at ``image_root``, by default the folder above the file's format folder."""
    try:
        import datasets
    except ImportError as exc:
        raise InputError(f"load_trl needs the [train] extra ({exc}); pip install 'mirforge[train]'") from None
    path = Path(path)
    root = Path(image_root) if image_root is not None else path.resolve().parent.parent
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        row["images"] = [(root / p).as_posix() for p in row["images"]]
    ds = datasets.Dataset.from_list(rows)
    return ds.cast_column("images", datasets.List(datasets.Image()))
