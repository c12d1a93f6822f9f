"""A contact sheet: a small PNG grid of a few instances of one task with their question text
(``mirforge contact DATASET --task TASK --out docs/TASK.png``)."""

from __future__ import annotations

import textwrap
from itertools import islice
from pathlib import Path

import cv2
import numpy as np

from mirforge.dataset import Dataset
from mirforge.errors import InputError

THUMB = 150
LABEL_H = 16  # the "Image k" strip above each thumbnail, off the picture (a panel may carry its own tag there)
LINE_H = 14  # one line of text under the thumbnails
FONT = cv2.FONT_HERSHEY_SIMPLEX


def contact_sheet(root: Path, task: str, count: int = 3, per_line: int = 6) -> np.ndarray:
    dataset = Dataset(root)
    if task not in dataset.tasks:
        raise InputError(f"--task: no instances of {task} in {root}; it holds {', '.join(dataset.tasks)}")
    rows = [_row(dataset, entry.record, per_line) for entry in islice(dataset.entries(task), count)]
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0)), constant_values=255) for r in rows]
    return np.vstack(rows)


def _row(dataset: Dataset, rec: dict, per_line: int) -> np.ndarray:
    """One instance: every image, ``per_line`` to a line of thumbnails, then its text."""
    thumbs = []
    for k, rel in enumerate(rec["images"]):
        img = cv2.resize(dataset.image(rel), (THUMB, THUMB), interpolation=cv2.INTER_AREA)
        label = np.full((LABEL_H, THUMB, 3), 255, np.uint8)
        cv2.putText(label, f"Image {k + 1}", (4, 12), FONT, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
        framed = cv2.copyMakeBorder(img, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(200, 200, 200))
        thumbs.append(np.vstack([np.pad(label, ((0, 0), (2, 2), (0, 0)), constant_values=255), framed]))
    lines = [np.hstack(thumbs[k : k + per_line]) for k in range(0, len(thumbs), per_line)]
    width = lines[0].shape[1]
    strip = np.vstack(
        [np.pad(line, ((0, 0), (0, width - line.shape[1]), (0, 0)), constant_values=255) for line in lines]
    )
    options = "  ".join(f"{k}: {v}" for k, v in rec["options"].items())
    chars = max(40, strip.shape[1] // 6)
    text_lines = textwrap.wrap(f"{rec['id']}  Q: {rec['question']}", chars) + textwrap.wrap(options, chars)
    text_lines.append(f"answer: {rec['answer']}   level {rec['difficulty']['level']}")
    text = np.full((LINE_H * len(text_lines) + 6, strip.shape[1], 3), 255, np.uint8)  # the whole text, never cut
    for n, line in enumerate(text_lines):
        cv2.putText(text, line, (4, LINE_H * (n + 1)), FONT, 0.36, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([strip, text, np.full((6, strip.shape[1], 3), 255, np.uint8)])


def write_contact_sheet(root: Path, task: str, out: Path, count: int = 3) -> tuple[int, int, int]:
    """Write the sheet as PNG; (width, height, kilobytes)."""
    sheet = contact_sheet(root, task, count)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    return sheet.shape[1], sheet.shape[0], out.stat().st_size // 1024
