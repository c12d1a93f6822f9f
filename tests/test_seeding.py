"""Seeds depend on (run seed, split, task, index) only; answer slots are exactly balanced."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

from mirforge.seeding import attempt_rng, balanced_slot, balanced_variant, instance_seed, seed_value, stable_hash


def test_stable_hash_ignores_python_hash_salt():
    code = "from mirforge.seeding import stable_hash; print(stable_hash('view_3d'))"
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": salt},
        ).stdout
        for salt in ("1", "2")
    }
    assert outs == {f"{stable_hash('view_3d')}\n"}


def test_every_part_changes_the_seed():
    base = seed_value(instance_seed(7, "test", "view_3d", 3))
    assert seed_value(instance_seed(7, "test", "view_3d", 3)) == base
    others = [
        instance_seed(8, "test", "view_3d", 3),
        instance_seed(7, "train", "view_3d", 3),
        instance_seed(7, "test", "depth_relationship", 3),
        instance_seed(7, "test", "view_3d", 4),
    ]
    assert len({base, *(seed_value(s) for s in others)}) == 5


def test_seed_zero_is_a_seed():
    a = attempt_rng(instance_seed(0, "test", "view_3d", 0), 0).integers(1 << 30, size=4)
    b = attempt_rng(instance_seed(0, "test", "view_3d", 0), 0).integers(1 << 30, size=4)
    c = attempt_rng(instance_seed(1, "test", "view_3d", 0), 0).integers(1 << 30, size=4)
    assert (a == b).all() and not (a == c).all()


def test_attempts_get_fresh_streams():
    seq = instance_seed(0, "test", "view_3d", 0)
    draws = {tuple(attempt_rng(seq, k).integers(1 << 30, size=3)) for k in range(5)}
    assert len(draws) == 5


def test_balanced_slot_is_exact_per_block_and_not_periodic():
    slots = [balanced_slot(3, "test", "view_3d", i, 4) for i in range(400)]
    assert Counter(slots) == {0: 100, 1: 100, 2: 100, 3: 100}
    for block in range(100):
        assert sorted(slots[4 * block : 4 * block + 4]) == [0, 1, 2, 3]
    assert len({tuple(slots[i : i + 4]) for i in range(0, 400, 4)}) > 10


def test_three_option_tasks_balance_too():
    assert Counter(balanced_slot(0, "test", "t", i, 3) for i in range(300)) == {0: 100, 1: 100, 2: 100}


def test_balanced_variant_is_exact_per_block_and_independent_of_the_slot():
    assert balanced_variant(3, "test", "t", 5, 1) is None  # a task with one variant gets none
    variants = [balanced_variant(3, "test", "t", i, 2) for i in range(400)]
    assert all(sorted(variants[i : i + 2]) == [0, 1] for i in range(0, 400, 2))
    slots = [balanced_slot(3, "test", "t", i, 4) for i in range(400)]
    together = Counter(zip(variants, slots, strict=True))
    assert len(together) == 8 and min(together.values()) > 25  # every (variant, slot) pair occurs, none dominates


def test_each_lane_is_balanced_on_its_own():
    """With lanes (a task's levels, dealt to indices in turn), every level gets each value equally often; balancing
    consecutive indices alone left a level's share to chance (two variants over three levels: a level could hold
    60 of one and 40 of the other in 100 of its indices)."""
    slots = [balanced_slot(3, "test", "t", i, 4, lanes=3) for i in range(1200)]
    variants = [balanced_variant(3, "test", "t", i, 2, lanes=3) for i in range(1200)]
    for lane in range(3):
        mine = slots[lane::3]
        assert all(sorted(mine[j : j + 4]) == [0, 1, 2, 3] for j in range(0, 400, 4))
        assert Counter(variants[lane::3]) == {0: 200, 1: 200}
    assert slots[0::3] != slots[1::3]  # the lanes are not copies of one another
    unbalanced = [balanced_variant(3, "test", "t", i, 2) for i in range(1200)]
    assert any(Counter(unbalanced[lane::3])[0] != 200 for lane in range(3))  # what lanes are for


def test_a_task_with_variants_must_take_them():
    import pytest

    from mirforge.task import Task

    class Bad(Task):
        name, category, description, variants = "bad", "spatial", "no variant keyword", 2

        def sample(self, rng, level): ...
        def ask(self, scene, rng, slot): ...
        def render(self, scene, question): ...
        def verify(self, question, rendered): ...
        def step_facts(self, scene, question, rendered): ...

    with pytest.raises(TypeError, match="variant keyword"):
        Bad.check_contract()

    class SampleOnly(Bad):  # a balanced scene family: sample() takes the variant, ask() need not
        def sample(self, rng, level, variant=None): ...

    SampleOnly.check_contract()
