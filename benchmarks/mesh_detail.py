"""What drawing small objects from their coarse meshes saves, and what it changes, per 3D task.

    python benchmarks/mesh_detail.py [--tasks location_relationship,depth_relationship,...] [--n 6] [--repeats 5]

Generates ``--n`` instances of each task while recording every scene the renderer is asked to draw, then draws all
of them again with the level of detail on (``SMALL_PIXELS``) and off (every object from its fine meshes), the two
interleaved ``--repeats`` times in one process (the median is reported, CPU time of the process, llvmpipe's
render threads included). Also prints the vertices per scene both ways and the SSIM between the two renders of each
view (the fidelity benchmark's SSIM).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from mirforge.pipeline import RunSpec, generate_one
from mirforge.render import moderngl_backend as mb
from mirforge.render.meshes import SMALL_PIXELS
from mirforge.runner.config import task_for

sys.path.insert(0, str(Path(__file__).parent))
from fidelity import ssim  # noqa: E402

TASKS = "location_relationship,depth_relationship,view_3d,forced_perspective,weight_comparison,speed_comparison"


def recorded_views(task_name: str, n: int) -> list[tuple]:
    """(size, scene, cameras, keyword arguments) of every ``views`` call made generating ``n`` instances."""
    calls = []
    original = mb.ModernglRenderer.views

    def record(self, scene, cameras, **kw):
        calls.append((self.size, scene, cameras, kw))
        return original(self, scene, cameras, **kw)

    mb.ModernglRenderer.views = record
    try:
        task = task_for(task_name, ())
        for i in range(n):
            generate_one(task, RunSpec(run_seed=0), i)
    finally:
        mb.ModernglRenderer.views = original
    return calls


def draw_all(calls: list[tuple], renderers: dict[int, mb.ModernglRenderer]) -> list:
    """Every recorded call's views, drawn by the renderer of its size."""
    return [v for size, scene, cams, kw in calls for v in renderers[size].views(scene, cams, **kw)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=TASKS)
    parser.add_argument("--n", type=int, default=6, help="instances per task")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(
        "| task | views | fine ms/view | detail ms/view | ratio | vertices/scene fine | detail | SSIM mean | min |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    for name in args.tasks.split(","):
        calls = recorded_views(name, args.n)
        sizes = {c[0] for c in calls}
        renderers = {lod: {s: mb.ModernglRenderer(s, small_pixels=lod) for s in sizes} for lod in (0, SMALL_PIXELS)}
        n_views = sum(len(c[2]) for c in calls)

        images = {lod: [v.rgb for v in draw_all(calls, renderers[lod])] for lod in renderers}  # warms every program
        seconds: dict[int, list[float]] = {0: [], SMALL_PIXELS: []}
        for r in range(args.repeats):
            for lod in (0, SMALL_PIXELS) if r % 2 == 0 else (SMALL_PIXELS, 0):
                start = time.process_time()
                draw_all(calls, renderers[lod])
                seconds[lod].append(time.process_time() - start)
        fine, detail = (statistics.median(seconds[lod]) / n_views * 1000 for lod in (0, SMALL_PIXELS))
        vertices = {
            lod: np.mean(
                [
                    len(mb._object_vertices(scene.objects, mb._small(scene.objects, cams, size, lod))[0])
                    for size, scene, cams, _ in calls
                ]
            )
            for lod in (0, SMALL_PIXELS)
        }
        scores = [ssim(a, b) for a, b in zip(images[0], images[SMALL_PIXELS], strict=True)]
        print(
            f"| {name} | {n_views} | {fine:.2f} | {detail:.2f} | {detail / fine:.3f} | {vertices[0]:.0f} | "
            f"{vertices[SMALL_PIXELS]:.0f} | {np.mean(scores):.4f} | {np.min(scores):.4f} |"
        )


if __name__ == "__main__":
    main()
