"""A model's processor, loadable without torchvision.

In transformers 5 the processors of Qwen2-VL, Qwen2.5-VL, LLaVA-OneVision (and others) carry a video processor
that needs torchvision. mirforge only sends images, so where the stock processor does not load, the same class is
loaded without its video processor: ``ProcessorMixin`` takes its sub-processors from ``get_attributes()``, so
leaving ``video_processor`` out of that list is enough (``__init__`` already defaults it to None).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from mirforge.errors import MirforgeError

PREFIX = "ImageOnly"
CONFIG_FILES = ("processor_config.json", "preprocessor_config.json", "tokenizer_config.json")


class ImageOnlyProcessor:
    """Mixin for a ``ProcessorMixin`` subclass: the same processor without its video processor."""

    @classmethod
    def get_attributes(cls) -> list[str]:
        return [name for name in super().get_attributes() if name != "video_processor"]  # type: ignore[misc]


@functools.cache
def image_only_processor_class(base: type) -> type:
    """``base`` without its video processor (one class per base, so ``isinstance`` and saving behave)."""
    return type(f"{PREFIX}{base.__name__}", (ImageOnlyProcessor, base), {"__module__": __name__})


def load_processor(path: Path | str) -> Any:
    """The processor of the model folder ``path``; image-only when the stock one needs torchvision."""
    import transformers

    path = Path(path)
    try:
        processor = transformers.AutoProcessor.from_pretrained(path)
        if hasattr(processor, "image_processor"):
            return processor
    except (OSError, AttributeError, ValueError, ImportError):
        pass
    name = None
    for file in CONFIG_FILES:
        if (path / file).is_file():
            name = json.loads((path / file).read_text()).get("processor_class")
            if name:
                break
    base = getattr(transformers, (name or "").removeprefix(PREFIX), None)
    if base is None:
        raise MirforgeError(f"--model: {path} has no loadable processor (processor_class {name!r})")
    return image_only_processor_class(base).from_pretrained(path)


def restore_processor_class(folder: Path) -> None:
    """Record the stock processor class in a saved folder, so tools with torchvision load it with ``AutoProcessor``."""
    for name in CONFIG_FILES:
        path = Path(folder) / name
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        cls = data.get("processor_class", "")
        if cls.startswith(PREFIX):
            data["processor_class"] = cls.removeprefix(PREFIX)
            path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
