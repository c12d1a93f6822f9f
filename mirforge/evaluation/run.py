"""Run a backend on a dataset split and score it: greedy by default, robust letter extraction, blank-image mode.

An unparsed answer counts as wrong and is reported on its own (parse-failure rate), never replaced by a guess.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mirforge.curriculum.answers import UNPARSED, parse_answer
from mirforge.dataset.layout import check_split
from mirforge.errors import InputError
from mirforge.models.backend import Backend, Query, Sampling

PROMPTS = ("train", "answer")


@dataclass(frozen=True)
class Prediction:
    id: str
    task: str
    category: str
    answer: str
    chosen: str  # a letter or UNPARSED
    how: str
    response: str

    @property
    def correct(self) -> bool:
        return self.chosen == self.answer

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "correct": self.correct}


def select_records(
    records: list[dict[str, Any]],
    split: str | None = None,
    tasks: set[str] | None = None,
    limit: int | None = None,
    flag: str = "--split",
) -> list[dict[str, Any]]:
    """Records of one split (all when None), some tasks, at most ``limit`` per task, in dataset order."""
    if split is not None:
        check_split(split, flag)
        splits = sorted({str(r.get("split")) for r in records})
        records = [r for r in records if r.get("split") == split]
        if not records:
            raise InputError(f"{flag}: no instances in split {split!r}; the dataset has {', '.join(splits)}")
    if tasks:
        present = {r["task"] for r in records}
        unknown = tasks - present
        if unknown:
            raise InputError(f"--tasks: {', '.join(sorted(unknown))} not in the dataset ({', '.join(sorted(present))})")
        records = [r for r in records if r["task"] in tasks]
    if limit is not None:
        seen: Counter[str] = Counter()
        kept = []
        for r in records:
            if seen[r["task"]] < limit:
                kept.append(r)
                seen[r["task"]] += 1
        records = kept
    return records


def prompt_builder(kind: str = "train", schedule: Any = None) -> Callable[[dict[str, Any]], str]:
    """``train``: the curriculum's question format (what a model trained by ``mirforge train`` saw); ``answer``: the
    difficulty prompt that asks for ``Your option: X`` (for models never trained on mirforge data)."""
    if kind == "train":
        from mirforge.curriculum.stages import parse_schedule, question_text

        sched = schedule or parse_schedule({})
        return lambda record: question_text(record, sched)
    if kind == "answer":
        from mirforge.curriculum.difficulty import mcq_prompt

        return mcq_prompt
    raise InputError(f"--prompt: {kind!r} is not one of {', '.join(PROMPTS)}")


class BlankImages:
    """Blank (mid-grey) stand-ins of the same size as each image: the same slots, no visual information."""

    def __init__(self, folder: Path, colour: tuple[int, int, int] = (128, 128, 128)) -> None:
        self.folder = Path(folder)
        self.colour = colour
        self.made: dict[tuple[int, int], Path] = {}

    def __call__(self, path: Path) -> Path:
        from PIL import Image

        with Image.open(path) as im:
            size = im.size
        if size not in self.made:
            self.folder.mkdir(parents=True, exist_ok=True)
            out = self.folder / f"blank-{size[0]}x{size[1]}.png"
            if not out.is_file():
                Image.new("RGB", size, self.colour).save(out)
            self.made[size] = out
        return self.made[size]


def queries(
    records: Sequence[dict[str, Any]],
    root: Path,
    prompt: Callable[[dict[str, Any]], str],
    blank: BlankImages | None = None,
) -> list[Query]:
    out = []
    for r in records:
        images = [Path(root) / p for p in r["images"]]
        missing = [p for p in images if not p.is_file()]
        if missing:
            raise InputError(f"--data: image {missing[0]} of {r['id']} is missing; regenerate or fix the dataset")
        if blank is not None:
            images = [blank(p) for p in images]
        out.append(Query(r["id"], prompt(r), tuple(images)))
    return out


def greedy(max_new_tokens: int = 512, temperature: float = 0.0, top_p: float = 1.0, seed: int = 0) -> Sampling:
    sampling = Sampling(
        k=1, temperature=temperature, top_p=top_p, max_new_tokens=max_new_tokens, repetition_penalty=1.0, seed=seed
    )
    sampling.validate()
    return sampling


def predict(
    backend: Backend,
    records: Sequence[dict[str, Any]],
    root: Path,
    *,
    prompt: Callable[[dict[str, Any]], str],
    sampling: Sampling,
    blank: BlankImages | None = None,
    chunk: int = 16,
    progress: Callable[[int, int], None] | None = None,
) -> list[Prediction]:
    """One answer per record (``sampling.k`` must be 1), parsed with the robust extractor."""
    if sampling.k != 1:
        raise InputError("evaluation takes one answer per question (k=1)")
    qs = queries(records, root, prompt, blank)
    out: list[Prediction] = []
    for start in range(0, len(qs), chunk):
        texts = backend.answer(qs[start : start + chunk], sampling)
        for record, answers in zip(records[start : start + chunk], texts, strict=True):
            text = answers[0] if answers else ""
            parsed = parse_answer(text, record["options"])
            out.append(
                Prediction(
                    id=record["id"],
                    task=record["task"],
                    category=record.get("category", "?"),
                    answer=record["answer"],
                    chosen=parsed.outcome,
                    how=parsed.how,
                    response=text,
                )
            )
        if progress is not None:
            progress(len(out), len(qs))
    return out


def _group(preds: Sequence[Prediction]) -> dict[str, Any]:
    n = len(preds)
    correct = sum(p.correct for p in preds)
    failures = sum(p.chosen == UNPARSED for p in preds)
    return {
        "n": n,
        "correct": correct,
        "accuracy": round(correct / n, 4) if n else None,
        "parse_failures": failures,
        "parse_failure_rate": round(failures / n, 4) if n else None,
    }


def summarize(preds: Sequence[Prediction], chance: dict[str, float] | None = None) -> dict[str, Any]:
    """Accuracy overall, per task and per category; parse failures; confusion of gold x chosen letters."""
    by_task: dict[str, list[Prediction]] = defaultdict(list)
    by_category: dict[str, list[Prediction]] = defaultdict(list)
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for p in preds:
        by_task[p.task].append(p)
        by_category[p.category].append(p)
        confusion[p.answer][p.chosen] += 1
    summary = {
        "overall": _group(preds),
        "by_task": {t: _group(v) for t, v in sorted(by_task.items())},
        "by_category": {c: _group(v) for c, v in sorted(by_category.items())},
        "confusion": {gold: dict(sorted(row.items())) for gold, row in sorted(confusion.items())},
        "chosen": dict(sorted(Counter(p.chosen for p in preds).items())),
        "how": dict(sorted(Counter(p.how for p in preds).items())),
    }
    if chance is not None:
        summary["chance"] = chance
    return summary


def chance_levels(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Expected accuracy of a uniform guess, overall and per task (mean of 1 / number of options)."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for r in records:
        by_task[r["task"]].append(1 / len(r["options"]))
    every = [v for vs in by_task.values() for v in vs]
    out = {"overall": round(sum(every) / len(every), 4) if every else 0.0}
    out.update({t: round(sum(v) / len(v), 4) for t, v in sorted(by_task.items())})
    return out


def write_predictions(preds: Sequence[Prediction], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(p.to_json(), ensure_ascii=False) + "\n" for p in preds))
