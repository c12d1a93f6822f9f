"""lmms-eval and VLMEvalKit exports, read back by those tools' documented loaders reproduced here.

These tests need neither package (lmms-eval's own loader is exercised in tests/test_consumers.py; VLMEvalKit is not
on PyPI); they reproduce what the tools do:
- lmms-eval: the task yaml is read with a ``!function`` constructor that imports ``<module>.py`` beside the yaml
  (``lmms_eval.utils.import_function``); a relative ``data_files`` path is resolved from the yaml's folder
  (``lmms_eval.utils._resolve_local_data_files``); ``dataset_path: json`` + ``dataset_kwargs`` go to
  ``datasets.load_dataset``;
  ``doc_to_messages(doc, lmms_eval_specific_kwargs)`` gets the ``default`` kwargs; ``process_results(doc, [text])``
  returns one value per metric, aggregated by the metric's function.
- VLMEvalKit: ``pd.read_csv(path, sep="\\t")``; ``index`` as str; ``image`` cells that start with ``[`` are lists
  (``toliststr``); each entry is base64 of an image file; options are the upper-case columns present and not NaN;
  a table with ``question`` and ``A``/``B`` and ``image`` columns is built as a custom multiple-choice dataset.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from PIL import Image
from test_stages import make_dataset

from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.evaluation.exports import export_lmms_eval, export_vlmevalkit


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("exp") / "data", per_task=3)


def pixels(image: Image.Image) -> str:
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


def lmms_load_yaml(path: Path) -> dict[str, Any]:
    """What lmms-eval's ``load_yaml_config(mode="full")`` does with ``!function utils.name``."""

    class Loader(yaml.SafeLoader):
        pass

    def import_function(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        *module, name = loader.construct_scalar(node).split(".")
        module_path = path.parent / f"{'.'.join(module)}.py"
        spec = importlib.util.spec_from_file_location(".".join(module), module_path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, name)

    Loader.add_constructor("!function", import_function)
    config = yaml.load(path.read_text(), Loader=Loader)  # noqa: S506 - the custom loader above
    files = config["dataset_kwargs"]["data_files"]
    config["dataset_kwargs"]["data_files"] = {
        k: v if Path(v).is_absolute() or not (path.parent / v).is_file() else str(path.parent / v)
        for k, v in files.items()
    }
    return config


def test_lmms_eval_folder_is_relative_and_moves(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    export_lmms_eval(data, tmp_path / "lmms", copy_images=True)
    text = (tmp_path / "lmms" / "mirforge.yaml").read_text()
    assert str(tmp_path) not in text.split("# data_files")[1]  # no absolute path in the task's settings
    assert yaml.safe_load(text.replace("!function", ""))["dataset_kwargs"]["data_files"] == {"test": "mirforge.jsonl"}
    (tmp_path / "lmms").rename(tmp_path / "moved")
    monkeypatch.chdir(data)  # another working directory
    config = lmms_load_yaml(tmp_path / "moved" / "mirforge.yaml")
    docs = datasets.load_dataset("json", **config["dataset_kwargs"], cache_dir=str(tmp_path / "c"))["test"]
    for doc in docs:
        assert all(p.startswith("images/") and not p.startswith("images/images/") for p in doc["images"])
        assert all((tmp_path / "moved" / p).is_file() for p in doc["images"])
        assert len(config["doc_to_visual"](doc)) == len(doc["images"])


def test_lmms_eval_text_prompt_names_each_image(data: Path, tmp_path: Path) -> None:
    summary = export_lmms_eval(data, tmp_path / "lmms", copy_images=False)
    config = lmms_load_yaml(summary.path)
    records = {r["id"]: r for r in Dataset(data).records()}
    import json

    for line in (tmp_path / "lmms" / "mirforge.jsonl").read_text().splitlines():
        doc = json.loads(line)
        text = config["doc_to_text"](doc, config["lmms_eval_specific_kwargs"]["default"])
        n = len(records[doc["id"]]["images"])
        expected = records[doc["id"]]["question"]
        for k in range(1, n + 1):
            expected = expected.replace("<image>", f"[Image {k}]", 1)
        assert text.startswith(expected) and "<image>" not in text
        assert [f"[Image {k}]" in text for k in range(1, n + 2)] == [True] * n + [False]
        assert "  ," not in text and ", ," not in text  # no hole where a slot was


def test_lmms_eval_task_folder(data: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    summary = export_lmms_eval(data, tmp_path / "lmms", name="mir-forge test", copy_images=True)
    assert summary.path.name == "mir_forge_test.yaml" and summary.rows == 6
    config = lmms_load_yaml(summary.path)
    assert config["task"] == "mir_forge_test" and config["output_type"] == "generate_until"
    docs = datasets.load_dataset(config["dataset_path"], **config["dataset_kwargs"])[config["test_split"]]
    kwargs = config["lmms_eval_specific_kwargs"]["default"]
    records = {r["id"]: r for r in Dataset(data).records()}
    results = []
    for doc in docs:
        record = records[doc["id"]]
        messages = config["doc_to_messages"](doc, kwargs)
        parts = messages[0]["content"]
        kinds = ["image" if p["type"] == "image" else "text" for p in parts]
        expected = []
        for i, piece in enumerate(record["question"].split("<image>")):
            if piece or i == len(record["images"]):
                expected.append("text")
            if i < len(record["images"]):
                expected.append("image")
        assert kinds == expected  # text and images interleaved in slot order
        images = [p["url"] for p in parts if p["type"] == "image"]
        for image, rel in zip(images, record["images"], strict=True):
            with Image.open(data / rel) as original:
                assert pixels(image) == pixels(original)
        assert "A. " in parts[-1]["text"] and "<image>" not in "".join(p.get("text", "") for p in parts)
        assert len(config["doc_to_visual"](doc)) == len(record["images"])
        assert config["doc_to_target"](doc) == record["answer"]
        right = config["process_results"](doc, [f"Your option: {record['answer']}"])
        wrong = config["process_results"](doc, ["no idea"])
        assert right["mirforge_acc"]["correct"] == 1.0 and wrong["mirforge_unparsed"] == 1.0
        results.append(right["mirforge_acc"])
        results.append(wrong["mirforge_acc"])
    metric = {m["metric"]: m for m in config["metric_list"]}
    assert metric["mirforge_acc"]["aggregation"](results) == 0.5
    assert metric["mirforge_unparsed"]["aggregation"] == "mean"


def test_lmms_eval_without_copies_links_images(data: Path, tmp_path: Path) -> None:
    summary = export_lmms_eval(data, tmp_path / "lmms", copy_images=False, split="test", tasks={"beta"})
    assert summary.rows == 3 and not (tmp_path / "lmms" / "images").exists()
    config = lmms_load_yaml(summary.path)
    import json

    doc = json.loads((tmp_path / "lmms" / "mirforge.jsonl").read_text().splitlines()[0])
    assert len(config["doc_to_visual"](doc)) == len(doc["images"])


def toliststr(value: Any) -> list[str]:
    """VLMEvalKit's ``toliststr`` (``ast.literal_eval`` instead of ``eval``: same result on these cells)."""
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        return [str(x) for x in ast.literal_eval(value)]
    return [value] if isinstance(value, str) else [str(x) for x in value]


def test_vlmevalkit_tsv(data: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    summary = export_vlmevalkit(data, tmp_path / "MirForge.tsv")
    table = pd.read_csv(summary.path, sep="\t")
    table["index"] = [str(x) for x in table["index"]]
    assert {"question", "A", "B", "image"} <= set(table.columns)  # -> CustomMCQDataset
    assert table["index"].is_unique and len(table) == 6
    records = {r["id"]: r for r in Dataset(data).records()}
    for _, line in table.iterrows():
        record = records[line["id"]]
        images = toliststr(line["image"])
        assert all(len(x) > 64 for x in images)  # never mistaken for a back-reference to another row
        assert len(images) == len(record["images"]) == line["question"].count("<image>")
        for encoded, rel in zip(images, record["images"], strict=True):
            with Image.open(io.BytesIO(base64.b64decode(encoded))) as im, Image.open(data / rel) as original:
                assert pixels(im) == pixels(original)
        options = {c: line[c] for c in "ABCDEFGH" if c in line and not pd.isna(line[c])}
        assert options == record["options"]
        assert line["answer"] in options and line["answer"] == record["answer"]
        assert line["category"] == record["task"] and line["l2-category"] == record["category"]
        assert line["question"] == record["question"]


def test_vlmevalkit_needs_tsv_suffix(data: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="tsv"):
        export_vlmevalkit(data, tmp_path / "out.csv")
