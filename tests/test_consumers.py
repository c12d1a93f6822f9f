"""Every export fed to its real consumer, from a working directory that is neither the export's nor the dataset's.

The curriculum has an empty stage0 (no instance is easy), so each consumer also loads the stage list ORDER.md
suggests without it. Its image paths are absolute; a second export made with ``--copy-images`` has paths relative
to its folder, which the printed commands pass to ms-swift, LLaMA-Factory and the TRL loader as the image root.
Each consumer runs in a subprocess started in another folder, with its own loader and its own template, and
tokenises rows with a tiny model (``mirforge dev tiny-vlm``, LLaVA layout). The consumers are the ``[consumers]``
extra (see pyproject.toml); a test is skipped where its package is not installed. Where a consumer cannot run as
installed here, the test says what it stands in for:
- LLaMA-Factory 0.9.5 imports torchaudio at module level (its only PyPI wheel is a CUDA build that does not load
  beside torch+cpu) for audio it never touches here: the subprocess gives it an empty ``torchaudio`` module. Its model
  loader needs trl <= 0.24, so the tokenizer and processor come from the stock Auto classes, as its ``load_tokenizer``
  does.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_export import write_difficulty
from test_stages import make_dataset

from mirforge.curriculum.commands import build_and_export
from mirforge.curriculum.export import FORMATS

pytestmark = pytest.mark.slow

IMAGE_TOKENS = 4  # the tiny LLaVA: a 28 px image, patch 14, no CLS token
KEPT = [f"stage{i}" for i in range(1, 6)]


def installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from mirforge.models.tiny import build_tiny_vlm

    root = tmp_path_factory.mktemp("consumers")
    dataset = make_dataset(root / "data", per_task=5)
    write_difficulty(dataset, all_hard=True)
    out = root / "cur"
    stats = build_and_export(dataset, out, None, None, list(FORMATS), copy_images=False)
    assert [d["stage"] for d in stats["dropped"]] == ["stage0"]
    copied = build_and_export(dataset, root / "cur-copy", None, None, list(FORMATS), copy_images=True)
    assert copied["images_copied"] > 0
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return {
        "root": root,
        "dataset": dataset,
        "out": out,
        "copied": root / "cur-copy",
        "model": build_tiny_vlm(root / "tiny", "llava"),
        "elsewhere": elsewhere,
        "rows": {n: sum(1 for _ in (out / "stages" / f"{n}.jsonl").open()) for n in KEPT},
    }


def order_block(out: Path, fmt: str) -> list[str]:
    """The command lines ORDER.md gives for ``fmt`` (comments dropped)."""
    text = (out / "ORDER.md").read_text()
    block = re.search(rf"## {fmt}\n\n```\n(.*?)```", text, re.S)
    assert block, f"ORDER.md has no {fmt} section"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def environment(work: dict[str, Any], **extra: str) -> dict[str, str]:
    cache = work["root"] / "cache"
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_CACHE": str(cache / "datasets"),
        "MODELSCOPE_CACHE": str(cache / "modelscope"),
        "TOKENIZERS_PARALLELISM": "false",
        "MODEL": str(work["model"]),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        **extra,
    }
    env.pop("PYTHONPATH", None)
    return env


def run_python(work: dict[str, Any], code: str, timeout: int = 600, **env: str) -> Any:
    """Run ``code`` in a fresh interpreter started in the other folder; it prints one JSON line last."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=work["elsewhere"],
        env=environment(work, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_shell(work: dict[str, Any], line: str, timeout: int = 600, **env: str) -> str:
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=work["elsewhere"],
        env=environment(work, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{line}\n" + done.stdout[-3000:] + done.stderr[-5000:]
    return done.stdout + done.stderr


def test_datasets_loads_each_listed_stage(work: dict[str, Any]) -> None:
    pytest.importorskip("datasets")
    out = work["out"]
    files = {fmt: sorted(str(p) for p in (out / fmt).glob("*.json*") if p.stem != "dataset_info") for fmt in FORMATS}
    result = run_python(
        work,
        f"""
        import json, datasets
        from transformers import AutoProcessor
        processor = AutoProcessor.from_pretrained({str(work["model"])!r})
        image_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)
        files = {files!r}
        found = {{}}
        for fmt, paths in files.items():
            column = "image" if fmt == "llava" else "images"
            for path in paths:
                ds = datasets.load_dataset("json", data_files=path, split="train")
                ds = ds.cast_column(column, datasets.List(datasets.Image()))
                found[path] = [len(ds), sum(len(row[column]) for row in ds)]
        # one TRL row through the model's own chat template and processor
        ds = datasets.load_dataset("json", data_files=files["trl"][0], split="train")
        row = ds.cast_column("images", datasets.List(datasets.Image()))[0]
        text = processor.apply_chat_template(row["prompt"] + row["completion"])
        batch = processor(text=[text], images=[row["images"]], return_tensors="pt")
        print(json.dumps({{"found": found, "images": len(row["images"]),
                          "image_tokens": int((batch["input_ids"] == image_id).sum())}}))
        """,
    )
    names = {Path(p).stem for paths in files.values() for p in paths}
    assert names == {*KEPT, "all"}  # stage0 is nowhere
    for paths in files.values():
        for path in paths:
            rows, _ = result["found"][path]
            assert rows == (sum(work["rows"].values()) if Path(path).stem == "all" else work["rows"][Path(path).stem])
    assert result["image_tokens"] == IMAGE_TOKENS * result["images"] > 0


def test_trl_runs_the_printed_loader_and_collates(work: dict[str, Any]) -> None:
    pytest.importorskip("trl")
    out = work["out"]
    (load_line,) = order_block(out, "trl")
    printed = run_shell(work, load_line)  # verbatim, from another folder
    assert f"num_rows: {sum(work['rows'].values())}" in printed
    (copied_line,) = order_block(work["copied"], "trl")  # relative paths, the image root in the line
    assert f"num_rows: {sum(work['rows'].values())}" in run_shell(work, copied_line)
    result = run_python(
        work,
        f"""
        import json
        from transformers import AutoProcessor
        from trl.trainer.sft_trainer import DataCollatorForVisionLanguageModeling
        from mirforge.curriculum.export import load_trl
        processor = AutoProcessor.from_pretrained({str(work["model"])!r})
        image_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)
        ds = load_trl({str(out / "trl" / "all.jsonl")!r})
        rows = [ds[i] for i in range(3)]
        batch = DataCollatorForVisionLanguageModeling(processor, completion_only_loss=True)(rows)
        ids, labels = batch["input_ids"], batch["labels"]
        print(json.dumps({{
            "images": [len(r["images"]) for r in rows],
            "image_tokens": [int((row == image_id).sum()) for row in ids],
            "image_in_loss": int(((ids == image_id) & (labels != -100)).sum()),
            "in_loss": int((labels != -100).sum()),
            "pixel_values": list(batch["pixel_values"].shape),
        }}))
        """,
    )
    assert result["image_tokens"] == [IMAGE_TOKENS * n for n in result["images"]]
    assert result["image_in_loss"] == 0 and result["in_loss"] > 0
    assert result["pixel_values"][0] == sum(result["images"])


@pytest.mark.skipif(not installed("swift"), reason="ms-swift is not installed (the [consumers] extra)")
def test_swift_trains_on_the_printed_command(work: dict[str, Any]) -> None:
    out = work["out"]
    newer, _older = order_block(out, "swift")
    assert "stage0" not in newer and str(out / "swift" / "all.jsonl") in newer
    # the printed line as it is, plus what keeps a test short (one step, nothing saved, no hub lookups)
    log = run_shell(
        work,
        f"{newer} --model_type llava1_5_hf --max_steps 1 --save_strategy no --report_to none "
        f"--output_dir {shlex.quote(str(work['root'] / 'swift-run'))}",
        USE_HF="1",
    )
    assert "train_runtime" in log
    check_swift_rows(work, out, USE_HF="1")


@pytest.mark.skipif(not installed("swift"), reason="ms-swift is not installed (the [consumers] extra)")
def test_swift_finds_copied_images_through_the_printed_root(work: dict[str, Any]) -> None:
    newer, _ = order_block(work["copied"], "swift")
    env = dict(item.split("=", 1) for item in shlex.split(newer) if "=" in item and not item.startswith("-"))
    assert env == {"ROOT_IMAGE_DIR": str(work["copied"].resolve())}
    check_swift_rows(work, work["copied"], USE_HF="1", **env)


def check_swift_rows(work: dict[str, Any], out: Path, **env: str) -> None:
    """ms-swift's own dataset loader and its LLaVA template, on the first rows of ``all``."""
    result = run_python(
        work,
        f"""
        import json
        from swift.dataset import load_dataset
        from swift.model import get_processor
        from swift.template import get_template
        train, _ = load_dataset([{str(out / "swift" / "all.jsonl")!r}])
        processor = get_processor({str(work["model"])!r}, model_type="llava1_5_hf")
        template = get_template(processor, template_type="llava1_5_hf")
        template.set_mode("train")
        image_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)
        encoded = [template.encode(train[i]) for i in range(3)]
        print(json.dumps({{
            "rows": len(train),
            "images": [len(train[i]["images"]) for i in range(3)],
            "image_tokens": [sum(t == image_id for t in e["input_ids"]) for e in encoded],
            "in_loss": [sum(t != -100 for t in e["labels"]) for e in encoded],
            "pixel_values": [list(e["pixel_values"].shape) for e in encoded],
        }}))
        """,
        **env,
    )
    assert result["rows"] == sum(work["rows"].values())
    assert result["image_tokens"] == [IMAGE_TOKENS * n for n in result["images"]]
    assert all(n > 0 for n in result["in_loss"])
    assert [p[0] for p in result["pixel_values"]] == result["images"]


@pytest.mark.skipif(not installed("llamafactory"), reason="LLaMA-Factory is not installed (the [consumers] extra)")
def test_llamafactory_reads_the_printed_arguments(work: dict[str, Any]) -> None:
    out = work["out"]
    line, *_ = order_block(out, "llamafactory")
    several = re.search(r"--dataset (\S+) --mix_strategy concat", (out / "ORDER.md").read_text()).group(1)
    assert several.split(",") == [f"mirforge_{n}" for n in KEPT]
    counts = {}
    for dataset, extra in (("mirforge_all", ""), (several, " --mix_strategy concat")):
        args = line.replace("--dataset mirforge_all", f"--dataset {dataset}") + extra
        counts[dataset] = llamafactory_rows(work, args)
    (copied, *_) = order_block(work["copied"], "llamafactory")
    assert f"--media_dir {work['copied'].resolve()}" in copied
    counts["copied"] = llamafactory_rows(work, copied)
    for result in counts.values():
        assert result["rows"] == sum(work["rows"].values())
        assert result["image_tokens"] == [IMAGE_TOKENS * n for n in result["images"]]
        assert result["image_in_loss"] == 0 and all(n > 0 for n in result["in_loss"])


def llamafactory_rows(work: dict[str, Any], args: str) -> Any:
    """LLaMA-Factory's argument parser on a printed command line, then its template and dataset loader."""
    return run_python(
        work,
        f"""
            import importlib.machinery, json, os, shlex, sys, types
            import transformers  # decides torchaudio is absent before the stand-in below exists
            stub = types.ModuleType("torchaudio")
            stub.__spec__ = importlib.machinery.ModuleSpec("torchaudio", None)
            sys.modules["torchaudio"] = stub
            from llamafactory.data import get_dataset, get_template_and_fix_tokenizer
            from llamafactory.hparams import get_train_args
            argv = shlex.split(os.path.expandvars({args!r}))
            assert argv[:2] == ["llamafactory-cli", "train"], argv
            model_args, data_args, training_args, *_ = get_train_args(argv[2:])
            tokenizer = transformers.AutoTokenizer.from_pretrained(model_args.model_name_or_path)
            processor = transformers.AutoProcessor.from_pretrained(model_args.model_name_or_path)
            template = get_template_and_fix_tokenizer(tokenizer, data_args)
            data = get_dataset(template, model_args, data_args, training_args, "sft",
                               tokenizer=tokenizer, processor=processor)["train_dataset"]
            image_id = tokenizer.convert_tokens_to_ids(processor.image_token)
            rows = [data[i] for i in range(3)]
            print(json.dumps({{
                "rows": len(data),
                "images": [len(r["images"]) for r in rows],
                "image_tokens": [sum(t == image_id for t in r["input_ids"]) for r in rows],
                "image_in_loss": sum(t == image_id for r in rows for t in r["labels"]),
                "in_loss": [sum(t != -100 for t in r["labels"]) for r in rows],
            }}))
            """,
        TEMPLATE="llava",
        DISABLE_VERSION_CHECK="1",
    )


@pytest.mark.skipif(not installed("lmms_eval"), reason="lmms-eval is not installed (the [consumers] extra)")
def test_lmms_eval_loads_the_moved_task_folder(work: dict[str, Any]) -> None:
    from mirforge.evaluation.exports import export_lmms_eval

    task = work["root"] / "lmms"
    export_lmms_eval(work["dataset"], task, name="mirforge_consumer")
    moved = work["root"] / "lmms-moved"
    task.rename(moved)  # relative paths only: the folder works where it lands
    result = run_python(
        work,
        f"""
        import json
        from transformers import AutoProcessor
        from lmms_eval.protocol import ChatMessages
        from lmms_eval.tasks import TaskManager, get_task_dict
        task = get_task_dict(["mirforge_consumer"], TaskManager(include_path={str(moved)!r}))["mirforge_consumer"]
        docs = task.test_docs()
        processor = AutoProcessor.from_pretrained({str(work["model"])!r})
        image_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)
        kwargs = task.config.lmms_eval_specific_kwargs["default"]
        out = []
        for doc in list(docs)[:3]:
            # what lmms-eval's chat model wrappers (models/chat/huggingface.py) do with doc_to_messages
            messages = ChatMessages(messages=task.config.doc_to_messages(doc, kwargs))
            images, _, _ = messages.extract_media()
            text = processor.apply_chat_template(messages.to_hf_messages(), add_generation_prompt=True)
            batch = processor(text=[text], images=images, return_tensors="pt")
            out.append({{
                "images": len(images),
                "image_tokens": int((batch["input_ids"] == image_id).sum()),
                "doc_to_text": task.doc_to_text(doc),
                "question": doc["question"],
            }})
        print(json.dumps({{"docs": len(docs), "rows": out}}))
        """,
    )
    assert result["docs"] == 10
    for row in result["rows"]:
        assert row["image_tokens"] == IMAGE_TOKENS * row["images"] == IMAGE_TOKENS * row["question"].count("<image>")
        text = row["doc_to_text"]
        assert "<image>" not in text and all(f"[Image {k}]" in text for k in range(1, row["images"] + 1))
