"""No step before the conclusion gives the answer away: each rule on its own, then every task at every level."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mirforge.registry import resolve
from mirforge.templates.leaks import answer_leaks, specific

OBJECTS = {"A": "The orange cube", "B": "The cyan sphere", "C": "The green cube", "D": "The red cone"}
CLAIMS = {
    "A": "To the left of the green cube, and nearer to the camera than it",
    "B": "To the right of the green cube, and nearer to the camera than it",
    "C": "To the left of the green cube, and farther from the camera than it",
    "D": "To the right of the green cube, and farther from the camera than it",
}
HEIGHTS = {"A": "about 10 cm", "B": "about 16 cm", "C": "about 26 cm", "D": "about 42 cm"}
REGIONS = [{"name": name} for name in ("orange cube", "cyan sphere", "green cube", "red cone")]
CLEAN_STEPS = {
    "summary": "I need to find which object is nearest to the camera of Image 1.",
    "caption": ["The orange cube (box [1, 2, 3, 4]) and the cyan sphere.", "The red cone beside the green cube."],
    "text2img": "In Image 1 the orange cube is at box [1, 2, 3, 4], the cyan sphere at box [5, 6, 7, 8], the green "
    "cube at box [9, 10, 11, 12] and the red cone at box [13, 14, 15, 16].",
    "img2img": "The orange cube is about 6 units away, the others farther.",
    "conclusion": "So the orange cube is nearest. Therefore the answer is A.",
}


def steps(answer: str, options: dict[str, str] = OBJECTS, **changed: Any) -> dict[str, Any]:
    return {**CLEAN_STEPS, **changed, "options": options, "answer": answer, "regions": REGIONS}


# (the record, the step its one leak is in)
LEAKS = {
    "option letter in text2img": (
        steps("A", text2img=CLEAN_STEPS["text2img"].replace("cube at", "cube (option A) at", 1)),
        "text2img",
    ),
    "bracketed letter in a caption": (steps("B", caption=["The cyan sphere (B).", "A table."]), "caption 1"),
    "candidate letter in img2img": (steps("D", img2img="Candidate D fits every reading."), "img2img"),
    "answer stated in the summary": (steps("C", summary="The answer is C, as I will show."), "summary"),
    "answer object singled out": (steps("A", summary="The orange cube is the one to check."), "summary"),
    "answer claim before img2img": (
        steps("C", CLAIMS, caption=["It is to the left of the green cube, and farther from the camera than it.", "."]),
        "caption 1",
    ),
}
CLEAN = {
    "letters only in the conclusion": steps("A"),
    "another option's letter": steps("C", img2img="Option B fails: the sphere is farther."),
    "every option object named": steps("B"),
    "a caption names the answer object": steps("B", caption=["The cyan sphere alone.", "A table."]),
    "a measurement like the answer": steps("B", HEIGHTS, text2img="The ruler in Image 1 is about 16 cm long."),
    "the answer's claim from img2img on": steps(
        "C", CLAIMS, img2img="The sphere is to the left of the green cube, and farther from the camera than it."
    ),
    "the article A": steps("A", summary="A cube and a sphere stand on a table."),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_is_found(name):
    record, step = LEAKS[name]
    hits = answer_leaks(record)
    assert [label for label, _ in hits] == [step], hits


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_no_leak_where_the_steps_reason_first(name):
    assert answer_leaks(CLEAN[name]) == []


def test_only_specific_option_texts_are_tested():
    assert specific("The top left cell") and specific("Image 3") and specific("about 1.3 times as tall")
    assert not specific("12") and not specific("about 16 cm") and not specific("31 TWh") and not specific("B")


# known leaks that a task's owner is removing; each entry names what the steps still say
KNOWN: dict[str, str] = {}  # task -> why its steps still leak (an expected failure until its owner fixes it)
PER_TASK = 9  # instances per task: levels cycle with the index, so three of each level


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("leaks") / "data"
    command = [sys.executable, "-m", "mirforge", "generate", "--tasks", "all", "--n", str(PER_TASK), "--seed", "0"]
    result = subprocess.run([*command, "--workers", "2", "--out", str(out), "-q"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return [json.loads(line) for path in sorted(Path(out).glob("instances/*/*/*.jsonl")) for line in path.open()]


@pytest.mark.parametrize("task", resolve("all"))
def test_no_task_gives_the_answer_away_before_its_conclusion(task, records, request):
    if task in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[task], strict=False))
    mine = [r for r in records if r["task"] == task]
    assert len(mine) == PER_TASK
    hits = [f"{r['id']} (answer {r['answer']}) {step}: {message}" for r in mine for step, message in answer_leaks(r)]
    assert not hits, f"{len(hits)} leaks:\n" + "\n".join(hits[:20])
