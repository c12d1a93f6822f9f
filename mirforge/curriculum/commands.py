"""CLI commands: ``difficulty``, ``curriculum``, ``export`` and ``dev tiny-vlm``. Heavy imports stay inside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from mirforge.errors import InputError

CURRICULUM = "curriculum.json"


def _formats(value: str) -> list[str]:
    from mirforge.curriculum.export import FORMATS

    names = FORMATS if value == "all" else tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [n for n in names if n not in FORMATS]
    if bad or not names:
        raise InputError(f"--format: {value!r}; use `all` or a comma list of {', '.join(FORMATS)}")
    return list(names)


def difficulty(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    model: Annotated[str, typer.Option(help="Local model folder (transformers) or served model name (openai).")],
    backend: Annotated[str, typer.Option(help="transformers or openai.")] = "transformers",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://host:8000/v1.")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="OPENAI_API_KEY", help="API key (openai).")] = None,
    allow_insecure_endpoint: Annotated[
        bool, typer.Option("--allow-insecure-endpoint", help="Send the key over plain http to another machine.")
    ] = False,
    k: Annotated[int, typer.Option("-k", help="Answers per question.")] = 10,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.7,
    top_p: Annotated[float, typer.Option(help="Nucleus sampling.")] = 0.8,
    max_new_tokens: Annotated[int, typer.Option(help="Tokens per answer.")] = 512,
    repetition_penalty: Annotated[float, typer.Option(help="Repetition penalty (vLLM extra field).")] = 1.05,
    threshold: Annotated[float, typer.Option(help="p >= threshold is easy.")] = 0.7,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    batch_size: Annotated[int, typer.Option(help="Questions per generate call (transformers).")] = 4,
    max_pixels: Annotated[int | None, typer.Option(help="Pixels per image (transformers; MIR: 1003520).")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight (openai).")] = 8,
    retries: Annotated[int, typer.Option(help="Retries per request (openai).")] = 5,
    timeout: Annotated[float, typer.Option(help="Seconds per request (openai).")] = 120.0,
    n_mode: Annotated[str, typer.Option(help="openai: auto (n=k, topped up), n, or loop (k requests).")] = "auto",
    cache: Annotated[Path | None, typer.Option(help="SQLite cache (openai); default DATASET/.cache/...")] = None,
    out: Annotated[Path | None, typer.Option(help="Sidecar file; default DATASET/difficulty.jsonl.")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks to measure.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many instances per task.")] = None,
    keep_responses: Annotated[bool, typer.Option(help="Store every raw response, not just unparsed ones.")] = False,
    executor: Annotated[str, typer.Option(help="local (in-process) or ray (a local model only).")] = "local",
    address: Annotated[str | None, typer.Option(help="Ray cluster address (with --executor ray).")] = None,
    workers: Annotated[int, typer.Option(help="Ray actors, each loading the model once (--executor ray).")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Measure each question's pass rate p over k sampled answers; write a resumable sidecar and a summary table.

    Example: mirforge difficulty data/v3d --model Qwen2.5-VL-7B-Instruct --backend openai
    --base-url http://127.0.0.1:8000/v1 -k 10 --temperature 0.7 --top-p 0.8 --threshold 0.7

    A local model over Ray (same sidecar as a local run): --model PATH --executor ray --workers 4
    """
    from mirforge.curriculum.difficulty import check_executor, run_difficulty
    from mirforge.models.backend import Sampling
    from mirforge.models.factory import make_backend
    from mirforge.registry import task_list

    sampling = Sampling(k, temperature, top_p, max_new_tokens, repetition_penalty, seed)
    sampling.validate()
    check_executor(executor, backend, workers)
    if not dataset.is_dir():
        raise InputError(f"DATASET: {dataset} is not a folder")
    if backend == "openai" and cache is None:
        cache = dataset / ".cache" / "difficulty-openai.sqlite"
    engine = make_backend(
        backend,
        model,
        base_url=base_url,
        api_key=api_key,
        batch_size=batch_size,
        max_pixels=max_pixels,
        concurrency=concurrency,
        retries=retries,
        timeout=timeout,
        n_mode=n_mode,
        cache=cache,
        lazy=executor == "ray",
        allow_insecure_endpoint=allow_insecure_endpoint,
    )
    chunk = batch_size if backend == "transformers" else max(concurrency, 1) * 2
    try:
        report = run_difficulty(
            dataset,
            engine,
            sampling,
            threshold=threshold,
            out=out,
            tasks=set(names) if (names := task_list(tasks, None)) else None,
            limit=limit,
            chunk=chunk,
            keep_responses=keep_responses,
            progress=not quiet,
            executor=executor,
            workers=workers,
            address=address,
        )
    finally:
        engine.close()
    typer.echo(report.table())
    typer.echo(f"{report.measured} measured, {report.skipped} already in {report.path}")


def curriculum(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")] = Path("."),
    out: Annotated[Path | None, typer.Option(help="Output folder for stages and exports.")] = None,
    schedule: Annotated[Path | None, typer.Option(help="Schedule file (YAML or JSON); default: MIR's.")] = None,
    difficulty: Annotated[Path | None, typer.Option(help="Sidecar; default DATASET/difficulty.jsonl.")] = None,
    format_: Annotated[str, typer.Option("--format", help="`all` or a comma list of formats.")] = "all",
    copy_images: Annotated[
        bool, typer.Option(help="Copy images under OUT/images; paths then relative to OUT (else absolute).")
    ] = False,
    print_schedule: Annotated[bool, typer.Option(help="Print the default schedule (YAML) and exit.")] = False,
) -> None:
    """Build the staged training sets (MIR: easy first, then 5 stages of 40% of the hard pool) and export them.

    Example: mirforge curriculum data/v3d --out data/v3d-cur
    """
    from mirforge.curriculum.stages import default_schedule

    if print_schedule:
        import yaml

        typer.echo(yaml.safe_dump(default_schedule(), sort_keys=False, width=120), nl=False)
        return
    if out is None:
        raise InputError("--out: give the folder for the stages and exports, e.g. --out data/cur")
    stats = build_and_export(dataset, out, schedule, difficulty, _formats(format_), copy_images)
    for line in stats["stages"]:
        if "dropped" in line:
            typer.echo(f"warning: {line['stage']} dropped (no file, in no list): {line['dropped']}", err=True)
        typer.echo(
            f"{line['stage']:10} {line['count']:6d} of {line['pool']:6d}  prompt {line['mean_prompt_chars']:7.0f} ch  "
            f"target {line['mean_target_chars']:7.0f} ch  {line['images']:6d} images"
        )
    _echo_commands(stats["flags"])
    typer.echo(f"stages and exports in {out} (the commands above are in {out / 'ORDER.md'})")


def _echo_commands(flags: dict[str, str]) -> None:
    for fmt, text in flags.items():
        typer.echo(f"[{fmt}]")
        typer.echo(text)


def build_and_export(
    dataset: Path,
    out: Path,
    schedule_path: Path | None,
    difficulty_path: Path | None,
    formats: list[str],
    copy_images: bool,
) -> dict[str, Any]:
    from mirforge.curriculum.difficulty import SIDECAR, load_pass_rates
    from mirforge.curriculum.export import export_stages
    from mirforge.curriculum.stages import build_curriculum, load_schedule
    from mirforge.dataset import Dataset
    from mirforge.dataset.writer import atomic_write

    schedule = load_schedule(schedule_path)
    records = Dataset(dataset).records()
    side = difficulty_path or dataset / SIDECAR
    p = load_pass_rates(side) if (schedule.needs_difficulty or side.is_file()) else None
    built = build_curriculum(records, schedule, p)
    dropped = {stage.name: line["dropped"] for stage, _, line in built if "dropped" in line}
    report = export_stages(
        [(stage.name, rows) for stage, rows, _ in built],
        dataset,
        out,
        formats,
        copy_images=copy_images,
        dropped=dropped,
    )
    for stage, rows, _ in built:
        path = out / "stages" / f"{stage.name}.jsonl"
        if rows:
            atomic_write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode())
        elif path.is_file():  # left by an earlier build in which this stage had rows
            path.unlink()
    stats = {
        "dataset": str(Path(dataset).resolve()),
        "difficulty": str(Path(side).resolve()) if p is not None else None,
        "schedule": schedule.to_json(),
        "stages": [line for _, _, line in built],
        "dropped": [{"stage": name, "reason": why} for name, why in report.dropped.items()],
        "exports": report.rows,
        "images_copied": report.images_copied,
        "flags": report.flags,
    }
    atomic_write(out / CURRICULUM, (json.dumps(stats, indent=1, ensure_ascii=False) + "\n").encode())
    return stats


def export(
    source: Annotated[Path, typer.Argument(help="A curriculum folder (from `mirforge curriculum`) or a dataset.")],
    out: Annotated[Path, typer.Option(help="Export folder.")],
    format_: Annotated[str, typer.Option("--format", help="`all` or a comma list of formats.")] = "all",
    stage: Annotated[list[str], typer.Option(help="Only these stages (repeatable); default all.")] = [],  # noqa: B006
    copy_images: Annotated[
        bool, typer.Option(help="Copy images under OUT/images; paths then relative to OUT (else absolute).")
    ] = False,
) -> None:
    """Export a curriculum's stages, or a whole dataset (question -> full chain), for swift/LLaMA-Factory/TRL/LLaVA.

    Example: mirforge export training data/v3d --format trl,swift --out data/v3d-sft
    """
    from mirforge.curriculum.export import export_stages
    from mirforge.curriculum.stages import STEPS, build_stage, parse_schedule
    from mirforge.dataset import Dataset

    formats = _formats(format_)
    if (source / CURRICULUM).is_file():
        meta = json.loads((source / CURRICULUM).read_text())
        dataset = Path(meta["dataset"])
        names = [s["name"] for s in meta["schedule"]["stages"]]
        dropped = {d["stage"]: d["reason"] for d in meta.get("dropped", [])}
        unknown = [s for s in stage if s not in names]
        if unknown:
            raise InputError(f"--stage: {', '.join(unknown)} not in {source} (stages: {', '.join(names)})")
        stages = []
        for name in stage or names:
            path = source / "stages" / f"{name}.jsonl"
            rows = [] if name in dropped else [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            stages.append((name, rows))
    else:
        if stage:
            raise InputError(f"--stage: {source} is a dataset, not a curriculum folder; drop --stage")
        dataset = source
        full = parse_schedule({"stages": [{"name": "full", "pool": "all", "prompt": [], "target": list(STEPS)}]})
        stages = [("full", build_stage(Dataset(dataset).records(), full.stages[0], full))]
        dropped = {}
    report = export_stages(stages, dataset, out, formats, copy_images=copy_images, dropped=dropped)
    for key, count in report.rows.items():
        typer.echo(f"{key:28} {count:6d} rows")
    for name, why in report.dropped.items():
        typer.echo(f"warning: {name} dropped (no file, in no list): {why}", err=True)
    _echo_commands(report.flags)
    typer.echo(f"exports in {out} (the commands above are in {out / 'ORDER.md'})")


def tiny_vlm(
    directory: Annotated[Path, typer.Argument(help="Folder to write the model and processor to.")],
    arch: Annotated[
        str, typer.Option(help="llava, qwen2_vl, qwen2_5_vl, llava_onevision or idefics3 (llava, idefics3: no video).")
    ] = "llava",
    seed: Annotated[int, typer.Option(help="Initialisation seed.")] = 0,
) -> None:
    """Build a tiny random vision-language model (no download) loadable with from_pretrained(DIRECTORY).

    llava and idefics3 load with a plain AutoProcessor.from_pretrained(DIRECTORY); the processors of qwen2_vl,
    qwen2_5_vl and llava_onevision carry a video processor that needs torchvision (mirforge loads them without it).
    """
    from mirforge.models.tiny import build_tiny_vlm

    path = build_tiny_vlm(directory, arch, seed)
    typer.echo(f"tiny {arch} written to {path}")
