"""A task plugin that misbehaves on purpose, and a way to install it for a run's worker processes.

``Faulty`` is a tiny working task (one grey square; which option is its brightness) until its config asks for a
fault: sleep, loop forever, call ``sys.exit``, or raise an exception that cannot be pickled. It is registered
like any plugin, by a ``mirforge.tasks`` entry point: :func:`install` writes the metadata of a throwaway
distribution, and a folder on ``sys.path`` / ``PYTHONPATH`` holding it makes every process of a run (spawned
workers, a driver started as a command, Ray workers) find the task.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mirforge.task import Needs, Question, Rendered, Task, TaskConfig, place

FAULTS = ("", "sleep", "loop", "loop_on_even", "exit", "unpicklable", "lock", "error", "crash", "crash_once")


class Unpicklable(Exception):
    """Pickles, but cannot be rebuilt: ``Exception.__reduce__`` passes ``args`` (the message) back to an
    ``__init__`` that wants two arguments."""

    def __init__(self, part: str, value: int):
        super().__init__(f"the {part} broke at {value}")


class HoldsALock(Exception):
    """Cannot be pickled at all: it keeps a lock."""

    def __init__(self, message: str):
        super().__init__(message)
        self.lock = threading.Lock()


@dataclass
class FaultyConfig(TaskConfig):
    fault: str = ""  # one of FAULTS
    seconds: float = 0.0  # how long "sleep" sleeps in sample()
    big: int = 0  # length of a list in the step facts, for templates that loop over it
    marker: str = ""  # "crash_once": the file whose absence makes the next sample() kill its process (and create it)

    def validate(self) -> None:
        super().validate()
        if self.fault not in FAULTS:
            raise ValueError(f"fault: one of {FAULTS}")


def _first_to_mark(path: str) -> bool:
    """Create ``path``; False when some process already did (workers race for it)."""
    try:
        open(path, "x").close()
    except FileExistsError:
        return False
    return True


class Faulty(Task):
    name = "faulty"
    category = "analytical"
    description = "a task plugin that misbehaves on purpose (tests only)"
    Config = FaultyConfig
    levels = (1,)
    needs = Needs(renderer=None)
    image_size = 8

    def sample(self, rng: np.random.Generator, level: int) -> int:
        value = int(rng.integers(1, 9))
        fault = self.config.fault
        if fault == "sleep":
            time.sleep(self.config.seconds)
        elif fault == "loop" or (fault == "loop_on_even" and value % 2 == 0):
            while True:
                pass
        elif fault == "exit":
            sys.exit(0)
        elif fault == "crash" or (fault == "crash_once" and _first_to_mark(self.config.marker)):
            os.kill(os.getpid(), signal.SIGKILL)  # as a native crash or the OOM killer ends a worker
        elif fault == "unpicklable":
            raise Unpicklable("sampler", value)
        elif fault == "lock":
            raise HoldsALock("a lock was held")
        elif fault == "error":
            raise ValueError("bad\nvalue")  # two lines: the report must still be one
        return value

    def ask(self, scene: int, rng: np.random.Generator, slot: int) -> Question:
        others = [v for v in range(1, 12) if v != scene][:3]
        return Question("Which brightness does <image> show?", [str(v) for v in place(scene, others, slot)], slot)

    def render(self, scene: int, question: Question) -> Rendered:
        return Rendered([np.full((8, 8, 3), 20 * scene, np.uint8)], {"value": scene}, [])

    def verify(self, question: Question, rendered: Rendered) -> int:
        return question.options.index(str(rendered.measured["value"]))

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        return set(range(len(question.options))) if hidden else {self.verify(question, rendered)}

    def step_facts(self, scene: int, question: Question, rendered: Rendered) -> dict[str, Any]:
        return {"value": scene, "big": list(range(self.config.big))}

    def template_dir(self) -> Path:
        return Path(__file__).parent / "fixtures" / "faulty"


def install(site: Path) -> Path:
    """A folder that, on ``sys.path``, registers ``faulty`` (this module must be importable too)."""
    info = site / "mirforge_faulty_tasks-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mirforge-faulty-tasks\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[mirforge.tasks]\nfaulty = faulty_tasks:Faulty\n")
    return site
