"""Per-instance seeds: a function of (run seed, split, task, index) only.

Nothing here touches global RNG state, and no seed is ever replaced by a random one: 0 is a seed.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_hash(text: str) -> int:
    """A 63-bit hash of ``text`` that is the same in every process (unlike the salted ``hash()``)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little") >> 1


def instance_seed(run_seed: int, split: str, task: str, index: int) -> np.random.SeedSequence:
    if run_seed < 0 or index < 0:
        raise ValueError("run_seed and index must be non-negative")
    return np.random.SeedSequence([run_seed, stable_hash(split), stable_hash(task), index])


def attempt_rng(seq: np.random.SeedSequence, attempt: int) -> np.random.Generator:
    """The generator of one attempt: attempt 0, then a fresh stream after each rejection."""
    return np.random.default_rng(np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, attempt)))


def seed_value(seq: np.random.SeedSequence) -> int:
    """A single integer that names the instance's seed in provenance."""
    return int(seq.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def balanced_choice(run_seed: int, split: str, task: str, index: int, k: int, purpose: str, lanes: int = 1) -> int:
    """One of ``k`` values, exactly uniform over every block of ``k`` consecutive indices of one lane.

    The indices of a split are dealt to ``lanes`` in turn (lane ``index % lanes``: a task's difficulty levels), and
    each lane is balanced on its own, so every level gets each value equally often, not only the split as a whole.
    Each block gets its own seeded permutation (per ``purpose``), so the value is not predictable from the index,
    and the balance holds for any contiguous range, whatever the shard layout, and whatever attempt is accepted.
    """
    lane, step = index % lanes, index // lanes
    block, offset = divmod(step, k)
    seq = np.random.SeedSequence([run_seed, stable_hash(split), stable_hash(task), stable_hash(purpose), lane, block])
    return int(np.random.default_rng(seq).permutation(k)[offset])


def balanced_slot(run_seed: int, split: str, task: str, index: int, n_options: int, lanes: int = 1) -> int:
    """The option position of the correct answer: a balanced choice among the positions, per lane (level)."""
    return balanced_choice(run_seed, split, task, index, n_options, "slot", lanes)


def balanced_variant(run_seed: int, split: str, task: str, index: int, variants: int, lanes: int = 1) -> int | None:
    """Which of a task's ``variants`` question variants an index gets (None for a task with one), per lane (level)."""
    return balanced_choice(run_seed, split, task, index, variants, "variant", lanes) if variants > 1 else None
