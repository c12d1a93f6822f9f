"""A fast offscreen backend: moderngl on EGL with a small Lambert shader.

One pass writes colour, object ids and depth together, without multisampling: ids are exact, and on llvmpipe a
4x multisampled pass and its resolve would cost more than everything else together. It renders the same scene
graph with the same cameras as the pyrender reference; masks and boxes agree with it to a pixel (tested), colours
are close but not identical, and edges are not antialiased.
"""

from __future__ import annotations

import numpy as np

from mirforge.errors import MirforgeError
from mirforge.render.meshes import draw_parts, triangle_soup
from mirforge.render.scene3d import Camera, Scene3D
from mirforge.render.view import View, projection_matrix

ZNEAR, ZFAR = 0.05, 60.0
GROUND_ID = 32767  # drawn with its own id so that "nothing drawn" (0) is told apart; reported as 0
# fitted to the pyrender reference's output (sRGB, PBR with roughness 0.9) on flat faces
AMBIENT, DIFFUSE, SHEEN = 0.59, 1.46, 0.13

VERTEX = """
#version 330
uniform mat4 mvp;
uniform mat3 normal_matrix;
in vec3 in_position;
in vec3 in_normal;
out vec3 v_normal;
void main() {
    v_normal = normalize(normal_matrix * in_normal);
    gl_Position = mvp * vec4(in_position, 1.0);
}
"""

FRAGMENT = """
#version 330
uniform vec3 color;
uniform vec3 light_dir;
uniform int object_id;
uniform float ambient;
uniform float diffuse;
uniform float sheen;
in vec3 v_normal;
layout(location = 0) out vec4 out_color;
layout(location = 1) out int out_id;
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    float lambert = max(dot(n, -light_dir), 0.0);
    vec3 linear = pow(color, vec3(2.2)) * (ambient + diffuse * lambert) + sheen;
    out_color = vec4(pow(clamp(linear, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
    out_id = object_id;
}
"""


class ModernglRenderer:
    """Same interface as the pyrender backend: ``views(scene, cameras, seg=...)``."""

    name = "moderngl/egl"

    def __init__(self, size: int):
        import moderngl

        try:
            self.ctx = moderngl.create_context(standalone=True, backend="egl")
        except Exception as exc:
            raise MirforgeError(
                f"cannot create a moderngl EGL context ({type(exc).__name__}: {exc}); install libegl1 libgl1, "
                "or use --renderer pyrender"
            ) from exc
        self.size = size
        self.program = self.ctx.program(vertex_shader=VERTEX, fragment_shader=FRAGMENT)
        self.ctx.enable(moderngl.DEPTH_TEST)
        shape = (size, size)
        color, ids = self.ctx.renderbuffer(shape, 4), self.ctx.renderbuffer(shape, 1, dtype="i4")
        depth = self.ctx.depth_renderbuffer(shape)
        self.ids_fbo = self.ctx.framebuffer(color_attachments=[color, ids], depth_attachment=depth)
        # Cleared apart: one clear colour for both would write the background's float bits into the id buffer.
        self._color_fbo = self.ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
        self._id_fbo = self.ctx.framebuffer(color_attachments=[ids])
        self._vaos: dict[str, object] = {}

    def _vao(self, shape: str):
        if shape not in self._vaos:
            positions, normals = triangle_soup(shape)
            data = np.hstack([positions, normals]).astype("f4")
            vbo = self.ctx.buffer(data.tobytes())
            self._vaos[shape] = self.ctx.vertex_array(self.program, [(vbo, "3f 3f", "in_position", "in_normal")])
        return self._vaos[shape]

    def views(self, scene: Scene3D, cameras: list[Camera], *, seg: bool = True, flat: bool = False) -> list[View]:
        with self.ctx:  # make this renderer's context current: a process may hold one per image size
            return [self._view(scene, cam, seg, flat) for cam in cameras]

    def _view(self, scene: Scene3D, cam: Camera, seg: bool, flat: bool) -> View:
        self._draw(scene, cam, flat)
        raw = np.frombuffer(self.ids_fbo.read(attachment=1, components=1, dtype="i4"), dtype=np.int32)
        raw = np.flipud(raw.reshape(self.size, self.size))
        rgb = self._read_rgb(self.ids_fbo)
        ids = depth = None
        if seg:
            ids = np.where(raw == GROUND_ID, 0, raw).astype(np.int16)
            depth = self._linear_depth(cam, self.ids_fbo)
            depth[ids == 0] = 0.0
        return View(rgb=rgb, ids=ids, depth=depth)

    def _draw(self, scene: Scene3D, cam: Camera, flat: bool) -> None:
        self._color_fbo.clear(*(c / 255 for c in scene.background), 1.0, depth=1.0)
        self._id_fbo.clear(0.0, 0.0, 0.0, 0.0)  # zero bits: id 0, the background
        self.ids_fbo.use()
        view_proj = projection_matrix(cam, ZNEAR, ZFAR) @ np.linalg.inv(cam.pose())
        light = np.asarray(scene.light_direction, dtype=float)
        self.program["light_dir"].value = tuple(light / np.linalg.norm(light))
        self.program["ambient"].value = 1.0 if flat else AMBIENT
        self.program["diffuse"].value = 0.0 if flat else DIFFUSE
        self.program["sheen"].value = 0.0 if flat else SHEEN
        items = [("ground", np.eye(4), scene.ground_color, GROUND_ID)] if scene.ground else []
        items += [(key, o.pose(), color, i + 1) for i, o in enumerate(scene.objects) for key, color in draw_parts(o)]
        for shape, model, color, object_id in items:
            self.program["mvp"].write((view_proj @ model).T.astype("f4").tobytes())
            self.program["normal_matrix"].write(np.linalg.inv(model[:3, :3]).astype("f4").tobytes())
            self.program["color"].value = tuple(c / 255 for c in color)
            self.program["object_id"].value = object_id
            self._vao(shape).render()

    def _read_rgb(self, fbo) -> np.ndarray:
        data = np.frombuffer(fbo.read(components=3), dtype=np.uint8).reshape(self.size, self.size, 3)
        return np.flipud(data).copy()

    def _linear_depth(self, cam: Camera, fbo) -> np.ndarray:
        d = np.frombuffer(fbo.read(attachment=-1, components=1, dtype="f4"), dtype=np.float32).reshape(
            self.size, self.size
        )
        d = np.flipud(d)
        near, far = np.float32(ZNEAR), np.float32(ZFAR)  # float32 throughout: float64 took 2 ms a view
        if cam.projection == "orthographic":
            return near + d * (far - near)
        ndc = np.float32(2) * d - np.float32(1)
        return np.float32(2) * near * far / (far + near - ndc * (far - near))
