"""The reference 3D backend: pyrender, offscreen through EGL (``MIRFORGE_GL=osmesa`` selects OSMesa).

It draws the same scene with the same radiometry as the default backend (materials as pyrender's metallic-roughness
PBR, the sun as a directional light of the same irradiance, the sky as ambient light, the backdrop's floor with its
texture and placement, the sky colour behind), with pyrender's own 4x MSAA. It has no cast shadows (pyrender's
shadow map would have to span the whole horizon floor), no ambient occlusion and no floor bounce: those are the
default backend's additions, checked against Blender Cycles by ``benchmarks/fidelity.py``.
"""

from __future__ import annotations

import os
from functools import cache, lru_cache

import numpy as np

from mirforge.errors import MirforgeError
from mirforge.render.look import FLOOR_Z, Backdrop, Material
from mirforge.render.meshes import MeshKey, draw_parts, smooth, unit_mesh
from mirforge.render.scene3d import Camera, Scene3D
from mirforge.render.textures import floor_texture, srgb_to_linear
from mirforge.render.view import ZFAR, ZNEAR, View

PLATFORM = os.environ.get("MIRFORGE_GL", "egl")
os.environ.setdefault("PYOPENGL_PLATFORM", PLATFORM)

import pyrender  # noqa: E402  (PYOPENGL_PLATFORM must be set before the first OpenGL import)

GL_LINEAR, GL_LINEAR_MIPMAP_LINEAR = 0x2601, 0x2703


@cache
def _mesh(parts: tuple[tuple[MeshKey, int, tuple[int, int, int], Material], ...]) -> pyrender.Mesh:
    """One mesh of an object's parts (see ``draw_parts``), each a primitive with its own colour and surface."""
    primitives = []
    for key, level, color, surface in parts:
        pbr = pyrender.MetallicRoughnessMaterial(
            baseColorFactor=[*srgb_to_linear(color), 1.0],
            metallicFactor=surface.metallic,
            roughnessFactor=surface.roughness,
        )
        mesh = pyrender.Mesh.from_trimesh(unit_mesh(key, level), material=pbr, smooth=smooth(key))
        primitives += mesh.primitives
    return pyrender.Mesh(primitives)


@lru_cache(maxsize=32)  # backdrops vary per scene; each holds a texture
def _floor(backdrop: Backdrop) -> pyrender.Mesh:
    e = backdrop.extent
    corners = np.array([[-e, -e, FLOOR_Z], [e, -e, FLOOR_Z], [e, e, FLOOR_Z], [-e, e, FLOOR_Z]], dtype=np.float32)
    uv = (backdrop.uv_matrix() @ np.c_[corners[:, :2], np.ones(4)].T).T.astype(np.float32)
    texture = None
    if backdrop.textured:
        texture = pyrender.Texture(
            source=np.ascontiguousarray(floor_texture(backdrop.floor, backdrop.variant)),
            source_channels="RGB",
            sampler=pyrender.Sampler(magFilter=GL_LINEAR, minFilter=GL_LINEAR_MIPMAP_LINEAR),
        )
    pbr = pyrender.MetallicRoughnessMaterial(
        baseColorFactor=[1.0, 1.0, 1.0, 1.0] if texture else [*srgb_to_linear(backdrop.color), 1.0],
        baseColorTexture=texture,
        metallicFactor=0.0,
        roughnessFactor=0.9,
    )
    primitive = pyrender.Primitive(
        positions=corners,
        normals=np.tile(np.float32([0, 0, 1]), (4, 1)),
        texcoord_0=uv,
        indices=np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32),
        material=pbr,
    )
    return pyrender.Mesh([primitive])


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
        light = scene.look.light
        bg = [c / 255 for c in scene.look.backdrop.sky] + [1.0]
        pr_scene = pyrender.Scene(bg_color=bg, ambient_light=list(light.sky))
        if scene.ground:
            pr_scene.add(_floor(scene.look.backdrop))
        nodes = [pr_scene.add(_mesh(tuple(draw_parts(o))), pose=o.pose()) for o in scene.objects]
        direction = light.unit_direction()
        light_pose = Camera(
            eye=tuple(-direction), target=(0, 0, 0), up=(0, 1, 0) if abs(direction[2]) > 0.99 else (0, 0, 1)
        )
        sun = np.asarray(light.sun)
        pr_scene.add(
            pyrender.DirectionalLight(color=sun / sun.max(), intensity=float(sun.max())), pose=light_pose.pose()
        )
        return pr_scene, nodes


def _id_color(i: int) -> np.ndarray:
    return np.array([(i + 1) & 255, (i + 1) >> 8, 0], dtype=np.uint8)


def _pr_camera(cam: Camera) -> pyrender.Camera:
    if cam.projection == "orthographic":
        return pyrender.OrthographicCamera(xmag=cam.half_extent, ymag=cam.half_extent, znear=ZNEAR, zfar=ZFAR)
    return pyrender.PerspectiveCamera(yfov=cam.yfov, aspectRatio=1.0, znear=ZNEAR, zfar=ZFAR)
