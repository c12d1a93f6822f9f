"""The object catalogue: everyday kinds as closed procedural meshes at real heights, deterministic, drawn by both
3D backends as one object each, listed and drawn by `mirforge objects`."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import trimesh

from mirforge.errors import InputError
from mirforge.render.objects import KINDS, MATERIALS, get_kind, model, variants
from mirforge.render.objects.place import place
from mirforge.render.objects.sheet import LABEL_H
from mirforge.render.scene3d import Object3D, Scene3D, orbit_camera
from mirforge.render.view import amodal_box

CMD = [sys.executable, "-m", "mirforge", "objects"]


def digest(kind: str, variant: int) -> str:
    m = model(kind, variant)
    h = hashlib.sha256()
    for i, part in enumerate(m.parts):
        unit = m.unit_part(i)
        for array in (part.mesh.vertices, part.mesh.faces, unit.vertices, unit.vertex_normals):
            h.update(np.ascontiguousarray(array).tobytes())
        h.update(f"{part.role}|{part.color}|{part.material}|{part.primary}".encode())
    return h.hexdigest()


def closed_and_outward(mesh) -> bool:
    """Every directed edge is matched by its reverse once vertices are merged: the surface (a union of closed
    shells, or of patches that close up together) has no holes and a consistent winding."""
    merged = mesh.copy()
    merged.merge_vertices(digits_vertex=7)
    counts: dict[tuple[int, int], int] = {}
    for a, b in map(tuple, merged.edges):  # directed, one per face corner
        counts[a, b] = counts.get((a, b), 0) + 1
    return bool(counts) and all(counts.get((b, a), 0) == n for (a, b), n in counts.items())


def test_the_catalogue_has_thirty_kinds_with_heights_sources_and_licences():
    assert len(KINDS) >= 30
    for kind in KINDS:
        spec = get_kind(kind)
        lo, hi = spec.height
        assert 0 < lo < hi < 3.0, kind
        assert spec.source and spec.licence, kind
        assert len(spec.combos) >= 3, f"{kind}: fewer than 3 variants"
        assert set(spec.materials) <= set(MATERIALS), kind


@pytest.mark.parametrize("kind", KINDS)
def test_every_style_builds_closed_parts_at_a_real_height(kind):
    spec = get_kind(kind)
    for variant in range(len(spec.styles) + 1):
        m = model(kind, variant)
        style = next(s for s in spec.styles if s.name == m.style)
        assert style.height[0] - 1e-9 <= m.height <= style.height[1] + 1e-9, (kind, variant, m.height)
        assert m.bounds[0][2] == pytest.approx(0, abs=1e-9)  # stands on the ground
        assert np.allclose(m.bounds[0][:2], -m.bounds[1][:2])  # footprint centred
        assert sum(p.primary for p in m.parts) >= 1
        union = trimesh.util.concatenate([p.mesh for p in m.parts])
        assert closed_and_outward(union), (kind, variant)
        for part in m.parts:
            if part.mesh.is_watertight:
                assert part.mesh.volume > 0, (kind, variant, part.role)  # normals point outwards
        # placed in a scene at another height, the object keeps its proportions and stands on z = 0
        target = float(np.mean(style.height))
        obj = place(kind, variant, kind, (0.4, -0.2), target)
        assert obj.size[2] == pytest.approx(target)
        assert np.allclose(np.asarray(obj.size) / target, np.asarray(m.extents) / m.height)
        for i in range(len(m.parts)):
            unit = m.unit_part(i)
            assert unit.vertices.min() >= -0.5 - 1e-9 and unit.vertices.max() <= 0.5 + 1e-9
            world = unit.vertices @ obj.pose()[:3, :3].T + obj.pose()[:3, 3]
            assert world[:, 2].min() >= -1e-9 and world[:, 2].max() <= target + 1e-9
            assert np.allclose(np.linalg.norm(unit.vertex_normals, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize(("kind", "variant"), [("mug", 0), ("chair", 3), ("teapot", 7), ("toy car", 1), ("globe", 2)])
def test_part_area_and_model_bounds_read_from_the_arrays_equal_trimeshs_to_the_bit(kind, variant):
    # what layouts use (areas, bounds -> sizes) is computed without trimesh; it must not drift from trimesh's numbers
    m = model(kind, variant)
    for part in m.parts:
        assert part.area == float(part.mesh.area), (kind, variant, part.role)
    corners = np.vstack([p.mesh.bounds for p in m.parts])
    assert np.array_equal(m.bounds, np.array([corners.min(axis=0), corners.max(axis=0)]))


def test_same_kind_and_variant_give_the_same_bytes_in_a_fresh_process():
    pairs = [("mug", 0), ("teapot", 7), ("soccer ball", 2), ("flower pot", 12), ("globe", 4)]
    here = [digest(k, v) for k, v in pairs]
    script = (
        f"import sys, json; sys.path.insert(0, {str(Path(__file__).parent)!r}); from test_objects import digest; "
        f"print(json.dumps([digest(k, v) for k, v in {pairs!r}]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env, timeout=120
    )
    assert json.loads(out.stdout) == here
    # a variant that repeats a style and finish still draws new proportions
    n = len(get_kind("mug").combos)
    assert model("mug", 1).style == model("mug", 1 + n).style
    assert model("mug", 1).extents != model("mug", 1 + n).extents


def test_variants_filter_by_material_and_bad_names_are_one_line_errors():
    glass = variants("wine bottle", "glass")
    assert glass and all(model("wine bottle", v).material == "glass" for v in glass)
    assert variants("mug") == tuple(range(len(get_kind("mug").combos)))
    with pytest.raises(InputError) as err:
        model("spaceship")
    assert "'spaceship'" in str(err.value) and "teapot" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(InputError, match="unknown; valid materials: plastic, rubber"):
        variants("mug", "gold")
    with pytest.raises(InputError, match="not offered for 'mug'; choose ceramic"):
        variants("mug", "wood")
    with pytest.raises(InputError, match="variant"):
        model("mug", -1)
    with pytest.raises(ValueError, match="object kind"):
        Object3D("x", "spaceship", (1, 1, 1), (0, 0, 0), (0, 0))


def lamp_mug_car() -> tuple[Object3D, ...]:
    return (
        place("table lamp", 0, "lamp", (-0.35, 0.1)),
        place("mug", 3, "mug", (0.1, -0.2), 0.25),
        place("toy car", 1, "car", (0.35, 0.15), 0.12, color=(40, 80, 220)),
    )


CAMERA = orbit_camera(20, 25, 2.2, (0, 0, 0.2))
SCENE_SCRIPT = f"""
import sys, numpy as np
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_objects import CAMERA, lamp_mug_car
from mirforge.render.scene3d import Scene3D
from mirforge.render.gl import renderer, using
with using(sys.argv[2]):
    view = renderer(160).views(Scene3D(lamp_mug_car()), [CAMERA])[0]
np.savez(sys.argv[1], rgb=view.rgb, ids=view.ids)
"""


def test_both_backends_draw_a_many_part_object_as_one_object(tmp_path):
    arrays = {}
    for backend in ("pyrender", "moderngl"):  # separate processes: two GL stacks never share one
        path = tmp_path / f"{backend}.npz"
        subprocess.run([sys.executable, "-c", SCENE_SCRIPT, str(path), backend], check=True, timeout=120)
        arrays[backend] = np.load(path)
    objs = lamp_mug_car()
    for backend, data in arrays.items():
        ids = data["ids"]
        assert set(np.unique(ids)) == {0, 1, 2, 3}, backend  # parts carry their object's id, nothing else
        for i, obj in enumerate(objs):
            ys, xs = np.nonzero(ids == i + 1)
            amodal = amodal_box(obj, CAMERA, 160)
            assert xs.min() >= amodal[0] - 1 and xs.max() < amodal[2] + 1, (backend, obj.name)
            assert ys.min() >= amodal[1] - 1 and ys.max() < amodal[3] + 1, (backend, obj.name)
        # the lamp's shade (cream) and base (brass) differ: one object, several colours
        lamp = data["rgb"][ids == 1].astype(int)
        assert np.ptp(lamp.sum(axis=1)) > 60, backend
        # the car's body takes the colour the scene gives it
        car = data["rgb"][ids == 3].astype(int)
        assert (car[:, 2] > car[:, 0] + 60).mean() > 0.3, backend
    assert (arrays["pyrender"]["ids"] != arrays["moderngl"]["ids"]).mean() < 0.01


def test_cli_lists_prints_json_and_draws_a_sheet(tmp_path):
    listing = subprocess.run(CMD, capture_output=True, text=True, check=True, timeout=120).stdout.splitlines()
    assert len(listing) == len(KINDS) >= 30
    teapot = next(line for line in listing if line.startswith("teapot "))
    lo, hi = get_kind("teapot").height
    assert f" {lo:g}-{hi:g} m " in teapot and "Apache-2.0" in teapot and "procedural" in teapot
    entries = json.loads(subprocess.run([*CMD, "--json"], capture_output=True, text=True, check=True).stdout)
    assert [e["kind"] for e in entries] == list(KINDS)
    assert all(e["licence"] and e["source"] and len(e["height_m"]) == 2 for e in entries)

    out = tmp_path / "sheet.png"
    proc = subprocess.run([*CMD, "--sheet", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    sheet = cv2.imread(str(out))
    cell, columns = 160, 8
    rows = -(-len(KINDS) // columns)
    assert sheet.shape == (rows * (cell + LABEL_H), columns * cell, 3)
    for k in range(len(KINDS)):  # every kind is drawn: its cell holds more than floor and background
        r, c = divmod(k, columns)
        img = sheet[r * (cell + LABEL_H) : r * (cell + LABEL_H) + cell, c * cell : (c + 1) * cell].astype(int)
        floor = np.median(img[-8:].reshape(-1, 3), axis=0)
        differs = np.abs(img - floor).sum(axis=2) > 40
        assert differs.mean() > 0.03, KINDS[k]
        label = sheet[r * (cell + LABEL_H) + cell : (r + 1) * (cell + LABEL_H), c * cell : (c + 1) * cell]
        assert (label < 128).any(), KINDS[k]  # its name is written under it

    proc = subprocess.run([*CMD, "--sheet", str(out), "--variants", "0"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--variants" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_scene_of_catalogue_objects_renders_in_process():
    gl = pytest.importorskip("mirforge.render.gl")
    s = Scene3D((place("chair", 2, "chair", (0.0, 0.0)),))
    view = gl.renderer(96).views(s, [orbit_camera(30, 20, 3.0, (0, 0, 0.45))])[0]
    assert view.pixels(0) > 200 and view.box(0) is not None


@pytest.mark.parametrize("kind", KINDS)
def test_the_coarse_meshes_keep_each_part_closed_and_in_its_box_with_fewer_faces(kind):
    for variant in range(len(get_kind(kind).styles) + 1):
        m = model(kind, variant)
        coarse = [m.unit_part(i, coarse=True) for i in range(len(m.parts))]
        assert closed_and_outward(trimesh.util.concatenate(coarse)), (kind, variant)
        for i, part in enumerate(coarse):
            fine = m.unit_part(i)
            assert len(part.faces) <= len(fine.faces), (kind, variant, i)
            # the same builder draws (the proportions do not depend on the resolution): the same box, within 1%
            assert np.abs(part.bounds - fine.bounds).max() < 0.01, (kind, variant, i)
            assert np.allclose(np.linalg.norm(part.vertex_normals, axis=1), 1.0, atol=1e-6)


def test_the_coarse_catalogue_has_well_under_two_thirds_of_the_faces():
    fine = sum(len(p.faces) for k in KINDS for p in model(k).parts)
    coarse = sum(len(model(k).unit_part(i, coarse=True).faces) for k in KINDS for i in range(len(model(k).parts)))
    assert coarse < 0.65 * fine


def test_an_object_is_called_by_its_kind_or_where_the_kind_fits_others_by_its_style():
    """ "Ball" also fits the basketball and the soccer ball that share its scenes, "bottle" the wine bottle, and a chest
    of drawers is not what "cabinet" brings to mind: these are named by their style."""
    assert {model("ball", v).noun for v in variants("ball")} == {"rubber ball", "beach ball"}
    assert {model("bottle", v).noun for v in variants("bottle")} == {"water bottle", "soda bottle"}
    assert {model("cabinet", v).noun for v in variants("cabinet")} == {"cupboard", "chest of drawers"}
    # and where the kind's word names only part of what is drawn, the kind says what the whole is called
    assert {model("flower pot", v).noun for v in variants("flower pot")} == {"potted plant", "potted cactus"}
    assert {model("vase", v).noun for v in variants("vase")} == {"vase", "vase of flowers"}
    assert {model("globe", v).noun for v in variants("globe")} == {"desk globe"}
    assert {model("glass", v).noun for v in variants("glass")} == {"glass", "glass of juice"}
    by_style = ("ball", "bottle", "cabinet", "flower pot", "vase", "globe", "glass")
    assert all(model(k, v).noun == k for k in KINDS if k not in by_style for v in variants(k)[:2])


def side_outline(kind: str, variant: int, px: int = 400) -> np.ndarray:
    """The object's silhouette seen side on (along y), ``px`` columns over its length (x), rows up from the floor."""
    m = model(kind, variant)
    lo, hi = m.bounds
    scale = px / (hi[0] - lo[0])
    img = np.zeros((int(np.ceil((hi[2] - lo[2]) * scale)) + 1, px + 1), np.uint8)
    for part in m.parts:
        for tri in np.round((part.vertices[part.faces][:, :, [0, 2]] - lo[[0, 2]]) * scale).astype(np.int32):
            cv2.fillConvexPoly(img, tri, 1)
    return img


def tall_span(kind: str, variant: int, tall: float = 0.8) -> tuple[float, float]:
    """Where along its length (0: the front, 1: the back) the side outline rises above ``tall`` of the height."""
    img = side_outline(kind, variant)
    top = np.array([np.flatnonzero(col).max() if col.any() else 0 for col in img.T]) / (img.shape[0] - 1)
    cols = np.flatnonzero(top >= tall)
    return cols[0] / img.shape[1], (cols[-1] + 1) / img.shape[1]


def test_every_toy_car_is_drawn_as_a_car_and_no_toy_truck_is():
    """A short cabin at one end of a long low deck is a pickup truck, whichever way it faces: a toy car's cabin
    spans the middle of its length with neither end a long deck, and a toy truck (cab and load one tall block
    along its whole length) never has that outline, so one shape never carries both names."""
    for v in range(2 * len(variants("toy car"))):
        start, end = tall_span("toy car", v)
        assert start <= 0.45 and end >= 0.55, (v, model("toy car", v).style, start, end)  # the cabin over the middle
        assert max(start, 1 - end) <= 0.42, (v, start, end)  # no long low deck at either end
        assert end - start <= 0.7, (v, start, end)  # and a car, not a van
    for v in range(2 * len(variants("toy truck"))):
        start, end = tall_span("toy truck", v)
        assert end - start >= 0.9, (v, model("toy truck", v).style, start, end)


# words that say what a thing is made of, which paint in another colour hides
MATERIAL_WORDS = {"cardboard", "glass", "wooden", "wood", "brass", "metal", "paper", "plastic", "ceramic", "tin"}
# names with such a word that stay true painted: a rubber duck or ball painted is still rubber, a wine glass is named
# by its shape, and a glass of juice shows its juice whatever colour the glass is
TRUE_PAINTED = {"rubber duck", "rubber ball", "wine glass", "glass of juice"}


def test_a_painted_object_is_named_as_it_then_looks():
    """Painted a colour it never comes in, an object whose name says its material is called by what shows: a pink
    cardboard box is a "box", a painted empty glass a "tumbler"; in one of its own colours it keeps its name."""
    from mirforge.render.objects.catalogue import own_colors
    from mirforge.render.scene3d import PALETTE

    cardboard = own_colors("cardboard box")
    for v in range(2 * len(variants("cardboard box"))):
        m = model("cardboard box", v)
        assert m.painted_noun(m.color) == "cardboard box"
        for name, rgb in PALETTE.items():
            if min(np.linalg.norm(np.subtract(rgb, c)) for c in cardboard) > 40:
                assert m.painted_noun(rgb) == "box", (v, name)
        assert m.painted_noun(PALETTE["pink"]) == "box"
        assert m.painted_noun(PALETTE["brown"]) == "cardboard box"  # the brown of a brown cardboard box
    assert {model("glass", v).painted_noun(PALETTE["pink"]) for v in variants("glass")} == {
        "tumbler",
        "glass of juice",
    }
    for kind in KINDS:  # no object painted a colour of none of its finishes keeps a name that the paint belies
        own = own_colors(kind)
        for v in variants(kind):
            m = model(kind, v)
            for name, rgb in PALETTE.items():
                if min(np.linalg.norm(np.subtract(rgb, c)) for c in own) <= 40:
                    continue
                noun = m.painted_noun(rgb)
                assert noun in TRUE_PAINTED or not MATERIAL_WORDS & set(noun.split()), (kind, v, name, noun)
            if not get_kind(kind).painted:  # other names fit any colour
                assert all(m.painted_noun(rgb) == m.noun for rgb in PALETTE.values()), kind


def test_a_pair_painted_two_colours_is_named_as_it_then_looks():
    """The multi-view tasks' pair of one kind in two paints: two cardboard boxes painted are "red box" and "blue
    box", two glasses of juice stay glasses of juice (the juice shows), and other kinds keep their name."""
    from mirforge.generators.spatial.multiview import everyday_objects

    for seed in range(4):
        rng = np.random.default_rng(seed)
        boxes = everyday_objects(rng, "room", 2, pair=True, kinds=("cardboard box",))
        assert [o.name.split(" ", 1)[1] for o in boxes] == ["box", "box"], [o.name for o in boxes]
        mugs = everyday_objects(rng, "tabletop", 2, pair=True, kinds=("mug",))
        assert all(o.name.endswith(" mug") for o in mugs)
    juice = model("glass", 0)
    assert juice.style == "glass of juice" and juice.painted_noun((40, 80, 220)) == "glass of juice"


def test_no_kind_with_a_plain_back_stands_where_the_cameras_circle():
    """The depth and location photos circle the table, so every object is seen from behind in some photo: from
    behind, a cupboard, a chest of drawers, a bookshelf or a cereal box is a plain box that shows nothing of what
    names it (a cabinet's back passes for a cardboard box). They stay where a camera sees their front: forced
    perspective's, and view_3d's front view."""
    from mirforge.generators.spatial.multiview import FAMILY_KINDS

    plain_backs = {"cabinet", "bookshelf", "cereal box"}
    assert plain_backs <= set(KINDS)
    assert not plain_backs & {kind for kinds in FAMILY_KINDS.values() for kind in kinds}
