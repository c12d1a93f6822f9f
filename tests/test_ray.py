"""The Ray executor on this machine only: byte-identical to the local executor, listening on loopback only."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psutil
import pytest

from mirforge.errors import MirforgeError
from mirforge.runner import generate
from mirforge.runner.config import RunConfig

from test_runner import manifest, tree

pytest.importorskip("ray")


def is_loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def listeners(root: psutil.Process) -> set[tuple[str, str, int]]:
    """(process name, address, port) of every listening TCP socket and unconnected UDP socket of ``root`` and its
    descendants: a private Ray instance's processes are all started by the driver."""
    names = {}
    for process in [root, *root.children(recursive=True)]:
        try:
            names[process.pid] = process.name()
        except psutil.NoSuchProcess:
            pass
    found = set()
    for conn in psutil.net_connections(kind="inet"):
        udp = conn.type == socket.SOCK_DGRAM and not conn.raddr
        if conn.pid in names and (conn.status == psutil.CONN_LISTEN or udp):
            found.add((names[conn.pid], conn.laddr.ip, conn.laddr.port))
    return found


@contextmanager
def watching_listeners() -> Iterator[set[tuple[str, str, int]]]:
    """Every listener seen while the block runs (polled): the servers of workers that come and go are seen too."""
    seen: set[tuple[str, str, int]] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.update(listeners(psutil.Process()))
            stop.wait(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        yield seen
    finally:
        stop.set()
        watcher.join()


def test_ray_matches_local_executor_and_listens_on_loopback_only(tmp_path, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    config = RunConfig(tasks=("view_3d",), n=4, seed=11, shard_size=2)
    generate(config, tmp_path / "local", workers=2, progress=False)
    with watching_listeners() as seen:
        summary = generate(config, tmp_path / "ray", workers=2, executor="ray", progress=False)
    names = {name for name, _, _ in seen}
    assert {"gcs_server", "raylet"} <= names, f"the watch did not see Ray's servers: {sorted(seen)}"
    exposed = sorted(entry for entry in seen if not is_loopback(entry[1]))
    assert not exposed, f"listening beyond loopback: {exposed}"
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


@pytest.mark.slow
@pytest.mark.usefixtures("faulty_plugin")
def test_plugin_faults_and_time_limits_in_ray_workers(tmp_path, monkeypatch):
    from mirforge.ray_session import ray_session

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")

    def run(fault: str, **fields: object) -> str:
        config = RunConfig(tasks=("faulty",), n=1, task_config={"faulty": {"fault": fault, **fields}})
        with pytest.raises(MirforgeError) as caught:
            generate(config, tmp_path / fault, workers=1, executor="ray", progress=False)
        assert type(caught.value) is MirforgeError and "\n" not in str(caught.value)
        return str(caught.value)

    with ray_session(1, None):  # one instance for every run below
        assert "plugin faulty_tasks:Faulty: called sys.exit(0)" in run("exit")
        assert "plugin faulty_tasks:Faulty: raised Unpicklable: the sampler broke at" in run("unpicklable")
        message = run("loop", instance_timeout=0.3, max_tries=2)
        assert "task faulty, index 0: no acceptable scene in 2 tries (rejected: timed out after 0.3 s (2))" in message
