"""The ``mirforge`` command. Exit codes: 0 ok, 1 failure, 2 bad input or usage."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mirforge.errors import InputError, MirforgeError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate verified interleaved multi-image reasoning benchmarks (MIR style).",
)


def fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def parse_sets(values: list[str]) -> dict[str, dict[str, Any]]:
    """``--set task.field=value`` pairs -> {task: {field: value}}."""
    out: dict[str, dict[str, Any]] = {}
    for item in values:
        key, eq, value = item.partition("=")
        task, dot, name = key.partition(".")
        if not eq or not dot or not task or not name:
            raise InputError(f"--set: {item!r} must look like TASK.FIELD=VALUE, e.g. view_3d.max_tries=50")
        out.setdefault(task, {})[name] = value
    return out


def rewriter_config(
    backend: str | None, model: str | None, base_url: str | None, max_calls: int | None
) -> dict[str, Any] | None:
    if backend is None:
        if model or base_url or max_calls is not None:
            raise InputError("--model/--base-url/--rewrite-max-calls need --rewriter openai")
        return None
    if backend != "openai":
        raise InputError(f"--rewriter: {backend!r} is not a rewriter; use `openai` (any OpenAI-compatible endpoint)")
    if not model:
        raise InputError("--model: --rewriter openai needs a model name, e.g. --model Qwen2.5-7B-Instruct")
    if max_calls is not None and max_calls < 0:
        raise InputError(f"--rewrite-max-calls: must be >= 0, got {max_calls}")
    try:
        import openai  # noqa: F401
    except ImportError:
        raise InputError("--rewriter openai needs the [llm] extra: pip install 'mirforge[llm]'") from None
    return {"backend": backend, "model": model, "base_url": base_url, "temperature": 0.0, "max_calls": max_calls}


@app.command()
def generate(
    tasks: Annotated[str, typer.Option(help="Comma list of task names, or `all`.")],
    n: Annotated[int, typer.Option(help="Instances per task.")],
    out: Annotated[Path, typer.Option(help="Dataset folder (created; an existing one is resumed).")],
    seed: Annotated[int, typer.Option(help="Run seed; 0 is a seed like any other.")] = 0,
    split: Annotated[str, typer.Option(help="Split name; splits of one run never share seeds.")] = "test",
    workers: Annotated[int, typer.Option(help="Worker processes (output does not depend on it).")] = 1,
    shard_size: Annotated[int, typer.Option(help="Instances per shard file.")] = 50,
    set_: Annotated[list[str], typer.Option("--set", help="Task config field: TASK.FIELD=VALUE.")] = [],  # noqa: B006
    templates: Annotated[Path | None, typer.Option(help="Folder of template overrides, TASK/STEP.j2.")] = None,
    renderer: Annotated[str, typer.Option(help="3D backend: moderngl (fast) or pyrender (reference).")] = "moderngl",
    rewriter: Annotated[str | None, typer.Option(help="Rewrite the steps with an LLM: `openai` (extra [llm]).")] = None,
    model: Annotated[str | None, typer.Option(help="Rewriter model name (with --rewriter).")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; key from env.")
    ] = None,
    rewrite_max_calls: Annotated[int | None, typer.Option(help="Call budget of the run; then templates.")] = None,
    keep_video: Annotated[bool, typer.Option(help="Also keep the mp4 clips of video tasks under videos/.")] = False,
    executor: Annotated[str, typer.Option(help="local or ray.")] = "local",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --executor ray).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary.")] = False,
) -> None:
    """Generate a split. Rerunning the same command resumes it; the result is byte-identical.

    Example: mirforge generate --tasks view_3d --n 200 --seed 7 --workers 2 --out data/v3d
    """
    from mirforge.runner import EXECUTORS
    from mirforge.runner import generate as run
    from mirforge.runner.plan import RunConfig

    if workers < 1:
        raise InputError(f"--workers: must be at least 1, got {workers}")
    if executor not in EXECUTORS:
        raise InputError(f"--executor: {executor!r} is not one of {', '.join(EXECUTORS)}")
    from mirforge.registry import resolve

    config = RunConfig(
        tasks=tuple(resolve(tasks)),
        n=n,
        seed=seed,
        split=split,
        shard_size=shard_size,
        task_config=parse_sets(set_),
        templates=str(templates) if templates else None,
        renderer=renderer,
        keep_video=keep_video,
        rewriter=rewriter_config(rewriter, model, base_url, rewrite_max_calls),
    )
    summary = run(config, out, workers=workers, executor=executor, address=address, progress=not quiet)
    if not quiet:
        rate = summary.images / summary.seconds if summary.seconds else 0.0
        typer.echo(
            f"{summary.instances} instances, {summary.images} images in {summary.seconds:.1f} s "
            f"({rate:.1f} images/s); {summary.shards_skipped} complete shards skipped; dataset in {out}"
        )


@app.command()
def validate(dataset: Annotated[Path, typer.Argument(help="Dataset folder.")]) -> None:
    """Check every instance against the schema and the invariants, and every file against the manifest."""
    from mirforge.validate import validate_dataset

    report = validate_dataset(dataset)
    for problem in report.problems[:200]:
        typer.echo(problem, err=True)
    if len(report.problems) > 200:
        typer.echo(f"... and {len(report.problems) - 200} more problems", err=True)
    if not report.ok:
        fail(f"{dataset}: {len(report.problems)} problems in {report.records} instances", 2)
    typer.echo(f"{dataset}: {report.records} instances in {report.shards} shards are valid")


@app.command()
def tasks() -> None:
    """List the task plugins: built-ins and installed entry points."""
    from mirforge.registry import available, load

    for name, _target in available().items():
        try:
            cls = load(name)
            typer.echo(f"{name:24} {cls.category:11} {cls.description}")
        except MirforgeError as exc:
            typer.echo(f"{name:24} {'BROKEN':11} {exc}")


@app.command()
def show(
    instance_id: Annotated[str, typer.Argument(help="Instance id, e.g. view_3d-test-000042.")],
    dataset: Annotated[Path, typer.Option("--dataset", "-d", help="Dataset folder.")] = Path("."),
    regenerate: Annotated[bool, typer.Option(help="Regenerate it from the manifest and compare bytes.")] = False,
) -> None:
    """Print one instance; with --regenerate, rebuild it alone and check it is byte-identical."""
    from mirforge.inspect import find_instance, regenerate_and_compare

    line = find_instance(dataset, instance_id)
    typer.echo(json.dumps(json.loads(line), indent=1, ensure_ascii=False))
    if regenerate:
        differences = regenerate_and_compare(dataset, line)
        if differences:
            fail(f"{instance_id} regenerates differently: {'; '.join(differences)}", 1)
        typer.echo(f"{instance_id}: regenerated, byte-identical (record and images)", err=True)


# --- curriculum builder (issue 8): difficulty, curriculum, export, dev tiny-vlm ---
from mirforge.curriculum.commands import register as _register_curriculum  # noqa: E402

_register_curriculum(app)
# --- end curriculum builder ---


def main() -> None:
    try:
        app()
    except InputError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except MirforgeError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
