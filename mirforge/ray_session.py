"""One way to get a Ray instance for mirforge's executors: join a cluster, or start a private loopback one.

A private instance binds every listener (GCS, raylet, workers, the driver, the runtime-env agent) to 127.0.0.1
only. Ray takes its node address as the address every server listens on, but turns an explicit ``127.0.0.1`` into
the machine's external address unless it runs as a single-machine instance, which it does by default only on macOS
and Windows: :func:`loopback_node` asks for that mode while the instance starts, and the node's address is checked
afterwards, so a Ray that binds elsewhere is refused rather than used.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mirforge.errors import InputError, MirforgeError


def require_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise InputError("--executor ray needs the [ray] extra: pip install 'mirforge[ray]'") from None
    return ray


@contextmanager
def ray_session(workers: int, address: str | None) -> Iterator[Any]:
    """The ``ray`` module, initialised. ``address`` joins a running cluster; without it a private single-node
    instance starts (every listener on 127.0.0.1, no dashboard, its own temp folder, no auth token file, no usage
    report) with ``workers`` CPUs. An instance that was already up is used as it is. Only what this call started is
    shut down."""
    ray = require_ray()
    temp_dir = None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # the head would otherwise report usage online
            temp_dir = tempfile.mkdtemp(prefix="mirforge-ray-", dir="/tmp")
            with loopback_node(ray):
                ray.init(
                    num_cpus=workers,
                    include_dashboard=False,
                    log_to_driver=False,
                    _temp_dir=temp_dir,
                    _node_ip_address="127.0.0.1",
                )
            node_ip = ray.util.get_node_ip_address()
            if not ipaddress.ip_address(node_ip).is_loopback:
                ray.shutdown()
                shutil.rmtree(temp_dir, ignore_errors=True)
                raise MirforgeError(
                    f"the private Ray instance took the node address {node_ip}, not a loopback one, and would listen "
                    "there; this Ray version is not supported for --executor ray without --address"
                )
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
        if temp_dir:
            shutil.rmtree(temp_dir, ignore_errors=True)


@contextmanager
def loopback_node(ray: Any) -> Iterator[None]:
    """While a private instance starts: Ray's single-machine mode, in which its node address (and so every server's
    bind address) may be the loopback one. The environment variable reaches the processes Ray starts; the constant,
    the ``ray`` this process imported already (the node address is checked afterwards, should either move)."""
    name = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    old_env, old_flag = os.environ.get(name), getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[name] = "0"
    if old_flag is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if old_flag is not None:
            constants.ENABLE_RAY_CLUSTER = old_flag
        if old_env is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old_env
