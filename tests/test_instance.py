"""The record's schema and the invariants a schema cannot state: each has a failing case."""

from __future__ import annotations

import copy
import json

import pytest

from mirforge.instance import mir_view, problems, schema


def good() -> dict:
    return {
        "id": "view_3d-test-000042",
        "task": "view_3d",
        "category": "spatial",
        "split": "test",
        "question": "Compare <image> with <image>. Which is taller?",
        "images": ["images/view_3d/test/000042-0.png", "images/view_3d/test/000042-1.png"],
        "options": {"A": "the mug", "B": "the lamp", "C": "the can", "D": "the truck"},
        "answer": "C",
        "summary": "I compare the objects.",
        "caption": ["A mug.", "A lamp."],
        "text2img": "The mug is in Image 1, box [1, 2, 30, 40].",
        "img2img": "The mug is smaller than the lamp.",
        "conclusion": "Therefore the answer is C.",
        "regions": [{"image": 0, "name": "mug", "box": [1, 2, 30, 40]}],
        "difficulty": {"level": 2, "knobs": {"n_objects": 3}},
        "provenance": {
            "generator": "mirforge.generators.spatial.view_3d:View3D",
            "mirforge": "0.1.0",
            "run_seed": 0,
            "index": 42,
            "seed": 12345,
            "attempts": 1,
            "renderer": "pyrender/egl",
            "rewriter": None,
        },
    }


def test_schema_is_draft_2020_12():
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_good_record_passes(tmp_path):
    rec = good()
    assert problems(rec) == []
    for image in rec["images"]:
        (tmp_path / image).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / image).write_bytes(b"png")
    assert problems(rec, tmp_path) == []


def broken(change) -> list[str]:
    rec = copy.deepcopy(good())
    change(rec)
    return problems(rec)


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda r: r.pop("answer"), "'answer' is a required property"),
        (lambda r: r.update(category="fun"), "category"),
        (lambda r: r.update(extra=1), "Additional properties"),
        (lambda r: r["regions"][0].update(box=[1, 2, 3]), "regions.0.box"),
        (lambda r: r.update(answer="a"), "answer"),
        (lambda r: r["provenance"].update(run_seed=-1), "provenance.run_seed"),
    ],
)
def test_schema_errors_name_the_field(change, expected):
    found = broken(change)
    assert found and any(expected in p for p in found), found


def test_slot_count_must_match_images():
    found = broken(lambda r: r.update(question="Only one <image> here."))
    assert found == ["question: has 1 <image> slots but images lists 2 files"]


def test_answer_must_be_an_option():
    found = broken(lambda r: r.update(answer="E", conclusion="Therefore the answer is E."))
    assert found == ["answer: 'E' is not an option key (A, B, C, D)"]


def test_options_must_be_distinct():
    found = broken(lambda r: r["options"].update(D="The  Mug"))
    assert found == ["options: two options have the same text"]


def test_option_keys_are_consecutive():
    found = broken(lambda r: r["options"].pop("B"))
    assert found == ["options: keys must be consecutive letters from A, got A, C, D"]


def test_one_caption_per_image():
    found = broken(lambda r: r.update(caption=["only one"]))
    assert found == ["caption: has 1 entries for 2 images"]


def test_region_image_index_and_box():
    assert broken(lambda r: r["regions"][0].update(image=5)) == ["regions[0].image: 5 is not an image index"]
    assert broken(lambda r: r["regions"][0].update(box=[30, 2, 30, 40])) == ["regions[0].box: [30, 2, 30, 40] is empty"]


def test_conclusion_states_the_letter():
    assert broken(lambda r: r.update(conclusion="So it is the can.")) == [
        "conclusion: does not state the answer letter C"
    ]


def test_image_files_must_exist(tmp_path):
    assert problems(good(), tmp_path) == [
        "images: file images/view_3d/test/000042-0.png does not exist",
        "images: file images/view_3d/test/000042-1.png does not exist",
    ]


def test_mir_view_keeps_mir_field_names():
    view = mir_view(good())
    assert view["conclusion"] == "C"
    assert view["reasoning"] == "Therefore the answer is C."
    assert {"images", "question", "options", "summary", "caption", "text2img", "img2img"} <= set(view)
    json.dumps(view)
