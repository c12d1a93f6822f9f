"""``mirforge stats``: the per-task table, its numbers, and the PNG plots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.runner import generate
from mirforge.runner.config import RunConfig
from mirforge.stats import MIR_IMAGES_PER_INSTANCE, compute, format_table, write_plots


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stats") / "data"
    generate(
        RunConfig(tasks=("yes_but", "image_puzzle"), n={"yes_but": 12, "image_puzzle": 3}, seed=2), out, progress=False
    )
    return out


def test_numbers_match_the_records(dataset):
    data = Dataset(dataset)
    stats = compute(data.records())
    assert list(stats) == ["image_puzzle", "yes_but", "all"]
    assert stats["yes_but"].instances == 12 and stats["image_puzzle"].instances == 3
    assert stats["all"].images == sum(len(r["images"]) for r in data.records())
    # exactly balanced over every level's block of 4: 12 indices are four at each of the three levels
    assert dict(stats["yes_but"].letters) == {"A": 3, "B": 3, "C": 3, "D": 3}
    assert sum(stats["all"].levels.values()) == 15
    caption_chars = sum(sum(len(c) for c in r["caption"]) for r in data.records("yes_but")) / 12
    assert stats["yes_but"].step_chars["caption"] == pytest.approx(caption_chars)
    table = format_table(stats)
    assert "MIR (published)" in table and "22257" in table and f"{MIR_IMAGES_PER_INSTANCE:.2f}" in table


def test_plots_are_pngs(dataset, tmp_path):
    paths = write_plots(compute(Dataset(dataset).records()), tmp_path / "plots")
    assert [p.name for p in paths] == ["letters.png", "difficulty.png", "mir-comparison.png"]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_json_and_plots(dataset, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mirforge", "stats", str(dataset), "--json", "--plots", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["all"]["instances"] == 15
    assert (tmp_path / "p" / "letters.png").is_file()


def test_a_folder_without_a_manifest_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="holds no manifest.json"):
        Dataset(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "mirforge", "stats", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 2 and "manifest.json" in proc.stderr
