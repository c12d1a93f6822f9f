"""``mirforge dev tiny-vlm``: folders that the stock transformers loaders read, with one image token id throughout."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mirforge.cli import app

os.environ.setdefault("OMP_NUM_THREADS", "1")
transformers = pytest.importorskip("transformers")

from mirforge.models.processor import load_processor  # noqa: E402
from mirforge.models.tiny import ARCHES, VIDEO_ARCHES, build_tiny_vlm  # noqa: E402

TORCHVISION = importlib.util.find_spec("torchvision") is not None


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    return {arch: build_tiny_vlm(root / arch, arch, image_px=56) for arch in ARCHES}


def test_default_folder_loads_with_stock_auto_classes(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["dev", "tiny-vlm", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    processor = transformers.AutoProcessor.from_pretrained(tmp_path / "m")
    model = transformers.AutoModelForImageTextToText.from_pretrained(tmp_path / "m")
    assert type(processor).__module__.startswith("transformers.") and hasattr(processor, "image_processor")
    assert model.config.image_token_id == processor.tokenizer.convert_tokens_to_ids(processor.image_token)


@pytest.mark.parametrize("arch", ARCHES)
def test_folder_names_stock_classes_and_one_image_token_id(folders: dict[str, Path], arch: str) -> None:
    folder = folders[arch]
    for name in ("processor_config.json", "preprocessor_config.json", "tokenizer_config.json"):
        if (folder / name).is_file():
            data = json.loads((folder / name).read_text())
            cls = data.get("processor_class")
            assert cls is None or hasattr(transformers, cls), f"{name}: {cls}"
    model = transformers.AutoModelForImageTextToText.from_pretrained(folder)
    processor = load_processor(folder)
    token_id = processor.tokenizer.convert_tokens_to_ids(processor.image_token)
    assert model.config.image_token_id == token_id == processor.image_token_id
    assert token_id != processor.tokenizer.unk_token_id


@pytest.mark.parametrize("arch", ARCHES)
def test_auto_processor(folders: dict[str, Path], arch: str) -> None:
    folder = folders[arch]
    if arch not in VIDEO_ARCHES or TORCHVISION:
        processor = transformers.AutoProcessor.from_pretrained(folder)
        assert type(processor).__name__ == json.loads((folder / "processor_config.json").read_text())["processor_class"]
        return
    # the stock processor of this family carries a video processor, and transformers has no video backend without
    # torchvision: the folder is complete (video_preprocessor_config.json), the missing piece is torchvision
    assert (folder / "video_preprocessor_config.json").is_file()
    with pytest.raises(ImportError, match="[Tt]orchvision"):
        transformers.AutoProcessor.from_pretrained(folder)
    assert hasattr(load_processor(folder), "image_processor")
