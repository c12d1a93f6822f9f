"""The canonical instance record, its checks, and its MIR-format view."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

IMAGE_SLOT = "<image>"


@dataclass
class Instance:
    id: str
    task: str
    category: str
    split: str
    question: str
    images: list[str]
    options: dict[str, str]
    answer: str
    summary: str
    caption: list[str]
    text2img: str
    img2img: str
    conclusion: str
    regions: list[dict[str, Any]]
    difficulty: dict[str, Any]
    provenance: dict[str, Any]

    def to_json(self) -> str:
        """One canonical line: the same instance always gives the same bytes."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=False, separators=(",", ":"))


def instance_id(task: str, split: str, index: int) -> str:
    return f"{task}-{split}-{index:06d}"


@cache
def schema() -> dict[str, Any]:
    return json.loads(resources.files("mirforge.schemas").joinpath("instance.schema.json").read_text())


@cache
def _validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    return cls(schema())


def problems(record: dict[str, Any], root: Path | None = None) -> list[str]:
    """Everything wrong with one record: schema errors first, then the invariants a schema cannot state.

    With ``root`` set, image files must exist under it.
    """
    found = [f"{_path(e)}: {e.message}" for e in sorted(_validator().iter_errors(record), key=lambda e: e.path)]
    if found:
        return found
    slots = record["question"].count(IMAGE_SLOT)
    if slots != len(record["images"]):
        found.append(f"question: has {slots} {IMAGE_SLOT} slots but images lists {len(record['images'])} files")
    if record["answer"] not in record["options"]:
        found.append(f"answer: {record['answer']!r} is not an option key ({', '.join(record['options'])})")
    keys = list(record["options"])
    if keys != [chr(ord("A") + i) for i in range(len(keys))]:
        found.append(f"options: keys must be consecutive letters from A, got {', '.join(keys)}")
    texts = [" ".join(v.lower().split()) for v in record["options"].values()]
    if len(set(texts)) != len(texts):
        found.append("options: two options have the same text")
    if len(record["caption"]) != len(record["images"]):
        found.append(f"caption: has {len(record['caption'])} entries for {len(record['images'])} images")
    for i, region in enumerate(record["regions"]):
        if region["image"] >= len(record["images"]):
            found.append(f"regions[{i}].image: {region['image']} is not an image index")
        x0, y0, x1, y1 = region["box"]
        if x1 <= x0 or y1 <= y0:
            found.append(f"regions[{i}].box: {region['box']} is empty")
    if not re.search(rf"\b{record['answer']}\b", record["conclusion"]):
        found.append(f"conclusion: does not state the answer letter {record['answer']}")
    if root is not None:
        for image in record["images"]:
            if not (Path(root) / image).is_file():
                found.append(f"images: file {image} does not exist")
    return found


def _path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(record)"


def mir_view(record: dict[str, Any]) -> dict[str, Any]:
    """The fields MIR's own scripts read; ``conclusion`` holds the answer letter, as MIR's data does.

    Our reasoning conclusion is kept as ``reasoning``, the optional step MIR's preprocess appends before it.
    """
    return {
        "id": record["id"],
        "task": record["task"],
        "split": record["split"],
        "images": record["images"],
        "question": record["question"],
        "options": record["options"],
        "summary": record["summary"],
        "caption": record["caption"],
        "text2img": record["text2img"],
        "img2img": record["img2img"],
        "reasoning": record["conclusion"],
        "conclusion": record["answer"],
    }
