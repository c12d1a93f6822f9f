"""Exports of a dataset split for the evaluation tools people already run.

- lmms-eval: a task folder (``<task>.yaml``, ``utils.py``, ``<task>.jsonl``, ``images/...``) loaded with
  ``--include_path``; every path in it is relative to the folder (lmms-eval resolves ``data_files`` from the YAML's
  folder), so it can be moved. ``doc_to_messages`` keeps the interleaving (text pieces and images in slot order);
  ``doc_to_text``, for models that take the images first, writes each slot as a marker ("[Image 2]") so the text
  still says which picture it means. ``process_results`` scores with mirforge's robust extractor when mirforge is
  installed, else with a small built-in parser.
- VLMEvalKit: one TSV (``index``, ``image`` = the string form of a list of base64 PNGs in slot order, ``question``
  with its ``<image>`` slots, ``A``..``D``, ``answer``, ``category`` = task, ``l2-category`` = MIR category, ``split``,
  ``id``) that VLMEvalKit picks up as a custom multiple-choice dataset from ``$LMUData/<Name>.tsv``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.dataset.writer import atomic_write
from mirforge.errors import InputError

MAX_OPTIONS = 8

LMMS_UTILS = '''"""lmms-eval task functions for a mirforge export (written by `mirforge export lmms-eval`).

Images are stored beside this file (paths in the jsonl are relative to it). `doc_to_messages` interleaves text and
images in slot order; `doc_to_visual` + `doc_to_text` serve models that take the images first, with each slot
written as a marker ("[Image 2]") that names the picture it stood for.
"""

import re
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent
SLOT = "<image>"
MARKER = "[Image {n}]"


def _images(doc):
    out = []
    for rel in doc["images"]:
        with Image.open(HERE / rel) as im:
            out.append(im.convert("RGB"))
    return out


def _options(doc):
    return "\\n".join(f"{letter}. {text}" for letter, text in zip(doc["letters"], doc["options"]))


def _kwargs(kwargs):
    kwargs = kwargs or {}
    return kwargs.get("pre_prompt", ""), kwargs.get("post_prompt", "")


def doc_to_visual(doc):
    return _images(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    pre, post = _kwargs(lmms_eval_specific_kwargs)
    pieces = doc["question"].split(SLOT)
    question = pieces[0] + "".join(MARKER.format(n=i) + piece for i, piece in enumerate(pieces[1:], start=1))
    return f"{pre}{question.strip()}\\n{doc['instruction']}\\n{_options(doc)}{post}"


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    pre, post = _kwargs(lmms_eval_specific_kwargs)
    images = _images(doc)
    pieces = doc["question"].split(SLOT)
    if len(pieces) - 1 != len(images):
        raise ValueError(f"{doc['id']}: {len(pieces) - 1} image slots for {len(images)} images")
    content = []
    for i, piece in enumerate(pieces):
        text = (pre if i == 0 else "") + piece
        if i == len(pieces) - 1:
            text += f"\\n{doc['instruction']}\\n{_options(doc)}{post}"
        if text:
            content.append({"type": "text", "text": text})
        if i < len(images):
            content.append({"type": "image", "url": images[i]})
    return [{"role": "user", "content": content}]


def doc_to_target(doc):
    return doc["answer"]


def _fallback_parse(text, letters):
    text = re.sub(r"<think>.*?</think>", "", text or "", flags=re.S | re.I)
    found = re.findall(r"(?:answer|option|choice)\\s*(?:is|:)\\s*\\(?([A-Za-z])\\b", text, flags=re.I)
    found += re.findall(r"<conclusion>.*?\\b([A-H])\\b[^A-Za-z]*</conclusion>", text, flags=re.S)
    for letter in reversed(found):
        if letter.upper() in letters:
            return letter.upper()
    match = re.match(r"\\s*\\(?([A-Za-z])(?:[.:)]|\\s*$)", text)
    if match and match.group(1).upper() in letters:
        return match.group(1).upper()
    return None


def parse(text, doc):
    options = dict(zip(doc["letters"], doc["options"]))
    try:
        from mirforge.curriculum.answers import extract_letter
    except ImportError:
        return _fallback_parse(text, options)
    return extract_letter(text, options)


def process_results(doc, results):
    chosen = parse(results[0] if results else "", doc)
    correct = float(chosen == doc["answer"])
    item = {"task": doc["task"], "category": doc["category"], "correct": correct, "parsed": chosen is not None}
    return {"mirforge_acc": item, "mirforge_unparsed": float(chosen is None)}


def aggregate(items):
    by_task = {}
    for item in items:
        by_task.setdefault(item["task"], []).append(item["correct"])
    for task, values in sorted(by_task.items()):
        print(f"  {task:28} {100 * sum(values) / len(values):5.1f}%  (n={len(values)})")
    return sum(item["correct"] for item in items) / len(items) if items else 0.0
'''


@dataclass
class ExportSummary:
    path: Path
    rows: int
    images: int


def _records(dataset: Path, split: str | None, tasks: set[str] | None) -> list[dict[str, Any]]:
    from mirforge.dataset import Dataset
    from mirforge.evaluation.run import select_records

    records = select_records(Dataset(dataset).records(), split, tasks)
    if not records:
        raise InputError(f"DATASET: {dataset} has no instances to export")
    for r in records:
        if len(r["options"]) > MAX_OPTIONS:
            raise InputError(f"DATASET: {r['id']} has {len(r['options'])} options; at most {MAX_OPTIONS} export")
    return records


def _task_name(value: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_]+", "_", value).strip("_").lower()
    if not name:
        raise InputError(f"--name: {value!r} has no letters or digits")
    return name


def export_lmms_eval(
    dataset: Path,
    out: Path,
    *,
    split: str | None = None,
    tasks: set[str] | None = None,
    name: str = "mirforge",
    copy_images: bool = True,
    max_new_tokens: int = 512,
) -> ExportSummary:
    """Write an lmms-eval task folder; run it with ``lmms-eval --include_path OUT --tasks NAME``."""
    from mirforge.curriculum.stages import parse_schedule

    task = _task_name(name)
    records = _records(dataset, split, tasks)
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    instruction = parse_schedule({}).instruction
    docs, images = [], 0
    for r in records:
        paths = []
        for rel in r["images"]:
            src = Path(dataset).resolve() / rel
            if not src.is_file():
                raise InputError(f"DATASET: image {rel} of {r['id']} is missing")
            if copy_images:
                if ".." in Path(rel).parts or Path(rel).is_absolute():
                    raise InputError(f"DATASET: image path {rel!r} of {r['id']} leaves the dataset folder")
                dst = out / rel  # the dataset's own layout: images/<task>/<split>/NNNNNN-K.png
                dst.parent.mkdir(parents=True, exist_ok=True)
                if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
                    shutil.copyfile(src, dst)
                paths.append(dst.relative_to(out).as_posix())
            else:
                paths.append(Path(os.path.relpath(src, out)).as_posix())
            images += 1
        docs.append(
            {
                "id": r["id"],
                "task": r["task"],
                "category": r.get("category", ""),
                "split": r.get("split", ""),
                "question": r["question"],
                "instruction": instruction,
                "letters": list(r["options"]),
                "options": [v.replace("<image>", "[image]") for v in r["options"].values()],
                "answer": r["answer"],
                "images": paths,
            }
        )
    data = out / f"{task}.jsonl"
    atomic_write(data, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs).encode())
    atomic_write(out / "utils.py", LMMS_UTILS.encode())
    yaml_text = f"""# lmms-eval task written by `mirforge export lmms-eval` ({len(docs)} questions)
# run: {lmms_eval_command(out, task)}
# data_files is relative: lmms-eval resolves it from this file's folder, so the folder can be moved.
task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {json.dumps(data.name)}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_messages: !function utils.doc_to_messages
doc_to_target: !function utils.doc_to_target
process_results: !function utils.process_results
generation_kwargs:
  max_new_tokens: {max_new_tokens}
  temperature: 0
  do_sample: false
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: ""
metric_list:
  - metric: mirforge_acc
    aggregation: !function utils.aggregate
    higher_is_better: true
  - metric: mirforge_unparsed
    aggregation: mean
    higher_is_better: false
metadata:
  version: 1.0
"""
    atomic_write(out / f"{task}.yaml", yaml_text.encode())
    return ExportSummary(out / f"{task}.yaml", len(docs), images)


def lmms_eval_command(folder: Path, task: str) -> str:
    """The command that evaluates a model (``$MODEL``) on the task folder, from any working directory."""
    import shlex

    return (
        f'lmms-eval --model qwen2_5_vl --model_args pretrained="$MODEL" --include_path {shlex.quote(str(folder))} '
        f"--tasks {task} --batch_size 1"
    )


def _b64(path: Path) -> str:
    return base64.b64encode(Path(path).read_bytes()).decode()


def _tsv_cell(value: str) -> str:
    if "\t" in value or "\r" in value:
        value = value.replace("\t", " ").replace("\r", " ")
    return value


def export_vlmevalkit(
    dataset: Path, out: Path, *, split: str | None = None, tasks: set[str] | None = None
) -> ExportSummary:
    """Write a VLMEvalKit multiple-choice TSV (multi-image: a list of base64 PNGs per row, in slot order)."""
    import csv

    records = _records(dataset, split, tasks)
    out = Path(out)
    if out.suffix.lower() != ".tsv":
        raise InputError(f"OUT: {out} must end in .tsv (VLMEvalKit reads $LMUData/<Name>.tsv)")
    letters = [chr(ord("A") + i) for i in range(max(4, max(len(r["options"]) for r in records)))]
    header = ["index", "image", "question", *letters, "answer", "category", "l2-category", "split", "id"]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    images = 0
    with tmp.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        writer.writerow(header)
        for index, r in enumerate(records):
            encoded = []
            for rel in r["images"]:
                src = Path(dataset) / rel
                if not src.is_file():
                    raise InputError(f"DATASET: image {rel} of {r['id']} is missing")
                encoded.append(_b64(src))
            images += len(encoded)
            options = [_tsv_cell(r["options"].get(letter, "")) for letter in letters]
            writer.writerow(
                [
                    index,
                    repr(encoded),
                    _tsv_cell(r["question"]),
                    *options,
                    r["answer"],
                    r["task"],
                    r.get("category", ""),
                    r.get("split", ""),
                    r["id"],
                ]
            )
    os.replace(tmp, out)
    return ExportSummary(out, len(records), images)
