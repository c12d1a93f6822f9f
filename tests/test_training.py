"""mirforge train: 3 stages on a tiny random VLM (LoRA and full), checkpoint chaining, loss masks, the step log,
sequential sampling, length drops, the baseline, and (slow) a learning check against a blind control."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_stages import make_dataset

from mirforge.errors import InputError
from mirforge.training.config import TrainConfig, parse_lora
from mirforge.training.data import load_curriculum, optimizer_steps
from mirforge.training.logbook import read_log

from conftest import run_cli

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
pytest.importorskip("trl")
pytest.importorskip("peft")

STEPS = ["summary", "caption", "text2img", "img2img", "conclusion"]
THREE_STAGES = {
    "stages": [
        {"name": "s0", "pool": "all", "prompt": STEPS[:4], "target": STEPS[4:]},
        {"name": "s1", "pool": "all", "prompt": STEPS[:2], "target": STEPS[2:]},
        {"name": "s2", "pool": "all", "prompt": [], "target": STEPS},
    ]
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    torch.set_num_threads(1)
    from mirforge.models.tiny import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny") / "qwen2_vl", "qwen2_vl", seed=0, image_px=56)


@pytest.fixture(scope="module")
def curriculum(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mirforge.curriculum.commands import build_and_export

    root = tmp_path_factory.mktemp("cur")
    make_dataset(root / "data", per_task=3)  # 6 instances, 2 to 4 images each
    schedule = root / "schedule.json"
    schedule.write_text(json.dumps(THREE_STAGES))
    build_and_export(root / "data", root / "cur", schedule, None, ["trl"], False)
    return root / "cur"


def config(tiny: Path, cur: Path, out: Path, **kw: Any) -> TrainConfig:
    base: dict[str, Any] = dict(
        model=str(tiny), curriculum=cur, out=out, lr=5e-3, batch_size=3, grad_accum=1, warmup_ratio=0.0, quiet=True
    )
    base.update(kw)
    return TrainConfig(**base)


def trainable(model: Any) -> dict[str, Any]:
    return {n: p.detach().clone().float() for n, p in model.named_parameters() if p.requires_grad}


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_lora_spec_and_config_errors(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    assert parse_lora("r=8,alpha=16,dropout=0.1").r == 8
    with pytest.raises(InputError, match="--lora"):
        parse_lora("r=8,beta=2")
    with pytest.raises(InputError, match="--lora"):
        parse_lora("r8")
    with pytest.raises(InputError, match="--curriculum"):
        config(tiny, tmp_path, tmp_path / "o").validate()
    with pytest.raises(InputError, match="--after-each-stage"):
        config(tiny, curriculum, tmp_path / "o", after_each_stage=True).validate()
    with pytest.raises(InputError, match="--lr"):
        config(tiny, curriculum, tmp_path / "o", lr=0).validate()
    with pytest.raises(InputError, match="--stage"):
        load_curriculum(curriculum, ("nope",))


def test_cli_flags_exit_2_and_config_file(tmp_path: Path, tiny: Path, curriculum: Path, capsys) -> None:
    run = run_cli
    common = ["train", "--model", str(tiny), "--curriculum", str(curriculum), "--out", str(tmp_path / "o")]
    assert run(*common, "--full", "--lora", "r=4") == 2
    assert "--full and --lora" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("lr: 1e-4\nnot_an_option: 3\n")
    assert run(*common, "--config", str(bad)) == 2
    assert "not_an_option" in capsys.readouterr().err
    assert run(*common, "--lora", "rank=4") == 2


def test_config_file_under_flags(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from mirforge.training import commands

    seen: dict[str, Any] = {}

    def fake(ctx: typer.Context, *args: Any, **kwargs: Any) -> None:
        seen["cfg"] = commands.build_config(ctx, kwargs)

    file = tmp_path / "train.yaml"
    file.write_text(f"model: {tiny}\ncurriculum: {curriculum}\nout: {tmp_path / 'o'}\nlr: 0.5\nbatch-size: 7\n")
    app = typer.Typer()
    app.command()(_with_signature(commands.train, fake))
    result = CliRunner().invoke(app, ["--config", str(file), "--lr", "0.25", "--full"])
    assert result.exit_code == 0, result.output
    cfg = seen["cfg"]
    assert cfg.lr == 0.25 and cfg.batch_size == 7 and cfg.lora is None and Path(cfg.model) == tiny


def _with_signature(template: Any, body: Any) -> Any:
    """``body`` with the typer signature of ``template`` (so the real flags parse)."""
    import functools

    @functools.wraps(template)
    def wrapper(ctx, **kwargs):  # noqa: ANN001
        return body(ctx, **kwargs)

    return wrapper


def test_loss_mask_is_the_target_only(tiny: Path, curriculum: Path) -> None:
    from mirforge.models.processor import load_processor
    from mirforge.training.data import hf_dataset, to_trl
    from mirforge.training.trainer import _Collator

    cur = load_curriculum(curriculum)
    processor = load_processor(tiny)
    tok = processor.tokenizer
    image_id = tok.convert_tokens_to_ids("<|image_pad|>")
    rows = cur.stages[1].rows
    ds = hf_dataset([to_trl(r, cur.dataset) for r in rows[:2]])
    batch = _Collator(processor)([ds[0], ds[1]])
    assert batch["mirforge_ids"] == [rows[0]["id"], rows[1]["id"]]
    for i, row in enumerate(rows[:2]):
        ids, labels = batch["input_ids"][i], batch["labels"][i]
        kept = labels[labels != -100]
        assert tok.decode(kept) == row["target"] + "<|im_end|>\n"
        assert ids[labels != -100].tolist() == kept.tolist()
        starts = int((ids == tok.convert_tokens_to_ids("<|vision_start|>")).sum())
        assert starts == len(row["images"]) and int((ids == image_id).sum()) >= 4 * starts
        assert bool((labels[ids == image_id] == -100).all())  # every image token is out of the loss
        first = int((labels != -100).nonzero()[0])
        assert bool((labels[:first] == -100).all())  # the whole prompt (and its images) is masked
        assert row["prompt"].split("<image>")[0].strip()[:20] in tok.decode(ids[:first])


def test_lora_three_stages_chain(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    from safetensors.torch import load_file

    from mirforge.models.loader import load_model
    from mirforge.training.trainer import run_training

    starts: dict[str, Any] = {}
    ends: dict[str, Any] = {}
    cfg = config(tiny, curriculum, tmp_path / "run", lora=parse_lora("r=4,alpha=8,dropout=0.0"))
    result = run_training(
        cfg,
        on_stage_start=lambda name, m: starts.__setitem__(name, trainable(m)),
        on_stage_end=lambda name, m: ends.__setitem__(name, trainable(m)),
    )
    assert list(result.steps) == ["s0", "s1", "s2"] and all(v == 2 for v in result.steps.values())
    for prev, nxt in (("s0", "s1"), ("s1", "s2")):
        assert same(ends[prev], starts[nxt])  # stage k+1 starts from stage k's weights
        assert not same(starts[prev], ends[prev])  # and stage k trained them
        saved = load_file(str(tmp_path / "run" / "checkpoints" / prev / "adapter_model.safetensors"))
        assert len(saved) == len(ends[prev])
        for name, value in ends[prev].items():
            key = name.replace(".default.", ".")
            assert key in saved and bool((saved[key].float() == value).all())
    log = read_log(tmp_path / "run" / "training_log.jsonl")
    events = [e["event"] for e in log]
    assert events[0] == "start" and events[-1] == "end" and events.count("step") == 6
    assert log[0]["curriculum_steps"] == sum(result.steps.values())
    cur = load_curriculum(curriculum)
    for stage in cur.stages:  # sequential sampling: the steps saw the rows in the stage's order
        ids = [i for e in log if e["event"] == "step" and e["stage"] == stage.name for i in e["ids"]]
        assert ids == [r["id"] for r in stage.rows]
        assert all(isinstance(e["loss"], float) for e in log if e["event"] == "step")
    ends_log = [e for e in log if e["event"] == "stage_end"]
    starts_log = [e for e in log if e["event"] == "stage_start"]
    assert [e["weights"] for e in ends_log[:-1]] == [e["weights"] for e in starts_log[1:]]
    loaded = load_model(tmp_path / "run" / "checkpoints" / "s2")  # an adapter folder evaluates
    assert loaded.model is not None and loaded.processor is not None


def test_full_three_stages_drop_and_curve(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    import torch
    from transformers import AutoModelForImageTextToText

    from mirforge.training.trainer import run_training

    cur = load_curriculum(curriculum)
    longest = max(cur.stages[2].rows, key=lambda r: len(r["target"]) + 60 * len(r["images"]))
    starts: dict[str, Any] = {}
    evalset = tmp_path / "heldout"
    make_dataset(evalset, per_task=1, tasks=("alpha",))
    cfg = config(
        tiny,
        curriculum,
        tmp_path / "run",
        lora=None,
        lr=1e-3,
        max_length=_length_below(tiny, longest, cur.dataset),
        eval_data=evalset,
        eval_max_new_tokens=3,
        after_each_stage=True,
    )
    result = run_training(cfg, on_stage_start=lambda name, m: starts.__setitem__(name, trainable(m)))
    assert result.dropped["s2"] >= 1
    log = read_log(tmp_path / "run" / "training_log.jsonl")
    drops = [e for e in log if e["event"] == "drop"]
    assert drops and all(e["tokens"] > e["max_length"] and "--max-length" in e["reason"] for e in drops)
    assert any(e["id"] == longest["id"] and e["stage"] == "s2" for e in drops)
    for prev, nxt in (("s0", "s1"), ("s1", "s2")):
        saved = AutoModelForImageTextToText.from_pretrained(tmp_path / "run" / "checkpoints" / prev)
        weights = {n: p.detach().float() for n, p in saved.named_parameters()}
        assert weights.keys() == starts[nxt].keys()
        assert all(torch.equal(weights[k], starts[nxt][k]) for k in weights)
    curve = [json.loads(x) for x in (tmp_path / "run" / "eval_curve.jsonl").read_text().splitlines()]
    assert [p["stage"] for p in curve] == ["s0", "s1", "s2"] and all(p["n"] == 1 for p in curve)
    assert (tmp_path / "run" / "eval_curve.png").stat().st_size > 1000
    assert (tmp_path / "run" / "eval" / "s2" / "results.json").is_file()


def _length_below(tiny: Path, row: dict[str, Any], dataset: Path) -> int:
    """A --max-length one token short of ``row``'s full length."""
    from mirforge.models.processor import load_processor
    from mirforge.training.data import hf_dataset, to_trl
    from mirforge.training.trainer import _Collator

    ds = hf_dataset([to_trl(row, dataset)])
    return int(_Collator(load_processor(tiny))([ds[0]])["input_ids"].shape[1]) - 1


def test_baseline_same_instances_shuffled_same_steps(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    from mirforge.training.data import baseline_plan
    from mirforge.training.trainer import run_training

    cur = load_curriculum(curriculum)
    plan = baseline_plan(cur, seed=3)
    ids = [r["id"] for s in cur.stages for r in s.rows]
    assert sorted(r["id"] for r in plan.rows) == sorted(ids) and [r["id"] for r in plan.rows] != ids
    assert [r["id"] for r in baseline_plan(cur, seed=3).rows] == [r["id"] for r in plan.rows]
    assert all(r["prompt_steps"] == [] and r["target"].startswith("<summary>") for r in plan.rows)
    result = run_training(config(tiny, curriculum, tmp_path / "base", baseline=True, seed=3, lr=1e-3))
    curriculum_steps = sum(optimizer_steps(len(s.rows), 3, 1, 1, 1.0) for s in cur.stages)
    assert result.steps == {"baseline": curriculum_steps}
    log = read_log(tmp_path / "base" / "training_log.jsonl")
    assert log[0]["mode"] == "baseline"
    stepped = [i for e in log if e["event"] == "step" for i in e["ids"]]
    assert stepped == [r["id"] for r in plan.rows]


def test_resume_skips_complete_stages(tmp_path: Path, tiny: Path, curriculum: Path) -> None:
    from mirforge.training.trainer import run_training

    out = tmp_path / "run"
    run_training(config(tiny, curriculum, out, lora=parse_lora("r=2,alpha=4,dropout=0"), stages=("s0",)))
    result = run_training(config(tiny, curriculum, out, lora=parse_lora("r=2,alpha=4,dropout=0"), resume=True))
    assert list(result.steps) == ["s1", "s2"]
    log = read_log(out / "training_log.jsonl")
    assert [e["stage"] for e in log if e["event"] == "skip"] == ["s0"]


# ------------------------------------------------------------------------------------------------ learning check


def colour_dataset(root: Path, split: str, n: int, seed: int) -> Path:
    """2-option questions answered by colour alone: which of two pictures is red (the other is blue)."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        red_first = i % 2 == 0
        images = []
        for k in range(2):
            red = (k == 0) == red_first
            shade = (200 + rng.randint(-40, 40), rng.randint(0, 60), rng.randint(0, 60))
            rel = f"images/colour/{split}/{i:06d}-{k}.png"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (56, 56), shade if red else shade[::-1]).save(root / rel)
            images.append(rel)
        answer = "A" if red_first else "B"
        records.append(
            {
                "id": f"colour-{split}-{i:06d}",
                "task": "colour",
                "category": "spatial",
                "split": split,
                "question": "Which picture is red, <image> or <image>?",
                "images": images,
                "options": {"A": "the first picture", "B": "the second picture"},
                "answer": answer,
                "summary": "Find the red picture.",
                "caption": ["a picture", "a picture"],
                "text2img": "-",
                "img2img": "-",
                "conclusion": answer,
                "regions": [],
                "difficulty": {"level": 1, "knobs": {}},
                "provenance": {},
            }
        )
    path = root / "instances" / "colour" / split / "shard-00000.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


@pytest.mark.slow
def test_learning_check_beats_chance_and_blind_does_not(tmp_path: Path) -> None:
    """A tiny random Qwen2-VL, fully fine-tuned through 2 stages (64 steps) on 64 colour questions, answers 40 held-out
    ones far above chance (measured: 40/40), while the same checkpoint with blank images stays at chance (20/40: it
    picks one letter for every question). Under chance, >= 34/40 happens with p < 1e-6."""
    from mirforge.curriculum.commands import build_and_export
    from mirforge.dataset import Dataset
    from mirforge.evaluation.run import BlankImages, greedy, predict, prompt_builder, summarize
    from mirforge.models.loader import load_model
    from mirforge.models.tiny import build_tiny_vlm
    from mirforge.models.transformers_backend import TransformersBackend
    from mirforge.training.trainer import run_training

    colour_dataset(tmp_path / "train", "train", 64, seed=1)
    colour_dataset(tmp_path / "test", "test", 40, seed=2)
    schedule = tmp_path / "schedule.json"
    stage = {"pool": "all", "fraction": 1.0, "prompt": [], "target": ["conclusion"]}
    schedule.write_text(
        json.dumps({"tags": {"conclusion": "{text}"}, "stages": [{"name": "a", **stage}, {"name": "b", **stage}]})
    )
    build_and_export(tmp_path / "train", tmp_path / "cur", schedule, None, ["trl"], False)
    model_dir = build_tiny_vlm(tmp_path / "model", "qwen2_vl", seed=0, image_px=56)
    cfg = TrainConfig(
        model=str(model_dir),
        curriculum=tmp_path / "cur",
        out=tmp_path / "run",
        lora=None,
        lr=1e-3,
        batch_size=8,
        grad_accum=1,
        epochs=4,
        warmup_ratio=0.0,
        scheduler="constant",
        quiet=True,
    )
    result = run_training(cfg)
    assert result.steps == {"a": 32, "b": 32}
    loaded = load_model(tmp_path / "run" / "checkpoints" / "b")
    backend = TransformersBackend(loaded.model, loaded.processor, "colour", batch_size=8)
    records = Dataset(tmp_path / "test").records()
    scores = {}
    for blind in (False, True):
        blank = BlankImages(tmp_path / "blank") if blind else None
        preds = predict(
            backend, records, tmp_path / "test", prompt=prompt_builder("train"), sampling=greedy(3), blank=blank
        )
        scores[blind] = summarize(preds)["overall"]
    print(f"learning check: sighted {scores[False]}, blind {scores[True]}")
    assert scores[False]["accuracy"] >= 0.85
    assert scores[True]["accuracy"] <= 0.6
