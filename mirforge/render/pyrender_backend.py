"""The reference 3D backend: pyrender, offscreen through EGL (``MIRFORGE_GL=osmesa`` selects OSMesa)."""

from __future__ import annotations

import os
from functools import cache

import numpy as np

from mirforge.errors import MirforgeError
from mirforge.render.meshes import MeshKey, draw_parts, smooth, unit_mesh
from mirforge.render.scene3d import Camera, Scene3D
from mirforge.render.view import View

PLATFORM = os.environ.get("MIRFORGE_GL", "egl")
os.environ.setdefault("PYOPENGL_PLATFORM", PLATFORM)

import pyrender  # noqa: E402  (PYOPENGL_PLATFORM must be set before the first OpenGL import)


@cache
def _mesh(parts: tuple[tuple[MeshKey, tuple[int, int, int]], ...]) -> pyrender.Mesh:
    """One mesh of an object's parts (see ``draw_parts``), each a primitive with its own colour."""
    primitives = []
    for key, color in parts:
        material = pyrender.MetallicRoughnessMaterial(
            baseColorFactor=[c / 255 for c in color] + [1.0], metallicFactor=0.0, roughnessFactor=0.9
        )
        primitives += pyrender.Mesh.from_trimesh(unit_mesh(key), material=material, smooth=smooth(key)).primitives
    return pyrender.Mesh(primitives)


@cache
def _ground(color: tuple[int, int, int]) -> pyrender.Mesh:
    material = pyrender.MetallicRoughnessMaterial(
        baseColorFactor=[c / 255 for c in color] + [1.0], metallicFactor=0.0, roughnessFactor=1.0
    )
    return pyrender.Mesh.from_trimesh(unit_mesh("ground"), material=material)


class PyrenderRenderer:
    """The reference backend: pyrender's PBR shading with 4x MSAA; ids and depth from a second (SEG) pass.

    Its orthographic depth buffer is not linearised (pyrender returns raw values); use the moderngl backend, or
    perspective cameras, where depth values matter."""

    def __init__(self, size: int):
        self.name = f"pyrender/{os.environ['PYOPENGL_PLATFORM']}"
        try:
            self._r = pyrender.OffscreenRenderer(size, size)
        except Exception as exc:  # the GL stack reports missing libraries in many shapes
            raise MirforgeError(
                f"cannot create an offscreen {self.name} context ({type(exc).__name__}: {exc}); "
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
        nodes = [pr_scene.add(_mesh(tuple(draw_parts(o))), pose=o.pose()) for o in scene.objects]
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
