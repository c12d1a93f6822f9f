"""Render fidelity: mirforge's default renderer against Blender Cycles at 64 samples per pixel, on fixed scenes.

    python benchmarks/fidelity.py                      # compare with the committed Cycles renders; prints a table
    python benchmarks/fidelity.py --save /tmp/fid      # also write mirforge's renders and side-by-side pictures
    python benchmarks/fidelity.py --export DIR         # write the scenes as plain data for Blender, then:
    bpy-venv/bin/python benchmarks/cycles_reference.py DIR benchmarks/fixtures/cycles   # Blender: see its docstring

The scenes (below) cover every backdrop, rubber, plastic and metal, low and high suns, warm and cool light, a
near-horizon view and an orthographic top view, all built with mirforge's own API from fixed seeds. The Cycles
images come from ``cycles_reference.py`` (its docstring has the Blender set-up) and are committed, small, under
``benchmarks/fixtures/cycles/`` with ``cycles.json``: the digests of the exported scenes they were rendered from
(a changed scene is reported as stale) and Cycles' own time per image at 16 samples per pixel and 448 px.

Per scene: SSIM (7 x 7 uniform window on each RGB channel, sample covariance, data range 255: scikit-image's
defaults, here with scipy) and PSNR against the reference; mirforge's time per image (median of --repeats renders of
the scene at 448 px after a warm-up, in one warm process: what a worker pays), wall-clock and CPU (all threads; the
steadier figure on a shared machine); the ratios to Cycles at 16 spp. The last line reads
``mean SSIM <x> PSNR <y>``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.ndimage import uniform_filter

from mirforge.render.export import scene_arrays, scene_digest, write_scene
from mirforge.render.gl import renderer
from mirforge.render.look import LightKnobs, Look, backdrop, light_from, light_rig
from mirforge.render.scene3d import PALETTE, SHAPES, Camera, Object3D, Scene3D, orbit_camera, ortho_view

FIXTURES = Path(__file__).parent / "fixtures" / "cycles"
SIZE = 256  # of the comparison (and of the committed references: 6 noisy PNGs, ~90 KB each)
TIMING_SIZE = 448  # of the timings: the size tasks render at


def objects(rng: np.random.Generator, n: int, materials: tuple[str, ...], radius: float = 1.7) -> tuple[Object3D, ...]:
    """``n`` primitives of distinct colours standing apart on a disc (a CLEVR-like table)."""
    colors = [list(PALETTE)[i] for i in rng.permutation(len(PALETTE))[:n]]
    placed: list[Object3D] = []
    while len(placed) < n:
        shape = SHAPES[int(rng.integers(len(SHAPES)))]
        w = float(rng.uniform(0.45, 0.85))
        size = (
            (w, w, w)
            if shape == "sphere"
            else (w, w if shape != "box" else float(rng.uniform(0.45, 0.85)), float(rng.uniform(0.4, 1.1)))
        )
        xy = tuple(float(v) for v in rng.uniform(-radius, radius, 2))
        if math.hypot(*xy) > radius or any(
            math.dist(xy, o.position) < 0.75 * (w + max(o.size[:2])) + 0.15 for o in placed
        ):
            continue
        name = colors[len(placed)]
        mat = materials[int(rng.integers(len(materials)))]
        yaw = float(rng.uniform(0, math.pi / 2)) if shape == "box" else 0.0
        placed.append(Object3D(f"{name} {shape}", shape, size, PALETTE[name], xy, yaw=yaw, material=mat))
    return tuple(placed)


def scenes() -> dict[str, tuple[Scene3D, Camera]]:
    """The fixed reference scenes: name -> (scene, camera)."""
    out = {}

    rng = np.random.default_rng(101)  # CLEVR-like: plain table, rubber and metal, the research note's camera
    out["clevr"] = (
        Scene3D(objects(rng, 6, ("rubber", "metal")), look=Look(backdrop("studio", rng), light_from(45, 215))),
        orbit_camera(-35, 30, 6.0),
    )
    rng = np.random.default_rng(102)  # wood, low camera: the floor runs to the horizon (forced perspective)
    out["wood"] = (
        Scene3D(objects(rng, 5, ("rubber", "plastic")), look=Look(backdrop("wood", rng), light_rig(rng))),
        orbit_camera(20, 12, 5.5, target=(0.0, 0.0, 0.6)),
    )
    rng = np.random.default_rng(103)  # tiles, high camera, metal and plastic
    out["tiles"] = (
        Scene3D(objects(rng, 6, ("metal", "plastic")), look=Look(backdrop("tiles", rng), light_rig(rng))),
        orbit_camera(140, 38, 6.5),
    )
    rng = np.random.default_rng(104)  # carpet, warm low sun: long shadows
    warm = LightKnobs(elevation=(22, 28), kelvin=(3200, 3600))
    out["carpet"] = (
        Scene3D(objects(rng, 5, ("rubber",)), look=Look(backdrop("carpet", rng), light_rig(rng, warm))),
        orbit_camera(250, 25, 6.0),
    )
    rng = np.random.default_rng(105)  # concrete, cool high sun
    cool = LightKnobs(elevation=(60, 70), kelvin=(6500, 7000))
    out["concrete"] = (
        Scene3D(
            objects(rng, 7, ("rubber", "metal", "plastic")), look=Look(backdrop("concrete", rng), light_rig(rng, cool))
        ),
        orbit_camera(60, 45, 7.0),
    )
    rng = np.random.default_rng(106)  # orthographic top view (view_3d's third image)
    out["top"] = (
        Scene3D(objects(rng, 5, ("rubber", "metal")), look=Look(backdrop("studio", rng), light_rig(rng))),
        ortho_view("top", 2.4),
    )
    return out


# -- metrics ------------------------------------------------------------------------------------------------------
def ssim(a: np.ndarray, b: np.ndarray, win: int = 7) -> float:
    """Mean SSIM of two uint8 RGB images, as skimage.metrics.structural_similarity(channel_axis=2) computes it."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    norm = win * win / (win * win - 1)
    pad = (win - 1) // 2
    values = []
    for ch in range(a.shape[2]):
        x, y = a[..., ch].astype(np.float64), b[..., ch].astype(np.float64)
        ux, uy = uniform_filter(x, win), uniform_filter(y, win)
        vx = norm * (uniform_filter(x * x, win) - ux * ux)
        vy = norm * (uniform_filter(y * y, win) - uy * uy)
        vxy = norm * (uniform_filter(x * y, win) - ux * uy)
        s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
        values.append(s[pad:-pad, pad:-pad].mean())
    return float(np.mean(values))


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)


# -- commands -----------------------------------------------------------------------------------------------------
def export(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    digests = {name: write_scene(folder / f"{name}.npz", s, cam, SIZE) for name, (s, cam) in scenes().items()}
    (folder / "scenes.json").write_text(json.dumps(digests, indent=2) + "\n")
    print(f"wrote {len(digests)} scenes to {folder}")


def compare(repeats: int, samples: int | None, save: Path | None) -> None:
    from PIL import Image

    record = json.loads((FIXTURES / "cycles.json").read_text())
    timing = record["timing"]
    if timing["size"] != TIMING_SIZE:
        sys.exit(f"cycles.json times {timing['size']} px renders; this script times {TIMING_SIZE} px")
    if samples is None:
        small, big = renderer(SIZE), renderer(TIMING_SIZE)  # the run default, as tasks get it
    else:
        from mirforge.render.moderngl_backend import ModernglRenderer

        small, big = ModernglRenderer(SIZE, samples=samples), ModernglRenderer(TIMING_SIZE, samples=samples)
    aa = "" if samples is None else f" ({samples}x MSAA)" if samples else " (edge anti-aliasing)"
    print(
        f"mirforge {small.name}{aa} vs Blender {record['blender']} Cycles {record['spp']} spp at {SIZE} px; "
        f"ms/image at {TIMING_SIZE} px, Cycles at {timing['spp']} spp from cycles.json\n"
    )
    cycles = f"Cycles {timing['spp']} spp"
    print(f"| scene | SSIM | PSNR dB | mirforge ms/image (CPU) | {cycles} ms/image (CPU) | speed-up (CPU) |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name, (scene, cam) in scenes().items():
        info = record["scenes"].get(name)
        if info is None:
            sys.exit(f"no Cycles reference for scene {name!r}; re-render the fixtures (see this script's docstring)")
        stale = scene_digest(scene_arrays(scene, cam, SIZE)) != info["digest"]
        ref = np.asarray(Image.open(FIXTURES / f"{name}.png").convert("RGB"))
        img = small.views(scene, [cam], seg=False)[0].rgb
        big.views(scene, [cam])  # warm-up: the floor's texture is built once per process
        wall, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            big.views(scene, [cam])
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        ms, cpu_ms = 1000 * statistics.median(wall), 1000 * statistics.median(cpu)
        cycles_ms, cycles_cpu_ms = info["timing_ms"], info["timing_cpu_ms"]
        s, p = ssim(img, ref), psnr(img, ref)
        rows.append((s, p, ms, cycles_ms, cpu_ms, cycles_cpu_ms))
        note = " (stale: the scene changed since the reference was rendered)" if stale else ""
        print(
            f"| {name}{note} | {s:.4f} | {p:.2f} | {ms:.1f} ({cpu_ms:.1f}) | {cycles_ms:.0f} ({cycles_cpu_ms:.0f}) "
            f"| {cycles_ms / ms:.0f}x ({cycles_cpu_ms / cpu_ms:.0f}x) |"
        )
        if save:
            save.mkdir(parents=True, exist_ok=True)
            Image.fromarray(img).save(save / f"{name}-mirforge.png")
            Image.fromarray(np.hstack([img, ref])).save(save / f"{name}-vs-cycles.png")
    ms, cycles_ms, cpu_ms, cycles_cpu_ms = (statistics.mean(r[k] for r in rows) for k in (2, 3, 4, 5))
    print(
        f"\nmirforge {ms:.1f} ms/image, {cycles} {cycles_ms:.0f} ms/image: {cycles_ms / ms:.0f}x faster "
        f"(CPU time {cpu_ms:.1f} vs {cycles_cpu_ms:.0f} ms/image: {cycles_cpu_ms / cpu_ms:.0f}x)"
    )
    print(f"mean SSIM {statistics.mean(r[0] for r in rows):.4f} PSNR {statistics.mean(r[1] for r in rows):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", type=Path, help="write the scenes as plain data to this folder and stop")
    ap.add_argument("--save", type=Path, help="also write mirforge's renders and side-by-sides here")
    ap.add_argument("--repeats", type=int, default=15, help="timed renders per scene")
    ap.add_argument("--samples", type=int, help="moderngl with this multisampling (4, or 0: edge anti-aliasing)")
    args = ap.parse_args()
    if args.export:
        export(args.export)
    else:
        compare(args.repeats, args.samples, args.save)


if __name__ == "__main__":
    main()
