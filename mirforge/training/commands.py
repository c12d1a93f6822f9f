"""``mirforge train``. Heavy imports stay inside the command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mirforge.errors import InputError

# flag name -> TrainConfig field, for options a --config file may also set
_FIELDS = {
    "lr": "lr",
    "batch_size": "batch_size",
    "grad_accum": "grad_accum",
    "epochs": "epochs",
    "max_length": "max_length",
    "warmup_ratio": "warmup_ratio",
    "weight_decay": "weight_decay",
    "scheduler": "scheduler",
    "gradient_checkpointing": "gradient_checkpointing",
    "bf16": "bf16",
    "deepspeed": "deepspeed",
    "seed": "seed",
    "baseline": "baseline",
    "resume": "resume",
    "eval_split": "eval_split",
    "eval_limit": "eval_limit",
    "eval_max_new_tokens": "eval_max_new_tokens",
    "eval_batch_size": "eval_batch_size",
    "after_each_stage": "after_each_stage",
    "quiet": "quiet",
}


def _given(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")


def build_config(ctx: typer.Context, values: dict[str, Any]) -> Any:
    """A TrainConfig from the flags, with a --config file underneath (flags given on the command line win)."""
    from mirforge.training.config import TrainConfig, load_config_file, parse_lora

    file: dict[str, Any] = load_config_file(values["config"]) if values["config"] else {}

    def pick(flag: str, key: str | None = None) -> Any:
        key = key or flag
        if key in file and not _given(ctx, flag):
            return file[key]
        return values[flag]

    model = pick("model")
    curriculum = pick("curriculum")
    out = pick("out")
    for flag, value in (("--model", model), ("--curriculum", curriculum), ("--out", out)):
        if not value:
            raise InputError(f"{flag}: required (on the command line or in --config)")
    full = pick("full")
    lora_value = pick("lora")
    if full and (_given(ctx, "lora") or ("lora" in file and not _given(ctx, "full"))):
        raise InputError("--full and --lora exclude each other; give one")
    kwargs = {field: pick(flag) for flag, field in _FIELDS.items()}
    eval_data = pick("eval_data", "eval")
    stages = pick("stage", "stages") or ()
    if isinstance(stages, str):
        stages = [s.strip() for s in stages.split(",") if s.strip()]
    return TrainConfig(
        model=str(model),
        curriculum=Path(curriculum),
        out=Path(out),
        lora=None if full else parse_lora(lora_value),
        eval_data=Path(eval_data) if eval_data else None,
        stages=tuple(stages),
        **kwargs,
    )


def train(
    ctx: typer.Context,
    model: Annotated[str | None, typer.Option(help="Local model folder (any AutoModelForImageTextToText).")] = None,
    curriculum: Annotated[Path | None, typer.Option(help="Curriculum folder from `mirforge curriculum`.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder: checkpoints/, training_log.jsonl.")] = None,
    lora: Annotated[str | None, typer.Option(help="LoRA (default): r=16,alpha=32,dropout=0.05[,targets=RE].")] = None,
    full: Annotated[bool, typer.Option("--full", help="Full fine-tuning instead of LoRA (MIR's setting).")] = False,
    config: Annotated[Path | None, typer.Option(help="YAML/TOML/JSON file of these options; flags win.")] = None,
    baseline: Annotated[
        bool, typer.Option("--baseline", help="Same instances, no curriculum: shuffled, full chain, same steps.")
    ] = False,
    eval_data: Annotated[Path | None, typer.Option("--eval", help="Held-out dataset folder to evaluate on.")] = None,
    eval_split: Annotated[str | None, typer.Option(help="Split of --eval (default: all).")] = None,
    eval_limit: Annotated[int | None, typer.Option(help="At most this many --eval questions per task.")] = None,
    eval_max_new_tokens: Annotated[int, typer.Option(help="Tokens per evaluation answer.")] = 512,
    eval_batch_size: Annotated[int, typer.Option(help="Questions per generate call during evaluation.")] = 4,
    after_each_stage: Annotated[
        bool, typer.Option("--after-each-stage", help="Evaluate on --eval after every stage; write the curve.")
    ] = False,
    lr: Annotated[float, typer.Option(help="Learning rate (MIR: 2e-5).")] = 2e-5,
    batch_size: Annotated[int, typer.Option(help="Per-device batch size.")] = 1,
    grad_accum: Annotated[int, typer.Option(help="Gradient accumulation steps (MIR: 4 x 8 GPUs = 32).")] = 4,
    epochs: Annotated[float, typer.Option(help="Epochs per stage.")] = 1.0,
    max_length: Annotated[int | None, typer.Option(help="Drop (and log) rows longer than this many tokens.")] = None,
    warmup_ratio: Annotated[float, typer.Option(help="Warmup fraction of each stage's steps.")] = 0.05,
    weight_decay: Annotated[float, typer.Option(help="AdamW weight decay.")] = 0.0,
    scheduler: Annotated[str, typer.Option(help="linear, cosine, constant or constant_with_warmup.")] = "cosine",
    gradient_checkpointing: Annotated[bool, typer.Option("--gradient-checkpointing", help="Save memory.")] = False,
    bf16: Annotated[bool | None, typer.Option("--bf16/--no-bf16", help="bf16 (default: on with a GPU).")] = None,
    deepspeed: Annotated[str | None, typer.Option(help="DeepSpeed JSON config (e.g. ZeRO-3).")] = None,
    stage: Annotated[list[str], typer.Option(help="Only these stages (repeatable); default all.")] = [],  # noqa: B006
    resume: Annotated[bool, typer.Option("--resume", help="Skip stages already complete in --out.")] = False,
    seed: Annotated[int, typer.Option(help="Seed (initialisation of LoRA, baseline shuffle).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No per-step output.")] = False,
) -> None:
    """Fine-tune a vision-language model stage by stage on a curriculum (LoRA or full), each stage from the last.

    Example: mirforge train --model Qwen2-VL-2B-Instruct --curriculum data/cur --out runs/cur --lora r=16,alpha=32
    Multi-GPU: accelerate launch --num_processes 8 $(which mirforge) train ... --deepspeed zero3.json --bf16
    """
    from mirforge.training.trainer import LOG, run_training

    cfg = build_config(ctx, dict(locals()))
    result = run_training(cfg)
    for name, steps in result.steps.items():
        dropped = result.dropped.get(name, 0)
        typer.echo(f"{name:12} {steps:6d} steps  {dropped:4d} dropped for length")
    for point in result.curve:
        typer.echo(f"{point['stage']:12} held-out accuracy {100 * (point['accuracy'] or 0):5.1f}%")
    typer.echo(f"checkpoints in {cfg.out / 'checkpoints'}; log in {cfg.out / LOG}")
