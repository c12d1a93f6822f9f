"""Helpers shared by generators: naming objects, drawing distinct distractors."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

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


SAME_PLURAL = frozenset({"fish", "starfish", "sheep"})


def plural(noun: str) -> str:
    """A noun's plural, its head word inflected: "mug" -> "mugs", "glass" -> "glasses", "shelf of books" ->
    "shelves of books", "chest of drawers" -> "chests of drawers", "fish" -> "fish"."""
    words = noun.split(" ")
    head = next((i - 1 for i, w in enumerate(words) if i and w in ("of", "with")), len(words) - 1)
    word = words[head]
    if word in SAME_PLURAL:
        return noun
    if word.endswith(("s", "x", "z", "ch", "sh")):
        words[head] = word + "es"
    elif word.endswith("f"):
        words[head] = word[:-1] + "ves"
    elif word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        words[head] = word[:-1] + "ies"
    else:
        words[head] = word + "s"
    return " ".join(words)


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
