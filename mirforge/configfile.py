"""Run config files for ``mirforge generate --config FILE`` (YAML or TOML), and the ``--dry-run`` plan.

Every option of ``generate`` can come from the file, under its long name with ``_`` or ``-`` (``shard_size``,
``rewrite-max-calls``); flags given on the command line override the file. Two keys take richer values than
their flags: ``n`` may map task names to counts (``n: {view_3d: 2338, chart_analysis: 1956}``), and ``set``
may be a mapping ``{task: {field: value}}`` as well as a list of ``TASK.FIELD=VALUE`` strings. When ``n`` is a
mapping, ``tasks`` may be left out: the run makes the tasks the mapping names.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.errors import InputError

# key in the file -> what it must hold (for error messages)
KEYS: dict[str, str] = {
    "tasks": "a comma list or a list of task names, or `all`",
    "n": "a count per task, or a mapping {task: count}",
    "out": "a folder path",
    "seed": "an integer",
    "split": "a split name",
    "workers": "an integer",
    "shard_size": "an integer",
    "set": "a mapping {task: {field: value}} or a list of TASK.FIELD=VALUE",
    "templates": "a folder path",
    "renderer": "moderngl or pyrender",
    "rewriter": "openai",
    "model": "a model name",
    "base_url": "a URL",
    "rewrite_max_calls": "an integer",
    "keep_video": "true or false",
    "realism": "diffusion",
    "diffusion_model": "a folder path",
    "controlnet": "a folder path",
    "realism_steps": "an integer",
    "realism_strength": "a number",
    "executor": "local or ray",
    "address": "a Ray address",
    "upload": "an fsspec URL, e.g. s3://bucket/prefix",
    "quiet": "true or false",
    "verbose": "true or false",
}
INTS = {"seed", "workers", "shard_size", "rewrite_max_calls", "realism_steps"}
BOOLS = {"keep_video", "quiet", "verbose"}
STRINGS = {"split", "renderer", "rewriter", "model", "base_url", "executor", "address", "realism", "upload"}
PATHS = {"out", "templates", "diffusion_model", "controlnet"}


def load(path: Path) -> dict[str, Any]:
    """The file's settings, keys normalised to the parameter names of ``generate``, values type-checked."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"--config: {path} is not a file")
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            raw = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            raw = yaml.safe_load(text)
        else:
            raise InputError(f"--config: {path} must end in .yaml, .yml or .toml")
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"--config: {path} is not valid TOML ({exc})") from None
    except ImportError:
        raise InputError("--config: YAML files need PyYAML: pip install pyyaml") from None
    except Exception as exc:  # yaml.YAMLError and friends
        if isinstance(exc, InputError):
            raise
        raise InputError(f"--config: {path} is not valid YAML ({exc})") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError(f"--config: {path} must hold a mapping of generate options, not {type(raw).__name__}")
    return normalise(raw, where=str(path))


def normalise(raw: dict[str, Any], where: str = "config") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key).replace("-", "_")
        if name not in KEYS:
            raise InputError(f"{where}: unknown key {key!r}; known keys: {', '.join(sorted(KEYS))}")
        out[name] = _check(name, value, where)
    if "tasks" not in out and isinstance(out.get("n"), dict):
        out["tasks"] = ",".join(out["n"])
    return out


def _check(name: str, value: Any, where: str) -> Any:
    def bad() -> InputError:
        return InputError(f"{where}: {name} must be {KEYS[name]}, got {value!r}")

    if name in INTS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad()
        return value
    if name == "realism_strength":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad()
        return float(value)
    if name in BOOLS:
        if not isinstance(value, bool):
            raise bad()
        return value
    if name in STRINGS:
        if not isinstance(value, str):
            raise bad()
        return value
    if name in PATHS:
        if not isinstance(value, str):
            raise bad()
        return Path(value).expanduser()
    if name == "tasks":
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return ",".join(value)
        raise bad()
    if name == "n":
        if isinstance(value, dict):
            if not value or not all(isinstance(k, str) for k in value):
                raise bad()
            for task, count in value.items():
                if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                    raise InputError(f"{where}: n.{task} must be a positive integer, got {count!r}")
            return {k: int(v) for k, v in value.items()}
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad()
        return value
    if name == "set":
        return _sets(value, where)
    raise bad()  # pragma: no cover - every key is handled above


def _sets(value: Any, where: str) -> dict[str, dict[str, Any]]:
    if isinstance(value, list):
        out: dict[str, dict[str, Any]] = {}
        for item in value:
            if not isinstance(item, str):
                raise InputError(f"{where}: set entries must be TASK.FIELD=VALUE strings, got {item!r}")
            key, eq, val = item.partition("=")
            task, dot, field = key.partition(".")
            if not eq or not dot or not task or not field:
                raise InputError(f"{where}: set: {item!r} must look like TASK.FIELD=VALUE")
            out.setdefault(task, {})[field] = val
        return out
    if isinstance(value, dict):
        for task, fields in value.items():
            if not isinstance(fields, dict):
                raise InputError(f"{where}: set.{task} must be a mapping {{field: value}}, got {fields!r}")
        return {str(t): dict(f) for t, f in value.items()}
    raise InputError(f"{where}: set must be {KEYS['set']}, got {value!r}")


def merge_sets(base: dict[str, dict[str, Any]], override: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Task config fields of the file, with the command line's ``--set`` fields on top."""
    out = {task: dict(fields) for task, fields in base.items()}
    for task, fields in override.items():
        out.setdefault(task, {}).update(fields)
    return out


# -- the plan of a dry run ------------------------------------------------------------------------------------
@dataclass
class PlannedTask:
    task: str
    category: str
    instances: int
    shards: int
    complete_shards: int
    images_per_instance: float  # estimated from questions sampled without rendering

    @property
    def images(self) -> int:
        return round(self.instances * self.images_per_instance)


def dry_run(config: Any, out: Path | None, sample: int = 6, upload: str | None = None) -> list[PlannedTask]:
    """What ``generate`` would do, without writing anything. Images are estimated by asking (not rendering)
    up to ``sample`` questions per task: the number of ``<image>`` slots is the number of images. Shards missing
    from ``out`` count as complete when ``upload`` holds them."""
    from mirforge.dataset.layout import MANIFEST
    from mirforge.dataset.manifest import Manifest
    from mirforge.errors import Reject
    from mirforge.instance import IMAGE_SLOT
    from mirforge.pipeline import ask, level_of
    from mirforge.registry import resolve
    from mirforge.runner.plan import plan
    from mirforge.runner.worker import frozen, task_for, task_settings
    from mirforge.seeding import attempt_rng, balanced_slot, balanced_variant, instance_seed

    config.validate()
    resolve(",".join(config.tasks))
    manifest = None
    if out is not None and (Path(out) / MANIFEST).is_file():
        manifest = Manifest(Path(out), upload)
        manifest.begin(config.to_json())  # in memory only: raises if the folder holds a different config
    shards = plan(config)
    planned = []
    for name in config.tasks:
        task = task_for(name, frozen(task_settings(config, name)))
        counts = []
        for index in range(min(sample, config.count(name))):
            seq = instance_seed(config.seed, config.split, name, index)
            slot = balanced_slot(config.seed, config.split, name, index, task.config.n_options)
            variant = balanced_variant(config.seed, config.split, name, index, task.variants)
            for attempt in range(task.config.max_tries):
                try:
                    rng = attempt_rng(seq, attempt)
                    question = ask(task, task.sample(rng, level_of(task, index)), rng, slot, variant)
                except Reject:
                    continue
                counts.append(question.text.count(IMAGE_SLOT))
                break
        mine = [s for s in shards if s.task == name]
        done = sum(1 for s in mine if manifest is not None and manifest.is_complete(config.split, s.path))
        planned.append(
            PlannedTask(
                task=name,
                category=task.category,
                instances=config.count(name),
                shards=len(mine),
                complete_shards=done,
                images_per_instance=sum(counts) / len(counts) if counts else 0.0,
            )
        )
    return planned


def format_plan(config: Any, planned: list[PlannedTask], out: Path | None) -> str:
    lines = [
        f"plan of split {config.split!r}, seed {config.seed}, shard size {config.shard_size}"
        + (f", into {out}" if out else ""),
        f"{'task':24} {'category':11} {'instances':>9} {'shards':>6} {'complete':>8} {'images/inst':>11} "
        f"{'~images':>8}",
    ]
    for p in planned:
        lines.append(
            f"{p.task:24} {p.category:11} {p.instances:9d} {p.shards:6d} {p.complete_shards:8d} "
            f"{p.images_per_instance:11.2f} {p.images:8d}"
        )
    total_i = sum(p.instances for p in planned)
    total_img = sum(p.images for p in planned)
    lines.append(
        f"{'total':24} {'':11} {total_i:9d} {sum(p.shards for p in planned):6d} "
        f"{sum(p.complete_shards for p in planned):8d} {total_img / max(total_i, 1):11.2f} {total_img:8d}"
    )
    lines.append("dry run: nothing was written (images estimated from sampled questions, not rendered)")
    return "\n".join(lines)
