"""End to end through the CLI: byte-identical reruns, worker counts, SIGKILL and resume, bad input."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import pytest

CMD = [sys.executable, "-m", "mirforge"]
ARGS = ["generate", "--tasks", "view_3d", "--n", "6", "--seed", "5", "--shard-size", "2", "-q"]


def mirforge(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"mirforge {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def tree(root: Path) -> dict[str, str]:
    """Digest of every file but the manifest, whose timestamps and host legitimately differ."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "manifest.json"
    }


def manifest(root: Path) -> dict:
    data = json.loads((root / "manifest.json").read_text())
    for key in ("created", "updated", "host"):
        data.pop(key)
    return data


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "data"
    mirforge(*ARGS, "--workers", "2", "--out", str(out))
    return out


def test_reference_validates(reference):
    proc = mirforge("validate", str(reference))
    assert "6 instances in 3 shards are valid" in proc.stdout
    assert len(json.loads((reference / "mir.json").read_text())) == 6
    assert len(list((reference / "images").rglob("*.png"))) == 36


def test_one_worker_gives_the_same_bytes(reference, tmp_path):
    out = tmp_path / "one"
    mirforge(*ARGS, "--workers", "1", "--out", str(out))
    assert tree(out) == tree(reference)
    assert manifest(out) == manifest(reference)


def test_rerun_skips_complete_shards_and_redoes_damaged_ones(reference, tmp_path):
    out = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(reference), str(out)], check=True)
    proc = mirforge(*ARGS[:-1], "--out", str(out))
    assert "3 complete shards skipped" in proc.stdout
    image = next((out / "images").rglob("000003-2.png"))
    image.unlink()  # damage one shard: it is no longer complete, and only it is redone
    proc = mirforge(*ARGS[:-1], "--out", str(out))
    assert "2 complete shards skipped" in proc.stdout
    assert tree(out) == tree(reference)


def test_sigkill_then_resume_is_byte_identical(reference, tmp_path):
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [*CMD, *ARGS, "--workers", "1", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline:  # kill once the first shard is recorded, mid-way through the second
        try:
            if json.loads((out / "manifest.json").read_text())["splits"]["test"]["shards"]:
                break
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            pass
        time.sleep(0.05)
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for path in out.rglob("*"):  # nothing half-written under a final name
        if path.is_file() and ".tmp-" not in path.name:
            if path.suffix == ".png":
                assert cv2.imread(str(path)) is not None, path
            elif path.suffix in (".json", ".jsonl"):
                for line in path.read_text().splitlines():
                    json.loads(line) if path.suffix == ".jsonl" else None
                if path.suffix == ".json":
                    json.loads(path.read_text())
    mirforge(*ARGS, "--workers", "2", "--out", str(out))
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    assert tree(out) == tree(reference)
    assert manifest(out) == manifest(reference)


def test_show_regenerates_an_instance_byte_identically(reference):
    proc = mirforge("show", "view_3d-test-000004", "--dataset", str(reference), "--regenerate")
    assert json.loads(proc.stdout)["id"] == "view_3d-test-000004"
    assert "byte-identical" in proc.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--tasks", "nope", "--n", "2"], "--tasks: unknown task 'nope'"),
        (["--tasks", "view_3d", "--n", "-3"], "--n: must be a positive count"),
        (["--tasks", "view_3d", "--n", "2", "--set", "view_3d.max_tries=lots"], "view_3d.max_tries: expected int"),
        (
            ["--tasks", "view_3d", "--n", "2", "--set", "view_3d.objects_per_level=2,3,40"],
            "view_3d.objects_per_level: each count must be between 2 and 6",
        ),
        (["--tasks", "view_3d", "--n", "2", "--workers", "0"], "--workers: must be at least 1"),
        (["--tasks", "view_3d", "--n", "2", "--address", "auto"], "--address: a Ray cluster address needs --executor"),
        (
            ["--tasks", "view_3d", "--n", "2", "--set", "view_3d.instance_timeout=0"],
            "view_3d.instance_timeout: must be seconds in (0, 86400]",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "never"
    proc = mirforge("generate", *args, "--out", str(out), check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {proc.stderr.strip()[7:]}"]
    assert message in proc.stderr
    assert not out.exists()


def test_unwritable_output_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out, message in [(blocker / "sub", "is not a folder"), (Path("/proc/mirforge-out"), "not writable")]:
        proc = mirforge("generate", "--tasks", "view_3d", "--n", "2", "--out", str(out), check=False)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_resume_with_another_config_is_refused(reference, tmp_path):
    out = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(reference), str(out)], check=True)
    before = tree(out)
    proc = mirforge(
        "generate", "--tasks", "view_3d", "--n", "6", "--seed", "6", "--shard-size", "2", "--out", str(out), check=False
    )
    assert proc.returncode == 2 and "different config (seed differ)" in proc.stderr
    assert tree(out) == before


def test_validate_reports_corruption(reference, tmp_path):
    out = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(reference), str(out)], check=True)
    shard = out / "instances/view_3d/test/shard-00001.jsonl"
    lines = shard.read_text().splitlines()
    shard.write_text(lines[0][:50] + "\n" + lines[1] + "\n")
    next((out / "images").rglob("000000-1.png")).unlink()
    proc = mirforge("validate", str(out), check=False)
    assert proc.returncode == 2
    assert "shard-00001.jsonl: checksum differs" in proc.stderr
    assert "shard-00001.jsonl:1: not valid JSON" in proc.stderr
    assert "images/view_3d/test/000000-1.png does not exist" in proc.stderr


def test_keep_video_writes_playable_clips(tmp_path):
    out = tmp_path / "vid"
    mirforge(
        "generate", "--tasks", "motion_detection", "--n", "2", "--seed", "1", "--keep-video", "-q", "--out", str(out)
    )
    clips = sorted((out / "videos" / "motion_detection" / "test").glob("*.mp4"))
    assert [c.name for c in clips] == ["000000-0.mp4", "000001-0.mp4"]
    from moviepy import VideoFileClip

    for clip in clips:
        cap = cv2.VideoCapture(str(clip))
        ok, frame = cap.read()
        count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        cap.release()
        assert ok and frame.ndim == 3 and count > 3
        with VideoFileClip(str(clip)) as video:
            assert video.duration > 0 and video.get_frame(0).shape == frame.shape
    without = tmp_path / "novid"
    mirforge("generate", "--tasks", "motion_detection", "--n", "2", "--seed", "1", "-q", "--out", str(without))
    assert not (without / "videos").exists()
    assert tree(without) == {k: v for k, v in tree(out).items() if not k.startswith("videos/")}


def test_contact_sheet(reference, tmp_path):
    out = tmp_path / "sheet.png"
    mirforge("contact", str(reference), "--task", "view_3d", "--out", str(out), "--count", "2")
    sheet = cv2.imread(str(out))
    assert sheet is not None and sheet.shape[0] > 2 * 150  # two rows of thumbnails with their text
    # every image is shown: an instance with more images than fit on a line gets a second line of thumbnails
    from mirforge.contact import LINE_H, THUMB, contact_sheet

    six = contact_sheet(reference, "view_3d", count=1)
    assert contact_sheet(reference, "view_3d", count=1, per_line=4).shape[0] >= six.shape[0] + THUMB
    proc = mirforge("contact", str(reference), "--task", "yes_but", "--out", str(out), check=False)
    assert proc.returncode == 2 and "no instances of yes_but" in proc.stderr
    # the whole question is shown, however long: the text strip grows with it
    longer = tmp_path / "longer"
    shutil.copytree(reference, longer)
    shard = sorted((longer / "instances" / "view_3d").rglob("*.jsonl"))[0]
    records = [json.loads(line) for line in shard.read_text().splitlines()]
    records[0]["question"] += " Look again." * 60
    shard.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert contact_sheet(longer, "view_3d", count=1).shape[0] >= six.shape[0] + 5 * LINE_H


def test_the_renderer_travels_in_the_run_spec_and_show_reads_it_from_the_manifest(tmp_path):
    out = tmp_path / "pyr"
    mirforge(*ARGS[:3], "--n", "2", "--seed", "5", "--renderer", "pyrender", "-q", "--out", str(out))
    records = [json.loads(line) for line in next((out / "instances").rglob("*.jsonl")).read_text().splitlines()]
    assert {r["provenance"]["renderer"] for r in records} == {"pyrender/egl"}
    assert json.loads((out / "manifest.json").read_text())["splits"]["test"]["config"]["renderer"] == "pyrender"
    # a fresh process, with no --renderer: the manifest says pyrender, and the regenerated bytes agree
    proc = mirforge("show", "view_3d-test-000001", "--dataset", str(out), "--regenerate")
    assert "byte-identical" in proc.stderr
    moderngl = tmp_path / "mgl"
    mirforge(*ARGS[:3], "--n", "2", "--seed", "5", "-q", "--out", str(moderngl))
    assert {json.loads(line)["provenance"]["renderer"] for line in next(moderngl.rglob("*.jsonl")).open()} == {
        "moderngl/egl"
    }
    assert tree(out)["images/view_3d/test/000000-0.png"] != tree(moderngl)["images/view_3d/test/000000-0.png"]


def test_needs_says_whether_a_task_draws_through_gl_not_which_backend():
    from mirforge.registry import load
    from mirforge.task import Needs

    assert load("view_3d").needs.renderer == "gl" and load("yes_but").needs.renderer is None
    with pytest.raises(ValueError, match='Needs.renderer must be "gl"'):
        Needs(renderer="pyrender")


def test_costliest_shards_are_scheduled_first():
    from mirforge.registry import load
    from mirforge.runner.config import RunConfig
    from mirforge.runner.plan import plan, schedule

    config = RunConfig(tasks=("yes_but", "speed_comparison", "image_puzzle"), n=5, shard_size=2)
    shards = plan(config)
    order = schedule(shards)
    assert sorted(order, key=shards.index) == shards  # the same shards, only reordered
    costs = [load(s.task).needs.cost * len(s) for s in order]
    assert costs == sorted(costs, reverse=True) and order[0].task == "speed_comparison"


def test_the_summary_counts_the_rejections_the_manifest_records(tmp_path):
    from mirforge.runner import generate
    from mirforge.runner.config import RunConfig

    config = RunConfig(tasks=("yes_but",), n=8, seed=0, shard_size=4)
    summary = generate(config, tmp_path / "data", workers=1, progress=False)
    shards = manifest(tmp_path / "data")["splits"]["test"]["shards"].values()
    recorded = sum(sum(entry["rejections"].values()) for entry in shards)
    assert recorded > 0  # yes_but refuses option windows that leave its range: this run has some to count
    assert summary.rejected == recorded
