"""Answer extraction on a table of real-looking outputs, including the known traps."""

from __future__ import annotations

import pytest

from mirforge.curriculum.answers import UNPARSED, parse_answer, strip_think

ABCD = {"A": "The top view in Image 3", "B": "The top view in Image 4", "C": "The top view in Image 5", "D": "None"}
ABC = {"A": "The hand is bigger.", "B": "The tower is as big as the hand.", "C": "The tower is bigger."}
ARTICLE = {"A": "A red cube", "B": "A blue sphere", "C": "I cannot tell", "D": "Both are equal"}
WORDS = {"A": "left", "B": "right", "C": "in front", "D": "behind"}

CASES: list[tuple[str, dict[str, str], str]] = [
    # MIR's requested format, in every case
    ("Your option: B\nReason: the sphere is at the front right.", ABCD, "B"),
    ("your option: b\nreason: ...", ABCD, "B"),
    ("Your Option: C", ABCD, "C"),
    ("Your option: (D)\nReason: none of them match.", ABCD, "D"),
    ("Your option: [A]", ABCD, "A"),
    ("Option: C", ABCD, "C"),
    # "answer is" phrasings
    ("The answer is B.", ABCD, "B"),
    ("Therefore the correct answer is (C).", ABCD, "C"),
    ("Final answer: D", ABCD, "D"),
    ("Answer: a", ABCD, "A"),
    ("**Answer:** **B**", ABCD, "B"),
    ("The correct option is C: the top view in Image 5.", ABCD, "C"),
    ("So the best choice is B because both views agree.", ABCD, "B"),
    ("I would choose B.", ABCD, "B"),
    ("I'd go with option C", ABCD, "C"),
    ("After checking all candidates, my answer is A", ABCD, "A"),
    # the chain format we train on
    ("<summary>...</summary><conclusion>B</conclusion>", ABCD, "B"),
    ("<conclusion>Candidate B agrees with both views. Therefore the answer is B.</conclusion>", ABCD, "B"),
    ("The answer is A.\n<conclusion>C</conclusion>", ABCD, "C"),
    ("<CONCLUSION> (d) </CONCLUSION>", ABCD, "D"),
    ("<conclusion>The top view in Image 4</conclusion>", ABCD, "B"),
    # think tags
    ("<think>Maybe the answer is A... no, wait.</think>Your option: C", ABCD, "C"),
    ("<think>Let me compare. The answer is B I guess", ABCD, UNPARSED),  # truncated inside think
    ("<think>A? B?</think>\n\nThe answer is D.", ABCD, "D"),
    # last statement wins inside a tier
    ("At first the answer is A. On reflection, the answer is C.", ABCD, "C"),
    # leading letter forms
    ("B", ABCD, "B"),
    ("B.", ABCD, "B"),
    ("(C) The top view in Image 5", ABCD, "C"),
    ("D. None", ABCD, "D"),
    ("c", ABCD, "C"),
    # answers given as option text
    ("The tower is bigger.", ABC, "C"),
    ("The answer is: the hand is bigger", ABC, "A"),
    ("left", WORDS, "A"),
    ("Answer: behind.", WORDS, "D"),
    ("**In front**", WORDS, "C"),
    # traps: options starting with "A" or "I"
    ("A red cube", ARTICLE, "A"),
    ("I cannot tell", ARTICLE, "C"),
    ("I think the answer is B.", ARTICLE, "B"),
    ("A sphere is blue, so the answer is B.", ARTICLE, "B"),
    ("The answer is a blue sphere", ARTICLE, "B"),
    ("I am not sure what the answer is.", ARTICLE, UNPARSED),
    ("A closer look shows it is ambiguous.", ARTICLE, UNPARSED),
    # traps: letters outside the option set
    ("The answer is D.", ABC, UNPARSED),
    ("Your option: E", ABCD, UNPARSED),
    ("Option: The first one", ABCD, UNPARSED),  # MIR's regex takes "T" here
    # traps: restated option lists and echoes of the template
    ("A. The hand is bigger.\nB. The tower is as big as the hand.\nC. The tower is bigger.", ABC, UNPARSED),
    ("Options:\nA. left\nB. right\nC. in front\nD. behind\nYour option: D", WORDS, "D"),
    ("Your option: ...\nReason: ...", ABCD, UNPARSED),
    ("Select the correct option from the following options: A. left B. right", WORDS, UNPARSED),
    # traps: hedges and alternatives
    ("The answer is A or B.", ABCD, UNPARSED),
    ("The answer is B and C", ABCD, UNPARSED),
    # traps: truncation and garbage
    ("The answer is", ABCD, UNPARSED),
    ("<conclusion>The answer is", ABCD, UNPARSED),
    ("", ABCD, UNPARSED),
    ("�z�eh� 5 lighterWh�| side", ABCD, UNPARSED),
    ("<|image_pad|><|im_start|>", ABCD, UNPARSED),
    # not fooled by a mention of an option inside reasoning
    ("Option A is wrong because the sphere moves. Option C also fails.", ABCD, UNPARSED),
]


@pytest.mark.parametrize(("text", "options", "expected"), CASES)
def test_table(text: str, options: dict[str, str], expected: str) -> None:
    assert parse_answer(text, options).outcome == expected


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert sum(1 for _, _, e in CASES if e == UNPARSED) >= 10


def test_deterministic_and_how() -> None:
    for text, options, _ in CASES:
        assert parse_answer(text, options) == parse_answer(text, options)
    assert parse_answer("<conclusion>B</conclusion>", ABCD).how == "conclusion"
    assert parse_answer("The answer is B", ABCD).how == "pattern"
    assert parse_answer("B.", ABCD).how == "leading"
    assert parse_answer("left", WORDS).how == "text"
    assert parse_answer("??", ABCD).how == "unparsed"


def test_strip_think() -> None:
    assert strip_think("<think>x</think>y") == "y"
    assert strip_think("y<think>never closed") == "y"
