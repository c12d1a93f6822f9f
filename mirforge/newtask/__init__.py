"""``mirforge new-task``: write a small installable plugin package with one working task and its tests.

The skeleton lives beside this module (``skeleton/``, files ending in ``.tmpl``); placeholders such as
``__NAME__`` are replaced by plain substitution, so the step templates (Jinja) are copied as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from mirforge import CATEGORIES, __version__
from mirforge.errors import InputError

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{1,40}$")


@dataclass(frozen=True)
class Names:
    task: str  # registered task name, e.g. dot_count
    cls: str  # DotCount
    package: str  # mirforge_dot_count
    dist: str  # mirforge-dot-count
    category: str

    def substitutions(self) -> dict[str, str]:
        return {
            "__NAME__": self.task,
            "__CLASS__": self.cls,
            "__PACKAGE__": self.package,
            "__DIST__": self.dist,
            "__CATEGORY__": self.category,
            "__MIRFORGE_VERSION__": __version__,
        }


def names_for(task: str, category: str) -> Names:
    if not NAME_RE.match(task) or task.endswith("_") or "__" in task:
        raise InputError(
            f"NAME: {task!r} must be a lowercase identifier of 2-41 characters (letters, digits, single '_'), "
            "e.g. dot_count"
        )
    if category not in CATEGORIES:
        raise InputError(f"--category: {category!r} is not one of {', '.join(CATEGORIES)}")
    from mirforge.registry import available

    if task in available():
        raise InputError(f"NAME: a task called {task!r} is already registered; choose another name")
    cls = "".join(part.capitalize() for part in task.split("_"))
    return Names(task, cls, f"mirforge_{task}", f"mirforge-{task.replace('_', '-')}", category)


def create(task: str, category: str, out: Path) -> list[Path]:
    """Write the package into ``out`` (a new or empty folder); returns the files written."""
    names = names_for(task, category)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"--out: {out} exists and is not an empty folder; choose a new folder")
    skeleton = resources.files("mirforge.newtask").joinpath("skeleton")
    written: list[Path] = []
    for source, rel in _walk(skeleton, ""):
        target_rel = rel.removesuffix(".tmpl").replace("package/", f"{names.package}/", 1)
        if target_rel.startswith("tests/test_task.py"):
            target_rel = f"tests/test_{names.task}.py"
        text = source.read_text(encoding="utf-8")
        for key, value in names.substitutions().items():
            text = text.replace(key, value)
        target = out / target_rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return sorted(written)


def _walk(node: Traversable, prefix: str) -> list[tuple[Traversable, str]]:
    found = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            if child.name != "__pycache__":
                found += _walk(child, rel + "/")
        elif child.name.endswith(".tmpl"):
            found.append((child, rel))
    return found
