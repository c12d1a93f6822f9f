"""process_order: families, measured progress, questions that need every frame, no shortcut through the options."""

from __future__ import annotations

import copy
import hashlib
import re
from collections import Counter

import numpy as np
import pytest

from mirforge.errors import InputError, Reject
from mirforge.generators.sequential import paint
from mirforge.generators.sequential.process_order import timeline
from mirforge.generators.sequential.process_order.families import FAMILIES, FRACTIONS, ICE_SIDE, ICE_TOP
from mirforge.generators.sequential.process_order.task import _most_crowded, _paired_states
from mirforge.generators.sequential.process_order.timeline import Ask

from conftest import accepted, ask_only, generate, make_task, record


@pytest.fixture(scope="module")
def task():
    return make_task("process_order")


@pytest.mark.parametrize("name", list(FAMILIES))
def test_each_family_reads_its_cue_back_in_time_order(name):
    """Drawn at every moment of a 10-moment clip and read back (without the video), each family's cue runs one way
    and moves by at least 1.5 times the default minimum gap between neighbouring moments, for several looks."""
    fam = FAMILIES[name]
    for seed in range(4):
        look = fam.look(np.random.default_rng(seed))
        base = fam.backdrop(look)
        values = [fam.measure(fam.draw(base, look, t), base, look).value for t in np.linspace(0, 1, 10)]
        steps = np.diff(values) * (1 if fam.rising else -1) / fam.span(look)
        assert steps.min() > 1.5 * 0.05, (name, seed, [round(v, 1) for v in values])
        assert abs(sum(steps) - 1) < 0.25, (name, seed, sum(steps))


def test_measured_values_follow_the_moments_shown(task):
    """Through the encoded clip: sorting the frames by the measured cue gives the true time order."""
    for index in range(7):
        scene, question, rendered = accepted(task, index, seed=4)
        for c, clip in enumerate(scene.clips):
            values = rendered.measured["values"][4 * c : 4 * c + 4]
            sign = 1 if FAMILIES[clip.family].rising else -1
            by_value = sorted(range(4), key=lambda k: sign * values[k])
            assert [clip.shown[k] for k in by_value] == [0, 1, 2, 3]


def test_families_kinds_and_states(task):
    families, kinds, first_at = Counter(), set(), Counter()
    for i in range(200):
        scene, question = ask_only(task, i, seed=5)
        families[scene.family] += 1
        kinds.add(scene.ask.kind)
        assert len(scene.clips) == (2 if i % 3 == 2 else 1)
        for clip in scene.clips:
            assert list(clip.states) == sorted(set(clip.states))
            assert 0 not in clip.states and scene.n_states - 1 not in clip.states  # never the very start or end
            first_at[clip.shown.index(0)] += 1  # the image that shows the earliest moment
        assert len(set(question.options)) == len(question.options) == 4
    assert set(families) == set(FAMILIES) and min(families.values()) >= 10, families  # each >= 5%
    assert kinds == set(timeline.KINDS)
    # shown in any order, the chronological one too: the earliest moment is in each image about equally often
    assert min(first_at.values()) >= 0.18 * sum(first_at.values()), first_at


def test_family_and_families_restrict_the_draw():
    only = make_task("process_order", family="candle")
    assert {ask_only(only, i, seed=1)[0].family for i in range(12)} == {"candle"}
    two = make_task("process_order", families="ice,house")
    assert {ask_only(two, i, seed=1)[0].family for i in range(24)} == {"ice", "house"}


def test_bad_config_names_the_field():
    with pytest.raises(InputError, match="process_order.family: unknown family 'soup'; families: cooking"):
        make_task("process_order", family="soup")
    with pytest.raises(InputError, match="process_order.families: unknown family"):
        make_task("process_order", families="candle,soup")
    with pytest.raises(InputError, match="process_order.states_per_level"):
        make_task("process_order", states_per_level="8,9,7")
    with pytest.raises(InputError, match="process_order.clips_per_level"):
        make_task("process_order", clips_per_level="1,3,2")
    with pytest.raises(InputError, match="process_order.min_gap"):
        make_task("process_order", min_gap=0.5)
    with pytest.raises(InputError, match="process_order.n_options"):
        make_task("process_order", n_options=3)


def test_every_configuration_needs_every_frame():
    """What ``sample`` draws from: hiding any one frame of the true order leaves at least two options."""
    for kind in ("order", "rank"):
        for n in range(4, 9):
            for _, ask in timeline.configurations(kind, n, 4, True):
                truth = list(range(n))
                for k in truth:
                    assert len(timeline.consistent(ask, [i for i in truth if i != k], [k])) >= 2, (kind, n, ask, k)


def test_consistent_places_a_hidden_frame_anywhere():
    ask = Ask("rank", 2, (3, 1, 4, 2))  # which frame is second? options Image 3, 1, 4, 2
    assert timeline.consistent(ask, [1, 3, 4, 2], []) == {0}
    assert timeline.consistent(ask, [1, 4, 2], [3]) == {0, 1, 2}  # 3 second; 1 second (3 first); 4 second (3 later)
    assert timeline.consistent(ask, [3, 4, 2], [1]) == {0, 1, 2}
    assert timeline.consistent(ask, [1, 3, 4], [2]) == {0, 1, 3}
    order = Ask("order", 0, ((1, 2, 3, 4), (2, 1, 3, 4), (1, 2, 4, 3), (2, 1, 4, 3)))
    assert timeline.consistent(order, [2, 1, 4, 3], []) == {3}
    assert timeline.consistent(order, [1, 4, 3], [2]) == {2, 3}  # 2 before or after 1


def test_hiding_any_image_leaves_two_options_at_levels_2_and_3(task):
    """The pipeline's record: every image needed at levels 2 and 3 (the requirement is on there), eight at level 3."""
    seen = Counter()
    for index in range(1, 19):
        if index % 3 == 0:
            continue
        rec = record(generate(task, index, seed=8))
        assert rec["provenance"]["needed"] == [True] * len(rec["images"]), rec["id"]
        seen[rec["difficulty"]["level"]] += 1
    assert seen == {2: 6, 3: 6}


def test_answer_place_among_the_option_frames_is_uniform(task):
    """The frame questions draw where the answer sits among the option frames in time uniformly, so the options'
    images (a middle frame, a consensus image) do not point at it."""
    places: dict[str, Counter] = {"rank": Counter(), "twin": Counter()}
    crowded: Counter = Counter()
    for i in range(4000):
        try:
            scene = task.sample(np.random.default_rng([12, i]), task.levels[i % 3])
        except Reject:  # the pipeline draws again
            continue
        if scene.ask.kind != "order":  # the answer's chronological position among the four option frames
            places[scene.ask.kind][scene.ask.keys[0]] += 1
        if scene.ask.kind == "rank":  # and the frame a consensus of the option frames settles on, one time in four
            times = [m / (scene.n_states - 1) for m in scene.clips[0].states]
            crowded[scene.ask.keys[0] == _most_crowded(scene.ask.keys, times)] += 1
    assert abs(crowded[True] / sum(crowded.values()) - 0.25) < 0.03, crowded
    for kind, counts in places.items():
        n = sum(counts.values())
        assert n >= 1000 and all(abs(counts[p] / n - 0.25) < 0.03 for p in range(4)), (kind, counts)


def test_order_options_reach_each_other_by_the_same_swaps(task):
    """The four orders form a coset of a group of two disjoint neighbour swaps: every option is one swap from two
    others and two swaps from the third, so none is the centre of the others."""

    def moves(keys, y):
        return sorted(tuple(y.index(z[p]) for p in range(len(y))) for z in keys if z != y)

    n = 0
    for i in range(300):
        scene, q = ask_only(task, i, seed=9)
        if q.facts["kind"] != "order":
            continue
        n += 1
        keys = [tuple(k) for k in q.facts["keys"]]
        assert all(moves(keys, y) == moves(keys, keys[0]) for y in keys)
        assert sorted(sum(a != b for a, b in zip(keys[0], z, strict=True)) for z in keys[1:]) == [2, 2, 4]
    assert n >= 30


@pytest.mark.parametrize("n_states", [7, 9, 11, 12])
def test_an_order_question_shows_two_pairs_of_neighbouring_moments_starting_anywhere(n_states):
    rng = np.random.default_rng(n_states)
    starts = Counter()
    for _ in range(6000):
        a, b, c, d = _paired_states(rng, n_states)
        assert 1 <= a and b == a + 1 and c >= b + 1 and d == c + 1 and d <= n_states - 2
        starts.update([a, c])
    expected = 2 * 6000 / (n_states - 3)
    assert set(starts) == set(range(1, n_states - 2))
    assert all(abs(k - expected) < 0.1 * expected for k in starts.values()), starts


def test_one_frame_hardly_tells_its_place_in_an_order_question(task):
    """The options swap the two earliest frames and the two latest, so a frame alone answers as well as its moment
    says whether it is the first of its pair. Counted over the frames shown (the best one frame can do, chance 25):
    36.7% at 8 moments when the 4 moments were drawn freely; 29.2% at 9 and 28.1% at 11 drawn in pairs."""
    seen: dict[int, Counter] = {1: Counter(), 2: Counter()}
    for i in range(2400):
        if i % 3 == 2:
            continue
        scene, q = ask_only(task, i, seed=4)
        if q.facts["kind"] != "order":
            continue
        for place, moment in enumerate(scene.clips[0].states):
            seen[i % 3 + 1][(moment, place % 2)] += 1
    for level, counts in seen.items():
        moments = {m for m, _ in counts}
        best = sum(max(counts[(m, 0)], counts[(m, 1)]) for m in moments) / sum(counts.values())
        assert sum(counts.values()) >= 1200 and 0.5 * best <= 0.31, (level, 0.5 * best)


def test_verifier_rejects_a_planted_wrong_answer(task):
    for index in range(4):
        scene, question, rendered = accepted(task, index, seed=3)
        wrong = copy.deepcopy(question)
        wrong.answer = (question.answer + 1) % 4
        assert task.verify(wrong, rendered) != wrong.answer
        close = copy.deepcopy(rendered)
        close.measured["values"][1] = close.measured["values"][0] + 0.5 * close.measured["gaps"][0]
        with pytest.raises(Reject):
            task.verify(question, close)


def test_steps_name_no_answer_before_the_reasoning(task):
    """The summary and text2img treat the answer frame like every other frame: the summary names only the anchor,
    text2img lists every frame's box once (and the anchor once more); the letter comes only in the conclusion."""

    for index in range(12):
        rec = record(generate(task, index, seed=6))
        n = len(rec["images"])
        named = Counter(int(m) for m in re.findall(r"Image (\d+)", rec["text2img"]))
        anchor = re.search(r"same moment as Image (\d+)", rec["question"])
        for k in range(1, n + 1):
            assert named[k] == 1 + (anchor is not None and int(anchor.group(1)) == k), (rec["id"], rec["text2img"])
        if "Image" in rec["options"][rec["answer"]] and "->" not in rec["options"][rec["answer"]]:
            assert rec["options"][rec["answer"]] + " " not in rec["summary"] + " "
        for step in ("summary", "text2img", "img2img"):
            assert not re.search(r"answer is [A-D]", rec[step])
        assert rec["conclusion"].endswith(f"Therefore the answer is {rec['answer']}.")
        assert len(rec["caption"]) == n


def test_no_two_instances_share_a_frame(task):
    """Every clip's look is drawn from the instance's rng, so across many instances no frame repeats."""
    owner: dict[str, int] = {}
    for i in range(120):
        scene, _ = ask_only(task, i, seed=1)
        clip = scene.clips[-1]
        fam = FAMILIES[clip.family]
        base = fam.backdrop(clip.look)
        for s in clip.states[:2]:
            frame = fam.draw(base, clip.look, s / (scene.n_states - 1))
            digest = hashlib.sha1(frame.tobytes()).hexdigest()
            assert owner.setdefault(digest, i) == i, f"instances {owner[digest]} and {i} share a frame"


def test_twin_question_matches_places_in_time_not_stages():
    """Level 3: the answer is the option frame in the anchor's place in time; hiding any frame of either clip
    leaves two options; and matching the anchor to the option frame at the nearest stage (or the second nearest,
    ...) finds the answer one time in four, since the two processes are not equally far along."""
    ask = Ask("twin", 6, (2, 1, 3, 4))  # options Image 2, 1, 3, 4; anchor Image 6 of the second clip
    assert timeline.twin_consistent(ask, ([1, 2, 3, 4], [5, 6, 7, 8]), ([], [])) == {0}
    assert timeline.twin_consistent(ask, ([1, 3, 4], [5, 6, 7, 8]), ([2], [])) == {0, 1, 2}
    assert timeline.twin_consistent(ask, ([1, 2, 3, 4], [6, 7, 8]), ([], [5])) == {0, 1}
    assert timeline.twin_consistent(ask, ([1, 2, 3, 4], [5, 7, 8]), ([], [6])) == {0, 1, 2, 3}
    task = make_task("process_order")
    nearness = Counter()
    for i in range(1200):
        try:
            scene = task.sample(np.random.default_rng([i, 3]), 3)
        except Reject:
            continue
        first, second = scene.clips
        anchor = scene.ask.param
        d = [abs(s - second.states[anchor]) for s in first.states]
        nearness[sum(x < d[anchor] for x in d)] += 1
    n = sum(nearness.values())
    assert n > 1150 and all(abs(nearness[k] / n - 0.25) < 0.05 for k in range(4)), nearness


def test_a_rank_summary_names_the_frame_as_the_question_does(task):
    """The question may ask for the frame taken "second to last": the summary must not call it "third"."""
    asked = []
    for index in range(40):
        rec = record(generate(task, index, seed=43043))
        phrase = next((p for p in ("second to last", "third", "second") if p in rec["question"]), None)
        if phrase and "Two videos" not in rec["question"]:
            assert f"frame taken {phrase}" in rec["summary"], (rec["question"], rec["summary"])
            asked.append(phrase)
    assert "second to last" in asked and len(set(asked)) >= 2, asked


def test_a_candle_caption_counts_the_drips_that_show():
    """Two drips a few pixels apart ran together into one, and a pale drip vanished where the body is palest, so a
    caption said '3 drips' where 2 showed. Drawn with and without its drips (below the rim), every drip the caption
    counts changes the candle's side where it runs, and untouched columns part each drip from the next."""

    from mirforge.generators.sequential import paint

    fam = FAMILIES["candle"]
    counts = Counter()
    for seed in range(12):
        look = fam.look(np.random.default_rng(seed))
        base = fam.backdrop(look)
        for t in sorted({k / n for n in (8, 10, 11) for k in range(1, n)}):
            caption = fam.state(look, t)
            many = re.search(r"(\d+) drips", caption)
            said = int(many[1]) if many else 1 if "a drip " in caption else 0
            assert said or "no wax running" in caption, caption
            xs = sorted(look.cx + dx * (look.width / 2 - 4) for dx, start, _ in look.drips if t > start)
            assert len(xs) == said, (seed, t, caption)
            counts[said] += 1
            top = look.base_y - look.height * (1 - fam.BURN * t)
            changed = paint.differs(fam._draw(base, look, t, drips=True), fam._draw(base, look, t, drips=False), 30)
            changed[: int(top + look.width * 0.14) + 2] = False
            for x in xs:
                assert changed[:, int(x) - 6 : int(x) + 7].sum() >= 40, (seed, t, x)
            touched = changed.any(axis=0)
            for a, b in zip(xs, xs[1:], strict=False):
                assert not touched[int(a) + 7 : int(b) - 6].any() and b - a >= 13, (seed, t, a, b)
    assert all(counts[k] >= 5 for k in range(5)), counts


def test_an_ice_caption_tells_of_meltwater_only_where_it_shows():
    """At first each puddle is smaller than the cube that stands in it, which hides it: those frames were captioned
    'sitting in a puddle of meltwater' on a dry plate."""
    from mirforge.generators.sequential import paint

    fam = FAMILIES["ice"]
    dry = wet = 0
    for seed in range(6):
        look = fam.look(np.random.default_rng(seed))
        base = fam.backdrop(look)
        for t in sorted({k / n for n in (8, 10, 11) for k in range(1, n)}):
            caption = fam.state(look, t)
            shown = paint.differs(fam._draw(base, look, t, True), fam._draw(base, look, t, False), 30).sum()
            if "still dry" in caption:
                dry += 1
                assert shown < fam.SEEN * len(look.cubes) and "puddle" not in caption, (seed, t, caption, shown)
            else:
                wet += 1
                assert shown >= fam.SEEN and ("puddle" in caption or "meltwater" in caption), (seed, t, caption)
    assert dry >= 6 and wet >= 6, (dry, wet)


def test_washing_captions_tell_how_much_is_still_wet():
    """A frame 13% wet and one 26% wet were both 'wet over only their hems': the caption says the share of their
    length that is wet, and two moments of a clip never read the same."""
    fam = FAMILIES["laundry"]
    look = fam.look(np.random.default_rng(0))
    assert "the lower eighth of their length" in fam.state(look, 7 / 8)
    assert "the lower quarter of their length" in fam.state(look, 6 / 8)
    assert "about the lower 45% of their length" in fam.state(look, 6 / 11)
    for n in range(7, 13):
        captions = [fam.state(look, k / (n - 1)) for k in range(1, n - 1)]
        assert len(set(captions)) == len(captions), captions
        assert not any("hems" in c for c in captions)


def test_house_steps_say_what_the_frames_show(task):
    """The house has a ladder, not a scaffold; its walls are counted in courses (2 and 4 courses were both 'a few
    courses high'); the summary has one colon to a sentence and tells of a roof only where a frame shows one."""
    fam = FAMILIES["house"]
    look = fam.look(np.random.default_rng(3))
    walls = [k / 10 for k in range(1, 6)]
    captions = [fam.state(look, t) for t in walls + [0.6, 0.7, 0.8, 0.9]]
    assert len(set(captions)) == len(captions) and not any("scaffold" in c for c in captions), captions
    assert all("ladder" in c for c in captions)
    assert "roof" not in fam.reason(look, walls) and "ridge" not in fam.reason(look, walls + [0.9])
    house = make_task("process_order", family="house")
    for index in range(4):
        rec = record(generate(house, index, seed=61616))
        for sentence in rec["summary"].split(". "):
            assert sentence.count(":") <= 1, rec["summary"]
        assert "scaffold" not in " ".join([rec["summary"], *rec["caption"]])


def test_the_readings_a_step_orders_by_read_apart(task):
    """The amounts img2img quotes (and orders the frames by) differ between the frames of a clip, and the ice is
    compared by the area it covers, in the words and in the numbers alike."""
    for name in FAMILIES:
        only = make_task("process_order", family=name)
        for index in range(2):
            scene, question, rendered = accepted(only, index, seed=77)
            facts = only.step_facts(scene, question, rendered)
            for clip in facts["clips"]:
                amounts = [p["amount"] for p in clip["images"]]
                assert len(set(amounts)) == len(amounts), (name, amounts)
    assert "square root" not in FAMILIES["ice"].cue and "area" in FAMILIES["ice"].cue
    assert FAMILIES["ice"].amount(92.2, None).endswith("px²")


def test_house_openings_are_cut_only_into_built_wall():
    """A window or the door is cut into wall already laid: beside an opening, at its top, there is wall, never sky
    (a window stood above the half-laid top course, into the sky)."""
    import cv2

    from mirforge.generators.sequential.process_order.families import HOLE

    fam = FAMILIES["house"]
    checked = 0
    for seed in range(6):
        look = fam.look(np.random.default_rng(seed))
        base = fam.backdrop(look)
        for k in range(1, 40):
            t = k / 100 * 1.2  # walls going up, top courses half laid
            img = fam.draw(base, look, t)
            n, _, stats, _ = cv2.connectedComponentsWithStats(np.all(img == HOLE, axis=2).astype(np.uint8))
            for x, y, w, _h, _area in stats[1:n]:
                for side in (x - 3, x + w + 2):
                    assert np.any(img[y + 3, side] != base[y + 3, side]), (seed, t, x, y, side)
                    checked += 1
    assert checked > 100


def _told_ratio(caption: str) -> float:
    """The size a caption tells beside its yardstick ("about 2.4 times as tall as", "about a third as wide as")."""
    if m := re.search(r"about (\d+\.\d) times as (tall|wide)", caption):
        return float(m[1])
    if re.search(r"about as (tall|wide) as", caption):
        return 1.0
    if m := re.search(r"about (\d+)% as (tall|wide)", caption):
        return int(m[1]) / 100
    return next(v for v, words in FRACTIONS.items() if re.search(rf"about {words} as (tall|wide)", caption))


def test_the_frames_to_order_are_captioned_apart():
    """Frames of one clip were captioned alike (a candle 'with 3 drips of wax' at four moments, ice cubes 'sitting
    in a puddle of meltwater' at two, a stem 'with 2 leaves' at two), so a caption told nothing to order them by:
    in every family the frames to be ordered get captions of their own, from the step facts too."""
    for name in FAMILIES:
        only = make_task("process_order", family=name)
        for index in range(40):
            scene, _ = ask_only(only, index, seed=8)
            for clip in scene.clips:
                fam = FAMILIES[clip.family]
                captions = [fam.state(clip.look, s / (scene.n_states - 1)) for s in clip.states]
                assert len(set(captions)) == len(captions), (name, index, captions)
        scene, question, rendered = accepted(only, 0, seed=8)
        for clip in only.step_facts(scene, question, rendered)["clips"]:
            states = [p["state"] for p in clip["images"]]
            assert len(set(states)) == len(states), (name, states)


def test_candle_ice_and_plant_captions_tell_the_size_drawn():
    """What sets those captions apart is the size the frame shows beside something that does not change: the
    candle's height beside its width, a cube's width beside the plate's, the stem's height beside the pot's."""
    candle, ice, plant = FAMILIES["candle"], FAMILIES["ice"], FAMILIES["plant"]
    for seed in range(4):
        for t in (0.1, 0.3, 0.5, 0.7, 0.9):
            look = candle.look(np.random.default_rng(seed))
            base = candle.backdrop(look)
            drawn = candle.measure(candle.draw(base, look, t), base, look).value / look.width
            assert abs(_told_ratio(candle.state(look, t)) - drawn) < 0.06 * drawn + 0.1, (seed, t, drawn)
            look = ice.look(np.random.default_rng(seed))
            img = ice.draw(ice.backdrop(look), look, t)
            x, y = look.cubes[0]
            r = 0.6 * look.size  # the cube's half width and a little, short of its neighbours
            band = img[int(y - look.size) : int(y + look.size), int(x - r) : int(x + r)]
            cols = np.nonzero((paint.near(band, ICE_TOP, 26) | paint.near(band, ICE_SIDE, 26)).any(axis=0))[0]
            drawn = (cols.max() - cols.min() + 1) / (2 * look.axes[0])
            assert abs(_told_ratio(ice.state(look, t)) - drawn) < 0.1 * drawn + 0.01, (seed, t, drawn)
            look = plant.look(np.random.default_rng(seed))
            if t < plant.BUD:  # the bud and flower top the stem
                base = plant.backdrop(look)
                drawn = plant.measure(plant.draw(base, look, t), base, look).value / look.pot_h
                assert abs(_told_ratio(plant.state(look, t)) - drawn) < 0.1 * drawn + 0.1, (seed, t, drawn)


def test_a_house_roof_rests_on_walls_of_whole_courses():
    """Walls at full height end in a whole course, so the roof rests on them from end to end: the walls were a
    drawn height (122 to 140 px) that left the top course part laid, and a strip of sky showed between the wall's
    right end and the eaves (seed 73201 #149, 6 px)."""
    house = FAMILIES["house"]
    for seed in range(12):
        look = house.look(np.random.default_rng(seed))
        img = house.draw(house.backdrop(look), look, (1 + house.WALLS_DONE) / 2)
        eaves = round(look.ground_y - 6 - look.wall_h)
        wall = img[
            eaves - 2 : look.ground_y - 6, round(look.cx - look.width / 2) + 3 : round(look.cx + look.width / 2) - 3
        ]
        brick = (wall == np.array(look.wall_rgb, np.uint8)).all(axis=2)
        tops = brick.argmax(axis=0)[brick.any(axis=0)] - 2  # the first brick row of each column, from the eaves
        # every column but the top course's mortar joints shows brick right under the eaves
        assert brick.any(axis=0).mean() > 0.9 and (tops <= 3).mean() > 0.75, (seed, look.wall_h, sorted(tops))


def test_cooking_steps_count_the_slices_the_frame_shows():
    """On the board and on the plate the step counts slices, read from the pixels, as the caption counts them; the
    ends of each stage read apart ("in the pan, browned about 0%" was said of a board with every slice cut, and
    "about 0% on the plate" of slices still in the pan)."""
    fam = FAMILIES["cooking"]
    for seed in range(6):
        look = fam.look(np.random.default_rng(seed))
        base = fam.backdrop(look)
        for t in np.linspace(0, 1, 61):
            said = fam.amount(fam.measure(fam.draw(base, look, t), base, look).value, look)
            phase, s = fam._phase(t)
            drawn = round(s * look.slices)
            many = f"all {drawn} slices" if drawn == look.slices else f"{drawn} of the {look.slices} slices"
            if phase == "cut":
                assert said == ("on the board, still whole" if drawn == 0 else f"on the board, {many} cut"), (t, said)
            elif phase == "fry" or drawn == 0:
                assert said.startswith("in the pan, browned about"), (seed, t, said)
            else:
                assert said == f"on the plate, {many}", (seed, t, said)
