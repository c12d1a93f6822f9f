"""The renderer's look: shadows, occlusion, anti-aliasing with exact ids, materials, lights, backdrops, bad names."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from mirforge.errors import InputError
from mirforge.render.look import (
    BACKDROPS,
    FLOOR_Z,
    MATERIALS,
    PART_MATERIALS,
    LightKnobs,
    Look,
    backdrop,
    draw_look,
    light_from,
    light_rig,
    part_material,
)
from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, orbit_camera, ortho_view

mb = pytest.importorskip("mirforge.render.moderngl_backend")

SIZE = 160


@pytest.fixture(scope="module")
def renderers():
    return {"edges": mb.ModernglRenderer(SIZE, samples=0), "msaa": mb.ModernglRenderer(SIZE, samples=4)}


def tower(material: str = "rubber") -> Object3D:
    return Object3D("red tower", "box", (0.5, 0.5, 1.0), PALETTE["red"], (0.0, 0.0), material=material)


def table(*objects: Object3D, name: str = "studio", seed: int = 0) -> Scene3D:
    look = Look(backdrop(name, np.random.default_rng(seed)), light_from(elevation=45, azimuth=0))
    return Scene3D(objects, look=look)


def luminance(rgb: np.ndarray) -> float:
    return float(rgb.astype(float) @ (0.2126, 0.7152, 0.0722))


def pixel_of(point: np.ndarray, cam, size: int = SIZE) -> tuple[int, int]:
    px, _ = cam.project(point[None, :], size)
    return int(px[0, 1]), int(px[0, 0])  # row, column


@pytest.mark.parametrize("name", BACKDROPS)
def test_an_object_casts_a_shadow_on_the_floor(renderers, name):
    cam = ortho_view("top", 2.0)
    scene = table(tower(), name=name)
    d = scene.look.light.unit_direction()  # from the front (-y), 45 degrees up: the shadow falls toward +y
    mid = np.array([0.0, 0.0, 0.6])
    spot = mid + d * (mid[2] - FLOOR_Z) / -d[2]  # where the tower's middle throws its shadow
    row, col = pixel_of(spot, cam)
    for r in renderers.values():
        with_tower = r.views(scene, [cam])[0]
        without = r.views(table(name=name), [cam])[0]
        assert with_tower.ids[row, col] == 0  # the spot is floor, not the tower
        assert luminance(with_tower.rgb[row, col]) < 0.75 * luminance(without.rgb[row, col])


def test_the_floor_beside_an_object_is_occluded_and_the_far_floor_is_not(renderers):
    cam = ortho_view("top", 2.0)
    r = renderers["edges"]
    lit_side = np.array([0.0, -0.3, 0.0])  # in front of the tower, toward the sun: no cast shadow there
    near, far = pixel_of(lit_side + [0, -0.03, 0], cam), pixel_of(np.array([1.7, -1.7, 0.0]), cam)
    with_tower = r.views(table(tower()), [cam])[0].rgb
    without = r.views(table(), [cam])[0].rgb
    assert luminance(with_tower[near]) < luminance(without[near]) - 3  # contact shadow: sky hidden by the tower
    assert abs(luminance(with_tower[far]) - luminance(without[far])) <= 1


@pytest.mark.parametrize("name", BACKDROPS)
def test_the_floor_is_drawn_whole_inside_and_beyond_its_maps(renderers, name):
    cam = ortho_view("top", 6.0)  # the maps cover the tower's surroundings: the middle of this view
    scene = table(tower(), name=name)
    sky = np.array(scene.look.backdrop.sky)
    for r in renderers.values():
        view = r.views(scene, [cam])[0]
        assert (view.rgb != sky).any(axis=2).all()  # no pixel left at the clear colour
        # beyond the maps the floor is what it is with no object at all (pixel by pixel to within a few levels: in
        # a view straight down a texture's footprint has no long axis, and rounding picks the taps' direction)
        bare = r.views(table(name=name), [cam])[0].rgb
        corner = (slice(0, SIZE // 8), slice(0, SIZE // 8))
        assert np.abs(view.rgb[corner].astype(int) - bare[corner]).mean() < 0.5


@pytest.mark.parametrize("inner", [(-0.3, -0.2, 0.4, 0.1), (-2.0, 0.5, 0.9, 3.0), (0.0, 0.0, 0.0, 0.0)])
def test_the_floor_cells_cover_the_quad_once_inner_cell_first(inner):
    cells = mb._floor_cells(inner)[:, :2].reshape(-1, 3, 2)
    assert len(cells) * 3 == mb.FLOOR_VERTICES
    a, b, c = cells[:, 0], cells[:, 1], cells[:, 2]
    areas = ((b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0]) / 2
    assert (areas >= 0).all() and areas.sum() == pytest.approx(4.0)  # counter-clockwise, no overlap, no gap
    clipped = np.clip(inner, -1.0, 1.0)
    assert cells[:2].reshape(-1, 2).min(axis=0) == pytest.approx(clipped[:2])
    assert cells[:2].reshape(-1, 2).max(axis=0) == pytest.approx(clipped[2:])


def test_ids_are_exact_under_multisampling(renderers):
    objs = tuple(
        Object3D(f"o{i}", shape, (0.5, 0.5, 0.7), list(PALETTE.values())[i], (math.cos(2 * i), math.sin(2 * i)))
        for i, shape in enumerate(("box", "cylinder", "cone", "sphere", "capsule"))
    )
    scene = Scene3D(objs, look=Look(backdrop("tiles", np.random.default_rng(3)), light_from(40, 120)))
    cams = [orbit_camera(30, 35, 5.0), ortho_view("top", 2.2)]
    plain = mb.ModernglRenderer(SIZE, samples=0)
    for cam in cams:
        msaa, edges = renderers["msaa"].views(scene, [cam])[0], plain.views(scene, [cam])[0]
        assert set(np.unique(msaa.ids)) == set(range(len(objs) + 1))
        assert np.array_equal(msaa.ids, edges.ids)  # the aliased pass, whatever the colour pass does
        assert np.array_equal(msaa.depth, edges.depth)
        assert [msaa.box(i) for i in range(len(objs))] == [edges.box(i) for i in range(len(objs))]


@pytest.mark.parametrize("mode", ["edges", "msaa"])
def test_silhouettes_are_anti_aliased(renderers, mode):
    scene = table(tower(), Object3D("ball", "sphere", (0.6, 0.6, 0.6), PALETTE["blue"], (1.0, 0.5)))
    view = renderers[mode].views(scene, [orbit_camera(20, 30, 5.0)], flat=True)[0]
    colours = {tuple(c) for c in view.rgb.reshape(-1, 3)}
    assert len(colours) > 8  # albedo only: floor, sky and two objects (4 colours), plus blends along the edges
    assert set(np.unique(view.ids)) == {0, 1, 2}


BYTES_SCRIPT = """
import hashlib, sys
import numpy as np
from mirforge.render.look import draw_look
from mirforge.render.moderngl_backend import ModernglRenderer
from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, orbit_camera
objs = (
    Object3D("tower", "box", (0.5, 0.5, 1.0), PALETTE["red"], (0.0, 0.0), material="metal"),
    Object3D("ball", "sphere", (0.5, 0.5, 0.5), PALETTE["cyan"], (0.9, 0.4), material="plastic"),
)
scene = Scene3D(objs, look=draw_look(np.random.default_rng(11)))
r = ModernglRenderer(int(sys.argv[1]))
digests = set()
for _ in range(2):
    v = r.views(scene, [orbit_camera(35, 28, 5.0)])[0]
    digests.add(hashlib.sha256(v.rgb.tobytes() + v.ids.tobytes() + v.depth.tobytes()).hexdigest())
print(*digests)
"""


def test_the_same_scene_gives_the_same_bytes_every_time():
    runs = [
        subprocess.run([sys.executable, "-c", BYTES_SCRIPT, str(SIZE)], capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    digests = [run.stdout.split() for run in runs]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr
    assert digests[0] == digests[1] and len(digests[0]) == 1  # same bytes twice in a process, and across processes


def test_metal_reflects_and_rubber_scatters(renderers):
    cam = orbit_camera(0, 25, 4.0)
    rubber = renderers["edges"].views(table(tower("rubber")), [cam])[0]
    metal = renderers["edges"].views(table(tower("metal")), [cam])[0]
    # the front face: matte red under the sun, against red-tinted reflections of sky and floor
    mask = rubber.ids == 1
    r_rgb, m_rgb = rubber.rgb[mask].mean(axis=0), metal.rgb[mask].mean(axis=0)
    assert not np.allclose(r_rgb, m_rgb, atol=8)


def test_unknown_names_are_one_line_errors_listing_the_valid_ones():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError) as err:
        backdrop("marble", rng)
    message = str(err.value)
    assert "\n" not in message and "'marble'" in message and all(name in message for name in BACKDROPS)
    with pytest.raises(InputError) as err:
        Object3D("cup", "cylinder", (0.3, 0.3, 0.4), PALETTE["red"], (0.0, 0.0), material="glass")
    message = str(err.value)
    assert "\n" not in message and "'glass'" in message and all(name in message for name in MATERIALS)
    with pytest.raises(InputError, match="marble"):
        draw_look(rng, ("wood", "marble"))


def test_every_catalogue_material_tag_has_a_surface_and_only_metal_is_metallic():
    from mirforge.render.objects import MATERIALS as TAGS

    assert set(PART_MATERIALS) == set(TAGS)
    assert [tag for tag in TAGS if part_material(tag).metallic > 0] == ["metal"]
    with pytest.raises(InputError, match="'marble'"):
        part_material("marble")


@pytest.mark.parametrize("mode", ["edges", "msaa"])
def test_a_catalogue_object_is_one_exact_id_across_its_shaded_parts(renderers, mode):
    from mirforge.render.meshes import draw_parts
    from mirforge.render.objects import model

    clock = Object3D(
        "clock", "alarm clock", tuple(float(e) * 4 for e in model("alarm clock").extents), PALETTE["blue"], (0.3, 0.0)
    )
    parts = draw_parts(clock)
    assert len(parts) > 1 and {s.metallic for *_, s in parts} == {0.0, 1.0}  # metal bells, plastic body
    scene = table(tower(), clock)
    cam = orbit_camera(25, 30, 3.0)
    view = renderers[mode].views(scene, [cam])[0]
    assert set(np.unique(view.ids)) == {0, 1, 2}
    exact = mb.ModernglRenderer(SIZE, samples=0).views(scene, [cam])[0]
    assert np.array_equal(view.ids, exact.ids)
    lit = renderers[mode].views(scene, [cam], flat=True)[0]
    assert len({tuple(c) for c in view.rgb[view.ids == 2]}) > len({tuple(c) for c in lit.rgb[lit.ids == 2]})


def test_the_light_rig_is_drawn_from_the_scene_rng_within_its_knobs():
    knobs = LightKnobs(elevation=(30, 40), azimuth=(90, 120), kelvin=(3000, 3500))
    state = np.random.get_state()[1].copy()
    lights = [light_rig(np.random.default_rng(seed), knobs) for seed in range(20)]
    assert np.array_equal(np.random.get_state()[1], state)  # the global RNG is never touched
    assert light_rig(np.random.default_rng(7), knobs) == lights[7]
    assert len(set(lights)) == 20
    for light in lights:
        d = -light.unit_direction()
        assert 30 - 1e-6 <= math.degrees(math.asin(d[2])) <= 40 + 1e-6
        assert 90 - 1e-6 <= math.degrees(math.atan2(d[0], -d[1])) % 360 <= 120 + 1e-6
        assert light.sun[0] > light.sun[2]  # 3000-3500 K: a warm sun
    with pytest.raises(InputError, match="light.elevation"):
        light_rig(np.random.default_rng(0), LightKnobs(elevation=(1, 40)))


def test_a_look_leaves_the_scene_draws_alone():
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    look = draw_look(a)
    assert a.random() == b.random()  # drawn from a child stream: the task's own draws are unchanged
    assert look == draw_look(np.random.default_rng(5))
    assert look.backdrop.floor in BACKDROPS


def test_objects_small_in_every_view_are_drawn_from_the_coarse_meshes():
    from mirforge.render.meshes import SMALL_PIXELS, triangle_soup
    from mirforge.render.objects import model

    size = 448
    duck_size = tuple(float(e) * 3 for e in model("rubber duck").extents)
    duck = Object3D("duck", "rubber duck", duck_size, PALETTE["yellow"], (0.0, 0.0))
    ball = Object3D("ball", "sphere", (0.6, 0.6, 0.6), PALETTE["red"], (1.5, 0.0))
    far, near = orbit_camera(30, 35, 12.0), orbit_camera(30, 35, 2.0)
    behind = orbit_camera(30, 35, 12.0, target=(-20.0, 0.0, 0.0))  # looks away: the objects are behind it
    for obj in (duck, ball):
        px, _ = far.project(obj.corners(), size)
        assert np.ptp(px, axis=0).max() < SMALL_PIXELS
    assert mb._small((duck, ball), [far], size, SMALL_PIXELS) == [True, True]
    assert mb._small((duck, ball), [far, near], size, SMALL_PIXELS) == [False, False]  # the largest view decides
    assert mb._small((duck, ball), [behind], size, SMALL_PIXELS) == [False, False]

    fine = mb._object_vertices((duck, ball), [False, False])
    coarse = mb._object_vertices((duck, ball), [True, True])
    assert len(coarse[0]) < 0.8 * len(fine[0])
    drawn = [triangle_soup(key, level) for obj in (duck, ball) for key, level, *_ in mb.draw_parts(obj, small=True)]
    assert len(coarse[0]) == sum(len(positions) for positions, _ in drawn)
    # far away, the coarse meshes cover the same pixels but for a few on the outlines
    views = {
        lod: mb.ModernglRenderer(size, samples=0, small_pixels=lod).views(table(duck, ball), [far])[0]
        for lod in (SMALL_PIXELS, 0)
    }
    assert not np.array_equal(views[SMALL_PIXELS].rgb, views[0].rgb)  # the coarse meshes were drawn
    for i in (1, 2):
        a, b = views[SMALL_PIXELS].ids == i, views[0].ids == i
        assert a.sum() > 100 and (a & b).sum() / (a | b).sum() > 0.95, i
