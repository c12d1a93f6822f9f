"""Difficulty filter bookkeeping with a scripted backend whose p is known; resume; the CLI against a local server."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_stages import make_dataset
from typer.testing import CliRunner

from mirforge.cli import app
from mirforge.curriculum.difficulty import SIDECAR, mcq_prompt, read_sidecar, run_difficulty, spearman
from mirforge.dataset import Dataset
from mirforge.errors import InputError
from mirforge.models.backend import Query, Sampling

from openai_server import OpenAIServer
from scripted_backend import ScriptedBackend

K = 10


def known_p(index: int) -> int:
    """Correct answers out of K for an instance: rises with its level (1 + index % 3)."""
    return [2, 5, 9][index % 3]


def scripted(records: list[dict]) -> ScriptedBackend:
    gold = {r["id"]: (r["answer"], [x for x in r["options"] if x != r["answer"]][0]) for r in records}

    def respond(query: Query, j: int) -> str:
        right, wrong = gold[query.id]
        correct = known_p(int(query.id[-6:]))
        if j < correct:
            return f"<think>hmm</think>Your option: {right.lower()}\nReason: ..."
        if j == K - 1:
            return "I cannot decide."  # one unparsed answer per question
        return f"The answer is {wrong}."

    return ScriptedBackend(respond)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "data", per_task=9)


def test_pass_rates_labels_and_summary(dataset: Path) -> None:
    records = Dataset(dataset).records()
    backend = scripted(records)
    report = run_difficulty(dataset, backend, Sampling(k=K), threshold=0.7, chunk=4, progress=False)
    lines = read_sidecar(dataset / SIDECAR)
    assert len(lines) == len(records) == 18 and report.measured == 18
    for line in lines:
        correct = known_p(int(line["id"][-6:]))
        assert line["k"] == K and line["correct"] == correct and line["p"] == correct / K
        assert line["parse_failures"] == 1 and line["answers"].count(None) == 1
        assert line["label"] == ("easy" if correct / K >= 0.7 else "hard")
        assert line["model"] == "scripted" and line["params"]["temperature"] == 0.7
        assert line["unparsed_responses"] == ["I cannot decide."]
    rows = {r["task"]: r for r in report.rows()}
    assert rows["ALL"]["n"] == 18
    assert rows["alpha"]["easy_share"] == pytest.approx(1 / 3)
    assert rows["alpha"]["mean_p"] == pytest.approx((0.2 + 0.5 + 0.9) / 3)
    assert rows["alpha"]["parse_failure_rate"] == pytest.approx(0.1)
    assert rows["alpha"]["spearman_level_p"] == pytest.approx(1.0)
    table = report.table()
    assert "alpha" in table and "beta" in table and "+1.000" in table
    # the instances are not rewritten
    assert all("p" not in r for r in Dataset(dataset).records())


def test_resume_skips_done_and_repairs_a_torn_line(dataset: Path) -> None:
    records = Dataset(dataset).records()
    first = scripted(records)
    run_difficulty(dataset, first, Sampling(k=K), limit=2, chunk=2, progress=False)
    assert len(read_sidecar(dataset / SIDECAR)) == 4
    with open(dataset / SIDECAR, "ab") as fh:
        fh.write(b'{"id": "alpha-test-0000')  # a kill mid-write
    second = scripted(records)
    report = run_difficulty(dataset, second, Sampling(k=K), chunk=4, progress=False)
    assert report.skipped == 4 and report.measured == 14
    lines = read_sidecar(dataset / SIDECAR)
    assert len(lines) == 18 and len({line["id"] for line in lines}) == 18
    third = scripted(records)
    report = run_difficulty(dataset, third, Sampling(k=K), progress=False)
    assert third.calls == 0 and report.measured == 0 and report.skipped == 18
    assert {r["task"]: r["n"] for r in report.rows()}["ALL"] == 18
    relabelled = run_difficulty(dataset, scripted(records), Sampling(k=K), threshold=0.5, progress=False)
    assert relabelled.measured == 0 and {r["task"]: r for r in relabelled.rows()}["ALL"]["easy_share"] == 2 / 3
    with pytest.raises(InputError, match="--out"):
        run_difficulty(dataset, scripted(records), Sampling(k=5), progress=False)


def test_spearman() -> None:
    assert spearman([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.4]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [0.4, 0.3, 0.2, 0.1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 2, 2], [0.5, 0.5, 0.9, 0.9]) == pytest.approx(1.0)
    assert spearman([1, 1, 1], [0.1, 0.2, 0.3]) is None
    assert spearman([1, 2], [0.1, 0.2]) is None


def test_prompt_asks_for_the_parsed_format(dataset: Path) -> None:
    record = Dataset(dataset).records()[0]
    prompt = mcq_prompt(record)
    assert prompt.count("<image>") == len(record["images"])
    assert "Your option:" in prompt and "A. " in prompt


def test_cli_openai_completes_and_resumes(dataset: Path) -> None:
    from PIL import Image

    def pixels(rel: str) -> str:
        with Image.open(dataset / rel) as im:
            return hashlib.sha256(im.tobytes()).hexdigest()

    gold: dict[tuple[str, ...], set[str]] = {}
    for r in Dataset(dataset).records():
        gold.setdefault(tuple(pixels(p) for p in r["images"]), set()).add(r["answer"])

    def respond(body: dict, images: list) -> str:
        answers = gold[tuple(d.pixels_sha256 for d in images)]  # the images arrived complete and in order
        assert len(answers) == 1
        return f"Your option: {next(iter(answers))}"

    runner = CliRunner()
    with OpenAIServer(respond) as server:
        args = ["difficulty", str(dataset), "--backend", "openai", "--model", "m", "--base-url", server.url]
        args += ["-k", "4", "--retries", "0", "--quiet", "--limit", "3"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "ALL" in result.output and server.count == 6
        result = runner.invoke(app, args[:-2])
        assert result.exit_code == 0, result.output
        assert server.count == 18 and "6 already in" in result.output
    lines = read_sidecar(dataset / SIDECAR)
    assert len(lines) == 18
    assert all(line["p"] == 1.0 and line["label"] == "easy" for line in lines)
    assert sorted({len(imgs) for imgs in server.images}) == [2, 3, 4]


def test_cli_bad_input_exits_2(dataset: Path) -> None:
    import sys

    from mirforge.cli import main

    argv = sys.argv
    sys.argv = ["mirforge", "difficulty", str(dataset), "--model", "m", "--backend", "openai", "--threshold", "2"]
    try:
        with pytest.raises(SystemExit) as exc:
            main()
    finally:
        sys.argv = argv
    assert exc.value.code == 2


def test_sidecar_lines_are_json(dataset: Path) -> None:
    records = Dataset(dataset).records()
    run_difficulty(dataset, scripted(records), Sampling(k=K), tasks={"beta"}, progress=False)
    raw = (dataset / SIDECAR).read_text().splitlines()
    assert len(raw) == 9 and all(json.loads(x)["task"] == "beta" for x in raw)
    with pytest.raises(InputError, match="--tasks"):
        run_difficulty(dataset, scripted(records), Sampling(k=K), tasks={"gamma"}, progress=False)
