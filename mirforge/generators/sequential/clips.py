"""Helpers shared by the sequential tasks: the video knobs of their configs, filming frames, naming things."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.render.video import film
from mirforge.task import TaskConfig, ensure


@dataclass
class ClipConfig(TaskConfig):
    """Video knobs: frames per second of the clips, lossless encoding, and keeping the mp4 bytes."""

    fps: int = 12
    lossless: bool = False
    keep_video: bool = False

    def validate(self) -> None:
        super().validate()
        ensure(4 <= self.fps <= 60, "fps", "must be between 4 and 60")


class Filming:
    """Mixin for tasks that film their scenes: ``shoot`` encodes a clip, and ``videos()`` hands back the mp4
    bytes of the last ``render()`` when ``config.keep_video`` is set (for the runner's ``--keep-video``)."""

    config: ClipConfig
    _videos: list[bytes]

    def videos(self) -> list[bytes]:
        """The mp4 files (bytes) encoded by the last call to ``render()``; empty unless ``keep_video``."""
        return list(getattr(self, "_videos", []))

    def _start_filming(self) -> None:
        self._videos = []

    def shoot(self, frames: Sequence[np.ndarray], indices: Sequence[int]) -> list[np.ndarray]:
        """Encode ``frames`` to an mp4 and return the decoded frames at ``indices``."""
        decoded, data = film(
            frames, self.config.fps, indices, lossless=self.config.lossless, keep=self.config.keep_video
        )
        if data is not None:
            self._videos.append(data)
        return decoded


def seconds(t: float) -> str:
    return f"{t:.2f}"


def image_list(numbers: Sequence[int]) -> str:
    return ", ".join(f"Image {n}" for n in numbers)


def permutation_distractors(
    rng: np.random.Generator, correct: tuple[Any, ...], n: int, near: bool
) -> list[tuple[Any, ...]]:
    """``n`` distinct orders different from ``correct``, in random order.

    When ``near``: a star of adjacent swaps around a pivot, so that the answer is not the order closest to all
    the others (the "consensus" shortcut of distractors that all perturb the answer). With probability
    ``1/(n+1)`` the pivot is ``correct`` itself and the distractors are ``n`` of its adjacent swaps; otherwise
    the pivot is one adjacent swap of ``correct``, and the distractors are the pivot and ``n - 1`` of its other
    adjacent swaps. Every option is then the centre of the star with the same probability ``1/(n+1)``, and the
    others are exchangeable. Orders too short for such a star (fewer than ``n + 1`` items), and ``near=False``,
    get uniformly random shuffles, which are exchangeable with the answer as they are."""
    from mirforge.generators.common import draw_distinct

    correct = tuple(correct)
    m = len(correct)

    def swap(order: tuple[Any, ...], i: int) -> tuple[Any, ...]:
        items = list(order)
        items[i], items[i + 1] = items[i + 1], items[i]
        return tuple(items)

    if near and m - 1 >= n and len(set(correct)) == m:
        if rng.random() < 1.0 / (n + 1):
            pool = [swap(correct, i) for i in range(m - 1)]
            out = [pool[int(j)] for j in rng.permutation(len(pool))[:n]]
        else:
            first = int(rng.integers(m - 1))
            pivot = swap(correct, first)
            pool = [swap(pivot, i) for i in range(m - 1) if i != first]
            out = [pivot, *(pool[int(j)] for j in rng.permutation(len(pool))[: n - 1])]
        return [out[int(j)] for j in rng.permutation(len(out))]

    def shuffle() -> tuple[Any, ...]:
        return tuple(correct[int(j)] for j in rng.permutation(m))

    return draw_distinct(shuffle, n, exclude=[correct])
