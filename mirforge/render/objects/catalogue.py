"""The object catalogue: everyday objects as procedural meshes, built lazily and cached per (kind, variant).

A variant is any non-negative integer. ``variant % len(kind.combos)`` picks the style and finish (so the first
variants show every style, then every finish); the proportions within the style are drawn from a generator
seeded by (kind, variant) alone, so the same pair gives the same mesh bytes in any process.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from mirforge.errors import InputError
from mirforge.render.asset_cache import cached
from mirforge.render.objects import geometry, kinds_furniture, kinds_household, kinds_kitchen, kinds_toys  # noqa: F401
from mirforge.render.objects.geometry import corner_normals
from mirforge.render.objects.spec import COLORS, MATERIALS, REGISTRY, RGB, Kind
from mirforge.seeding import stable_hash

if TYPE_CHECKING:
    import trimesh

KINDS: tuple[str, ...] = tuple(sorted(REGISTRY))
CREASE_DEGREES = 35.0  # edges sharper than this stay sharp in the shading; gentler ones are smoothed
OWN_PAINT = 40.0  # a paint within this RGB distance of a colour the kind comes in passes for that colour


def get_kind(name: str) -> Kind:
    if name not in REGISTRY:
        raise InputError(f"object kind {name!r} is not in the catalogue; valid kinds: {', '.join(KINDS)}")
    return REGISTRY[name]


@dataclass(frozen=True, eq=False)
class Part:
    role: str
    color_name: str
    color: RGB
    material: str
    primary: bool  # takes the object's own colour when placed in a scene
    # the surface in metres, in the object's frame: footprint centred on the origin, standing on z = 0
    vertices: np.ndarray
    faces: np.ndarray

    @cached_property
    def mesh(self) -> trimesh.Trimesh:
        """The part as a trimesh, built on first use (rendering reads the arrays)."""
        import trimesh

        return trimesh.Trimesh(self.vertices, self.faces, process=False)

    @cached_property
    def area(self) -> float:
        """Surface area in square metres (computed as trimesh does, to the last bit)."""
        triangles = self.vertices[self.faces].astype(np.float64)
        edges = triangles[:, 1:] - triangles[:, :2]
        cross = np.cross(edges[:, 0], edges[:, 1])
        return float((np.sqrt((cross**2).sum(axis=1)) / 2.0).sum())


@dataclass(frozen=True, eq=False)
class ObjectModel:
    kind: str
    variant: int
    style: str
    parts: tuple[Part, ...]
    frame: np.ndarray  # how the builder's parts were placed: offset (x, y, z), then scale (see _build)

    @property
    def noun(self) -> str:
        """What a person calls it: its kind, or its style where the kind's word also fits other kinds (a beach ball
        beside a soccer ball is not "the ball"), or the kind's own word for it where the kind's names only part of it
        ("potted plant")."""
        spec = REGISTRY[self.kind]
        fallback = self.style if spec.named_by_style else self.kind
        return spec.nouns.get(self.style, spec.nouns.get("*", fallback))

    def painted_noun(self, color: RGB) -> str:
        """What a person calls it with its primary parts painted ``color``: its :attr:`noun` while the paint passes
        for a colour the kind comes in (a cardboard box painted brown is still cardboard to look at), else the
        kind's word for it painted, where its name says what the paint hides (a pink cardboard box is a "box", a
        glass painted one opaque colour a "tumbler"); every other name fits any colour."""
        spec = REGISTRY[self.kind]
        if any(_distance(color, c) <= OWN_PAINT for c in own_colors(self.kind)):
            return self.noun
        return spec.painted.get(self.style, spec.painted.get("*", self.noun))

    @cached_property
    def bounds(self) -> np.ndarray:
        corners = np.vstack([p.vertices[p.faces].reshape(-1, 3) for p in self.parts])  # the vertices faces use
        return np.array([corners.min(axis=0), corners.max(axis=0)])

    @property
    def extents(self) -> tuple[float, float, float]:
        """Width (x), depth (y) and height (z) in metres as built."""
        return tuple(float(v) for v in self.bounds[1] - self.bounds[0])

    @property
    def height(self) -> float:
        return self.extents[2]

    @property
    def primary(self) -> Part:
        return next(p for p in self.parts if p.primary)

    @property
    def color(self) -> RGB:
        return self.primary.color

    @property
    def color_name(self) -> str:
        return self.primary.color_name

    @property
    def material(self) -> str:
        return self.primary.material

    def size_for_height(self, height: float) -> tuple[float, float, float]:
        """The extents of this object scaled uniformly to ``height`` (an ``Object3D`` size; see :mod:`.place`)."""
        scale = height / self.height
        return tuple(float(v * scale) for v in self.extents)

    def unit_part(self, i: int, coarse: bool = False) -> trimesh.Trimesh:
        """Part ``i`` fitted into the object's unit box [-0.5, 0.5]^3, one vertex per face corner, with
        crease-aware vertex normals (the renderers' input, cached as a triangle soup; the scene's pose scales it
        back to its size). ``coarse``: the part at the coarse resolution (``geometry.coarse``), in the same box."""
        import trimesh

        mesh = self._coarse_meshes[i] if coarse else self.parts[i].mesh
        center = self.bounds.mean(axis=0)
        extents = self.bounds[1] - self.bounds[0]
        positions = (mesh.vertices[mesh.faces].reshape(-1, 3) - center) / extents
        normals = corner_normals(mesh, CREASE_DEGREES).reshape(-1, 3) * extents  # normals scale inversely
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        faces = np.arange(len(positions)).reshape(-1, 3)
        return trimesh.Trimesh(positions, faces, vertex_normals=normals, process=False)

    @cached_property
    def _coarse_meshes(self) -> tuple[trimesh.Trimesh, ...]:
        import trimesh

        key = f"{self.kind}/{self.variant}/coarse"
        built = cached("object-model", key, lambda: _build(self.kind, self.variant, self.frame))
        return tuple(
            trimesh.Trimesh(built[f"vertices{i}"], built[f"faces{i}"], process=False) for i in range(len(self.parts))
        )


def own_colors(kind: str) -> tuple[RGB, ...]:
    """The colours the primary parts of ``kind`` come in, over all its finishes."""
    return tuple(COLORS[name] for name in dict.fromkeys(fin.color_name for _, fin in get_kind(kind).combos))


def _distance(a: RGB, b: RGB) -> float:
    return float(np.linalg.norm(np.subtract(a, b, dtype=float)))


def model(kind: str, variant: int = 0) -> ObjectModel:
    """The object ``kind`` in its ``variant`` (built on first use, then cached)."""
    get_kind(kind)
    if not isinstance(variant, int | np.integer) or variant < 0:
        raise InputError(f"object variant: {variant!r} must be an integer >= 0")
    return _model(kind, int(variant))


@lru_cache(maxsize=2048)
def _model(name: str, variant: int) -> ObjectModel:
    spec = REGISTRY[name]
    style, fin = spec.combos[variant % len(spec.combos)]
    built = cached("object-model", f"{name}/{variant}", lambda: _build(name, variant))
    colors = {role: (color, material) for role, color, material in fin.roles}
    parts = []
    for i, role in enumerate(str(r) for r in built["roles"]):
        if role in colors:
            color, material = colors[role]
        elif role in spec.fixed:
            color, material = spec.fixed[role]
        else:
            raise ValueError(f"{name} ({style.name}): part role {role!r} has no colour in finish {fin.label()}")
        # the stored arrays alone (no normals or other state carried over from the builder), so a model read from
        # the asset cache is the same to the last bit as one built here
        vertices, faces = built[f"vertices{i}"], built[f"faces{i}"]
        parts.append(Part(role, color, COLORS[color], material, role == fin.primary, vertices, faces))
    return ObjectModel(name, variant, style.name, tuple(parts), built["frame"])


def _build(name: str, variant: int, frame: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The parts of ``name`` in ``variant`` as arrays: roles, and vertices and faces per part, in metres; and the
    frame that placed them (offset, then scale). With the fine build's ``frame``: the coarse parts
    (``geometry.coarse``), placed by it, so that they sit in the same box."""
    spec = REGISTRY[name]
    style, _ = spec.combos[variant % len(spec.combos)]
    rng = np.random.default_rng([stable_hash(name), variant])
    height = float(rng.uniform(*style.height))
    with geometry.coarse(height) if frame is not None else nullcontext():
        built = spec.build(rng, style.name, height)
    if frame is None:  # footprint centred on the origin, on the ground, exactly as tall as drawn (builders come close)
        lo = np.min([mesh.bounds[0] for _, mesh in built], axis=0)
        hi = np.max([mesh.bounds[1] for _, mesh in built], axis=0)
        frame = np.array([-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2], height / (hi[2] - lo[2])])
    arrays = {"roles": np.array([role for role, _ in built]), "frame": frame}
    for i, (_, mesh) in enumerate(built):
        mesh.apply_translation(frame[:3])
        mesh.apply_scale(frame[3])
        arrays[f"vertices{i}"] = np.asarray(mesh.vertices, dtype=np.float64)
        arrays[f"faces{i}"] = np.asarray(mesh.faces, dtype=np.int64)
    return arrays


def variants(kind: str, material: str | None = None) -> tuple[int, ...]:
    """The base variants (one per style and finish) of ``kind``, only those whose main material is ``material``
    when given. Adding a multiple of ``len(variants(kind))`` keeps the style and finish, changes proportions."""
    spec = get_kind(kind)
    if material is None:
        return tuple(range(len(spec.combos)))
    if material not in MATERIALS:
        raise InputError(f"object material {material!r} is unknown; valid materials: {', '.join(MATERIALS)}")
    out = tuple(i for i, (_, fin) in enumerate(spec.combos) if fin.material == material)
    if not out:
        raise InputError(
            f"object material {material!r} is not offered for {kind!r}; choose {', '.join(spec.materials)}"
        )
    return out


def describe(kind: str) -> dict[str, Any]:
    """One catalogue entry as plain data (the `mirforge objects --json` record)."""
    spec = get_kind(kind)
    return {
        "kind": spec.name,
        "height_m": list(spec.height),
        "variants": len(spec.combos),
        "styles": [{"name": s.name, "height_m": list(s.height), "finishes": len(s.finishes)} for s in spec.styles],
        "materials": list(spec.materials),
        "source": spec.source,
        "licence": spec.licence,
    }


def catalogue() -> list[dict[str, Any]]:
    return [describe(k) for k in KINDS]


def table() -> list[str]:
    """One line per kind: name, real height range, variants (styles x finishes), source, licence."""
    lines = []
    for entry in catalogue():
        lo, hi = entry["height_m"]
        styles = ", ".join(s["name"] for s in entry["styles"])
        lines.append(
            f"{entry['kind']:14} {f'{lo:g}-{hi:g} m':13} {entry['variants']:2} variants ({styles})  "
            f"{entry['source']}, {entry['licence']}"
        )
    return lines
