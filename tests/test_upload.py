"""--upload URL: every file of the dataset is also put to an fsspec URL, and a resume reads missing shards there."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from mirforge.runner import generate
from mirforge.runner.config import RunConfig

from test_runner import manifest, mirforge, tree

pytest.importorskip("fsspec")

CONFIG = RunConfig(tasks=("view_3d",), n=4, seed=11, shard_size=2)


@pytest.fixture(scope="module")
def uploaded(tmp_path_factory) -> tuple[Path, Path]:
    """A split generated into out/ with --upload file://.../remote."""
    root = tmp_path_factory.mktemp("upload")
    generate(CONFIG, root / "out", progress=False, upload=(root / "remote").as_uri())
    return root / "out", root / "remote"


def test_remote_copy_is_byte_identical_to_out(uploaded):
    out, remote = uploaded
    assert tree(remote) == tree(out)
    assert {"mir.json", "instances/view_3d/test/shard-00001.jsonl"} <= set(tree(remote))
    assert (remote / "manifest.json").read_bytes() == (out / "manifest.json").read_bytes()
    assert manifest(out)["splits"]["test"]["config"] == CONFIG.to_json()  # where the bytes go is not recorded
    assert str(remote) not in (out / "manifest.json").read_text()


def test_resume_reads_shards_missing_locally_from_the_upload(uploaded, tmp_path):
    out, remote = tmp_path / "out", tmp_path / "remote"
    shutil.copytree(uploaded[0], out)
    shutil.copytree(uploaded[1], remote)
    shutil.rmtree(out / "instances")  # as on a driver whose --out never saw the shards of other nodes
    shutil.rmtree(out / "images")
    summary = generate(CONFIG, out, progress=False, upload=remote.as_uri())
    assert (summary.shards_skipped, summary.shards_done) == (2, 0)
    assert (out / "mir.json").read_bytes() == (uploaded[0] / "mir.json").read_bytes()
    (remote / "images/view_3d/test/000003-0.png").unlink()  # shard 1 is now in neither place: it is made again
    summary = generate(CONFIG, out, progress=False, upload=remote.as_uri())
    assert (summary.shards_skipped, summary.shards_done) == (1, 1)
    assert tree(remote) == tree(uploaded[1])


@pytest.mark.parametrize(
    "upload, message",
    [
        ("nope://bucket/x", "--upload: unknown protocol 'nope'"),
        ("s3://bucket/x", "--upload: s3:// URLs need the s3fs package: pip install s3fs"),
        ("file:///proc/mirforge-upload", "--upload: cannot write to file:///proc/mirforge-upload"),
    ],
)
def test_bad_upload_url_is_exit_2_and_writes_nothing(tmp_path, upload, message):
    if upload.startswith("s3:") and importlib.util.find_spec("s3fs") is not None:
        pytest.skip("s3fs is installed")
    config = tmp_path / "run.yaml"  # the config file's upload: key, as well as the flag
    config.write_text(f"tasks: view_3d\nn: 2\nupload: {upload}\n")
    for args in (["--tasks", "view_3d", "--n", "2", "--upload", upload], ["--config", str(config)]):
        proc = mirforge("generate", *args, "--out", str(tmp_path / "never"), check=False)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "never").exists()


def test_ray_uploads_the_same_bytes(uploaded, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    remote = tmp_path / "remote"
    summary = generate(CONFIG, tmp_path / "out", workers=2, executor="ray", progress=False, upload=remote.as_uri())
    assert summary.shards_done == 2
    assert tree(remote) == tree(uploaded[1])
    assert manifest(remote) == manifest(uploaded[1])
