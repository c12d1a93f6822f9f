"""Whether a rewrite of the reasoning steps still says what the template said.

Two layers, applied per step (each caption on its own):

Facts as tokens (what must survive word for word):

- numbers: every number written in digits in the template step is in the rewritten step (in digits, or as a
  number word up to twelve), with its sign ("-26" is not "+26"); the rewrite writes no number in digits that
  appears nowhere in the template, the question or the options;
- boxes: every box literal ``[x0, y0, x1, y1]`` of the template step is in the rewritten step, and every box of
  the rewrite is a box of the template;
- images: every image the template step refers to ("Image 3", "Images 3 to 6") is referred to in the rewrite,
  and the rewrite refers to no image beyond the last one;
- names: every entity name found in the template step is in the rewritten step (case-insensitive, plural
  allowed): the region names the caller passes, short quoted text, and capitalised words mid-sentence;
- the answer: no step states another letter as the answer; when the templated conclusion states the answer,
  the rewritten one does too, and keeps the correct option's text when the template quotes it;
- form: non-empty steps, one caption per image, no ``<image>`` slot added.

Claims as data (what must survive in meaning): each sentence is read into tuples by regular expressions and a
small lexicon, never by a model, and the tuples of the two texts are compared:

- relations ``(subject, relation, object)``: the relation word is mapped to an axis and a direction (left/right,
  near/far, front/back, low/high, small/large, light/heavy, before/after, slow/fast, decrease/increase, fail/fit),
  so synonyms agree ("closer" is "nearer") and "Y is farther than X" is the same claim as "X is nearer than Y";
  a "not", "no" or "never" before the word turns the direction round; "looks bigger" is kept apart from "is
  bigger". The subject is the nearest object named before the word in its clause (else the clause's carried
  subject, "it" resolved to it), the object the one named right after "than", "of", "to" or "after";
- orders: "from left to right: A, B, C", "nearest first", "in chronological order: Image 4, Image 1", chains
  "A > B > C" and "Image 4 -> Image 1" become one relation per neighbouring pair;
- options: every option letter a step mentions, with the verdict its clause gives it ("agrees", "fails",
  "does not fit", "the answer is") and the image or object named beside it ("Candidate A (Image 3)", "the gray
  cube (option A)"); a rewrite may not mention a letter the template step does not, pair it with something
  else, or give it another verdict;
- values: each number is tied to the objects named in its clause and to the image it is said of (the image last
  named before it in its clause, else the first named after it), so two values cannot trade places, nor two
  images their values;
- negations of a claim that has no relation word ("the cyan cone is hidden" / "is not hidden").

A template claim the rewrite does not make is "dropped", a rewrite claim the template does not make "added";
either rejects the rewrite. A claim whose subject or object the reader could not find matches a claim that names
it, so a rewrite may say more plainly who is meant; a general statement that names nothing ("objects nearer the
camera look bigger") matches only a general statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mirforge.instance import IMAGE_SLOT

TEXT_STEPS = ("summary", "text2img", "img2img", "conclusion")

# ---------------------------------------------------------------------------------------------- token facts

# a sign counts only when it is attached and does not follow a digit: "-26" is signed, "26 - 52" and "1-3" are not
NUMBER_RE = re.compile(r"(?:(?<![^\s(\[=:])[-+−](?=\d))?(?<![\w.])\d+(?:\.\d+)?")
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
    sign = "-" if text[0] in "-−" else "+" if text[0] == "+" else ""
    whole, _, frac = text.lstrip("-+−").partition(".")
    frac = frac.rstrip("0")
    value = str(int(whole)) + (f".{frac}" if frac else "")
    return value if value == "0" else sign + value


def numbers(text: str) -> set[str]:
    """Numbers written in digits, canonical ("007" -> "7", "2.50" -> "2.5", "-26" keeps its sign)."""
    return {canonical_number(m) for m in NUMBER_RE.findall(text)}


def spoken_numbers(text: str) -> set[str]:
    return {NUMBER_WORDS[m.lower()] for m in NUMBER_WORD_RE.findall(text)}


def boxes(text: str) -> set[tuple[str, ...]]:
    return {tuple(canonical_number(v.strip()) for v in m.split(",")) for m in BOX_RE.findall(text)}


def image_refs(text: str) -> set[int]:
    """Image numbers referred to: "Image 2", "Images 3 to 6", "Images 1, 2 and 4"."""
    refs: set[int] = set()
    for single, plural in IMAGE_REF_RE.findall(text):
        refs.update(ref_numbers(single or plural))
    return refs


def ref_numbers(tail: str) -> set[int]:
    values = [int(v) for v in re.findall(r"\d+", tail)]
    joins = re.split(r"\d+", tail)[1:-1]
    refs = set(values)
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
    return found | proper_names(text)


def proper_names(text: str, *, acronyms: bool = True) -> set[str]:
    """Capitalised words mid-sentence ("Coimbra", "Q4"); ``acronyms=False`` leaves out all-capital words ("EUR")."""
    found = set()
    for match in PROPER_RE.findall(text):
        words = match.split()
        if not acronyms and re.fullmatch(r"[A-Z]{2,}", match):
            continue
        if not any(w.removesuffix("'s").removesuffix("s") in NOT_NAMES for w in words):
            found.add(normalize(match).removesuffix("'s"))
    return found


def answer_letters(text: str) -> list[str]:
    """Letters the text states as the answer."""
    return [m.group(1) for regex in ANSWER_RES for m in regex.finditer(text)]


def step_texts(steps: Any) -> dict[str, str]:
    """The steps by label ("summary", "caption 1", ..., "conclusion"), from :class:`~mirforge.task.Steps` or a
    mapping with the same keys."""

    def get(name: str) -> Any:
        return steps[name] if isinstance(steps, Mapping) else getattr(steps, name)

    texts = {"summary": get("summary")}
    texts.update({f"caption {i + 1}": c for i, c in enumerate(get("caption"))})
    texts.update({name: get(name) for name in TEXT_STEPS[1:]})
    return {label: text if isinstance(text, str) else "" for label, text in texts.items()}


# ----------------------------------------------------------------------------------------------------- lexicon

# axis -> (word for -1, word for 0, word for +1): how a claim is written in a message
AXES = {
    "lr": ("left of", "level with", "right of"),
    "depth": ("nearer than", "as near as", "farther than"),
    "fb": ("in front of", "beside", "behind"),
    "height": ("lower/shorter than", "as high as", "higher/taller than"),
    "size": ("smaller than", "as big as", "larger than"),
    "weight": ("lighter than", "as heavy as", "heavier than"),
    "time": ("before", "at the same time as", "after"),
    "speed": ("slower than", "as fast as", "faster than"),
    "trend": ("decreasing", "unchanged", "increasing"),
    "verdict": ("fails", "-", "fits"),
    "gt": ("<", "=", ">"),
}
DIRECTED = {"ratio", "rank", "on", "between", "not"}  # no antonym: the tuple is compared as it stands

_NOT_CORRECT = r"(?!\s+(?:after|before|answer|option|one|choice|arrangement|tile|order|match|candidate|way|cell)\b)"
LEXICON: tuple[tuple[str, str, int], ...] = (
    (r"\bin front of\b", "fb", -1),
    (r"\bfront\b(?!\s+(?:and|or)\b)", "fb", -1),
    (r"\b(?:back|behind|rear)\b(?!\s+(?:into|to|together)\b)", "fb", 1),
    (r"\b(?:left|leftmost|leftwards?)\b", "lr", -1),
    (r"(?<!all )\b(?:right|rightmost|rightwards?)\b" + _NOT_CORRECT, "lr", 1),
    (
        r"\b(?:nearer|nearest|near|closer|closest|close)\b(?!\s+to\s+[\d\ue002])(?!\s+(?:option|match|value))",
        "depth",
        -1,
    ),
    (
        r"(?<!how )(?<!so )(?<!by )\b(?:farther|farthest|further(?=\s+(?:from|away))|furthest|far)\b"
        r"(?!\s+(?:more|less|as))",
        "depth",
        1,
    ),
    (r"\b(?:higher|highest|above|taller|tallest|tall|high|top|upper|upwards?)\b", "height", 1),
    (r"\b(?:go(?:es)?|went|moves?|moved|tilts?|tilted|points?)\s+up\b", "height", 1),
    (
        r"\b(?:lower|lowest|below|beneath|under|shorter|shortest|bottom|down|downwards?|sinks?|sank|sunk|sinking)\b",
        "height",
        -1,
    ),
    (r"\b(?:is|stays|remains|hangs)\s+(?:level|horizontal)\b|\bsame height\b", "height", 0),
    (r"\b(?:larger|largest|bigger|biggest|large|big)\b", "size", 1),
    (r"\b(?:smaller|smallest|small|tiny)\b", "size", -1),
    (r"\b(?:heavier|heaviest|outweighs?|outweighed|outweighing)\b", "weight", 1),
    (r"\b(?:lighter|lightest)\b(?!\s+(?:blue|green|red|grey|gray|shade))", "weight", -1),
    (r"\bweighs?\s+the\s+same\b|\bbalance each other\b|\bequal(?:ly)? heavy\b", "weight", 0),
    (r"\b(?:before|earlier|earliest|precedes?|preceded|preceding)\b", "time", -1),
    (r"\b(?:after|later|latest|follows?|followed)\b", "time", 1),
    (r"\b(?:faster|fastest|quicker|quickest|fast|quickly)\b", "speed", 1),
    (r"\b(?:slower|slowest|slow|slowly)\b", "speed", -1),
    (r"\b(?:increase[sd]?|increasing|rises?|rising|rose|grows?|growing|grew|climbs?)\b", "trend", 1),
    (
        r"\b(?:decrease[sd]?|decreasing|falls?|falling|fell|shrinks?|shrinking|shrank|drops?|dropped|declines?)\b",
        "trend",
        -1,
    ),
    (
        r"\b(?:agrees?|agreeing|match(?:es|ed)?|fits?|consistent|correct|best|satisf(?:y|ies)|works|answer|"
        r"the contradiction)\b",
        "verdict",
        1,
    ),
    (
        r"\b(?:fails?|failed|inconsistent|mismatch(?:es)?|contradicts?|wrong|incorrect|ruled? out|breaks?|"
        r"differs?|conflicts?)\b",
        "verdict",
        -1,
    ),
)
# one pass over a clause: the ratio ("times as tall as" is a ratio of heights, not a claim that something is tall),
# the rank ("is second"), then the lexicon; the leftmost word wins, and among words starting together the first
RELATION_PATTERNS: tuple[tuple[str, str, int], ...] = (
    (r"\btimes(?:\s+as\s+\w+\s+as)?\b", "ratio", 1),
    (r"\b(?:is|ranks?|comes?|ranked|placed)\s+(?:the\s+)?(?P<rank>first|second|third|fourth|fifth|last)\b", "rank", 0),
    *LEXICON,
)
RELATION_RE = re.compile(
    "|".join(f"(?P<r{i}>{pattern})" for i, (pattern, _, _) in enumerate(RELATION_PATTERNS)), re.IGNORECASE
)
RANKS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": 99}
# the words that take their object without "than"/"of": "after Image 4", "outweighs the cube"
PREPOSITIONAL = re.compile(
    r"^(?:in front of|behind|above|below|beneath|under|before|after|precede[sd]?|preceding|follows?|followed|"
    r"outweigh\w*|times.*)$",
    re.IGNORECASE,
)
NEGATION_RE = re.compile(r"\b(?:not|no|never|neither|nor|none|nothing|cannot)\b|n't\b", re.IGNORECASE)
APPARENT_RE = re.compile(r"\b(?:looks?|looking|appears?|appearing|seems?|apparent(?:ly)?)\b", re.IGNORECASE)
# an antonym pair joined by "or", "/", "-", "and": names the axis ("left or right"), claims nothing
PAIR_WORDS = (
    ("left", "right"),
    ("near", "far"),
    ("nearer", "farther"),
    ("front", "back"),
    ("up", "down"),
    ("top", "bottom"),
)
PAIR_RE = re.compile(
    "|".join(rf"\b{a}\s*(?:/|-|\bor\b|\band\b|\bversus\b|\bvs\.?)\s*{b}\b" for a, b in PAIR_WORDS)
    + "|"
    + "|".join(rf"\b{b}\s*(?:/|-|\bor\b|\band\b)\s*{a}\b" for a, b in PAIR_WORDS),
    re.IGNORECASE,
)
# the ends of an ordered list: "from nearest to farthest", "from the front of the table (...) to the back"
ORDER_WORDS = {
    "left": ("lr", -1),
    "right": ("lr", 1),
    "nearest": ("depth", -1),
    "closest": ("depth", -1),
    "near": ("depth", -1),
    "farthest": ("depth", 1),
    "far": ("depth", 1),
    "front": ("fb", -1),
    "back": ("fb", 1),
    "bottom": ("height", -1),
    "lowest": ("height", -1),
    "top": ("height", 1),
    "highest": ("height", 1),
    "shortest": ("height", -1),
    "tallest": ("height", 1),
    "smallest": ("size", -1),
    "largest": ("size", 1),
    "biggest": ("size", 1),
    "lightest": ("weight", -1),
    "heaviest": ("weight", 1),
    "earliest": ("time", -1),
    "first": ("time", -1),
    "latest": ("time", 1),
    "last": ("time", 1),
    "slowest": ("speed", -1),
    "fastest": ("speed", 1),
}
_OW = "|".join(ORDER_WORDS)
ORDER_RES = (
    re.compile(
        rf"\b(?:from\s+)?(?:the\s+)?({_OW})\b(?:\s+(?:of|in)\s+the\s+\w+|\s+(?!to\b)[a-z]+)?(?:\s*\([^)]*\))?"
        rf"\s+to\s+(?:the\s+)?({_OW})\b(?:\s*\([^)]*\))?",
        re.IGNORECASE,
    ),
    re.compile(rf"\b({_OW})\s+first\b", re.IGNORECASE),
    re.compile(r"\bfrom\s+the\s+camera\s+outwards?\b|\b(chronological|time)\s+order\b", re.IGNORECASE),
)
OTHERS_RE = re.compile(
    r"\b(?:every|each|all|any|no)\s+(?:of\s+the\s+)?other\s+(?:option|object|candidate|image|cell|tile|frame|one)s?\b"
    r"|\bthe\s+other\s+(?:options|objects|candidates|images|cells|tiles|frames)\b|\bthe\s+others\b",
    re.IGNORECASE,
)
VIEW_LIST_RE = re.compile(r"\b(?:front|side|top)\s+(?:and|or)\s+(?:the\s+)?(?=\ue000\d+\ue001)", re.IGNORECASE)
VIEW_RE = re.compile(r"\b(?:front|side|top|both|neither|either)\s+views?\b", re.IGNORECASE)
PRONOUN_RE = re.compile(r"\b(?:it|its|itself|they|them|their)\b", re.IGNORECASE)
# "the slowest is the X", "the nearest object is the X", and without its verb: "..., and the farthest the X"
INVERSION_RE = re.compile(
    r"^\W*(?:(?:object|one|item|shape|thing)s?\W+)?(?:(?:is|are|was|comes?|lies|stands|goes)\W+(?:the\W+)?|the\s+)$",
    re.IGNORECASE,
)
RELATIVE_RE = re.compile(r"^\s*(?:which|that|who)\b", re.IGNORECASE)
# a colon inside a time ("12:25") joins its numbers rather than ending a clause
CLAUSE_SPLIT_RE = re.compile(
    r"[,;]|:(?!\d)|\s(?=(?:and|but|while|whereas|so|although|though|because|since|which|then|yet|or)\b)",
    re.IGNORECASE,
)
COARSE_SPLIT_RE = re.compile(r"[,;]|:(?!\d)|\s(?=(?:but|while|whereas|so|although|though)\b)", re.IGNORECASE)
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+")
BETWEEN_RE = re.compile(r"\bbetween\s+\ue000(\d+)\ue001\s+and\s+\ue000(\d+)\ue001", re.IGNORECASE)
CHAIN_RE = re.compile(r"\ue000(\d+)\ue001(?:\s*\([^)]*\))?\s*(->|→|>)\s*(?=\ue000(\d+)\ue001)")
ON_RE = re.compile(
    r"\ue000(\d+)\ue001\s+(?:is\s+|sits\s+|stands\s+|lies\s+|placed\s+)?on\s+(?:the\s+)?\ue000(\d+)\ue001",
    re.IGNORECASE,
)
MENTION_RE = re.compile(r"\ue000(\d+)\ue001")
# where a list ends: "Image 3, Image 2, Image 4, so the frame right after Image 4 is Image 1"
LIST_END_RE = re.compile(r";|\b(?:so|but|while|whereas|because|since|which|therefore|although|though)\b", re.I)
# a clause that continues the previous one's relation names its object, not a new subject: "..., than every other"
CONTINUATION_RE = re.compile(r"^\s*(?:than|of|to|as|from|including|with|except)\b", re.IGNORECASE)
BOX_TOKEN = "\ue002"
LINK_FILLERS = re.compile(
    r"\b(?:(?:to|from)\s+(?:the|its|that|this)\s+camera(?:\s+of\s+\ue000\d+\ue001)?|the|a|an|clearly|much|"
    r"slightly|also|still|even|just|is|are|it|was|one|that)\b",
    re.IGNORECASE,
)
LINKS = {"than", "of", "from", "to", "as", "than that of"}
LETTER_WORD_RE = r"(?:option|candidate|choice|letter)s?"


@dataclass(frozen=True)
class Mention:
    kind: str  # entity, image, letter, answer ("the answer is C"), view, others, pronoun
    keys: tuple[str, ...]  # an entity's name, "image 3", a letter; several for "options A and C"
    start: int
    end: int

    @property
    def key(self) -> str:
        return self.keys[0]


@dataclass(frozen=True)
class Claim:
    """One statement of a step: ``subject`` stands in ``axis`` direction ``sign`` to ``object``."""

    axis: str
    sign: int
    subject: str | None = None
    object: str | None = None
    tag: str = ""  # "quoted" (inside an option's quoted text), "apparent" ("looks bigger")
    frame: str | None = None  # the image the claim is about ("in Image 2 the cube is left of the cone")

    def describe(self) -> str:
        if self.axis in AXES:
            word = AXES[self.axis][self.sign + 1] if self.sign in (-1, 0, 1) else "not " + AXES[self.axis][1]
        else:
            word = f"{self.axis} {self.sign}" if self.axis == "rank" else self.axis
        subject = f"'{self.subject}'" if self.subject else "something"
        text = f"{subject} {'looks ' if self.tag == 'apparent' else ''}{word}"
        if self.object:
            text += f" '{self.object}'"
        if self.frame:
            text += f" in {self.frame.capitalize()}"
        return text + (" (in a quoted option)" if self.tag == "quoted" else "")


@dataclass(frozen=True)
class LetterClaim:
    letter: str
    verdict: int  # +1 fits / is the answer, -1 fails, 0 only named
    partner: str | None  # the image or object named beside it


@dataclass(frozen=True)
class Value:
    number: str
    near: frozenset[str]  # the objects (and letters) the clause that holds the number names
    image: str | None = None  # the image the number is said of


@dataclass
class Reading:
    claims: set[Claim] = field(default_factory=set)
    letters: set[LetterClaim] = field(default_factory=set)
    values: list[Value] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------- the reader


class Vocabulary:
    """The mentions one instance can make: its entity names (and the template's proper names), images and
    option letters. The same vocabulary reads the template and the rewrite, so both are cut the same way."""

    def __init__(self, entities: Iterable[str], letters: Iterable[str], template_text: str) -> None:
        found = {normalize(e) for e in entities if e.strip()}
        found |= {n for n in proper_names(template_text, acronyms=False) if len(n.split()) <= 4}  # "EUR" is a unit
        found = {n for n in found if n and not re.fullmatch(r"[a-z]", n)}
        alternatives = sorted(found, key=lambda n: (-len(n), n))
        self.entity_re = (
            re.compile(
                r"(?<![\w-])(" + "|".join(r"\s+".join(re.escape(w) for w in n.split()) for n in alternatives) + r")"
                r"(?:'s|s|es)?(?![\w-])",
                re.IGNORECASE,
            )
            if alternatives
            else None
        )
        self.letters = "".join(sorted({letter for letter in letters if re.fullmatch(r"[A-Z]", letter)}))
        cls = f"[{self.letters}]" if self.letters else "(?!)"
        self.letter_res = (
            re.compile(rf"\b{LETTER_WORD_RE}\s+({cls}(?:\s*(?:,|\band\b|\bor\b)\s*{cls})*)\b(?![\w'-])", re.IGNORECASE),
            re.compile(rf"\banswer(?:\s+(?:is|would\s+be|must\s+be|should\s+be))?\s*[:=]?\s*\(?({cls})\)?(?![\w'-])"),
            re.compile(rf"\(({cls})\)"),
            # a bare letter: B..H anywhere, A only where it cannot be the article
            re.compile(
                rf"(?<![\w(\-=.])((?!A){cls}|A(?=\s+(?:is|also|fits|matches|agrees|would|could|must|seems|looks|"
                rf"and|or|too|as|was|works|cannot|does|doesn't|isn't|fails)\b|\s*[,.;:)!?]|$))(?![\w'-])"
            ),
        )

    def find(self, text: str) -> list[Mention]:
        """Mentions in ``text``, left to right, none overlapping (letters, images, names, views, "the others")."""
        spans: list[Mention] = []
        taken = [False] * len(text)

        def add(kind: str, keys: tuple[str, ...], start: int, end: int) -> None:
            if any(taken[start:end]):
                return
            taken[start:end] = [True] * (end - start)
            spans.append(Mention(kind, keys, start, end))

        for index, regex in enumerate(self.letter_res):
            for m in regex.finditer(text):
                kind = "answer" if index == 1 else "letter"  # "the answer is C" is C's verdict
                add(kind, tuple(re.findall(rf"[{self.letters}]", m.group(1))), m.start(), m.end())
        for m in IMAGE_REF_RE.finditer(text):
            refs = sorted(ref_numbers(m.group(1) or m.group(2)))
            add("image", tuple(f"image {k}" for k in refs), m.start(), m.end())
        if self.entity_re is not None:
            for m in self.entity_re.finditer(text):
                add("entity", (normalize(m.group(1)),), m.start(), m.end())
        for m in VIEW_RE.finditer(text):
            add("view", (normalize(m.group(0)).removesuffix("s"),), m.start(), m.end())
        for m in OTHERS_RE.finditer(text):
            add("others", ("the others",), m.start(), m.end())
        for m in PRONOUN_RE.finditer(text):
            add("pronoun", (m.group(0).lower(),), m.start(), m.end())
        return sorted(spans, key=lambda s: s.start)


def placeholders(text: str, found: list[Mention]) -> str:
    """``text`` with each mention replaced by a private-use token carrying its index."""
    out, last = [], 0
    for i, mention in enumerate(found):
        out.append(text[last : mention.start])
        out.append(f"\ue000{i}\ue001")
        last = mention.end
    out.append(text[last:])
    return "".join(out)


class Reader:
    """Reads one step into claims, letter claims and values."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.quotes: list[str] = []  # the quoted texts of the step being read

    def read(self, text: str) -> Reading:
        reading = Reading()
        text = text.replace("’", "'").replace("−", "-")
        quotes: list[str] = []

        def token(m: re.Match[str]) -> str:  # a quoted option's text is one token: a letter's partner, not words
            quotes.append(normalize(m.group(1) or m.group(2)))
            return f" \ue003{len(quotes) - 1}\ue004 "

        main = QUOTED_LONG_RE.sub(token, text)
        self.quotes = quotes
        last_subject: list[str | None] = [None]
        for part, tag in [(main, ""), *((q1 or q2, "quoted") for q1, q2 in QUOTED_LONG_RE.findall(text))]:
            part = BOX_RE.sub(BOX_TOKEN, part)
            for sentence in SENTENCE_SPLIT_RE.split(part):
                if sentence.strip():
                    self.sentence(sentence, tag, reading, last_subject)
        return reading

    def sentence(self, sentence: str, tag: str, reading: Reading, last_subject: list[str | None]) -> None:
        found = self.vocabulary.find(sentence)
        text = placeholders(sentence, found)
        text = PAIR_RE.sub(lambda m: " " * len(m.group(0)), text)
        text = VIEW_LIST_RE.sub(lambda m: " " * len(m.group(0)), text)
        text = self.orders(text, found, tag, reading)
        for m in BETWEEN_RE.finditer(text):
            a, b = found[int(m.group(1))], found[int(m.group(2))]
            others = [x for x in found if x.kind in ("entity", "image") and x not in (a, b)]
            if others:
                pair = " and ".join(sorted((a.key, b.key)))
                reading.claims.add(Claim("between", 0, others[-1].key, pair, tag))
        text = BETWEEN_RE.sub(lambda m: m.group(0).replace(" and ", " & "), text)
        for m in ON_RE.finditer(text):
            a, b = found[int(m.group(1))], found[int(m.group(2))]
            if a.kind == b.kind == "entity":
                reading.claims.add(Claim("on", 0, a.key, b.key, tag))
        self.letters(text, found, reading)
        self.clauses(text, found, tag, reading, last_subject)

    def orders(self, text: str, found: list[Mention], tag: str, reading: Reading) -> str:
        """Claims of ordered lists and chains; returns ``text`` with the order words blanked."""
        for m in CHAIN_RE.finditer(text):
            a, b = found[int(m.group(1))], found[int(m.group(3))]
            if m.group(2) == ">":
                reading.claims.add(Claim("gt", 1, a.key, b.key, tag))
            else:
                reading.claims.add(Claim("time", -1, a.key, b.key, tag))  # "Image 4 -> Image 1": 4 comes before 1
        text = re.sub(r"->|→|>", " ", text)
        for kind, regex in enumerate(ORDER_RES):
            for m in regex.finditer(text):
                direction = order_direction(kind, m)
                if direction is None:
                    continue
                axis, sign = direction
                tail = LIST_END_RE.split(text[m.end() :], maxsplit=1)[0]
                head = LIST_END_RE.split(text[: m.start()])[-1]
                after = [x for x in mentions_in(tail, found) if x.kind == "entity"]
                after = after or [x for x in mentions_in(tail, found) if x.kind == "image"]
                before = [x for x in mentions_in(head, found) if x.kind == "entity"]
                items = after if len(after) >= 2 else before
                for a, b in zip(items, items[1:], strict=False):
                    if a.key != b.key:  # each item is one step further in the list's direction than the one before
                        reading.claims.add(Claim(axis, sign, b.key, a.key, tag))
                text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
        return text

    def letters(self, text: str, found: list[Mention], reading: Reading) -> None:
        """Each letter with the verdict of its clause (or of the clause after its colon) and its partner."""
        for clause_start, clause in clauses_of(text, split_and=False):
            for index in (int(i) for i in MENTION_RE.findall(clause)):
                mention = found[index]
                if mention.kind not in ("letter", "answer"):
                    continue
                verdict = 1 if mention.kind == "answer" else clause_verdict(clause)
                if verdict == 0:
                    rest = text[clause_start + len(clause) :]
                    if rest.startswith(":"):
                        following = CLAUSE_SPLIT_RE.split(rest[1:], maxsplit=1)[0]
                        verdict = clause_verdict(following) or (-1 if NEGATION_RE.match(following.strip()) else 0)
                partner = nearest_partner(clause, index, found, self.quotes)
                for letter in mention.keys:
                    reading.letters.add(LetterClaim(letter, verdict, partner))

    def clauses(self, text: str, found: list[Mention], tag: str, reading: Reading, last: list[str | None]) -> None:
        carry: str | None = None  # the subject later clauses of the sentence leave out
        frame: str | None = None  # the image the sentence last named: "In Image 3 ..., so X is left of Y"
        recent: list[str] = []  # what the sentence has named so far, for "it" and "which"
        waiting: list[Claim] = []  # "Moving right, the cube ...": claims whose subject the next clause names
        for _, clause in clauses_of(text, split_and=True):
            here = [(m.start(), found[int(m.group(1))]) for m in MENTION_RE.finditer(clause)]
            named = [mention for _, mention in here if mention.kind not in ("pronoun", "letter", "answer")]
            self.values(clause, here, carry, reading)
            relations = sorted(relation_words(clause), key=lambda r: r[0])
            previous_end, subjects = 0, []
            for start, end, axis, sign in relations:
                before = [m for p, m in here if p < start]
                after = [(p, m) for p, m in here if p >= end and m.kind not in ("letter", "answer")]
                subject, stated = pick_subject(before, carry, last[0])
                obj = None
                if after and links(clause[end : after[0][0]], clause[start:end], axis):
                    obj = resolve(after[0][1], subject, carry or last[0], recent)
                    after = after[1:]
                gap_start = end if obj is None else clause.index("\ue001", end) + 1
                framed = stated and subject is not None and is_image(subject)  # named first is the image, not X
                if (
                    after
                    and (not stated or (framed and after[0][1].kind == "entity"))
                    and INVERSION_RE.search(clause[gap_start : after[0][0]])
                ):  # "the slowest is the X"; "in Image 2 the nearest object is the X" is about the X, in Image 2
                    subject, stated = resolve(after[0][1], None, carry, recent), True
                if RELATIVE_RE.match(clause) and recent and not stated:
                    subject, stated = recent[-1], True  # "..., which is taller than it"
                elif RELATIVE_RE.match(clause) and obj is None and recent and recent[-1] != subject:
                    obj = recent[-1]  # "..., which it is taller than"
                window = clause[previous_end:start]
                negated = len(NEGATION_RE.findall(window)) % 2 == 1
                apparent = APPARENT_RE.search(window) or clause[end:].startswith("-looking")
                previous_end = end
                if axis == "verdict" and not stated:
                    continue  # "the matching option", "satisfies both conditions": no one named is judged
                if sign == 0 and not stated:
                    subject = None  # "both objects that balance each other": the pair is not the carried subject
                if obj == subject:
                    obj = None
                claim_tag = tag or ("apparent" if axis in ("size", "height") and apparent else "")
                final_sign = (-sign if sign else 2) if negated and axis not in DIRECTED else sign
                images = [m.key for _, m in here if m.kind == "image" and m.key not in (subject, obj)]
                where = images[0] if images else frame if frame not in (subject, obj) else None
                claim = Claim(axis, final_sign, subject, obj, claim_tag, where)
                if subject is None and obj is None and not recent and not here:
                    waiting.append(claim)
                else:
                    reading.claims.add(claim)
                if subject is not None:
                    subjects.append(subject)
                    last[0] = subject
            if not relations and NEGATION_RE.search(clause) and named:
                reading.claims.add(Claim("not", 0, named[0].key, None, tag))
            entities = [m.key for m in named if m.kind in ("entity", "others")]
            if waiting and not relations:
                reading.claims.update(replace(c, subject=entities[0] if entities else None) for c in waiting)
                waiting = []
            if subjects:
                carry = subjects[-1]
            elif entities and not relations and not CONTINUATION_RE.match(clause):
                carry = entities[0]
            elif named and carry is None and named[0].kind == "image":
                carry = named[0].key
            recent.extend(m.key for m in named)
            frame = next((m.key for m in reversed(named) if m.kind == "image"), frame)
        reading.claims.update(waiting)

    def values(self, clause: str, here: list[tuple[int, Mention]], carry: str | None, reading: Reading) -> None:
        near = frozenset(key for _, m in here if m.kind in ("entity", "letter", "answer", "others") for key in m.keys)
        near = near or frozenset([carry] if carry and not is_image(carry) else [])
        images = [(p, m.key) for p, m in here if m.kind == "image" and len(m.keys) == 1]
        bare = MENTION_RE.sub(lambda m: " " * len(m.group(0)), clause)  # the same positions, no token digits
        for m in NUMBER_RE.finditer(bare):
            before = [key for p, key in images if p < m.start()]
            after = [key for p, key in images if p > m.start()]
            image = before[-1] if before else after[0] if after else None
            reading.values.append(Value(canonical_number(m.group(0)), near, image))


QUOTE_RE = re.compile(r"\ue003(\d+)\ue004")
QUOTED_LONG_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”")


def mentions_in(text: str, found: list[Mention]) -> list[Mention]:
    return [found[int(i)] for i in MENTION_RE.findall(text)]


def order_direction(kind: int, m: re.Match[str]) -> tuple[str, int] | None:
    """(axis, direction from one item to the next) of an order phrase matched by ``ORDER_RES[kind]``."""
    if kind == 0:
        (axis_a, sign_a), (axis_b, sign_b) = ORDER_WORDS[m.group(1).lower()], ORDER_WORDS[m.group(2).lower()]
        return (axis_b, sign_b) if axis_a == axis_b and sign_a == -sign_b else None
    if kind == 1:
        axis, sign = ORDER_WORDS[m.group(1).lower()]
        return axis, -sign
    return ("time", 1) if m.group(1) else ("depth", 1)


def clauses_of(text: str, *, split_and: bool) -> list[tuple[int, str]]:
    """(start, clause) pieces of one sentence, cut at commas, colons and joining words ("and" only if asked:
    a letter's verdict spans "Options B and C fail")."""
    regex = CLAUSE_SPLIT_RE if split_and else COARSE_SPLIT_RE
    pieces, last = [], 0
    for m in regex.finditer(text):
        pieces.append((last, text[last : m.start()]))
        last = m.end()
    pieces.append((last, text[last:]))
    return [(start, piece) for start, piece in pieces if piece.strip()]


def relation_words(clause: str) -> list[tuple[int, int, str, int]]:
    """(start, end, axis, sign) of every relation word in a clause (mentions are tokens, so names do not count)."""
    found = []
    for m in RELATION_RE.finditer(clause):
        _, axis, sign = RELATION_PATTERNS[int(m.lastgroup[1:])]  # type: ignore[index]
        if axis == "rank":
            sign = RANKS[m.group("rank").lower()]
        found.append((m.start(), m.end(), axis, sign))
    return found


def clause_verdict(clause: str) -> int:
    for start, _end, axis, sign in sorted(relation_words(clause)):
        if axis == "verdict":
            negated = len(NEGATION_RE.findall(clause[:start])) % 2 == 1
            return -sign if negated else sign
    return 0


def nearest_partner(clause: str, index: int, found: list[Mention], quotes: list[str]) -> str | None:
    """The image, object or quoted option text named closest to the letter ``index`` in its clause."""
    here = next(m.start() for m in MENTION_RE.finditer(clause) if int(m.group(1)) == index)
    candidates = [
        (abs(m.start() - here), found[int(m.group(1))].key)
        for m in MENTION_RE.finditer(clause)
        if found[int(m.group(1))].kind in ("entity", "image")
    ]
    candidates += [(abs(m.start() - here), f'"{quotes[int(m.group(1))]}"') for m in QUOTE_RE.finditer(clause)]
    return min(candidates)[1] if candidates else None


def pick_subject(before: list[Mention], carry: str | None, last: str | None) -> tuple[str | None, bool]:
    """The subject of a relation word and whether the clause names it: the nearest object named before the word
    ("it" is the subject the sentence carries), else the carried subject, else an image named before it."""
    for mention in reversed(before):
        if mention.kind in ("entity", "others"):
            return mention.key, True
        if mention.kind == "pronoun":
            return carry or last, True
    if carry is not None:
        return carry, False
    for kind in ("image", "view"):
        for mention in reversed(before):
            if mention.kind == kind:
                return mention.key, True
    return None, False


def resolve(mention: Mention, subject: str | None, carry: str | None, recent: list[str]) -> str | None:
    if mention.kind != "pronoun":
        return mention.key
    if subject is None:
        return carry
    for key in reversed(recent):
        if key != subject:
            return key
    return None


def links(between: str, word: str, axis: str = "") -> bool:
    """Whether the words between a relation word and the next name make that name its object ("agrees with" and
    "matches" take theirs directly: "the top view in Image 3 matches the front view")."""
    rest = LINK_FILLERS.sub(" ", between)
    rest = " ".join(rest.replace(BOX_TOKEN, " ").split()).lower()
    if not rest:
        return axis == "verdict" or bool(PREPOSITIONAL.match(word.strip()))
    return rest in LINKS or (axis == "verdict" and rest == "with")


# --------------------------------------------------------------------------------------------------- comparing


def same(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b


def anchored(a: str | None, b: str | None) -> bool:
    return a is not None and a == b


def claims_match(a: Claim, b: Claim) -> bool:
    if a.axis != b.axis or a.tag != b.tag or not same(a.frame, b.frame):
        return False
    if (a.subject is None and a.object is None) != (b.subject is None and b.object is None):
        return False  # a general statement ("objects nearer the camera look bigger") is not about a named thing
    if a.sign == b.sign and same(a.subject, b.subject) and same(a.object, b.object):
        return True
    if a.axis in DIRECTED or a.sign != -b.sign:
        return False
    # "X nearer than Y" is "Y farther than X": the flip needs one named end to hold it in place
    return (
        (anchored(a.object, b.subject) or anchored(a.subject, b.object))
        and same(a.subject, b.object)
        and same(a.object, b.subject)
    )


def letters_match(a: LetterClaim, b: LetterClaim) -> bool:
    return a.letter == b.letter and a.verdict == b.verdict and same(a.partner, b.partner)


def compare(label: str, before: Reading, after: Reading, answer: str) -> list[str]:
    problems = []
    for claim in sorted(before.claims, key=Claim.describe):
        if not any(claims_match(claim, other) for other in after.claims):
            problems.append(f"{label}: dropped or changed the claim {claim.describe()}")
    for claim in sorted(after.claims, key=Claim.describe):
        if not any(claims_match(other, claim) for other in before.claims):
            problems.append(f"{label}: added the claim {claim.describe()}")
    template_letters = {c.letter for c in before.letters}
    for claim in sorted(after.letters, key=lambda c: (c.letter, c.verdict, c.partner or "")):
        if claim.letter not in template_letters:
            fits = " as fitting" if claim.verdict > 0 else ""
            problems.append(f"{label}: adds a claim about option {claim.letter}{fits}, which the template does not")
            continue
        if not any(letters_match(other, claim) for other in before.letters):
            verdict = {1: "fits", -1: "fails", 0: "is named"}[claim.verdict]
            beside = f" beside '{claim.partner}'" if claim.partner else ""
            problems.append(f"{label}: says option {claim.letter} {verdict}{beside}, which the template does not")
    for claim in sorted(before.letters, key=lambda c: (c.letter, c.verdict, c.partner or "")):
        if claim.letter in {c.letter for c in after.letters} and not any(
            letters_match(claim, other) for other in after.letters
        ):
            problems.append(f"{label}: no longer says what the template says of option {claim.letter}")
        elif claim.letter not in {c.letter for c in after.letters}:
            problems.append(f"{label}: no longer mentions option {claim.letter}")
    for letter in sorted({c.letter for c in after.letters if c.verdict > 0} - {answer}):
        if not any(c.letter == letter and c.verdict > 0 for c in before.letters):
            problems.append(f"{label}: presents option {letter} as fitting, but the answer is {answer}")
    problems.extend(value_problems(label, before.values, after.values))
    return list(dict.fromkeys(problems))


def value_problems(label: str, before: list[Value], after: list[Value]) -> list[str]:
    """Numbers present in both texts but said of other images or other things (the token check reports the
    missing ones). A number's objects must overlap where both texts name some; each image the rewrite says it of
    must be one the template says it of."""
    problems = []
    for number in sorted({v.number for v in before} & {v.number for v in after}, key=number_key):
        was = frozenset().union(*(v.near for v in before if v.number == number))
        now = frozenset().union(*(v.near for v in after if v.number == number))
        if was and now and not was & now:
            problems.append(
                f"{label}: says {number} of {', '.join(sorted(now))}, where the template says it of "
                f"{', '.join(sorted(was))}"
            )
        old = {v.image for v in before if v.number == number} - {None}
        new = {v.image for v in after if v.number == number} - {None}
        if old and new - old:
            problems.append(
                f"{label}: says {number} of {', '.join(sorted(new - old))}, where the template says it of "
                f"{', '.join(sorted(old))}"
            )
    return problems


def is_image(key: str) -> bool:
    return key.startswith("image ")


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


def check_tokens(label: str, before: str, after: str, expected: Expected) -> list[str]:
    problems: list[str] = []
    if not after.strip():
        return [f"{label}: is empty"]
    spoken = spoken_numbers(after)
    lost = {n for n in numbers(before) - numbers(after) if n.lstrip("+") not in spoken}
    if lost:
        problems.append(f"{label}: lost the number(s) {', '.join(sorted(lost, key=number_key))}")
    added = numbers(after) - expected.numbers
    if added:
        problems.append(f"{label}: introduced the number(s) {', '.join(sorted(added, key=number_key))}")
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


def number_key(text: str) -> float:
    return float(text)


def check_conclusion(before: str, after: str, expected: Expected) -> list[str]:
    problems = []
    if answer_letters(before) and expected.answer not in answer_letters(after):
        problems.append(f"conclusion: does not state the answer {expected.answer}")
    wanted = strip_article(expected.answer_text)
    if wanted and mentions(before, wanted) and not mentions(after, wanted):
        problems.append(f"conclusion: lost the correct option '{expected.answer_text}'")
    return problems


def check_rewrite(
    original: Any,
    rewrite: Any,
    *,
    question: str,
    options: Mapping[str, str],
    answer: str,
    entities: Iterable[str] = (),
) -> list[str]:
    """Why ``rewrite`` is not faithful to the templated ``original`` (both :class:`~mirforge.task.Steps` or
    mappings with the step keys); empty when it is. ``entities`` are the instance's region names."""
    before_texts, after_texts = step_texts(original), step_texts(rewrite)
    n_before = sum(label.startswith("caption") for label in before_texts)
    n_after = sum(label.startswith("caption") for label in after_texts)
    if n_after != n_before:
        return [f"caption: {n_after} captions for {n_before} images"]
    template_text = " ".join([question, *options.values(), *before_texts.values()])
    entities = tuple(entities)
    expected = Expected(
        answer=answer,
        answer_text=options.get(answer, ""),
        n_images=n_before,
        numbers=numbers(template_text) | {str(k) for k in range(1, n_before + 1)},
        boxes=boxes(template_text),
        entities=entities,
    )
    reader = Reader(Vocabulary(entities, options, " ".join(before_texts.values())))
    problems = []
    for label, before in before_texts.items():
        after = after_texts[label]
        token_problems = check_tokens(label, before, after, expected)
        problems.extend(token_problems)
        if after.strip():
            problems.extend(compare(label, reader.read(before), reader.read(after), answer))
    problems.extend(check_conclusion(before_texts["conclusion"], after_texts["conclusion"], expected))
    return list(dict.fromkeys(problems))
