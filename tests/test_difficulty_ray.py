"""The difficulty filter over Ray (loopback only): the same sidecar bytes as a local run; clear errors otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from test_stages import make_dataset

from mirforge.curriculum.difficulty import SIDECAR, run_difficulty
from mirforge.errors import InputError
from mirforge.models.backend import Sampling
from mirforge.models.factory import make_backend

from scripted_backend import ScriptedBackend

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def cli(*args: str) -> int:
    from mirforge.cli import main

    argv = sys.argv
    sys.argv = ["mirforge", *args]
    try:
        main()
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.argv = argv
    return 0


@pytest.mark.slow
def test_ray_sidecar_is_byte_identical_to_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    pytest.importorskip("ray")
    pytest.importorskip("transformers")
    from mirforge.models.tiny import build_tiny_vlm

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    model = build_tiny_vlm(tmp_path / "tiny", "qwen2_vl", seed=0, image_px=56)
    dataset = make_dataset(tmp_path / "data", per_task=4)  # 8 records: 4 chunks of --batch-size 2
    common = ["difficulty", str(dataset), "--model", str(model), "-k", "3", "--max-new-tokens", "6"]
    common += ["--batch-size", "2", "--quiet"]
    assert cli(*common, "--out", str(tmp_path / "local.jsonl")) == 0, capsys.readouterr().err
    local = (tmp_path / "local.jsonl").read_bytes()
    lines = local.splitlines(keepends=True)
    assert len(lines) == 8
    # a run killed after its first chunk: Ray resumes it and the file ends up the same as the local one
    (tmp_path / "ray.jsonl").write_bytes(b"".join(lines[:2]))
    ray_args = ["--executor", "ray", "--workers", "2", "--out", str(tmp_path / "ray.jsonl")]
    assert cli(*common, *ray_args) == 0, capsys.readouterr().err
    assert "6 measured, 2 already in" in capsys.readouterr().out
    assert (tmp_path / "ray.jsonl").read_bytes() == local


def test_ray_refuses_a_remote_backend(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=2)
    args = ["difficulty", str(dataset), "--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    assert cli(*args, "--executor", "ray", "--workers", "2") == 2
    assert not (dataset / ".cache").exists()  # refused before any client or cache was made
    openai_like = ScriptedBackend(lambda q, j: "A")
    openai_like.name = "openai"
    with pytest.raises(InputError, match="--executor ray needs a local model backend"):
        run_difficulty(dataset, openai_like, Sampling(k=1), executor="ray", progress=False)
    assert not (dataset / SIDECAR).exists()


def test_executor_flags_and_missing_ray(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    dataset = make_dataset(tmp_path / "data", per_task=2)
    backend = ScriptedBackend(lambda q, j: "A")
    with pytest.raises(InputError, match="--executor"):
        run_difficulty(dataset, backend, Sampling(k=1), executor="dask", progress=False)
    with pytest.raises(InputError, match="--workers.*--executor ray"):
        run_difficulty(dataset, backend, Sampling(k=1), workers=2, progress=False)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InputError, match=r"\[ray\] extra"):
        run_difficulty(dataset, backend, Sampling(k=1), executor="ray", progress=False)
    assert not (dataset / SIDECAR).exists()
    if "transformers" in sys.modules or _has("transformers"):
        with pytest.raises(InputError, match="config.json"):  # a lazy local model is still checked up front
            make_backend("transformers", str(tmp_path / "nowhere"), lazy=True)
    assert cli("difficulty", str(dataset), "--model", "m", "--executor", "ray", "--workers", "2") == 2
    assert "[ray] extra" in capsys.readouterr().err


def _has(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
