"""Path-traced references for benchmarks/fidelity.py: Blender Cycles renders of mirforge's exported scenes.

    python benchmarks/fidelity.py --export /tmp/fidelity-scenes          # mirforge's venv: scenes as plain data
    bpy-venv/bin/python benchmarks/cycles_reference.py /tmp/fidelity-scenes benchmarks/fixtures/cycles

The second command runs in a venv of its own, because ``bpy`` needs Python 3.11 and numpy < 2:

    python3.11 -m venv bpy-venv && bpy-venv/bin/pip install bpy==5.0.1 "numpy<2"

It reads each ``<scene>.npz`` (world-space triangles and normals, Principled materials, sun and sky, the floor with
its texture and UV placement, the camera), builds the scene in an empty Blender file, renders it with Cycles on
the CPU at 64 samples per pixel (no denoising, no adaptive sampling, Standard view transform, so pixel values are
plain sRGB of the scene's radiance, as mirforge writes them) to ``<out>/<scene>.png``, then times --timing-spp
(16) renders of each scene at --timing-size (448) px and writes ``<out>/cycles.json``: the per-scene digests of
the exported scenes (fidelity.py checks them, so stale references are noticed), the settings and the timings (wall
and CPU seconds: on a shared machine the CPU time is the steadier measure). ``--timing-only`` times again and keeps
the references.
The world shows the backdrop's sky colour to camera rays and the light rig's sky radiance to all other rays.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import bpy
import numpy as np


def build(meta: dict, arrays: np.lib.npyio.NpzFile, size: int, spp: int) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = spp
    cycles.use_adaptive_sampling = False
    cycles.use_denoising = False
    cycles.seed = 0
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.view_settings.gamma = 1.0
    scene.display_settings.display_device = "sRGB"
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.color_depth = "8"
    _world(scene, meta)
    _camera(scene, meta["camera"])
    _sun(scene, meta)
    if meta["floor"]:
        _floor(scene, meta["floor"], arrays)
    for i, obj in enumerate(meta["objects"]):
        _object(scene, obj, arrays[f"object{i}_positions"], arrays[f"object{i}_normals"])


def _world(scene, meta: dict) -> None:
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    nodes.clear()
    sky = nodes.new("ShaderNodeBackground")
    sky.inputs["Color"].default_value = (*meta["light"]["sky"], 1.0)
    seen = nodes.new("ShaderNodeBackground")
    seen.inputs["Color"].default_value = (*meta["background"], 1.0)
    path = nodes.new("ShaderNodeLightPath")
    mix = nodes.new("ShaderNodeMixShader")
    out = nodes.new("ShaderNodeOutputWorld")
    links.new(path.outputs["Is Camera Ray"], mix.inputs["Fac"])
    links.new(sky.outputs["Background"], mix.inputs[1])
    links.new(seen.outputs["Background"], mix.inputs[2])
    links.new(mix.outputs["Shader"], out.inputs["Surface"])


def _camera(scene, cam: dict) -> None:
    data = bpy.data.cameras.new("camera")
    if cam["projection"] == "orthographic":
        data.type = "ORTHO"
        data.ortho_scale = 2 * cam["half_extent"]
    else:
        data.sensor_fit = "VERTICAL"
        data.angle_y = cam["yfov"]
    data.clip_start, data.clip_end = cam["znear"], cam["zfar"]
    obj = bpy.data.objects.new("camera", data)
    obj.matrix_world = _matrix(cam["pose"])  # both look along their local -z with +y up
    scene.collection.objects.link(obj)
    scene.camera = obj


def _sun(scene, meta: dict) -> None:
    sun = np.asarray(meta["light"]["sun"], dtype=float)
    strength = float(sun.max())
    data = bpy.data.lights.new("sun", type="SUN")
    data.energy = strength
    data.color = tuple(sun / strength)
    data.angle = meta["sun_angle"]
    obj = bpy.data.objects.new("sun", data)
    d = np.asarray(meta["light"]["direction"], dtype=float)  # the way the light travels = the lamp's local -z
    z = -d / np.linalg.norm(d)
    x = np.cross((0.0, 1.0, 0.0) if abs(z[2]) > 0.99 else (0.0, 0.0, 1.0), z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, y, z
    obj.matrix_world = _matrix(m.tolist())
    scene.collection.objects.link(obj)


def _principled(name: str, color, metallic: float, roughness: float):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["IOR"].default_value = 1.5  # F0 = 0.04
    return mat, bsdf


def _floor(scene, floor: dict, arrays) -> None:
    e, z = floor["extent"], floor["z"]
    corners = [(-e, -e, z), (e, -e, z), (e, e, z), (-e, e, z)]
    mesh = bpy.data.meshes.new("floor")
    mesh.from_pydata(corners, [], [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="uv")
    m = np.asarray(floor["uv_matrix"], dtype=float)
    for loop in mesh.loops:
        x, y, _ = corners[loop.vertex_index]
        uv.data[loop.index].uv = tuple(m @ np.array([x, y, 1.0]))
    mat, bsdf = _principled("floor", floor["color"], 0.0, 0.9)
    if floor["textured"]:
        pixels = arrays["floor_texture"]
        h, w = pixels.shape[:2]
        image = bpy.data.images.new("floor_texture", width=w, height=h, alpha=False)
        image.colorspace_settings.name = "sRGB"
        rgba = np.concatenate([pixels.astype(np.float32) / 255.0, np.ones((h, w, 1), np.float32)], axis=2)
        image.pixels.foreach_set(rgba.ravel())  # row 0 is v = 0 here as in GL
        image.pack()
        node = mat.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = image
        node.interpolation = "Linear"
        node.extension = "REPEAT"
        mat.node_tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
    mesh.materials.append(mat)
    obj = bpy.data.objects.new("floor", mesh)
    scene.collection.objects.link(obj)


def _object(scene, obj: dict, positions: np.ndarray, normals: np.ndarray) -> None:
    n = len(positions)
    mesh = bpy.data.meshes.new(obj["name"])
    mesh.from_pydata(positions.tolist(), [], [(i, i + 1, i + 2) for i in range(0, n, 3)])
    if obj["smooth"]:
        mesh.shade_smooth()
        mesh.normals_split_custom_set([tuple(v) for v in normals])  # one per corner, as mirforge interpolates them
    else:
        mesh.shade_flat()
    mat, _ = _principled(obj["name"], obj["color"], obj["metallic"], obj["roughness"])
    mesh.materials.append(mat)
    o = bpy.data.objects.new(obj["name"], mesh)
    scene.collection.objects.link(o)


def _matrix(rows):
    from mathutils import Matrix

    return Matrix([list(r) for r in rows])


def render(path: Path | None) -> tuple[float, float]:
    """Render (to ``path`` if given); returns (wall seconds, CPU seconds of all this process's threads)."""
    if path is not None:
        bpy.context.scene.render.filepath = str(path)
    start, cpu = time.perf_counter(), time.process_time()
    bpy.ops.render.render(write_still=path is not None)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenes", type=Path, help="folder of <scene>.npz from fidelity.py --export")
    ap.add_argument("out", type=Path, help="folder for <scene>.png and cycles.json")
    ap.add_argument("--spp", type=int, default=64)
    ap.add_argument("--timing-spp", type=int, default=16)
    ap.add_argument("--timing-size", type=int, default=448)
    ap.add_argument("--timing-repeats", type=int, default=2, help="timed renders per scene after a warm-up (0: none)")
    ap.add_argument("--only", help="comma list of scenes to render (default: all)")
    ap.add_argument(
        "--timing-only", action="store_true", help="keep the references in OUT; time again and update cycles.json"
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((args.scenes / "scenes.json").read_text())
    old = json.loads((args.out / "cycles.json").read_text()) if (args.out / "cycles.json").is_file() else {}
    record = {
        "blender": bpy.app.version_string,
        "engine": "CYCLES",
        "device": "CPU",
        "threads": bpy.context.scene.render.threads,
        "machine": platform.processor() or platform.machine(),
        "spp": args.spp,
        "timing": {"spp": args.timing_spp, "size": args.timing_size, "repeats": args.timing_repeats},
        "scenes": dict(old.get("scenes", {})),
    }
    for name, digest in manifest.items():
        if args.only and name not in args.only.split(","):
            continue
        arrays = np.load(args.scenes / f"{name}.npz")
        meta = json.loads(str(arrays["meta"]))
        scene = record["scenes"].setdefault(name, {})
        if args.timing_only:
            if scene.get("digest") != digest:
                sys.exit(f"{name}: the reference in {args.out} is of another scene; render it first")
        else:
            build(meta, arrays, meta["size"], args.spp)
            seconds, _ = render(args.out / f"{name}.png")
            scene.update(digest=digest, reference_seconds=round(seconds, 2))
            print(f"{name}: {args.spp} spp {seconds:.1f} s", flush=True)
        if args.timing_repeats:
            build(meta, arrays, args.timing_size, args.timing_spp)
            render(None)  # warm-up: scene sync and kernel set-up happen once per process in practice
            timed = [render(None) for _ in range(args.timing_repeats)]
            scene["timing_ms"] = round(1000 * statistics.median(t[0] for t in timed), 1)
            scene["timing_cpu_ms"] = round(1000 * statistics.median(t[1] for t in timed), 1)
            print(
                f"{name}: {args.timing_spp} spp at {args.timing_size} px {scene['timing_ms'] / 1000:.2f} s", flush=True
            )
    record["scenes"] = {name: record["scenes"][name] for name in manifest if name in record["scenes"]}
    (args.out / "cycles.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    ms = [s["timing_ms"] for s in record["scenes"].values() if "timing_ms" in s]
    if ms:
        print(f"Cycles {args.timing_spp} spp: {math.fsum(ms) / len(ms):.0f} ms/image (mean of the scenes' medians)")


if __name__ == "__main__":
    main()
