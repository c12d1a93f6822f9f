"""``mirforge preview``: a static HTML gallery of a dataset (no server; vanilla HTML, CSS and a little JS).

``OUT/index.html`` lists the tasks; ``OUT/<task>/page-NNN.html`` shows ``per_page`` instances each: the question
with its images at the ``<image>`` slots, the options (click one to reveal the answer), the five reasoning steps,
and the regions drawn as boxes over an image while the pointer is on it. Images are referenced relative to the
page (the gallery must stay beside the dataset) unless ``self_contained``, which copies them under
``OUT/images/`` so the folder can be moved or published alone.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from importlib import resources
from pathlib import Path
from typing import Any

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.instance import IMAGE_SLOT
from mirforge.stats import STEPS, compute

STATIC = ("gallery.css", "gallery.js")


def image_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG from its header (no decoding)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise InputError(f"DATASET: {path} is not a PNG file")
    return struct.unpack(">II", head[16:24])


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("mirforge.gallery", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def question_parts(question: str, n_images: int) -> list[dict[str, Any]]:
    """The question cut at its ``<image>`` slots: text parts and image parts, in order."""
    texts = question.split(IMAGE_SLOT)
    if len(texts) - 1 != n_images:
        raise InputError(f"question has {len(texts) - 1} {IMAGE_SLOT} slots for {n_images} images")
    parts: list[dict[str, Any]] = []
    for k, text in enumerate(texts):
        if text:
            parts.append({"kind": "text", "text": text})
        if k < n_images:
            parts.append({"kind": "image", "index": k})
    return parts


def build_gallery(
    dataset: Path,
    out: Path,
    *,
    per_page: int = 20,
    self_contained: bool = False,
    tasks: list[str] | None = None,
    limit: int | None = None,
) -> dict[str, int]:
    """Write the site; returns the number of pages per task."""
    if per_page < 1:
        raise InputError(f"--per-page: must be at least 1, got {per_page}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit: must be at least 1, got {limit}")
    data = Dataset(dataset, tasks)
    out = Path(out).resolve()
    root = data.root.resolve()
    if out == root:
        raise InputError("--out: must not be the dataset folder itself; use a sub-folder such as DATASET/gallery")
    out.mkdir(parents=True, exist_ok=True)
    (out / "static").mkdir(exist_ok=True)
    for name in STATIC:
        (out / "static" / name).write_bytes(resources.files("mirforge.gallery").joinpath("static", name).read_bytes())
    env = _environment()
    page_t, index_t = env.get_template("page.html.j2"), env.get_template("index.html.j2")
    stats = compute(data.records())
    pages: dict[str, int] = {}
    for task in data.tasks:
        records = data.records(task)[:limit]
        chunks = [records[i : i + per_page] for i in range(0, len(records), per_page)]
        pages[task] = len(chunks)
        folder = out / task
        folder.mkdir(exist_ok=True)
        for number, chunk in enumerate(chunks, 1):
            items = [_item(r, root, out, folder, self_contained) for r in chunk]
            text = page_t.render(
                task=task,
                category=stats[task].category,
                items=items,
                page=number,
                pages=len(chunks),
                total=len(records),
                steps=STEPS,
                static="../static",
                index="../index.html",
            )
            (folder / f"page-{number:03d}.html").write_text(text, encoding="utf-8")
    rows = [
        {
            "task": task,
            "category": stats[task].category,
            "instances": stats[task].instances,
            "images": stats[task].images,
            "mean_images": f"{stats[task].mean_images:.2f}",
            "pages": pages[task],
        }
        for task in data.tasks
    ]
    (out / "index.html").write_text(
        index_t.render(rows=rows, dataset=data.root.name, static="static", total=stats["all"]), encoding="utf-8"
    )
    return pages


def _item(record: dict[str, Any], root: Path, out: Path, folder: Path, self_contained: bool) -> dict[str, Any]:
    images = []
    for k, rel in enumerate(record["images"]):
        source = root / rel
        if not source.is_file():
            raise InputError(f"DATASET: {rel} of {record['id']} is missing; run `mirforge validate`")
        width, height = image_size(source)
        if self_contained:
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.is_file() or target.stat().st_size != source.stat().st_size:
                shutil.copyfile(source, target)
        else:
            target = source
        boxes = [
            {
                "name": r["name"],
                "left": 100 * r["box"][0] / width,
                "top": 100 * r["box"][1] / height,
                "width": 100 * (r["box"][2] - r["box"][0]) / width,
                "height": 100 * (r["box"][3] - r["box"][1]) / height,
            }
            for r in record["regions"]
            if r["image"] == k
        ]
        src = Path(os.path.relpath(target, folder)).as_posix()
        images.append({"src": src, "width": width, "height": height, "boxes": boxes, "caption": record["caption"][k]})
    return {
        "id": record["id"],
        "split": record["split"],
        "level": record["difficulty"]["level"],
        "knobs": ", ".join(f"{k}={json.dumps(v)}" for k, v in record["difficulty"]["knobs"].items()),
        "parts": question_parts(record["question"], len(images)),
        "images": images,
        "options": list(record["options"].items()),
        "answer": record["answer"],
        "steps": {step: record[step] for step in STEPS},
    }
