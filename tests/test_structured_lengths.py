"""The rewriter's optional length caps on the structured-output schema (``max_length_factor``)."""

from __future__ import annotations

import math

import pytest
from test_rewriter import STEPS, config, fluent, original_steps, reply, rewrite

from mirforge.templates.rewriter import LENGTH_SLACK, Rewriter, steps_json
from mirforge.templates.structured import response_format, steps_schema

from openai_server import OpenAIServer

pytest.importorskip("openai")


def strings(schema: dict) -> dict[str, dict]:
    props = schema["properties"]
    return {**{k: v for k, v in props.items() if k != "caption"}, "caption": props["caption"]["items"]}


def test_without_caps_the_schema_has_no_max_length():
    assert all("maxLength" not in s for s in strings(steps_schema(4)).values())
    assert response_format(4)["json_schema"]["schema"] == steps_schema(4, None) == steps_schema(4, {})


def test_caps_bound_only_the_named_strings_and_keep_the_rest_of_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = steps_schema(2, {"summary": 12, "caption": 5})
    caps = {k: s.get("maxLength") for k, s in strings(schema).items()}
    assert caps == {"summary": 12, "caption": 5, "text2img": None, "img2img": None, "conclusion": None}
    assert schema["properties"]["caption"]["minItems"] == schema["properties"]["caption"]["maxItems"] == 2
    good = {"summary": "s" * 12, "caption": ["a", "bbbbb"], "text2img": "t" * 500, "img2img": "", "conclusion": "c"}
    jsonschema.validate(good, schema)
    for bad in ({**good, "summary": "s" * 13}, {**good, "caption": ["a", "b" * 6]}, {**good, "caption": ["a"]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_the_factor_caps_each_step_at_its_template_length_and_still_checks_the_reply(tmp_path):
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request)))) as srv:
        steps, record = rewrite(Rewriter(config(srv, max_length_factor=1.5), tmp_path / "llm.sqlite"))
    assert record["outcome"] == "rewritten" and record["format"] == "json_schema"
    caps = {k: s["maxLength"] for k, s in strings(srv.requests[0]["response_format"]["json_schema"]["schema"]).items()}
    want = {k: math.ceil(1.5 * len(v)) + LENGTH_SLACK for k, v in steps_json(STEPS).items() if k != "caption"}
    want["caption"] = math.ceil(1.5 * max(len(c) for c in STEPS.caption)) + LENGTH_SLACK
    assert caps == want


def test_a_capped_request_is_cached_apart_from_an_uncapped_one(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with OpenAIServer(lambda request, images: reply(fluent(original_steps(request)))) as srv:
        _, plain = rewrite(Rewriter(config(srv), cache))
        _, capped = rewrite(Rewriter(config(srv, max_length_factor=1.5), cache))
        assert srv.count == 2 and plain["key"] != capped["key"]
        assert "maxLength" not in str(srv.requests[0]["response_format"])


def test_the_factor_does_not_loosen_the_check(tmp_path):
    lie = steps_json(fluent(STEPS))
    lie["conclusion"] = lie["conclusion"].replace("answer is B", "answer is C")
    with OpenAIServer(lambda request, images: reply(type(STEPS)(**lie))) as srv:
        steps, record = rewrite(Rewriter(config(srv, max_length_factor=1.5), tmp_path / "llm.sqlite"))
    assert record["outcome"] == "fallback" and steps == STEPS and srv.count == 2
