"""The MIR projection: one file per split (MIR's preprocess ignores ``split``), the answer letter as ``conclusion``."""

from __future__ import annotations

import json
from pathlib import Path

from mirforge.dataset import Dataset
from mirforge.runner import generate
from mirforge.runner.config import RunConfig


def read(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def test_one_file_per_split(tmp_path: Path) -> None:
    out = tmp_path / "data"
    generate(RunConfig(tasks=("image_puzzle",), n=2, seed=5), out, progress=False)
    assert (out / "mir.json").is_file() and not list(out.glob("mir-*.json"))  # one split: mir.json, as before
    assert {r["split"] for r in read(out / "mir.json")} == {"test"}
    generate(RunConfig(tasks=("image_puzzle",), n=3, seed=5, split="train"), out, progress=False)
    assert not (out / "mir.json").exists()  # it would mix the splits
    by_split = {split: read(out / f"mir-{split}.json") for split in ("test", "train")}
    assert {s: len(r) for s, r in by_split.items()} == {"test": 2, "train": 3}
    instances = {r["id"]: r for r in Dataset(out).records()}
    for split, records in by_split.items():
        assert {r["split"] for r in records} == {split}
        for r in records:
            # MIR's data: conclusion is the letter; our closing sentence is MIR's optional `reasoning` step
            assert r["conclusion"] == instances[r["id"]]["answer"] and len(r["conclusion"]) == 1
            assert r["reasoning"] == instances[r["id"]]["conclusion"]
            assert r["question"].count("<image>") == len(r["images"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["versions"]["moderngl"] and manifest["versions"]["glcontext"]  # the default 3D backend
