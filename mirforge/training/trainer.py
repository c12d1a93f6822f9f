"""The stage loop: one TRL ``SFTTrainer`` per stage over one model object, so stage k+1 starts from stage k's weights.

Why TRL: its vision-language collator already does what the curriculum needs (prompt/completion rows with
``{"type": "image"}`` parts filled in order from ``images`` through the model's processor and chat template,
``completion_only_loss`` masking the prompt and every image token) and the HF Trainer underneath brings gradient
accumulation, bf16, gradient checkpointing, ``accelerate launch`` multi-GPU and DeepSpeed for free. mirforge adds the
sequential sampler (``train_sampling_strategy="sequential"``), the length filter that logs every dropped row, the
per-step log with the ids of each step's samples, per-stage checkpoints and evaluation, and the baseline step match.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.training.config import TrainConfig
from mirforge.training.data import StagePlan, baseline_plan, hf_dataset, load_curriculum, optimizer_steps, to_trl
from mirforge.training.logbook import RunLog

LOG = "training_log.jsonl"
CURVE = "eval_curve.jsonl"
CURVE_PNG = "eval_curve.png"
DONE = "stage.json"

StageHook = Callable[[str, Any], None]


@dataclass
class TrainResult:
    out: Path
    checkpoints: list[Path] = field(default_factory=list)
    steps: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    curve: list[dict[str, Any]] = field(default_factory=list)


def _imports() -> tuple[Any, Any, Any]:
    try:
        import torch
        import transformers
        import trl
    except ImportError as exc:
        raise InputError(f"mirforge train needs the [train] extra ({exc}); pip install 'mirforge[train]'") from None
    return torch, transformers, trl


def fingerprint(model: Any, limit: int = 50_000_000) -> str | None:
    """sha256 of the trainable tensors (names and bytes), or None when there are more than ``limit`` values."""
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if sum(p.numel() for _, p in params) > limit:
        return None
    digest = hashlib.sha256()
    for name, p in sorted(params, key=lambda item: item[0]):
        digest.update(name.encode())
        digest.update(p.detach().float().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def chat_template_of(processor: Any) -> str | None:
    return getattr(processor, "chat_template", None) or getattr(
        getattr(processor, "tokenizer", None), "chat_template", None
    )


def load_for_training(cfg: TrainConfig, resume_from: Path | None) -> tuple[Any, Any, bool]:
    """(model ready to train, processor, bf16). LoRA wraps the base once; a resumed run loads the last checkpoint
    (a LoRA checkpoint is an adapter folder: the loader puts it back on its base, still trainable)."""
    _imports()
    from mirforge.models.loader import load_model

    loaded = load_model(resume_from if resume_from is not None else cfg.model, bf16=cfg.bf16, train=True)
    model, processor = loaded.model, loaded.processor
    if not chat_template_of(processor):
        raise InputError(f"--model: the processor of {cfg.model} has no chat template; mirforge train needs one")
    if cfg.lora is not None:
        from peft import LoraConfig, get_peft_model

        if resume_from is None:
            spec = cfg.lora
            lora = LoraConfig(
                r=spec.r,
                lora_alpha=spec.alpha,
                lora_dropout=spec.dropout,
                target_modules=spec.targets,
                task_type="CAUSAL_LM",
            )
            try:
                model = get_peft_model(model, lora)
            except ValueError as exc:
                raise InputError(f"--lora: targets={spec.targets!r} matched no layer of {cfg.model} ({exc})") from None
        if cfg.gradient_checkpointing:
            model.enable_input_require_grads()
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if trainable == 0:
        raise InputError("--lora: no trainable parameters; check targets=")
    return model, processor, loaded.bf16


class _Collator:
    """TRL's vision-language collator (completion-only labels) that also passes the sample ids to the trainer."""

    def __init__(self, processor: Any) -> None:
        from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling

        self.inner = DataCollatorForVisionLanguageModeling(processor=processor, completion_only_loss=True)

    def __call__(self, examples: list[dict[str, Any]]) -> dict[str, Any]:
        ids = [e["id"] for e in examples]
        batch = self.inner([{k: v for k, v in e.items() if k != "id"} for e in examples])
        batch["mirforge_ids"] = ids
        return batch


def length_filter(dataset: Any, collator: _Collator, max_length: int | None) -> tuple[list[int], list[dict[str, Any]]]:
    """Indices of rows whose prompt + images + completion fit ``max_length`` tokens, and one record per drop."""
    if max_length is None:
        return list(range(len(dataset))), []
    keep, drops = [], []
    for i in range(len(dataset)):
        example = dataset[i]
        tokens = int(collator([example])["input_ids"].shape[1])
        if tokens <= max_length:
            keep.append(i)
        else:
            drops.append(
                {
                    "id": example["id"],
                    "tokens": tokens,
                    "max_length": max_length,
                    "images": len(example["images"]),
                    "reason": f"{tokens} tokens (prompt, image tokens and target) > --max-length {max_length}",
                }
            )
    return keep, drops


def _trainer_class(base: type) -> type:
    class MirforgeSFTTrainer(base):  # type: ignore[misc, valid-type]
        """Takes the sample ids out of each batch (for the step log) before the loss is computed."""

        seen_ids: list[str]

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # noqa: ANN001
            ids = inputs.pop("mirforge_ids", None)
            if ids:
                self.seen_ids.extend(ids)
            return super().compute_loss(
                model, inputs, return_outputs=return_outputs, num_items_in_batch=num_items_in_batch
            )

    return MirforgeSFTTrainer


def _step_logger(transformers: Any, log: RunLog, stage: str, trainer_ref: list[Any], echo: bool) -> Any:
    class StepLogger(transformers.TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):  # noqa: ANN001
            if not logs or "loss" not in logs or not state.is_world_process_zero:
                return
            trainer = trainer_ref[0]
            ids, trainer.seen_ids[:] = list(trainer.seen_ids), []
            line = log.write(
                "step",
                stage=stage,
                step=state.global_step,
                loss=round(float(logs["loss"]), 6),
                lr=logs.get("learning_rate"),
                grad_norm=None if logs.get("grad_norm") is None else round(float(logs["grad_norm"]), 6),
                token_accuracy=logs.get("mean_token_accuracy"),
                ids=ids,
            )
            if echo:
                print(f"  {stage} step {line['step']:5d}  loss {line['loss']:.4f}", flush=True)

    return StepLogger()


def _resume_point(cfg: TrainConfig, plan: list[StagePlan]) -> tuple[int, Path | None]:
    """How many leading stages are complete on disk, and the checkpoint of the last of them."""
    if not cfg.resume:
        return 0, None
    done, last = 0, None
    for stage in plan:
        ckpt = Path(cfg.out) / "checkpoints" / stage.name
        if not (ckpt / DONE).is_file():
            break
        done, last = done + 1, ckpt
    return done, last


def plan_stages(cfg: TrainConfig) -> tuple[Any, list[StagePlan]]:
    cur = load_curriculum(cfg.curriculum, cfg.stages)
    if cfg.baseline:
        return cur, [baseline_plan(cur, cfg.seed)]
    return cur, cur.stages


def run_training(
    cfg: TrainConfig,
    on_stage_start: StageHook | None = None,
    on_stage_end: StageHook | None = None,
) -> TrainResult:
    """Train through the stages; write checkpoints, ``training_log.jsonl`` and (with evaluation) the curve."""
    cfg.validate()
    cfg.model = str(Path(cfg.model).resolve())
    torch, transformers, trl = _imports()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    cur, plan = plan_stages(cfg)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    done, resume_from = _resume_point(cfg, plan)
    eval_setup = _eval_setup(cfg, cur) if cfg.eval_data is not None else None
    model, processor, bf16 = load_for_training(cfg, resume_from)
    collator = _Collator(processor)
    log = RunLog(out / LOG, append=done > 0)
    result = TrainResult(out=out)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    curriculum_steps = sum(
        optimizer_steps(len(s.rows), cfg.batch_size, cfg.grad_accum, world, cfg.epochs) for s in cur.stages
    )
    log.write(
        "start",
        mode="baseline" if cfg.baseline else "curriculum",
        config=cfg.to_json(),
        bf16=bf16,
        world_size=world,
        stages=[{"name": s.name, "rows": len(s.rows)} for s in plan],
        curriculum_steps=curriculum_steps,
        resumed_stages=done,
    )
    echo = not cfg.quiet
    trainer_cls = _trainer_class(trl.SFTTrainer)
    try:
        for index, stage in enumerate(plan):
            ckpt = out / "checkpoints" / stage.name
            if index < done:
                log.write("skip", stage=stage.name, checkpoint=str(ckpt), reason="complete on disk (--resume)")
                result.checkpoints.append(ckpt)
                continue
            dataset = hf_dataset([to_trl(r, cur.dataset) for r in stage.rows]) if stage.rows else None
            keep, drops = length_filter(dataset, collator, cfg.max_length) if dataset is not None else ([], [])
            for drop in drops:
                log.write("drop", stage=stage.name, **drop)
            result.dropped[stage.name] = len(drops)
            if drops and echo:
                print(f"{stage.name}: dropped {len(drops)} of {len(stage.rows)} rows longer than --max-length")
            if not keep:
                log.write("stage_empty", stage=stage.name, rows=len(stage.rows), dropped=len(drops))
                if echo:
                    print(f"warning: {stage.name} has no rows to train on; the weights pass on unchanged")
                continue
            if len(keep) < len(dataset):
                dataset = dataset.select(keep)
            max_steps = curriculum_steps if cfg.baseline else -1
            planned = (
                max_steps
                if cfg.baseline
                else optimizer_steps(len(keep), cfg.batch_size, cfg.grad_accum, world, cfg.epochs)
            )
            args = trl.SFTConfig(
                output_dir=str(out / "runs" / stage.name),
                per_device_train_batch_size=cfg.batch_size,
                gradient_accumulation_steps=cfg.grad_accum,
                learning_rate=cfg.lr,
                num_train_epochs=cfg.epochs,
                max_steps=max_steps,
                lr_scheduler_type=cfg.scheduler,
                warmup_steps=cfg.warmup_ratio,
                weight_decay=cfg.weight_decay,
                logging_steps=1,
                save_strategy="no",
                report_to="none",
                bf16=bf16,
                **{_checkpointing_flag(trl.SFTConfig): cfg.gradient_checkpointing},
                dataloader_pin_memory=bool(torch.cuda.is_available()),
                max_length=None,
                completion_only_loss=True,
                train_sampling_strategy="sequential",
                shuffle_dataset=False,
                remove_unused_columns=False,
                dataloader_num_workers=0,
                seed=cfg.seed,
                deepspeed=cfg.deepspeed,
                disable_tqdm=True,
            )
            ref: list[Any] = []
            trainer = trainer_cls(
                model=model,
                args=args,
                train_dataset=dataset,
                processing_class=processor,
                data_collator=collator,
                callbacks=[_step_logger(transformers, log, stage.name, ref, echo)],
            )
            trainer.seen_ids = []
            ref.append(trainer)
            trainer.remove_callback(transformers.trainer_callback.PrinterCallback)
            log.write(
                "stage_start",
                stage=stage.name,
                index=index,
                rows=len(keep),
                planned_steps=planned,
                weights=fingerprint(model),
                first_ids=[dataset[i]["id"] for i in range(min(3, len(dataset)))],
            )
            if echo:
                print(f"{stage.name}: {len(keep)} rows, {planned} optimizer steps", flush=True)
            if on_stage_start is not None:
                on_stage_start(stage.name, model)
            output = trainer.train()
            steps = int(trainer.state.global_step)
            result.steps[stage.name] = steps
            trainer.save_model(str(ckpt))
            if trainer.is_world_process_zero():
                processor.save_pretrained(str(ckpt))
                _fix_processor_class(ckpt)
                meta = {
                    "stage": stage.name,
                    "index": index,
                    "steps": steps,
                    "rows": len(keep),
                    "dropped": len(drops),
                    "train_loss": round(float(output.training_loss), 6),
                    "mode": "lora" if cfg.lora is not None else "full",
                    "base_model": str(Path(cfg.model).resolve()),
                    "weights": fingerprint(model),
                }
                (ckpt / DONE).write_text(json.dumps(meta, indent=1) + "\n")
                log.write("stage_end", checkpoint=str(ckpt), **meta)
            result.checkpoints.append(ckpt)
            if on_stage_end is not None:
                on_stage_end(stage.name, model)
            if cfg.after_each_stage and eval_setup is not None and trainer.is_world_process_zero():
                point = _evaluate_stage(cfg, model, processor, eval_setup, stage.name, out)
                result.curve.append(point)
                log.write("eval", **point)
                _write_curve(out, _curve_points(out, result.curve, done, plan))
            trainer.accelerator.wait_for_everyone()
            del trainer
        log.write("end", steps=result.steps, dropped=result.dropped, checkpoints=[str(c) for c in result.checkpoints])
    finally:
        log.close()
    return result


def _checkpointing_flag(config_cls: type) -> str:
    """transformers 5.x renamed ``gradient_checkpointing`` to ``activation_checkpointing``; use what exists."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(config_cls)}
    return "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"


def _fix_processor_class(folder: Path) -> None:
    """Record the stock processor class name (not mirforge's torchvision-free subclass) in the checkpoint."""
    from mirforge.models.processor import restore_processor_class

    restore_processor_class(folder)


@dataclass
class _EvalSetup:
    records: list[dict[str, Any]]
    root: Path
    prompt: Callable[[dict[str, Any]], str]
    chance: dict[str, float]


def _eval_setup(cfg: TrainConfig, cur: Any) -> _EvalSetup:
    from mirforge.dataset import Dataset
    from mirforge.evaluation.run import chance_levels, prompt_builder, select_records

    root = Path(cfg.eval_data)
    records = select_records(Dataset(root).records(), cfg.eval_split, None, cfg.eval_limit, flag="--eval-split")
    train_ids = {row["id"] for s in cur.stages for row in s.rows}
    if Path(root).resolve() == Path(cur.dataset).resolve() and any(r["id"] in train_ids for r in records):
        raise InputError(
            "--eval: the held-out set shares instances with the curriculum; generate a separate split "
            "(mirforge generate --split val ...) and pass --eval-split val, or another dataset folder"
        )
    return _EvalSetup(records, root, prompt_builder("train", cur.schedule), chance_levels(records))


def _evaluate_stage(
    cfg: TrainConfig, model: Any, processor: Any, setup: _EvalSetup, stage: str, out: Path
) -> dict[str, Any]:
    from mirforge.evaluation.report import write_json
    from mirforge.evaluation.run import greedy, predict, summarize, write_predictions
    from mirforge.models.transformers_backend import TransformersBackend

    was_training = model.training
    model.eval()
    try:
        backend = TransformersBackend(model, processor, f"{cfg.model}@{stage}", batch_size=cfg.eval_batch_size)
        preds = predict(
            backend,
            setup.records,
            setup.root,
            prompt=setup.prompt,
            sampling=greedy(cfg.eval_max_new_tokens, seed=cfg.seed),
        )
    finally:
        if was_training:
            model.train()
    summary = summarize(preds, setup.chance)
    folder = out / "eval" / stage
    write_json(summary, folder / "results.json")
    write_predictions(preds, folder / "predictions.jsonl")
    return {
        "stage": stage,
        "accuracy": summary["overall"]["accuracy"],
        "parse_failure_rate": summary["overall"]["parse_failure_rate"],
        "n": summary["overall"]["n"],
        "chance": setup.chance["overall"],
        "by_task": {t: g["accuracy"] for t, g in summary["by_task"].items()},
    }


def _curve_points(out: Path, new: list[dict[str, Any]], done: int, plan: list[StagePlan]) -> list[dict[str, Any]]:
    """Points of stages resumed from disk (their eval results) followed by this run's points."""
    points = []
    for stage in plan[:done]:
        path = out / "eval" / stage.name / "results.json"
        if path.is_file():
            s = json.loads(path.read_text())
            points.append(
                {
                    "stage": stage.name,
                    "accuracy": s["overall"]["accuracy"],
                    "parse_failure_rate": s["overall"]["parse_failure_rate"],
                    "n": s["overall"]["n"],
                    "chance": s.get("chance", {}).get("overall"),
                }
            )
    return points + new


def _write_curve(out: Path, points: list[dict[str, Any]]) -> None:
    from mirforge.evaluation.report import curve_chart

    (out / CURVE).write_text("".join(json.dumps(p) + "\n" for p in points))
    try:
        curve_chart(points, out / CURVE_PNG)
    except Exception as exc:  # noqa: BLE001 - a chart must never fail a training run
        print(f"warning: could not draw {out / CURVE_PNG}: {exc}", flush=True)
