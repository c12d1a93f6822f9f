"""Ray executor: the same shard function as the local executor, one Ray task per shard.

Output is byte-identical to the local executor's: a shard's bytes depend on the run config only. Shards write
straight into the dataset folder, so on a cluster ``--out`` must be a path every node sees (NFS or similar);
the driver keeps the manifest. Ray starts its workers by exec (not by forking the driver), and each worker
creates its renderer lazily on its first shard, so no GL context crosses a process boundary.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator

from mirforge.errors import InputError
from mirforge.registry import load
from mirforge.runner.local import render_threads
from mirforge.runner.plan import RunConfig, Shard
from mirforge.runner.worker import ShardResult, init_worker, run_shard


def _shard_task(shard: Shard, config: RunConfig, root: str, threads: int | None) -> ShardResult:
    import ray

    init_worker(None, threads)
    result = run_shard(shard, config, root)
    result.node = ray.get_runtime_context().get_node_id()  # several nodes may share a host
    return result


def resources(task_name: str, config: RunConfig, cluster_has_gpus: bool) -> dict[str, float]:
    """Ray resource request of one shard: what the plugin declares, plus a GPU for a diffusion realism pass over a
    task that lets one touch its images (each worker then holds one pipeline). On a cluster without GPUs nothing
    asks for one, so the pass runs on CPUs instead of waiting forever."""
    cls = load(task_name)
    gpu = cls.needs.gpu or (config.realism is not None and cls.needs.realism)
    return {"num_cpus": 1, "num_gpus": 1 if gpu and cluster_has_gpus else 0}


def run_ray(
    shards: list[Shard],
    config: RunConfig,
    root: str,
    workers: int,
    address: str | None,
    on_instance: Callable[[int], None],
) -> Iterator[ShardResult]:
    try:
        import ray
    except ImportError:
        raise InputError("--executor ray needs the [ray] extra: pip install 'mirforge[ray]'") from None
    temp_dir = None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:  # a private single-node instance: loopback, no dashboard, its own temp folder, no auth token file
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # the head would try to phone usage-stats.ray.io
            temp_dir = tempfile.mkdtemp(prefix="mirforge-ray-", dir="/tmp")
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                _temp_dir=temp_dir,
                _node_ip_address="127.0.0.1",
            )
    try:
        threads = render_threads(workers) if workers > 1 else None
        remote = ray.remote(max_retries=3)(_shard_task)
        has_gpus = ray.cluster_resources().get("GPU", 0) > 0
        pending = [
            remote.options(**resources(shard.task, config, has_gpus)).remote(shard, config, root, threads)
            for shard in shards
        ]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            result = ray.get(done[0])
            on_instance(result.instances)
            yield result
    finally:
        if started:
            ray.shutdown()
        if temp_dir:
            shutil.rmtree(temp_dir, ignore_errors=True)
