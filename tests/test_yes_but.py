"""yes_but: ten promise-versus-reality families, readings measured from the panels, every panel needed, options
that say nothing without both kinds of panel, level knobs, config errors."""

from __future__ import annotations

import re
from collections import Counter

import cv2
import numpy as np
import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.analytical.yes_but.families import (
    FAMILIES,
    FRESH_GOODS,
    GOODS,
    PRODUCTS,
    Pair,
    day_of_year,
)
from mirforge.generators.analytical.yes_but.panels import draw_style
from mirforge.necessity import necessity
from mirforge.templates import render_steps

from conftest import accepted, ask_only, make_task, step_facts

LATER = {"timetable", "sale_price", "fresh_date", "speed_limit"}


@pytest.fixture(scope="module")
def task():
    return make_task("yes_but")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_reads_its_promise_and_reality_from_the_panels(family):
    """Counted items, clock hands, needles, liquid levels, strap ends and circled days are measured from the drawn
    mask, and they give back the scene's promise and reality in every pair."""
    task = make_task("yes_but", family=family)
    for index in (0, 2):  # a level-1 and a level-3 instance: 1 and 3 pairs
        scene, question, rendered = accepted(task, index, seed=11)
        readings = rendered.measured["readings"]
        assert len(rendered.images) == len(readings) == 2 * len(scene.pairs)
        fam = FAMILIES[family]
        for j, pair in enumerate(scene.pairs):
            yes, but = readings[2 * j], readings[2 * j + 1]
            assert (yes["side"], but["side"]) == ("yes", "but")
            assert yes["value"] == pair.promise
            assert but["value"] == (pair.actual % fam.cyclic if fam.cyclic else pair.actual)
            assert fam.gaps[0] <= fam.gap(pair.promise, pair.actual) <= fam.gaps[1]
            if family in LATER:  # later, dearer, past the date, faster: the reality is above the promise
                assert pair.actual > pair.promise
            elif family != "wet_floor":  # fewer, lighter, less, shorter
                assert pair.actual < pair.promise
        assert task.verify(question, rendered) == question.answer


def test_every_panel_is_needed_at_levels_2_and_3(task):
    """Hiding any one panel leaves at least two options consistent; with nothing hidden only the answer is."""
    seen = 0
    for index in range(60):
        if index % 3 == 0:
            continue
        _, question, rendered = accepted(task, index, seed=21)
        assert task.consistent(question, rendered, frozenset()) == {question.answer}
        found = necessity(task, question, rendered)
        assert found is not None and all(found.needed), (index, found)
        assert all(r == "evidence" for r in found.roles)
        seen += 1
    assert seen == 40


def test_the_question_never_states_a_promise(task):
    """No number in the question: the promise is only in the YES panel (a printed label, sign or photo)."""
    for index in range(120):
        _, question = ask_only(task, index, seed=5)
        assert not re.search(r"\d", question.text), question.text


def test_a_plural_product_takes_a_plural_verb():
    from mirforge.generators.analytical.yes_but.families import Pair

    net = FAMILIES["net_weight"]
    assert net.ask(Pair(500, 450, {"kind": "lentils"}), 1).endswith("than their package states do the lentils weigh?")
    assert net.ask(Pair(500, 450, {"kind": "rice"}), 1).endswith("than its package states does the rice weigh?")
    sale = FAMILIES["sale_price"]
    assert "price were the coffee beans charged" in sale.ask(Pair(500, 650, {"good": "COFFEE BEANS"}), 1)
    assert "price was the honey charged" in sale.ask(Pair(500, 650, {"good": "HONEY"}), 1)


def test_families_are_drawn_evenly(task):
    """The family of an index is the task's balanced variant: even over every ten indices of a level."""
    counts = Counter(ask_only(task, i, seed=8)[0].family for i in range(210))
    assert len(counts) == len(FAMILIES) >= 8
    assert set(counts.values()) == {21}, counts


def test_options_are_a_window_whose_answer_rank_is_uniform(task):
    """Options are four consecutive lattice values worded alike; the answer's rank is its slot, so neither the
    wording nor the numbers tell it, and no text heuristic of the audit beats chance."""
    from mirforge.audit import heuristics

    records, ranks = [], Counter()
    for i in range(240):
        scene, q = ask_only(task, i, seed=13)
        values = q.facts["values"]
        step = FAMILIES[scene.family].step
        assert values == sorted(values) and all(b - a == step for a, b in zip(values, values[1:], strict=False))
        assert values[q.answer] == scene.total
        stems = {re.sub(r"[\d.]+", "#", o) for o in q.options}
        assert len(stems) <= 2, q.options  # the same words around a number ("1 cookie", "2 cookies")
        ranks[q.answer] += 1
        records.append(
            {"question": q.text, "options": dict(zip("ABCD", q.options, strict=True)), "answer": "ABCD"[q.answer]}
        )
    assert set(ranks.values()) == {60}
    for name, score in heuristics(records).items():
        assert score <= 35.0, (name, score)  # chance 25


def test_verifier_follows_the_measured_readings(task):
    """Change one measured reading and the verifier's answer moves with it, or it refuses."""
    scene, question, rendered = accepted(task, 0, seed=3)
    fam = FAMILIES[scene.family]
    but = rendered.measured["readings"][1]
    step = fam.step
    but["value"] += step if fam.gap(0, step) < 0 else -step  # one step closer to the promise
    try:
        assert task.verify(question, rendered) == question.answer - 1
    except Reject:
        assert question.answer == 0


def test_level_knobs_are_honoured(task):
    for index, pairs in ((0, 1), (1, 2), (2, 3)):
        scene, question = ask_only(task, index, seed=4)
        assert len(scene.pairs) == pairs == task.knobs(index + 1)["pairs"]
        assert question.text.count("<image>") == 2 * pairs


def test_family_and_families_restrict_the_draw():
    one = make_task("yes_but", family="timetable")
    assert {ask_only(one, i)[0].family for i in range(12)} == {"timetable"}
    two = make_task("yes_but", families="speed_limit,wet_floor")
    assert {ask_only(two, i)[0].family for i in range(24)} == {"speed_limit", "wet_floor"}


def test_bad_config_names_the_field_and_lists_the_families():
    with pytest.raises(InputError, match=r"yes_but\.family: unknown family 'tarot'; families: box_count, "):
        make_task("yes_but", family="tarot")
    with pytest.raises(InputError, match=r"yes_but\.families: unknown family"):
        make_task("yes_but", families="box_count,nope")
    with pytest.raises(InputError, match="yes_but.pairs_per_level"):
        make_task("yes_but", pairs_per_level="1,2,9")


def test_scenes_do_not_share_pictures(task):
    """Styles, places and colours vary per scene: over 60 accepted instances no image is byte-identical to another
    instance's and no two image sets look alike at thumbnail scale (the audit's near-duplicate key)."""
    import hashlib

    from mirforge.audit import thumb_hash

    owners: dict[str, set[int]] = {}
    looks = set()
    for i in range(60):
        _, _, rendered = accepted(task, i, seed=1)
        for image in rendered.images:
            owners.setdefault(hashlib.sha256(image.tobytes()).hexdigest(), set()).add(i)
        looks.add(tuple(sorted(thumb_hash(image) for image in rendered.images)))
    shared = sorted({i for users in owners.values() if len(users) > 1 for i in users})
    assert shared == [], f"{len(shared)} instances share an image, e.g. {shared[:6]}"
    assert len(looks) == 60


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_steps_call_the_gap_what_the_family_makes_it(family):
    """A late bus has a delay and a dear receipt an overcharge, not a shortfall; a speed limit is a limit, not a
    promise; a counted item is "doughnut 1", not "the doughnut 1"."""
    task = make_task("yes_but", family=family)
    fam = FAMILIES[family]
    for index in (0, 1):  # one pair and two
        facts, n_images = step_facts(task, index, seed=11)
        for seed in range(4):  # the templates' phrasings
            steps = render_steps(task, facts, n_images, np.random.default_rng(seed))
            assert fam.gap_noun in steps.summary and fam.gap_noun in steps.conclusion
            assert fam.stated in steps.summary and "promise" not in steps.summary
            text = " ".join([steps.summary, steps.text2img, steps.img2img, steps.conclusion])
            assert "falls short" not in text
            if family in LATER | {"wet_floor"}:
                assert "shortfall" not in text
            assert not re.search(r"\bthe [a-z ]+ \d+ is at", steps.text2img), steps.text2img
            if family in ("box_count", "menu_photo"):
                assert re.search(r"; [a-z ]+ 1 is at", steps.text2img), steps.text2img


def test_a_ferry_floats_on_water_and_a_bus_stands_on_the_ground():
    fam = FAMILIES["timetable"]
    style = draw_style(np.random.default_rng(0))
    look = {"line": 7, "stop": "HARBOUR", "numerals": True, "face": (250, 250, 246), "dx": 0}
    below = {}  # the colour under the vehicle's hull
    for kind in ("ferry", "bus"):
        drawn = fam.but(448, style, Pair(600, 620, {"kind": kind, **look}), "BUT")
        below[kind] = tuple(int(c) for c in drawn.canvas.img[410, 60])
    assert below["ferry"][2] > below["ferry"][0] + 60  # blue water
    assert below["bus"] != below["ferry"]


def test_a_sale_scene_keeps_one_currency_as_its_differences_are_added_up():
    task = make_task("yes_but", families="sale_price")
    for index in range(2, 30, 3):  # level 3: several purchases
        scene, _ = ask_only(task, index, seed=4)
        assert len(scene.pairs) > 1 and len({p.look["currency"] for p in scene.pairs}) == 1


def test_shelf_and_receipt_prices_are_what_each_good_costs():
    """A sale tag and every other receipt line keep to their good's price range: a jar of jam is no 39.99."""
    task = make_task("yes_but", families="sale_price")
    seen = set()
    for index in range(60):
        scene, _ = ask_only(task, index, seed=6)
        for pair in scene.pairs:
            lines = [(pair.look["good"], pair.promise), *pair.look["others"]]
            for good, cents in lines:
                lo, hi = GOODS[good]
                assert 100 * (lo - 1) < cents < 100 * hi, (good, cents)
                seen.add(good)
    assert seen == set(GOODS)


def _printed_good(family: str, pair: Pair) -> str:
    """The name of the good as its YES panel prints it ("COOKIES" for a box of cookies)."""
    if family == "sale_price":
        return pair.look["good"]
    return pair.look["kind"].upper() + ("S" if family == "box_count" else "")


def _with_good(family: str, good: str, seed: int) -> Pair:
    fam = FAMILIES[family]
    rng = np.random.default_rng(seed)
    if family == "sale_price":
        pair = fam.sample(rng, fam.gaps[0], "")
        return Pair(pair.promise, pair.actual, {**pair.look, "good": good})
    return fam.sample(rng, fam.gaps[0], good)


GOOD_FAMILIES = {  # family -> its goods: every one is printed on the package its YES panel draws
    **{f: FAMILIES[f].kinds for f in ("box_count", "menu_photo", "net_weight", "fill_volume", "fits_all")},
    "fresh_date": FAMILIES["fresh_date"].kinds,
    "sale_price": tuple(GOODS),
}


@pytest.mark.parametrize("family", sorted(GOOD_FAMILIES))
def test_every_package_prints_its_own_good_and_no_other(family):
    style = draw_style(np.random.default_rng(0))
    for good in GOOD_FAMILIES[family]:
        pair = _with_good(family, good, seed=1)
        texts = [s for s, _ in FAMILIES[family].yes(448, style, pair, "YES").canvas.texts]
        assert any(_printed_good(family, pair) in s for s in texts), (good, texts)
        for other in GOOD_FAMILIES[family]:
            name = _printed_good(family, _with_good(family, other, seed=1))
            if other != good:
                assert not any(re.search(rf"\b{name}\b", s) for s in texts), (good, other, texts)


def test_a_fresh_good_stands_in_its_own_package():
    """Milk in a carton, yogurt in a pot, bread in a bag, cheese as a block: not all four in a milk carton, and the
    steps name the package the panel draws."""
    from mirforge.generators.analytical.yes_but.families import FRESH_GOODS
    from mirforge.generators.analytical.yes_but.panels import panel

    fam = FAMILIES["fresh_date"]
    style = draw_style(np.random.default_rng(0))
    blank = panel(448, style, "YES", 372).img.astype(int)
    shapes = {}
    for good, (package, _) in FRESH_GOODS.items():
        pair = _with_good("fresh_date", good, seed=2)
        drawn = fam.yes(448, style, replace_look(pair, dx=0), "YES")
        assert drawn.regions[0][0] == f"{good} {package}"
        assert f"a {package} of {good}" in fam.yes_says(pair, drawn.reading)
        shapes[good] = (np.abs(drawn.canvas.img.astype(int) - blank).sum(axis=2) > 0)[:, :300]  # left of the sticker
    goods = list(shapes)
    for i, a in enumerate(goods):
        for b in goods[i + 1 :]:
            assert (shapes[a] != shapes[b]).sum() > 2000, (a, b)  # a different outline, not a recoloured carton


def replace_look(pair: Pair, **look) -> Pair:
    return Pair(pair.promise, pair.actual, {**pair.look, **look})


def test_steps_quote_a_best_before_date_as_the_label_prints_it():
    """A label printed "OCT 22" is quoted "OCT 22" in the steps, not "22 OCT"; the calendar's day in that order."""
    task = make_task("yes_but", family="fresh_date")
    fam = FAMILIES["fresh_date"]
    orders = set()
    for index in range(8):
        scene, question, rendered = accepted(task, index, seed=7)
        facts = task.step_facts(scene, question, rendered)
        facts.update(answer=question.letter, options=question.lettered())
        steps = render_steps(task, facts, len(rendered.images), np.random.default_rng(0))
        for pair in scene.pairs:
            texts = [s for s, _ in fam.yes(task.image_size, scene.style, pair, "YES").canvas.texts]
            (date,) = [s for s in texts if re.fullmatch(r"\d+ [A-Z]{3}|[A-Z]{3} \d+", s)]
            assert date in " ".join(steps.caption) and date in steps.img2img, (date, steps.img2img)
            day_first = date[0].isdigit()
            orders.add(day_first)
            today = re.search(rf"{date}, but Image \d+ shows (\w+ \w+),? \d{{4}}:", steps.img2img).group(1)
            assert today[0].isdigit() == day_first, (date, today)
    assert orders == {True, False}


def _band(img: np.ndarray, box: list[int], pad: int) -> np.ndarray:
    """The pixels of a ring ``pad`` pixels outside ``box`` (two pixels wide)."""
    x0, y0, x1, y1 = box
    outer = img[y0 - pad - 2 : y1 + pad + 2, x0 - pad - 2 : x1 + pad + 2].astype(int)
    keep = np.ones(outer.shape[:2], bool)
    keep[2:-2, 2:-2] = False
    return outer[keep]


@pytest.mark.parametrize("family", sorted(GOOD_FAMILIES))
def test_printed_text_stays_on_its_label(family):
    """Every text on a package (its good, its number at the largest promise, the wording) sits on one colour: the
    label or package under it shows all round it, so no text runs over an edge ("1000 ml" wider than its label)."""
    fam = FAMILIES[family]
    over = set()
    for good in GOOD_FAMILIES[family]:
        for seed in range(6):
            pair = _with_good(family, good, seed)
            pair = Pair(fam.promises[1], pair.actual, pair.look)  # the widest number
            if family == "sale_price":
                pair = Pair(100 * GOODS[good][1] - 1, pair.actual, pair.look)
            style = draw_style(np.random.default_rng(seed))
            drawn = fam.yes(448, style, pair, "YES")
            for text, box in drawn.canvas.texts[1:]:  # the first is the panel's YES badge
                if np.ptp(_band(drawn.canvas.img, box, 1), axis=0).max() > 12:
                    over.add((good, text, style.face))
    assert not over, sorted(over)


def test_a_six_week_month_stays_on_the_calendar_sheet():
    """A 31-day month that starts on a Saturday spans six weeks: its last row of days is printed on the sheet
    (it ran past the sheet's bottom edge, the 31st below the calendar)."""
    fam = FAMILIES["fresh_date"]
    pair = _with_good("fresh_date", "milk", seed=3)
    for first in range(7):
        six_weeks = Pair(pair.promise, day_of_year(0, 20), {**pair.look, "first": first})
        drawn = fam.but(448, draw_style(np.random.default_rng(0)), six_weeks, "BUT")
        (sheet,) = [box for name, box in drawn.regions if name == "calendar"]
        days = [box for text, box in drawn.canvas.texts if text.isdigit()]
        assert len(days) == 31
        assert all(sheet[1] <= b[1] and b[3] <= sheet[3] for b in days), (first, sheet, max(b[3] for b in days))
        assert drawn.reading["value"] == day_of_year(0, 20)


def test_a_calendar_prints_a_year_that_fits_its_weekdays_and_has_no_29_february():
    """A best-before date of 25 FEB and a calendar circling 5 MARCH are 8 days apart only in a year without 29
    February: the calendar prints its year (and the steps quote it), a year whose 1 March falls on the weekday
    column the calendar draws it in."""
    import calendar
    import datetime

    fam = FAMILIES["fresh_date"]
    pair = _with_good("fresh_date", "milk", seed=3)
    for first in range(7):
        march = Pair(day_of_year(1, 25), day_of_year(2, 5), {**pair.look, "first": first})
        drawn = fam.but(448, draw_style(np.random.default_rng(0)), march, "BUT")
        (header,) = [t for t, _ in drawn.canvas.texts if t.startswith("MARCH ")]
        year = int(header.split()[1])
        assert not calendar.isleap(year), header
        boxes = {int(t): box for t, box in drawn.canvas.texts if t.isdigit()}
        columns = [(b[0] + b[2]) / 2 for t, b in drawn.canvas.texts if len(t) == 1 and t in "MTWFS"]  # M T W ... S
        column = min(range(7), key=lambda c: abs(columns[c] - (boxes[1][0] + boxes[1][2]) / 2))
        assert datetime.date(year, 3, 1).weekday() == column, (first, header)
        assert str(year) in fam.but_says(march, drawn.reading)
        assert drawn.reading["value"] - march.promise == 8


def test_a_clock_reading_past_noon_gives_its_24_hour_time_too():
    """The timetable prints 13:20; the dial shows 2:00: the steps say "2:00 (14:00)", not a bare 2:00 that silently
    switches from a 24-hour to a 12-hour clock."""
    from mirforge.generators.analytical.yes_but.families import _on_clock

    assert _on_clock(14 * 60) == "2:00 (14:00)"
    assert _on_clock(9 * 60 + 5) == "9:05"
    assert _on_clock(12 * 60 + 10) == "12:10"
    task = make_task("yes_but", family="timetable")
    afternoon = 0
    for index in range(12):
        facts, n = step_facts(task, index, seed=5)
        steps = render_steps(task, facts, n, np.random.default_rng(0))
        if re.search(r"gives (1[3-9]|2[0-3]):\d\d\b", steps.img2img):  # an afternoon arrival
            afternoon += 1
            assert re.search(r"shows \d+:\d\d \((1[3-9]|2[0-3]):\d\d\)", steps.img2img), steps.img2img
    assert afternoon


# -- every thing stands out from what is behind it; a device keeps its look --------------------------------------
def _lab(img: np.ndarray) -> np.ndarray:
    """An RGB image (or colours, last axis RGB) in CIE Lab, as ``panels.contrast`` measures colours."""
    arr = np.asarray(img, np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(arr, cv2.COLOR_RGB2Lab).reshape(np.shape(img))


def _edge_seen(lab: np.ndarray, body, step: float = 6.0) -> np.ndarray:
    """At points every ``step`` pixels along a drawn thing's outline in a panel (in Lab), whether it shows: whether
    some pixel across the outline (from 5 px inside to 3 px outside) differs by MIN_CONTRAST from the pixel 6 px
    outside, what is behind it. Points where no fill of the thing shows 5 px inside (a later sticker, label or tie
    covers it) or that leave the panel are left out."""
    from mirforge.generators.analytical.yes_but.panels import MIN_CONTRAST

    pts = np.asarray(body.pts, float)
    poly = np.round(pts).astype(np.int32)
    size = lab.shape[0]
    fills = _lab(np.asarray(body.fills, np.uint8)[None])[0]
    seen = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        length = float(np.hypot(*(b - a)))
        if length < 12:
            continue
        u = (b - a) / length
        n = np.array([u[1], -u[0]])
        if cv2.pointPolygonTest(poly, tuple(float(v) for v in (a + b) / 2 + 3 * n), False) > 0:
            n = -n  # the normal points out of the thing
        for s in np.arange(6.0, length - 6.0, step):
            q = np.round((a + u * s)[None] + np.array([*range(-5, 4), 6])[:, None] * n[None]).astype(int)
            if (q < 0).any() or (q >= size).any():
                continue
            across = lab[q[:, 1], q[:, 0]]
            if np.linalg.norm(fills - across[0], axis=1).min() > 6:
                continue
            seen.append(np.linalg.norm(across[:-1] - across[-1], axis=1).max() >= MIN_CONTRAST)
    return np.asarray(seen, bool)


def _hidden_edges(canvas) -> list[tuple[tuple, float]]:
    """The drawn things whose outline fails to show at more than a tenth of its points: (fills, share seen)."""
    bad, lab = [], _lab(canvas.img)
    for body in canvas.bodies:
        seen = _edge_seen(lab, body)
        if len(seen) and seen.mean() < 0.9:
            bad.append((body.fills, round(float(seen.mean()), 2)))
    return bad


PACKAGES = {  # family -> side, and the fill of the package, card, sheet or bottle it stands in the panel
    "box_count": ("yes", lambda lk: lk["box"]),
    "net_weight": ("yes", lambda lk: PRODUCTS[lk["kind"]][0]),
    "fill_volume": ("yes", lambda lk: lk["bottle"]),
    "fits_all": ("yes", lambda lk: lk["card"]),
    "fresh_date": ("yes", lambda lk: FRESH_GOODS[lk["kind"]][1]),
    "sale_price": ("but", lambda lk: (250, 250, 246)),  # the receipt
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_pale_thing_on_a_pale_wall_is_outlined_in_every_theme(family):
    """The worst case, swept: every theme, a flat style (no outlines of its own), every kind of good. Each package,
    bottle, card, receipt, calendar, scale or vehicle stands out from what is behind it all round: at nine in ten
    points of its outline the pixels across it change by at least MIN_CONTRAST (its fill does, or its outline).
    A white milk carton or a pale yogurt pot on a cream wall melted into it."""
    from dataclasses import replace

    from mirforge.generators.analytical.yes_but.panels import THEMES

    fam = FAMILIES[family]
    styles = {}
    for seed in range(400):
        style = draw_style(np.random.default_rng(seed))
        styles.setdefault(style.theme, replace(style, outline=0))
    assert set(styles) == set(THEMES)
    hidden, drawn = [], 0
    for theme, style in styles.items():
        for kind in fam.kinds:
            for seed in range(2):
                pair = fam.sample(np.random.default_rng(seed), fam.gaps[0], kind)
                for side in ("yes", "but"):
                    try:
                        canvas = getattr(fam, side)(448, style, pair, side.upper()).canvas
                    except Reject:
                        continue
                    drawn += len(canvas.bodies)
                    hidden += [(theme, kind, side, *bad) for bad in _hidden_edges(canvas)]
                if family in PACKAGES:
                    side, fill = PACKAGES[family]
                    canvas = getattr(fam, side)(448, style, pair, side.upper()).canvas
                    assert any(tuple(fill(pair.look)) in b.fills for b in canvas.bodies), (theme, kind)
    assert drawn and not hidden, hidden[:8]


def test_every_thing_stands_out_over_a_hundred_instances(task):
    """Over a hundred generated instances (every family, style and level), no drawn thing's outline melts into
    what is behind it, and a thing outlined only for contrast is one whose fill is close to its backdrop."""
    from mirforge.generators.analytical.yes_but.panels import MIN_CONTRAST

    hidden, flat, forced, bodies = [], [], 0, 0
    for index in range(100):
        scene, _, rendered = accepted(task, index, seed=17)
        for j, pair in enumerate(scene.pairs):
            fam = FAMILIES[scene.family]
            for k, side in enumerate(("yes", "but")):
                canvas = getattr(fam, side)(task.image_size, scene.style, pair, "YES").canvas
                assert canvas.img[60:].tobytes() == rendered.images[2 * j + k][60:].tobytes()  # the same panel
                hidden += [(index, scene.family, side, *bad) for bad in _hidden_edges(canvas)]
                bodies += len(canvas.bodies)
                for body in canvas.bodies:
                    if body.contrast < MIN_CONTRAST:
                        forced += not scene.style.outline
                        if not body.outlined:
                            flat.append((index, scene.family, side, body.fills))
    assert not hidden, hidden[:8]
    assert not flat, flat[:8]
    assert bodies > 300 and forced > 10, (bodies, forced)  # flat styles outline their faint things


def _mode(img: np.ndarray, box: list[int]) -> tuple[int, ...]:
    x0, y0, x1, y1 = box
    colors, counts = np.unique(img[y0:y1, x0:x1].reshape(-1, 3), axis=0, return_counts=True)
    return tuple(int(c) for c in colors[counts.argmax()])


DEVICES = {  # family -> the region of its BUT panel that shows the device
    "net_weight": "digital display",  # the kitchen scale's display
    "speed_limit": "speedometer",  # the dial
    "timetable": "clock",  # the clock face
    "fresh_date": "calendar",  # the calendar's paper
}


@pytest.mark.parametrize("family", sorted(DEVICES))
def test_a_device_looks_the_same_in_every_panel_that_shows_it(family):
    """One kitchen scale, one car's speedometer, one wall calendar, one city's stop clocks: where several BUT
    panels of an instance show the device, its colour (the display, the dial, the face, the paper) is one. The
    scale's display was drawn per pair, green in one panel and red in the next."""
    task = make_task("yes_but", family=family)
    several, looks = 0, set()
    for index in range(18):
        if index % 3 == 0:
            continue  # level 1: one pair
        scene, _, rendered = accepted(task, index, seed=9)
        colors = set()
        for j in range(len(scene.pairs)):
            (box,) = [r.box for r in rendered.regions if r.image == 2 * j + 1 and r.name == DEVICES[family]]
            colors.add(_mode(rendered.images[2 * j + 1], box))
        assert len(colors) == 1, (index, colors)
        looks |= colors
        several += 1
    assert several == 12 and len(looks) > 1  # the look is drawn per instance: instances differ


def test_the_speedometer_is_one_dial_on_every_road():
    """The BUT panels of a speed_limit instance differ only by the needle (and the badge): the same dial colour,
    the same top speed and so the same marks."""
    task = make_task("yes_but", family="speed_limit")
    for index in (1, 2, 4, 5, 7, 8):
        scene, _, rendered = accepted(task, index, seed=3)
        buts = [rendered.images[i].astype(int) for i in range(1, len(rendered.images), 2)]
        needles = [
            cv2.dilate((rendered.layers[i].ids == 1).astype(np.uint8), np.ones((17, 17), np.uint8)) > 0
            for i in range(1, len(rendered.images), 2)
        ]
        keep = ~np.logical_or.reduce(needles)
        keep[:60] = False  # the badge: "BUT 1", "BUT 2"
        for img in buts[1:]:
            assert (img[keep] == buts[0][keep]).all(), index


def test_the_calendars_of_an_instance_keep_one_year():
    """Every calendar of an instance is the same wall calendar: a date falls on the same weekday column in each
    (the weekday of the 1st was drawn per month shown, so 1 MAR could be a Monday in one panel and a Friday in the
    next)."""
    task = make_task("yes_but", family="fresh_date")
    for index in range(1, 15):
        if index % 3 == 0:
            continue
        scene, _, rendered = accepted(task, index, seed=2)
        offsets = set()
        for j in range(len(scene.pairs)):
            image = 2 * j + 1
            boxes = {r.name: r.box for r in rendered.regions if r.image == image}
            x0, _, x1, _ = boxes["calendar"]
            cw = (x1 - 1 - x0 - 20) / 7
            cx = (boxes["circled day"][0] + boxes["circled day"][2]) / 2
            col = int((cx - x0 - 10) // cw)
            doy = rendered.measured["readings"][image]["value"]
            offsets.add((col - (doy - 1)) % 7)  # the weekday column of 1 January
        assert len(offsets) == 1, (index, offsets)


@pytest.mark.parametrize("family", sorted(f for f in FAMILIES if FAMILIES[f].shared))
def test_a_scene_draws_each_shared_look_once(family):
    """The look a scene shares (the currency, the scale's display, the jug's marks, the calendar, the dial, the
    stop clocks) is drawn once per instance: every pair of a several-pair scene has the first pair's."""
    task = make_task("yes_but", family=family)
    fam = FAMILIES[family]
    for index in (1, 2, 4, 5):
        scene, _ = ask_only(task, index, seed=12)
        assert len(scene.pairs) > 1
        for key in fam.shared:
            assert len({repr(p.look[key]) for p in scene.pairs}) == 1, (index, key)


# -- what a panel draws is whole inside it, and named as drawn ---------------------------------------------------
def test_every_good_on_the_sale_shelf_stands_whole_in_the_panel():
    """The goods standing on the shelf behind a sale tag end before the panel's right edge: a box cut off by the
    frame does not read as a box. The band just inside the frame above the shelf is bare wall in every layout."""
    from mirforge.generators.analytical.yes_but.panels import panel

    fam = FAMILIES["sale_price"]
    style = draw_style(np.random.default_rng(0))
    wall = panel(448, style, "YES", None).img[120:244, 436:444]
    for dx in range(-24, 25):
        pair = replace_look(_with_good("sale_price", "TEA", seed=1), dx=dx)
        img = fam.yes(448, style, pair, "YES").canvas.img
        assert (img[120:244, 436:444] == wall).all(), dx


def test_a_vehicle_at_the_stop_stands_whole_in_the_panel_and_a_bus_on_its_wheels():
    """The bus, tram or ferry under the stop clock lies inside the panel (it was cut by the left edge, a red box
    with no wheels that did not read as a bus), and a bus or a tram shows two wheels on the ground."""
    from mirforge.generators.analytical.yes_but.families import GROUND, WHEEL

    fam = FAMILIES["timetable"]
    style = draw_style(np.random.default_rng(0))
    look = {"line": 7, "stop": "HARBOUR", "numerals": True, "face": (250, 250, 246)}
    for kind in fam.kinds:
        for dx in range(-24, 25, 4):
            canvas = fam.but(448, style, Pair(600, 620, {"kind": kind, **look, "dx": dx}), "BUT").canvas
            for body in canvas.bodies:
                xs, ys = zip(*body.pts, strict=True)
                assert min(xs) >= 4 and max(xs) <= 444 and min(ys) >= 4, (kind, dx, body.fills)
            wheels = [b for b in canvas.bodies if WHEEL in b.fills]
            assert len(wheels) == (0 if kind == "ferry" else 2), (kind, dx)
            for wheel in wheels:
                assert max(y for _, y in wheel.pts) == pytest.approx(GROUND, abs=2)  # on the ground


def test_the_timetable_sign_and_the_words_agree_on_arrival():
    """The question asks how late the vehicle arrives, so the sign gives its next arrival and the steps quote it
    as such: a sign that read NEXT DEPARTURE answered another question."""
    task = make_task("yes_but", family="timetable")
    fam = FAMILIES["timetable"]
    for index in range(6):
        scene, question, rendered = accepted(task, index, seed=3)
        facts, n = step_facts(task, index, seed=3)
        steps = render_steps(task, facts, n, np.random.default_rng(0))
        words = " ".join([question.text, *facts["captions"], steps.img2img, steps.conclusion]).lower()
        assert "arriv" in question.text and "depart" not in words, words
        texts = [s for s, _ in fam.yes(448, scene.style, scene.pairs[0], "YES").canvas.texts]
        assert "NEXT ARRIVAL" in texts and not any("DEPART" in s for s in texts), texts
