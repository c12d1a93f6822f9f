"""Unit meshes of the primitives and of the catalogue objects' parts, shared by every 3D backend (no GL here)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from mirforge.render.asset_cache import cached
from mirforge.render.look import Material, material, part_material
from mirforge.render.objects import COLORS, model
from mirforge.render.scene3d import SHAPES, Object3D

if TYPE_CHECKING:
    import trimesh

SMOOTH = frozenset({"sphere", "capsule"})  # shaded with vertex normals; the others with face normals
THIN = 0.25  # objects narrower than this (world units) get the coarsest meshes: rods, strings, small knobs
# Objects whose box spans fewer pixels than this in every view get the coarse meshes: tiny triangles cost
# llvmpipe a whole 4 x 4 block of fragments each, and at half the sections the outline of an object this size is
# still within about half a pixel of the fine one.
SMALL_PIXELS = 96
THIN_LEVEL, SMALL_LEVEL, FINE_LEVEL = 0, 1, 2


def detail(size: tuple[float, float, float], small: bool = False) -> int:
    """A primitive's mesh level: ``THIN_LEVEL`` when narrow (its silhouette is off by under 1/500 of a unit at
    this width), ``SMALL_LEVEL`` when ``small`` on screen (see ``SMALL_PIXELS``), else ``FINE_LEVEL``."""
    if max(size[0], size[1]) < THIN:
        return THIN_LEVEL
    return SMALL_LEVEL if small else FINE_LEVEL


MeshKey = str | tuple[str, int, int]  # a primitive's name, or (object kind, variant, part index)
RGB = tuple[int, int, int]
# metal parts of these colours show the metal itself
BARE_METALS = frozenset(COLORS[name] for name in ("silver", "steel", "gold", "brass", "copper"))
# a metal part of any other colour is painted: a glossy dielectric (as fully metallic, a yellow can mirrored the
# warm wooden table around it and read orange)
PAINTED = Material(metallic=0.0, roughness=0.3)


def draw_parts(obj: Object3D, small: bool = False) -> list[tuple[MeshKey, int, RGB, Material]]:
    """The meshes to draw for ``obj`` with its pose and id: (mesh, level, colour, surface). A primitive is one mesh
    of the object's material, at the level ``detail`` gives; an object of the catalogue is one per part (its own
    mesh, coarse when ``small``), its primary parts in the object's colour, every part with the surface of its own
    material tag (a metal of a colour no bare metal has: ``PAINTED``). ``small``: the object spans fewer than
    ``SMALL_PIXELS`` in every view it is drawn in."""
    if obj.shape in SHAPES:
        return [(obj.shape, detail(obj.size, small), obj.color, material(obj.material))]
    parts = model(obj.shape, obj.variant).parts
    level = SMALL_LEVEL if small else FINE_LEVEL
    out = []
    for i, p in enumerate(parts):
        colour = obj.color if p.primary else p.color
        painted = p.material == "metal" and colour not in BARE_METALS
        out.append(((obj.shape, obj.variant, i), level, colour, PAINTED if painted else part_material(p.material)))
    return out


def smooth(key: MeshKey) -> bool:
    """Shade with vertex normals (catalogue parts carry crease-aware ones) rather than face normals."""
    return key in SMOOTH or isinstance(key, tuple)


@lru_cache(maxsize=4096)
def unit_mesh(shape: MeshKey, level: int = FINE_LEVEL) -> trimesh.Trimesh:
    """The primitive (or object part) fitted to the unit cube [-0.5, 0.5]^3; the object's pose scales it. ``level``:
    one of ``THIN_LEVEL``, ``SMALL_LEVEL`` and ``FINE_LEVEL`` (a part has two meshes: coarse below the fine level)."""
    if isinstance(shape, tuple):
        kind, variant, part = shape
        return model(kind, variant).unit_part(part, coarse=level < FINE_LEVEL)
    import trimesh  # only to build a primitive the asset cache does not hold

    sections = (12, 32, 32)[level]  # shaded with face normals: fewer sections would show as bands
    if shape == "box":
        mesh = trimesh.creation.box((1, 1, 1))
    elif shape == "cylinder":
        mesh = trimesh.creation.cylinder(radius=0.5, height=1.0, sections=sections)
    elif shape == "cone":
        mesh = trimesh.creation.cone(radius=0.5, height=1.0, sections=sections)
        mesh.apply_translation((0, 0, -0.5))
    elif shape == "sphere":
        mesh = trimesh.creation.icosphere(subdivisions=(1, 2, 3)[level], radius=0.5)
    elif shape == "capsule":
        count = ((8, 8), (12, 12), (16, 16))[level]
        mesh = trimesh.creation.capsule(height=0.5, radius=0.25, count=count)
        mesh.apply_scale((2.0, 2.0, 1.0))
    else:
        raise ValueError(f"unknown shape {shape!r}")
    return mesh


@lru_cache(maxsize=4096)
def triangle_soup(shape: MeshKey, level: int = FINE_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(positions, normals) per corner of every triangle, float32, for a vertex buffer."""
    key = "/".join(map(str, shape)) if isinstance(shape, tuple) else shape
    soup = cached("triangle-soup", f"{key}/{level}", lambda: _soup(shape, level))
    return soup["positions"], soup["normals"]


def _soup(shape: MeshKey, level: int) -> dict[str, np.ndarray]:
    mesh = unit_mesh(shape, level)
    positions = mesh.vertices[mesh.faces].reshape(-1, 3)
    if smooth(shape):
        normals = mesh.vertex_normals[mesh.faces].reshape(-1, 3)
    else:
        normals = np.repeat(mesh.face_normals, 3, axis=0)
    return {"positions": positions.astype(np.float32), "normals": normals.astype(np.float32)}
