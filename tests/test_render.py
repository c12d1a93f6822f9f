"""Offscreen pyrender views: ids, boxes that match projections, depth order."""

from __future__ import annotations

import numpy as np
import pytest

from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, orbit_camera, ortho_view

gl = pytest.importorskip("mirforge.render.gl")


def scene() -> Scene3D:
    return Scene3D(
        (
            Object3D("red cube", "box", (0.6, 0.6, 0.6), PALETTE["red"], (-1.0, 0.0)),
            Object3D("blue cone", "cone", (0.5, 0.5, 0.9), PALETTE["blue"], (1.0, 0.5)),
            Object3D("green sphere", "sphere", (0.5, 0.5, 0.5), PALETTE["green"], (0.0, -1.0)),
        )
    )


def test_ids_and_boxes_match_projected_objects():
    s = scene()
    cams = [orbit_camera(20, 35, 6.0), ortho_view("top", 2.0)]
    views = gl.renderer(256).views(s, cams)
    for cam, view in zip(cams, views, strict=True):
        assert view.rgb.shape == (256, 256, 3) and view.rgb.dtype == np.uint8
        assert set(np.unique(view.ids)) == {0, 1, 2, 3}
        for i, obj in enumerate(s.objects):
            box = view.box(i)
            amodal = gl.amodal_box(obj, cam, 256)
            assert box is not None and view.pixels(i) > 50
            # the visible box lies inside the projected box of the object's bounding cuboid
            assert box[0] >= amodal[0] - 1 and box[1] >= amodal[1] - 1
            assert box[2] <= amodal[2] + 1 and box[3] <= amodal[3] + 1
            # the object's colour dominates its mask in the colour image
            mean = view.rgb[view.ids == i + 1].mean(axis=0)
            assert int(np.argmax(mean)) == int(np.argmax(obj.color))


def test_top_view_box_is_the_footprint():
    view = gl.renderer(256).views(scene(), [ortho_view("top", 2.0)])[0]
    x0, y0, x1, y1 = view.box(0)  # red cube 0.6 wide at x=-1: 0.6 / 4.0 * 256 = 38.4 px
    assert abs((x1 - x0) - 38.4) <= 1.5 and abs((y1 - y0) - 38.4) <= 1.5
    assert abs((x0 + x1) / 2 - (-1.0 / 2.0 + 1) * 128) <= 1.0


def test_a_pitched_bar_is_drawn_tilted_about_its_centre():
    bar = Object3D("beam", "box", (2.0, 0.1, 0.1), PALETTE["brown"], (0.0, 0.0), 1.0, pitch=0.3)
    corners = bar.corners()
    right, left = corners[corners[:, 0] > 0], corners[corners[:, 0] < 0]
    assert right[:, 2].mean() < 1.05 - 0.25 and left[:, 2].mean() > 1.05 + 0.25  # +x end down by sin(0.3)
    assert np.allclose(corners.mean(axis=0), bar.center)
    view = gl.renderer(256).views(Scene3D((bar,), ground=False), [ortho_view("front", 1.5, height=1.05)])[0]
    x0, y0, x1, y1 = view.box(0)  # seen from the front, the bar's right end is lower in the image
    ys_right = np.nonzero(view.ids[:, (x0 + x1) // 2 + 40] == 1)[0].mean()
    ys_left = np.nonzero(view.ids[:, (x0 + x1) // 2 - 40] == 1)[0].mean()
    assert ys_right > ys_left + 15 and (y1 - y0) > 40


def test_depth_orders_objects_by_distance():
    cam = orbit_camera(0, 10, 6.0)  # from the front: the green sphere (y=-1) is nearest
    view = gl.renderer(256).views(scene(), [cam])[0]
    depths = [view.mean_depth(i) for i in range(3)]
    assert depths[2] < depths[0] and depths[2] < depths[1]
    assert view.depth[view.ids == 0].min() >= 0.0


RENDER_SCRIPT = """
import sys, numpy as np
from mirforge.render.scene3d import PALETTE, Object3D, Scene3D, orbit_camera, ortho_view
from mirforge.render.gl import renderer, using
rng = np.random.default_rng(0)
shapes = ("box", "cylinder", "cone", "sphere", "capsule")
colors = list(PALETTE.values())
out = {}
with using(sys.argv[2]):
    for k in range(4):
        objs = tuple(Object3D(f"o{i}", shapes[i], tuple(rng.uniform(0.3, 0.9, 3)), colors[i],
                              tuple(rng.uniform(-1.5, 1.5, 2))) for i in range(5))
        cams = [orbit_camera(float(rng.uniform(0, 360)), float(rng.uniform(15, 60)), 6.0), ortho_view("top", 2.5)]
        for c, view in enumerate(renderer(192).views(Scene3D(objs), cams)):
            out[f"rgb{k}{c}"], out[f"ids{k}{c}"] = view.rgb, view.ids
np.savez(sys.argv[1], **out)
"""


def test_fast_backend_agrees_with_the_pyrender_reference(tmp_path):
    import subprocess
    import sys

    arrays = {}
    for backend in ("pyrender", "moderngl"):  # separate processes: two GL stacks never share one
        path = tmp_path / f"{backend}.npz"
        subprocess.run([sys.executable, "-c", RENDER_SCRIPT, str(path), backend], check=True, timeout=120)
        arrays[backend] = np.load(path)
    ref, fast = arrays["pyrender"], arrays["moderngl"]
    for key in ref.files:
        if key.startswith("ids"):
            a, b = ref[key], fast[key]
            assert (a != b).mean() < 0.002, key  # at most a few edge pixels differ
            for i in range(1, 6):
                ya, xa = np.nonzero(a == i)
                yb, xb = np.nonzero(b == i)
                if len(xa) == 0:
                    assert len(xb) == 0
                    continue
                box_a = np.array([xa.min(), ya.min(), xa.max(), ya.max()])
                box_b = np.array([xb.min(), yb.min(), xb.max(), yb.max()])
                assert np.abs(box_a - box_b).max() <= 1, (key, i, box_a, box_b)
        else:
            ids = ref["ids" + key[3:]]
            diff = np.abs(ref[key].astype(int) - fast[key].astype(int))[ids > 0].mean(axis=0)
            assert diff.max() < 40, (key, diff)  # same hues, similar shading


def test_renderers_of_two_sizes_share_a_process():
    small, large = gl.renderer(96), gl.renderer(160)  # the second context is made current on creation
    for size, r in ((96, small), (160, large), (96, small)):
        view = r.views(scene(), [ortho_view("top", 2.0)])[0]
        assert view.rgb.shape == (size, size, 3)
        assert set(np.unique(view.ids)) == {0, 1, 2, 3}


def test_a_painted_metal_keeps_its_colour_over_a_wooden_table():
    """A yellow can (a metal part, painted) was drawn fully metallic: it mirrored the warm wooden table around it
    and read orange (median RGB 159, 73, 18; hue 24 degrees). Painted, its body reads yellow; a silver can still
    shows the metal."""
    import colorsys
    import dataclasses

    from mirforge.generators.spatial.multiview import everyday_objects, family_look
    from mirforge.render.meshes import BARE_METALS, PAINTED, draw_parts
    from mirforge.render.objects import COLORS

    rng = np.random.default_rng(3)
    can = dataclasses.replace(everyday_objects(rng, "tabletop", 1, kinds=("can",))[0], color=COLORS["yellow"])
    assert any(surface == PAINTED for *_, surface in draw_parts(can))
    silver = dataclasses.replace(can, color=COLORS["silver"])  # every part of it bare metal
    assert COLORS["silver"] in BARE_METALS and all(surface.metallic == 1.0 for *_, surface in draw_parts(silver))
    hues = []
    for seed in range(3):
        look = family_look(np.random.default_rng(seed), "tabletop")
        view = gl.renderer(160).views(Scene3D((can,), look=look), [orbit_camera(30, 25, 1.2)])[0]
        rgb = np.median(view.rgb[view.ids == 1], axis=0) / 255
        hues.append(colorsys.rgb_to_hsv(*rgb)[0] * 360)
    assert all(38 <= h <= 62 for h in hues), hues
