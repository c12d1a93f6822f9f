"""The rewriter's run-wide circuit breaker, against the loopback OpenAI-compatible server (tests/openai_server.py)
in its failing modes: an endpoint that answers 500 to everything, and one that hangs."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from mirforge.models.breaker import reset_breaker
from mirforge.runner.config import RunConfig
from mirforge.runner.run import generate
from mirforge.task import Steps
from mirforge.templates.rewriter import DEFAULTS, LENGTH_SLACK, Rewriter

from openai_server import OpenAIServer

openai = pytest.importorskip("openai")

STEPS = Steps(
    summary="I compare the two images.",
    caption=["A red cube.", "A blue sphere."],
    text2img="Image 1 shows the red cube; Image 2 shows the blue sphere.",
    img2img="The red cube in Image 1 is larger than the blue sphere in Image 2.",
    conclusion="The red cube is larger. Therefore the answer is A.",
)
OPTIONS = {"A": "the red cube", "B": "the blue sphere"}
QUESTION = "Which is larger, the object in <image> or the one in <image>?"


def settings(server: OpenAIServer, **extra: Any) -> dict[str, Any]:
    return {"backend": "openai", "model": "m", "base_url": server.url, "timeout": 0.5, "retries": 1, **extra}


def rewrite(rewriter: Rewriter, seed: int) -> dict[str, Any]:
    return rewriter.rewrite(STEPS, question=QUESTION, options=OPTIONS, answer="A", seed=seed)[1]


def echo(request: dict[str, Any], images: list) -> str:
    """A faithful rewrite: the original steps with a lead-in to the summary (a word-for-word copy is 'unchanged')."""
    steps = json.loads(request["messages"][1]["content"].split("Original steps (JSON):\n", 1)[1])
    return json.dumps({**steps, "summary": "In short: " + steps["summary"]})


def test_the_defaults_keep_a_hanging_endpoint_under_two_minutes_for_the_whole_run():
    from openai._constants import INITIAL_RETRY_DELAY

    # the breaker opens once failing calls have lasted breaker_seconds; the call that crosses it, and one call in
    # flight on each other worker (started before it opened, so running at the same time), end within one call
    one_call = (DEFAULTS["retries"] + 1) * DEFAULTS["timeout"] + DEFAULTS["retries"] * INITIAL_RETRY_DELAY
    assert DEFAULTS["breaker_seconds"] + one_call < 120
    assert DEFAULTS["breaker_failures"] == 5


def test_a_500_endpoint_opens_the_breaker_after_5_failures_said_once(tmp_path, capsys):
    with OpenAIServer(echo) as server:
        server.always = 500
        rewriter = Rewriter(settings(server), tmp_path / "llm.sqlite")
        records = [rewrite(rewriter, seed) for seed in range(9)]
        assert server.count == 5 * 2  # five calls of two attempts each, then none
    assert all(r["outcome"] == "fallback" for r in records)
    assert [r["reason"] for r in records[:5]] == ["call failed: HTTP 500 after 2 attempts"] * 5
    assert all(r["reason"].startswith("circuit open after 5 consecutive failed calls") for r in records[5:])
    warnings = [line for line in capsys.readouterr().err.splitlines() if "circuit open" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: rewriter: ") and "keeps the templates" in warnings[0]


def test_only_consecutive_failures_count(tmp_path):
    with OpenAIServer(echo) as server:
        rewriter = Rewriter(settings(server, retries=0), tmp_path / "llm.sqlite")
        for round_ in range(3):
            server.fail(500, 500, 500, 500)  # four failed calls, then an answer: the count starts again
            records = [rewrite(rewriter, 10 * round_ + k) for k in range(5)]
            assert [r["outcome"] for r in records] == ["fallback"] * 4 + ["rewritten"]
        assert server.count == 15


def test_a_hanging_endpoint_costs_at_most_breaker_seconds_and_one_call(tmp_path):
    with OpenAIServer(echo, timeout_delay=30) as server:
        server.always = "timeout"
        rewriter = Rewriter(settings(server, timeout=0.3, breaker_seconds=1.0), tmp_path / "llm.sqlite")
        t0 = time.perf_counter()
        records = [rewrite(rewriter, seed) for seed in range(20)]
        elapsed = time.perf_counter() - t0
        requests = server.count
    bound = 1.0 + 2 * 0.3 + 0.5  # breaker_seconds + one call (two attempts and the backoff between them)
    assert elapsed < bound + 1.0, f"{elapsed:.1f} s for 20 instances"
    assert requests <= 4
    assert records[0]["reason"] == "call failed: timeout after 2 attempts"
    assert all(r["outcome"] == "fallback" for r in records)
    assert records[-1]["reason"].startswith("circuit open after")


def test_cached_replies_are_still_served_while_the_breaker_is_open(tmp_path):
    path = tmp_path / "llm.sqlite"
    with OpenAIServer(echo) as server:
        assert rewrite(Rewriter(settings(server), path), seed=1)["outcome"] == "rewritten"
        server.always = 500
        rewriter = Rewriter(settings(server, retries=0), path)
        for seed in range(2, 7):
            rewrite(rewriter, seed)
        count = server.count
        assert rewrite(rewriter, seed=1)["outcome"] == "rewritten"  # from the cache, not the endpoint
        assert rewrite(rewriter, seed=99)["reason"].startswith("circuit open")
        assert server.count == count
        reset_breaker(path)  # what the driver does when a run starts
        server.always = None
        assert rewrite(rewriter, seed=99)["outcome"] == "rewritten"


def test_a_run_with_two_workers_shares_one_breaker_and_the_next_run_tries_again(tmp_path, capfd):
    out = tmp_path / "data"
    with OpenAIServer(echo) as server:
        server.always = 500
        rewriter = {**settings(server, retries=0, breaker_failures=3), "temperature": 0.0, "max_calls": None}
        config = RunConfig(tasks=("view_3d",), n=6, shard_size=1, rewriter=rewriter)
        generate(config, out, workers=2, progress=False)
        failed = server.count
        records = [json.loads(p.read_text()) for p in sorted(out.glob("instances/view_3d/test/*.jsonl"))]
        reasons = [r["provenance"]["rewriter"]["reason"] for r in records]
        assert len(records) == 6 and all(r["provenance"]["rewriter"]["outcome"] == "fallback" for r in records)
        assert 3 <= failed <= 4  # three to open it; the other worker may have had one call in flight
        assert sum(reason.startswith("circuit open") for reason in reasons) >= 2
        assert capfd.readouterr().err.count("circuit open after") == 1
        # the next run of the split starts with the breaker closed: its unfinished shards are rewritten
        for path in sorted(out.glob("instances/view_3d/test/*.jsonl"))[:2]:
            path.unlink()
        server.always = None
        generate(config, out, workers=2, progress=False)
        assert server.count == failed + 2
    again = [json.loads(p.read_text()) for p in sorted(out.glob("instances/view_3d/test/*.jsonl"))[:2]]
    assert all(r["provenance"]["rewriter"]["outcome"] == "rewritten" for r in again)


def test_the_settings_reach_the_client(tmp_path):
    with OpenAIServer(echo) as server:
        rewriter = Rewriter(settings(server, breaker_failures=2, breaker_seconds=9.0), Path(tmp_path) / "c.sqlite")
    assert (rewriter.llm.breaker.failures, rewriter.llm.breaker.seconds) == (2, 9.0)
    assert rewriter.llm.client.timeout == 0.5 and rewriter.llm.client.max_retries == 1


@pytest.mark.parametrize(
    ("option", "value", "key", "applied"),
    [
        ("rewrite_timeout", 90, "timeout", lambda r: r.llm.client.timeout == 90.0),
        (
            "rewrite_length_cap",
            1.3,
            "max_length_factor",
            lambda r: r.max_lengths(STEPS)["summary"] == math.ceil(1.3 * len(STEPS.summary)) + LENGTH_SLACK,
        ),
    ],
)
def test_an_optional_rewriter_setting_from_the_command_line_is_recorded_and_applied(
    tmp_path, option, value, key, applied
):
    options = {"tasks": "view_3d", "n": 1, "rewriter": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    config, _ = RunConfig.from_options({**options, "dry_run": True})
    assert key not in config.rewriter  # the default: the split's identity stays as before the option
    config, _ = RunConfig.from_options({**options, "dry_run": True, option: value})
    assert config.rewriter[key] == float(value)
    assert applied(Rewriter(config.rewriter, tmp_path / "c.sqlite"))
