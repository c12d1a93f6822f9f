"""``mirforge eval`` and ``mirforge export {lmms-eval,vlmevalkit}``. Heavy imports stay inside."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from mirforge.errors import InputError


def _tasks(value: str | None) -> set[str] | None:
    from mirforge.registry import task_list

    names = task_list(value, None)
    return set(names) if names else None


def eval_command(
    model: Annotated[str | None, typer.Option(help="Model folder, LoRA checkpoint, or served model name.")] = None,
    data: Annotated[Path | None, typer.Option(help="Dataset folder to evaluate on.")] = None,
    backend: Annotated[str, typer.Option(help="transformers or openai.")] = "transformers",
    split: Annotated[str | None, typer.Option(help="Only this split of --data (default: all).")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many questions per task.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (openai backend).")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="OPENAI_API_KEY", help="API key (openai).")] = None,
    allow_insecure_endpoint: Annotated[
        bool, typer.Option("--allow-insecure-endpoint", help="Send the key over plain http to another machine.")
    ] = False,
    blind: Annotated[
        bool, typer.Option("--blind", help="Replace every image by a blank one of the same size (shortcut check).")
    ] = False,
    prompt: Annotated[
        str, typer.Option(help="train: the curriculum's question format; answer: ask for `Your option: X`.")
    ] = "train",
    max_new_tokens: Annotated[int, typer.Option(help="Tokens per answer.")] = 512,
    temperature: Annotated[float, typer.Option(help="0 = greedy (default).")] = 0.0,
    top_p: Annotated[float, typer.Option(help="Nucleus sampling (with a temperature above 0).")] = 1.0,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    batch_size: Annotated[int, typer.Option(help="Questions per generate call (transformers).")] = 4,
    concurrency: Annotated[int, typer.Option(help="Requests in flight (openai).")] = 8,
    cache: Annotated[Path | None, typer.Option(help="SQLite response cache (openai).")] = None,
    text_baseline: Annotated[
        bool, typer.Option("--text-baseline", help="No model: a classifier on question+option text of --train.")
    ] = False,
    train: Annotated[Path | None, typer.Option(help="Training dataset for --text-baseline.")] = None,
    train_split: Annotated[str | None, typer.Option(help="Split of --train (default: all).")] = None,
    out: Annotated[Path | None, typer.Option(help="Folder for results.json, predictions.jsonl, accuracy.png.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Accuracy of a model on a dataset split: per task, per category, overall, parse failures, letter confusion.

    Examples: mirforge eval --model runs/cur/checkpoints/stage5 --data data/test --out runs/eval
              mirforge eval --model runs/cur/checkpoints/stage5 --data data/test --blind
              mirforge eval --text-baseline --train data/train --data data/test
    """
    from mirforge.dataset import Dataset
    from mirforge.dataset.layout import check_split
    from mirforge.evaluation.report import bar_chart, table, write_json
    from mirforge.evaluation.run import chance_levels, select_records, summarize, write_predictions
    from mirforge.models.endpoint import check_endpoint

    if data is None:
        raise InputError("--data: give the dataset folder to evaluate on")
    for flag, name in (("--split", split), ("--train-split", train_split)):
        if name is not None:
            check_split(name, flag)
    if backend == "openai" and not text_baseline:
        check_endpoint(base_url, allow_insecure=allow_insecure_endpoint)
    if limit is not None and limit < 1:
        raise InputError(f"--limit: must be at least 1, got {limit}")
    records = select_records(Dataset(data).records(), split, _tasks(tasks), limit)
    chance = chance_levels(records)
    results: list[tuple[str, list[Any]]] = []
    if text_baseline:
        if model or blind:
            raise InputError("--text-baseline uses no model: drop --model/--blind")
        results = _text_baseline(train, train_split, data, split, records, tasks)
    else:
        if not model:
            raise InputError("--model: give a model folder (transformers) or a served model name (openai)")
        results = [("blind" if blind else "model", _run_model(locals(), records, data, out))]
    payload: dict[str, Any] = {
        "data": str(Path(data).resolve()),
        "split": split,
        "model": model,
        "backend": None if text_baseline else backend,
        "blind": blind,
        "prompt": prompt,
    }
    for name, preds in results:
        summary = summarize(preds, chance)
        label = f"{name}: {model or 'text-only'} on {data}" + (f" [{split}]" if split else "")
        typer.echo(table(summary, title=label))
        typer.echo("")
        payload[name] = summary
        if out is not None:
            write_predictions(preds, Path(out) / f"predictions-{name}.jsonl")
            bar_chart(summary, Path(out) / f"accuracy-{name}.png", title=label)
    if out is not None:
        write_json(payload, Path(out) / "results.json")
        typer.echo(f"results in {out}")


def _run_model(options: dict[str, Any], records: list[dict[str, Any]], data: Path, out: Path | None) -> list[Any]:
    import tempfile

    from mirforge.evaluation.run import BlankImages, greedy, predict, prompt_builder
    from mirforge.models.factory import make_backend

    sampling = greedy(options["max_new_tokens"], options["temperature"], options["top_p"], options["seed"])
    build = prompt_builder(options["prompt"])
    engine = make_backend(
        options["backend"],
        options["model"],
        base_url=options["base_url"],
        api_key=options["api_key"],
        batch_size=options["batch_size"],
        cache=options["cache"],
        concurrency=options["concurrency"],
        allow_insecure_endpoint=options["allow_insecure_endpoint"],
    )
    quiet = options["quiet"]

    def progress(done: int, total: int) -> None:
        if not quiet:
            print(f"\r{done}/{total} answered", end="" if done < total else "\n", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="mirforge-blank-") as tmp:
        blank = BlankImages(Path(out) / "blank" if out else Path(tmp)) if options["blind"] else None
        try:
            chunk = options["batch_size"] if options["backend"] == "transformers" else 2 * options["concurrency"]
            return predict(
                engine, records, data, prompt=build, sampling=sampling, blank=blank, chunk=chunk, progress=progress
            )
        finally:
            engine.close()


def _text_baseline(
    train: Path | None,
    train_split: str | None,
    data: Path,
    split: str | None,
    records: list[dict[str, Any]],
    tasks: str | None,
) -> list[tuple[str, list[Any]]]:
    from mirforge.dataset import Dataset
    from mirforge.evaluation.run import select_records
    from mirforge.evaluation.textbaseline import TextBaseline

    if train is None:
        raise InputError("--train: --text-baseline learns from a training dataset; give --train DATASET")
    train_records = select_records(Dataset(train).records(), train_split, _tasks(tasks), flag="--train-split")
    test_ids = {r["id"] for r in records}
    same = Path(train).resolve() == Path(data).resolve()
    if same and any(r["id"] in test_ids for r in train_records):
        raise InputError(
            "--train: the training split overlaps the evaluated one; use --train-split/--split to separate them"
        )
    clf, majority = TextBaseline().fit(train_records).predict(records)
    return [("text-classifier", clf), ("majority-letter", majority)]


def export_lmms(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    out: Annotated[Path, typer.Argument(help="Task folder to write.")],
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks.")] = None,
    name: Annotated[str, typer.Option(help="lmms-eval task name.")] = "mirforge",
    copy_images: Annotated[
        bool, typer.Option(help="Copy images into OUT/images (else paths relative to OUT point at the dataset).")
    ] = True,
    max_new_tokens: Annotated[int, typer.Option(help="generation_kwargs.max_new_tokens.")] = 512,
) -> None:
    """An lmms-eval task folder (yaml + utils.py with doc_to_messages keeping the interleaving + data jsonl).

    Run: lmms-eval --model qwen2_5_vl --model_args pretrained="$MODEL" --include_path OUT --tasks NAME
    """
    from mirforge.evaluation.exports import export_lmms_eval, lmms_eval_command

    s = export_lmms_eval(
        dataset,
        out,
        split=split,
        tasks=_tasks(tasks),
        name=name,
        copy_images=copy_images,
        max_new_tokens=max_new_tokens,
    )
    typer.echo(f"{s.rows} questions, {s.images} images -> {s.path}")
    typer.echo(f"run (MODEL = a Qwen2.5-VL folder or hub id): {lmms_eval_command(s.path.parent, s.path.stem)}")


def export_vlmeval(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    out: Annotated[Path, typer.Argument(help="TSV file to write (NAME.tsv).")],
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma list of tasks.")] = None,
) -> None:
    """A VLMEvalKit multiple-choice TSV (multi-image base64 list, A..D, answer, category).

    Run: cp OUT $LMUData/ && python run.py --data NAME --model MODEL
    """
    from mirforge.evaluation.exports import export_vlmevalkit

    s = export_vlmevalkit(dataset, out, split=split, tasks=_tasks(tasks))
    typer.echo(f"{s.rows} questions, {s.images} images -> {s.path}")
    typer.echo(f"run: cp {out} $LMUData/ && python run.py --data {Path(out).stem} --model MODEL (VLMEvalKit)")
