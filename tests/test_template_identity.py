"""Template contents are part of a split's resume identity: an edited template (the task's own, or one of a
``--templates DIR`` override) stops a resume with exit 2, unless ``--force-templates``, which records the new
hashes for the shards written after it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mirforge.errors import InputError
from mirforge.registry import load
from mirforge.runner.config import RunConfig
from mirforge.runner.run import open_manifest
from mirforge.templates.identity import template_hashes

from conftest import run_cli

OWN = Path(load("view_3d")(load("view_3d").Config()).template_dir())


def args(out: Path, templates: Path, *extra: str) -> list[str]:
    run = ["generate", "--tasks", "view_3d", "--n", "4", "--shard-size", "2", "--templates", str(templates)]
    return [*run, "--out", str(out), "-q", *extra]


@pytest.fixture
def templates(tmp_path) -> Path:
    folder = tmp_path / "templates" / "view_3d"
    folder.mkdir(parents=True)
    (folder / "summary.j2").write_text((OWN / "summary.j2").read_text())
    return tmp_path / "templates"


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_an_edited_override_stops_the_resume_and_force_records_the_new_set(tmp_path, templates, capsys):
    out = tmp_path / "data"
    assert run_cli(*args(out, templates)) == 0
    first = manifest(out)["splits"]["test"]
    assert set(first["template_files"][first["templates"]]) >= {"view_3d/summary.j2", "--templates/view_3d/summary.j2"}
    assert {e["templates"] for e in first["shards"].values()} == {first["templates"]}

    summary = templates / "view_3d" / "summary.j2"
    summary.write_text("Edited: " + summary.read_text())
    (out / first_shard(out)).unlink()  # one shard left to write, so a resume has work to do
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert run_cli(*args(out, templates)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--templates/view_3d/summary.j2" in err
    assert "new --out folder" in err and "--force-templates" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before

    assert run_cli(*args(out, templates, "--force-templates")) == 0
    split = manifest(out)["splits"]["test"]
    assert split["templates"] != first["templates"] and set(split["template_files"]) == {
        first["templates"],
        split["templates"],
    }
    by_shard = {path: entry["templates"] for path, entry in split["shards"].items()}
    assert by_shard[first_shard(out)] == split["templates"]  # rewritten with the new templates
    assert sorted(by_shard.values()) == sorted([first["templates"], split["templates"]])
    lines = (out / first_shard(out)).read_text().splitlines()
    assert all(json.loads(line)["summary"].startswith("Edited: ") for line in lines)
    # once forced, the new set is the split's: a plain rerun resumes again
    assert run_cli(*args(out, templates)) == 0


def first_shard(out: Path) -> str:
    return "instances/view_3d/test/shard-00000.jsonl"


def test_the_tasks_own_templates_are_hashed_too(tmp_path, monkeypatch):
    out = tmp_path / "data"
    config = RunConfig(tasks=("view_3d",), n=2)
    open_manifest(config, out).save()
    copy = tmp_path / "own"
    shutil.copytree(OWN, copy)
    task = type(config.task("view_3d"))
    monkeypatch.setattr(task, "template_dir", lambda self: copy)
    open_manifest(config, out)  # the same files in another folder: the same identity
    (copy / "conclusion.j2").write_text((copy / "conclusion.j2").read_text() + " ")
    with pytest.raises(InputError, match=r"step templates changed .*\(view_3d/conclusion\.j2\)"):
        open_manifest(config, out)
    open_manifest(config, out, force_templates=True)


def test_hashes_name_each_file_and_follow_its_bytes(tmp_path, templates):
    task = RunConfig(tasks=("view_3d",), n=1).task("view_3d")
    hashes = template_hashes([task], templates)
    assert {name for name in hashes if name.startswith("view_3d/")} == {f"view_3d/{p.name}" for p in OWN.glob("*.j2")}
    (templates / "view_3d" / "caption.j2").write_text("{{ i }}")
    added = template_hashes([task], templates)
    assert set(added) - set(hashes) == {"--templates/view_3d/caption.j2"}
