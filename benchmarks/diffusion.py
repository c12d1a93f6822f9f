"""Images per second of the diffusion realism pass, on whatever device is present.

    python benchmarks/diffusion.py                                   # the tiny test pipeline, 64 and 128 px
    python benchmarks/diffusion.py --model SD15_DIR --controlnet DEPTH_CN_DIR --resolution 512 --steps 20 \\
        --batch 1,4,8 --dtype auto

Without --model a tiny random pipeline is built in a temporary folder (``mirforge dev tiny-diffusion``); its figures
measure the plumbing, not a real model. Each row is the median of --repeats timed calls after one warm-up call; the
images are synthetic (two blocks on a backdrop, with their depth).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np

from mirforge.render.diffusion import Job, Loader, depth_control, pick_device, pick_dtype, pipeline, run


def synthetic(size: int, k: int) -> Job:
    img = np.zeros((size, size, 3), np.uint8)
    img[: size * 5 // 8], img[size * 5 // 8 :] = (210, 225, 240), (190, 200, 170)
    depth = np.zeros((size, size), np.float32)
    a, b = size // 8, size // 4
    img[2 * b : 3 * b + a, a : a + b] = (200, 40, 40)
    depth[2 * b : 3 * b + a, a : a + b] = 3.0
    img[b : 3 * b + a, 2 * b + a : 3 * b + a] = (40, 60, 200)
    depth[b : 3 * b + a, 2 * b + a : 3 * b + a] = 5.0
    return Job(img, depth_control(depth), "a photo of a mug and a table lamp, in a bright room", 1000 + k)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="Stable Diffusion folder (default: a tiny random one)")
    ap.add_argument("--controlnet", help="ControlNet folder (default: the tiny one)")
    ap.add_argument("--resolution", default="64,128", help="comma list of working sizes, px")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--strength", type=float, default=0.5)
    ap.add_argument("--batch", default="1,4", help="comma list of images per pipeline call")
    ap.add_argument("--images", type=int, default=4, help="images per timed call group")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="auto", choices=("auto", "fp32", "fp16", "bf16"))
    ap.add_argument("--offload", default="none", choices=("auto", "none", "model", "sequential"))
    ap.add_argument("--compile", action="store_true", help="torch.compile the UNet (GPU)")
    ap.add_argument("--channels-last", action="store_true")
    args = ap.parse_args()

    model, controlnet, label = args.model, args.controlnet, "custom"
    if model is None:
        from mirforge.render.tiny_diffusion import build_tiny_diffusion

        sd, cn = build_tiny_diffusion(tempfile.mkdtemp(prefix="mirforge-tiny-diffusion-"))
        model, controlnet, label = str(sd), str(cn), "tiny (random)"
    loader = Loader(model, controlnet, args.device, args.dtype, args.offload, args.compile, args.channels_last)
    t0 = time.perf_counter()
    pipe = pipeline(loader)
    load_s = time.perf_counter() - t0
    device = pick_device(args.device)
    dtype = str(pick_dtype(device, args.dtype)).replace("torch.", "")
    print(
        f"model: {label}; device {device}, {dtype}; load {load_s:.2f} s; steps {args.steps}, strength {args.strength}"
    )
    print(f"{'px':>5} {'batch':>5} {'images':>6} {'s/call':>8} {'images/s':>9}")
    for res in (int(v) for v in args.resolution.split(",")):
        for batch in (int(v) for v in args.batch.split(",")):
            jobs = [synthetic(res, k) for k in range(max(args.images, batch))]
            kw = {"steps": args.steps, "strength": args.strength, "resolution": res, "batch": batch}
            run(pipe, jobs[:batch], **kw)  # warm-up (and compile)
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                run(pipe, jobs, **kw)
                times.append(time.perf_counter() - t)
            med = statistics.median(times)
            calls = -(-len(jobs) // batch)
            print(f"{res:>5} {batch:>5} {len(jobs):>6} {med / calls:>8.3f} {len(jobs) / med:>9.2f}")


if __name__ == "__main__":
    main()
