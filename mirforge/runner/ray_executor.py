"""Ray executor: the same shard function as the local executor, one Ray task per shard.

Output is byte-identical to the local executor's: a shard's bytes depend on the run config only. Shards write
straight into the dataset folder, so on a cluster ``--out`` must be a path every node sees (NFS or similar), or
the run has ``--upload URL``: every shard is also put to that URL, and a resume reads from there the shards its
``--out`` lacks. The driver keeps the manifest. Ray starts its workers by exec (not by forking the driver), and
each worker creates its renderer lazily on its first shard, so no GL context crosses a process boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from mirforge.errors import MirforgeError
from mirforge.ray_session import ray_session
from mirforge.registry import load
from mirforge.runner.config import RunConfig
from mirforge.runner.local import render_threads
from mirforge.runner.plan import Shard
from mirforge.runner.worker import ShardResult, init_worker, run_shard


def _shard_task(shard: Shard, config: RunConfig, root: str, upload: str | None, threads: int | None) -> ShardResult:
    import ray

    init_worker(None, threads)
    result = run_shard(shard, config, root, upload)
    result.node = ray.get_runtime_context().get_node_id()  # several nodes may share a host
    return result


def resources(task_name: str, config: RunConfig, cluster_has_gpus: bool) -> dict[str, float]:
    """Ray resource request of one shard: the CPUs the plugin declares, plus a GPU for a diffusion realism pass over
    a task that lets one touch its images (each worker then holds one pipeline). On a cluster without GPUs nothing
    asks for one, so the pass runs on CPUs instead of waiting forever. Shards are tasks, not actors, so a shard
    holds its CPUs only while it runs: no placement can deadlock waiting for an idle actor's CPU."""
    cls = load(task_name)
    gpu = cls.needs.gpu or (config.realism is not None and cls.needs.realism)
    return {"num_cpus": cls.needs.cpus, "num_gpus": 1 if gpu and cluster_has_gpus else 0}


def run_ray(
    shards: list[Shard],
    config: RunConfig,
    root: str,
    workers: int,
    address: str | None,
    on_instance: Callable[[int], None],
    upload: str | None = None,
) -> Iterator[ShardResult]:
    with ray_session(workers, address) as ray:
        threads = render_threads(workers) if workers > 1 else None
        remote = ray.remote(max_retries=3)(_shard_task)
        has_gpus = ray.cluster_resources().get("GPU", 0) > 0
        pending = [
            remote.options(**resources(shard.task, config, has_gpus)).remote(shard, config, root, upload, threads)
            for shard in shards
        ]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                try:
                    result = ray.get(done[0])
                except ray.exceptions.RayTaskError as exc:  # the shard function's one-line error, wrapped by Ray
                    cause = exc.cause if isinstance(exc.cause, MirforgeError) else None
                    raise cause or MirforgeError(f"a Ray task failed: {' '.join(str(exc).split())[:300]}") from None
                except ray.exceptions.RayError as exc:  # a worker or node died
                    raise MirforgeError(
                        f"a Ray worker died ({type(exc).__name__}) while generating into {root}; complete shards are "
                        "kept: rerun the same command to resume"
                    ) from None
                on_instance(result.instances)
                yield result
        finally:  # an error, or the driver stopped early: the shards still queued or running are not wanted
            for ref in pending:
                ray.cancel(ref, force=True)
