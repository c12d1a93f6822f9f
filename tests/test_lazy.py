"""lazy_module: a module runs on first attribute access, not on import."""

from __future__ import annotations

import sys

import pytest

from mirforge.lazy import lazy_module


def test_a_lazy_module_runs_when_first_used(tmp_path, monkeypatch):
    (tmp_path / "mirforge_lazy_probe.py").write_text(
        "import sys\nsys.mirforge_lazy_runs = getattr(sys, 'mirforge_lazy_runs', 0) + 1\nVALUE = 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mirforge_lazy_probe", raising=False)
    monkeypatch.setattr(sys, "mirforge_lazy_runs", 0, raising=False)
    module = lazy_module("mirforge_lazy_probe")
    assert sys.mirforge_lazy_runs == 0
    assert module.VALUE == 42
    assert sys.mirforge_lazy_runs == 1
    assert lazy_module("mirforge_lazy_probe") is module  # one module, run once
    assert module.VALUE == 42 and sys.mirforge_lazy_runs == 1


def test_an_unknown_module_is_an_import_error():
    with pytest.raises(ImportError, match="no_such_module_here"):
        lazy_module("no_such_module_here")
