"""Questions about the time order of a few frames, and which options stay possible when some frames are hidden.

Frames are named by their image numbers; a time order is a list of image numbers, earliest first. A question
(:class:`Ask`) is one of:

- ``order``: which of these orders is the time order? (options: orders)
- ``rank``: which frame was taken k-th? (options: frames)
- ``twin``: two processes filmed at the same moments; which frame of the first was taken at the same moment as a
  given frame (the anchor) of the second? (options: every frame of the first; see :func:`twin_consistent`)

Questions about a named anchor frame ("which frame comes right after Image 3?") are left out on purpose: every
frame must be needed, so every frame but the anchor must be an option, and the option frames then show a gap in
the progression where the anchor sits, right next to the answer. The option frame nearest the per-pixel median of
the option frames found the answer in 41% to 56% of such questions (chance 25%).

:func:`consistent` answers from a partial view: the hidden frames may sit anywhere in time, the visible ones keep
their measured order, and an option survives when some placement of the hidden frames makes it right. A frame is
needed when hiding it leaves more than one option; :func:`configurations` lists, for a number of frames and
options, every way of asking (the parameter and the set of option frames, in chronological positions) in which
each frame is needed, so ``sample`` only draws questions that need every image.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

KINDS = ("order", "rank", "twin")


@dataclass(frozen=True)
class Ask:
    """A question about frames: its kind, its parameter (the 1-based rank for ``rank``, the anchor frame of the
    second clip for ``twin``, 0 for ``order``) and the options' keys (frames, or orders of frames for ``order``)."""

    kind: str
    param: int
    keys: tuple[Any, ...]


def wanted(ask: Ask, order: Sequence[int]) -> Any:
    """The key that is right if ``order`` is the time order (None when the question has no answer then)."""
    if ask.kind == "order":
        return tuple(order)
    return order[ask.param - 1] if 0 < ask.param <= len(order) else None


def answers(ask: Ask, order: Sequence[int]) -> set[int]:
    """The indices of the options that are right if ``order`` is the time order."""
    want = wanted(ask, order)
    return {i for i, key in enumerate(ask.keys) if key == want}


def placements(visible: Sequence[int], hidden: Sequence[int]) -> Iterator[list[int]]:
    """Every time order that keeps ``visible`` in its order and puts the ``hidden`` frames anywhere."""
    if not hidden:
        yield list(visible)
        return
    first, rest = hidden[0], hidden[1:]
    for order in placements(visible, rest):
        for p in range(len(order) + 1):
            yield [*order[:p], first, *order[p:]]


def consistent(ask: Ask, visible: Sequence[int], hidden: Sequence[int]) -> set[int]:
    """The options that some placement of the ``hidden`` frames around the ``visible`` ones (in time order) makes
    right."""
    out: set[int] = set()
    for order in placements(visible, sorted(hidden)):
        out |= answers(ask, order)
        if len(out) == len(ask.keys):
            break
    return out


def every_frame_needed(ask: Ask, order: Sequence[int]) -> bool:
    """Hiding any one frame of the true ``order`` leaves more than one option."""
    return all(len(consistent(ask, [i for i in order if i != k], [k])) > 1 for k in order)


def order_options(n: int) -> list[tuple[tuple[int, ...], ...]]:
    """The option sets of an ``order`` question with 4 options over ``n`` frames, in chronological positions: the
    orders reached from the true one by the group {identity, swap i, swap j, both} of two disjoint swaps of
    neighbouring frames. Every option reaches the other three by the same moves, so none is the centre of the
    others."""
    out = []
    ident = tuple(range(n))
    for i in range(n - 1):
        for j in range(i + 2, n - 1):
            a = _swap(ident, i)
            b = _swap(ident, j)
            out.append((ident, a, b, _swap(a, j)))
    return out


def _swap(order: tuple[int, ...], i: int) -> tuple[int, ...]:
    items = list(order)
    items[i], items[i + 1] = items[i + 1], items[i]
    return tuple(items)


@cache
def configurations(kind: str, n: int, n_options: int, need_all: bool) -> tuple[tuple[int, Ask], ...]:
    """Every way to ask a ``kind`` question over ``n`` frames with ``n_options`` options, in chronological
    positions (frame ``p`` is the p-th earliest, counted from 0; the answer is the option listed first), each with
    the answer's rank among the options in time (0: the earliest option). With ``need_all``, only those in which
    every frame is needed."""
    truth = list(range(n))
    found: list[tuple[int, Ask]] = []
    if kind == "order":
        if n_options != 4:
            return ()
        for group in order_options(n):
            ask = Ask("order", 0, group)
            if not need_all or every_frame_needed(ask, truth):
                found.append((0, ask))
        return tuple(found)
    for param in range(1, n + 1):
        target = param - 1
        pool = [p for p in range(n) if p != target]
        for others in combinations(pool, n_options - 1):
            keys = (target, *others)
            ask = Ask(kind, param, keys)
            if not need_all or every_frame_needed(ask, truth):
                found.append((sorted(keys).index(target), ask))
    return tuple(found)


def twin_consistent(
    ask: Ask, visible: tuple[Sequence[int], Sequence[int]], hidden: tuple[Sequence[int], Sequence[int]]
) -> set[int]:
    """A ``twin`` question from a partial view of both clips (visible frames in time order, hidden ones anywhere):
    the options some placement makes right. The answer is the frame of the first clip in the place (counted in
    time) that the anchor takes in the second."""
    out: set[int] = set()
    for first in placements(visible[0], sorted(hidden[0])):
        for second in placements(visible[1], sorted(hidden[1])):
            want = first[second.index(ask.param)]
            out |= {i for i, key in enumerate(ask.keys) if key == want}
        if len(out) == len(ask.keys):
            break
    return out
