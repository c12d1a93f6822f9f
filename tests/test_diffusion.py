"""The diffusion realism pass (extra [diffusion]) on a tiny pipeline built offline: CPU, 64 px, 2 steps."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("diffusers")

import mirforge.render.diffusion as diffusion  # noqa: E402
from mirforge.errors import InputError, Reject  # noqa: E402
from mirforge.instance import problems  # noqa: E402
from mirforge.pipeline import RunSpec, generate_one, level_of  # noqa: E402
from mirforge.realism import apply_realism, check_geometry, realism_config  # noqa: E402
from mirforge.render.png import encode_png  # noqa: E402
from mirforge.render.tiny_diffusion import build_tiny_diffusion
from mirforge.seeding import attempt_rng, balanced_slot, instance_seed  # noqa: E402
from mirforge.task import Layer, Question, Rendered  # noqa: E402

from conftest import make_task, record  # noqa: E402

SIZE = 64


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_diffusion(tmp_path_factory.mktemp("tiny-diffusion"))


@pytest.fixture(scope="module")
def config(tiny):
    sd, cn = tiny
    return realism_config("diffusion", sd, cn, steps=2, strength=0.5, resolution=SIZE)


def scene() -> Rendered:
    """Two images: a red and a blue block on a two-tone backdrop (with ids and depth), and a plain one to keep."""
    img = np.zeros((SIZE, SIZE, 3), np.uint8)
    img[:40], img[40:] = (210, 225, 240), (190, 200, 170)
    ids = np.zeros((SIZE, SIZE), np.int16)
    depth = np.zeros((SIZE, SIZE), np.float32)
    for label, (y0, y1, x0, x1), color, dist in (
        (1, (14, 50, 8, 26), (200, 40, 40), 3.0),
        (2, (28, 52, 38, 56), (40, 60, 200), 5.0),
    ):
        img[y0:y1, x0:x1] = color
        ids[y0:y1, x0:x1] = label
        depth[y0:y1, x0:x1] = dist
    plain = np.full((SIZE, SIZE, 3), 128, np.uint8)
    layers = [Layer(ids=ids, names=["mug", "table lamp"], depth=depth), None]
    return Rendered(images=[img, plain], measured={"facts": 1}, regions=[], layers=layers)


def question() -> Question:
    return Question(text="<image> <image>", options=["a", "b"], answer=0)


class FakeTask:
    name = "forced_perspective"


def test_tiny_pipeline_loads_through_the_production_path(tiny, config):
    pipe = diffusion.pipeline(diffusion.Loader(config["model"], config["controlnet"]))
    assert type(pipe).__name__ == "StableDiffusionControlNetImg2ImgPipeline"
    assert diffusion.native_size(pipe) == 128
    assert pipe is diffusion.pipeline(diffusion.Loader(config["model"], config["controlnet"]))  # cached per process
    assert config["model"].endswith("sd") and config["controlnet"].endswith("controlnet")
    json.dumps(config)


def test_pass_runs_end_to_end_and_keeps_the_geometry(config):
    before = scene()
    after = apply_realism(FakeTask(), question(), before, config, seed=7)
    assert after.images[0].shape == before.images[0].shape and after.images[0].dtype == np.uint8
    assert not np.array_equal(after.images[0], before.images[0])
    assert after.images[1] is before.images[1]  # no layer: untouched
    info = after.measured["realism"]
    assert info["model"] == "sd" and info["controlnet"] == "controlnet" and info["images"] == [0]
    assert info["iou_min"] >= config["iou_min"] and info["passes"] == 1
    assert after.measured["facts"] == 1
    json.dumps(info)


def test_seeds_give_identical_bytes(config):
    a = apply_realism(FakeTask(), question(), scene(), config, seed=11).images[0]
    b = apply_realism(FakeTask(), question(), scene(), config, seed=11).images[0]
    c = apply_realism(FakeTask(), question(), scene(), config, seed=12).images[0]
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_check_rejects_a_shifted_output(config, monkeypatch):
    rendered = scene()
    layer, img = rendered.layers[0], rendered.images[0]
    assert check_geometry(img, img, layer, config).ok
    shifted = check_geometry(img, np.roll(img, 8, axis=1), layer, config)
    assert not shifted.ok and shifted.iou < config["iou_min"]
    strengths = []

    def roll(pipe, jobs, *, strength, **kwargs):
        strengths.append(strength)
        return [np.roll(j.image, 8, axis=1) for j in jobs]

    monkeypatch.setattr(diffusion, "run", roll)
    with pytest.raises(Reject, match="changed an object"):
        apply_realism(FakeTask(), question(), rendered, config, seed=1)
    assert strengths == [pytest.approx(0.5), pytest.approx(0.5 * config["retry_strength"])]  # one retry, lower


def test_check_rejects_a_colour_change(config):
    rendered = scene()
    img = rendered.images[0]
    green = img.copy()
    green[rendered.layers[0].ids == 1] = (40, 200, 40)
    drift = check_geometry(img, green, rendered.layers[0], config)
    assert not drift.ok and any("hue" in f for f in drift.failures)


def test_generate_one_with_realism_gives_valid_records(tiny):
    sd, cn = tiny
    cfg = realism_config("diffusion", sd, cn)  # at the tiny model's native 128 px, with the steps it suggests
    assert (cfg["steps"], cfg["strength"]) == (2, 0.5)
    task = make_task("forced_perspective", images_per_level=(2, 2, 2))
    real = generate_one(task, RunSpec(run_seed=0, realism=cfg), 0)
    again = generate_one(task, RunSpec(run_seed=0, realism=cfg), 0)
    rec = record(real)
    assert problems(rec) == []
    # the accepted scene, rendered without the pass: same regions (the masks' boxes), different pixels
    attempt = rec["provenance"]["attempts"] - 1
    rng = attempt_rng(instance_seed(0, "test", task.name, 0), attempt)
    scene_ = task.sample(rng, level_of(task, 0))
    plain = task.render(scene_, task.ask(scene_, rng, balanced_slot(0, "test", task.name, 0, task.config.n_options)))
    assert rec["regions"] == [r.to_json() for r in plain.regions]
    assert real.images != [encode_png(img) for img in plain.images]
    assert real.images == again.images


def test_layers_of_the_procedural_tasks():
    for name in ("scale_blur", "yes_but"):
        task = make_task(name)
        gen_task_layers(task)


def gen_task_layers(task) -> None:
    from conftest import ask_only

    scene_, q = ask_only(task, 0)
    rendered = task.render(scene_, q)
    assert len(rendered.layers) == len(rendered.images)
    for img, layer in zip(rendered.images, rendered.layers, strict=True):
        if layer is not None:
            assert layer.ids.shape == img.shape[:2]
            assert int(layer.ids.max()) <= len(layer.names)


def test_flags_give_clear_errors(tmp_path, tiny):
    sd, cn = tiny
    assert realism_config(None, None, None) is None
    with pytest.raises(InputError, match="need --realism diffusion"):
        realism_config(None, sd, None)
    with pytest.raises(InputError, match="--realism: 'gan'"):
        realism_config("gan", sd, cn)
    with pytest.raises(InputError, match="--diffusion-model.*tiny-diffusion"):
        realism_config("diffusion", tmp_path / "missing", cn)
    with pytest.raises(InputError, match="--controlnet: .*no config.json"):
        realism_config("diffusion", sd, tmp_path)
    with pytest.raises(InputError, match="--diffusion-model: .*no model_index.json"):
        realism_config("diffusion", cn, cn)
    with pytest.raises(InputError, match="--realism-strength"):
        realism_config("diffusion", sd, cn, strength=1.5)


def test_missing_extra_names_it(monkeypatch, tiny):
    monkeypatch.setitem(sys.modules, "diffusers", None)
    with pytest.raises(InputError, match=r"mirforge\[diffusion\]"):
        realism_config("diffusion", *tiny)
