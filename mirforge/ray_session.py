"""One way to get a Ray instance for mirforge's executors: join a cluster, or start a private loopback one."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mirforge.errors import InputError


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
    instance starts (loopback only, no dashboard, its own temp folder, no auth token file, no usage report) with
    ``workers`` CPUs. An instance that was already up is used as it is. Only what this call started is shut down."""
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
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                _temp_dir=temp_dir,
                _node_ip_address="127.0.0.1",
            )
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
        if temp_dir:
            shutil.rmtree(temp_dir, ignore_errors=True)
