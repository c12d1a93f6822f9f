"""The training configuration: defaults (MIR's recipe where it has one), a ``--config`` file, ``--lora`` specs."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from mirforge.dataset.layout import check_split
from mirforge.errors import InputError
from mirforge.models.loader import model_folder

# Linear layers of the language model (Qwen2/2.5-VL, LLaVA-OneVision: ``language_model``; Idefics2/3: ``text_model``).
DEFAULT_LORA_TARGETS = r".*(?:language_model|text_model).*\.(?:q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj)"
SCHEDULERS = ("linear", "cosine", "constant", "constant_with_warmup")


@dataclass(frozen=True)
class LoraSpec:
    r: int = 16
    alpha: int = 32
    dropout: float = 0.05
    targets: str = DEFAULT_LORA_TARGETS

    def validate(self) -> None:
        if self.r < 1:
            raise InputError(f"--lora: r must be at least 1, got {self.r}")
        if self.alpha <= 0:
            raise InputError(f"--lora: alpha must be > 0, got {self.alpha}")
        if not 0 <= self.dropout < 1:
            raise InputError(f"--lora: dropout must be in [0, 1), got {self.dropout}")
        try:
            re.compile(self.targets)
        except re.error as exc:
            raise InputError(f"--lora: targets is not a regular expression ({exc})") from None


def parse_lora(value: str | dict[str, Any] | None) -> LoraSpec:
    """``r=16,alpha=32,dropout=0.05[,targets=REGEX]`` (or a mapping with those keys) -> LoraSpec."""
    if value is None or value == "":
        return LoraSpec()
    if isinstance(value, str):
        items: dict[str, Any] = {}
        for part in value.split(","):
            key, eq, raw = part.partition("=")
            if not eq or not key.strip():
                raise InputError(f"--lora: {part!r} must look like KEY=VALUE, e.g. --lora r=16,alpha=32,dropout=0.05")
            items[key.strip()] = raw.strip()
    elif isinstance(value, dict):
        items = dict(value)
    else:
        raise InputError(f"--lora: {value!r} must be r=..,alpha=..,dropout=.. or a mapping")
    unknown = set(items) - {"r", "alpha", "dropout", "targets"}
    if unknown:
        raise InputError(f"--lora: unknown keys {', '.join(sorted(unknown))}; use r, alpha, dropout, targets")
    try:
        spec = LoraSpec(
            r=int(items.get("r", 16)),
            alpha=int(float(items.get("alpha", 32))),
            dropout=float(items.get("dropout", 0.05)),
            targets=str(items.get("targets", DEFAULT_LORA_TARGETS)),
        )
    except ValueError as exc:
        raise InputError(f"--lora: {exc}; e.g. --lora r=16,alpha=32,dropout=0.05") from None
    spec.validate()
    return spec


@dataclass
class TrainConfig:
    """Everything ``mirforge train`` needs. ``lora`` is None for full fine-tuning."""

    model: str
    curriculum: Path
    out: Path
    lora: LoraSpec | None = field(default_factory=LoraSpec)
    baseline: bool = False
    seed: int = 0
    lr: float = 2e-5
    batch_size: int = 1
    grad_accum: int = 4
    epochs: float = 1.0
    max_length: int | None = None
    warmup_ratio: float = 0.05
    weight_decay: float = 0.0
    scheduler: str = "cosine"
    gradient_checkpointing: bool = False
    bf16: bool | None = None  # None: on when a CUDA GPU with bf16 is present
    deepspeed: str | None = None
    stages: tuple[str, ...] = ()
    resume: bool = False
    eval_data: Path | None = None
    eval_split: str | None = None
    eval_limit: int | None = None
    eval_max_new_tokens: int = 512
    eval_batch_size: int = 4
    after_each_stage: bool = False
    quiet: bool = False

    def validate(self) -> None:
        folder = model_folder(self.model)
        if folder.adapter:  # a new run starts from full weights; the loader takes adapters back only on --resume
            raise InputError(
                f"--model: {self.model} is a LoRA adapter folder; train from its base model {folder.base} "
                "or merge the adapter into it first"
            )
        if not (Path(self.curriculum) / "curriculum.json").is_file():
            raise InputError(
                f"--curriculum: {self.curriculum} holds no curriculum.json; build one with `mirforge curriculum`"
            )
        checks = [
            (self.lr > 0, "--lr", f"must be > 0, got {self.lr}"),
            (self.batch_size >= 1, "--batch-size", f"must be at least 1, got {self.batch_size}"),
            (self.grad_accum >= 1, "--grad-accum", f"must be at least 1, got {self.grad_accum}"),
            (self.epochs > 0, "--epochs", f"must be > 0, got {self.epochs}"),
            (self.max_length is None or self.max_length > 0, "--max-length", f"must be > 0, got {self.max_length}"),
            (0 <= self.warmup_ratio < 1, "--warmup-ratio", f"must be in [0, 1), got {self.warmup_ratio}"),
            (self.scheduler in SCHEDULERS, "--scheduler", f"{self.scheduler!r} is not one of {', '.join(SCHEDULERS)}"),
            (self.eval_limit is None or self.eval_limit > 0, "--eval-limit", "must be > 0"),
            (self.eval_max_new_tokens > 0, "--eval-max-new-tokens", "must be > 0"),
            (self.eval_batch_size > 0, "--eval-batch-size", "must be > 0"),
        ]
        for ok, flag, message in checks:
            if not ok:
                raise InputError(f"{flag}: {message}")
        if self.after_each_stage and self.eval_data is None:
            raise InputError("--after-each-stage: needs --eval DATASET (a held-out dataset folder)")
        if self.eval_data is not None and not Path(self.eval_data).is_dir():
            raise InputError(f"--eval: {self.eval_data} is not a dataset folder")
        if self.eval_split is not None:
            check_split(self.eval_split, "--eval-split")
        if self.deepspeed and not Path(self.deepspeed).is_file():
            raise InputError(f"--deepspeed: {self.deepspeed} is not a file (a DeepSpeed JSON config)")
        if self.lora is not None:
            self.lora.validate()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("curriculum", "out", "eval_data"):
            data[key] = None if data[key] is None else str(data[key])
        data["stages"] = list(self.stages)
        data["mode"] = "lora" if self.lora is not None else "full"
        return data


# keys a --config file may hold -> the TrainConfig field they set
CONFIG_KEYS = {f.name for f in fields(TrainConfig)} | {"full", "eval", "lora"}


def load_config_file(path: Path) -> dict[str, Any]:
    """A YAML, TOML or JSON mapping of option names (``-`` or ``_``) to values."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"--config: {path} does not exist")
    text = path.read_text()
    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - any parse error is bad input
        raise InputError(f"--config: {path} does not parse ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"--config: {path} must hold a mapping of option names to values")
    out = {str(k).replace("-", "_"): v for k, v in data.items()}
    unknown = set(out) - CONFIG_KEYS
    if unknown:
        raise InputError(f"--config: {path}: unknown keys {', '.join(sorted(unknown))}")
    return out
