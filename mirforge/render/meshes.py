"""Unit meshes of the primitives, shared by every 3D backend (no GL here)."""

from __future__ import annotations

from functools import cache

import numpy as np
import trimesh

SMOOTH = frozenset({"sphere", "capsule"})  # shaded with vertex normals; the others with face normals
THIN = 0.25  # objects narrower than this (world units) get the coarse meshes: rods, strings, small knobs


def detail(size: tuple[float, float, float]) -> int:
    """1 for the fine mesh, 0 for the coarse one, whose silhouette is off by under 1/500 of a unit at this width."""
    return 0 if max(size[0], size[1]) < THIN else 1


@cache
def unit_mesh(shape: str, level: int = 1) -> trimesh.Trimesh:
    """The primitive fitted to the unit cube [-0.5, 0.5]^3; the object's pose scales it to its size."""
    sections = (12, 32)[level]
    if shape == "box":
        mesh = trimesh.creation.box((1, 1, 1))
    elif shape == "cylinder":
        mesh = trimesh.creation.cylinder(radius=0.5, height=1.0, sections=sections)
    elif shape == "cone":
        mesh = trimesh.creation.cone(radius=0.5, height=1.0, sections=sections)
        mesh.apply_translation((0, 0, -0.5))
    elif shape == "sphere":
        mesh = trimesh.creation.icosphere(subdivisions=(1, 3)[level], radius=0.5)
    elif shape == "capsule":
        count = ((8, 8), (16, 16))[level]
        mesh = trimesh.creation.capsule(height=0.5, radius=0.25, count=count)
        mesh.apply_scale((2.0, 2.0, 1.0))
    else:
        raise ValueError(f"unknown shape {shape!r}")
    return mesh


@cache
def triangle_soup(shape: str, level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(positions, normals) per corner of every triangle, float32, for a vertex buffer."""
    mesh = unit_mesh(shape, level)
    positions = mesh.vertices[mesh.faces].reshape(-1, 3)
    if shape in SMOOTH:
        normals = mesh.vertex_normals[mesh.faces].reshape(-1, 3)
    else:
        normals = np.repeat(mesh.face_normals, 3, axis=0)
    return positions.astype(np.float32), normals.astype(np.float32)
