"""pyrender views of a :class:`Scene3D`: colour, depth and per-object ids, offscreen.

One renderer per process, created lazily on first use and reused: a GL context costs 100-300 ms, and a context
made before a fork breaks the children, so executors start workers with ``spawn`` and never render in the parent.
The platform is EGL (Mesa llvmpipe works without a GPU); ``MIRFORGE_GL=osmesa`` selects OSMesa instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

import numpy as np

from mirforge.errors import MirforgeError
from mirforge.render.scene3d import Camera, Object3D, Scene3D

PLATFORM = os.environ.get("MIRFORGE_GL", "egl")
os.environ.setdefault("PYOPENGL_PLATFORM", PLATFORM)

import pyrender  # noqa: E402  (PYOPENGL_PLATFORM must be set before the first OpenGL import)
import trimesh  # noqa: E402

RENDERER_NAME = f"pyrender/{os.environ['PYOPENGL_PLATFORM']}"


@dataclass
class View:
    """One rendered image with what was measured from it."""

    rgb: np.ndarray  # H x W x 3 uint8
    ids: np.ndarray | None  # H x W int16: 0 background, i + 1 for scene object i
    depth: np.ndarray | None  # H x W float32 distance along the view axis, 0 where nothing was hit

    def pixels(self, i: int) -> int:
        return int(np.count_nonzero(self.ids == i + 1))

    def box(self, i: int) -> list[int] | None:
        """Visible (modal) pixel box of object ``i`` as [x0, y0, x1, y1], x1/y1 exclusive; None if hidden."""
        ys, xs = np.nonzero(self.ids == i + 1)
        if len(xs) == 0:
            return None
        return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]

    def mean_depth(self, i: int) -> float | None:
        mask = self.ids == i + 1
        return float(self.depth[mask].mean()) if mask.any() else None


@cache
def _unit_mesh(shape: str) -> trimesh.Trimesh:
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
    else:
        raise ValueError(f"unknown shape {shape!r}")
    return mesh


@cache
def _mesh(shape: str, color: tuple[int, int, int]) -> pyrender.Mesh:
    material = pyrender.MetallicRoughnessMaterial(
        baseColorFactor=[c / 255 for c in color] + [1.0], metallicFactor=0.0, roughnessFactor=0.9
    )
    return pyrender.Mesh.from_trimesh(_unit_mesh(shape), material=material, smooth=shape in ("sphere", "capsule"))


@cache
def _ground(color: tuple[int, int, int]) -> pyrender.Mesh:
    material = pyrender.MetallicRoughnessMaterial(
        baseColorFactor=[c / 255 for c in color] + [1.0], metallicFactor=0.0, roughnessFactor=1.0
    )
    plane = trimesh.creation.box((40, 40, 0.02))
    plane.apply_translation((0, 0, -0.011))
    return pyrender.Mesh.from_trimesh(plane, material=material)


class Renderer:
    """Renders views of scenes at one square size. Use :func:`renderer` to get the process's instance."""

    def __init__(self, size: int):
        try:
            self._r = pyrender.OffscreenRenderer(size, size)
        except Exception as exc:  # the GL stack reports missing libraries in many shapes
            raise MirforgeError(
                f"cannot create an offscreen {RENDERER_NAME} context ({type(exc).__name__}: {exc}); "
                "install libegl1 libgl1 (EGL) or libosmesa6 and set MIRFORGE_GL=osmesa"
            ) from exc
        self.size = size

    def views(self, scene: Scene3D, cameras: list[Camera], *, seg: bool = True, flat: bool = False) -> list[View]:
        """Colour (lit or flat) for each camera, plus object ids and depth when ``seg`` is set."""
        pr_scene, nodes = self._build(scene)
        seg_map = {node: _id_color(i) for i, node in enumerate(nodes)}
        flags = pyrender.RenderFlags.FLAT if flat else pyrender.RenderFlags.NONE
        out = []
        for cam in cameras:
            cam_node = pr_scene.add(_pr_camera(cam), pose=cam.pose())
            pr_scene.main_camera_node = cam_node
            rgb, depth = self._r.render(pr_scene, flags=flags)
            ids = None
            if seg:
                seg_rgb, depth = self._r.render(pr_scene, flags=pyrender.RenderFlags.SEG, seg_node_map=seg_map)
                ids = seg_rgb[..., 0].astype(np.int16) | (seg_rgb[..., 1].astype(np.int16) << 8)
            pr_scene.remove_node(cam_node)
            out.append(View(rgb=np.ascontiguousarray(rgb[..., :3]), ids=ids, depth=np.asarray(depth, dtype=np.float32)))
        return out

    def _build(self, scene: Scene3D) -> tuple[pyrender.Scene, list[pyrender.Node]]:
        bg = [c / 255 for c in scene.background] + [1.0]
        pr_scene = pyrender.Scene(bg_color=bg, ambient_light=[0.35, 0.35, 0.35])
        if scene.ground:
            pr_scene.add(_ground(scene.ground_color))
        nodes = [pr_scene.add(_mesh(o.shape, o.color), pose=o.pose()) for o in scene.objects]
        direction = np.asarray(scene.light_direction, dtype=float)
        light_pose = Camera(
            eye=tuple(-direction),
            target=(0, 0, 0),
            up=(0, 1, 0) if abs(direction[2]) > 0.99 * np.linalg.norm(direction) else (0, 0, 1),
        )
        pr_scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=3.0), pose=light_pose.pose())
        return pr_scene, nodes


def _id_color(i: int) -> np.ndarray:
    return np.array([(i + 1) & 255, (i + 1) >> 8, 0], dtype=np.uint8)


def _pr_camera(cam: Camera) -> pyrender.Camera:
    if cam.projection == "orthographic":
        return pyrender.OrthographicCamera(xmag=cam.half_extent, ymag=cam.half_extent, znear=0.05, zfar=60.0)
    return pyrender.PerspectiveCamera(yfov=cam.yfov, aspectRatio=1.0, znear=0.05, zfar=60.0)


@cache
def renderer(size: int) -> Renderer:
    """This process's renderer for square images of ``size`` pixels, created on first use."""
    return Renderer(size)


def amodal_box(obj: Object3D, cam: Camera, size: int) -> list[int]:
    """The projected box of the whole object (hidden parts included), clipped to the image."""
    px, _ = cam.project(obj.corners(), size)
    x0, y0 = np.clip(np.floor(px.min(axis=0)), 0, size).astype(int)
    x1, y1 = np.clip(np.ceil(px.max(axis=0)), 0, size).astype(int)
    return [int(x0), int(y0), int(x1), int(y1)]
