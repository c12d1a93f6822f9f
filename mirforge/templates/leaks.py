"""Whether the reasoning steps give the answer away before the conclusion reaches it.

MIR trains on the steps in order, so a step that names the answer before the reasoning has earned it teaches a
model to guess first and justify afterwards. Two leaks are looked for:

- the answer letter as an option reference ("option B", "(B)", "candidate B", "the answer is B") in any step
  before the conclusion;
- the answer's option text in the summary, a caption or text2img, where it singles the answer out: the text is
  there while some other option's text is not (a caption that lists every object, the answer among them, names
  no answer). Only option texts specific enough to tell apart are tested: an object's name, or at least four
  characters with a word in them that are not a bare measurement ("16 cm", "about 31 TWh"), which may stand in a
  step as a reading of something else. A text with no other testable option to compare it with is not tested.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from mirforge.templates.faithfulness import image_refs, step_texts

BEFORE_CONCLUSION = ("summary", "caption", "text2img", "img2img")
NO_TEXT_LEAK = ("summary", "caption", "text2img")  # the answer's content may appear from img2img on
NAMING_STEPS = ("summary", "text2img")  # a caption names the objects and images it sees, the answer among them
MEASUREMENT_RE = re.compile(r"(?:about|roughly|around|approximately|~)?\s*[-+−]?\d+(?:[.,]\d+)?\s*[^\s\d]{0,6}", re.I)


def letter_patterns(letter: str) -> list[re.Pattern[str]]:
    mark = re.escape(letter)
    return [
        re.compile(rf"(?i:\b(?:options?|candidates?|choices?|letters?))\s+\(?{mark}\)?(?![\w'])"),
        re.compile(rf"\({mark}\)"),
        re.compile(
            rf"(?i:\banswers?\s+(?:is|would\s+be|must\s+be|should\s+be|:)?\s*(?:option\s+)?)\(?{mark}\)?(?![\w'])"
        ),
    ]


def specific(option: str) -> bool:
    """Whether an option's text is specific enough that its presence in a step means something."""
    text = option.strip().rstrip(".")
    return len(text) >= 4 and re.search(r"[A-Za-z]{2}", text) is not None and not MEASUREMENT_RE.fullmatch(text)


def is_claim(option: str, regions: Iterable[Mapping[str, Any]]) -> bool:
    """Whether an option says something (a relation, a cell, a count) rather than names an object or an image, which
    a caption names wherever it is seen."""
    if image_refs(option):
        return False
    words = option.strip().rstrip(".").split()
    name = " ".join(words[1:] if words[0].lower() in ("the", "a", "an") else words).lower()
    return name not in {str(r.get("name", "")).lower() for r in regions}


def phrase_re(option: str, regions: Iterable[Mapping[str, Any]] = ()) -> re.Pattern[str]:
    """Where a step states ``option``: its words in order; an object's name only after a determiner ("the can",
    not "can be compared")."""
    words = [re.escape(w) for w in option.strip().rstrip(".").split()]
    if re.match(r"(?i)(the|a|an)$", option.split()[0]) and len(words) > 1:
        words = words[1:]  # "The orange cube" is stated by "the orange cube" and "an orange cube" alike
    start = r"(?<![\w-])" if is_claim(option, regions) else r"\b(?:the|a|an|this|that|each)\s+"
    return re.compile(start + r"\s+".join(words) + r"(?![\w-]|\.\d)", re.IGNORECASE)


def answer_leaks(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(step, message)`` for every place a step before the conclusion gives the answer away; ``record`` has the
    five steps, ``options`` and ``answer`` (an instance record or its JSON)."""
    answer, options = record["answer"], record["options"]
    texts = step_texts(record)
    hits: list[tuple[str, str]] = []
    for label, text in texts.items():
        if label.split()[0] not in BEFORE_CONCLUSION:
            continue
        for pattern in letter_patterns(answer):
            if m := pattern.search(text):
                hits.append((label, f"names the answer letter: {snippet(text, m)}"))
                break
    regions = record.get("regions") or ()

    def telling(option: str) -> bool:  # an object's name tells, however short ("mug")
        return specific(option) or not is_claim(option, regions)

    if not telling(options[answer]):
        return hits
    own = phrase_re(options[answer], regions)
    others = [phrase_re(text, regions) for letter, text in options.items() if letter != answer and telling(text)]
    steps = NO_TEXT_LEAK if is_claim(options[answer], regions) else NAMING_STEPS
    for label, text in texts.items():
        if label.split()[0] not in steps or not (m := own.search(text)):
            continue
        if others and not all(other.search(text) for other in others):
            hits.append((label, f"states the answer's option text: {snippet(text, m)}"))
    return hits


def snippet(text: str, m: re.Match[str], width: int = 40) -> str:
    left, right = max(0, m.start() - width), min(len(text), m.end() + width)
    return ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")
