"""The language check: each rule on its own, then every task's templates at every level."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from mirforge.templates.language import check_steps, check_text

# (text, a word every hit must contain); the text has exactly one slip
HITS = {
    "doubled word": ("The the tower is tall.", "doubled"),
    "doubled word across a line": ("It shows the cube and and the cone.", "doubled"),
    "one with a plural": ("A tower of 1 blocks stands on the table.", "singular"),
    "one spelled with a plural": ("There is one objects here.", "singular"),
    "count with a singular": ("The tower has 2 block.", "plural"),
    "count with a singular mid-sentence": ("I compare 3 image of the table.", "plural"),
    "a before a vowel": ("It shows a image of a cube.", "'an'"),
    "an before a consonant": ("It shows an cube.", "'a'"),
    "an before a digit": ("The beam tilts by an 3 degree angle.", "'a'"),
    "a before eight": ("It is a 8 px shift.", "'an'"),
    "a before an hour": ("It took a hour.", "'an'"),
    "trailing semicolon": ("In Image 2 the nearest object is the cube;", "dangling"),
    "trailing comma": ("The cube is left of the cone,", "dangling"),
    "no full stop": ("The cube is left of the cone", "full stop"),
    "space before a full stop": ("The cube is left of the cone .", "space"),
    "space inside brackets": ("The cube ( box [1, 2, 3, 4]) is left.", "space"),
    "doubled comma": ("The cube,, the cone.", "doubled"),
    "semicolon then full stop": ("The cube is left;.", "doubled"),
    "empty brackets": ("The cube () is left.", "empty"),
    "unclosed bracket": ("The cube (box [1, 2, 3, 4] is left.", "unclosed"),
    "stray closing bracket": ("The cube is left).", "unbalanced"),
    "odd quotes": ('The label reads "7 RED MARBLES.', "quotes"),
    "lower-case sentence start": ("The cube is left. the cone is right.", "lower case"),
    "lower-case step start": ("the cube is left.", "lower case"),
    "I ... and asks": ("I am given 4 photos of the table, and asks where the cube is.", "'I"),
    "the image ... show": ("The image without a reference (Image 1) show the pot.", "singular"),
    "these images shows": ("These images shows the pot.", "plural"),
    "image out of range": ("Image 3 shows the cube.", "Image 3"),
    "image zero": ("Image 0 shows the cube.", "Image 0"),
}

CLEAN = [
    "From left to right it shows the cyan cube (box [112, 216, 181, 286]), the red cube (box [131, 135, 208, 232]).",
    "A tower of 1 block stands on a table; the tower is 32 px tall.",
    "A tower of 4 blocks, 1.0 units and 2.5 units; 1.04 times as tall as the cone.",
    "I will check each of the 4 candidate top views against both views.",
    "I have to put the four shuffled tiles back into a 2 x 2 picture.",
    "Subtract the 2020 value from the 2021 value.",
    "Comparing the plan in Image 1 with the tower in Image 2 level by level.",
    "A top view (candidate A) with an orange cube at the front, a unit cube and an 8 px gap, an 11 px gap.",
    "Option A is an answer; a one-off; an hour; an F; a YES panel.",
    'The label reads "7 RED MARBLES". Candidate A (Image 2) agrees: x = 145 and y = -3.',
    "Image 1: the right pan sinks, so the cube is heavier than the cone. Image 2: the beam is level.",
    "Therefore the answer is B.",
    "I am given 2 photos and will find where the cube is.",
    "The images without a reference (Image 1, Image 2) show each pot at the same apparent size, so they say nothing.",
    "The image without a reference (Image 1) shows the pot, so it says nothing about real size.",
    "Image 2 (22 px) -> Image 1 (86 px).",
    "Sorted by speed: the cube (42.0 px/s), the cone (3.5 px/s). The change is 26 - 52 = -26 k EUR.",
]


@pytest.mark.parametrize("name", sorted(HITS))
def test_each_rule_finds_its_slip(name):
    text, word = HITS[name]
    hits = check_text(text, n_images=2)
    assert len(hits) == 1 and word.lower() in hits[0].lower(), hits


@pytest.mark.parametrize("text", CLEAN)
def test_clean_text_has_no_hits(text):
    assert check_text(text, n_images=2) == []


def test_empty_steps_and_labels():
    steps = {"summary": "", "caption": ["A cube.", " . "], "text2img": "Image 1.", "img2img": "x.", "conclusion": "B."}
    assert check_steps(steps) == [
        ("summary", "is empty"),
        ("caption 2", "is empty"),
        ("img2img", "sentence starts in lower case: 'x.'"),
    ]


@pytest.mark.parametrize("n", [6, pytest.param(50, marks=pytest.mark.slow)])
def test_every_task_at_every_level_reads_cleanly(tmp_path, n):
    """n instances of each of the 12 tasks (levels cycle with the index, so every level is there) and no hit."""
    out = tmp_path / "data"
    command = [sys.executable, "-m", "mirforge", "generate", "--tasks", "all", "--n", str(n), "--seed", "0"]
    result = subprocess.run([*command, "--workers", "2", "--out", str(out), "-q"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    records = [json.loads(line) for path in sorted(out.glob("instances/*/*/*.jsonl")) for line in path.open()]
    tasks = Counter(r["task"] for r in records)
    levels = {(r["task"], r["difficulty"]["level"]) for r in records}
    assert len(tasks) == 12 and all(count == n for count in tasks.values()), tasks
    assert len(levels) == 36, sorted(levels)
    hits = [
        f"{r['id']} {step}: {message}" for r in records for step, message in check_steps(r, n_images=len(r["images"]))
    ]
    assert not hits, f"{len(hits)} language hits:\n" + "\n".join(hits[:60])


def test_image_count_comes_from_the_captions():
    steps = {"summary": "S.", "caption": ["A.", "B."], "text2img": "Image 3.", "img2img": "I.", "conclusion": "C."}
    assert check_steps(steps) == [("text2img", "refers to Image 3, but there are 2 images")]
