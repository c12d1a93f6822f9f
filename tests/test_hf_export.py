"""HF datasets export: parquet with embedded images round-trips to the instances, byte for byte; the card."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.runner import generate
from mirforge.runner.config import RunConfig

datasets = pytest.importorskip("datasets", reason="the HF export needs the `datasets` package")

from mirforge.hf_export import export_hf, record_from_row  # noqa: E402


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf") / "data"
    config = RunConfig(tasks=("yes_but", "image_puzzle"), n=3, seed=4)
    generate(config, out, progress=False)
    generate(RunConfig(tasks=("yes_but", "image_puzzle"), n=2, seed=4, split="train"), out, progress=False)
    return out


@pytest.fixture(scope="module")
def exported(dataset, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hf-out") / "export"
    counts = export_hf(dataset, out, rows_per_file=2)
    assert counts["all"] == {"test": 6, "train": 4}
    assert counts["yes_but"] == {"test": 3, "train": 2}
    return out


@pytest.mark.parametrize("name", ["all", "yes_but", "image_puzzle"])
def test_rows_equal_the_instances_with_identical_image_bytes(dataset, exported, name, tmp_path):
    loaded = datasets.load_dataset(str(exported), name, cache_dir=str(tmp_path / "cache"))
    assert set(loaded) == {"test", "train"}
    records = Dataset(dataset).records()
    for split in ("test", "train"):
        table = loaded[split].cast_column("images", datasets.List(datasets.Image(decode=False)))
        expected = [r for r in records if r["split"] == split and name in ("all", r["task"])]
        rows = sorted(table, key=lambda row: row["id"])
        assert [r["id"] for r in rows] == sorted(r["id"] for r in expected)
        by_id = {r["id"]: r for r in expected}
        for row in rows:
            record = by_id[row["id"]]
            assert record_from_row(row) == record
            assert [img["bytes"] for img in row["images"]] == [(dataset / p).read_bytes() for p in record["images"]]


def test_images_decode_as_pil(exported, tmp_path):
    loaded = datasets.load_dataset(str(exported), "yes_but", split="test", cache_dir=str(tmp_path / "cache"))
    row = loaded[0]
    assert len(row["images"]) == row["question"].count("<image>")
    assert row["images"][0].size[0] > 0


def test_the_export_survives_moving_the_source(dataset, exported, tmp_path):
    moved = tmp_path / "moved"
    subprocess.run(["cp", "-a", str(exported), str(moved)], check=True)
    images = list((dataset / "images").rglob("*.png"))
    assert images  # the parquet holds bytes, not paths: loading never touches the source folder
    loaded = datasets.load_dataset(str(moved), "all", split="train", cache_dir=str(tmp_path / "cache"))
    assert len(loaded) == 4 and loaded[0]["images"][0].size[0] > 0


def test_the_card_has_metadata_and_sections(exported):
    text = (exported / "README.md").read_text()
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["license"] == "cc-by-4.0"
    assert "visual-question-answering" in meta["task_categories"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert set(configs) == {"all", "yes_but", "image_puzzle"} and configs["all"]["default"] is True
    assert {f["split"] for f in configs["yes_but"]["data_files"]} == {"test", "train"}
    for needle in ("## Tasks", "## Answer letters", "## Difficulty levels", "## Images per instance", "2509.17040"):
        assert needle in text
    assert '"seed": 4' in text and "mirforge 0.1.0" in text


def test_refuses_a_foreign_folder_and_needs_overwrite(dataset, exported, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        export_hf(dataset, foreign)
    with pytest.raises(InputError, match="--overwrite"):
        export_hf(dataset, exported)
    proc = subprocess.run(
        [sys.executable, "-m", "mirforge", "export", "hf", str(dataset), str(foreign)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "not empty" in proc.stderr


def test_cli_exports_one_task(dataset, tmp_path):
    out = tmp_path / "one"
    proc = subprocess.run(
        [sys.executable, "-m", "mirforge", "export", "hf", str(dataset), str(out), "--tasks", "yes_but"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (out / "data").iterdir()) == ["yes_but"]
    assert json.loads(json.dumps(yaml.safe_load((out / "README.md").read_text().split("---\n")[1])))["configs"]


def test_missing_datasets_names_the_hf_extra(monkeypatch) -> None:
    from mirforge import hf_export

    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets now raises ImportError
    with pytest.raises(InputError, match=r"mirforge\[hf\]"):
        hf_export._datasets()


def test_card_says_why_conclusion_differs_from_mir_json(exported) -> None:
    card = (exported / "README.md").read_text()
    assert "`mir.json`" in card and "bare answer letter" in card
