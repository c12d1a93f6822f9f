"""Export a dataset folder as a Hugging Face ``datasets`` repository: parquet shards and a dataset card.

Layout of ``OUT``::

    README.md                                   dataset card: YAML metadata (configs, license, task categories)
    data/<task>/<split>-NNNNN-of-MMMMM.parquet  one config per task; the config ``all`` globs every task

Images are embedded as PNG bytes in a ``List(Image())`` column (never file paths, which break when the folder
moves). Each row holds the instance's fields; ``options`` is the list of option texts in letter order (A, B,
...), ``difficulty_knobs`` and ``provenance`` are JSON strings (their keys differ per task), and ``image_paths``
keeps the images' paths in the source folder. :func:`record_from_row` turns a row back into the instance.
``datasets.load_dataset(OUT, name)`` loads it (``name`` a task or ``all``).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from mirforge import LETTERS, __version__
from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.stats import (
    MIR_CATEGORIES,
    MIR_IMAGES,
    MIR_IMAGES_PER_INSTANCE,
    MIR_INSTANCES,
    TaskStats,
    compute,
)

CARD = "README.md"
MARK = "<!-- written by mirforge export hf -->"
ALL = "all"
MIR_BIBTEX = """@misc{mir2025,
  title         = {From Easy to Hard: The MIR Benchmark for Progressive Interleaved Multi-Image Reasoning},
  year          = {2025},
  eprint        = {2509.17040},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2509.17040}
}"""


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise InputError("export hf needs the [hf] extra (`datasets`): pip install 'mirforge[hf]'") from None
    return datasets


def features() -> Any:
    ds = _datasets()
    List = getattr(ds, "List", ds.Sequence)  # noqa: N806 - datasets' class name
    string, int32 = ds.Value("string"), ds.Value("int32")
    return ds.Features(
        {
            "id": string,
            "task": string,
            "category": string,
            "split": string,
            "question": string,
            "images": List(ds.Image()),
            "image_paths": List(string),
            "options": List(string),
            "answer": string,
            "summary": string,
            "caption": List(string),
            "text2img": string,
            "img2img": string,
            "conclusion": string,
            "regions": List({"image": int32, "name": string, "box": List(int32)}),
            "difficulty_level": int32,
            "difficulty_knobs": string,
            "provenance": string,
        }
    )


def row_of(record: dict[str, Any], root: Path) -> dict[str, Any]:
    """One parquet row: the record's fields, with the image files' bytes embedded."""
    return {
        "id": record["id"],
        "task": record["task"],
        "category": record["category"],
        "split": record["split"],
        "question": record["question"],
        "images": [{"bytes": (root / rel).read_bytes(), "path": Path(rel).name} for rel in record["images"]],
        "image_paths": list(record["images"]),
        "options": [record["options"][letter] for letter in LETTERS[: len(record["options"])]],
        "answer": record["answer"],
        "summary": record["summary"],
        "caption": list(record["caption"]),
        "text2img": record["text2img"],
        "img2img": record["img2img"],
        "conclusion": record["conclusion"],
        "regions": [{"image": r["image"], "name": r["name"], "box": list(r["box"])} for r in record["regions"]],
        "difficulty_level": record["difficulty"]["level"],
        "difficulty_knobs": json.dumps(record["difficulty"]["knobs"], ensure_ascii=False),
        "provenance": json.dumps(record["provenance"], ensure_ascii=False),
    }


def record_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """The instance record a row was made from (images as their original relative paths)."""
    return {
        "id": row["id"],
        "task": row["task"],
        "category": row["category"],
        "split": row["split"],
        "question": row["question"],
        "images": list(row["image_paths"]),
        "options": {LETTERS[i]: text for i, text in enumerate(row["options"])},
        "answer": row["answer"],
        "summary": row["summary"],
        "caption": list(row["caption"]),
        "text2img": row["text2img"],
        "img2img": row["img2img"],
        "conclusion": row["conclusion"],
        "regions": [{"image": r["image"], "name": r["name"], "box": list(r["box"])} for r in row["regions"]],
        "difficulty": {"level": row["difficulty_level"], "knobs": json.loads(row["difficulty_knobs"])},
        "provenance": json.loads(row["provenance"]),
    }


def export_hf(
    dataset: Path,
    out: Path,
    *,
    tasks: list[str] | None = None,
    rows_per_file: int = 500,
    license_id: str = "cc-by-4.0",
    pretty_name: str | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Write the parquet shards and the card; returns {config: {split: rows}}."""
    if rows_per_file < 1:
        raise InputError(f"--rows-per-file: must be at least 1, got {rows_per_file}")
    ds = _datasets()
    ds.disable_progress_bars()
    data = Dataset(dataset, tasks)
    manifest = data.manifest  # the card needs it: fail before writing anything
    out = Path(out)
    _prepare_out(out, overwrite)
    feats = features()
    layout: dict[str, dict[str, list[str]]] = {}
    counts: dict[str, dict[str, int]] = {}
    for task in data.tasks:
        for split in data.splits:
            records = data.records(task, split)
            if not records:
                continue
            chunks = [records[i : i + rows_per_file] for i in range(0, len(records), rows_per_file)]
            for number, chunk in enumerate(chunks):
                rel = f"data/{task}/{split}-{number:05d}-of-{len(chunks):05d}.parquet"
                rows = [row_of(r, data.root) for r in chunk]
                table = ds.Dataset.from_list(rows, features=feats)
                tmp = out / f"{rel}.tmp-{os.getpid()}"
                tmp.parent.mkdir(parents=True, exist_ok=True)
                table.to_parquet(str(tmp))
                os.replace(tmp, out / rel)
                layout.setdefault(task, {}).setdefault(split, []).append(rel)
            counts.setdefault(task, {})[split] = len(records)
    stats = compute(data.records())
    card = dataset_card(manifest, stats, layout, counts, license_id, pretty_name or f"mirforge: {dataset.name}")
    (out / CARD).write_text(card, encoding="utf-8")
    result = {task: dict(splits) for task, splits in counts.items()}
    result[ALL] = {split: sum(c.get(split, 0) for c in counts.values()) for split in data.splits}
    return result


def _prepare_out(out: Path, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"OUT: {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        card = out / CARD
        ours = card.is_file() and MARK in card.read_text(encoding="utf-8", errors="replace")
        if not ours:
            raise InputError(f"OUT: {out} is not empty and holds no earlier export; choose an empty or new folder")
        if not overwrite:
            raise InputError(f"OUT: {out} holds an earlier export; add --overwrite to replace it")
        shutil.rmtree(out / "data", ignore_errors=True)
        card.unlink()
    out.mkdir(parents=True, exist_ok=True)


# -- the dataset card ------------------------------------------------------------------------------------------
def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def card_metadata(
    layout: dict[str, dict[str, list[str]]], total: int, license_id: str, pretty_name: str
) -> dict[str, Any]:
    splits = sorted({s for per_task in layout.values() for s in per_task})
    configs = [
        {
            "config_name": ALL,
            "default": True,
            "data_files": [{"split": s, "path": f"data/*/{s}-*.parquet"} for s in splits],
        }
    ]
    for task, per_split in layout.items():
        configs.append(
            {
                "config_name": task,
                "data_files": [{"split": s, "path": f"data/{task}/{s}-*.parquet"} for s in sorted(per_split)],
            }
        )
    return {
        "pretty_name": pretty_name,
        "license": license_id,
        "language": ["en"],
        "task_categories": ["visual-question-answering", "multiple-choice", "image-text-to-text"],
        "tags": ["synthetic", "multi-image", "interleaved", "reasoning", "mir", "mirforge"],
        "size_categories": [_size_category(total)],
        "configs": configs,
    }


def dataset_card(
    manifest: dict[str, Any],
    stats: dict[str, TaskStats],
    layout: dict[str, dict[str, list[str]]],
    counts: dict[str, dict[str, int]],
    license_id: str,
    pretty_name: str,
) -> str:
    import yaml

    total = stats["all"]
    meta = yaml.safe_dump(card_metadata(layout, total.instances, license_id, pretty_name), sort_keys=False)
    splits = sorted({s for c in counts.values() for s in c})
    descriptions = _descriptions(list(counts))
    lines = [
        "---",
        meta.rstrip(),
        "---",
        MARK,
        "",
        f"# {pretty_name}",
        "",
        "A synthetic interleaved multi-image reasoning benchmark in the style of MIR "
        "([arXiv 2509.17040](https://arxiv.org/abs/2509.17040)), generated by "
        f"mirforge {manifest.get('mirforge', __version__)}. Every question's text interleaves "
        "`<image>` slots with the images, in order; its answer was computed from a synthetic scene and re-derived "
        "from the rendered pixels; each instance carries MIR's five reasoning steps (summary, caption, text2img, "
        "img2img, conclusion).",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("path/or/repo", "{ALL}")          # or one task: "{next(iter(counts))}"',
        f'row = ds["{splits[0]}"][0]',
        'row["images"]       # list of PIL images, one per <image> slot of row["question"]',
        'row["options"]      # option texts, letters A, B, ... in order; row["answer"] is the letter',
        "```",
        "",
        "## Tasks",
        "",
        "| config | category | description | " + " | ".join(splits) + " | images | images/instance |",
        "|---|---|---|" + "---|" * len(splits) + "---|---|",
    ]
    for task, per_split in counts.items():
        s = stats[task]
        lines.append(
            f"| `{task}` | {s.category} | {descriptions.get(task, '')} | "
            + " | ".join(str(per_split.get(split, 0)) for split in splits)
            + f" | {s.images} | {s.mean_images:.2f} |"
        )
    lines.append(
        f"| `{ALL}` | | every task | "
        + " | ".join(str(sum(c.get(split, 0) for c in counts.values())) for split in splits)
        + f" | {total.images} | {total.mean_images:.2f} |"
    )
    lines += [
        "",
        f"For comparison, MIR has {MIR_INSTANCES:,} instances and {MIR_IMAGES:,} images "
        f"({MIR_IMAGES_PER_INSTANCE:.2f} images per instance); its categories are "
        + ", ".join(f"{k} {v:,}" for k, v in MIR_CATEGORIES.items())
        + ".",
        "",
        "## Images per instance",
        "",
        "| config | " + " | ".join(str(k) for k in sorted(total.images_per_instance)) + " |",
        "|---|" + "---|" * len(total.images_per_instance),
    ]
    for task in [*counts, "all"]:
        s = stats[task]
        lines.append(
            f"| `{task}` | "
            + " | ".join(str(s.images_per_instance.get(k, 0)) for k in sorted(total.images_per_instance))
            + " |"
        )
    letters = sorted(total.letters)
    lines += [
        "",
        "## Answer letters",
        "",
        "Share of the correct answer per letter (mirforge balances letters per task).",
        "",
        "| config | " + " | ".join(letters) + " |",
        "|---|" + "---|" * len(letters),
    ]
    for task in [*counts, "all"]:
        shares = stats[task].letter_shares()
        lines.append(f"| `{task}` | " + " | ".join(f"{shares.get(k, 0.0):.1%}" for k in letters) + " |")
    levels = sorted(total.levels)
    lines += [
        "",
        "## Difficulty levels",
        "",
        "Instances per generator difficulty level (the task's knobs, e.g. more objects or closer values; "
        "recorded per row in `difficulty_level` and `difficulty_knobs`).",
        "",
        "| config | " + " | ".join(f"level {k}" for k in levels) + " |",
        "|---|" + "---|" * len(levels),
    ]
    for task in [*counts, "all"]:
        lines.append(f"| `{task}` | " + " | ".join(str(stats[task].levels.get(k, 0)) for k in levels) + " |")
    lines += [
        "",
        "## Fields",
        "",
        "`id`, `task`, `category`, `split`, `question` (with one `<image>` per image), `images` (PNG, embedded), "
        "`image_paths` (paths in the generated folder), `options` (texts for A, B, ...), `answer` (letter), "
        "`summary`, `caption` (one per image), `text2img`, `img2img`, `conclusion` (MIR's reasoning steps; "
        "`conclusion` is the full closing sentence, as in the generated instances, while the folder's `mir.json` "
        "keeps MIR's convention of the bare answer letter there and moves this sentence to `reasoning`), "
        "`regions` (image index, name, pixel box `[x0, y0, x1, y1]`), `difficulty_level`, `difficulty_knobs` "
        "(JSON), `provenance` (JSON: generator, seeds, renderer).",
        "",
        "## Generation",
        "",
        f"mirforge {manifest.get('mirforge', __version__)}; package versions:",
        "",
        "```json",
        json.dumps(manifest.get("versions", {}), indent=1, sort_keys=True),
        "```",
        "",
        "Run configuration per split (every instance regenerates byte-identically from it with "
        "`mirforge show ID --regenerate`):",
        "",
        "```json",
        json.dumps({k: v["config"] for k, v in sorted(manifest["splits"].items())}, indent=1, sort_keys=True),
        "```",
        "",
        "## Citation",
        "",
        "This data follows the design of the MIR benchmark; please cite it:",
        "",
        "```bibtex",
        MIR_BIBTEX,
        "```",
        "",
    ]
    return "\n".join(lines)


def _descriptions(tasks: list[str]) -> dict[str, str]:
    from mirforge.registry import load

    out = {}
    for task in tasks:
        try:
            out[task] = load(task).description.replace("|", "/")
        except Exception:  # a plugin that is not installed here: the card still builds
            out[task] = ""
    return out
