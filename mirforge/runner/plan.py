"""The cut of a run into shards, (task, split, index range), and the order they are handed to the workers.

The shard layout depends on the configuration only, never on the number of workers, so any executor with any
number of workers writes the same files. The order only decides when each shard runs, never what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from mirforge.registry import load
from mirforge.runner.config import RunConfig


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


def schedule(shards: list[Shard]) -> list[Shard]:
    """The costliest shards first (the task's ``Needs.cost`` per instance times the shard's instances): a long
    shard started last would keep one worker busy while the others idle at the end of the run."""
    return sorted(shards, key=lambda s: -load(s.task).needs.cost * len(s))
