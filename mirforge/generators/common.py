"""Helpers shared by generators: naming objects, drawing distinct distractors."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np

from mirforge.errors import Reject
from mirforge.render.scene3d import PALETTE, SHAPE_NOUNS, SHAPES

T = TypeVar("T")


def distinct_colors(rng: np.random.Generator, n: int) -> list[str]:
    names = list(PALETTE)
    if n > len(names):
        raise ValueError(f"only {len(names)} colours are available, asked for {n}")
    return [names[i] for i in rng.permutation(len(names))[:n]]


def random_shapes(rng: np.random.Generator, n: int) -> list[str]:
    return [SHAPES[int(i)] for i in rng.integers(len(SHAPES), size=n)]


def object_name(color: str, shape: str) -> str:
    return f"{color} {SHAPE_NOUNS[shape]}"


def draw_distinct(
    make: Callable[[], T], n: int, exclude: list[T], key: Callable[[T], Hashable] = lambda x: x, tries: int = 200
) -> list[T]:
    """``n`` values from ``make()`` that differ (by ``key``) from each other and from ``exclude``.

    Raises :class:`Reject` when the space is too small, so the pipeline draws a new scene.
    """
    seen = {key(x) for x in exclude}
    out: list[T] = []
    for _ in range(tries):
        candidate = make()
        k = key(candidate)
        if k not in seen:
            seen.add(k)
            out.append(candidate)
            if len(out) == n:
                return out
    raise Reject("not enough distinct distractors")
