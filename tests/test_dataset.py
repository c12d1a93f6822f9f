"""The dataset reader: one order, lazy shards and images, one-line errors naming the folder, file and line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.runner.config import RunConfig

from conftest import written


def record(task: str, split: str, index: int) -> dict:
    return {"id": f"{task}-{split}-{index:06d}", "task": task, "split": split, "index": index}


def write_shard(root: Path, task: str, split: str, number: int, records: list[dict]) -> Path:
    path = root / "instances" / task / split / f"shard-{number:05d}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def folder(tmp_path) -> Path:
    """Two splits, two tasks, two shards each, written in an order unlike the reading order."""
    root = tmp_path / "data"
    for split in ("train", "test"):
        for task in ("zebra", "apple"):
            for number in (1, 0):
                write_shard(root, task, split, number, [record(task, split, 2 * number + k) for k in range(2)])
    return root


def test_instances_come_by_split_task_shard_and_line(folder):
    data = Dataset(folder)
    assert data.splits == ["test", "train"] and data.tasks == ["apple", "zebra"]
    keys = [(r["split"], r["task"], r["index"]) for r in data.records()]
    assert keys == sorted(keys) and len(keys) == 16
    assert [e.where for e in data.entries("apple", "test")] == [
        "instances/apple/test/shard-00000.jsonl:1",
        "instances/apple/test/shard-00000.jsonl:2",
        "instances/apple/test/shard-00001.jsonl:1",
        "instances/apple/test/shard-00001.jsonl:2",
    ]
    only = Dataset(folder, tasks=["zebra"], split="train")
    assert {(r["task"], r["split"]) for r in only.records()} == {("zebra", "train")}
    assert only.find("zebra-train-000003").record["index"] == 3


def test_a_generated_folder_reads_in_split_task_and_index_order(tmp_path):
    root = tmp_path / "data"
    for split in ("train", "test"):
        written(root, RunConfig(tasks=("yes_but",), n=3, seed=1, shard_size=2, split=split))
    data = Dataset(root)
    assert [(r["split"], r["provenance"]["index"]) for r in data.records()] == [
        (split, index) for split in ("test", "train") for index in range(3)
    ]
    assert data.run_config("train")["split"] == "train"
    entry = data.find("yes_but-train-000002")
    assert entry.where == "instances/yes_but/train/shard-00001.jsonl:1"
    assert entry.line == (root / "instances/yes_but/train/shard-00001.jsonl").read_text().splitlines()[0]
    image = data.image(entry.record["images"][0])
    assert image.ndim == 3 and image.shape[2] == 3
    assert np.array_equal(image, cv2.imread(str(root / entry.record["images"][0])))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: None, "no such dataset folder"),
        (lambda root: root.mkdir(), "holds no manifest.json and no instances"),
        (lambda root: (root.mkdir(), (root / "manifest.json").write_text('{"splits": {}}')), "holds no instances yet"),
    ],
)
def test_a_folder_without_instances_is_one_error_naming_it(tmp_path, make, message):
    root = tmp_path / "data"
    make(root)
    with pytest.raises(InputError, match=message) as caught:
        Dataset(root)
    assert str(root) in str(caught.value) and "\n" not in str(caught.value)


def test_a_corrupt_line_is_named_by_file_and_line_when_it_is_reached(folder):
    path = folder / "instances/zebra/train/shard-00000.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n\n" + lines[1][:20] + "\n")
    data = Dataset(folder)
    entries = data.entries(split="train")
    assert next(entries).task == "apple"  # shards are read as the caller goes: the bad line is further on
    with pytest.raises(InputError) as caught:
        list(entries)
    message = str(caught.value)
    assert message.startswith("instances/zebra/train/shard-00000.jsonl:3: not valid JSON")
    assert f"mirforge validate {folder}" in message and "\n" not in message
    path.write_bytes(lines[0].encode() + b"\n" + b'{"id": "\xff"}\n')
    with pytest.raises(InputError, match=r"shard-00000\.jsonl:2: not valid UTF-8 \(byte 0xff at column 9\)"):
        data.records("zebra")
    path.write_text(lines[0] + "\n[1, 2]\n")
    with pytest.raises(InputError, match=r"shard-00000\.jsonl:2: expected a JSON object, got list"):
        data.records("zebra")


def test_unknown_tasks_splits_and_ids_name_the_option(folder):
    with pytest.raises(InputError, match=r"--tasks: no instances of mango in .*; it holds apple, zebra"):
        Dataset(folder, tasks=["apple", "mango"])
    with pytest.raises(InputError, match=r"--split: .* holds no split 'val'; it holds test, train"):
        Dataset(folder, split="val")
    with pytest.raises(InputError, match="apple-test-000009: no such instance"):
        Dataset(folder).find("apple-test-000009")


def test_manifest_and_images_are_read_when_asked_for(folder):
    data = Dataset(folder)  # no manifest: the instances can still be read
    assert len(data.records()) == 16
    with pytest.raises(InputError, match="holds no manifest.json"):
        _ = data.manifest
    (folder / "manifest.json").write_text("[1]")
    with pytest.raises(InputError, match=r"manifest\.json: not a mirforge manifest"):
        _ = Dataset(folder).manifest
    (folder / "manifest.json").write_text('{"splits": {"test": {"config": {"seed": 4}, "shards": {}}}}')
    assert Dataset(folder).run_config("test") == {"seed": 4}
    with pytest.raises(InputError, match="records no config for split 'train'"):
        Dataset(folder).run_config("train")
    with pytest.raises(InputError, match="must be relative and stay inside"):
        data.image_path("../outside.png")
    with pytest.raises(InputError, match="missing or not a readable image"):
        data.image("images/apple/test/000000-0.png")
