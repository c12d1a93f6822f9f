"""A language check over the reasoning steps: the slips a grammar checker does not see in templated text.

Templates glue facts into sentences, so their typical slips are mechanical: a word repeated where two pieces
meet ("The the"), a count that does not agree with its noun ("1 blocks", "2 block"), an article that does not fit
the next sound ("a image", "an 3"), punctuation left dangling by a loop (a trailing ";", " .", ",,"), brackets or
quotes left open, an "Image k" that is not one of the instance's images, a sentence that starts in lower case,
and a verb that does not agree with its subject ("I am given ... and asks", "The image ... show"). Each rule is a
regular expression over one step; :func:`check_steps` returns ``(step, message)`` for every hit.

Maintained checkers were weighed and left out: LanguageTool (``language_tool_python``) needs Java and a download
at run time; proselint only reports typography (the letter x for ×, straight quotes) on these steps and takes
seconds per thousand steps; pyspellchecker finds no misspelling, only British spellings (colour, centre).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from mirforge.templates.faithfulness import image_refs, step_texts

Rule = Callable[[str], list[str]]

NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
# nouns the steps count; a count other than 1 takes the plural, 1 the singular
COUNT_NOUNS = (
    "block object image photo picture frame view chart period candidate option tile piece clip pixel unit value "
    "balance scale step item marble ball cube sphere cone cylinder capsule circle square triangle diamond hexagon "
    "camera position condition relation comparison second time bar wedge point segment cell panel label colour "
    "letter answer question sentence row column level layer storey"
).split()
IRREGULAR_PLURALS = {"times": "time"}
FUNCTION_WORDS = set(
    "of in on at is are was were and or with from to that which each the a an for by per as than but so it they "
    "there here shows show has have".split()
)
PLURAL_OF = {noun: noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s") for noun in COUNT_NOUNS}
SINGULAR_OF = {plural: noun for noun, plural in PLURAL_OF.items()}

_NUMBER = r"(?<![\w.,-])(\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")"
COUNT_RE = re.compile(_NUMBER + r"\s+([a-z]+)\b", re.IGNORECASE)
DOUBLED_RE = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)
# a lower-case article anywhere; a capitalised one only where a sentence starts (elsewhere "A" is an option letter)
ARTICLE_RE = re.compile(r"(?:\b(a|an)|(?:^|(?<=[.!?:;]\s)|(?<=[\"“(]))(A|An))\s+([\w][\w'-]*)")
SPACE_BEFORE_RE = re.compile(r"\s+([,.;:!?])(?=\s|$)|\(\s+|\s+\)")
DOUBLED_PUNCT_RE = re.compile(
    r"[,;:]\s*[,.;:!?]|(?<!\.)\.\s*[,;:]|(?<![.\d])\.\s*\.(?!\.)|[!?]\s*[,.;:]|\(\s*\)|\[\s*\]"
)
SENTENCE_RE = re.compile(r"(?:^|(?<=[.!?])\s+)([\"“(\[]*)([^\s\"“(\[])")
FIRST_PERSON_RE = re.compile(
    r"\bI\s+(?:am|was|will|have|had|need|must|can)\b[^.;:!?]*?\band\s+"
    r"(asks|says|shows|wants|needs|gives|tells|requires|names|finds|reads)\b"
)
SINGULAR_NOUNS = "image|photo|picture|frame|view|chart|panel|tile|object|scale|balance|tower|glass|label|question"
PLURAL_VERBS = "show|display|depict|contain|give|say|ask|hold|match|mean|look|appear|lie|stand"
SINGULAR_SUBJECT_RE = re.compile(
    rf"\b(?:the|this|that|each|every)\s+({SINGULAR_NOUNS})\s+"
    rf"(?:(?:without|with|of|in|from|on|at)\b[^.;,]{{0,60}}?\s+)?({PLURAL_VERBS})\b",
    re.IGNORECASE,
)
PLURAL_SUBJECT_RE = re.compile(
    rf"\b(?:these|those|both|all)\s+((?:{SINGULAR_NOUNS})s)\s+({'|'.join(v + 's' for v in PLURAL_VERBS.split('|'))})\b",
    re.IGNORECASE,
)
# words whose first letter misleads: "a unit", "a one", "an hour"
CONSONANT_SOUND = re.compile(r"^(?:uni|use|usu|uti|ura|ure|euro?|eu|one\b|once|ubiq|uvu)", re.IGNORECASE)
VOWEL_SOUND = re.compile(r"^(?:hour|honest|honou?r|heir|herb)", re.IGNORECASE)
VOWEL_LETTERS = set("AEFHILMNORSX")  # letters whose names start with a vowel sound: "an F", "an X"
BRACKETS = {")": "(", "]": "[", "}": "{", "”": "“"}


def snippet(text: str, start: int, end: int, width: int = 25) -> str:
    left = max(0, start - width)
    right = min(len(text), end + width)
    return ("…" if left else "") + text[left:right] + ("…" if right < len(text) else "")


def doubled_words(text: str) -> list[str]:
    return [f"doubled word '{m.group(0)}'" for m in DOUBLED_RE.finditer(text)]


def is_one(number: str) -> bool:
    return number.lower() in ("1", "one")


def number_agreement(text: str) -> list[str]:
    hits = []
    for m in COUNT_RE.finditer(text):
        number, word = m.group(1), m.group(2).lower()
        before = text[: m.start()].split()[-1:] or [""]
        after = text[m.end() :].split(maxsplit=1)[:1] or [""]
        if before[0][:1].isupper() or before[0] == "x" or re.fullmatch(r"1\d{3}|2\d{3}", number):
            continue  # a label ("Image 2 level", "Week 3 value"), a size ("2 x 2 picture") or a year ("the 2020 value")
        if word in SINGULAR_OF or word in IRREGULAR_PLURALS:
            if is_one(number):
                hits.append(f"'{m.group(0)}': one takes the singular")
        elif word in PLURAL_OF and not is_one(number) and ends_noun_phrase(after[0]):
            hits.append(f"'{m.group(0)}': a count other than one takes the plural")
    return hits


def ends_noun_phrase(following: str) -> bool:
    """Whether the word after a counted noun ends its phrase ("2 block." or "2 block on"), unlike a noun used as a
    modifier ("4 candidate top views")."""
    word = following.strip("\"'“”").lower()
    return not word or not word[0].isalpha() or word.rstrip(",.;:!?)") in FUNCTION_WORDS


def wants_an(word: str) -> bool:
    """Whether ``word`` starts with a vowel sound (so takes "an")."""
    if word[0].isdigit():
        digits = re.match(r"\d+", word).group(0)  # type: ignore[union-attr]
        return digits[0] == "8" or (len(digits) % 3 == 2 and digits[:2] in ("11", "18"))
    if len(word) == 1 or (word.isupper() and len(word) <= 3 and word.isalpha()):
        return word[0].upper() in VOWEL_LETTERS  # read letter by letter: "an F", "a BUT" is a word, not letters
    if VOWEL_SOUND.match(word):
        return True
    if CONSONANT_SOUND.match(word):
        return False
    return word[0].lower() in "aeiou"


def articles(text: str) -> list[str]:
    hits = []
    for m in ARTICLE_RE.finditer(text):
        article, word = (m.group(1) or m.group(2)), m.group(3)
        if word.upper() == word and len(word) > 3:
            continue  # a capitalised word ("a YES panel") is read as a word; its first letter decides below
        wanted = "an" if wants_an(word) else "a"
        if article.lower() != wanted:
            hits.append(f"'{article} {word}': use '{wanted}'")
    return hits


def punctuation(text: str) -> list[str]:
    hits = []
    stripped = text.rstrip()
    if stripped and stripped[-1] in ",;:":
        hits.append(f"ends with a dangling '{stripped[-1]}'")
    elif stripped and not re.search(r"[.!?][\"”)\]]*$", stripped):
        hits.append("does not end with a full stop")
    for m in SPACE_BEFORE_RE.finditer(text):
        hits.append(f"stray space before or inside punctuation: '{snippet(text, m.start(), m.end(), 12)}'")
    for m in DOUBLED_PUNCT_RE.finditer(text):
        hits.append(f"doubled or empty punctuation: '{snippet(text, m.start(), m.end(), 12)}'")
    return hits


def balance(text: str) -> list[str]:
    stack: list[str] = []
    for char in text:
        if char in "([{“":
            stack.append(char)
        elif char in BRACKETS:
            if not stack or stack[-1] != BRACKETS[char]:
                return [f"unbalanced '{char}'"]
            stack.pop()
    hits = [f"unclosed '{char}'" for char in stack]
    if text.count('"') % 2:
        hits.append("an odd number of double quotes")
    return hits


def capitals(text: str) -> list[str]:
    hits = []
    for m in SENTENCE_RE.finditer(text):
        first = m.group(2)
        if first.isalpha() and first.islower():
            hits.append(f"sentence starts in lower case: '{snippet(text, m.start(2), m.start(2), 30).strip()}'")
    return hits


def agreement(text: str) -> list[str]:
    hits = [f"'I ... and {m.group(1)}': the verb does not agree with 'I'" for m in FIRST_PERSON_RE.finditer(text)]
    for m in SINGULAR_SUBJECT_RE.finditer(text):
        hits.append(
            f"singular '{m.group(1)}' with plural verb '{m.group(2)}': '{snippet(text, m.start(), m.end(), 0)}'"
        )
    for m in PLURAL_SUBJECT_RE.finditer(text):
        hits.append(f"plural '{m.group(1)}' with singular verb '{m.group(2)}'")
    return hits


RULES: tuple[Rule, ...] = (doubled_words, number_agreement, articles, punctuation, balance, capitals, agreement)


def check_text(text: str, n_images: int) -> list[str]:
    """The slips of one step's text (empty when it reads cleanly)."""
    if not text.strip(" .,;:!?"):
        return ["is empty"]
    hits = [hit for rule in RULES for hit in rule(text)]
    hits.extend(
        f"refers to Image {k}, but there are {n_images} images"
        for k in sorted(image_refs(text))
        if not 1 <= k <= n_images
    )
    return hits


def check_steps(steps: Any | Mapping[str, Any], n_images: int | None = None) -> list[tuple[str, str]]:
    """``(step, message)`` for every slip in the five steps (each caption is its own step, "caption 2")."""
    texts = step_texts(steps)
    if n_images is None:
        n_images = sum(1 for label in texts if label.startswith("caption"))
    return [(label, message) for label, text in texts.items() for message in check_text(text, n_images)]
