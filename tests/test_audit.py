"""``mirforge audit``: planted shortcuts, duplicates and broken images are caught; a real dataset regenerates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from mirforge.audit import Bounds, audit, avoid_credit, heuristics, pick_credit
from mirforge.errors import InputError
from mirforge.runner.plan import RunConfig

from conftest import written

pytest.importorskip("sklearn")

LETTERS = "ABCD"
WORDS = ["red", "green", "blue", "cube", "ball", "cone", "left", "right", "small", "large", "top", "bottom"]


def write_dataset(root: Path, records: list[dict], images: dict[str, np.ndarray]) -> Path:
    for rel, image in images.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(root / rel), image)
    shard = root / "instances/toy/test/shard-00000.jsonl"
    shard.parent.mkdir(parents=True, exist_ok=True)
    shard.write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def toy(root: Path, n: int = 40, *, leak: bool = False, letter: str | None = None, seed: int = 0) -> Path:
    """Random options; with ``leak`` the correct one is always the longest; with ``letter`` always that letter."""
    rng = np.random.default_rng(seed)
    records, images = [], {}
    for i in range(n):
        options = [" ".join(rng.choice(WORDS, size=3)) + f" {i}-{j}" for j in range(4)]
        slot = LETTERS.index(letter) if letter else i % 4
        if leak:
            options[slot] += " which is exactly the one described in the question"
        rel = f"images/toy/test/{i:06d}-0.png"
        images[rel] = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
        records.append(
            {
                "id": f"toy-test-{i:06d}",
                "question": f"Look at <image>. Which {rng.choice(WORDS)} object is meant?",
                "images": [rel],
                "options": dict(zip(LETTERS, options, strict=True)),
                "answer": LETTERS[slot],
                "regions": [{"image": 0, "name": "thing", "box": [4, 4, 40, 40]}],
            }
        )
    return write_dataset(root, records, images)


def test_tie_credit():
    assert pick_credit(np.array([3.0, 3.0, 1.0, 0.0]), 0) == 0.5
    assert pick_credit(np.array([3.0, 3.0, 1.0, 0.0]), 2) == 0.0
    assert avoid_credit(np.array([3.0, 3.0, 1.0, 0.0]), 2) == 0.5
    assert avoid_credit(np.array([1.0, 1.0, 1.0, 1.0]), 2) == 0.25


def test_a_clean_toy_dataset_passes(tmp_path):
    (result,) = audit(toy(tmp_path / "clean"), Bounds(blind_margin=15), sample=0)
    assert result.n == 40 and result.k == 4 and result.chance == 25.0
    assert result.letter_deviation == 0.0
    assert result.violations == [], result.violations


def test_a_planted_length_leak_is_caught_by_the_heuristic_and_the_classifier(tmp_path):
    (result,) = audit(toy(tmp_path / "leak", leak=True), sample=0)
    assert result.heuristics["longest"] == 100.0
    assert result.blind is not None and result.blind > 80
    assert any(v.startswith("heuristic longest") for v in result.violations)
    assert any(v.startswith("blind baseline") for v in result.violations)


def test_unbalanced_letters_are_caught(tmp_path):
    (result,) = audit(toy(tmp_path / "letters", letter="B"), sample=0)
    assert result.letters["B"] == 100.0 and result.letter_deviation == 75.0
    assert any(v.startswith("answer letters") for v in result.violations)


def test_duplicates_blank_images_and_bad_regions_are_counted(tmp_path):
    root = toy(tmp_path / "broken", n=12)
    shard = root / "instances/toy/test/shard-00000.jsonl"
    records = [json.loads(line) for line in shard.read_text().splitlines()]
    records.append(dict(records[0], id="toy-test-000100"))  # the same question, options and image
    records[1]["regions"] = [
        {"image": 0, "name": "far", "box": [50, 50, 90, 90]},
        {"image": 0, "name": "dot", "box": [1, 1, 3, 3]},
    ]
    cv2.imwrite(str(root / records[2]["images"][0]), np.full((64, 64, 3), 200, np.uint8))
    isoluminant = np.full((64, 64, 3), (196, 216, 230), np.uint8)  # beige, and a cyan square of the same grey level
    isoluminant[20:40, 20:40] = (250, 250, 143)
    assert cv2.cvtColor(isoluminant, cv2.COLOR_BGR2GRAY).std() < Bounds().uniform_std
    cv2.imwrite(str(root / records[3]["images"][0]), isoluminant)  # not blank: the square shows in colour
    shard.write_text("".join(json.dumps(r) + "\n" for r in records))
    (result,) = audit(root, Bounds(blind_margin=100, letter_tolerance=100), sample=0)
    assert result.duplicates == 1 and result.image_set_duplicates == 1
    assert len(result.blank_images) == 1 and "near-uniform" in result.blank_images[0]
    assert len(result.bad_regions) == 2
    assert "leaves the 64 x 64 image" in result.bad_regions[0] and "too small" in result.bad_regions[1]
    assert {v.split(":")[0] for v in result.violations if not v.startswith(" ")} == {
        "duplicates (question + options + images)",
        "identical image sets",
        "blank or unreadable images",
        "bad regions",
    }


def test_heuristics_on_a_consensus_leak():
    """Distractors made by perturbing the answer: the answer is the option most like the others."""
    records = []
    for i in range(20):
        answer = "a > b > c > d > e"
        options = [answer, "b > a > c > d > e", "a > b > d > c > e", "a > b > c > e > d"]  # adjacent swaps
        slot = i % 4
        options[0], options[slot] = options[slot], options[0]
        records.append(
            {"question": "Order?", "options": dict(zip(LETTERS, options, strict=True)), "answer": LETTERS[slot]}
        )
    assert heuristics(records)["consensus"] == 100.0


def test_bounds_files_and_bad_bounds(tmp_path):
    (tmp_path / "b.toml").write_text("blind_margin = 8\nduplicates = 2\n")
    (tmp_path / "b.yaml").write_text("letter_tolerance: 1.5\n")
    assert Bounds.load(tmp_path / "b.toml").blind_margin == 8.0
    assert Bounds.load(tmp_path / "b.yaml", blind_margin=3).letter_tolerance == 1.5
    (tmp_path / "bad.yaml").write_text("blind_margn: 3\n")
    with pytest.raises(InputError, match="unknown bound 'blind_margn'"):
        Bounds.load(tmp_path / "bad.yaml")
    (tmp_path / "neg.toml").write_text("duplicates = -1\n")
    with pytest.raises(InputError, match="duplicates must not be negative"):
        Bounds.load(tmp_path / "neg.toml")
    with pytest.raises(InputError, match="no such dataset folder"):
        audit(tmp_path / "nothing")


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    return written(tmp_path_factory.mktemp("audit") / "data", RunConfig(tasks=("yes_but",), n=4, seed=5, shard_size=4))


def test_a_real_dataset_regenerates_and_a_tampered_image_is_caught(real, tmp_path):
    (result,) = audit(real, sample=2)
    assert result.regenerated == 2 and result.regen_agreement == 100.0
    assert not result.blank_images and not result.bad_regions and result.regions > 0
    tampered = tmp_path / "tampered"
    subprocess.run(["cp", "-a", str(real), str(tampered)], check=True)
    for png in (tampered / "images").rglob("*.png"):
        image = cv2.imread(str(png))
        image[0, 0] = 255 - image[0, 0]
        cv2.imwrite(str(png), image)
    (result,) = audit(tampered, sample=1)
    assert result.regen_agreement == 0.0 and "differs" in result.regen_disagreements[0]


def test_cli_exit_codes(real, tmp_path):
    (tmp_path / "strict.toml").write_text("regen_agreement = 100\nreused_images = -3\n")
    run = [sys.executable, "-m", "mirforge", "audit", str(real), "--sample", "0"]
    bad = subprocess.run([*run, "--bounds", str(tmp_path / "strict.toml")], capture_output=True, text=True)
    assert bad.returncode == 2 and "reused_images must not be negative" in bad.stderr and "Traceback" not in bad.stderr
    (tmp_path / "blank.yaml").write_text("uniform_std: 1000  # every image counts as blank\n")
    broken = subprocess.run(
        [*run, "--bounds", str(tmp_path / "blank.yaml"), "--json", str(tmp_path / "a.json")],
        capture_output=True,
        text=True,
    )
    assert broken.returncode == 1, broken.stderr
    assert "yes_but" in broken.stdout and "FAIL" in broken.stdout
    assert "FAIL yes_but:" in broken.stderr and broken.stderr.strip().splitlines()[-1].startswith("error: ")
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["ok"] is False and report["tasks"]["yes_but"]["n"] == 4
