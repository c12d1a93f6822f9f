"""Unit meshes of the primitives, shared by every 3D backend (no GL here)."""

from __future__ import annotations

from functools import cache

import numpy as np
import trimesh

SMOOTH = frozenset({"sphere", "capsule"})  # shaded with vertex normals; the others with face normals


@cache
def unit_mesh(shape: str) -> trimesh.Trimesh:
    """The primitive fitted to the unit cube [-0.5, 0.5]^3; the object's pose scales it to its size."""
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


@cache
def triangle_soup(shape: str) -> tuple[np.ndarray, np.ndarray]:
    """(positions, normals) per corner of every triangle, float32, for a vertex buffer."""
    mesh = unit_mesh(shape)
    positions = mesh.vertices[mesh.faces].reshape(-1, 3)
    if shape in SMOOTH:
        normals = mesh.vertex_normals[mesh.faces].reshape(-1, 3)
    else:
        normals = np.repeat(mesh.face_normals, 3, axis=0)
    return positions.astype(np.float32), normals.astype(np.float32)
