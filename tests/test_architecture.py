"""The layering of docs/architecture.md, read from the source: forbidden import directions and import cycles.

Every module under ``mirforge/`` is parsed with ``ast`` (nothing is imported). Both checks count every import a
module makes, at any depth: a lazy import inside a function is still a dependency, and a circle closed by one is
still a circle (the lazy import only hides it from the interpreter). Imports under ``if TYPE_CHECKING:`` count
for the directions but not for cycles: they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "mirforge"


@dataclass(frozen=True)
class Import:
    target: str  # the mirforge module imported
    line: int
    lazy: bool = False  # inside a function: runs when called, not when the module is imported
    type_only: bool = False  # under ``if TYPE_CHECKING:``: never runs


@dataclass(frozen=True)
class Rule:
    why: str
    sources: tuple[str, ...]  # the rule holds for modules under these
    forbidden: tuple[str, ...]  # ... which must not import anything under these
    exempt: tuple[str, ...] = ()


RULES = (
    Rule("the runner places shards; it never imports a generator", ("mirforge.runner",), ("mirforge.generators",)),
    Rule(
        "generators make instances; they never import the runner or the dataset folder",
        ("mirforge.generators",),
        ("mirforge.runner", "mirforge.dataset"),
    ),
    Rule(
        "dataset and models are the foundation the commands build on, never the other way",
        ("mirforge.dataset", "mirforge.models"),
        (
            "mirforge.runner",
            "mirforge.generators",
            "mirforge.curriculum",
            "mirforge.training",
            "mirforge.evaluation",
            "mirforge.cli",
        ),
    ),
    Rule(
        "render draws what a generator describes; it imports no generator",
        ("mirforge.render",),
        ("mirforge.generators",),
    ),
    Rule(
        "the CLI is the top: nothing imports it but `python -m mirforge`",
        ("mirforge",),
        ("mirforge.cli",),
        exempt=("mirforge.__main__", "mirforge.cli"),
    ),
)


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every ``.py`` file of the package at ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(body: list[ast.stmt], lazy: bool, type_only: bool) -> Iterator[tuple[ast.stmt, bool, bool]]:
    """Every statement, with whether it sits in a function and whether under ``if TYPE_CHECKING:``."""
    for node in body:
        yield node, lazy, type_only
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _statements(node.body, True, type_only)
        elif isinstance(node, ast.If):
            yield from _statements(node.body, lazy, type_only or _is_type_checking(node.test))
            yield from _statements(node.orelse, lazy, type_only)
        else:  # class bodies, with, try, for, while, match
            nested = [*getattr(node, "body", []), *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            for branch in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
                nested += branch.body
            yield from _statements(nested, lazy, type_only)


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    """The mirforge modules ``module`` imports. ``from pkg import name`` targets ``pkg.name`` when that is a
    module, else ``pkg``; relative imports are resolved against the module's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node, lazy, type_only in _statements(tree.body, False, False):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in dict.fromkeys(targets):
            if under(target, "mirforge"):
                found.append(Import(target, node.lineno, lazy, type_only))
    return found


def import_graph(root: Path) -> dict[str, list[Import]]:
    names = module_names(root)
    return {module: imports_of(module, path, set(names)) for module, path in names.items()}


def violations(graph: dict[str, list[Import]], rule: Rule) -> list[str]:
    found = []
    for module, imports in sorted(graph.items()):
        if not any(under(module, s) for s in rule.sources) or module in rule.exempt:
            continue
        for imp in imports:
            if any(under(imp.target, f) for f in rule.forbidden):
                found.append(f"{module} (line {imp.line}) imports {imp.target}")
    return found


def cycles(graph: dict[str, list[Import]]) -> list[str]:
    """One cycle per strongly connected group of modules that import each other (Tarjan's algorithm, iterative),
    as a path ``a -> b (lazy, line 12) -> a``."""
    edges: dict[str, dict[str, Import]] = {m: {} for m in graph}
    for module, imports in graph.items():
        for imp in imports:
            if imp.target in graph and not imp.type_only:
                edges[module].setdefault(imp.target, imp)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[str] = []
    for start in sorted(edges):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(edges[start])))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while node not in group:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                if len(group) > 1 or node in edges[node]:
                    found.append(_cycle_in(sorted(group), edges))
    return found


def _hop(imp: Import) -> str:
    return f"{imp.target} (lazy, line {imp.line})" if imp.lazy else imp.target


def _cycle_in(group: list[str], edges: dict[str, dict[str, Import]]) -> str:
    """A shortest cycle through the group's first module, staying inside the group (breadth-first)."""
    start = group[0]
    parent: dict[str, str] = {}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges[node]):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                path.reverse()
                hops = [_hop(edges[a][b]) for a, b in zip(path, [*path[1:], start], strict=True)]
                return " -> ".join([start, *hops])
            if child in group and child not in parent:
                parent[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle through {start} in {group}")


# -- the checks on mirforge ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graph() -> dict[str, list[Import]]:
    return import_graph(ROOT)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.sources[0].removeprefix("mirforge.") or "all")
def test_forbidden_import_directions(graph, rule):
    missing = [s for s in rule.sources if not any(under(m, s) for m in graph)]
    assert not missing, f"{', '.join(missing)}: no such package, so the rule guards nothing"
    found = violations(graph, rule)
    assert not found, f"{rule.why}:\n  " + "\n  ".join(found)


def test_no_import_cycle(graph):
    found = cycles(graph)
    assert not found, "import cycles:\n  " + "\n  ".join(found)


def test_the_graph_sees_the_core_path(graph):
    """The parser finds what the pipeline really imports, so an empty graph cannot pass the checks above."""
    assert len(graph) > 50
    assert "mirforge.task" in {i.target for i in graph["mirforge.pipeline"]}
    assert any(under(i.target, "mirforge.runner") for i in graph["mirforge.cli"])


# -- the checker itself, on a package written for the purpose ---------------------------------------------------
def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "mirforge" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "mirforge"


def test_checker_reports_a_forbidden_import_even_a_lazy_or_relative_one(tmp_path):
    root = write(
        tmp_path,
        {
            "__init__.py": "",
            "runner/__init__.py": "def go():\n    from mirforge.generators.spatial import task\n",
            "runner/worker.py": "from ..generators import helper\n",
            "generators/__init__.py": "",
            "generators/helper.py": "",
            "generators/spatial/__init__.py": "",
            "generators/spatial/task.py": "from mirforge import runner\n",
            "render/__init__.py": "import mirforge.generatorsx\n",  # a name that only starts like one
            "generatorsx.py": "",
        },
    )
    graph = import_graph(root)
    runner_rule, generators_rule, _, render_rule, _ = RULES
    assert violations(graph, runner_rule) == [
        "mirforge.runner (line 2) imports mirforge.generators.spatial.task",
        "mirforge.runner.worker (line 1) imports mirforge.generators.helper",
    ]
    assert violations(graph, generators_rule) == ["mirforge.generators.spatial.task (line 1) imports mirforge.runner"]
    assert violations(graph, render_rule) == []


def test_checker_reports_cycles_with_their_path_lazy_ones_too_but_not_type_only_ones(tmp_path):
    root = write(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from mirforge import b\n",
            "b.py": "import mirforge.c\n",
            "c.py": "try:\n    from mirforge.a import thing\nexcept ImportError:\n    pass\n",
            "d.py": "import mirforge.e\n",
            "e.py": "def f():\n    import mirforge.d\n",
            "f.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mirforge import g\n",
            "g.py": "import mirforge.f\n",
        },
    )
    assert cycles(import_graph(root)) == [
        "mirforge.a -> mirforge.b -> mirforge.c -> mirforge.a",
        "mirforge.d -> mirforge.e -> mirforge.d (lazy, line 2)",
    ]
