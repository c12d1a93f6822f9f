"""Optional LLM rewrite of the templated reasoning steps, checked for faithfulness, cached on disk.

One chat-completions request per instance (the official ``openai`` client, any OpenAI-compatible endpoint;
the API key comes from ``OPENAI_API_KEY`` and is never written anywhere) asks for a fluent rewrite of the five
steps as JSON. Every reply is checked by :func:`check`; a reply that fails is sent back once with its problems
named, and a second failure keeps the template. Requests go through mirforge's one LLM client
(:class:`mirforge.models.llm.LLMClient`: the ``openai`` client's own retries, the on-disk cache of
:mod:`mirforge.models.cache`) keyed by (model, messages, parameters, instance seed), so a rerun makes no calls and
writes the same bytes. The provenance therefore records only what a rerun reproduces: model, endpoint host, outcome
and the cache key, not whether this particular run hit the cache (the client's ``cache_hits`` counts that).

The faithfulness rule, applied per step (each caption on its own) unless it says otherwise:

- numbers: every number written in digits in the template step is in the rewritten step (in digits, or as a
  number word up to twelve); the rewrite writes no number in digits that appears nowhere in the template,
  the question or the options (a changed digit is caught even when the old value survives elsewhere);
- boxes: every box literal ``[x0, y0, x1, y1]`` of the template step is in the rewritten step, and every box of
  the rewrite is a box of the template;
- images: every image the template step refers to ("Image 3", "Images 3 to 6", "Images 1 and 2") is referred to
  in the rewritten step, and the rewrite refers to no image beyond the last one;
- names: every entity name found in the template step is in the rewritten step (case-insensitive, plural
  allowed). Entity names are the region names the caller passes, text in double quotes, and capitalised words
  in the middle of a sentence (proper names);
- the answer: every answer statement ("the answer is C", "option C is correct", "choose C") in any step names
  the answer letter; when the templated conclusion states the answer, the rewritten one does too; when the
  templated conclusion contains the correct option's text, so does the rewritten one;
- form: the five steps are non-empty strings, one caption per image, and ``<image>`` slots are not added.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge.errors import InputError
from mirforge.models.cache import cache_key
from mirforge.models.llm import BudgetExhausted, CallFailed, LLMClient
from mirforge.task import Steps

TEXT_STEPS = ("summary", "text2img", "img2img", "conclusion")
DEFAULTS: dict[str, Any] = {
    "temperature": 0.0,
    "max_tokens": None,  # None: the server's default
    "max_calls": None,  # calls the whole run may send (shared by all workers through the cache file)
    "timeout": 120.0,  # seconds per request
    "retries": 4,  # the openai client's retries of a call after a timeout, 429 or 5xx (it honours Retry-After)
}
IMAGE_SLOT = "<image>"
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


# ---------------------------------------------------------------------------------------------- fact extraction

NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
BOX_RE = re.compile(r"\[\s*(\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?){3})\s*\]")
# "Image 2" (one number), "Images 3 to 6", "Images 1, 2 and 4" (lists and ranges only after the plural)
IMAGE_REF_RE = re.compile(
    r"\bimage\s+(\d+)|\bimages\s+(\d+(?:\s*(?:,\s*(?:and\s+|or\s+)?|and|or|to|through|-|–)\s*\d+)*)", re.IGNORECASE
)
QUOTED_RE = re.compile(r"\"([^\"]{2,40})\"|“([^”]{2,40})”")  # short quotes: labels and names, not sentences
# capitalised words after a lower-case word or a comma: mid-sentence, so a name rather than a sentence start
PROPER_RE = re.compile(r"(?<=[a-z,]\s)([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
NOT_NAMES = {"Image", "Candidate", "Option", "Choice", "Answer", "Step"}  # and their plurals
NUMBER_WORDS = dict(
    zip(
        "zero one two three four five six seven eight nine ten eleven twelve".split(),
        (str(i) for i in range(13)),
        strict=True,
    )
)
NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
_LETTER = r"\(?([A-Z])\)?(?![\w'])"
ANSWER_RES = (
    re.compile(
        r"(?i:\banswer)(?:\s+(?i:is|would\s+be|must\s+be|should\s+be))?\s*[:=]?\s*(?i:option\s+|choice\s+)?" + _LETTER
    ),
    re.compile(
        r"(?i:\b(?:option|choice|candidate|letter))\s+" + _LETTER + r"\s+(?i:is\s+(?:the\s+)?(?:correct|right|answer))"
    ),
    re.compile(r"(?i:\b(?:choose|pick|select))\s+(?i:option\s+)?" + _LETTER),
)


def canonical_number(text: str) -> str:
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    return str(int(whole)) + (f".{frac}" if frac else "")


def numbers(text: str) -> set[str]:
    """Numbers written in digits, canonical ("007" -> "7", "2.50" -> "2.5")."""
    return {canonical_number(m) for m in NUMBER_RE.findall(text)}


def spoken_numbers(text: str) -> set[str]:
    return {NUMBER_WORDS[m.lower()] for m in NUMBER_WORD_RE.findall(text)}


def boxes(text: str) -> set[tuple[str, ...]]:
    return {tuple(canonical_number(v.strip()) for v in m.split(",")) for m in BOX_RE.findall(text)}


def image_refs(text: str) -> set[int]:
    """Image numbers referred to: "Image 2", "Images 3 to 6", "Images 1, 2 and 4"."""
    refs: set[int] = set()
    for single, plural in IMAGE_REF_RE.findall(text):
        tail = single or plural
        values = [int(v) for v in re.findall(r"\d+", tail)]
        joins = re.split(r"\d+", tail)[1:-1]
        refs.update(values)
        for a, b, join in zip(values, values[1:], joins, strict=False):
            if join.strip().lower() in ("to", "through", "-", "–") and 0 <= b - a <= 100:
                refs.update(range(a, b + 1))
    return refs


def normalize(text: str) -> str:
    text = text.replace("’", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.casefold().split())


def strip_article(text: str) -> str:
    text = normalize(text).strip(" .,;:!?")
    return re.sub(r"^(the|a|an)\s+", "", text)


def mentions(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` as whole words, case-insensitive, a plural allowed."""
    words = normalize(name).split()
    if not words:
        return True
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?:s|es)?(?!\w)"
    return re.search(pattern, normalize(text)) is not None


def names(text: str, entities: Iterable[str]) -> set[str]:
    """Entity names of a templated step: the caller's entities it mentions, quoted text and proper names."""
    found = {normalize(e) for e in entities if e.strip() and mentions(text, e)}
    found.update(normalize(a or b) for a, b in QUOTED_RE.findall(text) if len((a or b).split()) <= 4)
    for match in PROPER_RE.findall(text):
        words = match.split()
        if not any(w.removesuffix("'s").removesuffix("s") in NOT_NAMES for w in words):
            found.add(normalize(match).removesuffix("'s"))
    return found


def answer_letters(text: str) -> list[str]:
    """Letters the text states as the answer."""
    return [m.group(1) for regex in ANSWER_RES for m in regex.finditer(text)]


# --------------------------------------------------------------------------------------------------- the check


@dataclass
class Expected:
    """What the whole instance allows: numbers and boxes anywhere in the template, the question, the options."""

    answer: str
    answer_text: str
    n_images: int
    numbers: set[str] = field(default_factory=set)
    boxes: set[tuple[str, ...]] = field(default_factory=set)
    entities: tuple[str, ...] = ()


def all_text(steps: Steps) -> list[str]:
    return [steps.summary, *steps.caption, steps.text2img, steps.img2img, steps.conclusion]


def step_pairs(original: Steps, rewritten: Steps) -> list[tuple[str, str, str]]:
    pairs = [(name, getattr(original, name), getattr(rewritten, name)) for name in TEXT_STEPS]
    for i, (a, b) in enumerate(zip(original.caption, rewritten.caption, strict=True)):
        pairs.insert(1 + i, (f"caption {i + 1}", a, b))
    return pairs


def check_step(label: str, before: str, after: str, expected: Expected) -> list[str]:
    problems: list[str] = []
    if not after.strip():
        return [f"{label}: is empty"]
    lost = numbers(before) - numbers(after) - spoken_numbers(after)
    if lost:
        problems.append(f"{label}: lost the number(s) {', '.join(sorted(lost, key=float))}")
    added = numbers(after) - expected.numbers
    if added:
        problems.append(f"{label}: introduced the number(s) {', '.join(sorted(added, key=float))}")
    for box in sorted(boxes(before) - boxes(after)):
        problems.append(f"{label}: lost the box [{', '.join(box)}]")
    for box in sorted(boxes(after) - expected.boxes):
        problems.append(f"{label}: introduced the box [{', '.join(box)}]")
    for k in sorted(image_refs(before) - image_refs(after)):
        problems.append(f"{label}: no longer refers to Image {k}")
    for k in sorted(k for k in image_refs(after) if not 1 <= k <= expected.n_images):
        problems.append(f"{label}: refers to Image {k}, but there are {expected.n_images} images")
    for name in sorted(names(before, expected.entities)):
        if not mentions(after, name):
            problems.append(f"{label}: lost '{name}'")
    for letter in sorted(set(answer_letters(after)) - {expected.answer}):
        problems.append(f"{label}: states the answer {letter}, but it is {expected.answer}")
    if after.count(IMAGE_SLOT) != before.count(IMAGE_SLOT):
        problems.append(f"{label}: changed the number of {IMAGE_SLOT} slots")
    return problems


def check_conclusion(before: str, after: str, expected: Expected) -> list[str]:
    problems = []
    if answer_letters(before) and expected.answer not in answer_letters(after):
        problems.append(f"conclusion: does not state the answer {expected.answer}")
    wanted = strip_article(expected.answer_text)
    if wanted and mentions(before, wanted) and not mentions(after, wanted):
        problems.append(f"conclusion: lost the correct option '{expected.answer_text}'")
    return problems


def check(
    original: Steps,
    rewritten: Steps,
    *,
    question: str,
    options: dict[str, str],
    answer: str,
    entities: Iterable[str] = (),
) -> list[str]:
    """The problems of ``rewritten`` against the templated ``original``; empty when it is faithful."""
    if len(rewritten.caption) != len(original.caption):
        return [f"caption: {len(rewritten.caption)} captions for {len(original.caption)} images"]
    template_text = " ".join([question, *options.values(), *all_text(original)])
    expected = Expected(
        answer=answer,
        answer_text=options.get(answer, ""),
        n_images=len(original.caption),
        numbers=numbers(template_text) | {str(k) for k in range(1, len(original.caption) + 1)},
        boxes=boxes(template_text),
        entities=tuple(entities),
    )
    problems = []
    for label, before, after in step_pairs(original, rewritten):
        problems.extend(check_step(label, before, after, expected))
    problems.extend(check_conclusion(original.conclusion, rewritten.conclusion, expected))
    return problems


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
            flag="--rewriter openai",
        )
        self.endpoint = self.llm.endpoint
        self.stats: Counter = Counter()  # rewritten, fallback

    @property
    def params(self) -> dict[str, Any]:
        """The request parameters that decide a response (part of the cache key)."""
        return {"temperature": self.settings["temperature"], "max_tokens": self.settings["max_tokens"]}

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
            key = cache_key(self.model, messages, self.params, seed)
            record.setdefault("key", key[:16])
            try:
                content = self.complete(messages, key, seed)
            except (BudgetExhausted, CallFailed) as why:
                return self.fallback(steps, record, str(why))
            try:
                candidate = parse_reply(content, len(steps.caption))
                problems = check(steps, candidate, question=question, options=options, answer=answer, entities=entities)
            except ReplyError as why:
                problems = [str(why)]
            if not problems:
                self.stats["rewritten"] += 1
                return candidate, {**record, "outcome": "rewritten", "attempts": attempt}
            messages = retry_messages(messages, content, problems)
        return self.fallback(steps, record, "unfaithful: " + "; ".join(problems[:3]))

    def fallback(self, steps: Steps, record: dict[str, Any], reason: str) -> tuple[Steps, dict[str, Any]]:
        self.stats["fallback"] += 1
        return steps, {**record, "outcome": "fallback", "reason": reason}

    def complete(self, messages: list[dict[str, str]], key: str, seed: int) -> str:
        """The reply to ``messages``: from the cache, else from the endpoint (retried by the client), then cached."""
        texts = self.llm.complete(messages, key, seed=seed % 2**31, **self.request_params())
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
