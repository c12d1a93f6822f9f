"""Stage builder: each stage's prompt/target hold exactly the scheduled steps, sampling is seeded, counts add up.

Also home of ``make_dataset``, a small synthetic dataset folder shared by the curriculum tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mirforge.curriculum.stages import (
    STEPS,
    build_curriculum,
    default_schedule,
    load_schedule,
    parse_schedule,
)
from mirforge.dataset import Dataset
from mirforge.errors import InputError

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30), (30, 200, 200), (200, 30, 200)]


def make_record(task: str, index: int, n_images: int, root: Path) -> dict[str, Any]:
    iid = f"{task}-test-{index:06d}"
    images = []
    for k in range(n_images):
        rel = f"images/{task}/test/{index:06d}-{k}.png"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        colour = COLOURS[(index + k) % len(COLOURS)]
        Image.new("RGB", (40 + 4 * k, 32 + index), colour).save(root / rel)
        images.append(rel)
    slots = ", ".join(["<image>"] * n_images)
    letters = "ABCD"[: 3 + index % 2]
    answer = letters[index % len(letters)]
    return {
        "id": iid,
        "task": task,
        "category": "spatial",
        "split": "test",
        "question": f"Look at {slots}. Which object is the largest?",
        "images": images,
        "options": {letter: f"Object {letter.lower()} in the scene" for letter in letters},
        "answer": answer,
        "summary": f"SUMMARY-{iid}: compare the objects.",
        "caption": [f"CAPTION-{iid}-{k}" for k in range(n_images)],
        "text2img": f"TEXT2IMG-{iid}: the word <image> is literal here.",
        "img2img": f"IMG2IMG-{iid}: the objects match across views.",
        "conclusion": f"CONCLUSION-{iid}: therefore the answer is {answer}.",
        "regions": [],
        "difficulty": {"level": 1 + index % 3, "knobs": {}},
        "provenance": {
            "generator": "tests.fake:Fake",
            "mirforge": "0.1.0",
            "run_seed": 0,
            "index": index,
            "seed": index,
            "renderer": None,
            "rewriter": None,
        },
    }


def make_dataset(root: Path, per_task: int = 10, tasks: tuple[str, ...] = ("alpha", "beta")) -> Path:
    """A dataset folder without a manifest: instances/<task>/test/shard-00000.jsonl and small coloured PNGs."""
    for task in tasks:
        records = [make_record(task, i, 2 + i % 3, root) for i in range(per_task)]
        path = root / "instances" / task / "test" / "shard-00000.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def pass_rates(records: list[dict[str, Any]]) -> dict[str, float]:
    """A known p per instance: index 0, 5, 10, ... easy (p=1.0), the rest hard (p=0.1 * (index % 5))."""
    return {r["id"]: 1.0 if int(r["id"][-6:]) % 5 == 0 else 0.1 * (int(r["id"][-6:]) % 5) for r in records}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "data", per_task=20)


def steps_in(text: str) -> set[str]:
    return {s for s in STEPS if f"<{s}>" in text or f"</{s}>" in text}


def test_default_schedule_is_mir(dataset: Path) -> None:
    schedule = parse_schedule(default_schedule())
    assert [s.name for s in schedule.stages] == [f"stage{i}" for i in range(6)]
    assert schedule.stages[0].pool == "easy" and schedule.stages[0].target == STEPS and not schedule.stages[0].prompt
    for i, stage in enumerate(schedule.stages[1:], 1):
        assert stage.pool == "hard" and stage.fraction == 0.4
        assert stage.prompt + stage.target == STEPS  # one step moves per stage, order kept
        assert len(stage.target) == i
    assert schedule.stages[1].target == ("conclusion",)
    assert schedule.stages[-1].prompt == ()


def test_stages_hold_exactly_the_scheduled_steps(dataset: Path) -> None:
    records = Dataset(dataset).records()
    p = pass_rates(records)
    built = build_curriculum(records, parse_schedule(default_schedule()), p)
    for stage, rows, stats in built:
        assert stats["count"] == len(rows)
        for row in rows:
            prompt_steps, target_steps = steps_in(row["prompt"]), steps_in(row["target"])
            assert prompt_steps == set(stage.prompt), (stage.name, prompt_steps)
            assert target_steps == set(stage.target)
            assert not prompt_steps & target_steps
            iid = row["id"]
            for step in STEPS:
                marker = f"{step.upper()}-{iid}"
                assert (marker in row["prompt"]) == (step in stage.prompt)
                assert (marker in row["target"]) == (step in stage.target)
            # the question's slots are the only image tags; literal <image> in step text is escaped
            assert row["prompt"].count("<image>") == len(row["images"])
            assert "<image>" not in row["target"]
    by_name = {stage.name: rows for stage, rows, _ in built}
    for row in by_name["stage2"] + by_name["stage3"]:  # MIR's build_context leaked img2img here
        assert "IMG2IMG-" not in row["prompt"]


def test_pools_and_counts_add_up(dataset: Path) -> None:
    records = Dataset(dataset).records()
    p = pass_rates(records)
    easy = [r for r in records if p[r["id"]] >= 0.7]
    hard = [r for r in records if p[r["id"]] < 0.7]
    assert len(easy) + len(hard) == len(records) == 40
    built = build_curriculum(records, parse_schedule(default_schedule()), p)
    assert built[0][2]["count"] == len(easy) == 8
    for _stage, rows, stats in built[1:]:
        assert stats["count"] == round(0.4 * len(hard)) == 13
        assert stats["pool"] == len(hard)
        assert {r["id"] for r in rows} <= {r["id"] for r in hard}
        assert len({r["id"] for r in rows}) == len(rows)
        assert stats["images"] == sum(len(r["images"]) for r in rows)
        assert sum(stats["tasks"].values()) == stats["count"]
        assert stats["mean_prompt_chars"] > 0 and stats["mean_target_chars"] > 0


def test_sampling_is_seeded_and_fresh_per_stage(dataset: Path) -> None:
    records = Dataset(dataset).records()
    p = pass_rates(records)
    schedule = parse_schedule(default_schedule())
    first = [[r["id"] for r in rows] for _, rows, _ in build_curriculum(records, schedule, p)]
    again = [[r["id"] for r in rows] for _, rows, _ in build_curriculum(records, schedule, p)]
    assert first == again
    assert len({tuple(sorted(ids)) for ids in first[1:]}) > 1  # each stage draws afresh
    other = parse_schedule({**default_schedule(), "seed": 1})
    moved = [[r["id"] for r in rows] for _, rows, _ in build_curriculum(records, other, p)]
    assert moved[1:] != first[1:]
    assert sorted(moved[0]) == sorted(first[0])  # fraction 1.0 takes the whole easy pool
    ordered = parse_schedule({**default_schedule(), "shuffle": False})
    plain = build_curriculum(records, ordered, p)
    index = {r["id"]: i for i, r in enumerate(records)}
    for _, rows, _ in plain:
        assert [index[r["id"]] for r in rows] == sorted(index[r["id"]] for r in rows)


def test_threshold_from_schedule(dataset: Path) -> None:
    records = Dataset(dataset).records()
    p = pass_rates(records)
    built = build_curriculum(records, parse_schedule({**default_schedule(), "threshold": 0.25}), p)
    assert built[0][2]["count"] == sum(1 for v in p.values() if v >= 0.25)


def test_schedule_file_yaml_and_json(tmp_path: Path, dataset: Path) -> None:
    yaml_file = tmp_path / "s.yaml"
    yaml_file.write_text(
        "seed: 3\nthreshold: 0.5\ntags:\n  conclusion: 'Answer: {text}'\nstages:\n"
        "  - {name: warm, pool: all, fraction: 0.5, prompt: [summary, caption], target: [conclusion]}\n"
        "  - {name: full, pool: all, target: [summary, caption, text2img, img2img, conclusion]}\n"
    )
    schedule = load_schedule(yaml_file)
    assert schedule.seed == 3 and [s.name for s in schedule.stages] == ["warm", "full"]
    built = build_curriculum(Dataset(dataset).records(), schedule, None)  # pool: all needs no difficulty file
    assert built[0][2]["count"] == 20 and built[1][2]["count"] == 40
    assert built[0][1][0]["target"].startswith("Answer: CONCLUSION-")
    json_file = tmp_path / "s.json"
    json_file.write_text(json.dumps(schedule.to_json()))
    assert load_schedule(json_file) == schedule


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"stages": [{"name": "x", "prompt": ["summary"], "target": ["summary"]}]}, "both prompt and target"),
        ({"stages": [{"name": "x", "target": ["answer"]}]}, "stages[0].target"),
        ({"stages": [{"name": "x", "pool": "medium", "target": ["conclusion"]}]}, "stages[0].pool"),
        ({"stages": [{"name": "x", "fraction": 1.5, "target": ["conclusion"]}]}, "stages[0].fraction"),
        ({"stages": [{"name": "x", "target": []}]}, "stages[0].target"),
        ({"threshold": 2}, "threshold"),
        ({"tags": {"summary": "<s></s>"}}, "tags.summary"),
        ({"shufle": True}, "unknown keys"),
    ],
)
def test_schedule_errors_name_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError, match=re.escape(field)):
        parse_schedule({**default_schedule(), **change})


def test_missing_difficulty_is_a_clear_error(dataset: Path) -> None:
    records = Dataset(dataset).records()
    with pytest.raises(InputError, match="--difficulty"):
        build_curriculum(records, parse_schedule(default_schedule()), None)
    partial = dict(list(pass_rates(records).items())[:5])
    with pytest.raises(InputError, match="no measured p"):
        build_curriculum(records, parse_schedule(default_schedule()), partial)
