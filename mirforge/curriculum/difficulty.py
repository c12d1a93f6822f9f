"""The adaptive difficulty filter: a model answers each question k times; p = correct / k; p >= threshold is easy.

Results go to a sidecar JSONL next to the instances (``DATASET/difficulty.jsonl`` by default); the instances are
not rewritten. Each line is fsynced with its batch, so a kill loses at most the batch in flight; a rerun skips
every id already measured with the same model and parameters (a torn last line is dropped). With a local model the
batches can fan out over Ray actors (``difficulty_ray``); the sidecar is then the same file.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mirforge.curriculum.answers import parse_answer
from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.models.backend import Backend, Query, Sampling
from mirforge.models.transformers_backend import TransformersBackend
from mirforge.ray_session import require_ray

SIDECAR = "difficulty.jsonl"
EXECUTORS = ("local", "ray")
PROMPT_VERSION = 1
KEEP_UNPARSED = 3


def mcq_prompt(record: dict[str, Any]) -> str:
    """MIR's difficulty prompt: the question with its image slots, the options, and the answer format."""
    options = "\n".join(f"{k}. {v.replace('<image>', '[image]')}" for k, v in record["options"].items())
    return (
        f"{record['question']}\nPlease select the most likely answer from the following options:\nOptions:\n"
        f"{options}\nRespond in the following format:\nYour option: <letter>\nReason: <one or two sentences>"
    )


def query_for(record: dict[str, Any], root: Path) -> Query:
    return Query(record["id"], mcq_prompt(record), tuple(Path(root) / p for p in record["images"]))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho with average ranks for ties; None when either side is constant or too short."""
    if len(xs) != len(ys) or len(xs) < 3:
        return None

    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for t in range(i, j + 1):
                out[order[t]] = (i + j) / 2 + 1
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    if len(set(rx)) < 2 or len(set(ry)) < 2:
        return None
    return statistics.correlation(rx, ry)


@dataclass
class TaskSummary:
    task: str
    n: int = 0
    easy: int = 0
    p_sum: float = 0.0
    parse_failures: int = 0
    answers: int = 0
    levels: list[float] = field(default_factory=list)
    ps: list[float] = field(default_factory=list)

    def add(self, line: dict[str, Any]) -> None:
        self.n += 1
        self.easy += line["label"] == "easy"
        self.p_sum += line["p"]
        self.parse_failures += line["parse_failures"]
        self.answers += line["k"]
        if line.get("level") is not None:
            self.levels.append(float(line["level"]))
            self.ps.append(line["p"])

    def row(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "n": self.n,
            "easy_share": self.easy / self.n if self.n else 0.0,
            "mean_p": self.p_sum / self.n if self.n else 0.0,
            "parse_failure_rate": self.parse_failures / self.answers if self.answers else 0.0,
            "spearman_level_p": spearman(self.levels, self.ps),
        }


@dataclass
class DifficultyReport:
    path: Path
    measured: int = 0
    skipped: int = 0
    tasks: dict[str, TaskSummary] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        rows = [self.tasks[t].row() for t in sorted(self.tasks)]
        total = TaskSummary("ALL")
        for t in self.tasks.values():
            total.n += t.n
            total.easy += t.easy
            total.p_sum += t.p_sum
            total.parse_failures += t.parse_failures
            total.answers += t.answers
            total.levels += t.levels
            total.ps += t.ps
        return rows + [total.row()]

    def table(self) -> str:
        head = f"{'task':24} {'n':>6} {'easy':>7} {'mean p':>7} {'unparsed':>9} {'rho(level,p)':>13}"
        lines = [head, "-" * len(head)]
        for r in self.rows():
            rho = "n/a" if r["spearman_level_p"] is None else f"{r['spearman_level_p']:+.3f}"
            lines.append(
                f"{r['task']:24} {r['n']:6d} {r['easy_share']:7.1%} {r['mean_p']:7.3f} "
                f"{r['parse_failure_rate']:9.1%} {rho:>13}"
            )
        return "\n".join(lines)


def run_config(backend: Backend, sampling: Sampling, threshold: float) -> dict[str, Any]:
    """What a sidecar line records about its run; all but the threshold must match for the line to be reused."""
    return {
        "backend": backend.name,
        "model": backend.model_id,
        "params": sampling.to_json(),
        "threshold": threshold,
        "prompt_version": PROMPT_VERSION,
    }


def read_sidecar(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The complete lines of a sidecar; with ``repair`` a torn last line (a kill mid-write) is cut off the file."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    lines, good = [], 0
    for raw in data.splitlines(keepends=True):
        try:
            if not raw.endswith(b"\n"):
                raise ValueError("torn")
            lines.append(json.loads(raw))
            good += len(raw)
        except ValueError:
            break
    if repair and good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
    return lines


def load_pass_rates(path: Path) -> dict[str, float]:
    """id -> p from a sidecar (the last line per id wins)."""
    if not Path(path).is_file():
        raise InputError(f"--difficulty: {path} does not exist; run `mirforge difficulty DATASET` first")
    return {line["id"]: float(line["p"]) for line in read_sidecar(Path(path))}


def measure(record: dict[str, Any], texts: list[str], config: dict[str, Any], keep: bool) -> dict[str, Any]:
    parsed = [parse_answer(t, record["options"]) for t in texts]
    letters = [p.letter for p in parsed]
    correct = sum(1 for letter in letters if letter == record["answer"])
    k = len(texts)
    p = correct / k if k else 0.0
    line = {
        "id": record["id"],
        "task": record["task"],
        "split": record["split"],
        "level": record.get("difficulty", {}).get("level"),
        "gold": record["answer"],
        "k": k,
        "answers": letters,
        "correct": correct,
        "p": p,
        "parse_failures": sum(1 for letter in letters if letter is None),
        "label": "easy" if p >= config["threshold"] else "hard",
        **config,
        "unparsed_responses": [t[:2000] for t, letter in zip(texts, letters, strict=True) if letter is None][
            :KEEP_UNPARSED
        ],
    }
    if keep:
        line["responses"] = texts
    return line


def score_batch(
    backend: Backend, batch: list[dict[str, Any]], root: Path, sampling: Sampling, config: dict[str, Any], keep: bool
) -> list[dict[str, Any]]:
    """The sidecar lines of a batch of records: what both executors run (Ray in its workers, local in-process)."""
    answers = backend.answer([query_for(r, root) for r in batch], sampling)
    return [measure(r, texts, config, keep) for r, texts in zip(batch, answers, strict=True)]


def check_executor(executor: str, backend_name: str, workers: int) -> None:
    """``--executor``/``--workers`` against the backend: Ray fans out a local model only."""
    if executor not in EXECUTORS:
        raise InputError(f"--executor: {executor!r} is not one of {', '.join(EXECUTORS)}")
    if workers < 1:
        raise InputError(f"--workers: must be at least 1, got {workers}")
    if executor == "local" and workers > 1:
        raise InputError("--workers: the local executor runs in this process; add --executor ray to fan out")
    if executor == "ray":
        if backend_name == "openai":
            raise InputError(
                "--executor ray needs a local model backend (--backend transformers); an OpenAI-compatible server "
                "already answers in parallel: raise --concurrency instead"
            )
        require_ray()  # before any model, client or cache file exists


def run_difficulty(
    dataset: Path,
    backend: Backend,
    sampling: Sampling,
    *,
    threshold: float = 0.7,
    out: Path | None = None,
    tasks: set[str] | None = None,
    limit: int | None = None,
    chunk: int = 8,
    keep_responses: bool = False,
    progress: bool = True,
    executor: str = "local",
    workers: int = 1,
    address: str | None = None,
) -> DifficultyReport:
    """Measure every record not yet in the sidecar, ``chunk`` records per ``backend.answer`` call.

    ``executor="ray"`` sends the same chunks to ``workers`` Ray actors, each holding a copy of ``backend``
    (pickled: pass a ``LazyBackend`` so each actor loads the model once, on its first chunk); the lines come back
    and are written in the same order as the local executor's, so the sidecar is the same file.
    """
    sampling.validate()
    check_executor(executor, backend.name, workers)
    if executor == "ray" and isinstance(backend, TransformersBackend):
        raise InputError(
            "--executor ray: pass make_backend('transformers', PATH, lazy=True), so each Ray worker loads the model "
            "itself"
        )
    if not 0 <= threshold <= 1:
        raise InputError(f"--threshold: must be in [0, 1], got {threshold}")
    if limit is not None and limit < 1:
        raise InputError(f"--limit: must be at least 1, got {limit}")
    dataset = Path(dataset)
    records = Dataset(dataset, tasks).records()
    if limit is not None:
        per_task: dict[str, int] = {}
        kept = []
        for r in records:
            per_task[r["task"]] = per_task.get(r["task"], 0) + 1
            if per_task[r["task"]] <= limit:
                kept.append(r)
        records = kept
    path = Path(out) if out else dataset / SIDECAR
    config = run_config(backend, sampling, threshold)
    existing = read_sidecar(path, repair=True)
    for line in existing:
        line["label"] = "easy" if line["p"] >= threshold else "hard"  # a new threshold needs no new answers
        mismatch = {k for k in config if k != "threshold" and line.get(k) != config[k]}
        if mismatch:
            raise InputError(
                f"--out: {path} holds results of another run ({', '.join(sorted(mismatch))} differ); "
                "pass another --out file or delete it"
            )
    done = {line["id"]: line for line in existing}
    report = DifficultyReport(path=path)
    todo = [r for r in records if r["id"] not in done]
    report.skipped = len(records) - len(todo)
    for r in records:
        if r["id"] in done:
            report.tasks.setdefault(r["task"], TaskSummary(r["task"])).add(done[r["id"]])
    path.parent.mkdir(parents=True, exist_ok=True)
    bar = tqdm(total=len(records), initial=report.skipped, unit="q", desc="difficulty", disable=not progress)
    chunks = [todo[start : start + chunk] for start in range(0, len(todo), chunk)]
    if executor == "ray":
        from mirforge.curriculum.difficulty_ray import score_ray

        root, keep = dataset.resolve(), keep_responses
        score = functools.partial(score_batch, backend, root=root, sampling=sampling, config=config, keep=keep)
        scored = score_ray(chunks, score, workers, address)
    else:
        scored = (score_batch(backend, batch, dataset, sampling, config, keep_responses) for batch in chunks)
    try:
        with open(path, "ab") as fh, contextlib.closing(scored):
            for batch, lines in zip(chunks, scored, strict=True):
                fh.write("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode())
                fh.flush()
                os.fsync(fh.fileno())
                for r, line in zip(batch, lines, strict=True):
                    report.tasks.setdefault(r["task"], TaskSummary(r["task"])).add(line)
                report.measured += len(batch)
                bar.update(len(batch))
    finally:
        bar.close()
    return report
