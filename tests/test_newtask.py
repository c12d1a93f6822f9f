"""``mirforge new-task``: the written package installs, is listed, generates valid data, and passes its tests.

The package is installed editable into a throw-away venv layered over the test venv (a ``.pth`` file adds the
test venv's site-packages), so the shared test environment never sees the new entry point.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from mirforge.errors import InputError
from mirforge.newtask import create, names_for


def test_names_and_bad_input(tmp_path):
    names = names_for("dot_count", "analytical")
    assert (names.cls, names.package, names.dist) == ("DotCount", "mirforge_dot_count", "mirforge-dot-count")
    for bad in ("DotCount", "dot-count", "x", "_dots", "dots_", "a__b"):
        with pytest.raises(InputError, match="NAME"):
            names_for(bad, "analytical")
    with pytest.raises(InputError, match="--category"):
        names_for("dot_count", "visual")
    with pytest.raises(InputError, match="already registered"):
        names_for("view_3d", "spatial")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(InputError, match="not an empty folder"):
        create("dot_count", "analytical", tmp_path / "full")


def test_cli_usage_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mirforge", "new-task", "Bad", "--category", "spatial", "--out", str(tmp_path / "p")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "NAME" in proc.stderr


def _venv(root: Path) -> Path:
    """A venv without pip that sees the test venv's packages (and their .pth files, e.g. editable mirforge)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    (Path(site) / "_mirforge_parent.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    return python


def test_new_task_installs_generates_validates_and_passes_its_tests(tmp_path):
    pkg = tmp_path / "dot_count"
    proc = subprocess.run(
        [sys.executable, "-m", "mirforge", "new-task", "dot_count", "--category", "analytical", "--out", str(pkg)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (pkg / "mirforge_dot_count" / "templates" / "conclusion.j2").is_file()
    assert '"mirforge.tasks"' in (pkg / "pyproject.toml").read_text()

    python = _venv(tmp_path / "venv")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
    proc = subprocess.run([*install, "--no-build-isolation", "-e", str(pkg)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]

    def mirforge(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), "-m", "mirforge", *args], capture_output=True, text=True, timeout=300)

    listed = mirforge("tasks")
    assert listed.returncode == 0 and "dot_count" in listed.stdout and "analytical" in listed.stdout
    data = tmp_path / "data"
    proc = mirforge("generate", "--tasks", "dot_count", "--n", "6", "--seed", "2", "--out", str(data), "-q")
    assert proc.returncode == 0, proc.stderr
    proc = mirforge("validate", str(data))
    assert proc.returncode == 0 and "6 instances" in proc.stdout, proc.stderr
    proc = mirforge("show", "dot_count-test-000003", "--dataset", str(data), "--regenerate")
    assert proc.returncode == 0 and "byte-identical" in proc.stderr, proc.stderr
    proc = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(pkg / "tests")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=pkg,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    # the shared test environment does not see the plugin
    from mirforge.registry import available

    assert "dot_count" not in available()
