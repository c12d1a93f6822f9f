"""A run's configuration, normalised once at the boundary: :meth:`RunConfig.from_options` turns what a user gave
(flags and a ``--config`` file, see :mod:`mirforge.runner.options`) into a validated :class:`RunConfig` (what
decides the bytes) and an :class:`Execution` (how the run is carried out, which does not)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from mirforge.dataset.layout import check_split
from mirforge.errors import InputError, MirforgeError
from mirforge.models.endpoint import check_endpoint, needs_insecure
from mirforge.pipeline import RunSpec
from mirforge.registry import load, resolve
from mirforge.render import DEFAULT_BACKEND
from mirforge.render.gl import check_backend
from mirforge.runner.options import EXECUTORS, OPTION, defaults, load_file, parse_sets
from mirforge.task import Task

MAX_INSTANCES = 10_000_000  # per task: checked before anything is planned or allocated
MAX_SHARDS = 100_000  # per run: planning a million shards alone takes seconds and hundreds of MB


@dataclass(frozen=True)
class Execution:
    """How a run is carried out: where it writes and on what. None of it decides the bytes."""

    out: Path | None
    workers: int = 1
    executor: str = "local"
    address: str | None = None
    upload: str | None = None
    dry_run: bool = False
    quiet: bool = False
    verbose: bool = False
    force_templates: bool = False  # resume a split whose step templates changed (its text then mixes both)

    def validate(self) -> None:
        if self.out is None and not self.dry_run:
            raise InputError("--out: required (the dataset folder), on the command line or in --config")
        if self.workers < 1:
            raise InputError(f"--workers: must be at least 1, got {self.workers}")
        if self.executor not in EXECUTORS:
            raise InputError(f"--executor: {self.executor!r} is not one of {', '.join(EXECUTORS)}")
        if self.address is not None and self.executor != "ray":
            raise InputError(f"--address: a Ray cluster address needs --executor ray, not --executor {self.executor}")


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides the bytes of a split (workers and executor do not)."""

    tasks: tuple[str, ...]
    n: int | dict[str, int]  # instances per task: one count for all, or a count per task name
    seed: int = 0
    split: str = "test"
    shard_size: int = 50
    task_config: dict[str, dict[str, Any]] = field(default_factory=dict)  # {task: {field: value}}, as given
    templates: str | None = None
    renderer: str = DEFAULT_BACKEND
    keep_video: bool = False  # also write the encoded clips of video tasks under videos/<task>/<split>/
    rewriter: dict[str, Any] | None = None  # {"backend": "openai", "model": ..., "base_url": ..., ...}
    realism: dict[str, Any] | None = None  # {"mode": "diffusion", "model": DIR, "controlnet": DIR, ...}

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], given: Collection[str] | None = None
    ) -> tuple[RunConfig, Execution]:
        """The run a user asked for, validated. ``options`` maps names of :data:`~mirforge.runner.options.OPTIONS`
        to values (absent ones take their defaults); ``given`` names those set on the command line (default: all of
        ``options``). A ``--config`` file fills every option not given, and its ``set`` fields lie under the
        command line's. Raises :class:`InputError` naming the option and the fix."""
        unknown = set(options) - set(OPTION)
        if unknown:
            raise TypeError(f"from_options: unknown options {sorted(unknown)}")
        values = {**defaults(), **options}
        given = set(options) if given is None else set(given)
        from_file = load_file(values["config"]) if values["config"] is not None else {}
        values.update({k: v for k, v in from_file.items() if k != "set" and k not in given})
        task_config = _merge_sets(from_file.get("set", {}), parse_sets(values["set"]))
        execution = Execution(
            out=values["out"],
            workers=values["workers"],
            executor=values["executor"],
            address=values["address"],
            upload=values["upload"],
            dry_run=values["dry_run"],
            quiet=values["quiet"],
            verbose=values["verbose"],
            force_templates=values["force_templates"],
        )
        tasks, n = values["tasks"], values["n"]
        if tasks is None:
            raise InputError(
                "--tasks: required (a comma list of task names, or `all`), on the command line or in --config"
            )
        if n is None:
            raise InputError("--n: required (instances per task), on the command line or in --config")
        execution.validate()
        names = tuple(resolve(tasks))
        if isinstance(n, dict) and "tasks" in given:  # --tasks picks a subset of the file's per-task counts
            missing = [t for t in names if t not in n]
            if missing:
                raise InputError(f"--tasks: {', '.join(missing)} has no count in the config file's n mapping")
            n = {t: n[t] for t in names}
        templates = values["templates"]
        config = cls(
            tasks=names,
            n=n,
            seed=values["seed"],
            split=values["split"],
            shard_size=values["shard_size"],
            task_config=task_config,
            templates=str(templates) if templates else None,
            renderer=values["renderer"],
            keep_video=values["keep_video"],
            rewriter=_rewriter(
                values["rewriter"],
                values["model"],
                values["base_url"],
                values["rewrite_max_calls"],
                values["allow_insecure_endpoint"],
                values["rewrite_timeout"],
                values["rewrite_length_cap"],
            ),
            realism=_realism(values),
        )
        config.validate()
        return config, execution

    def validate(self) -> None:
        """Every check of the config, in the order a user fixes them; builds (and so checks) each task's config."""
        check_backend(self.renderer)
        if isinstance(self.n, dict):
            missing = [t for t in self.tasks if t not in self.n]
            extra = sorted(set(self.n) - set(self.tasks))
            if missing or extra:
                what = f"no count for {', '.join(missing)}" if missing else f"{', '.join(extra)} not in --tasks"
                raise InputError(f"n: the per-task counts must name exactly the tasks of the run ({what})")
            for task, count in self.n.items():
                if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                    raise InputError(f"n.{task}: must be a positive count of instances, got {count!r}")
                if count > MAX_INSTANCES:
                    raise InputError(f"n.{task}: {count} is more than {MAX_INSTANCES} instances per task")
        elif isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise InputError(f"--n: must be a positive count of instances per task, got {self.n!r}")
        elif self.n > MAX_INSTANCES:
            raise InputError(f"--n: {self.n} is more than {MAX_INSTANCES} instances per task; split the run")
        if self.seed < 0:
            raise InputError(f"--seed: must be a non-negative integer, got {self.seed}")
        if self.shard_size < 1:
            raise InputError(f"--shard-size: must be at least 1, got {self.shard_size}")
        shards = sum(-(-self.count(task) // self.shard_size) for task in self.tasks)
        if shards > MAX_SHARDS:
            total = sum(self.count(task) for task in self.tasks)
            raise InputError(
                f"--shard-size: {self.shard_size} instances per shard make {shards} shards, more than {MAX_SHARDS}; "
                f"use --shard-size {-(-total // (MAX_SHARDS - len(self.tasks)))} or more"
            )
        check_split(self.split)
        if self.templates is not None and not Path(self.templates).is_dir():
            raise InputError(f"--templates: {self.templates} is not a folder")
        unknown = set(self.task_config) - set(self.tasks)
        if unknown:
            raise InputError(f"--set: config given for {', '.join(sorted(unknown))}, which is not in --tasks")
        resolve(list(self.tasks))
        for name in self.tasks:
            self.task(name)
        if self.templates is not None:
            from mirforge.templates import check_overrides

            check_overrides(Path(self.templates), list(self.tasks))
        if self.rewriter is not None:
            insecure = bool(self.rewriter.get("allow_insecure_endpoint"))
            check_endpoint(self.rewriter.get("base_url"), allow_insecure=insecure)

    def count(self, task: str) -> int:
        """How many instances of ``task`` this run makes."""
        return self.n[task] if isinstance(self.n, dict) else self.n

    def task(self, name: str) -> Task:
        """The task ``name`` with this run's config (one instance per process and config)."""
        return task_for(name, frozen(self.task_settings(name)))

    def task_settings(self, name: str) -> dict[str, Any]:
        """The task's config fields given for this run: ``--set`` values, plus ``keep_video`` where the task has
        it."""
        settings = dict(self.task_config.get(name, {}))
        if self.keep_video and "keep_video" in {f.name for f in dataclasses.fields(load(name).Config)}:
            settings["keep_video"] = True
        return settings

    def spec(self, root: Path) -> RunSpec:
        """The per-instance view of this config, for a dataset folder ``root``."""
        return RunSpec(
            run_seed=self.seed,
            split=self.split,
            renderer=self.renderer,
            templates=Path(self.templates) if self.templates else None,
            rewriter=self.rewriter,
            llm_cache=Path(root) / "cache" / "llm.sqlite" if self.rewriter else None,
            realism=self.realism,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunConfig:
        return cls(**{**data, "tasks": tuple(data["tasks"])})

    def to_json(self) -> dict[str, Any]:
        """The config's identity, as the manifest records it: ``task_config`` holds every field of each task's
        config after coercion, so a value given at its default is the same config as one left out."""
        data = asdict(self)
        data["tasks"] = list(self.tasks)
        data["task_config"] = {name: asdict(self.task(name).config) for name in self.tasks}
        return json.loads(json.dumps(data))  # tuples as lists: the form the manifest reads back

    @staticmethod
    def recorded(data: dict[str, Any]) -> dict[str, Any]:
        """A config a manifest recorded, in today's form. Manifests before the effective task config recorded the
        raw ``--set`` strings; a config this mirforge cannot rebuild (a task no longer installed) stays as it was,
        and compares as different."""
        try:
            return RunConfig.from_json(data).to_json()
        except (MirforgeError, TypeError, KeyError, ValueError, AttributeError):  # AttributeError: a field of null
            return data


@cache
def task_for(name: str, config_items: tuple[tuple[str, Any], ...]) -> Task:
    cls = load(name)
    return cls(cls.configure(dict(config_items)))


def frozen(values: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, _hashable(v)) for k, v in values.items()))


def _hashable(value: Any) -> Any:
    """Nested lists and mappings as tuples, so that any config value can key the task cache (the config check
    then names the field, instead of a bare "unhashable type")."""
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _hashable(v)) for k, v in value.items()))
    return value


def _merge_sets(base: dict[str, dict[str, Any]], override: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Task config fields of the file, with the command line's ``--set`` fields on top."""
    out = {task: dict(fields) for task, fields in base.items()}
    for task, fields in override.items():
        out.setdefault(task, {}).update(fields)
    return out


def _rewriter(
    backend: str | None,
    model: str | None,
    base_url: str | None,
    max_calls: int | None,
    allow_insecure: bool = False,
    timeout: float | None = None,
    length_cap: float | None = None,
) -> dict[str, Any] | None:
    if backend is None:
        if (
            model
            or base_url
            or max_calls is not None
            or allow_insecure
            or timeout is not None
            or length_cap is not None
        ):
            flags = (
                "--model/--base-url/--rewrite-max-calls/--rewrite-timeout/--rewrite-length-cap/"
                "--allow-insecure-endpoint"
            )
            raise InputError(f"{flags} need --rewriter openai")
        return None
    if backend != "openai":
        raise InputError(f"--rewriter: {backend!r} is not a rewriter; use `openai` (any OpenAI-compatible endpoint)")
    if not model:
        raise InputError("--model: --rewriter openai needs a model name, e.g. --model Qwen2.5-7B-Instruct")
    check_endpoint(base_url, allow_insecure=allow_insecure)
    if max_calls is not None and max_calls < 0:
        raise InputError(f"--rewrite-max-calls: must be >= 0, got {max_calls}")
    if timeout is not None and not 0 < timeout <= 3600:
        raise InputError(f"--rewrite-timeout: must be a number of seconds in (0, 3600], got {timeout}")
    if length_cap is not None and not 1 <= length_cap <= 10:
        raise InputError(f"--rewrite-length-cap: must be a factor from 1 to 10 (e.g. 1.3), got {length_cap}")
    try:
        import openai  # noqa: F401
    except ImportError:
        raise InputError("--rewriter openai needs the [llm] extra: pip install 'mirforge[llm]'") from None
    rewriter = {"backend": backend, "model": model, "base_url": base_url, "temperature": 0.0, "max_calls": max_calls}
    if allow_insecure and needs_insecure(base_url):  # recorded only where it was needed, so it rarely splits configs
        rewriter["allow_insecure_endpoint"] = True
    if timeout is not None:  # recorded only when given: a config from before the option stays the same
        rewriter["timeout"] = float(timeout)
    if length_cap is not None:  # likewise
        rewriter["max_length_factor"] = float(length_cap)
    return rewriter


def _realism(values: dict[str, Any]) -> dict[str, Any] | None:
    keys = ("realism", "diffusion_model", "controlnet", "realism_steps", "realism_strength")
    if all(values[k] is None for k in keys):
        return None
    from mirforge.realism import realism_config

    return realism_config(*(values[k] for k in keys))
