"""The asset cache: built once per machine, read back bit for bit, never a reason for different output or a crash."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mirforge.render import asset_cache
from mirforge.render.asset_cache import cached, code_digest

# a fresh process prints digests of catalogue models (meshes as built), their vertex buffers and floor textures
PROBE = """
import hashlib, json
from mirforge.render.meshes import SMALL_LEVEL, triangle_soup
from mirforge.render.objects import model
from mirforge.render.textures import floor_texture, mean_albedo
out = {}
for kind, variant in (("mug", 0), ("chair", 3), ("teapot", 7)):
    m = model(kind, variant)
    h = hashlib.sha256()
    for i, part in enumerate(m.parts):
        soups = (*triangle_soup((kind, variant, i)), *triangle_soup((kind, variant, i), SMALL_LEVEL))
        for a in (part.mesh.vertices, part.mesh.faces, part.mesh.face_normals, *soups):
            h.update(a.tobytes())
        h.update(f"{part.role}|{part.color}|{part.material}|{part.primary}|{part.mesh.area!r}".encode())
    out[f"{kind}/{variant}"] = h.hexdigest()
out["box"] = hashlib.sha256(b"".join(a.tobytes() for a in triangle_soup("sphere", SMALL_LEVEL))).hexdigest()
out["wood"] = hashlib.sha256(floor_texture("wood", 2).tobytes() + mean_albedo("wood", 2).tobytes()).hexdigest()
print(json.dumps(out))
"""


def probe(cache: str) -> dict[str, str]:
    env = {**os.environ, "MIRFORGE_CACHE": cache}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_models_and_textures_are_the_same_built_read_back_or_uncached(tmp_path):
    built = probe(str(tmp_path))
    stored = list(tmp_path.rglob("*.npz"))
    assert {p.parent.name for p in stored} == {"object-model", "triangle-soup", "floor-texture"}
    assert all(p.parents[1].name == f"assets-{code_digest()}" for p in stored)
    mtimes = {p: p.stat().st_mtime_ns for p in stored}
    assert probe(str(tmp_path)) == built  # read back: nothing rebuilt, nothing rewritten
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.npz")} == mtimes
    assert probe("off") == built


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("MIRFORGE_CACHE", str(tmp_path))
    return tmp_path


def counting(arrays: dict[str, np.ndarray]):
    calls = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return arrays

    return build, calls


def test_a_stored_asset_is_read_instead_of_built(root):
    arrays = {"x": np.arange(12, dtype=np.float64).reshape(3, 4) / 7, "names": np.array(["lid", "body"])}
    build, calls = counting(arrays)
    first = cached("thing", "a/1", build)
    second = cached("thing", "a/1", build)
    assert len(calls) == 1
    for name, value in arrays.items():
        assert np.array_equal(second[name], value) and second[name].dtype == value.dtype
    assert first is arrays
    cached("thing", "a/2", build)  # another key is another file
    assert len(calls) == 2 and len(list(root.rglob("*.npz"))) == 2


def test_a_corrupt_file_is_rebuilt_and_replaced(root):
    build, calls = counting({"x": np.ones(3)})
    cached("thing", "k", build)
    (path,) = root.rglob("*.npz")
    path.write_bytes(b"PK\x03\x04 truncated")
    assert np.array_equal(cached("thing", "k", build)["x"], np.ones(3))
    assert len(calls) == 2
    assert np.array_equal(np.load(path)["x"], np.ones(3))  # the good file is back
    assert not list(root.rglob("*.tmp"))


def test_an_unwritable_cache_costs_time_only_and_warns_once(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("MIRFORGE_CACHE", str(blocker / "cache"))
    asset_cache._warn_unwritable.cache_clear()
    build, calls = counting({"x": np.zeros(2)})
    with caplog.at_level(logging.WARNING, logger="mirforge.render.asset_cache"):
        for _ in range(3):
            assert np.array_equal(cached("thing", "k", build)["x"], np.zeros(2))
    assert len(calls) == 3
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "not writable" in warnings[0] and "MIRFORGE_CACHE" in warnings[0]


def test_off_builds_every_time_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MIRFORGE_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    build, calls = counting({"x": np.zeros(2)})
    cached("thing", "k", build)
    cached("thing", "k", build)
    assert len(calls) == 2 and not list(tmp_path.rglob("*"))


def test_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("MIRFORGE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert asset_cache.cache_root() == tmp_path / "mirforge"


# a process that renders catalogue objects from a warm cache: does it ever execute trimesh (and scipy, networkx)?
RENDER_PROBE = """
import json, sys
from mirforge.render.gl import renderer
from mirforge.render.objects.place import place
from mirforge.render.scene3d import Scene3D, orbit_camera
objects = (place("teapot", 1, "teapot", (0.0, 0.0), 0.3), place("chair", 2, "chair", (1.0, 0.0), 0.9))
renderer(64).views(Scene3D(objects), [orbit_camera(30.0, 25.0, 4.0)])
print(json.dumps([name in sys.modules for name in ("trimesh.creation", "scipy", "networkx")]))
"""


def test_a_warm_cache_renders_catalogue_objects_without_importing_trimesh(tmp_path):
    env = {**os.environ, "MIRFORGE_CACHE": str(tmp_path)}
    run = [sys.executable, "-c", RENDER_PROBE]
    cold = json.loads(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)
    warm = json.loads(subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout)
    assert cold == [True, True, True]  # the meshes were built
    assert warm == [False, False, False]  # about a second of imports saved in every worker
