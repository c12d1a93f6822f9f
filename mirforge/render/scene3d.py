"""A small 3D scene graph: coloured primitives on a floor, cameras, a light rig and a backdrop.

Pure data: nothing here imports a renderer. Units are metres-like world units, z is up, the ground is z = 0.
How things look (materials, light, backdrop) is in :mod:`mirforge.render.look`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from mirforge.render.look import Look, material

SHAPES = ("box", "cylinder", "cone", "sphere", "capsule")

# Names a reader can say and a model can see; all far apart in RGB.
PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 40),
    "green": (40, 170, 60),
    "blue": (40, 80, 220),
    "yellow": (235, 205, 40),
    "purple": (140, 60, 190),
    "cyan": (40, 200, 210),
    "orange": (245, 130, 30),
    "gray": (130, 130, 130),
    "brown": (130, 80, 40),
    "pink": (240, 130, 190),
}

SHAPE_NOUNS = {"box": "cube", "cylinder": "cylinder", "cone": "cone", "sphere": "sphere", "capsule": "capsule"}


@dataclass(frozen=True)
class Object3D:
    """One primitive, or an everyday object when ``shape`` is a kind of :mod:`mirforge.render.objects` (then
    ``variant`` picks its design). ``size`` is its axis-aligned extent (before yaw); it stands on ``base`` height.
    ``pitch`` tilts it about its own y axis through its centre (radians, > 0 lowers its +x end: a balance's beam);
    the floor's contact shadows still treat it as upright, so tilt only what is held above the floor."""

    name: str
    shape: str
    size: tuple[float, float, float]
    color: tuple[int, int, int]
    position: tuple[float, float]
    base: float = 0.0
    yaw: float = 0.0
    variant: int = 0  # of a catalogue kind; primitives have none
    material: str = "rubber"  # a name in look.MATERIALS; a catalogue kind's parts carry their own material tags
    pitch: float = 0.0

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            from mirforge.render.objects import KINDS

            if self.shape not in KINDS:
                raise ValueError(f"unknown shape {self.shape!r}; expected one of {SHAPES} or an object kind")
        if min(self.size) <= 0:
            raise ValueError(f"object {self.name!r}: sizes must be positive, got {self.size}")
        material(self.material)  # unknown names are bad input

    @property
    def center(self) -> np.ndarray:
        return np.array([self.position[0], self.position[1], self.base + self.size[2] / 2])

    def pose(self) -> np.ndarray:
        """Unit box -> world (size, then pitch, then yaw, then the centre); a fresh copy each call."""
        return _object_pose(self).copy()

    def corners(self) -> np.ndarray:
        """The 8 corners of the object's box, in world coordinates (for amodal projections)."""
        return (_object_pose(self) @ _UNIT_CORNERS).T[:, :3]


_UNIT_CORNERS = np.array([[x, y, z, 1] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]).T


@lru_cache(maxsize=4096)
def _object_pose(obj: Object3D) -> np.ndarray:
    """Cached: a renderer asks for every object's pose and corners several times a scene."""
    c, s = math.cos(obj.yaw), math.sin(obj.yaw)
    m = np.eye(4)
    rotation = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    if obj.pitch:
        c, s = math.cos(obj.pitch), math.sin(obj.pitch)
        rotation = rotation @ np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    m[:3, :3] = rotation @ np.diag(obj.size)
    m[:3, 3] = obj.center
    return m


@dataclass(frozen=True)
class Camera:
    eye: tuple[float, float, float]
    target: tuple[float, float, float] = (0.0, 0.0, 0.0)
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    projection: str = "perspective"  # or "orthographic"
    yfov: float = math.pi / 4
    half_extent: float = 3.0  # orthographic: half the visible width and height

    def pose(self) -> np.ndarray:
        """Camera-to-world matrix in OpenGL convention (looks along its local -z, +y up); a fresh copy each call
        (layout searches ask the same camera thousands of times)."""
        return _camera_pose(self).copy()

    def project(self, points: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """World points -> (pixel x/y array, depth along the view axis) for a square image of ``size``."""
        points = np.asarray(points, dtype=float)
        pts = np.ones((len(points), 4))
        pts[:, :3] = points
        cam = (_camera_view(self) @ pts.T).T[:, :3]
        depth = -cam[:, 2]
        if self.projection == "orthographic":
            ndc = cam[:, :2] / self.half_extent
        else:
            f = 1.0 / math.tan(self.yfov / 2)
            ndc = cam[:, :2] * f / depth[:, None]
        px = np.stack([(ndc[:, 0] + 1) * size / 2, (1 - ndc[:, 1]) * size / 2], axis=1)
        return px, depth


@lru_cache(maxsize=1024)
def _camera_view(cam: Camera) -> np.ndarray:
    """World-to-camera matrix (the pose's inverse), cached like the pose; read-only callers only."""
    return np.linalg.inv(_camera_pose(cam))


@lru_cache(maxsize=1024)
def _camera_pose(cam: Camera) -> np.ndarray:
    eye, target, up = (np.asarray(v, dtype=float) for v in (cam.eye, cam.target, cam.up))
    back = eye - target
    back /= np.linalg.norm(back)
    right = np.cross(up, back)
    if np.linalg.norm(right) < 1e-9:
        raise ValueError(f"camera up vector {cam.up} is parallel to its viewing direction")
    right /= np.linalg.norm(right)
    true_up = np.cross(back, right)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, true_up, back, eye
    return m


@dataclass(frozen=True)
class Scene3D:
    objects: tuple[Object3D, ...]
    ground: bool = True  # draw the backdrop's floor
    look: Look = Look()  # backdrop and light; a task draws one with look.draw_look (default: a table on white)
    extras: dict = field(default_factory=dict, compare=False)

    def index(self, name: str) -> int:
        for i, obj in enumerate(self.objects):
            if obj.name == name:
                return i
        raise KeyError(name)


def orbit_camera(
    azimuth_deg: float,
    elevation_deg: float,
    distance: float,
    target: tuple[float, float, float] = (0.0, 0.0, 0.3),
    yfov: float = math.pi / 4,
) -> Camera:
    """A perspective camera on a sphere around ``target``; azimuth 0 looks from -y toward +y (the front)."""
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    eye = (
        target[0] + distance * math.cos(el) * math.sin(az),
        target[1] - distance * math.cos(el) * math.cos(az),
        target[2] + distance * math.sin(el),
    )
    return Camera(eye=eye, target=target, yfov=yfov)


def ortho_view(which: str, half_extent: float, height: float = 0.5) -> Camera:
    """Orthographic front (from -y), side (from +x, the right) or top (from +z, +y up in the image) view."""
    far = 20.0
    if which == "front":
        return Camera(eye=(0, -far, height), target=(0, 0, height), projection="orthographic", half_extent=half_extent)
    if which == "side":
        return Camera(eye=(far, 0, height), target=(0, 0, height), projection="orthographic", half_extent=half_extent)
    if which == "top":
        return Camera(
            eye=(0, 0, far), target=(0, 0, 0), up=(0, 1, 0), projection="orthographic", half_extent=half_extent
        )
    raise ValueError(f"unknown orthographic view {which!r}; expected front, side or top")
