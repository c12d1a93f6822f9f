"""A scene and camera as plain data (world-space triangles, materials, light, floor, camera) for other renderers.

``benchmarks/cycles_reference.py`` reads these files in Blender to path-trace the very scene mirforge rasterises:
the same triangles and normals, colours, materials, sun and sky, floor texture and placement, camera. One ``.npz``
per scene: numeric arrays plus a ``meta`` JSON string; nothing in it needs mirforge (or numpy 2) to read.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from mirforge.render.look import FLOOR_Z
from mirforge.render.meshes import draw_parts, smooth, triangle_soup
from mirforge.render.scene3d import Camera, Scene3D
from mirforge.render.textures import floor_texture, srgb_to_linear
from mirforge.render.view import ZFAR, ZNEAR


def scene_arrays(scene: Scene3D, camera: Camera, size: int) -> dict[str, np.ndarray]:
    """Everything a renderer needs to draw ``scene`` from ``camera`` at ``size`` x ``size`` pixels."""
    arrays: dict[str, np.ndarray] = {}
    objects = []  # one entry per drawn mesh: a primitive, or one part of a catalogue object (named as its object)
    for obj in scene.objects:
        model = obj.pose()
        normal_matrix = np.linalg.inv(model[:3, :3]).T
        for key, level, color, surface in draw_parts(obj):
            positions, normals = triangle_soup(key, level)
            world = positions @ model[:3, :3].T + model[:3, 3]
            world_normals = normals @ normal_matrix.T
            world_normals /= np.linalg.norm(world_normals, axis=1, keepdims=True)
            arrays[f"object{len(objects)}_positions"] = world.astype(np.float32)
            arrays[f"object{len(objects)}_normals"] = world_normals.astype(np.float32)
            objects.append(
                {
                    "name": obj.name,
                    "smooth": smooth(key),
                    "color": [float(c) for c in srgb_to_linear(color)],
                    "metallic": surface.metallic,
                    "roughness": surface.roughness,
                }
            )
    b, light = scene.look.backdrop, scene.look.light
    floor: dict[str, Any] | None = None
    if scene.ground:
        floor = {
            "z": FLOOR_Z,
            "extent": b.extent,
            "color": [float(c) for c in srgb_to_linear(b.color)],
            "uv_matrix": b.uv_matrix().tolist(),
            "textured": b.textured,
        }
        if b.textured:
            arrays["floor_texture"] = np.ascontiguousarray(floor_texture(b.floor, b.variant))
    meta = {
        "size": size,
        "camera": {
            "pose": camera.pose().tolist(),
            "projection": camera.projection,
            "yfov": camera.yfov,
            "half_extent": camera.half_extent,
            "znear": ZNEAR,
            "zfar": ZFAR,
        },
        "light": {"direction": list(light.unit_direction()), "sun": list(light.sun), "sky": list(light.sky)},
        "sun_angle": light.angle,
        "background": [float(c) for c in srgb_to_linear(b.sky)],
        "floor": floor,
        "objects": objects,
    }
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return arrays


def write_scene(path: Path, scene: Scene3D, camera: Camera, size: int) -> str:
    """Write one scene file; returns the SHA-256 of its contents (the same scene always gives the same digest)."""
    arrays = scene_arrays(scene, camera, size)
    digest = scene_digest(arrays)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    return digest


def scene_digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(arrays[key]).tobytes())
    return h.hexdigest()
