"""``mirforge validate`` reads every image: checksums against the manifest, PNG chunk CRCs, a full decode, the size
its task draws, and every region inside its image. Each defect is planted in a copy of a real dataset."""

from __future__ import annotations

import io
import json
import shutil
import time
from pathlib import Path

import pytest
from PIL import Image

from mirforge.validate import png_problem, validate_dataset

from conftest import run_cli

IMAGE = "images/view_3d/test/000001-0.png"
SHARD = "instances/view_3d/test/shard-00000.jsonl"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("made") / "data"
    assert run_cli("generate", "--tasks", "view_3d", "--n", "3", "--out", str(out), "-q") == 0
    return out


@pytest.fixture
def data(made, tmp_path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(made, root)
    return root


def png(size: tuple[int, int], colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()


def first_record(root: Path) -> dict:
    return json.loads((root / SHARD).read_text().splitlines()[0])


def test_a_generated_dataset_is_valid_and_every_image_was_decoded(made):
    report = validate_dataset(made)
    assert report.ok, report.problems
    images = sorted(made.glob("images/**/*.png"))
    assert report.images == len(images) > 0
    manifest = json.loads((made / "manifest.json").read_text())
    assert manifest["splits"]["test"]["image_size"] == {"view_3d": 448}


def test_every_single_byte_flip_of_a_png_is_caught_by_the_crc_walk(made):
    data = (made / IMAGE).read_bytes()
    assert png_problem(data) is None
    missed = [i for i in range(len(data)) if png_problem(data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1 :]) is None]
    assert missed == []


@pytest.mark.parametrize("where", ["pixels", "header"])
def test_a_flipped_byte_fails_naming_the_image(data, where):
    raw = bytearray((data / IMAGE).read_bytes())
    at = len(raw) // 2 if where == "pixels" else 20  # in the compressed pixels / in IHDR (the width)
    raw[at] ^= 0x01
    (data / IMAGE).write_bytes(bytes(raw))
    report = validate_dataset(data)
    named = [p for p in report.problems if p.startswith(f"{IMAGE}: not a sound PNG")]
    assert named and "fails its CRC" in named[0], report.problems
    assert any(p.startswith(f"{SHARD}: its images differ") for p in report.problems), report.problems


def test_a_truncated_image_fails_naming_it(data):
    raw = (data / IMAGE).read_bytes()
    (data / IMAGE).write_bytes(raw[: len(raw) // 3])
    problems = validate_dataset(data).problems
    assert any(p.startswith(f"{IMAGE}: not a sound PNG") for p in problems), problems


def test_an_image_of_the_wrong_size_fails_naming_it(data):
    (data / IMAGE).write_bytes(png((256, 17)))
    problems = validate_dataset(data).problems
    assert any(p.startswith(f"{IMAGE}: is 256x17 pixels; task view_3d draws 448x448") for p in problems), problems


def test_a_replaced_sound_image_of_the_right_size_fails_the_manifest_checksum(data):
    (data / IMAGE).write_bytes(png((448, 448)))
    problems = validate_dataset(data).problems
    assert problems == [
        f"{SHARD}: its images differ from manifest.json's images_sha256 (an image was replaced or edited)"
    ]


def test_a_region_outside_its_image_fails_naming_the_record(data):
    lines = (data / SHARD).read_text().splitlines()
    record = json.loads(lines[0])
    record["regions"][0]["box"] = [400, 10, 470, 60]  # past the right edge of a 448-pixel image
    lines[0] = json.dumps(record, ensure_ascii=False)
    (data / SHARD).write_text("\n".join(lines) + "\n")
    problems = validate_dataset(data).problems
    expected = f"{SHARD}:1 ({record['id']}) regions[0].box: [400, 10, 470, 60] is not inside image 0 (448x448)"
    assert expected in problems, problems


def test_the_command_fails_with_the_file_named_and_reports_decoding_speed(data, capsys):
    assert run_cli("validate", str(data)) == 0
    out = capsys.readouterr().out
    assert "images decoded and checked" in out and "s per 1000 images" in out
    raw = bytearray((data / IMAGE).read_bytes())
    raw[len(raw) // 2] ^= 0x01
    (data / IMAGE).write_bytes(bytes(raw))
    assert run_cli("validate", str(data)) == 2
    err = capsys.readouterr().err
    assert f"{IMAGE}: not a sound PNG" in err and err.strip().splitlines()[-1].startswith(f"error: {data}: ")


def test_decoding_speed_per_1000_images(made, capsys):
    """Prints the measured time; fails only if checking an image took over 50 ms (a regression by 10x or more)."""
    t0 = time.perf_counter()
    report = validate_dataset(made)
    with capsys.disabled():
        print(
            f"\nvalidate: {report.images} images, {report.seconds_per_1000_images:.2f} s per 1000 images "
            f"(whole check {time.perf_counter() - t0:.2f} s)"
        )
    assert report.seconds_per_1000_images < 50
