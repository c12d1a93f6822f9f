"""Run config files (YAML/TOML) for ``generate``, per-task counts, CLI overrides, ``--dry-run``, mir-scale.yaml."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mirforge import configfile
from mirforge.errors import InputError
from mirforge.registry import load
from mirforge.runner.plan import RunConfig, plan

CMD = [sys.executable, "-m", "mirforge", "generate"]
ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=600)


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
        "tasks": "yes_but,image_puzzle",
        "n": 3,
        "seed": 5,
        "shard_size": 2,
        "set": {"yes_but": {"max_tries": 40}},
    }
    assert configfile.load(yaml_file) == expected
    assert configfile.load(toml_file) == expected


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
        configfile.load(path)


def test_wrong_suffix_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="is not a file"):
        configfile.load(tmp_path / "none.yaml")
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(InputError, match=r"\.yaml, \.yml or \.toml"):
        configfile.load(tmp_path / "run.json")


def test_per_task_counts_plan_and_validate():
    config = RunConfig(tasks=("yes_but", "view_3d"), n={"yes_but": 5, "view_3d": 2}, shard_size=2)
    config.validate()
    assert [(s.task, s.start, s.stop) for s in plan(config)] == [
        ("yes_but", 0, 2),
        ("yes_but", 2, 4),
        ("yes_but", 4, 5),
        ("view_3d", 0, 2),
    ]
    assert RunConfig.from_json(json.loads(json.dumps(config.to_json()))) == config
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
    settings = configfile.load(ROOT / "configs" / "mir-scale.yaml")
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
