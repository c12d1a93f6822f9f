"""Unit meshes of the primitives and of the catalogue objects' parts, shared by every 3D backend (no GL here)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import trimesh

from mirforge.render.look import Material, material, part_material
from mirforge.render.objects import model
from mirforge.render.scene3d import SHAPES, Object3D

SMOOTH = frozenset({"sphere", "capsule"})  # shaded with vertex normals; the others with face normals


MeshKey = str | tuple[str, int, int]  # a primitive's name, or (object kind, variant, part index)


def draw_parts(obj: Object3D) -> list[tuple[MeshKey, tuple[int, int, int], Material]]:
    """The meshes to draw for ``obj`` with its pose and id, each with its colour and surface: a primitive is one
    mesh of the object's material; an object of the catalogue is one per part, its primary parts in the object's
    colour, every part with the surface of its own material tag."""
    if obj.shape in SHAPES:
        return [(obj.shape, obj.color, material(obj.material))]
    parts = model(obj.shape, obj.variant).parts
    return [
        ((obj.shape, obj.variant, i), obj.color if p.primary else p.color, part_material(p.material))
        for i, p in enumerate(parts)
    ]


def smooth(key: MeshKey) -> bool:
    """Shade with vertex normals (catalogue parts carry crease-aware ones) rather than face normals."""
    return key in SMOOTH or isinstance(key, tuple)


@lru_cache(maxsize=4096)
def unit_mesh(shape: MeshKey) -> trimesh.Trimesh:
    """The primitive (or object part) fitted to the unit cube [-0.5, 0.5]^3; the object's pose scales it."""
    if isinstance(shape, tuple):
        kind, variant, part = shape
        return model(kind, variant).unit_part(part)
    if shape == "box":
        mesh = trimesh.creation.box((1, 1, 1))
    elif shape == "cylinder":
        mesh = trimesh.creation.cylinder(radius=0.5, height=1.0, sections=32)
    elif shape == "cone":
        mesh = trimesh.creation.cone(radius=0.5, height=1.0, sections=32)
        mesh.apply_translation((0, 0, -0.5))
    elif shape == "sphere":
        mesh = trimesh.creation.icosphere(subdivisions=3, radius=0.5)
    elif shape == "capsule":
        mesh = trimesh.creation.capsule(height=0.5, radius=0.25, count=(16, 16))
        mesh.apply_scale((2.0, 2.0, 1.0))
    elif shape == "floor":  # the square [-1, 1]^2 at z = 0, facing up; the backdrop's extent scales it
        mesh = trimesh.Trimesh(
            vertices=[[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], faces=[[0, 1, 2], [0, 2, 3]], process=False
        )
    else:
        raise ValueError(f"unknown shape {shape!r}")
    return mesh


@lru_cache(maxsize=4096)
def triangle_soup(shape: MeshKey) -> tuple[np.ndarray, np.ndarray]:
    """(positions, normals) per corner of every triangle, float32, for a vertex buffer."""
    mesh = unit_mesh(shape)
    positions = mesh.vertices[mesh.faces].reshape(-1, 3)
    if smooth(shape):
        normals = mesh.vertex_normals[mesh.faces].reshape(-1, 3)
    else:
        normals = np.repeat(mesh.face_normals, 3, axis=0)
    return positions.astype(np.float32), normals.astype(np.float32)
