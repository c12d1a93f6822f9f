"""One generate at a time writes into a folder (an advisory lock), and the manifest is saved split by split."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from mirforge.dataset.layout import LOCK
from mirforge.dataset.lock import folder_lock
from mirforge.dataset.manifest import Manifest
from mirforge.errors import InputError
from mirforge.runner import generate
from mirforge.runner.config import RunConfig

from test_runner import CMD, mirforge


def test_the_lock_names_its_holder_and_leaves_nothing_behind(tmp_path):
    out = tmp_path / "new" / "data"
    with folder_lock(out):
        assert (out / LOCK).read_text().startswith(f"pid {os.getpid()} on ")
        with pytest.raises(InputError) as caught, folder_lock(out):  # a second open file description conflicts
            pass
        message = str(caught.value)
        assert f"{out} is in use by another mirforge generate (pid {os.getpid()} on " in message, message
        assert (out / LOCK).is_file(), "the refused run removed the holder's lock file"
    assert not (tmp_path / "new").exists(), "a folder the lock created and nothing filled is removed"
    out.mkdir(parents=True)
    (out / LOCK).write_text("pid 1 on a killed run\n")  # left by a holder killed with SIGKILL: taken over
    with folder_lock(out):
        (out / "kept").write_text("")
    assert sorted(p.name for p in out.iterdir()) == ["kept"]


def test_manifest_saves_merge_splits(tmp_path):
    """Two writers that read the manifest before either saved: each save keeps the other's split."""
    first, second = Manifest(tmp_path), Manifest(tmp_path)
    first.begin({"split": "test", "seed": 1})
    second.begin({"split": "val", "seed": 1})
    first.record("test", "instances/t/test/shard-00000.jsonl", {"instances": 1})
    first.save()
    second.record("val", "instances/t/val/shard-00000.jsonl", {"instances": 2})
    second.save()
    first.finish("test")
    first.save()
    splits = json.loads((tmp_path / "manifest.json").read_text())["splits"]
    assert sorted(splits) == ["test", "val"]
    assert splits["test"]["complete"] and not splits["val"]["complete"]
    assert list(splits["val"]["shards"].values()) == [{"instances": 2}]


@pytest.mark.usefixtures("faulty_plugin")
def test_a_second_generate_on_a_busy_folder_exits_2_and_a_later_split_keeps_both(tmp_path):
    out = tmp_path / "out"
    args = ["generate", "--tasks", "faulty", "--n", "3", "--shard-size", "1", "-q", "--out", str(out)]
    slow = ["--set", "faulty.fault=sleep", "--set", "faulty.seconds=1.5"]
    first = subprocess.Popen(
        [*CMD, *args, *slow, "--split", "test"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.time() + 60
        while time.time() < deadline and first.poll() is None:
            if (out / LOCK).is_file() and (out / LOCK).read_text().startswith(f"pid {first.pid} "):
                break
            time.sleep(0.05)
        assert first.poll() is None, "the first run ended before the second could start"
        second = mirforge(*args, *slow, "--split", "val", "--seed", "2", check=False)
        assert first.poll() is None, "the first run ended while the second ran: the test proves nothing"
    finally:
        _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert second.returncode == 2, second.stderr
    assert second.stderr.strip().splitlines() == [second.stderr.strip()], second.stderr
    assert f"is in use by another mirforge generate (pid {first.pid} on " in second.stderr
    assert not (out / LOCK).exists() and not (out / "instances" / "faulty" / "val").exists()
    assert list(json.loads((out / "manifest.json").read_text())["splits"]) == ["test"]

    generate(RunConfig(tasks=("faulty",), n=3, seed=2, split="val", shard_size=1), out, progress=False)
    splits = json.loads((out / "manifest.json").read_text())["splits"]
    assert sorted(splits) == ["test", "val"] and all(s["complete"] for s in splits.values())
    assert [len(json.loads((out / f"mir-{s}.json").read_text())) for s in ("test", "val")] == [3, 3]
