"""The default offscreen backend: moderngl on EGL (Mesa llvmpipe on a CPU), close to a path tracer at raster speed.

All objects of a scene go into one world-space vertex buffer (position, normal, albedo, material, id), so every
pass is one draw call however many objects there are. Per ``views()`` call (one scene, any number of cameras),
three small maps shared by every camera:

- the shadow map: the objects' depth seen from the sun, 512^2, fitted to their bounding sphere, read by the
  objects with 4 bilinear comparison taps (a soft penumbra); skipped when no object's shadow can reach another;
- the floor's sun map: the objects' shadows on the floor, rasterised straight into a world-space map of the floor
  (each vertex slid along the light onto the floor plane): exact for a flat floor, and one bilinear lookup per
  floor pixel, where a shadow-map test costs three times more on llvmpipe;
- the floor's occlusion map: the share of the sky each object hides from the floor around it (contact shadows),
  analytic (an upright column's silhouette, or a sphere), one square decal per object multiplied into a 128^2 map.

Then per camera one pass writes colour, object ids and depth: a Principled-like BSDF (Lambert diffuse, GGX specular
from the sun, a split-sum reflection of the sky above the horizon and the lit floor below; rubber, plastic, metal),
a hemisphere of sky and floor bounce for ambient light, the floor's texture (three trilinear taps along the pixel
footprint: anisotropic filtering) and maps (the floor beyond the maps' rectangle by a program without their
lookups). Silhouettes (and the horizon) are then anti-aliased along the exact ids (:func:`smooth_edges`);
``samples=4`` multisamples the colour instead, with ids and depth from a separate aliased pass. Either way ids never
blend: masks, boxes and depths are those of an aliased render.

Radiometry follows Blender (the sun an irradiance, the sky a radiance, linear colour until the shader writes sRGB),
so ``benchmarks/fidelity.py`` can compare with Cycles directly. The image is rendered upside down (a flipped
projection), so GL's bottom-up rows read out top-down with no copy. Everything comes from the scene (light,
backdrop, materials), so a scene gives the same bytes every time.
"""

from __future__ import annotations

import math

import numpy as np

from mirforge.errors import MirforgeError
from mirforge.render.look import FLOOR_Z, Backdrop, Light
from mirforge.render.meshes import SMALL_PIXELS, draw_parts, triangle_soup
from mirforge.render.scene3d import SHAPES, Camera, Object3D, Scene3D
from mirforge.render.textures import SIZE as TEXTURE_SIZE
from mirforge.render.textures import floor_texture, mean_albedo, srgb_to_linear
from mirforge.render.view import ZFAR, ZNEAR, View, projection_matrix

SAMPLES = 0  # multisampling of the colour pass; 0: one aliased pass, then edges smoothed along the exact ids
SHADOW_SIZE = 512  # texels about the size of a pixel of a 448 px view of the whole scene
SUN_MAP_SIZE = 256  # bilinear over texels of ~1/30 of a unit: about the penumbra of Cycles' sun (closer than 512)
AO_SIZE = 128  # the occlusion is smooth: 256 gave the same images to within 0.0001 SSIM
AO_FLOOR = 0.004  # occluders that darken the floor by less than this nowhere get no decal
TEXTURE_TAPS = 3  # along the footprint's long axis (anisotropic filtering); 1: plain trilinear
TEXTURE_LOD_BIAS = -0.25
FLOOR_ALPHA = 0.81  # GGX alpha of the floor (roughness 0.9, as in the Cycles reference)
AO_STRENGTH = 0.7  # of the analytic floor occlusion (objects are not solid columns)
GLOSSY = 0.6  # surfaces smoother than this mirror the floor; the rest see its mean radiance
BOUNCE = 0.7  # share of the floor's mean radiance that reaches objects from below (the floor under them is shaded)
FLIP_Y = np.diag([1.0, -1.0, 1.0, 1.0])
# one buffer per group, so the maps' passes fetch positions alone: world position; normal; linear albedo,
# (metallic, roughness), id
VERTEX_LAYOUT = (("3f", ("in_position",)), ("3f", ("in_normal",)), ("3f 2f 1f", ("in_albedo", "in_material", "in_id")))

VERTEX = """
#version 330
uniform mat4 mvp;             // of the floor's quad; objects are in world space and draw with model = identity
uniform mat4 model;
in vec3 in_position;
in vec3 in_normal;
in vec3 in_albedo;
in vec2 in_material;
in float in_id;
out vec3 v_world;
out vec3 v_normal;
flat out vec3 v_albedo;
flat out vec2 v_material;
flat out int v_id;
void main() {
    v_world = (model * vec4(in_position, 1.0)).xyz;
    v_normal = in_normal;
    v_albedo = in_albedo;
    v_material = in_material;
    v_id = int(in_id + 0.5);
    gl_Position = mvp * vec4(in_position, 1.0);
}
"""

# Shared by the object and floor shaders; they write sRGB-encoded colour (an sRGB framebuffer would convert for us,
# but on llvmpipe its writes and resolve cost more than the rest of the pass).
COMMON = """
#version 330
const float PI = 3.14159265;
uniform vec3 light_dir;       // the way the light travels
uniform vec3 sun;             // irradiance
uniform vec3 sky;             // radiance of the open sky
uniform vec3 bounce;          // radiance of the lit floor (what faces turned down see)
uniform vec3 eye;
uniform bool orthographic;
uniform vec3 view_dir;        // orthographic: the camera's viewing direction
uniform bool flat_color;
in vec3 v_world;
in vec3 v_normal;
flat in vec3 v_albedo;
flat in vec2 v_material;
flat in int v_id;
layout(location = 0) out vec4 out_color;
layout(location = 1) out int out_id;  // without multisampling, ids come from this pass

// linear -> sRGB; above the linear toe, Ian Taylor's fit in square roots (within 0.26 of a level; pow costs more)
vec4 encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    vec3 s1 = sqrt(c), s2 = sqrt(s1), s3 = sqrt(s2);
    vec3 curve = 0.662002687 * s1 + 0.684122060 * s2 - 0.323583601 * s3 - 0.0225411470 * c;
    return vec4(mix(c * 12.92, curve, step(vec3(0.0031308), c)), 1.0);
}

vec3 view_vector() { return orthographic ? -view_dir : normalize(eye - v_world); }
"""

OBJECT_FRAGMENT = (
    COMMON
    + """
uniform sampler2DShadow shadow_map;
uniform sampler2D floor_tex;  // what glossy objects see of the floor below the horizon
uniform vec3 floor_albedo;
uniform mat3x2 uv_matrix;
uniform float texels_per_unit;
uniform sampler2D sun_map;
uniform vec4 sun_rect;
uniform bool shadowed;        // false when no object can shadow another: the map was not drawn
uniform mat4 light_matrix;    // world -> shadow map [0, 1]^3
uniform float shadow_texel;

float sun_visibility(vec3 p, vec3 n) {
    if (!shadowed) return 1.0;
    vec3 q = (light_matrix * vec4(p + n * (1.5 * shadow_texel), 1.0)).xyz;
    float t = 0.75 * shadow_texel;
    return 0.25 * (texture(shadow_map, vec3(q.x - t, q.y - t, q.z)) + texture(shadow_map, vec3(q.x + t, q.y - t, q.z))
                 + texture(shadow_map, vec3(q.x - t, q.y + t, q.z)) + texture(shadow_map, vec3(q.x + t, q.y + t, q.z)));
}

// split-sum environment BRDF (Karis' analytic fit): scale and bias of F0 for a rough reflection
vec2 env_brdf(float roughness, float nv) {
    vec4 r = roughness * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r.x * r.x, exp2(-9.28 * nv)) * r.x + r.y;
    return vec2(-1.04, 1.04) * a004 + r.zw;
}

// the radiance of the floor where a reflected ray lands (its texture and shadows; the sky's and sun's light),
// blurred by the lobe's width (alpha) over the distance travelled
vec3 floor_seen(vec3 p, vec3 r, float alpha) {
    float t = (FLOOR_Z - p.z) / min(r.z, -1e-3);
    vec2 xy = p.xy + t * r.xy;
#ifdef TEXTURED
    float lod = log2(max(1.0, t * (alpha + 0.02) * texels_per_unit));
    vec3 albedo = textureLod(floor_tex, uv_matrix * vec3(xy, 1.0), lod).rgb;
    albedo *= albedo;  // the texture holds square roots
#else
    vec3 albedo = floor_albedo;
#endif
    vec2 at = (xy - sun_rect.xy) * sun_rect.zw, blur = t * alpha * sun_rect.zw;  // shadows blurred by the lobe too
    float shadow = 0.25 * (texture(sun_map, at + vec2(blur.x, 0.0)).r + texture(sun_map, at - vec2(blur.x, 0.0)).r
                         + texture(sun_map, at + vec2(0.0, blur.y)).r + texture(sun_map, at - vec2(0.0, blur.y)).r);
    return albedo * (sun * (max(-light_dir.z, 0.0) * shadow / PI) + sky);
}

void main() {
    out_id = v_id;
    vec3 albedo = v_albedo;
    if (flat_color) { out_color = encode(albedo); return; }
    float metallic = v_material.x, roughness = v_material.y;
    vec3 n = normalize(gl_FrontFacing ? v_normal : -v_normal);
    vec3 v = view_vector();
    vec3 l = -light_dir;
    float nl = max(dot(n, l), 0.0);
    float nv = max(dot(n, v), 1e-4);
    float shadow = nl > 0.0 ? sun_visibility(v_world, n) : 0.0;
    float up = 0.5 + 0.5 * n.z;
    vec3 ambient = sky * up + BOUNCE * bounce * (1.0 - up);

    float a = roughness * roughness;
    float a2 = a * a;
    vec3 f0 = mix(vec3(0.04), albedo, metallic);
    vec3 h = normalize(l + v);
    float nh = max(dot(n, h), 0.0);
    float q = 1.0 - max(dot(v, h), 0.0);
    float dd = nh * nh * (a2 - 1.0) + 1.0;
    float k = 0.5 * a;
    float g = 1.0 / ((nl * (1.0 - k) + k) * (nv * (1.0 - k) + k));  // Smith-Schlick G / (nl nv)
    vec3 fresnel = f0 + (1.0 - f0) * (q * q * q * q * q);
    vec3 specular = (a2 / (4.0 * PI * dd * dd) * g * nl * shadow) * fresnel * sun;

    vec3 r = reflect(-v, n);
    float w = 0.08 + 0.6 * a;
    vec2 ab = env_brdf(roughness, nv);
    vec3 spec_env = f0 * ab.x + ab.y;
#ifdef MATTE
    vec3 below = bounce;  // none of the parts this program draws is glossy enough to mirror the floor
#else
    vec3 below = roughness < GLOSSY && r.z < 0.0 ? floor_seen(v_world, r, a) : bounce;  // glossy: the floor itself
#endif
    specular += mix(below, sky, smoothstep(-w, w, r.z)) * spec_env;
    vec3 diffuse = albedo * (1.0 - metallic) * (1.0 - spec_env) * (sun * (nl * shadow / PI) + ambient);
    out_color = encode(diffuse + specular);
}
"""
)

FLOOR_FRAGMENT = (
    COMMON
    + """
uniform vec3 floor_albedo;    // linear, of a plain floor
uniform sampler2D floor_tex;  // the square root of linear albedo
uniform mat3x2 uv_matrix;     // world xy -> texture coordinates
uniform float lod_scale;      // 2^lod_bias
uniform sampler2D sun_map;    // the floor's sun visibility
uniform vec4 sun_rect;        // world xy of the map's corner, 1 / its width and height
uniform sampler2D ao_map;     // the floor's sky visibility
uniform vec4 ao_rect;

void main() {
    out_id = 0;
#if defined(TEXTURED) && TEXTURE_TAPS > 1
    // taps spread along the pixel footprint's long axis, each trilinear over its share of it: anisotropic filtering
    // at TEXTURE_TAPS lookups (llvmpipe's own takes up to 16, a hundred times slower near the horizon)
    vec2 uv = uv_matrix * vec3(v_world.xy, 1.0);
    vec2 dx = dFdx(uv), dy = dFdy(uv);
    bool along_x = dot(dx, dx) > dot(dy, dy);
    vec2 major = along_x ? dx : dy;
    const float share = 1.0 / float(TEXTURE_TAPS);
    vec2 gx = (along_x ? share : 1.0) * dx * lod_scale, gy = (along_x ? 1.0 : share) * dy * lod_scale;
    // one level of detail for every tap, from the longer scaled gradient in texels (textureGrad would work it out
    // again per tap: 7% of a textured view on llvmpipe)
    float lod = 0.5 * log2(max(dot(gx, gx), dot(gy, gy)) * TEXELS2);
    vec3 base = vec3(0.0);
    for (int k = 0; k < TEXTURE_TAPS; ++k) {
        base += textureLod(floor_tex, uv + ((float(k) + 0.5) * share - 0.5) * major, lod).rgb;
    }
    base *= share;
    base *= base;  // the texture holds square roots (averaged before squaring: a tenth cheaper than per tap)
#elif defined(TEXTURED)
    vec3 base = texture(floor_tex, uv_matrix * vec3(v_world.xy, 1.0), log2(lod_scale)).rgb;
    base *= base;
#else
    vec3 base = floor_albedo;
#endif
    if (flat_color) { out_color = encode(base); return; }
    vec3 v = view_vector();
    vec3 l = -light_dir;
#ifdef OPEN  // the floor beyond both maps: no shadow or occlusion reaches it
    float shadow = 1.0, ao = 1.0;
#else
    float shadow = texture(sun_map, (v_world.xy - sun_rect.xy) * sun_rect.zw).r;
    float ao = texture(ao_map, (v_world.xy - ao_rect.xy) * ao_rect.zw).r;
#endif
    float nl = max(l.z, 0.0);
    float nv = max(v.z, 1e-4);
    float q = 1.0 - nv;
    float spec = 0.04 + 0.06 * (q * q) * (q * q);  // a rough dielectric's reflectance, rising toward grazing
    // the sun's broad GGX lobe on the rough floor
    vec3 h = normalize(l + v);
    float dd = h.z * h.z * (FLOOR_A2 - 1.0) + 1.0;
    float g = 1.0 / ((nl * (1.0 - FLOOR_K) + FLOOR_K) * (nv * (1.0 - FLOOR_K) + FLOOR_K));
    float qh = 1.0 - max(dot(v, h), 0.0);
    float fresnel = 0.04 + 0.96 * (qh * qh) * (qh * qh) * qh;
    float glossy = FLOOR_A2 / (4.0 * PI * dd * dd) * g * nl * shadow * fresnel;
    vec3 light = sun * (nl * shadow / PI) + sky * ao;
    out_color = encode(base * (1.0 - spec) * light + sky * (ao * spec) + sun * glossy);
}
"""
)

ID_FRAGMENT = """
#version 330
flat in int v_id;
layout(location = 0) out int out_id;
void main() { out_id = v_id; }
"""

POSITION_VERTEX = """
#version 330
uniform mat4 mvp;
in vec3 in_position;
void main() { gl_Position = mvp * vec4(in_position, 1.0); }
"""

ID_VERTEX = """
#version 330
uniform mat4 mvp;
in vec3 in_position;
in float in_id;
flat out int v_id;
void main() { v_id = int(in_id + 0.5); gl_Position = mvp * vec4(in_position, 1.0); }
"""

EMPTY_FRAGMENT = """
#version 330
void main() {}
"""

# The floor's sun map: every vertex slides along the light onto the floor plane (a planar projected shadow).
PROJECT_VERTEX = """
#version 330
uniform vec3 light_dir;
uniform vec4 rect;            // the map: world xy corner, 1 / width and height
in vec3 in_position;
void main() {
    vec2 xy = in_position.xy - light_dir.xy * ((in_position.z - FLOOR_Z) / light_dir.z);
    gl_Position = vec4((xy - rect.xy) * rect.zw * 2.0 - 1.0, 0.0, 1.0);
}
"""

BLACK_FRAGMENT = """
#version 330
out vec4 out_color;
void main() { out_color = vec4(0.0); }
"""

# The floor's occlusion map: one decal per object, each fragment multiplying in (blend dst * src) the share of the
# sky (cosine-weighted) that object leaves open. An upright column of radius r hides an azimuth span of
# 2 asin(r / d) times the band of elevations between its bottom and top edges, seen from the tangent distance: exact
# for a cylinder's silhouette. A sphere hides r^2 cos / d^2. (occlusion() below is the same formula in numpy.)
DECAL_VERTEX = """
#version 330
uniform vec4 decal;           // world xy centre, half size
uniform vec4 rect;            // the map: world xy corner, 1 / size
in vec2 in_corner;
out vec2 v_xy;
void main() {
    v_xy = decal.xy + in_corner * decal.z;
    gl_Position = vec4((v_xy - rect.xy) * rect.zw * 2.0 - 1.0, 0.0, 1.0);
}
"""

DECAL_FRAGMENT = """
#version 330
const float PI = 3.14159265;
uniform vec4 occ_a;           // x, y, bottom z, radius
uniform vec2 occ_b;           // top z, 1 = sphere, 0 = column
in vec2 v_xy;
out vec4 out_vis;
void main() {
    float r = occ_a.w;
    vec2 dxy = occ_a.xy - v_xy;
    float d2 = max(dot(dxy, dxy), r * r * 1.0002);
    float occ;
    if (occ_b.y > 0.5) {
        float rise = 0.5 * (occ_a.z + occ_b.x) - FLOOR_Z;
        float l2 = d2 + rise * rise;
        occ = max(rise, 0.0) * inversesqrt(l2) * r * r / l2;
    } else {
        float run2 = d2 - r * r;
        float top = max(occ_b.x - FLOOR_Z, 0.0), bottom = max(occ_a.z - FLOOR_Z, 0.0);
        float band = top * top / (top * top + run2) - bottom * bottom / (bottom * bottom + run2);
        occ = asin(r * inversesqrt(d2)) / PI * band;
    }
    out_vis = vec4(1.0 - min(AO_STRENGTH * occ, 0.95));
}
"""


def _source(shader: str, *defines: str) -> str:
    """The shader with its #defines and the module's constants written in."""
    constants = {
        "FLOOR_Z": FLOOR_Z,
        "FLOOR_A2": FLOOR_ALPHA**2,
        "FLOOR_K": FLOOR_ALPHA / 2,
        "AO_STRENGTH": AO_STRENGTH,
        "BOUNCE": BOUNCE,
        "GLOSSY": GLOSSY,
        "TEXELS2": float(TEXTURE_SIZE**2),
    }
    header = "#version 330\n" + "".join(f"#define {d}\n" for d in (*defines, f"TEXTURE_TAPS {TEXTURE_TAPS}"))
    header += "".join(f"const float {name} = {value:.6f};\n" for name, value in constants.items())
    return shader.replace("#version 330\n", header, 1)


# the programs that light a surface; objects have three, compiled apart because llvmpipe runs every lookup of a
# shader, even under a false condition: glossy parts over a textured floor, over a plain one, and matte parts
OBJECT_PROGRAMS = ("object_tex", "object", "object_matte")
# the floor's programs by whether it is textured: where the maps reach (their rectangle), and beyond, without the
# maps' two lookups (a tenth of a view on llvmpipe); the floor is drawn as a 3 x 3 grid of cells around that rectangle
FLOOR_PROGRAMS = {False: ("floor", "floor_open"), True: ("floor_tex", "floor_tex_open")}
SHADED = (*OBJECT_PROGRAMS, *FLOOR_PROGRAMS[False], *FLOOR_PROGRAMS[True])
FLOOR_VERTICES = 6 * 9  # two triangles for each cell of the grid, the inner cell's first (see _floor_cells)


class ModernglRenderer:
    """Same interface as the pyrender backend: ``views(scene, cameras, seg=...)``."""

    name = "moderngl/egl"

    def __init__(self, size: int, samples: int = SAMPLES, small_pixels: int = SMALL_PIXELS):
        """``small_pixels``: objects spanning fewer pixels than this in every view of a scene are drawn from their
        coarse meshes (``mirforge.render.meshes.SMALL_PIXELS``; 0: always the fine ones)."""
        import moderngl

        try:
            self.ctx = moderngl.create_context(standalone=True, backend="egl")
        except Exception as exc:
            raise MirforgeError(
                f"cannot create a moderngl EGL context ({type(exc).__name__}: {exc}); install libegl1 libgl1, "
                "or use --renderer pyrender"
            ) from exc
        ctx = self.ctx
        self.size, self.samples, self.small_pixels = size, samples, small_pixels
        program = ctx.program
        self.programs = {
            "object_tex": program(vertex_shader=VERTEX, fragment_shader=_source(OBJECT_FRAGMENT, "TEXTURED")),
            "object": program(vertex_shader=VERTEX, fragment_shader=_source(OBJECT_FRAGMENT)),
            "object_matte": program(vertex_shader=VERTEX, fragment_shader=_source(OBJECT_FRAGMENT, "MATTE")),
            "floor": program(vertex_shader=VERTEX, fragment_shader=_source(FLOOR_FRAGMENT)),
            "floor_tex": program(vertex_shader=VERTEX, fragment_shader=_source(FLOOR_FRAGMENT, "TEXTURED")),
            "floor_open": program(vertex_shader=VERTEX, fragment_shader=_source(FLOOR_FRAGMENT, "OPEN")),
            "floor_tex_open": program(
                vertex_shader=VERTEX, fragment_shader=_source(FLOOR_FRAGMENT, "TEXTURED", "OPEN")
            ),
            "ids": program(vertex_shader=ID_VERTEX, fragment_shader=ID_FRAGMENT),
            "depth": program(vertex_shader=POSITION_VERTEX, fragment_shader=EMPTY_FRAGMENT),
            "project": program(vertex_shader=_source(PROJECT_VERTEX), fragment_shader=BLACK_FRAGMENT),
            "decal": program(vertex_shader=DECAL_VERTEX, fragment_shader=_source(DECAL_FRAGMENT)),
        }
        shape = (size, size)
        color, ids = ctx.renderbuffer(shape, 4), ctx.renderbuffer(shape, 1, dtype="i2")
        depth = ctx.depth_renderbuffer(shape)
        self.id_fbo = ctx.framebuffer(color_attachments=[ids], depth_attachment=depth)
        self.rgb_fbo = ctx.framebuffer(color_attachments=[color])
        if samples:  # colour multisampled on its own; ids and depth from an aliased pass (id_fbo)
            self.color_fbo = ctx.framebuffer(
                color_attachments=[ctx.renderbuffer(shape, 4, samples=samples)],
                depth_attachment=ctx.depth_renderbuffer(shape, samples=samples),
            )
        else:  # one pass writes colour, ids and depth; cleared apart (one clear value would fill both buffers)
            self.color_fbo = ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
            self.both_fbo = ctx.framebuffer(color_attachments=[color, ids], depth_attachment=depth)
        self.shadow_map = ctx.depth_texture((SHADOW_SIZE, SHADOW_SIZE))
        self.shadow_map.compare_func = "<="
        self.shadow_fbo = ctx.framebuffer(depth_attachment=self.shadow_map)
        self.sun_map = ctx.texture((SUN_MAP_SIZE, SUN_MAP_SIZE), 1)
        self.sun_fbo = ctx.framebuffer(color_attachments=[self.sun_map])
        self.ao_map = ctx.texture((AO_SIZE, AO_SIZE), 1, dtype="f2")
        self.ao_fbo = ctx.framebuffer(color_attachments=[self.ao_map])
        for tex in (self.shadow_map, self.sun_map, self.ao_map):
            tex.repeat_x = tex.repeat_y = False  # beyond a map's edge: its cleared border, lit and open
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], "f4")
        self.decal = ctx.vertex_array(self.programs["decal"], [(ctx.buffer(corners.tobytes()), "2f", "in_corner")])
        # the floor: [-1, 1]^2 facing up (its model scales it), as the cells of _floor_cells (positions written per
        # scene); its albedo and material come from uniforms
        n = FLOOR_VERTICES
        self.floor_vbo = ctx.buffer(reserve=n * 12)
        floor = [
            self.floor_vbo,
            ctx.buffer(np.tile(np.array([0, 0, 1], "f4"), (n, 1))),
            ctx.buffer(np.zeros((n, 6), "f4")),
        ]
        self.floor_vaos = {name: self._vertex_array(name, floor) for pair in FLOOR_PROGRAMS.values() for name in pair}
        self.object_vbos: list = []
        self.object_vaos: dict[str, object] = {}
        units = {"shadow_map": 0, "floor_tex": 1, "sun_map": 2, "ao_map": 3}
        for prog in self.programs.values():
            for name, unit in units.items():
                _set(prog, name, unit)
        for name in OBJECT_PROGRAMS:
            _set(self.programs[name], "shadow_texel", 1.0 / SHADOW_SIZE)
        for name in FLOOR_PROGRAMS[True]:
            _set(self.programs[name], "lod_scale", 2.0**TEXTURE_LOD_BIAS)
        self._textures: dict[tuple[str, int], object] = {}

    # -- resources ------------------------------------------------------------------------------------------------
    def _vertex_array(self, program: str, vbos: list):
        """The program's vertex array: one buffer per group of ``VERTEX_LAYOUT``, those it never reads left out."""
        prog = self.programs[program]
        content = []
        for vbo, (fmt, names) in zip(vbos, VERTEX_LAYOUT, strict=True):
            used = [name for name in names if prog.get(name, None) is not None]
            if used:
                fields = zip(fmt.split(), names, strict=True)
                content.append((vbo, " ".join(f if name in used else f"{int(f[0]) * 4}x" for f, name in fields), *used))
        return self.ctx.vertex_array(prog, content)

    def _upload_objects(self, groups: tuple[np.ndarray, ...]) -> None:
        """Write the scene's vertex groups into the objects' buffers, growing them (and the vertex arrays) when too
        small."""
        if not self.object_vbos or any(b.size < a.nbytes for b, a in zip(self.object_vbos, groups, strict=True)):
            old = [vbo.size for vbo in self.object_vbos] or [0] * len(groups)
            sizes = [max(a.nbytes, 1 << 16, 2 * o) for a, o in zip(groups, old, strict=True)]
            for vbo in self.object_vbos:
                vbo.release()
            self.object_vbos = [self.ctx.buffer(reserve=size) for size in sizes]
            names = (*OBJECT_PROGRAMS, "ids", "depth", "project")
            self.object_vaos = {name: self._vertex_array(name, self.object_vbos) for name in names}
        if len(groups[0]):
            for vbo, a in zip(self.object_vbos, groups, strict=True):
                vbo.write(a)

    def _floor_texture(self, backdrop: Backdrop):
        key = (backdrop.floor, backdrop.variant)
        if key not in self._textures:
            import moderngl

            # the square root of linear albedo in 8-bit RGBA, squared back in the shaders: llvmpipe samples 8-bit RGBA
            # a tenth faster than 16-bit, and sRGB8 slower still (a decode per texel); plain linear 8-bit bands dark
            # floors. Each mip level is averaged in linear light, then encoded.
            levels = [srgb_to_linear(floor_texture(*key))]
            while levels[-1].shape[0] > 1:
                a = levels[-1]
                levels.append((a[0::2, 0::2] + a[1::2, 0::2] + a[0::2, 1::2] + a[1::2, 1::2]) / 4)
            texels = [np.dstack([np.round(np.sqrt(a) * 255), np.full(a.shape[:2], 255)]).astype("u1") for a in levels]
            tex = self.ctx.texture(levels[0].shape[1::-1], 4, texels[0].tobytes())
            tex.build_mipmaps()  # allocates the levels, then overwritten with ours
            for level, data in enumerate(texels[1:], 1):
                tex.write(data.tobytes(), level=level)
            tex.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
            self._textures[key] = tex
        return self._textures[key]

    # -- rendering ------------------------------------------------------------------------------------------------
    def views(self, scene: Scene3D, cameras: list[Camera], *, seg: bool = True, flat: bool = False) -> list[View]:
        with self.ctx:  # make this renderer's context current: a process may hold one per image size
            small = _small(scene.objects, cameras, self.size, self.small_pixels)
            *groups, n_matte = _object_vertices(scene.objects, small)
            self._upload_objects(groups)
            n_vertices = len(groups[0])
            # a horizontal orthographic view (view_3d's front and side) sees the floor edge-on: nothing to draw
            floor = _floor_model(scene.look.backdrop) if scene.ground and not all(map(_edge_on, cameras)) else None
            self._prepare(scene, n_vertices, floor is not None, flat)
            return [self._view(scene, (n_matte, n_vertices), floor, cam, seg) for cam in cameras]

    def _prepare(self, scene: Scene3D, n_vertices: int, floor: bool, flat: bool) -> None:
        """Per-scene state shared by every camera: the three maps, the light, the floor's texture."""
        light, backdrop = scene.look.light, scene.look.backdrop
        lit = bool(scene.objects) and not flat
        shadowed = lit and _may_shadow_each_other(scene.objects, light)
        light_matrix = self._shadow_map(scene.objects, light, n_vertices) if shadowed else np.eye(4)
        sun_rect = self._sun_map(scene.objects, light, n_vertices) if lit and floor else self._clear(self.sun_fbo)
        ao_rect = self._ao_map(scene.objects) if lit and floor else self._clear(self.ao_fbo)
        if floor:  # the cells, split around where a map holds anything but 1 (in the floor quad's units)
            reach = [r for r in (sun_rect, ao_rect) if r != _OPEN]
            inner = (0.0, 0.0, 0.0, 0.0)
            if reach:
                lo = np.min([r[:2] for r in reach], axis=0)
                hi = np.max([np.add(r[:2], 1 / np.asarray(r[2:])) for r in reach], axis=0)
                inner = tuple(float(v) / backdrop.extent for v in (*lo, *hi))
            self.floor_vbo.write(_floor_cells(inner))
        common = {
            "flat_color": flat,
            "shadowed": shadowed,
            "light_dir": tuple(light.unit_direction()),
            "sun": light.sun,
            "sky": light.sky,
            "bounce": tuple(_floor_radiance(backdrop, light)),
            "sun_rect": sun_rect,
            "ao_rect": ao_rect,
            "floor_albedo": tuple(float(c) for c in srgb_to_linear(backdrop.color)),
        }
        for name in SHADED:
            for key, value in common.items():
                _set(self.programs[name], key, value)
        for name in OBJECT_PROGRAMS:
            _write(self.programs[name], "light_matrix", _f4(light_matrix))
        self.shadow_map.use(0)
        self.sun_map.use(2)
        self.ao_map.use(3)
        if backdrop.textured and floor:
            self._floor_texture(backdrop).use(1)
            uv = backdrop.uv_matrix()
            for name in ("object_tex", *FLOOR_PROGRAMS[True]):
                _write(self.programs[name], "uv_matrix", uv.T.astype("f4").tobytes())
            _set(self.programs["object_tex"], "texels_per_unit", float(np.linalg.norm(uv[0, :2])) * TEXTURE_SIZE)

    def _shadow_map(self, objects: tuple[Object3D, ...], light: Light, n_vertices: int) -> np.ndarray:
        import moderngl

        light_matrix = _light_matrix(objects, light)
        self.shadow_fbo.clear(depth=1.0)
        self.shadow_fbo.use()
        self.ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        self.ctx.front_face, self.ctx.cull_face = "ccw", "front"  # back faces only: no acne on lit faces
        self.programs["depth"]["mvp"].write(_f4(_UNIT_TO_CLIP @ light_matrix))
        self.object_vaos["depth"].render(vertices=n_vertices)
        return light_matrix

    def _clear(self, fbo) -> tuple[float, float, float, float]:
        fbo.clear(1.0, 1.0, 1.0, 1.0)
        return _OPEN

    def _sun_map(self, objects: tuple[Object3D, ...], light: Light, n_vertices: int) -> tuple[float, ...]:
        """Rasterise the objects' shadows on the floor; returns the map's (corner x, y, 1 / width, 1 / height)."""
        import moderngl

        d = light.unit_direction()
        if d[2] > -1e-3:  # a sun on the horizon: no shadow falls on the floor within reach
            return self._clear(self.sun_fbo)
        corners = np.concatenate([o.corners() for o in objects])
        shadow = corners[:, :2] - d[:2] * ((corners[:, 2:] - FLOOR_Z) / d[2])
        lo = np.minimum(shadow.min(axis=0), corners[:, :2].min(axis=0))
        hi = np.maximum(shadow.max(axis=0), corners[:, :2].max(axis=0))
        span = (hi - lo) * (1 + 4 / SUN_MAP_SIZE) + 1e-3  # two texels of margin: the edge stays in the sun
        corner = (lo + hi) / 2 - span / 2
        rect = (float(corner[0]), float(corner[1]), float(1 / span[0]), float(1 / span[1]))
        prog = self.programs["project"]
        prog["rect"].value = rect
        prog["light_dir"].value = tuple(float(c) for c in d)
        self.sun_fbo.clear(1.0, 1.0, 1.0, 1.0)
        self.sun_fbo.use()
        # faces toward the sun project counter-clockwise onto the floor; together they cover the shadow once
        self.ctx.enable_only(moderngl.CULL_FACE)
        self.ctx.front_face, self.ctx.cull_face = "ccw", "back"
        self.object_vaos["project"].render(vertices=n_vertices)
        return rect

    def _ao_map(self, objects: tuple[Object3D, ...]) -> tuple[float, float, float, float]:
        """Bake the floor's sky visibility around the objects; returns the map's (corner x, y, 1 / size, 1 / size)."""
        import moderngl

        decals = [(a, b, reach) for a, b in map(_occluder, objects) if (reach := _ao_reach(a, b)) > 0]
        if not decals:
            return self._clear(self.ao_fbo)
        lo = np.min([a[:2] - reach for a, _, reach in decals], axis=0)
        hi = np.max([a[:2] + reach for a, _, reach in decals], axis=0)
        size = float((hi - lo).max()) * (1 + 4 / AO_SIZE)  # two texels of margin: the edge stays open
        corner = (lo + hi) / 2 - size / 2
        rect = (float(corner[0]), float(corner[1]), 1.0 / size, 1.0 / size)
        self.ao_fbo.clear(1.0, 1.0, 1.0, 1.0)
        self.ao_fbo.use()
        self.ctx.enable_only(moderngl.BLEND)
        self.ctx.blend_func = moderngl.ZERO, moderngl.SRC_COLOR
        prog = self.programs["decal"]
        prog["rect"].value = rect
        for a, b, reach in decals:
            prog["decal"].value = (float(a[0]), float(a[1]), reach, 0.0)
            prog["occ_a"].value = tuple(float(x) for x in a)
            prog["occ_b"].value = tuple(float(x) for x in b)
            self.decal.render()
        return rect

    def _view(self, scene: Scene3D, counts: tuple[int, int], floor: np.ndarray | None, cam: Camera, seg: bool) -> View:
        """One camera's colour, ids and depth; ``counts``: the matte vertices (first in the buffer) and all."""
        import moderngl

        ctx = self.ctx
        view_proj = FLIP_Y @ projection_matrix(cam, ZNEAR, ZFAR) @ np.linalg.inv(cam.pose())
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        ctx.front_face, ctx.cull_face = "cw", "back"  # the flipped projection mirrors the winding
        # glossy parts mirror the floor: its texture only when there is a textured floor to see
        glossy = "object_tex" if scene.look.backdrop.textured and floor is not None else "object"
        ids = depth = None
        if seg and self.samples:
            self.id_fbo.clear(0.0, 0.0, 0.0, 0.0, depth=1.0)
            self.id_fbo.use()
            self._draw("ids", view_proj, counts[1])  # the floor's id is the cleared 0
            ids, raw_depth = self._read_ids()
            depth = _depth_reader(raw_depth, cam, ids)
        self.color_fbo.clear(*(c / 255 for c in scene.look.backdrop.sky), 1.0, depth=1.0)
        if self.samples:
            self.color_fbo.use()
        else:
            self.id_fbo.clear(0.0, 0.0, 0.0, 0.0)  # zero bits: id 0
            self.both_fbo.use()
        pose = cam.pose()
        per_camera = {
            "eye": tuple(pose[:3, 3]),
            "orthographic": cam.projection == "orthographic",
            "view_dir": tuple(-pose[:3, 2]),
        }
        for name in SHADED:
            for key, value in per_camera.items():
                _set(self.programs[name], key, value)
        n_matte, n_vertices = counts
        for name, first, count in (("object_matte", 0, n_matte), (glossy, n_matte, n_vertices - n_matte)):
            self._draw(name, view_proj, count, first)  # objects first: the floor under them is never shaded
        if floor is not None:
            self._draw_floor(FLOOR_PROGRAMS[scene.look.backdrop.textured], view_proj, floor)
        rgb = np.empty((self.size, self.size, 3), np.uint8)
        if self.samples:
            ctx.copy_framebuffer(self.rgb_fbo, self.color_fbo)
            self.rgb_fbo.read_into(rgb, components=3)
        else:
            self.rgb_fbo.read_into(rgb, components=3)
            exact_ids, raw_depth = self._read_ids()
            # regions to smooth between: the objects, the floor and the sky (nothing drawn, depth 1): the horizon too
            smooth_edges(rgb, np.where(raw_depth < 1.0, exact_ids, np.int16(-1)))
            if seg:
                ids, depth = exact_ids, _depth_reader(raw_depth, cam, exact_ids)
        return View(rgb=rgb, ids=ids, depth=depth)

    def _draw(self, program: str, view_proj: np.ndarray, n_vertices: int, first: int = 0) -> None:
        """``n_vertices`` of the objects' buffer from ``first`` on."""
        if n_vertices:
            prog = self.programs[program]
            prog["mvp"].write(_f4(view_proj))
            _write(prog, "model", _IDENTITY)
            self.object_vaos[program].render(vertices=n_vertices, first=first)

    def _draw_floor(self, programs: tuple[str, str], view_proj: np.ndarray, floor: np.ndarray) -> None:
        """The floor's cell under the maps with the first program, the cells around it with the second."""
        for name, first, count in zip(programs, (0, 6), (6, FLOOR_VERTICES - 6), strict=True):
            prog = self.programs[name]
            prog["mvp"].write(_f4(view_proj @ floor))
            _write(prog, "model", _f4(floor))
            self.floor_vaos[name].render(vertices=count, first=first)

    def _read_ids(self) -> tuple[np.ndarray, np.ndarray]:
        ids = np.empty((self.size, self.size), np.int16)
        self.id_fbo.read_into(ids, components=1, dtype="i2")
        raw_depth = np.empty((self.size, self.size), np.float32)
        self.id_fbo.read_into(raw_depth, attachment=-1, components=1, dtype="f4")
        return ids, raw_depth


def _small(objects: tuple[Object3D, ...], cameras: list[Camera], size: int, limit: int) -> list[bool]:
    """Whether each object's box spans fewer than ``limit`` pixels across in every view (then its coarse meshes
    are drawn); one that reaches behind a camera is not small."""
    if not objects:
        return []
    corners = np.concatenate([o.corners() for o in objects])
    span = np.zeros(len(objects))
    for cam in cameras:
        px, depth = cam.project(corners, size)
        extent = np.ptp(px.reshape(-1, 8, 2), axis=1).max(axis=1)
        extent[depth.reshape(-1, 8).min(axis=1) <= ZNEAR] = np.inf
        np.maximum(span, extent, out=span)
    return (span < limit).tolist()


def _object_vertices(
    objects: tuple[Object3D, ...], small: list[bool]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """All objects as one world-space triangle soup, in the groups of ``VERTEX_LAYOUT``: positions, normals and
    (albedo, metallic, roughness, id), float32; and how many vertices, first in the buffer, belong to matte parts
    (see ``GLOSSY``). A catalogue object is one run of vertices per part (see ``draw_parts``), every part with the
    object's id; ``small`` objects are drawn with their coarse meshes."""
    draws = [(i, part) for i, obj in enumerate(objects) for part in draw_parts(obj, small[i])]
    draws.sort(key=lambda d: _glossy(d[1][3]))  # stable: matte parts first, each group in the scene's order
    n_matte_draws = sum(not _glossy(surface) for _, (_, _, _, surface) in draws)
    soups = [triangle_soup(key, level) for _, (key, level, _, _) in draws]
    counts = [len(positions) for positions, _ in soups]
    positions, normals = np.empty((2, sum(counts), 3), np.float32)
    poses = [obj.pose() for obj in objects]
    # rows times the transposed linear part, plus the translation; normals times the inverse (its transpose, on rows)
    linear = [p[:3, :3].T.astype(np.float32) for p in poses]
    shift = [p[:3, 3].astype(np.float32) for p in poses]
    inverse = [np.linalg.inv(p[:3, :3]).astype(np.float32) for p in poses]
    attributes = np.empty((len(draws), 6), np.float32)
    start = 0
    for k, ((i, (_, _, color, surface)), (unit_positions, unit_normals)) in enumerate(zip(draws, soups, strict=True)):
        run = slice(start, start + counts[k])
        np.matmul(unit_positions, linear[i], out=positions[run])
        positions[run] += shift[i]
        turned = np.matmul(unit_normals, inverse[i], out=normals[run])
        turned /= np.sqrt(np.einsum("ij,ij->i", turned, turned))[:, None]
        attributes[k] = (*srgb_to_linear(color), surface.metallic, surface.roughness, i + 1)
        start = run.stop
    return positions, normals, np.repeat(attributes, counts, axis=0), sum(counts[:n_matte_draws])


def _glossy(surface) -> bool:
    """Whether the object shader mirrors the floor in this surface (compared in float32, as the shader does)."""
    return bool(np.float32(surface.roughness) < np.float32(GLOSSY))


_OPEN = (0.0, 0.0, 1.0, 1.0)  # the rectangle of a map left clear (1: in the sun, open to the sky)


def _floor_cells(inner: tuple[float, float, float, float]) -> np.ndarray:
    """The floor quad [-1, 1]^2 as a 3 x 3 grid of cells split at ``inner`` (x0, y0, x1, y1, clipped to the quad):
    triangles (float32 xyz rows, counter-clockwise from above), the inner cell's six vertices first. Neighbouring
    cells share whole edges, so the rasteriser covers every pixel once."""
    x0, y0, x1, y1 = (min(max(v, -1.0), 1.0) for v in inner)
    xs, ys = (-1.0, x0, x1, 1.0), (-1.0, y0, y1, 1.0)
    cells = [(1, 1)] + [(i, j) for j in range(3) for i in range(3) if (i, j) != (1, 1)]
    out = []
    for i, j in cells:
        a, b, c, d = (xs[i], ys[j]), (xs[i + 1], ys[j]), (xs[i + 1], ys[j + 1]), (xs[i], ys[j + 1])
        out += [a, b, c, a, c, d]
    return np.c_[np.array(out, "f4"), np.zeros(len(out), "f4")]


def _floor_model(backdrop: Backdrop) -> np.ndarray:
    model = np.diag([backdrop.extent, backdrop.extent, 1.0, 1.0])
    model[2, 3] = FLOOR_Z
    return model


def _edge_on(cam: Camera) -> bool:
    return cam.projection == "orthographic" and abs(cam.pose()[2, 2]) < 1e-9


def _occluder(obj: Object3D) -> tuple[np.ndarray, np.ndarray]:
    """The object as an ambient occluder: a sphere, or an upright column with the footprint's mean radius."""
    w, d, h = obj.size
    x, y = obj.position
    if obj.shape == "sphere":
        return np.array([x, y, obj.base, (w + d + h) / 6]), np.array([obj.base + h, 1.0])
    r = (w + d) / 4
    if obj.shape == "box":
        r *= 1.1  # a square of side s hides about as much as a disc of radius 0.55 s
    elif obj.shape == "cone":
        r *= 0.6  # it narrows to a point
    return np.array([x, y, obj.base, r]), np.array([obj.base + h, 0.0])


def occlusion(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """DECAL_FRAGMENT's occlusion of the floor at horizontal distances ``d`` from the occluder's axis."""
    r = a[3]
    d2 = np.maximum(d * d, r * r * 1.0002)
    if b[1] > 0.5:
        rise = 0.5 * (a[2] + b[0]) - FLOOR_Z
        l2 = d2 + rise * rise
        return AO_STRENGTH * max(rise, 0.0) / np.sqrt(l2) * r * r / l2
    run2 = d2 - r * r
    top, bottom = max(b[0] - FLOOR_Z, 0.0), max(a[2] - FLOOR_Z, 0.0)
    band = top * top / (top * top + run2) - bottom * bottom / (bottom * bottom + run2)
    return AO_STRENGTH * np.arcsin(r / np.sqrt(d2)) / math.pi * band


_AO_STEPS = np.geomspace(1.0, 64.0, 48)  # distances tried, in radii


def _ao_reach(a: np.ndarray, b: np.ndarray) -> float:
    """How far from its axis an occluder darkens the floor by at least AO_FLOOR; 0 when it nowhere does."""
    d = a[3] * _AO_STEPS
    dark = np.flatnonzero(occlusion(a, b, d) >= AO_FLOOR)
    return float(d[min(dark[-1] + 1, len(d) - 1)]) if len(dark) else 0.0


def _floor_radiance(backdrop: Backdrop, light: Light) -> np.ndarray:
    """What a face turned down sees: the lit floor (its mean albedo times the sun's and the sky's light)."""
    albedo = mean_albedo(backdrop.floor, backdrop.variant) if backdrop.textured else srgb_to_linear(backdrop.color)
    cos_sun = max(-light.unit_direction()[2], 0.0)
    return albedo * (np.asarray(light.sun) * cos_sun / math.pi + np.asarray(light.sky))


def _may_shadow_each_other(objects: tuple[Object3D, ...], light: Light) -> bool:
    """False when no object's shadow can fall on another or on itself (primitives are convex; an object of the
    catalogue, a chair's seat over its legs, may shadow itself, so its scene always takes the shadow map).

    A shadow of object j on object i lies, slid along the light onto the floor, inside both their slid outlines;
    so if the boxes around those never overlap, no object needs the shadow map."""
    d = light.unit_direction()
    if any(o.shape not in SHAPES for o in objects):
        return True
    if len(objects) < 2:
        return False
    if d[2] > -1e-3:
        return True
    corners = np.stack([o.corners() for o in objects])  # n x 8 x 3
    slid = corners[..., :2] - d[:2] * ((corners[..., 2:] - FLOOR_Z) / d[2])
    lo, hi = slid.min(axis=1), slid.max(axis=1)
    overlap = ((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :])).all(axis=2)
    np.fill_diagonal(overlap, False)
    return bool(overlap.any())


def _light_matrix(objects: tuple[Object3D, ...], light: Light) -> np.ndarray:
    """World -> shadow-map coordinates in [0, 1]^3: an orthographic view along the light, around the objects."""
    corners = np.concatenate([o.corners() for o in objects])
    center = (corners.min(axis=0) + corners.max(axis=0)) / 2
    radius = float(np.linalg.norm(corners - center, axis=1).max()) * 1.02
    d = light.unit_direction()
    up = (0.0, 1.0, 0.0) if abs(d[2]) > 0.99 else (0.0, 0.0, 1.0)
    cam = Camera(eye=tuple(center - d * (radius + 1.0)), target=tuple(center), up=up, projection="orthographic")
    view = np.linalg.inv(cam.pose())
    near, far = 0.5, 2 * radius + 2.0  # from just before the objects to just past them
    m = np.diag([0.5 / radius, 0.5 / radius, -1.0 / (far - near), 1.0])
    m[:3, 3] = (0.5, 0.5, -near / (far - near))
    return m @ view


_UNIT_TO_CLIP = np.array([[2, 0, 0, -1], [0, 2, 0, -1], [0, 0, 2, -1], [0, 0, 0, 1]], dtype=float)
_IDENTITY = np.eye(4, dtype="f4").tobytes()


def _set(program, name: str, value) -> None:
    """Set a uniform if the program uses it (GLSL compilers drop the ones a shader never reads)."""
    uniform = program.get(name, None)
    if uniform is not None:
        uniform.value = value


def _write(program, name: str, data: bytes) -> None:
    uniform = program.get(name, None)
    if uniform is not None:
        uniform.write(data)


def _f4(m: np.ndarray) -> bytes:
    return m.T.astype("f4").tobytes()  # GLSL matrices are column-major


def smooth_edges(rgb: np.ndarray, ids: np.ndarray) -> None:
    """Anti-alias silhouettes in place: every pixel whose region (``ids``) differs from a neighbour's becomes the
    3 x 3 tent-weighted mean around it. Against a path tracer this recovers what 4x multisampling does (mean SSIM
    within 0.001 of it on benchmarks/fidelity.py's scenes) at an eighth of its cost on llvmpipe, and the ids stay
    those of the pass."""
    edge = np.zeros(ids.shape, bool)
    step = ids[1:] != ids[:-1]
    edge[1:] |= step
    edge[:-1] |= step
    step = ids[:, 1:] != ids[:, :-1]
    edge[:, 1:] |= step
    edge[:, :-1] |= step
    edge[[0, -1]] = False
    edge[:, [0, -1]] = False
    at, w = np.flatnonzero(edge), ids.shape[1]  # flat indices: a 1-D gather is half the cost of (row, column) pairs
    pixels = rgb.reshape(-1, 3)
    if not np.shares_memory(pixels, rgb):
        raise ValueError("smooth_edges works in place: rgb must be C-contiguous")

    def around(*offsets: int) -> np.ndarray:  # np.take: a third faster than indexing with an array
        total = np.take(pixels, at + offsets[0], axis=0).astype(np.uint16)
        for d in offsets[1:]:
            total += np.take(pixels, at + d, axis=0)
        return total

    total = 8 * around(0) + 2 * around(-w, w, -1, 1) + around(-w - 1, -w + 1, w - 1, w + 1)
    pixels[at] = ((total + 10) // 20).astype(np.uint8)


def _depth_reader(d: np.ndarray, cam: Camera, ids: np.ndarray):
    """A function giving linear depth along the view axis, 0 where no object was hit (converted on first use)."""

    def convert() -> np.ndarray:
        near, far = np.float32(ZNEAR), np.float32(ZFAR)  # float32 throughout: float64 took 2 ms a view
        if cam.projection == "orthographic":
            out = near + d * (far - near)
        else:
            ndc = np.float32(2) * d - np.float32(1)
            out = np.float32(2) * near * far / (far + near - ndc * (far - near))
        out[ids == 0] = 0.0
        return out

    return convert
