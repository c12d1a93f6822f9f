"""Exports: tag/image counts and order, paths, the concatenated file, and loading in the real consumers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from test_stages import make_dataset, pass_rates
from typer.testing import CliRunner

from mirforge.cli import app
from mirforge.curriculum.commands import build_and_export
from mirforge.curriculum.export import FORMATS, check_record, image_tags
from mirforge.dataset import Dataset
from mirforge.errors import MirforgeError

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
STAGES = [f"stage{i}" for i in range(6)]


def write_difficulty(dataset: Path, *, all_hard: bool = False) -> None:
    """The known pass rates of ``pass_rates``; ``all_hard``: every p below the threshold (stage0's pool empty)."""
    rates = pass_rates(Dataset(dataset).records())
    lines = [{"id": i, "p": min(p, 0.5) if all_hard else p} for i, p in rates.items()]
    (dataset / "difficulty.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def read(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".jsonl":
        return [json.loads(x) for x in path.read_text().splitlines()]
    return json.loads(path.read_text())


def file_of(out: Path, fmt: str, name: str) -> Path:
    return out / fmt / (f"{name}.jsonl" if fmt in ("swift", "trl") else f"{name}.json")


def images_of(fmt: str, record: dict[str, Any]) -> list[str]:
    return record["image"] if fmt == "llava" else record["images"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("export")
    dataset = make_dataset(root / "data", per_task=15)
    write_difficulty(dataset)
    out = root / "cur"
    stats = build_and_export(dataset, out, None, None, list(FORMATS), copy_images=False)
    return dataset, out, stats


def test_every_format_matches_tags_images_and_order(built: tuple[Path, Path, dict[str, Any]]) -> None:
    dataset, out, stats = built
    stage_rows = {n: read(out / "stages" / f"{n}.jsonl") for n in STAGES}
    for fmt in FORMATS:
        for name in STAGES:
            records = read(file_of(out, fmt, name))
            assert len(records) == len(stage_rows[name]) == stats["exports"][f"{fmt}/{name}"]
            for record, row in zip(records, stage_rows[name], strict=True):
                prompt_tags, other_tags, n_images = image_tags(fmt, record)
                assert prompt_tags == n_images == len(row["images"]) and other_tags == 0
                # same files, same order, absolute: they load from any working directory
                paths = [Path(p) for p in images_of(fmt, record)]
                assert all(p.is_absolute() for p in paths)
                assert paths == [(dataset / p).resolve() for p in row["images"]]
                assert all(p.is_file() for p in paths)


def test_literal_image_in_steps_is_escaped(built: tuple[Path, Path, dict[str, Any]]) -> None:
    _, out, _ = built
    row = read(out / "stages" / "stage0.jsonl")[0]
    assert "the word [image] is literal" in row["target"]
    swift = read(file_of(out, "swift", "stage1"))[0]
    assert "the word [image] is literal" in swift["messages"][0]["content"]  # text2img is in stage1's prompt


def test_trl_parts_interleave(built: tuple[Path, Path, dict[str, Any]]) -> None:
    _, out, _ = built
    record = read(file_of(out, "trl", "stage3"))[0]
    kinds = [p["type"] for p in record["prompt"][0]["content"]]
    assert kinds[0] == "text" and kinds.count("image") == len(record["images"])
    assert kinds[1:-1].count("text") == kinds.count("image") - 1  # ", " between the slots
    assert record["completion"][0]["role"] == "assistant"


def test_single_file_is_the_stages_in_order(built: tuple[Path, Path, dict[str, Any]]) -> None:
    _, out, stats = built
    for fmt in FORMATS:
        concatenated = [r for n in STAGES for r in read(file_of(out, fmt, n))]
        assert read(file_of(out, fmt, "all")) == concatenated
    info = json.loads((out / "llamafactory" / "dataset_info.json").read_text())
    assert set(info) == {f"mirforge_{n}" for n in [*STAGES, "all"]}
    assert info["mirforge_all"]["file_name"] == "all.json" and info["mirforge_all"]["formatting"] == "sharegpt"
    order = (out / "ORDER.md").read_text()
    for flag in ("--train_sampler_random false", "--dataset_shuffle false", "--disable_shuffling true"):
        assert flag in order
    assert "Dropped" not in order and "absolute" in order
    assert "sequential" in stats["flags"]["trl"]
    assert (out / "llava" / "order.yaml").read_text().count("sampling_strategy: all") == len(STAGES)
    meta = json.loads((out / "curriculum.json").read_text())
    assert [s["stage"] for s in meta["stages"]] == STAGES and meta["schedule"]["seed"] == 0
    assert meta["dropped"] == []


def test_datasets_load_every_export_from_elsewhere(
    built: tuple[Path, Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    _, out, _ = built
    monkeypatch.chdir(tmp_path)  # neither the export's folder nor the dataset's
    for fmt in FORMATS:
        path = file_of(out, fmt, "stage2")
        column = "image" if fmt == "llava" else "images"
        ds = datasets.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
        ds = ds.cast_column(column, datasets.List(datasets.Image()))
        assert len(ds) == len(read(path))
        assert [im.size for im in ds[0][column]] == [im.size for im in ds.with_format(None)[0][column]]
        assert all(im.width > 0 for row in ds for im in row[column])  # every image decodes from here


def test_trl_collator_on_the_export(built: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

    from mirforge.curriculum.export import load_trl
    from mirforge.models.processor import load_processor
    from mirforge.models.tiny import build_tiny_vlm

    _, out, _ = built
    processor = load_processor(build_tiny_vlm(tmp_path / "tiny", "qwen2_vl"))
    ds = load_trl(file_of(out, "trl", "stage1"))
    rows = [ds[i] for i in range(3)]
    assert all(len(r["images"]) == sum(p["type"] == "image" for p in r["prompt"][0]["content"]) for r in rows)
    batch = DataCollatorForVisionLanguageModeling(processor, completion_only_loss=True)(rows)
    ids, labels = batch["input_ids"], batch["labels"]
    image_id = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert "pixel_values" in batch and ids.shape == labels.shape
    assert ((ids == image_id) & (labels != -100)).sum() == 0  # image tokens never in the loss
    assert (labels != -100).sum() > 0
    starts = processor.tokenizer.convert_tokens_to_ids("<|vision_start|>")
    assert [int((row == starts).sum()) for row in ids] == [len(r["images"]) for r in rows]


def test_copy_images_are_relative_to_the_export_root(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=5)
    write_difficulty(dataset)
    out = tmp_path / "cur"
    stats = build_and_export(dataset, out, None, None, list(FORMATS), copy_images=True)
    used = {rel for name in STAGES for row in read(out / "stages" / f"{name}.jsonl") for rel in row["images"]}
    assert stats["images_copied"] == len(used) and sorted((out / "images").rglob("*.png")) == sorted(
        out / rel for rel in used
    )
    for fmt in FORMATS:
        for record in read(file_of(out, fmt, "all")):
            for p in images_of(fmt, record):
                # the dataset's own layout under OUT: images/<task>/<split>/..., never images/images/...
                assert p.startswith("images/") and not p.startswith("images/images/") and (out / p).is_file()
    root = str(out.resolve())
    assert f"ROOT_IMAGE_DIR={root}" in stats["flags"]["swift"]
    assert f"--media_dir {root}" in stats["flags"]["llamafactory"]
    assert f"image_root={json.dumps(root)}" in stats["flags"]["trl"]
    assert f"--image_folder {root}" in stats["flags"]["llava"]
    moved = tmp_path / "moved"
    out.rename(moved)  # the folder moves as a whole; the TRL loader finds the copies from the file's place
    pytest.importorskip("datasets")
    from mirforge.curriculum.export import load_trl

    ds = load_trl(file_of(moved, "trl", "stage1"))
    assert all(im.width > 0 for row in ds for im in row["images"])
    moved.rename(out)
    again = build_and_export(dataset, out, None, None, ["swift"], copy_images=True)
    assert again["images_copied"] == 0  # already there


def test_empty_stage_is_not_written_or_listed(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=5)
    write_difficulty(dataset, all_hard=True)  # no instance is easy: stage0's pool is empty
    out = tmp_path / "cur"
    stats = build_and_export(dataset, out, None, None, list(FORMATS), copy_images=False)
    kept = STAGES[1:]
    assert [d["stage"] for d in stats["dropped"]] == ["stage0"]
    assert "easy pool is empty" in stats["dropped"][0]["reason"] and "0.7" in stats["dropped"][0]["reason"]
    assert not (out / "stages" / "stage0.jsonl").exists()
    assert sorted(p.stem for p in (out / "stages").iterdir()) == kept
    for fmt in FORMATS:
        assert sorted(p.stem for p in (out / fmt).glob("*.json*") if p.stem != "dataset_info") == sorted([*kept, "all"])
        assert all(read(p) for p in (out / fmt).glob("stage*.json*"))  # no empty file
    info = json.loads((out / "llamafactory" / "dataset_info.json").read_text())
    assert set(info) == {f"mirforge_{n}" for n in [*kept, "all"]}
    order_yaml = (out / "llava" / "order.yaml").read_text()
    assert "stage0" not in order_yaml and order_yaml.count("json_path") == len(kept)
    order = (out / "ORDER.md").read_text()
    assert "Dropped: stage0, its easy pool is empty" in order
    assert "mirforge_stage0" not in order and "mirforge_stage1,mirforge_stage2" in order
    assert "stage0" not in "".join(stats["flags"].values())
    meta = json.loads((out / "curriculum.json").read_text())
    assert meta["stages"][0]["count"] == 0 and meta["stages"][0]["dropped"] == stats["dropped"][0]["reason"]
    # re-exporting the curriculum keeps the stage dropped, with its reason
    result = CliRunner().invoke(app, ["export", "training", str(out), "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    assert "stage0 dropped" in result.output and not (tmp_path / "again" / "swift" / "stage0.jsonl").exists()
    # the trainer's reader skips it too
    from mirforge.training.data import load_curriculum

    assert [s.name for s in load_curriculum(out).stages] == kept


def test_a_stage_that_empties_on_a_rebuild_loses_its_old_file(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=5)
    write_difficulty(dataset)
    out = tmp_path / "cur"
    build_and_export(dataset, out, None, None, ["swift"], copy_images=False)
    assert (out / "stages" / "stage0.jsonl").is_file()
    write_difficulty(dataset, all_hard=True)
    build_and_export(dataset, out, None, None, ["swift"], copy_images=False)
    assert not (out / "stages" / "stage0.jsonl").exists()


def test_every_stage_empty_is_an_input_error(tmp_path: Path) -> None:
    from mirforge.errors import InputError

    dataset = make_dataset(tmp_path / "data", per_task=5)
    write_difficulty(dataset, all_hard=True)
    schedule = tmp_path / "s.yaml"
    schedule.write_text("stages:\n  - {name: only, pool: easy, target: [conclusion]}\n")
    with pytest.raises(InputError, match="every stage is empty .*only: its easy pool is empty"):
        build_and_export(dataset, tmp_path / "cur", schedule, None, ["swift"], copy_images=False)


def test_check_record_catches_mismatches() -> None:
    bad = {"messages": [{"role": "user", "content": "<image>"}, {"role": "assistant", "content": "x"}], "images": []}
    with pytest.raises(MirforgeError, match="1 image tags in the prompt"):
        check_record("swift", bad, "x")
    leak = {
        "messages": [{"role": "user", "content": "<image>"}, {"role": "assistant", "content": "<image>"}],
        "images": ["a.png"],
    }
    with pytest.raises(MirforgeError, match="1 elsewhere"):
        check_record("swift", leak, "x")


def test_cli_curriculum_and_export(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=5)
    runner = CliRunner()
    result = runner.invoke(app, ["curriculum", str(dataset), "--out", str(tmp_path / "cur")])
    assert result.exit_code == 2 or "--difficulty" in str(result.exception)  # no difficulty file yet
    write_difficulty(dataset)
    result = runner.invoke(app, ["curriculum", str(dataset), "--out", str(tmp_path / "cur")])
    assert result.exit_code == 0, result.output
    assert "stage5" in result.output and "--train_sampler_random false" in result.output
    assert "ORDER.md" in result.output
    result = runner.invoke(
        app, ["export", "training", str(tmp_path / "cur"), "--out", str(tmp_path / "e"), "--stage", "stage0"]
    )
    assert result.exit_code == 0, result.output
    assert read(tmp_path / "e" / "trl" / "stage0.jsonl") == read(tmp_path / "cur" / "trl" / "stage0.jsonl")
    assert not (tmp_path / "e" / "trl" / "all.jsonl").exists()
    result = runner.invoke(app, ["export", "training", str(dataset), "--out", str(tmp_path / "d"), "--format", "llava"])
    assert result.exit_code == 0, result.output
    records = read(tmp_path / "d" / "llava" / "full.json")
    assert len(records) == 10 and "<conclusion>" in records[0]["conversations"][1]["value"]
    result = runner.invoke(app, ["curriculum", "--print-schedule"])
    assert result.exit_code == 0 and "fraction: 0.4" in result.output
    result = runner.invoke(
        app, ["export", "training", str(dataset), "--out", str(tmp_path / "x"), "--format", "axolotl"]
    )
    assert result.exit_code != 0 and "--format" in str(result.exception)
