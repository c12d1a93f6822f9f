"""mirforge eval: scoring, tables, JSON and chart; blank-image mode; the text-only baseline; both backends."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_stages import make_dataset

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.evaluation.report import bar_chart, table
from mirforge.evaluation.run import (
    BlankImages,
    chance_levels,
    greedy,
    predict,
    prompt_builder,
    select_records,
    summarize,
)
from mirforge.models.backend import Query

from conftest import run_cli
from openai_server import OpenAIServer
from scripted_backend import ScriptedBackend

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("eval") / "data", per_task=6)


def answer_key(data: Path) -> dict[str, str]:
    return {r["id"]: r["answer"] for r in Dataset(data).records()}


def test_scores_per_task_category_confusion(data: Path, tmp_path: Path) -> None:
    key = answer_key(data)

    def respond(q: Query, j: int) -> str:
        if q.id.startswith("alpha"):
            return f"<conclusion>The answer is {key[q.id]}.</conclusion>"
        return "I cannot tell." if q.id.endswith("0") else "Your option: A"

    records = Dataset(data).records()
    preds = predict(ScriptedBackend(respond), records, data, prompt=prompt_builder("train"), sampling=greedy(8))
    summary = summarize(preds, chance_levels(records))
    assert summary["by_task"]["alpha"]["accuracy"] == 1.0
    beta = [r for r in records if r["task"] == "beta"]
    expected = sum(r["answer"] == "A" and not r["id"].endswith("0") for r in beta) / len(beta)
    assert summary["by_task"]["beta"]["accuracy"] == round(expected, 4)
    assert summary["by_task"]["beta"]["parse_failures"] == 1 and summary["overall"]["parse_failures"] == 1
    assert summary["by_category"]["spatial"]["n"] == 12
    assert sum(sum(row.values()) for row in summary["confusion"].values()) == 12
    assert summary["confusion"][beta[0]["answer"]]["UNPARSED"] == 1
    assert 0.25 < summary["chance"]["overall"] < 0.34
    text = table(summary, "t")
    assert "alpha" in text and "overall" in text and "UNPARSED" in text
    png = bar_chart(summary, tmp_path / "acc.png")
    with Image.open(png) as im:
        assert im.size[0] >= 400


def test_prompts_and_selection(data: Path) -> None:
    records = Dataset(data).records()
    record = records[0]
    assert "Select the correct option" in prompt_builder("train")(record)
    assert "Your option:" in prompt_builder("answer")(record)
    with pytest.raises(InputError, match="--prompt"):
        prompt_builder("chat")
    assert len(select_records(records, "test", {"beta"}, 2)) == 2
    with pytest.raises(InputError, match="--split"):
        select_records(records, "val")


def test_blind_keeps_slots_and_sizes(data: Path, tmp_path: Path) -> None:
    seen: list[Query] = []

    def respond(q: Query, j: int) -> str:
        seen.append(q)
        return "A"

    records = Dataset(data).records()
    blank = BlankImages(tmp_path / "blank")
    predict(ScriptedBackend(respond), records, data, prompt=prompt_builder("train"), sampling=greedy(4), blank=blank)
    for q, r in zip(seen, records, strict=True):
        assert len(q.images) == len(r["images"]) == q.text.count("<image>")
        for path, original in zip(q.images, r["images"], strict=True):
            with Image.open(path) as im, Image.open(data / original) as orig:
                assert im.size == orig.size and len(set(im.getdata())) == 1


def test_text_baseline_finds_a_leak(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    from mirforge.evaluation.textbaseline import TextBaseline

    def records(n: int, leak: bool, offset: int) -> list[dict[str, Any]]:
        out = []
        for i in range(n):
            letters = "ABCD"
            answer = letters[(i * 7 + offset) % 4]
            options = {x: f"object {x.lower()} number {(i + j) % 9}" for j, x in enumerate(letters)}
            if leak:
                options[answer] = f"clearly the correct one {i % 5}"
            out.append(
                {"id": f"t-{offset}-{i}", "task": "t", "category": "c", "question": "Which <image> is it?",
                 "options": options, "answer": answer}
            )  # fmt: skip
        return out

    leaky, _ = TextBaseline().fit(records(80, True, 0)).predict(records(40, True, 1))
    assert summarize(leaky)["overall"]["accuracy"] >= 0.9
    clean, majority = TextBaseline().fit(records(80, False, 0)).predict(records(40, False, 1))
    assert summarize(clean)["overall"]["accuracy"] <= 0.5
    assert len(majority) == 40


def test_cli_text_baseline_and_errors(data: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("sklearn")
    other = make_dataset(tmp_path / "train", per_task=6)
    assert (
        run_cli("eval", "--text-baseline", "--train", str(other), "--data", str(data), "--out", str(tmp_path / "o"))
        == 0
    )
    out = capsys.readouterr().out
    assert "text-classifier" in out and "majority-letter" in out
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["text-classifier"]["overall"]["n"] == 12
    assert run_cli("eval", "--text-baseline", "--train", str(data), "--data", str(data)) == 2
    assert "overlaps" in capsys.readouterr().err
    assert run_cli("eval", "--data", str(data)) == 2
    assert "--model" in capsys.readouterr().err


def test_cli_openai_backend(data: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("openai")
    key = answer_key(data)
    with OpenAIServer(respond="Your option: B") as server:
        code = run_cli(
            "eval", "--model", "test-model", "--backend", "openai", "--base-url", server.url, "--data", str(data),
            "--blind", "--out", str(tmp_path / "o"), "-q",
        )  # fmt: skip
        assert code == 0, capsys.readouterr().err
        assert server.count == 12
        assert all(len(imgs) >= 2 for imgs in server.images)
        colours = {(d.size, d.pixels_sha256) for imgs in server.images for d in imgs}
        sizes = {d.size for imgs in server.images for d in imgs}
        assert len(colours) == len(sizes)  # blank: one image per size, whatever the picture was
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    expected = sum(v == "B" for v in key.values()) / len(key)
    assert results["blind"]["overall"]["accuracy"] == round(expected, 4)
    assert (tmp_path / "o" / "accuracy-blind.png").is_file()
    assert len((tmp_path / "o" / "predictions-blind.jsonl").read_text().splitlines()) == 12


def test_cli_transformers_tiny_model(data: Path, tmp_path: Path, capsys) -> None:
    pytest.importorskip("transformers")
    from mirforge.models.tiny import build_tiny_vlm

    model = build_tiny_vlm(tmp_path / "tiny", "qwen2_vl", seed=0, image_px=56)
    code = run_cli(
        "eval", "--model", str(model), "--data", str(data), "--limit", "2", "--max-new-tokens", "4",
        "--out", str(tmp_path / "o"), "-q",
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "overall" in out and "confusion" in out
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    assert results["model"]["overall"]["n"] == 4 and set(results["model"]["by_task"]) == {"alpha", "beta"}
