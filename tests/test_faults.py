"""A task plugin that misbehaves: its failure is one line naming it, a hung step times out, and no worker outlives
the driver. The plugin is tests/faulty_tasks.py, registered by an entry point like any other."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import psutil
import pytest

from mirforge.errors import MirforgeError
from mirforge.pipeline import RunSpec, generate_one
from mirforge.runner import generate
from mirforge.runner.config import RunConfig
from mirforge.timelimit import TimeLimit, time_limit

from test_runner import CMD

pytestmark = pytest.mark.usefixtures("faulty_plugin")


def faulty(fault: str = "", n: int = 1, **fields: object) -> RunConfig:
    return RunConfig(tasks=("faulty",), n=n, seed=1, shard_size=1, task_config={"faulty": {"fault": fault, **fields}})


def faulty_task(**fields: object):
    return faulty(**fields).task("faulty")


# -- a failing plugin --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fault", "what"),
    [
        ("unpicklable", "raised Unpicklable: the sampler broke at"),  # pickles, but the driver could not rebuild it
        ("lock", "raised HoldsALock: a lock was held"),  # cannot be pickled at all
        ("error", "raised ValueError: bad value"),  # a two-line message, reported on one
    ],
)
def test_a_failing_plugin_is_one_line_naming_it_whatever_it_raised(tmp_path, fault, what):
    with pytest.raises(MirforgeError) as caught:
        generate(faulty(fault), tmp_path / "out", workers=1, progress=False)
    message = str(caught.value)
    assert "task faulty, index 0: plugin faulty_tasks:Faulty" in message, message
    assert what in message and "in sample," in message and "faulty_tasks.py, line" in message, message
    assert "\n" not in message and "killed by a signal" not in message


def test_sys_exit_in_a_plugin_fails_the_command(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(
        [*CMD, "generate", "--tasks", "faulty", "--n", "2", "--set", "faulty.fault=exit", "-q", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "called sys.exit(0)" in lines[0] and "plugin faulty_tasks:Faulty" in lines[0], lines
    assert not list(out.glob("instances/**/*.jsonl"))


# -- a worker that dies ------------------------------------------------------------------------------------------
def dataset_bytes(out) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in ("manifest.json", ".lock")
    }


def test_a_worker_killed_once_is_replaced_and_the_run_completes_with_the_same_bytes(tmp_path, capfd):
    marker = tmp_path / "crashed"
    generate(faulty("crash_once", n=6, marker=str(marker)), tmp_path / "out", workers=2, progress=False)
    warning = capfd.readouterr().err
    assert marker.exists() and "a worker process died" in warning and "go to a fresh pool (1 of 2" in warning
    generate(faulty(n=6), tmp_path / "clean", workers=2, progress=False)
    made, clean = dataset_bytes(tmp_path / "out"), dataset_bytes(tmp_path / "clean")
    assert len([p for p in made if p.endswith(".jsonl")]) == 6 and made == clean
    assert not [p for p in (tmp_path / "out").rglob("*") if ".tmp-" in p.name]


def test_a_shard_that_kills_every_worker_fails_the_run_after_the_restarts(tmp_path):
    with pytest.raises(MirforgeError, match="a worker process died .*, 3 times; complete shards are kept"):
        generate(faulty("crash", n=2), tmp_path / "out", workers=2, progress=False)


# -- time limits -------------------------------------------------------------------------------------------------
def test_a_hung_plugin_times_out_and_fails_naming_task_and_index(tmp_path):
    config = faulty("loop", instance_timeout=0.3, max_tries=2)
    t0 = time.perf_counter()
    with pytest.raises(MirforgeError) as caught:
        generate(config, tmp_path / "out", workers=1, progress=False)
    message = str(caught.value)
    assert "task faulty, index 0: no acceptable scene in 2 tries (rejected: timed out after 0.3 s (2))" in message
    assert time.perf_counter() - t0 < 30


def test_a_timed_out_attempt_is_a_rejection_and_the_next_attempt_goes_on():
    task = faulty_task(fault="loop_on_even", instance_timeout=0.2)
    attempts = []
    for index in range(6):
        generated = generate_one(task, RunSpec(run_seed=1), index)
        value = json.loads(generated.instance.to_json())["options"][generated.instance.answer]
        assert int(value) % 2 == 1  # an even draw loops forever: only odd ones are accepted
        assert set(generated.rejections) <= {"timed out after 0.2 s"}
        attempts.append(generated.instance.provenance["attempts"])
    assert max(attempts) > 1, "no attempt timed out: the seed never drew an even value"


def test_templates_count_against_the_attempt_time(tmp_path):
    """A user template inside every size limit but slow (a triple loop over a fact) is cut off by the budget."""
    (tmp_path / "faulty").mkdir()
    loop = "{% for a in big %}{% for b in big %}{% for c in big %}{% endfor %}{% endfor %}{% endfor %}"
    (tmp_path / "faulty" / "summary.j2").write_text(f"Slow. {loop}")
    task = faulty_task(big=500, instance_timeout=0.5, max_tries=2)
    t0 = time.perf_counter()
    with pytest.raises(MirforgeError, match=r"index 3: no acceptable scene in 2 tries \(rejected: timed out after"):
        generate_one(task, RunSpec(run_seed=1, templates=tmp_path), 3)
    assert time.perf_counter() - t0 < 5


def test_the_time_limit_off_the_main_thread():
    """Off the main thread no SIGALRM can reach the block: a watchdog interrupts it instead."""
    caught: list[BaseException] = []

    def spin() -> None:
        try:
            with time_limit(0.2, "too slow"):
                while True:
                    np.sqrt(2.0)
        except TimeLimit as exc:
            caught.append(exc)

    thread = threading.Thread(target=spin)
    thread.start()
    thread.join(timeout=10)
    assert not thread.is_alive() and [str(e) for e in caught] == ["too slow"]


# -- workers die with the driver -----------------------------------------------------------------------------------
def spawned_workers(driver: psutil.Process) -> list[psutil.Process]:
    return [p for p in driver.children() if "spawn_main" in " ".join(p.cmdline())]


def running(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_worker_outlives_a_killed_driver(tmp_path, sig):
    args = ["generate", "--tasks", "faulty", "--n", "4", "--shard-size", "1", "--workers", "2", "-q"]
    slow = ["--set", "faulty.fault=sleep", "--set", "faulty.seconds=60"]
    proc = subprocess.Popen(
        [*CMD, *args, *slow, "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.time() + 60
        while len(spawned_workers(driver)) < 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert len(spawned_workers(driver)) == 2, "the workers did not start"
        time.sleep(1.0)  # both busy in the plugin's sleep
        descendants = driver.children(recursive=True)
        os.kill(proc.pid, sig)
        proc.wait(timeout=10)
        deadline = time.time() + 5
        while running(descendants) and time.time() < deadline:
            time.sleep(0.1)
        survivors = [f"{p.pid} {' '.join(p.cmdline())[:80]}" for p in running(descendants)]
        assert not survivors, f"alive 5 s after the driver: {survivors}"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
