"""The options of ``mirforge generate``, declared once: the command's flags, the keys of a ``--config`` file
(YAML or TOML) and their checks all come from :data:`OPTIONS`. ``RunConfig.from_options`` merges and validates.

Every option can come from the file under its long name with ``_`` or ``-`` (``shard_size``, ``rewrite-max-calls``)
but ``config``, ``dry_run`` and the two consents a user gives on the command line each time, ``force_templates`` and
``allow_insecure_endpoint``; flags given on the command line override the file. Three keys take richer values
in the file than on the command line: ``tasks`` may be a list, ``n`` may map task names to counts (``n: {view_3d:
2338, chart_analysis: 1956}``), and ``set`` may be a mapping ``{task: {field: value}}`` as well as a list of
``TASK.FIELD=VALUE`` strings. When ``n`` is a mapping, ``tasks`` may be left out: the run makes the tasks it names.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.render import BACKENDS, DEFAULT_BACKEND

EXECUTORS = ("local", "ray")
MAX_FILE_BYTES = 1 << 20  # a config file is a page of options, not data


@dataclass(frozen=True)
class Option:
    name: str  # the parameter name, and the key in a config file
    type: type  # of one command-line value: int, float, bool, str or Path (optional when the default is None)
    default: Any
    help: str
    flags: tuple[str, ...] = ()  # click declarations, when not just --name (with --no-name for a bool)
    choices: tuple[str, ...] = ()
    many: bool = False  # repeatable flag
    in_file: bool = True  # may be set in a --config file
    # what a file value must be, and its check (value, where) -> value, where the type alone does not say
    expects: str = ""
    from_file: Callable[[Any, str], Any] | None = None

    def described(self) -> str:
        if self.expects:
            return self.expects
        if self.choices:
            return " or ".join(self.choices)
        return {int: "an integer", float: "a number", bool: "true or false", Path: "a path"}.get(self.type, "a string")

    def check_file_value(self, value: Any, where: str) -> Any:
        """A value read from a config file, checked and in the form the command line gives."""
        if self.from_file is not None:
            return self.from_file(value, where)
        ok = {
            int: isinstance(value, int) and not isinstance(value, bool),
            float: isinstance(value, int | float) and not isinstance(value, bool),
            bool: isinstance(value, bool),
            str: isinstance(value, str),
            Path: isinstance(value, str),
        }[self.type]
        if not ok:
            raise InputError(f"{where}: {self.name} must be {self.described()}, got {value!r}")
        if self.type is float:
            return float(value)
        return Path(value).expanduser() if self.type is Path else value


def parse_sets(items: list[Any], where: str = "--set") -> dict[str, dict[str, Any]]:
    """``TASK.FIELD=VALUE`` strings -> {task: {field: value}} (values stay strings: the task's Config coerces)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        if not isinstance(item, str):
            raise InputError(f"{where}: entries must be TASK.FIELD=VALUE strings, got {item!r}")
        key, eq, value = item.partition("=")
        task, dot, name = key.partition(".")
        if not eq or not dot or not task or not name:
            raise InputError(f"{where}: {item!r} must look like TASK.FIELD=VALUE, e.g. view_3d.max_tries=50")
        out.setdefault(task, {})[name] = value
    return out


def _tasks_from_file(value: Any, where: str) -> str | list[str]:
    if isinstance(value, str) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        return value
    raise InputError(f"{where}: tasks must be {OPTION['tasks'].expects}, got {value!r}")


def _counts_from_file(value: Any, where: str) -> int | dict[str, int]:
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        for task, count in value.items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise InputError(f"{where}: n.{task} must be a positive integer, got {count!r}")
        return dict(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(f"{where}: n must be {OPTION['n'].expects}, got {value!r}")


def _sets_from_file(value: Any, where: str) -> dict[str, dict[str, Any]]:
    if isinstance(value, list):
        return parse_sets(value, f"{where}: set")
    if isinstance(value, dict):
        for task, fields in value.items():
            if not isinstance(fields, dict):
                raise InputError(f"{where}: set.{task} must be a mapping {{field: value}}, got {fields!r}")
        return {str(t): dict(f) for t, f in value.items()}
    raise InputError(f"{where}: set must be {OPTION['set'].expects}, got {value!r}")


OPTIONS: tuple[Option, ...] = (
    Option(
        "tasks",
        str,
        None,
        "Comma list of task names, or `all`.",
        expects="a comma list or a list of task names, or `all`",
        from_file=_tasks_from_file,
    ),
    Option(
        "n",
        int,
        None,
        "Instances per task (a per-task mapping only in --config).",
        expects="a count per task, or a mapping {task: count}",
        from_file=_counts_from_file,
    ),
    Option("out", Path, None, "Dataset folder (created; an existing one is resumed)."),
    Option("seed", int, 0, "Run seed; 0 is a seed like any other."),
    Option("split", str, "test", "Split name; splits of one run never share seeds."),
    Option("workers", int, 1, "Worker processes (output does not depend on it)."),
    Option("shard_size", int, 50, "Instances per shard file."),
    Option(
        "set",
        str,
        [],
        "Task config field: TASK.FIELD=VALUE.",
        many=True,
        expects="a mapping {task: {field: value}} or a list of TASK.FIELD=VALUE",
        from_file=_sets_from_file,
    ),
    Option("templates", Path, None, "Folder of template overrides, TASK/STEP.j2."),
    Option(
        "force_templates",
        bool,
        False,
        "Resume a split whose step templates changed: its finished shards keep the old text and the rest get the "
        "new, so the split mixes both (the manifest records which shard used which).",
        flags=("--force-templates",),
        in_file=False,
    ),
    Option("renderer", str, DEFAULT_BACKEND, "3D backend: moderngl (fast) or pyrender (reference).", choices=BACKENDS),
    Option("rewriter", str, None, "Rewrite the steps with an LLM: `openai` (extra [llm]).", choices=("openai",)),
    Option("model", str, None, "Rewriter model name (with --rewriter)."),
    Option("base_url", str, None, "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; key from env."),
    Option("rewrite_max_calls", int, None, "Call budget of the run; then templates."),
    Option(
        "rewrite_timeout",
        float,
        None,
        "Seconds per rewriter request (default 25: with one retry and the circuit breaker, a hanging endpoint "
        "costs a run under 2 minutes).",
    ),
    Option(
        "rewrite_length_cap",
        float,
        None,
        "With structured outputs, cap each rewritten step at this many times its template's length (plus 40 "
        "characters), so a small model that repeats itself is stopped by the server's grammar (e.g. 1.3).",
    ),
    Option(
        "allow_insecure_endpoint",
        bool,
        False,
        "Send the API key over plain http to a --base-url on another machine (else only https or loopback).",
        flags=("--allow-insecure-endpoint",),
        in_file=False,
    ),
    Option("keep_video", bool, False, "Also keep the mp4 clips of video tasks under videos/."),
    Option(
        "realism",
        str,
        None,
        "Photo-like pass over tasks that allow it: `diffusion` (extra [diffusion]).",
        choices=("diffusion",),
    ),
    Option("diffusion_model", Path, None, "Local Stable Diffusion folder (with --realism diffusion)."),
    Option("controlnet", Path, None, "Local depth ControlNet folder (with --realism)."),
    Option("realism_steps", int, None, "Denoising steps of the realism pass."),
    Option("realism_strength", float, None, "img2img strength of the realism pass."),
    Option("executor", str, "local", "local or ray.", choices=EXECUTORS),
    Option("address", str, None, "Ray cluster address (with --executor ray).", expects="a Ray address"),
    Option(
        "upload",
        str,
        None,
        "Also put every file to this fsspec URL (s3://bucket/prefix, gs://..., file:///path).",
        expects="an fsspec URL, e.g. s3://bucket/prefix",
    ),
    Option(
        "config",
        Path,
        None,
        "YAML or TOML file of these options (flags given here override it).",
        in_file=False,
    ),
    Option(
        "dry_run",
        bool,
        False,
        "Print the plan (shards, estimated images); write nothing.",
        flags=("--dry-run",),
        in_file=False,
    ),
    Option("quiet", bool, False, "No progress bar or summary.", flags=("--quiet", "-q")),
    Option("verbose", bool, False, "Also print per-task counts and timings.", flags=("--verbose", "-v")),
)
OPTION = {option.name: option for option in OPTIONS}
FILE_KEYS = tuple(option.name for option in OPTIONS if option.in_file)


def defaults() -> dict[str, Any]:
    """Every option at its default, as the command line gives them when no flag is set."""
    return {option.name: list(option.default) if option.many else option.default for option in OPTIONS}


def load_file(path: Path) -> dict[str, Any]:
    """A config file's settings, keys normalised to the option names, values checked."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"--config: {path} is not a file")
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise InputError(f"--config: {path} must end in .yaml, .yml or .toml")
    data = path.read_bytes()
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"--config: {path} is {len(data)} bytes; a config file holds at most {MAX_FILE_BYTES}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"--config: {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save it as UTF-8"
        ) from None
    if suffix == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"--config: {path} is not valid TOML ({' '.join(str(exc).split())})") from None
    else:
        raw = load_yaml(text, path)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError(f"--config: {path} must hold a mapping of generate options, not {type(raw).__name__}")
    return normalise(raw, where=str(path))


def load_yaml(text: str, path: Path) -> Any:
    """A YAML config file's value, read by PyYAML's safe loader without aliases (``*name``: nine nested ones are
    a billion-item "alias bomb") and without repeated keys (the last would silently win)."""
    try:
        import yaml
    except ImportError:
        raise InputError("--config: YAML files need PyYAML: pip install pyyaml") from None

    class Loader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise InputError(
                    f"--config: {path}, line {mark.line + 1}: YAML aliases (*name) are not allowed in a config file; "
                    "write the value out"
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, Hashable):
                    continue  # the safe loader names an unhashable key itself
                if key in seen:
                    raise InputError(f"--config: {path}, line {key_node.start_mark.line + 1}: key {key!r} repeated")
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    try:
        return yaml.load(text, Loader=Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise InputError(f"--config: {path} is not valid YAML ({' '.join(str(exc).split())})") from None


def normalise(raw: dict[str, Any], where: str = "config") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key).replace("-", "_")
        if name not in FILE_KEYS:
            raise InputError(f"{where}: unknown key {key!r}; known keys: {', '.join(sorted(FILE_KEYS))}")
        out[name] = OPTION[name].check_file_value(value, where)
    if "tasks" not in out and isinstance(out.get("n"), dict):
        out["tasks"] = list(out["n"])
    return out
