"""The rewrite check reads meaning: planted lies in real step texts are rejected, honest paraphrases pass.

The step texts are real template output (fixtures/steps_seed11.json: `mirforge generate --tasks view_3d,...
--n 3 --seed 11`), so the lies are the ones an LLM could tell about these exact sentences.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mirforge.templates.faithfulness import Claim, Reader, Vocabulary, check_rewrite, claims_match

INSTANCES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "steps_seed11.json").read_text(encoding="utf-8")
)


@dataclass(frozen=True)
class Case:
    instance: str
    step: str  # "summary", "caption 2", ..., "conclusion"
    old: str
    new: str
    reason: str = ""  # a word every rejection of a lie must contain (proves which rule caught it)


def swap(text: str, a: str, b: str) -> str:
    assert a in text and b in text, (a, b, text)
    return text.replace(a, "\0").replace(b, a).replace("\0", b)


def edited(case: Case) -> tuple[dict[str, Any], dict[str, Any]]:
    original = INSTANCES[case.instance]
    rewrite = {**original, "caption": list(original["caption"])}
    if case.step.startswith("caption"):
        index = int(case.step.split()[1]) - 1
        text = rewrite["caption"][index]
    else:
        text = rewrite[case.step]
    assert case.old == "*" or case.old in text, f"{case.old!r} is not in {case.instance} {case.step}: {text!r}"
    new = case.new if case.old == "*" else text.replace(case.old, case.new)
    if case.step.startswith("caption"):
        rewrite["caption"][index] = new
    else:
        rewrite[case.step] = new
    return original, rewrite


def problems(original: dict[str, Any], rewrite: dict[str, Any]) -> list[str]:
    return check_rewrite(
        original,
        rewrite,
        question=original["question"],
        options=original["options"],
        answer=original["answer"],
        entities=original["entities"],
    )


V3 = "view_3d-test-000000"
V3B = "view_3d-test-000001"
LOC = "location_relationship-test-000000"
LOC2 = "location_relationship-test-000002"
DEP = "depth_relationship-test-000000"
DEP2 = "depth_relationship-test-000001"
FP = "forced_perspective-test-000000"
WC = "weight_comparison-test-000002"
WC1 = "weight_comparison-test-000000"
PO = "process_order-test-000000"
PO2 = "process_order-test-000001"
SP = "speed_comparison-test-000000"
CH = "chart_analysis-test-000000"
CH2 = "chart_analysis-test-000002"

V3_IMG2IMG = INSTANCES[V3]["img2img"]
LOC_CONCLUSION = INSTANCES[LOC]["conclusion"]
LOC2_CONCLUSION = INSTANCES[LOC2]["conclusion"]
V3B_IMG2IMG = INSTANCES[V3B]["img2img"]

LIES: dict[str, Case] = {
    # (a) another letter presented as the answer
    "best match appended (view_3d)": Case(
        V3, "conclusion", "Therefore the answer is D.", "Therefore the answer is D; option A is the best match.", "A"
    ),
    "best match appended (depth)": Case(
        DEP,
        "conclusion",
        "Therefore the answer is B.",
        "Therefore the answer is B, but option D is the best match.",
        "D",
    ),
    "best match appended (weight)": Case(
        WC, "conclusion", "Therefore the answer is D.", "Therefore the answer is D. Option A is the best match.", "A"
    ),
    "B also fits": Case(V3, "conclusion", "Therefore the answer is D.", "B also fits. Therefore the answer is D.", "B"),
    "other letter also correct": Case(
        PO2, "conclusion", "Therefore the answer is C.", "Therefore the answer is C, and option A is also correct.", "A"
    ),
    "answer letter changed": Case(CH, "conclusion", "the answer is C", "the answer is D", "D"),
    "letter claim added to summary": Case(
        DEP, "summary", "and compare the distances of the candidates.", "and compare them; option C fails.", "C"
    ),
    # (b) candidate letters swapped
    "img2img letters A/D swapped": Case(V3, "img2img", "*", swap(V3_IMG2IMG, "Candidate A", "Candidate D"), "option"),
    "img2img letters B/C swapped": Case(V3B, "img2img", "*", swap(V3B_IMG2IMG, "Candidate B", "Candidate C"), "option"),
    "text2img options A/B swapped": Case(V3, "text2img", "*", swap(INSTANCES[V3]["text2img"], "A)", "B)"), "option"),
    "depth option labels swapped": Case(
        DEP, "text2img", "*", swap(INSTANCES[DEP]["text2img"], "(option A)", "(option C)"), "option"
    ),
    "verdict flipped by dropping not": Case(
        V3, "img2img", "Candidate C (Image 5) does not fit", "Candidate C (Image 5) fits", "C"
    ),
    "verdict negated": Case(V3, "img2img", "(Image 6) agrees with", "(Image 6) does not agree with", "D"),
    "candidate paired with another image": Case(
        V3, "img2img", "Candidate B (Image 4)", "Candidate B (Image 5)", "Image 4"
    ),
    # (c) left and right swapped
    "left/right swapped in captions and conclusion": Case(
        LOC, "conclusion", "*", swap(LOC_CONCLUSION, "right", "left"), "of 'red cube'"
    ),
    "caption list reversed": Case(LOC, "caption 1", "From left to right", "From right to left", "right of"),
    "caption left/right swapped": Case(
        FP,
        "caption 1",
        "traffic cone on the left and the table lamp on the right",
        "traffic cone on the right and the table lamp on the left",
        "left of",
    ),
    "conclusion left/right swapped (6 views)": Case(
        LOC2, "conclusion", "*", swap(LOC2_CONCLUSION, "the left of", "the right of"), "green cone"
    ),
    "top view cell moved left": Case(
        V3, "conclusion", "the blue capsule at the middle right", "the blue capsule at the middle left", "left of"
    ),
    "motion direction reversed": Case(
        SP, "img2img", "The yellow diamond slides to the right", "The yellow diamond slides to the left", "left of"
    ),
    "lower side swapped": Case(
        WC, "text2img", "52 pixels lower on the right side", "52 pixels lower on the left side", "left of"
    ),
    # nearer / farther, front / back
    "nearer becomes farther": Case(
        LOC,
        "img2img",
        "the green capsule is nearer to the camera than the red cube",
        "the green capsule is farther from the camera than the red cube",
        "nearer",
    ),
    "closer object swapped": Case(
        FP, "caption 1", "the traffic cone stands closer", "the table lamp stands closer", "nearer"
    ),
    "every other option nearer becomes farther": Case(
        DEP, "conclusion", "every other option is nearer", "every other option is farther", "others"
    ),
    "farthest becomes nearest": Case(
        DEP, "conclusion", "is farthest from the camera", "is nearest to the camera", "green sphere"
    ),
    "depth order swapped in caption": Case(
        DEP, "caption 1", "*", swap(INSTANCES[DEP]["caption"][0], "the pink cube", "the orange cone"), "farther"
    ),
    "per-image relation swapped": Case(
        DEP2,
        "img2img",
        "8.96 units away in Image 1 (farther than the orange capsule) and 6.33 units in Image 2 (nearer",
        "8.96 units away in Image 1 (nearer than the orange capsule) and 6.33 units in Image 2 (farther",
        "gray sphere",
    ),
    "front becomes back": Case(
        V3, "caption 3", "the blue capsule at the front right", "the blue capsule at the back right", "blue capsule"
    ),
    "side view order swapped": Case(
        V3, "caption 2", "the blue capsule, the green sphere.", "the green sphere, the blue capsule.", "behind"
    ),
    # larger / smaller, taller, ratios
    "looks bigger becomes looks smaller": Case(
        FP,
        "caption 3",
        "so it looks bigger although it is the smaller object",
        "so it looks smaller although it is the bigger object",
        "looks",
    ),
    "ratio direction swapped": Case(
        FP,
        "img2img",
        "so the table lamp is 1.83 times the traffic cone",
        "so the traffic cone is 1.83 times the table lamp",
        "ratio",
    ),
    "taller-than swapped in conclusion": Case(
        FP,
        "conclusion",
        "the trash bin is about 3.83 times as tall as the traffic cone",
        "the traffic cone is about 3.83 times as tall as the trash bin",
        "ratio",
    ),
    "nearer objects look smaller": Case(
        FP, "summary", "objects nearer the camera look bigger", "objects nearer the camera look smaller", "looks"
    ),
    # heavier / lighter, level
    "heavier becomes lighter": Case(
        WC,
        "img2img",
        "so the yellow cube is heavier than the red cube",
        "so the yellow cube is lighter than the red cube",
        "yellow cube",
    ),
    "sunk pan swapped": Case(WC, "caption 1", "the right pan has sunk", "the left pan has sunk", "pan"),
    "objects swapped between pans": Case(
        WC,
        "caption 1",
        "the red cube on the left pan and the yellow cube on the right pan",
        "the yellow cube on the left pan and the red cube on the right pan",
        "pan",
    ),
    "level beam becomes tilted": Case(WC, "caption 3", "the beam is level", "the beam tilts down to the left", "lower"),
    "chain reversed": Case(
        WC,
        "img2img",
        "Chaining the comparisons: yellow cube > red cube;",
        "Chaining the comparisons: red cube > yellow cube;",
        ">",
    ),
    "negation removed": Case(
        WC,
        "conclusion",
        "no picture shows anything outweighing it",
        "a picture shows something outweighing it",
        "yellow cube",
    ),
    "negation inserted (weigh the same)": Case(
        WC, "img2img", "and the cyan cylinder weigh the same", "and the cyan cylinder do not weigh the same", "heavy"
    ),
    "negation inserted (heavier)": Case(
        WC1,
        "img2img",
        "so the cyan sphere is heavier than the green sphere",
        "so the cyan sphere is not heavier than the green sphere",
        "cyan sphere",
    ),
    # before / after, increase / decrease
    "chronological order swapped": Case(
        PO, "conclusion", "Image 4, Image 1, Image 2, Image 3", "Image 4, Image 2, Image 1, Image 3", "after"
    ),
    "arrow chain reversed": Case(
        PO, "img2img", "Image 4 (22 px) -> Image 1 (86 px)", "Image 1 (86 px) -> Image 4 (22 px)", "before"
    ),
    "grows becomes shrinks": Case(
        PO, "summary", "only grows as time passes", "only shrinks as time passes", "increasing"
    ),
    "lowest-to-highest reversed": Case(
        PO, "img2img", "from the lowest to the highest", "from the highest to the lowest", "image"
    ),
    "after becomes before": Case(
        PO2, "conclusion", "Right after Image 4 comes Image 1", "Right before Image 4 comes Image 1", "image 4"
    ),
    "next frame changed": Case(
        PO2, "conclusion", "Right after Image 4 comes Image 1.", "Right after Image 4 comes Image 2.", "'image 2' after"
    ),
    # faster / slower, ranks
    "slowest object swapped": Case(
        SP,
        "conclusion",
        "The slowest is the red circle; the next slowest, the brown square,",
        "The slowest is the brown square; the next slowest, the red circle,",
        "red circle",
    ),
    "ranking order reversed": Case(SP, "conclusion", "from fastest to slowest", "from slowest to fastest", "faster"),
    "rank swapped": Case(CH2, "conclusion", "*", swap(INSTANCES[CH2]["conclusion"], "Poetry", "History"), "rank"),
    # values, counts, images
    "values swapped between objects": Case(
        DEP,
        "img2img",
        "the gray cube is about 5.34 units away; the green sphere is about 7.38 units away",
        "the gray cube is about 7.38 units away; the green sphere is about 5.34 units away",
        "5.34",
    ),
    "values swapped between frames": Case(
        PO,
        "img2img",
        "Image 1 shows 50% (86 px), Image 2 shows 74% (128 px)",
        "Image 1 shows 74% (128 px), Image 2 shows 50% (86 px)",
        "image",
    ),
    "values swapped between periods": Case(
        CH,
        "img2img",
        "52 k EUR in Q4 (Image 1), 26 k EUR in Q5 (Image 2)",
        "26 k EUR in Q4 (Image 1), 52 k EUR in Q5 (Image 2)",
        "26",
    ),
    "x positions swapped": Case(
        LOC,
        "img2img",
        "x = 145 and that of the red cube at x = 262",
        "x = 262 and that of the red cube at x = 145",
        "145",
    ),
    "sign flipped": Case(CH, "conclusion", "changed by -26 k EUR", "changed by +26 k EUR", "-26"),
    "count changed": Case(V3, "summary", "each of the 4 candidate top views", "each of the 3 candidate top views", "4"),
    "Image 2 becomes Image 3": Case(V3, "summary", "the side view (Image 2)", "the side view (Image 3)", "Image 2"),
    "viewpoint image changed": Case(
        LOC, "conclusion", "Seen from the camera of Image 1", "Seen from the camera of Image 2", "Image 1"
    ),
    "claim dropped": Case(LOC, "conclusion", " and nearer to the camera than it, even", ", even", "nearer"),
    "depth claim dropped": Case(
        LOC, "img2img", ", so the green capsule is nearer to the camera than the red cube.", ".", "nearer"
    ),
    # (c) candidates or images trading what is said of them within one clause
    "frames traded within a sentence": Case(
        SP,
        "img2img",
        "from x = 156 px in Image 1 (t = 0.00 s) to x = 348 px in Image 3 (t = 1.75 s)",
        "from x = 156 px in Image 3 (t = 0.00 s) to x = 348 px in Image 1 (t = 1.75 s)",
        "of image 3",
    ),
    "nearest and farthest traded in another view": Case(
        DEP,
        "img2img",
        "the nearest object is the orange cone and the farthest the pink cube",
        "the nearest object is the pink cube and the farthest the orange cone",
        "pink cube",
    ),
}

PARAPHRASES: dict[str, Case] = {
    "depth img2img, the other view said another way": Case(
        DEP,
        "img2img",
        "The other photos show the table from other sides, where the order is different: in Image 2 the nearest "
        "object is the orange cone and the farthest the pink cube.",
        "From the other side of the table the order changes: in Image 2 the orange cone is the nearest object and the "
        "pink cube the farthest.",
    ),
    "view_3d conclusion restructured": Case(
        V3,
        "conclusion",
        "*",
        "Of the four candidates, only the top view in Image 6 agrees with the front and side views: it shows the green "
        "sphere at the centre and the blue capsule at the middle right. Therefore the answer is D.",
    ),
    "view_3d img2img reordered": Case(
        V3,
        "img2img",
        "*",
        "Candidate D (Image 6) agrees with both views: every object visible in the front view sits in the same "
        "columns seen from above, and every object visible in the side view lies at the same depth. Candidate A "
        "(Image 3) is inconsistent: in the side view the green sphere spans pixels 190 to 258 from front to back, but "
        "in this top view 67 to 134. Candidate B (Image 4) fails: the green sphere spans pixels 190 to 258 across in "
        "the front view, yet 314 to 381 in this top view. Candidate C (Image 5) doesn't fit either: the green sphere "
        "spans pixels 190 to 258 across in the front view, but 314 to 381 in this top view.",
    ),
    "view_3d front caption": Case(
        V3,
        "caption 1",
        "*",
        "From left to right, the front view of the table displays the green sphere and then the blue capsule.",
    ),
    "view_3d candidate caption": Case(
        V3,
        "caption 3",
        "*",
        "Candidate A is a top view with the green sphere at the front middle and the blue capsule at the front right.",
    ),
    "view_3d summary synonyms": Case(
        V3,
        "summary",
        "*",
        "My goal is to find the top view showing the same arrangement as the front view (Image 1) and the side view "
        "(Image 2). Since the views are parallel projections at one scale, an object's horizontal extent in the front "
        "view has to match its left-right position seen from above, and its extent in the side view has to match its "
        "front-back position. I will test each of the 4 candidate top views against both views.",
    ),
    "location img2img synonyms": Case(
        LOC,
        "img2img",
        "*",
        "In Image 2 the green capsule's centre lies at x = 145 and the red cube's at x = 262, so the green capsule is "
        "left of the red cube, just as the question states. In Image 1 the green capsule is at x = 256 and the red "
        "cube at x = 171, so from this camera the green capsule is to the right of the red cube; this camera looks at "
        "the table from a different side, which reverses left and right relative to Image 2. As for distance, the "
        "visible surface of the green capsule is about 5.33 units from the camera of Image 1 and that of the red cube "
        "about 6.69 units, so the green capsule is closer to the camera than the red cube.",
    ),
    "location conclusion restructured": Case(
        LOC,
        "conclusion",
        "*",
        "Although the green capsule appears to the left of the red cube in Image 2, from the camera of Image 1 it is "
        'to the right of the red cube and closer to the camera than it. The option that matches is "To the right of '
        'the red cube, and nearer to the camera than it", so the answer is A.',
    ),
    "location caption": Case(
        LOC,
        "caption 1",
        "*",
        "The table as the first camera sees it. Left to right, it shows the cyan cube (box [112, 216, 181, 286]), the "
        "red cube (box [131, 135, 208, 232]), the green capsule (box [223, 239, 291, 310]) and the pink cone (box "
        "[287, 170, 334, 250]).",
    ),
    "depth conclusion synonyms": Case(
        DEP,
        "conclusion",
        "*",
        "Among the options, the green sphere is the farthest from the camera of Image 1, at about 7.38 units away; "
        "all the other options are closer. Therefore the answer is B.",
    ),
    "depth text2img restructured": Case(
        DEP,
        "text2img",
        "*",
        "The question is about Image 1. There, the gray cube (option A) sits at box [122, 238, 206, 318], the green "
        "sphere (option B) at box [278, 179, 313, 214], the orange cone (option C) at box [188, 211, 253, 257], and "
        "the pink cube (option D) at box [296, 198, 362, 274].",
    ),
    "depth summary": Case(
        DEP,
        "summary",
        "A large-looking object is not necessarily close, since the objects differ in size;",
        "Since the objects differ in size, an object that looks large is not necessarily close;",
    ),
    "between conclusion restructured": Case(
        DEP2,
        "conclusion",
        "*",
        "Only the purple cylinder is closer to the camera than the orange capsule in Image 1 (6.06 vs 7.64) while "
        "being farther than the orange capsule in Image 2 (8.97 vs 8.12); every other option fails at least one of "
        "the two conditions. Therefore the answer is C.",
    ),
    "forced caption reordered": Case(
        FP,
        "caption 3",
        "*",
        "A photo of the trash bin on the left and the cabinet on the right, both on a flat floor; the cabinet is much "
        "nearer to the camera, so although it is the smaller object it looks bigger.",
    ),
    "forced conclusion": Case(
        FP,
        "conclusion",
        "*",
        "Multiplying the ratios along the chain, 1.83 x 1.64 x 1.27, gives about 3.83, so the trash bin is about 3.83 "
        'times as tall as the traffic cone. The closest option is "The trash bin is about 3.8 times as tall as the '
        'traffic cone". The answer is C.',
    ),
    "weight img2img synonyms": Case(
        WC1,
        "img2img",
        "*",
        "In Image 1 the right pan sinks, which means the cyan sphere is heavier than the green sphere. In Image 2 the "
        "right pan sinks, so the cyan sphere is heavier than the red cylinder. In Image 3 the right pan sinks, so the "
        "green sphere is heavier than the blue cylinder. Chaining these comparisons: cyan sphere > red cylinder; cyan "
        "sphere > green sphere > blue cylinder.",
    ),
    "weight level caption": Case(
        WC,
        "caption 3",
        "*",
        "A balance scale holding the blue cylinder on the left pan and the cyan cylinder on the right pan; the beam "
        "stays level.",
    ),
    "weight conclusion restructured": Case(
        WC,
        "conclusion",
        "*",
        "Directly or through a chain of balances, the yellow cube is heavier than every other object, including both "
        "objects that balance each other, and no picture shows anything heavier than it. Therefore the answer is D.",
    ),
    "process conclusion": Case(
        PO,
        "conclusion",
        "*",
        "Putting the frames in chronological order gives Image 4, Image 1, Image 2, Image 3, so the answer is B.",
    ),
    "process img2img": Case(
        PO,
        "img2img",
        "*",
        "Measuring the level of the liquid in each frame: Image 1 shows 50% (86 px), Image 2 shows 74% (128 px), "
        "Image 3 shows 87% (150 px) and Image 4 shows 13% (22 px). Because the level rises over time, sorting the "
        "frames from the lowest to the highest level gives Image 4 (22 px) -> Image 1 (86 px) -> Image 2 (128 px) -> "
        "Image 3 (150 px). Each frame differs from the next by at least one clear step.",
    ),
    "process next frame": Case(
        PO2,
        "conclusion",
        "*",
        "In chronological order the frames are Image 3, Image 2, Image 4, Image 1, Image 5, so the frame right after "
        "Image 4 is Image 1. Therefore the answer is C.",
    ),
    "speed conclusion": Case(
        SP,
        "conclusion",
        "*",
        "Sorted by speed, fastest first, the objects are the orange diamond (190.1 px/s), the yellow diamond (109.7 "
        "px/s), the brown square (65.1 px/s) and the red circle (36.4 px/s). The red circle is the slowest; the next "
        "slowest, the brown square, is 1.8 times as fast. Therefore the answer is C.",
    ),
    "speed img2img sentence": Case(
        SP,
        "img2img",
        "The yellow diamond slides to the right from x = 156 px in Image 1 (t = 0.00 s) to x = 348 px in Image 3 (t = "
        "1.75 s)",
        "Moving right, the yellow diamond goes from x = 156 px in Image 1 (t = 0.00 s) to x = 348 px in Image 3 (t = "
        "1.75 s)",
    ),
    "chart img2img": Case(
        CH,
        "img2img",
        "*",
        "Coimbra's revenue is 52 k EUR in Q4 (Image 1) and 26 k EUR in Q5 (Image 2), so the change from Q4 to Q5 is "
        "26 - 52 = -26 k EUR.",
    ),
    "chart conclusion": Case(
        CH, "conclusion", "*", "From Q4 to Q5, Coimbra's revenue changed by -26 k EUR, so the answer is C."
    ),
    "chart ranking": Case(
        CH2,
        "conclusion",
        "*",
        "By total, Poetry ranks first with 207 hundred loans and History comes second with 180 hundred loans, ahead of "
        "Crime (167). The answer is B.",
    ),
}


def test_the_tables_are_large_enough():
    assert len(LIES) >= 40 and len(PARAPHRASES) >= 20


@pytest.mark.parametrize("name", sorted(LIES))
def test_planted_lie_is_rejected(name):
    case = LIES[name]
    found = problems(*edited(case))
    assert found, f"accepted a lie: {name}"
    assert any(case.reason.lower() in p.lower() for p in found), found


@pytest.mark.parametrize("name", sorted(PARAPHRASES))
def test_honest_paraphrase_passes(name):
    assert problems(*edited(PARAPHRASES[name])) == []


@pytest.mark.parametrize("instance", sorted(INSTANCES))
def test_a_template_is_faithful_to_itself(instance):
    original = INSTANCES[instance]
    assert problems(original, original) == []


def read(text: str, entities: tuple[str, ...] = ("red cube", "green capsule", "blue cone")) -> set[Claim]:
    return Reader(Vocabulary(entities, "ABCD", text)).read(text).claims


def test_synonyms_and_antonyms_read_as_the_same_claim():
    nearer = read("The red cube is nearer to the camera than the green capsule.")
    for same in (
        "The red cube is closer to the camera than the green capsule.",
        "The green capsule is farther from the camera than the red cube.",
    ):
        other = read(same)
        assert all(any(claims_match(a, b) for b in other) for a in nearer), (same, nearer, other)
    flipped = read("The red cube is farther from the camera than the green capsule.")
    assert not any(claims_match(a, b) for a in nearer for b in flipped)


def test_negation_turns_a_relation_round():
    (plain,) = read("The red cube is heavier than the blue cone.")
    (negated,) = read("The red cube is not heavier than the blue cone.")
    assert plain.sign == -negated.sign


def test_lists_become_neighbouring_pairs():
    claims = read("From left to right it shows the red cube, the green capsule, the blue cone.")
    assert {(c.subject, c.sign, c.object) for c in claims} == {
        ("green capsule", 1, "red cube"),
        ("blue cone", 1, "green capsule"),
    }
