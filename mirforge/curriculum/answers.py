"""Deterministic extraction of the chosen option letter from a model's free-form answer.

Order: think blocks are dropped; a ``<conclusion>`` tag wins if it names a valid letter; then explicit
"answer/option is X" patterns, restricted to the valid letters and case-insensitive (``Your option: b`` parses;
MIR's own regex misses it); then a leading "B." / "(B)" line; then an exact match of an option's text. Anything else
is UNPARSED, an outcome of its own; never a random letter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNPARSED = "UNPARSED"

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_OPEN_THINK = re.compile(r"<think>.*", re.S | re.I)
_CONCLUSION = re.compile(r"<conclusion>(.*?)(?:</conclusion>|$)", re.S | re.I)
_MARKUP = re.compile(r"[*_`#]+")
# A letter counts only when what follows cannot continue a word: "A car" is an article, "A." / "A)" / "A," is not.
_AFTER = r"(?=\s*(?:$|[.,;:!?)\]}\"'\n]|\s+(?:because|since|as|which|with|for|is|was|-|—)\b))"
_LETTER = r"[\(\[{]?\s*([A-Za-z])\s*[\)\]}]?"
_NOT_ALT = r"(?!\s*(?:or|and|/)\s*[\(\[]?[A-Za-z][\)\].,\s]*(?:$|\b))"
_STRONG = re.compile(
    r"\b(?:your|my|final|correct|right|best)\s+(?:option|answer|choice)\s*(?:is|would\s+be|should\s+be|:|=)?\s*:?\s*"
    + _LETTER
    + _NOT_ALT
    + _AFTER,
    re.I,
)
_PLAIN = re.compile(
    r"\b(?:answer|option|choice)\s*(?:is|would\s+be|should\s+be|:|=)\s*:?\s*(?:option\s+)?"
    + _LETTER
    + _NOT_ALT
    + _AFTER,
    re.I,
)
_VERB = re.compile(
    r"\b(?:i\s+(?:would\s+)?(?:choose|select|pick|go\s+with)|i'd\s+(?:choose|pick|go\s+with))\s+(?:option\s+)?"
    + _LETTER
    + _NOT_ALT
    + _AFTER,
    re.I,
)
_LEADING = re.compile(r"^\s*(?:\(([A-Za-z])\)|\[([A-Za-z])\]|([A-Za-z])(?:[.:)]|\s*$))")
_OPTION_LINE = re.compile(r"(?m)^\s*\(?([A-H])[.:)]\s+\S")
_AFTER_MARK = re.compile(r"\b(?:answer|option|choice)\s*(?:is|:)\s*(.+?)(?:\n|$)", re.I)


@dataclass(frozen=True)
class Parsed:
    """The letter chosen (None when unparsed) and how it was found."""

    letter: str | None
    how: str  # conclusion | pattern | leading | text | unparsed

    @property
    def outcome(self) -> str:
        return self.letter or UNPARSED


def strip_think(text: str) -> str:
    """Drop closed ``<think>...</think>`` blocks, then everything after an unclosed ``<think>`` (truncated)."""
    return _OPEN_THINK.sub("", _THINK.sub("", text))


def _norm(text: str) -> str:
    text = _MARKUP.sub("", text).lower()
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(" .,;:!?\"'()[]")


def _valid(letter: str, options: dict[str, str]) -> str | None:
    up = letter.upper()
    return up if up in options else None


def _last(pattern: re.Pattern[str], text: str, options: dict[str, str]) -> str | None:
    found = [_valid(m.group(1), options) for m in pattern.finditer(text)]
    found = [f for f in found if f]
    return found[-1] if found else None


def _by_patterns(text: str, options: dict[str, str]) -> str | None:
    for pattern in (_STRONG, _PLAIN, _VERB):
        letter = _last(pattern, text, options)
        if letter:
            return letter
    return None


def _leading(text: str, options: dict[str, str]) -> str | None:
    """``B.`` / ``(B)`` / ``B`` at the start, unless the text restates several option lines."""
    m = _LEADING.match(text)
    if not m:
        return None
    raw = next(g for g in m.groups() if g)
    if m.group(3) and raw.islower() and text.strip() != raw:
        return None  # "a. ..." is too often prose
    if len({letter for letter in _OPTION_LINE.findall(text)}) > 1:
        return None  # a restated option list, not a choice
    return _valid(raw, options)


def _by_text(candidates: list[str], options: dict[str, str]) -> str | None:
    normalised = {_norm(v): k for k, v in options.items()}
    for candidate in candidates:
        c = _norm(candidate)
        c = re.sub(r"^(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|option|choice)\s*(?:is|:)\s*", "", c).strip()
        c = c.strip(" .,;:!?\"'()[]")
        if c in normalised:
            return normalised[c]
        for prefix in ("the answer is ", "answer: "):
            if c.startswith(prefix) and c[len(prefix) :] in normalised:
                return normalised[c[len(prefix) :]]
    return None


def parse_answer(text: str | None, options: dict[str, str]) -> Parsed:
    """The letter a response chose among ``options`` (keys are letters), or UNPARSED."""
    if not text:
        return Parsed(None, "unparsed")
    body = _MARKUP.sub("", strip_think(text))
    conclusions = _CONCLUSION.findall(body)
    for inner in reversed(conclusions):
        inner = inner.strip()
        letter = (
            _leading(inner, options)
            if len(inner) <= 4
            else (_by_patterns(inner, options) or _leading(inner, options) or _by_text([inner], options))
        )
        if letter:
            return Parsed(letter, "conclusion")
    letter = _by_patterns(body, options)
    if letter:
        return Parsed(letter, "pattern")
    letter = _leading(body, options)
    if letter:
        return Parsed(letter, "leading")
    lines = [line for line in body.splitlines() if line.strip()]
    candidates = [body, *(lines[-1:] if lines else []), *(m.group(1) for m in _AFTER_MARK.finditer(body))]
    letter = _by_text(candidates, options)
    if letter:
        return Parsed(letter, "text")
    return Parsed(None, "unparsed")


def extract_letter(text: str | None, options: dict[str, str]) -> str | None:
    return parse_answer(text, options).letter
