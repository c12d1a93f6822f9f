"""The Ray executor on this machine only: byte-identical to the local executor."""

from __future__ import annotations

import pytest

from mirforge.runner import generate
from mirforge.runner.config import RunConfig

from test_runner import manifest, tree

pytest.importorskip("ray")


def test_ray_matches_local_executor(tmp_path, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    config = RunConfig(tasks=("view_3d",), n=4, seed=11, shard_size=2)
    generate(config, tmp_path / "local", workers=2, progress=False)
    summary = generate(config, tmp_path / "ray", workers=2, executor="ray", progress=False)
    assert summary.instances == 4 and summary.shards_done == 2
    assert tree(tmp_path / "ray") == tree(tmp_path / "local")
    assert manifest(tmp_path / "ray") == manifest(tmp_path / "local")


def test_resource_requests_follow_the_plugin(monkeypatch):
    from mirforge.registry import load
    from mirforge.runner.ray_executor import resources
    from mirforge.task import Needs

    cls = load("yes_but")
    config = RunConfig(tasks=("yes_but",), n=1)
    monkeypatch.setattr(cls, "needs", Needs(renderer=None, cpus=0.5, realism=True))
    assert resources("yes_but", config, cluster_has_gpus=True) == {"num_cpus": 0.5, "num_gpus": 0}
    realism = RunConfig(tasks=("yes_but",), n=1, realism={"pipeline": "diffusion"})
    assert resources("yes_but", realism, cluster_has_gpus=True) == {"num_cpus": 0.5, "num_gpus": 1}
    assert resources("yes_but", realism, cluster_has_gpus=False) == {"num_cpus": 0.5, "num_gpus": 0}
    with pytest.raises(ValueError, match="Needs.cpus"):
        Needs(cpus=0)
