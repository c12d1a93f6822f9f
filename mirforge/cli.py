"""The ``mirforge`` command. Exit codes: 0 ok, 1 failure, 2 bad input or usage."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mirforge.errors import InputError, MirforgeError
from mirforge.runner.options import OPTIONS

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Generate verified interleaved multi-image reasoning benchmarks (MIR style).",
)
export_app = typer.Typer(
    no_args_is_help=True,
    help="Export a dataset or a curriculum for other tools: training (ms-swift, LLaMA-Factory, TRL, LLaVA), hf, "
    "lmms-eval, vlmevalkit.",
)
dev_app = typer.Typer(no_args_is_help=True, help="Developer tools: tiny models built on the spot, for tests and tours.")
app.add_typer(export_app, name="export")
app.add_typer(dev_app, name="dev")


def fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _options_command(options: tuple[Any, ...]) -> Any:
    """Give a command the signature typer reads its options from, built from the table of options (typer reads
    parameters from a signature only, so the table is turned into one rather than written out again)."""
    import inspect

    def decorate(func: Any) -> Any:
        params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
        for option in options:
            kind: Any = list[option.type] if option.many else option.type
            if option.default is None:
                kind = kind | None
            info = typer.Option(*option.flags, help=option.help)
            default = list(option.default) if option.many else option.default
            params.append(
                inspect.Parameter(
                    option.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, info]
                )
            )
        func.__signature__ = inspect.Signature(params)
        func.__annotations__ = {}
        return func

    return decorate


def _given(ctx: typer.Context) -> set[str]:
    """The options given as flags (or their environment variables), not left at their defaults."""
    return {
        name
        for name in ctx.params
        if (source := ctx.get_parameter_source(name)) is not None
        and source.name in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")
    }


@app.command()
@_options_command(OPTIONS)
def generate(ctx: typer.Context, **options: Any) -> None:
    """Generate a split. Rerunning the same command resumes it; the result is byte-identical.

    Examples:

      mirforge generate --tasks view_3d --n 200 --seed 7 --workers 2 --out data/v3d

      mirforge generate --config configs/mir-scale.yaml --out data/mir --workers 8

      mirforge generate --config configs/mir-scale.yaml --dry-run
    """
    from mirforge.runner.config import RunConfig
    from mirforge.runner.run import generate as run

    config, execution = RunConfig.from_options(options, given=_given(ctx))
    out, quiet = execution.out, execution.quiet
    if execution.dry_run:
        from mirforge.runner.dry_run import dry_run, format_plan

        plan = dry_run(config, out, upload=execution.upload, force_templates=execution.force_templates)
        typer.echo(format_plan(config, plan, out))
        return
    assert out is not None  # from_options requires it without --dry-run
    summary = run(
        config,
        out,
        workers=execution.workers,
        executor=execution.executor,
        address=execution.address,
        progress=not quiet,
        upload=execution.upload,
        force_templates=execution.force_templates,
    )
    if execution.verbose and not quiet:
        for task, counts in sorted(summary.per_task.items()):
            phases = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(counts.items()) if k not in ("instances", "images"))
            typer.echo(f"  {task:24} {counts['instances']:6d} instances {counts['images']:7d} images; {phases}")
    if not quiet:
        rate = summary.images / summary.seconds if summary.seconds else 0.0
        typer.echo(
            f"{summary.instances} instances, {summary.images} images in {summary.seconds:.1f} s "
            f"({rate:.1f} images/s); {summary.shards_skipped} complete shards skipped; dataset in {out}"
        )


@app.command()
def validate(dataset: Annotated[Path, typer.Argument(help="Dataset folder.")]) -> None:
    """Check every instance against the schema and the invariants, and every file against the manifest: shard and
    image checksums, every image decoded, its size and the regions inside it."""
    from mirforge.validate import validate_dataset

    report = validate_dataset(dataset)
    for note in report.notes:
        typer.echo(f"note: {note}", err=True)
    for problem in report.problems[:200]:
        typer.echo(problem, err=True)
    if len(report.problems) > 200:
        typer.echo(f"... and {len(report.problems) - 200} more problems", err=True)
    if not report.ok:
        fail(f"{dataset}: {len(report.problems)} problems in {report.records} instances", 2)
    typer.echo(
        f"{dataset}: {report.records} instances in {report.shards} shards are valid ({report.images} images decoded "
        f"and checked, {report.seconds_per_1000_images:.1f} s per 1000 images; {report.seconds:.1f} s in all)"
    )


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
    from mirforge.dataset import Dataset
    from mirforge.show import regenerate_and_compare

    entry = Dataset(dataset).find(instance_id)
    typer.echo(json.dumps(entry.record, indent=1, ensure_ascii=False))
    if regenerate:
        differences = regenerate_and_compare(dataset, entry.line)
        if differences:
            fail(f"{instance_id} regenerates differently: {'; '.join(differences)}", 1)
        typer.echo(f"{instance_id}: regenerated, byte-identical (record and images)", err=True)


@app.command()
def contact(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    task: Annotated[str, typer.Option(help="Task whose instances to show.")],
    out: Annotated[Path, typer.Option(help="PNG file to write.")],
    count: Annotated[int, typer.Option(help="Instances (rows) on the sheet.")] = 3,
) -> None:
    """A small PNG contact sheet: a few instances of one task, images and question text.

    Example: mirforge contact data/v3d --task view_3d --out sheet.png
    """
    from mirforge.contact import write_contact_sheet

    width, height, kb = write_contact_sheet(dataset, task, out, count)
    typer.echo(f"{out}: {width}x{height}, {kb} KB")


# --- curriculum builder: difficulty, curriculum, export training, dev tiny-vlm ---
from mirforge.curriculum import commands as _curriculum  # noqa: E402

app.command("difficulty")(_curriculum.difficulty)
app.command("curriculum")(_curriculum.curriculum)
export_app.command("training")(_curriculum.export)
dev_app.command("tiny-vlm")(_curriculum.tiny_vlm)
# --- end curriculum builder ---


# --- validity audit: mirforge audit DATASET ---
@app.command()
def audit(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    bounds: Annotated[
        Path | None, typer.Option(help="YAML or TOML file of bounds (see mirforge.audit.Bounds).")
    ] = None,
    tasks: Annotated[
        str | None, typer.Option(help="Comma list of tasks to audit (default: all in the dataset).")
    ] = None,
    split: Annotated[str | None, typer.Option(help="Audit one split only.")] = None,
    sample: Annotated[int, typer.Option(help="Instances per task to regenerate and compare (0: skip).")] = 5,
    folds: Annotated[int, typer.Option(help="Cross-validation folds of the blind baseline.")] = 5,
    letter_tolerance: Annotated[float | None, typer.Option(help="Points a letter share may leave 100/k.")] = None,
    blind_margin: Annotated[float | None, typer.Option(help="Points above chance a blind guess may prove.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the full report as JSON here.")] = None,
    by_level: Annotated[bool, typer.Option(help="Also print the text and image baselines per level.")] = False,
) -> None:
    """Shortcut and sanity audit of a dataset; exit code 1 when a bound is broken.

    Example: mirforge audit data/v3d --sample 10 --blind-margin 5
    """
    from mirforge.audit import LEGEND, Bounds, levels_table, table, to_json
    from mirforge.audit import audit as run_audit
    from mirforge.registry import task_list

    limits = Bounds.load(bounds, letter_tolerance=letter_tolerance, blind_margin=blind_margin)
    results = run_audit(dataset, limits, tasks=task_list(tasks, None), split=split, sample=sample, folds=folds)
    typer.echo(table(results, limits))
    typer.echo(LEGEND.format(**vars(limits)))
    if by_level:
        typer.echo("\n" + levels_table(results, limits))
    for r in results:
        for note in r.notes:
            typer.echo(f"note {r.task}: {note}")
    if json_out is not None:
        from mirforge.dataset.writer import atomic_write

        atomic_write(json_out, (json.dumps(to_json(results, limits), indent=1) + "\n").encode())
    broken = [r for r in results if r.violations]
    for r in broken:
        typer.echo(f"FAIL {r.task}:", err=True)
        for line in r.violations:
            typer.echo(f"  {line}", err=True)
    if broken:
        fail(f"{dataset}: {len(broken)} of {len(results)} tasks break a bound", 1)


# --- end validity audit ---


# --- ecosystem: export hf, preview, stats, new-task ---
@export_app.command("hf")
def export_hf(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `mirforge generate`.")],
    out: Annotated[Path, typer.Argument(help="Folder for the parquet shards and README.md (new or empty).")],
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks to export (default: all).")] = None,
    rows_per_file: Annotated[int, typer.Option(help="Instances per parquet file.")] = 500,
    license_id: Annotated[str, typer.Option("--license", help="License id for the card's metadata.")] = "cc-by-4.0",
    name: Annotated[str | None, typer.Option(help="Pretty name in the card (default: from DATASET).")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an earlier export in OUT.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List the files written.")] = False,
) -> None:
    """Export as a Hugging Face `datasets` folder with a dataset card.

    Parquet shards with the images embedded, one config per task plus `all`, and README.md (YAML metadata,
    task table, counts, letter and difficulty tables, generation config, how to cite MIR).

    Example: mirforge export hf data/v3d hf/v3d  then  datasets.load_dataset("hf/v3d", "all")
    """
    from mirforge.hf_export import export_hf as run
    from mirforge.registry import task_list

    counts = run(
        dataset,
        out,
        tasks=task_list(tasks, None),
        rows_per_file=rows_per_file,
        license_id=license_id,
        pretty_name=name,
        overwrite=overwrite,
    )
    if verbose and not quiet:
        for path in sorted(out.rglob("*")):
            if path.is_file():
                typer.echo(f"  {path.relative_to(out)}")
    if not quiet:
        sizes = ", ".join(f"{config} {sum(splits.values())}" for config, splits in counts.items())
        typer.echo(f"{out}: configs {sizes} (instances); load with datasets.load_dataset({str(out)!r}, 'all')")


@app.command()
def preview(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `mirforge generate`.")],
    out: Annotated[Path, typer.Option(help="Folder for the static site (index.html).")] = Path("gallery"),
    per_page: Annotated[int, typer.Option(help="Instances per page.")] = 20,
    self_contained: Annotated[
        bool, typer.Option("--self-contained", help="Copy the images into OUT (else they are referenced).")
    ] = False,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks (default: all).")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many instances per task.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print the pages per task.")] = False,
) -> None:
    """Write a static HTML gallery of a dataset (open OUT/index.html; no server needed).

    Per task, paginated: each question with its images at the <image> slots, the options (click one to reveal
    the answer), the five reasoning steps, and the regions drawn as boxes while the pointer is on an image.

    Example: mirforge preview data/v3d --out data/v3d/gallery --per-page 20
    """
    from mirforge.gallery import build_gallery
    from mirforge.registry import task_list

    pages = build_gallery(
        dataset, out, per_page=per_page, self_contained=self_contained, tasks=task_list(tasks, None), limit=limit
    )
    if verbose and not quiet:
        for task, count in pages.items():
            typer.echo(f"  {task}: {count} pages")
    if not quiet:
        typer.echo(f"{out / 'index.html'}: {len(pages)} tasks, {sum(pages.values())} pages")


@app.command()
def stats(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder written by `mirforge generate`.")],
    plots: Annotated[Path | None, typer.Option(help="Also write PNG plots into this folder.")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks (default: all).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of the table.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the plot paths.")] = False,
) -> None:
    """Print per-task statistics beside MIR's published totals; optionally write PNG plots.

    Per task: instances, images, images per instance, characters per step, answer-letter shares, difficulty
    levels. With --plots DIR: letters.png, difficulty.png and mir-comparison.png.

    Example: mirforge stats data/v3d --plots data/v3d/plots
    """
    from mirforge.dataset import Dataset
    from mirforge.registry import task_list
    from mirforge.stats import compute, format_table, write_plots

    table = compute(Dataset(dataset, task_list(tasks, None)).records())
    if as_json:
        typer.echo(json.dumps({k: v.to_json() for k, v in table.items()}, indent=1))
    elif not quiet:
        typer.echo(format_table(table))
    if plots is not None:
        for path in write_plots(table, plots):
            typer.echo(f"wrote {path}", err=as_json)


@app.command("new-task")
def new_task(
    name: Annotated[str, typer.Argument(help="Task name: a lowercase identifier, e.g. dot_count.")],
    category: Annotated[str, typer.Option(help="spatial, sequential or analytical.")],
    out: Annotated[Path, typer.Option(help="Folder for the new package (new or empty).")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Write an installable task-plugin package, with its entry point and tests.

    One working task (scene, question, render, verify, templates, difficulty levels). See docs/plugins.md.

    Example: mirforge new-task dot_count --category analytical --out plugins/dot_count
    then: pip install -e plugins/dot_count && mirforge tasks && pytest plugins/dot_count
    """
    from mirforge.newtask import create

    files = create(name, category, out)
    if not quiet:
        for path in files:
            typer.echo(f"  {path}")
        typer.echo(f"next: pip install -e {out} && mirforge tasks && (cd {out} && pytest)")


# --- end ecosystem ---


# --- diffusion realism: mirforge dev tiny-diffusion DIR ---
def tiny_diffusion(
    directory: Annotated[Path, typer.Argument(help="Folder to write DIR/sd and DIR/controlnet to.")],
    seed: Annotated[int, typer.Option(help="Initialisation seed of the random parts.")] = 0,
) -> None:
    """Build a tiny Stable Diffusion + depth ControlNet (no download) for tests and smoke runs.

    Example: mirforge dev tiny-diffusion /tmp/tiny  then
    mirforge generate --tasks forced_perspective --realism diffusion --diffusion-model /tmp/tiny/sd
    --controlnet /tmp/tiny/controlnet --n 4
    """
    from mirforge.render.tiny_diffusion import build_tiny_diffusion

    sd_dir, cn_dir = build_tiny_diffusion(directory, seed)
    typer.echo(f"tiny diffusion pipeline written: --diffusion-model {sd_dir} --controlnet {cn_dir}")


dev_app.command("tiny-diffusion")(tiny_diffusion)
# --- end diffusion realism ---


# --- training and evaluation: train, eval, export lmms-eval, export vlmevalkit ---
from mirforge.evaluation import commands as _evaluation  # noqa: E402
from mirforge.training import commands as _training  # noqa: E402

app.command("train")(_training.train)
app.command("eval")(_evaluation.eval_command)
export_app.command("lmms-eval")(_evaluation.export_lmms)
export_app.command("vlmevalkit")(_evaluation.export_vlmeval)
# --- end training and evaluation ---


# --- object catalogue: mirforge objects ---
@app.command()
def objects(
    as_json: Annotated[bool, typer.Option("--json", help="Print the catalogue as a JSON list.")] = False,
    sheet: Annotated[Path | None, typer.Option(help="Draw every kind into this PNG, its name under it.")] = None,
    variants: Annotated[int, typer.Option(help="With --sheet: variants per kind (one row per kind if > 1).")] = 1,
) -> None:
    """List the everyday objects the 3D tasks can draw: kind, real height range, variants, source, licence.

    Example: mirforge objects --sheet docs/objects.png
    """
    from mirforge.render.objects import catalogue, table

    if sheet is not None:
        if variants < 1:
            raise InputError(f"--variants: must be >= 1, got {variants}")
        from mirforge.render.objects.sheet import write_sheet

        width, height, kb = write_sheet(sheet, variants)
        typer.echo(f"{sheet}: {width}x{height}, {kb} KB")
    elif as_json:
        typer.echo(json.dumps(catalogue(), indent=1))
    else:
        typer.echo("\n".join(table()))


# --- end object catalogue ---


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def main() -> None:
    """The console script: every error is one line on stderr, ``error: ...``; exit 2 for bad input or usage (click's
    usage errors included, which it would otherwise draw as a box under the usage line), 1 for a failure."""
    try:
        code = app(standalone_mode=False)
    except InputError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        sys.exit(2)
    except MirforgeError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        sys.exit(1)
    except typer.TyperException as exc:  # click's UsageError, BadParameter, NoSuchOption, ...
        ctx = getattr(exc, "ctx", None)
        command = ctx.command_path if ctx is not None else "mirforge"
        message = one_line(exc.format_message())
        if message:  # empty when a command given no arguments has printed its help
            typer.echo(f"error: {message} (see `{command} --help`)", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
