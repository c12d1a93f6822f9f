"""Bad input to ``mirforge``: one line on stderr naming the field, exit 2, within 2 s, and the output folder left
as it was. Each case is a command line run in this process (as the console script runs it) against a dataset folder
that is either new or a copy of a real one with its manifest bent."""

from __future__ import annotations

import ast
import json
import resource
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mirforge.dataset.layout import check_split
from mirforge.errors import InputError

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
GEN = ["generate", "--tasks", "view_3d", "-q"]
BOMB = "tasks: view_3d\nn: 1\nset:\n  view_3d:\n    a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"    a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)
)


def manifest_edit(edit: Callable[[dict], None]) -> Callable[[Path], None]:
    def bend(out: Path) -> None:
        path = out / "manifest.json"
        data = json.loads(path.read_text())
        edit(data)
        path.write_text(json.dumps(data))

    return bend


def split_of(data: dict) -> dict:
    return data["splits"]["test"]


# (id, existing folder bent by this function or None for a new one, files to write, args, the field the message names)
CASES = [
    ("non-utf8-yaml", None, {"c.yaml": b"tasks: view_3d\nn: 2\n\xff\xfe\n"}, ["--config", "{c.yaml}"], "--config"),
    ("non-utf8-toml", None, {"c.toml": b'tasks = "view_3d"\nn = 1\n\xff'}, ["--config", "{c.toml}"], "--config"),
    ("max-tries-inf", None, {"c.yaml": b"tasks: view_3d\nn: 1\nset: {view_3d: {max_tries: .inf}}\n"},
     ["--config", "{c.yaml}"], "view_3d.max_tries"),
    ("max-tries-1e400", None, {}, ["--n", "1", "--set", "view_3d.max_tries=1e400"], "view_3d.max_tries"),
    ("unknown-kind", None, {}, ["--tasks", "depth_relationship", "--n", "1", "--set",
     "depth_relationship.kinds=mug,spaceship"], "depth_relationship.kinds: unknown name 'spaceship'; valid names: "),
    ("unknown-material", None, {}, ["--tasks", "location_relationship", "--n", "1", "--set",
     "location_relationship.materials=unobtainium"], "location_relationship.materials: unknown name 'unobtainium'"),
    ("unknown-backdrop", None, {}, ["--tasks", "depth_relationship", "--n", "1", "--set",
     "depth_relationship.backdrops=lava"], "backdrops: unknown name 'lava'; valid names: studio, wood, tiles"),
    ("too-few-kinds", None, {}, ["--tasks", "depth_relationship", "--n", "1", "--set",
     "depth_relationship.kinds=mug,can"], "family tabletop keeps 2 kinds (mug, can) where its scenes need 9"),
    ("alias-bomb", None, {"c.yaml": BOMB.encode()}, ["--config", "{c.yaml}"], "--config"),
    ("repeated-key", None, {"c.yaml": b"tasks: view_3d\nn: 1\nn: 2\n"}, ["--config", "{c.yaml}"], "'n' repeated"),
    ("split-300", None, {}, ["--n", "1", "--split", "s" * 300], "--split"),
    ("split-dotdot", None, {}, ["--n", "1", "--split", ".."], "--split"),
    ("split-slash", None, {}, ["--n", "1", "--split", "a/b"], "--split"),
    ("n-1e9", None, {}, ["--n", str(10**9)], "--n"),
    ("n-per-task-1e11", None, {"c.yaml": b"n: {view_3d: 100000000000}\n"}, ["--config", "{c.yaml}"], "n.view_3d"),
    ("too-many-shards", None, {}, ["--n", str(10**7), "--shard-size", "1"], "--shard-size"),
    ("n-not-a-number", None, {}, ["--n", "many"], "--n"),
    ("unknown-flag", None, {}, ["--n", "1", "--colour"], "--colour"),
    ("base-url-not-a-url", None, {}, ["--n", "1", "--rewriter", "openai", "--model", "m", "--base-url", "not a url"],
     "--base-url"),
    ("base-url-plain-http", None, {},
     ["--n", "1", "--rewriter", "openai", "--model", "m", "--base-url", "http://10.1.2.3:8000/v1"], "--base-url"),
    ("rewrite-length-cap-half", None, {},
     ["--n", "1", "--rewriter", "openai", "--model", "m", "--rewrite-length-cap", "0.5"], "--rewrite-length-cap"),
    ("rewrite-timeout-zero", None, {}, ["--n", "1", "--rewriter", "openai", "--model", "m", "--rewrite-timeout", "0"],
     "--rewrite-timeout"),
    ("manifest-splits-list", manifest_edit(lambda d: d.update(splits=[])), {}, ["--n", "2"], "'splits'"),
    ("manifest-config-null", manifest_edit(lambda d: split_of(d).update(config=None)), {}, ["--n", "2"],
     "splits['test'].config"),
    ("manifest-split-null", manifest_edit(lambda d: d["splits"].update(test=None)), {}, ["--n", "2"],
     "splits['test']"),
    ("manifest-shards-missing", manifest_edit(lambda d: split_of(d).pop("shards")), {}, ["--n", "2"],
     "splits['test'].shards"),
    ("manifest-task-config-null", manifest_edit(lambda d: split_of(d)["config"].update(task_config=None)), {},
     ["--n", "2"], "task_config"),
    ("manifest-deep-nesting", lambda out: (out / "manifest.json").write_text("[" * 100_000 + "]" * 100_000), {},
     ["--n", "2"], "manifest.json"),
]  # fmt: skip


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A real two-instance dataset folder (view_3d, split test)."""
    out = tmp_path_factory.mktemp("made") / "data"
    assert run_cli(*GEN, "--n", "2", "--out", str(out)) == 0
    return out


def snapshot(folder: Path) -> dict[str, bytes] | None:
    if not folder.exists():
        return None
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("bend", "files", "args", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_within_2s_leaving_the_folder_as_it_was(
    made, tmp_path, capsys, bend, files, args, field
):
    out = tmp_path / "data"
    if bend is not None:
        shutil.copytree(made, out)
        bend(out)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    args = [str(tmp_path / a[1:-1]) if a.startswith("{") else a for a in args]  # "{c.yaml}": the file written
    before = snapshot(out)
    capsys.readouterr()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    code = run_cli(*GEN, "--out", str(out), *args)
    elapsed = time.perf_counter() - t0
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert field in lines[0], lines[0]
    assert elapsed < 2.0, f"{elapsed:.2f} s"
    assert grown_mb < 100, f"peak memory grew by {grown_mb:.0f} MB"
    assert snapshot(out) == before, "the output folder changed"


def test_a_user_template_failing_mid_run_leaves_a_new_folder_as_it_was(tmp_path, capsys):
    templates = tmp_path / "templates" / "view_3d"
    templates.mkdir(parents=True)
    (templates / "summary.j2").write_text("{{ no_such_fact }}\n")  # compiles; fails on the first instance
    out = tmp_path / "new" / "data"
    code = run_cli(*GEN, "--n", "2", "--templates", str(tmp_path / "templates"), "--out", str(out))
    err = capsys.readouterr().err
    assert code == 2 and "summary.j2" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "new").exists()


def test_a_config_file_is_read_without_aliases_or_repeated_keys(tmp_path):
    from mirforge.runner.options import load_file

    path = tmp_path / "run.yaml"
    path.write_text("tasks: view_3d\nn: 3\nset:\n  view_3d: {max_tries: 7}\n")
    assert load_file(path) == {"tasks": "view_3d", "n": 3, "set": {"view_3d": {"max_tries": 7}}}
    path.write_text("tasks: &t view_3d\nn: 3\nsplit: *t\n")
    with pytest.raises(InputError, match=r"line 3: YAML aliases"):
        load_file(path)


# ------------------------------------------------------------------------------------------------ split names


@pytest.mark.parametrize("name", ["test", "val_2", "my-split", "A" * 64, "0"])
def test_split_names_are_letters_digits_underscore_and_dash(name):
    assert check_split(name) == name


@pytest.mark.parametrize("name", ["", "..", ".", "a.b", "a/b", "a b", "s" * 65, "tést", "a\nb", "-" * 65])
def test_other_split_names_are_refused_in_one_line(name):
    with pytest.raises(InputError, match=r"^--split: .* is not a split name; use 1-64 letters") as caught:
        check_split(name)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "command",
    [
        ["generate", "--tasks", "view_3d", "--n", "1", "--out", "{out}", "--split"],
        ["generate", "--tasks", "view_3d", "--n", "1", "--out", "{out}", "--dry-run", "--split"],
        ["eval", "--data", "{data}", "--model", "m", "--split"],
        ["eval", "--text-baseline", "--train", "{data}", "--data", "{data}", "--train-split"],
        ["audit", "{data}", "--split"],
        ["export", "lmms-eval", "{data}", "{out}", "--split"],
        ["export", "vlmevalkit", "{data}", "{out}/x.tsv", "--split"],
    ],
    ids=["generate", "generate-dry-run", "eval", "eval-train-split", "audit", "export-lmms-eval", "export-vlmevalkit"],
)
@pytest.mark.parametrize("name", ["..", "v1.0", "x" * 65])
def test_every_command_that_takes_a_split_refuses_a_bad_name(made, tmp_path, capsys, command, name):
    out = tmp_path / "out"
    args = [a.format(data=made, out=out) for a in command]
    code = run_cli(*args, name)
    err = capsys.readouterr().err
    flag = args[-1]
    assert code == 2 and err.startswith(f"error: {flag}: ") and "is not a split name" in err, err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_dash_in_a_split_name_is_generated_and_validated(tmp_path, capsys):
    out = tmp_path / "data"
    assert run_cli(*GEN, "--n", "1", "--split", "val-2", "--out", str(out)) == 0
    assert (out / "instances" / "view_3d" / "val-2" / "shard-00000.jsonl").is_file()
    assert run_cli("validate", str(out)) == 0, capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- one-line messages


def test_no_input_error_message_is_written_on_several_lines():
    """Every ``InputError(...)`` in mirforge's source: no literal part of its message holds a line break."""
    offenders = []
    for path in sorted((ROOT / "mirforge").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "InputError":
                for part in ast.walk(node):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str) and "\n" in part.value:
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_usage_errors_are_one_line(capsys):
    for args in (["generate", "--n", "abc"], ["validate"], ["no-such-command"], ["generate", "--bogus"]):
        assert run_cli(*args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and "--help" in err[0], err
