"""``generate``'s input, normalised once: config files (YAML/TOML), CLI overrides, the one option table, task
lists, ``--set``, per-task counts, ``--dry-run``, mir-scale.yaml, and the effective task config as identity."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mirforge.errors import InputError
from mirforge.registry import available, load, task_list
from mirforge.runner.config import RunConfig
from mirforge.runner.options import FILE_KEYS, OPTIONS, load_file, parse_sets
from mirforge.runner.plan import plan

CMD = [sys.executable, "-m", "mirforge", "generate"]
ROOT = Path(__file__).resolve().parents[1]


def run(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *map(str, args)], capture_output=True, text=True, timeout=600)


def test_yaml_and_toml_give_the_same_settings(tmp_path):
    yaml_file = tmp_path / "run.yaml"
    yaml_file.write_text(
        "tasks: [yes_but, image_puzzle]\nn: 3\nseed: 5\nshard-size: 2\nset:\n  yes_but: {max_tries: 40}\n"
    )
    toml_file = tmp_path / "run.toml"
    toml_file.write_text(
        'tasks = ["yes_but", "image_puzzle"]\nn = 3\nseed = 5\nshard_size = 2\n[set.yes_but]\nmax_tries = 40\n'
    )
    expected = {
        "tasks": ["yes_but", "image_puzzle"],
        "n": 3,
        "seed": 5,
        "shard_size": 2,
        "set": {"yes_but": {"max_tries": 40}},
    }
    assert load_file(yaml_file) == expected
    assert load_file(toml_file) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("tasks: view_3d\nnn: 3\n", "unknown key 'nn'"),
        ("seed: seven\n", "seed must be an integer"),
        ("n: {view_3d: 0}\n", "n.view_3d must be a positive integer"),
        ("set: [view_3d.max_tries]\n", "TASK.FIELD=VALUE"),
        ("- a\n- b\n", "must hold a mapping"),
        ("tasks: [\n", "not valid YAML"),
    ],
)
def test_bad_files_name_the_key(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_file(path)


def test_wrong_suffix_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="is not a file"):
        load_file(tmp_path / "none.yaml")
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(InputError, match=r"\.yaml, \.yml or \.toml"):
        load_file(tmp_path / "run.json")


def test_per_task_counts_plan_and_validate():
    config = RunConfig(tasks=("yes_but", "view_3d"), n={"yes_but": 5, "view_3d": 2}, shard_size=2)
    config.validate()
    assert [(s.task, s.start, s.stop) for s in plan(config)] == [
        ("yes_but", 0, 2),
        ("yes_but", 2, 4),
        ("yes_but", 4, 5),
        ("view_3d", 0, 2),
    ]
    assert RunConfig.from_json(json.loads(json.dumps(config.to_json()))).to_json() == config.to_json()
    with pytest.raises(InputError, match="no count for view_3d"):
        RunConfig(tasks=("yes_but", "view_3d"), n={"yes_but": 5}).validate()
    with pytest.raises(InputError, match="n.yes_but"):
        RunConfig(tasks=("yes_but",), n={"yes_but": 0}).validate()
    with pytest.raises(InputError, match="--n"):
        RunConfig(tasks=("yes_but",), n=0).validate()


def test_the_file_drives_generate_and_flags_override_it(tmp_path):
    path = tmp_path / "run.yaml"
    out = tmp_path / "data"
    path.write_text(f"n: {{yes_but: 2, image_puzzle: 1}}\nseed: 5\nout: {out}\nquiet: true\nshard_size: 1\n")
    proc = run("--config", str(path), "--seed", "8")
    assert proc.returncode == 0, proc.stderr
    config = json.loads((out / "manifest.json").read_text())["splits"]["test"]["config"]
    assert config["n"] == {"yes_but": 2, "image_puzzle": 1}
    assert config["tasks"] == ["yes_but", "image_puzzle"]
    assert config["seed"] == 8 and config["shard_size"] == 1
    assert len(list((out / "instances").rglob("*.jsonl"))) == 3


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path):
    out = tmp_path / "never"
    proc = run("--tasks", "yes_but,view_3d", "--n", "7", "--shard-size", "3", "--out", str(out), "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert not out.exists()
    lines = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line.strip()}
    assert lines["yes_but"][2:4] == ["7", "3"]  # instances, shards
    assert float(lines["view_3d"][5]) == 6.0  # images per instance, from sampled questions
    assert "nothing was written" in proc.stdout


def test_mir_scale_config_matches_the_paper_figure():
    settings = load_file(ROOT / "configs" / "mir-scale.yaml")
    counts = settings["n"]
    assert len(counts) == 12 and sum(counts.values()) == 22_626
    per_category: dict[str, list[int]] = {}
    for task, n in counts.items():
        per_category.setdefault(load(task).category, []).append(n)
    assert {c: sum(v) for c, v in per_category.items()} == {"sequential": 5455, "spatial": 9350, "analytical": 7821}
    assert all(max(v) - min(v) <= 1 for v in per_category.values())  # spread evenly


def test_mir_scale_dry_run_and_subset(tmp_path):
    proc = run("--config", str(ROOT / "configs" / "mir-scale.yaml"), "--dry-run", "--tasks", "yes_but,view_3d")
    assert proc.returncode == 0, proc.stderr
    assert "yes_but" in proc.stdout and "1955" in proc.stdout and "2337" in proc.stdout
    assert "chart_analysis" not in proc.stdout


def test_missing_required_options_are_usage_errors(tmp_path):
    proc = run("--n", "2", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "--tasks: required" in proc.stderr
    proc = run("--tasks", "yes_but", "--n", "2")
    assert proc.returncode == 2 and "--out: required" in proc.stderr


def test_one_table_declares_the_flags_and_the_file_keys():
    import typer

    from mirforge.cli import app

    command = next(c for c in typer.main.get_command(app).commands.values() if c.name == "generate")
    params = {p.name: p for p in command.params}
    assert set(params) == {o.name for o in OPTIONS}
    for option in OPTIONS:
        assert params[option.name].default == option.default, option.name
        assert params[option.name].multiple == option.many, option.name
    assert set(FILE_KEYS) == {o.name for o in OPTIONS} - {
        "config",
        "dry_run",
        "force_templates",
        "allow_insecure_endpoint",
    }


def test_flags_and_file_give_the_same_config(tmp_path):
    """The same settings as flags, as a file, and as a file under overriding flags: one config."""
    (tmp_path / "run.yaml").write_text(
        "tasks: [yes_but, image_puzzle]\nn: 3\nseed: 5\nset: [yes_but.max_tries=40]\nshard-size: 2\n"
    )
    by_flags, _ = RunConfig.from_options(
        {
            "tasks": "yes_but, image_puzzle",
            "n": 3,
            "seed": 5,
            "set": ["yes_but.max_tries=40"],
            "shard_size": 2,
            "out": tmp_path / "o",
        },
    )
    by_file, _ = RunConfig.from_options({"config": tmp_path / "run.yaml", "out": tmp_path / "o"}, given={"config"})
    both, execution = RunConfig.from_options(
        {"config": tmp_path / "run.yaml", "seed": 5, "set": ["yes_but.max_tries=40"], "workers": 2, "dry_run": True},
        given={"config", "seed", "set", "workers", "dry_run"},
    )
    assert by_flags.to_json() == by_file.to_json() == both.to_json()
    assert by_flags.to_json()["task_config"]["yes_but"]["max_tries"] == 40
    assert execution.workers == 2 and execution.dry_run and execution.out is None


def test_set_is_parsed_once_for_flags_and_files(tmp_path):
    assert parse_sets(["view_3d.max_tries=5", "view_3d.objects_per_level=2,3,4", "yes_but.n_options=3"]) == {
        "view_3d": {"max_tries": "5", "objects_per_level": "2,3,4"},
        "yes_but": {"n_options": "3"},
    }
    with pytest.raises(InputError, match="--set: 'view_3d.max_tries' must look like TASK.FIELD=VALUE"):
        parse_sets(["view_3d.max_tries"])
    path = tmp_path / "run.yaml"
    path.write_text("set: [view_3d.max_tries=5]\n")
    assert load_file(path)["set"] == {"view_3d": {"max_tries": "5"}}
    path.write_text("set: [view_3d]\n")
    with pytest.raises(InputError, match=r"run.yaml: set: 'view_3d' must look like TASK.FIELD=VALUE"):
        load_file(path)


def test_one_task_list_parser():
    known = list(available())
    assert task_list(" view_3d , yes_but,", known) == ["view_3d", "yes_but"]
    assert task_list(["view_3d ", " yes_but"], known) == ["view_3d", "yes_but"]
    assert task_list(" all ", known) == known
    assert (
        task_list("view_3d", None) == ["view_3d"] and task_list("all", None) is None and task_list(None, None) is None
    )
    with pytest.raises(InputError) as error:
        task_list("view_3d, nope", known)
    assert str(error.value) == f"--tasks: unknown task 'nope'; known tasks: {', '.join(known)}"
    with pytest.raises(InputError, match="--tasks: view_3d named twice"):
        task_list("view_3d, view_3d", None)
    with pytest.raises(InputError, match="give at least one task name"):
        task_list(" , ", known)


def test_task_lists_with_spaces_on_the_command_line(tmp_path):
    proc = run("--tasks", " yes_but , view_3d ", "--n", "2", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()[2:4]] == ["yes_but", "view_3d"]
    from conftest import run_cli, written

    data = written(tmp_path / "data", RunConfig(tasks=("yes_but", "image_puzzle"), n=2, seed=1))
    assert run_cli("stats", str(data), "--tasks", " yes_but ", "--json") == 0
    assert run_cli("stats", str(data), "--tasks", "yes_but,nope", "--json") == 2


def read_config(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())["splits"]["test"]["config"]


def test_the_manifest_records_the_effective_task_config(tmp_path):
    out = tmp_path / "data"
    proc = run(
        "--tasks", "chart_analysis", "--n", "2", "--set", "chart_analysis.periods_per_level=2,3,4", "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    fields = dataclasses.asdict(load("chart_analysis").Config())
    recorded = read_config(out)["task_config"]["chart_analysis"]
    assert set(recorded) == set(fields)
    assert recorded == {**json.loads(json.dumps(fields)), "periods_per_level": [2, 3, 4]}


def test_an_explicit_default_resumes_and_a_different_value_is_refused(tmp_path):
    out = tmp_path / "data"
    args = ("--tasks", "chart_analysis", "--n", "2", "--shard-size", "1", "--seed", "4", "--out", str(out))
    assert run(*args, "-q").returncode == 0
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and p.name != "manifest.json"}
    default = load("chart_analysis").Config().max_tries
    proc = run(*args, "--set", f"chart_analysis.max_tries={default}")
    assert proc.returncode == 0, proc.stderr
    assert "2 complete shards skipped" in proc.stdout
    (tmp_path / "run.toml").write_text(f"[set.chart_analysis]\nmax_tries = {default}\n")
    proc = run(*args, "--config", str(tmp_path / "run.toml"))
    assert proc.returncode == 0 and "2 complete shards skipped" in proc.stdout, proc.stderr
    proc = run(*args, "--set", f"chart_analysis.max_tries={default + 1}")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"error: --out: split 'test' in {out} was generated with a different config (task_config differ); "
        "use a new --out folder or another --split"
    )
    assert {p: p.read_bytes() for p in before} == before


def test_an_old_manifest_with_raw_set_strings_still_resumes(tmp_path):
    """Manifests before the effective task config recorded the --set strings as given."""
    out = tmp_path / "data"
    args = ("--tasks", "chart_analysis,yes_but", "--n", "1", "--out", str(out))
    assert run(*args, "--set", "chart_analysis.max_tries=30", "-q").returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["splits"]["test"]["config"]["task_config"] = {"chart_analysis": {"max_tries": "30"}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    proc = run(*args)  # the same config as the raw strings, given another way
    assert proc.returncode == 0 and "2 complete shards skipped" in proc.stdout, proc.stderr
    assert read_config(out)["task_config"]["chart_analysis"]["max_tries"] == 30  # upgraded in place
    manifest["splits"]["test"]["config"]["task_config"] = {"chart_analysis": {"max_tries": "12"}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    proc = run(*args)
    assert proc.returncode == 2 and "different config (task_config differ)" in proc.stderr
