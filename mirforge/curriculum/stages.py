"""The staged easy-to-hard schedule (MIR) as data, and the builder that turns a dataset into per-stage records.

Default schedule: stage0 = every easy instance, target = the full chain; stages 1..5 = each a fresh seeded 40% sample
of the hard pool, the reasoning steps moving one per stage from the prompt to the target (stage1: prompt carries
all four steps, target is the conclusion; stage5: prompt is the question alone, target the whole chain). Unlike
MIR's ``build_context``, a step is never in the prompt of a stage that asks the model to write it.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.errors import InputError

STEPS = ("summary", "caption", "text2img", "img2img", "conclusion")
POOLS = ("easy", "hard", "all")
IMAGE_SLOT = "<image>"
IMAGE_ESCAPE = "[image]"


def default_schedule() -> dict[str, Any]:
    stages: list[dict[str, Any]] = [
        {"name": "stage0", "pool": "easy", "fraction": 1.0, "prompt": [], "target": list(STEPS)},
    ]
    for i in range(1, len(STEPS) + 1):
        moved = len(STEPS) - i  # steps still in the prompt
        stages.append(
            {
                "name": f"stage{i}",
                "pool": "hard",
                "fraction": 0.4,
                "prompt": list(STEPS[:moved]),
                "target": list(STEPS[moved:]),
            }
        )
    return {
        "version": 1,
        "seed": 0,
        "threshold": 0.7,
        "shuffle": True,
        "instruction": "Select the correct option from the following options:",
        "context_header": "Reference Context:",
        "caption_format": "Image {n}: {text}",
        "tags": {step: f"<{step}>{{text}}</{step}>" for step in STEPS},
        "stages": stages,
    }


@dataclass(frozen=True)
class Stage:
    name: str
    pool: str
    fraction: float
    prompt: tuple[str, ...]
    target: tuple[str, ...]


@dataclass(frozen=True)
class Schedule:
    seed: int
    threshold: float
    shuffle: bool
    instruction: str
    context_header: str
    caption_format: str
    tags: dict[str, str]
    stages: tuple[Stage, ...]

    @property
    def needs_difficulty(self) -> bool:
        return any(s.pool != "all" for s in self.stages)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "seed": self.seed,
            "threshold": self.threshold,
            "shuffle": self.shuffle,
            "instruction": self.instruction,
            "context_header": self.context_header,
            "caption_format": self.caption_format,
            "tags": dict(self.tags),
            "stages": [
                {
                    "name": s.name,
                    "pool": s.pool,
                    "fraction": s.fraction,
                    "prompt": list(s.prompt),
                    "target": list(s.target),
                }
                for s in self.stages
            ],
        }


def parse_schedule(data: dict[str, Any], where: str = "schedule") -> Schedule:
    """Check a schedule dict (defaults filled from the MIR schedule) and name the field that is wrong."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: must be a mapping with a `stages` list")
    base = default_schedule()
    unknown = set(data) - set(base)
    if unknown:
        raise InputError(f"{where}: unknown keys {', '.join(sorted(unknown))}; allowed: {', '.join(base)}")
    merged = {**base, **data}
    tags = {**base["tags"], **(merged.get("tags") or {})}
    for step, tag in tags.items():
        if step not in STEPS:
            raise InputError(f"{where}: tags.{step}: not a step; steps are {', '.join(STEPS)}")
        if "{text}" not in tag:
            raise InputError(f"{where}: tags.{step}: {tag!r} must contain {{text}}")
    threshold = merged["threshold"]
    if not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise InputError(f"{where}: threshold: must be a number in [0, 1], got {threshold!r}")
    if not isinstance(merged["seed"], int) or merged["seed"] < 0:
        raise InputError(f"{where}: seed: must be a non-negative integer, got {merged['seed']!r}")
    if "{text}" not in merged["caption_format"]:
        raise InputError(f"{where}: caption_format: must contain {{text}} (and may use {{n}})")
    stages = []
    names: set[str] = set()
    if not isinstance(merged["stages"], list) or not merged["stages"]:
        raise InputError(f"{where}: stages: must be a non-empty list")
    for i, raw in enumerate(merged["stages"]):
        at = f"{where}: stages[{i}]"
        if not isinstance(raw, dict):
            raise InputError(f"{at}: must be a mapping with name, pool, fraction, prompt, target")
        extra = set(raw) - {"name", "pool", "fraction", "prompt", "target"}
        if extra:
            raise InputError(f"{at}: unknown keys {', '.join(sorted(extra))}")
        name = str(raw.get("name") or f"stage{i}")
        if name in names or not name.replace("_", "").replace("-", "").isalnum():
            raise InputError(f"{at}.name: {name!r} must be unique and use only letters, digits, - and _")
        names.add(name)
        pool = raw.get("pool", "hard")
        if pool not in POOLS:
            raise InputError(f"{at}.pool: {pool!r} is not one of {', '.join(POOLS)}")
        fraction = raw.get("fraction", 1.0)
        if not isinstance(fraction, int | float) or not 0 < fraction <= 1:
            raise InputError(f"{at}.fraction: must be in (0, 1], got {fraction!r}")
        prompt, target = tuple(raw.get("prompt", [])), tuple(raw.get("target", []))
        for field, steps in (("prompt", prompt), ("target", target)):
            bad = [s for s in steps if s not in STEPS]
            if bad:
                raise InputError(f"{at}.{field}: unknown steps {', '.join(bad)}; steps are {', '.join(STEPS)}")
            if len(set(steps)) != len(steps):
                raise InputError(f"{at}.{field}: a step is listed twice")
        if not target:
            raise InputError(f"{at}.target: must list at least one step")
        both = set(prompt) & set(target)
        if both:
            raise InputError(f"{at}: {', '.join(sorted(both))} in both prompt and target; a step goes to one side")
        stages.append(Stage(name, pool, float(fraction), prompt, target))
    return Schedule(
        seed=merged["seed"],
        threshold=float(threshold),
        shuffle=bool(merged["shuffle"]),
        instruction=str(merged["instruction"]),
        context_header=str(merged["context_header"]),
        caption_format=str(merged["caption_format"]),
        tags=tags,
        stages=tuple(stages),
    )


def load_schedule(path: Path | None) -> Schedule:
    if path is None:
        return parse_schedule(default_schedule())
    path = Path(path)
    if not path.is_file():
        raise InputError(f"--schedule: {path} does not exist; write one with `mirforge curriculum --print-schedule`")
    text = path.read_text()
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - any parse error is bad input
        raise InputError(f"--schedule: {path} is not valid {path.suffix[1:] or 'YAML'} ({exc})") from None
    return parse_schedule(data, where=f"--schedule {path}")


def escape_slots(text: str) -> str:
    """Literal ``<image>`` inside step or option text would add an image tag: write it as ``[image]``."""
    return text.replace(IMAGE_SLOT, IMAGE_ESCAPE)


def step_text(record: dict[str, Any], step: str, schedule: Schedule) -> str:
    if step == "caption":
        captions = record["caption"] if isinstance(record["caption"], list) else [record["caption"]]
        body = "\n".join(schedule.caption_format.format(n=i + 1, text=c) for i, c in enumerate(captions))
    else:
        body = record[step]
    return schedule.tags[step].format(text=escape_slots(body))


def question_text(record: dict[str, Any], schedule: Schedule) -> str:
    options = "\n".join(f"{k}. {escape_slots(v)}" for k, v in record["options"].items())
    return f"{record['question']}\n{schedule.instruction}\n{options}"


def format_pair(record: dict[str, Any], stage: Stage, schedule: Schedule) -> tuple[str, str]:
    prompt = question_text(record, schedule)
    if stage.prompt:
        context = "\n".join(step_text(record, s, schedule) for s in stage.prompt)
        prompt += f"\n{schedule.context_header}\n{context}"
    target = "\n".join(step_text(record, s, schedule) for s in stage.target)
    return prompt, target


def stage_rng(seed: int, name: str) -> random.Random:
    digest = hashlib.sha256(f"mirforge-stage:{seed}:{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pools(records: list[dict[str, Any]], p: dict[str, float], threshold: float) -> dict[str, list[dict[str, Any]]]:
    easy = [r for r in records if r["id"] in p and p[r["id"]] >= threshold]
    hard = [r for r in records if r["id"] in p and p[r["id"]] < threshold]
    return {"easy": easy, "hard": hard, "all": list(records)}


def select(pool: list[dict[str, Any]], stage: Stage, schedule: Schedule) -> list[dict[str, Any]]:
    """A seeded sample of ``fraction`` of the pool; its order is shuffled (seeded) unless ``shuffle`` is false."""
    count = round(stage.fraction * len(pool))
    chosen = stage_rng(schedule.seed, stage.name).sample(pool, count)
    if not schedule.shuffle:
        order = {r["id"]: i for i, r in enumerate(pool)}
        chosen.sort(key=lambda r: order[r["id"]])
    return chosen


def build_stage(records: list[dict[str, Any]], stage: Stage, schedule: Schedule) -> list[dict[str, Any]]:
    out = []
    for r in records:
        prompt, target = format_pair(r, stage, schedule)
        out.append(
            {
                "id": r["id"],
                "task": r["task"],
                "stage": stage.name,
                "prompt": prompt,
                "target": target,
                "images": list(r["images"]),
                "answer": r["answer"],
                "prompt_steps": list(stage.prompt),
                "target_steps": list(stage.target),
            }
        )
    return out


def stage_stats(name: str, rows: list[dict[str, Any]], pool_size: int) -> dict[str, Any]:
    tasks: dict[str, int] = {}
    for row in rows:
        tasks[row["task"]] = tasks.get(row["task"], 0) + 1
    return {
        "stage": name,
        "count": len(rows),
        "pool": pool_size,
        "mean_prompt_chars": round(statistics.fmean(len(r["prompt"]) for r in rows), 1) if rows else 0.0,
        "mean_target_chars": round(statistics.fmean(len(r["target"]) for r in rows), 1) if rows else 0.0,
        "images": sum(len(r["images"]) for r in rows),
        "tasks": dict(sorted(tasks.items())),
    }


def empty_reason(stage: Stage, pool_size: int, schedule: Schedule) -> str | None:
    """Why ``stage`` gives no rows (None when it gives some): what a reader needs to change the schedule."""
    if pool_size == 0:
        if stage.pool == "easy":
            return f"its easy pool is empty: no instance has a pass rate p >= {schedule.threshold:g}"
        if stage.pool == "hard":
            return f"its hard pool is empty: every instance has a pass rate p >= {schedule.threshold:g}"
        return "the dataset has no instances"
    if round(stage.fraction * pool_size) == 0:
        return f"fraction {stage.fraction:g} of its {pool_size}-instance {stage.pool} pool rounds to 0 rows"
    return None


def build_curriculum(
    records: list[dict[str, Any]], schedule: Schedule, p: dict[str, float] | None
) -> list[tuple[Stage, list[dict[str, Any]], dict[str, Any]]]:
    """Per stage: the stage, its rows and its stats line (with ``dropped``, the reason, when it has no rows).
    ``p`` maps instance id -> measured pass rate."""
    if schedule.needs_difficulty:
        if p is None:
            raise InputError(
                "--difficulty: the schedule splits easy/hard but there is no difficulty file; run "
                "`mirforge difficulty DATASET ...` first, or use `pool: all` in every stage of --schedule"
            )
        missing = [r["id"] for r in records if r["id"] not in p]
        if missing:
            raise InputError(
                f"--difficulty: {len(missing)} of {len(records)} instances have no measured p (first: {missing[0]}); "
                "rerun `mirforge difficulty` on the dataset (it resumes) or pass the matching --difficulty file"
            )
    split = pools(records, p or {}, schedule.threshold)
    result = []
    for stage in schedule.stages:
        pool = split[stage.pool]
        rows = build_stage(select(pool, stage, schedule), stage, schedule)
        stats = stage_stats(stage.name, rows, len(pool))
        reason = empty_reason(stage, len(pool), schedule)
        if reason:
            stats["dropped"] = reason
        result.append((stage, rows, stats))
    return result
