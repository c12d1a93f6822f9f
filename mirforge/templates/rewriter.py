"""Optional LLM rewrite of the templated reasoning steps, checked for faithfulness, cached on disk.

One chat-completions request per instance (the official ``openai`` client, any OpenAI-compatible endpoint;
the API key comes from ``OPENAI_API_KEY`` and is never written anywhere) asks for a fluent rewrite of the five
steps as JSON. Every reply is checked by :func:`check`; a reply that fails is sent back once with its problems
named, and a second failure keeps the template. Requests go through mirforge's one LLM client
(:class:`mirforge.models.llm.LLMClient`: the ``openai`` client's own retries, the on-disk cache of
:mod:`mirforge.models.cache`) keyed by (model, messages, parameters, instance seed), so a rerun makes no calls and
writes the same bytes. The provenance therefore records only what a rerun reproduces: model, endpoint host, outcome
(``rewritten``; ``unchanged`` when the reply is faithful but word for word the template; ``fallback``, with the
reason) and the cache key, not whether this particular run hit the cache (the client's ``cache_hits`` counts that).

The faithfulness check is :func:`mirforge.templates.faithfulness.check_rewrite`: the numbers, boxes, names, image
references and answer letter of every step, and the claims it makes (relations, orders, what each option letter is
paired with, negations).

The reply is asked for as structured output (``response_format`` with the JSON schema of the steps); an endpoint
that refuses it is asked with the prompt's plain JSON instructions for the rest of the run
(:mod:`mirforge.templates.structured`). The provenance records which (``format``: ``json_schema`` or ``json``).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.models.cache import cache_key
from mirforge.models.llm import BudgetExhausted, CallFailed, LLMClient
from mirforge.task import Steps
from mirforge.templates.faithfulness import TEXT_STEPS, image_refs  # noqa: F401 (image_refs: re-exported)
from mirforge.templates.faithfulness import check_rewrite as check
from mirforge.templates.structured import SchemaRefusals, refuses_schema, response_format

DEFAULTS: dict[str, Any] = {
    "temperature": 0.0,
    "max_tokens": None,  # None: the server's default
    "max_calls": None,  # calls the whole run may send (shared by all workers through the cache file)
    "timeout": 25.0,  # seconds per request
    "retries": 1,  # the openai client's retries of a call after a timeout, 429 or 5xx (it honours Retry-After)
    # The run-wide circuit breaker (shared by all workers through the cache file): after this many consecutive
    # failed calls, or once failing calls have gone on this long, the rest of the run keeps the templates. With
    # the defaults a hanging endpoint costs a run at most 50 s + one call (2 x 25 s), under 2 minutes.
    "breaker_failures": 5,
    "breaker_seconds": 50.0,
    "allow_insecure_endpoint": False,  # send the key over plain http to another machine (--allow-insecure-endpoint)
    # With structured outputs, cap each string of the reply at this many times its template step's length (plus
    # LENGTH_SLACK characters) through the schema's maxLength; None: no cap. A server that constrains decoding to
    # the schema then ends a step that a small model repeats in a loop instead of generating to max_tokens.
    "max_length_factor": None,
}
LENGTH_SLACK = 40
MAX_PROBLEMS_SHOWN = 8

SYSTEM_PROMPT = """\
You edit the step-by-step reasoning written for a multiple-choice question about several images. The images \
are numbered Image 1, Image 2, ... in the order they appear in the question (each <image> marks one).

Rewrite every step so that it reads fluently and naturally, as a careful person explaining their reasoning, \
and keep every fact exactly:
- every number, and every box [x0, y0, x1, y1] digit for digit;
- every object name and every "Image k" reference;
- every option letter, and the answer letter.
Do not add numbers, objects or options that are not in the original, do not change which option is the \
answer, do not move a fact from one image's caption to another, and do not write <image>.

Reply with one JSON object and nothing else, with the keys "summary", "caption" (a list of exactly {n} \
strings, one per image, in order), "text2img", "img2img" and "conclusion". The conclusion must end by stating \
the answer letter, as in "Therefore the answer is {answer}."."""

RETRY_PROMPT = """\
That rewrite was rejected:
{problems}
Rewrite the original steps again, keeping every fact, and reply with the JSON object only."""


class ReplyError(ValueError):
    pass


# ---------------------------------------------------------------------------------------------- prompt, reply


def steps_json(steps: Steps) -> dict[str, Any]:
    return {
        "summary": steps.summary,
        "caption": list(steps.caption),
        "text2img": steps.text2img,
        "img2img": steps.img2img,
        "conclusion": steps.conclusion,
    }


def build_messages(steps: Steps, question: str, options: dict[str, str], answer: str) -> list[dict[str, str]]:
    lettered = "\n".join(f"{letter}. {text}" for letter, text in options.items())
    user = (
        f"Question: {question}\nOptions:\n{lettered}\nCorrect answer: {answer}\n\n"
        f"Original steps (JSON):\n{json.dumps(steps_json(steps), ensure_ascii=False, indent=1)}"
    )
    system = SYSTEM_PROMPT.format(n=len(steps.caption), answer=answer)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def retry_messages(messages: list[dict[str, str]], reply: str, problems: list[str]) -> list[dict[str, str]]:
    shown = "\n".join(f"- {p}" for p in problems[:MAX_PROBLEMS_SHOWN])
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": RETRY_PROMPT.format(problems=shown)},
    ]


def json_object(content: str) -> Any:
    """The JSON object of a reply: bare, inside ``` fences, or surrounded by prose."""
    text = content.strip()
    fenced = re.search(r"```(?:json|JSON)?\s*\n?(.*?)```", text, re.DOTALL)
    candidates = [fenced.group(1).strip()] if fenced else []
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    candidates.append(text)
    for candidate in candidates:
        try:
            return json.loads(candidate, strict=False)  # strict=False: raw newlines inside strings
        except json.JSONDecodeError:
            continue
    raise ReplyError("reply: not a JSON object")


def one_line(value: Any, label: str) -> str:
    if not isinstance(value, str):
        raise ReplyError(f"reply: {label} is not a string")
    return " ".join(value.split())


def parse_reply(content: str, n_captions: int) -> Steps:
    """Steps from a reply; raises :class:`ReplyError` naming what is wrong."""
    data = json_object(content)
    if not isinstance(data, dict):
        raise ReplyError("reply: not a JSON object")
    if "caption" not in data and "captions" in data:
        data["caption"] = data["captions"]
    missing = [key for key in ("summary", "caption", *TEXT_STEPS[1:]) if key not in data]
    if missing:
        raise ReplyError(f"reply: missing the key(s) {', '.join(missing)}")
    captions = data["caption"]
    if isinstance(captions, str) and n_captions == 1:
        captions = [captions]
    if not isinstance(captions, list) or len(captions) != n_captions:
        got = len(captions) if isinstance(captions, list) else "no list of"
        raise ReplyError(f"reply: caption must be a list of {n_captions} strings, got {got} captions")
    return Steps(
        summary=one_line(data["summary"], "summary"),
        caption=[one_line(c, f"caption {i + 1}") for i, c in enumerate(captions)],
        text2img=one_line(data["text2img"], "text2img"),
        img2img=one_line(data["img2img"], "img2img"),
        conclusion=one_line(data["conclusion"], "conclusion"),
    )


# ------------------------------------------------------------------------------------------------- the rewriter


class Rewriter:
    """Rewrites one instance's steps at a time; one per worker process (see :func:`rewriter_for`)."""

    def __init__(self, config: dict[str, Any], cache_path: Path | str | None = None) -> None:
        unknown = set(config) - set(DEFAULTS) - {"backend", "model", "base_url"}
        if unknown:
            raise InputError(f"rewriter: unknown setting(s) {', '.join(sorted(unknown))}")
        if config.get("backend", "openai") != "openai" or not config.get("model"):
            raise InputError("rewriter: needs backend 'openai' and a model name")
        self.settings = {**DEFAULTS, **{k: v for k, v in config.items() if k in DEFAULTS and v is not None}}
        self.model: str = config["model"]
        self.llm = LLMClient(
            self.model,
            config.get("base_url"),
            timeout=self.settings["timeout"],
            retries=self.settings["retries"],
            cache=cache_path,
            max_calls=self.settings["max_calls"],
            breaker=(self.settings["breaker_failures"], self.settings["breaker_seconds"]),
            allow_insecure=self.settings["allow_insecure_endpoint"],
            flag="--rewriter openai",
        )
        self.endpoint = self.llm.endpoint
        self.stats: Counter = Counter()  # rewritten, fallback
        self.said_opened = False
        self.refusals = SchemaRefusals(self.llm.cache, self.endpoint, self.model)

    def params(self, fmt: str) -> dict[str, Any]:
        """The request parameters that decide a response (part of the cache key); ``fmt`` is how the reply was asked
        for ("json_schema" or "json")."""
        params = {"temperature": self.settings["temperature"], "max_tokens": self.settings["max_tokens"], "format": fmt}
        if fmt == "json_schema" and self.settings["max_length_factor"] is not None:
            params["max_length_factor"] = self.settings["max_length_factor"]
        return params

    def max_lengths(self, steps: Steps) -> dict[str, int] | None:
        """The schema's maxLength per step (captions: of the longest caption), or None when not capped."""
        factor = self.settings["max_length_factor"]
        if factor is None:
            return None
        texts = {name: getattr(steps, name) for name in TEXT_STEPS}
        texts["caption"] = max(steps.caption, key=len, default="")
        return {name: math.ceil(factor * len(text)) + LENGTH_SLACK for name, text in texts.items()}

    def rewrite(
        self,
        steps: Steps,
        *,
        question: str,
        options: dict[str, str],
        answer: str,
        seed: int,
        entities: Iterable[str] = (),
    ) -> tuple[Steps, dict[str, Any]]:
        """The rewritten steps and their provenance, or the template's steps and why they were kept."""
        entities = tuple(entities)
        messages = build_messages(steps, question, options, answer)
        record: dict[str, Any] = {"model": self.model, "endpoint": self.endpoint}
        problems: list[str] = []
        for attempt in (1, 2):
            try:
                content = self.ask(messages, seed, len(steps.caption), record, self.max_lengths(steps))
            except (BudgetExhausted, CallFailed) as why:
                self.say_opened()
                return self.fallback(steps, record, str(why))
            try:
                candidate = parse_reply(content, len(steps.caption))
                problems = check(steps, candidate, question=question, options=options, answer=answer, entities=entities)
            except ReplyError as why:
                problems = [str(why)]
            if not problems:
                outcome = "unchanged" if candidate == steps else "rewritten"  # a faithful copy is not a rewrite
                self.stats[outcome] += 1
                return candidate, {**record, "outcome": outcome, "attempts": attempt}
            messages = retry_messages(messages, content, problems)
        return self.fallback(steps, record, "unfaithful: " + "; ".join(problems[:3]))

    def fallback(self, steps: Steps, record: dict[str, Any], reason: str) -> tuple[Steps, dict[str, Any]]:
        self.stats["fallback"] += 1
        return steps, {**record, "outcome": "fallback", "reason": reason}

    def say_opened(self) -> None:
        """Say once, from the process whose failure opened the run's circuit breaker, that templates are kept."""
        if self.llm.opened and not self.said_opened:
            self.said_opened = True
            print(
                f"warning: rewriter: {self.llm.opened} at {self.endpoint}; the rest of the run keeps the templates",
                file=sys.stderr,
            )

    def ask(
        self,
        messages: list[dict[str, str]],
        seed: int,
        n_captions: int,
        record: dict[str, Any],
        max_lengths: dict[str, int] | None = None,
    ) -> str:
        """The reply to ``messages``, asked for with the steps' JSON schema unless the endpoint refused it (then with
        plain JSON instructions); notes the format and the first cache key in ``record``."""
        if not self.refusals.refused():
            key = cache_key(self.model, messages, self.params("json_schema"), seed)
            first = "key" not in record
            record.setdefault("key", key[:16])
            record["format"] = "json_schema"
            try:
                return self.complete(messages, key, seed, response_format=response_format(n_captions, max_lengths))
            except CallFailed as why:
                if not refuses_schema(why):
                    raise
                self.note_refusal(why)
                if first:
                    del record["key"]  # the plain request below is the one answered
        key = cache_key(self.model, messages, self.params("json"), seed)
        record.setdefault("key", key[:16])
        record["format"] = "json"
        return self.complete(messages, key, seed)

    def note_refusal(self, why: CallFailed) -> None:
        """Record, for every worker of the run, that the endpoint refuses structured outputs; say it once."""
        if self.refusals.record(f"{why}: {why.detail}"):
            print(
                f"warning: rewriter: {self.endpoint} refuses response_format json_schema ({why}); the run asks for "
                "plain JSON instead",
                file=sys.stderr,
            )

    def complete(self, messages: list[dict[str, str]], key: str, seed: int, **request: Any) -> str:
        """The reply to ``messages``: from the cache, else from the endpoint (retried by the client), then cached."""
        texts = self.llm.complete(messages, key, seed=seed % 2**31, **self.request_params(), **request)
        return texts[0] if texts else ""

    def request_params(self) -> dict[str, Any]:
        params = {"temperature": self.settings["temperature"]}
        if self.settings["max_tokens"] is not None:
            params["max_tokens"] = self.settings["max_tokens"]
        return params


_REWRITERS: dict[tuple[str, str], Rewriter] = {}


def rewriter_for(config: dict[str, Any], cache_path: Path | str | None) -> Rewriter:
    """This process's rewriter for ``config`` (one client and one cache connection per worker process)."""
    key = (json.dumps(config, sort_keys=True), str(cache_path))
    if key not in _REWRITERS:
        _REWRITERS[key] = Rewriter(config, cache_path)
    return _REWRITERS[key]
