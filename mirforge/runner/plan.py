"""The run's configuration and its cut into shards: (task, split, index range).

The shard layout depends on the configuration only, never on the number of workers, so any executor with any
number of workers writes the same files.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.pipeline import RunSpec

SPLIT_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides the bytes of a split (workers and executor do not)."""

    tasks: tuple[str, ...]
    n: int | dict[str, int]  # instances per task: one count for all, or a count per task name
    seed: int = 0
    split: str = "test"
    shard_size: int = 50
    task_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    templates: str | None = None
    renderer: str = "moderngl"
    keep_video: bool = False  # also write the encoded clips of video tasks under videos/<task>/<split>/
    rewriter: dict[str, Any] | None = None  # {"backend": "openai", "model": ..., "base_url": ..., ...}
    realism: dict[str, Any] | None = None  # {"mode": "diffusion", "model": DIR, "controlnet": DIR, ...}

    def validate(self) -> None:
        from mirforge.render.gl import BACKENDS

        if self.renderer not in BACKENDS:
            raise InputError(f"--renderer: {self.renderer!r} is not one of {', '.join(BACKENDS)}")
        if isinstance(self.n, dict):
            missing = [t for t in self.tasks if t not in self.n]
            extra = sorted(set(self.n) - set(self.tasks))
            if missing or extra:
                what = f"no count for {', '.join(missing)}" if missing else f"{', '.join(extra)} not in --tasks"
                raise InputError(f"n: the per-task counts must name exactly the tasks of the run ({what})")
            for task, count in self.n.items():
                if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                    raise InputError(f"n.{task}: must be a positive count of instances, got {count!r}")
        elif isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise InputError(f"--n: must be a positive count of instances per task, got {self.n!r}")
        if self.seed < 0:
            raise InputError(f"--seed: must be a non-negative integer, got {self.seed}")
        if self.shard_size < 1:
            raise InputError(f"--shard-size: must be at least 1, got {self.shard_size}")
        if not self.split or not set(self.split) <= SPLIT_CHARS:
            raise InputError(f"--split: {self.split!r} must be letters, digits, '_' or '.'")
        if self.templates is not None and not Path(self.templates).is_dir():
            raise InputError(f"--templates: {self.templates} is not a folder")
        unknown = set(self.task_config) - set(self.tasks)
        if unknown:
            raise InputError(f"--set: config given for {', '.join(sorted(unknown))}, which is not in --tasks")

    def count(self, task: str) -> int:
        """How many instances of ``task`` this run makes."""
        return self.n[task] if isinstance(self.n, dict) else self.n

    def spec(self, root: Path) -> RunSpec:
        """The per-instance view of this config, for a dataset folder ``root``."""
        return RunSpec(
            run_seed=self.seed,
            split=self.split,
            templates=Path(self.templates) if self.templates else None,
            rewriter=self.rewriter,
            llm_cache=Path(root) / "cache" / "llm.sqlite" if self.rewriter else None,
            realism=self.realism,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunConfig:
        return cls(**{**data, "tasks": tuple(data["tasks"])})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tasks"] = list(self.tasks)
        return data


@dataclass(frozen=True)
class Shard:
    task: str
    split: str
    number: int
    start: int
    stop: int

    @property
    def path(self) -> str:
        return f"instances/{self.task}/{self.split}/shard-{self.number:05d}.jsonl"

    def __len__(self) -> int:
        return self.stop - self.start


def plan(config: RunConfig) -> list[Shard]:
    shards = []
    for task in config.tasks:
        n = config.count(task)
        for number, start in enumerate(range(0, n, config.shard_size)):
            shards.append(Shard(task, config.split, number, start, min(start + config.shard_size, n)))
    return shards
