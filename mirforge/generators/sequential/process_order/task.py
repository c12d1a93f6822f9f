"""process_order: shuffled frames of filmed processes; which order is chronological, which frame was taken k-th,
which frame of one process was taken at the same moment as a frame of another?

MIR's "cooking process" asks for the order of the steps of a procedure. Here the processes are everyday ones whose
state shows in several cues at once (:mod:`.families`): vegetables sliced, fried and served; a plant growing in a
pot; ice melting on a plate; a house being built; washing drying on a line; a fence being painted; a candle burning
down. Each is drawn in its own room or garden and filmed to an H.264 mp4 (every moment of the process in turn);
frames are extracted at chosen moments and shown shuffled. Neither the first nor the last moment of the clip is
ever shown, so no frame is known to be the earliest or the latest by itself.

The questions (:mod:`.timeline`) are asked so that every image is needed: hiding any one frame (it could then sit
anywhere in time) leaves at least two options possible. Levels 1 and 2 show four frames of one clip (level 2 from
more, closer moments) and ask for their ``order`` (four orders that reach each other by the same swaps of
neighbouring frames, the frames shown in two pairs of neighbouring moments so that no frame's look says where it
stands in its pair) or for the frame taken k-th (``rank``); level 3 shows four frames each of two processes filmed
at the same moments and asks which frame of the first matches a frame of the second (``twin``): each set must be
put in time order, since the two processes are not equally far along. Every frame of the options' clip is an
option and the answer's place in time is uniform, so neither the options' text nor their images single it out.

The verifier reads one cue per frame from the decoded pixels (the candle's height, the share of the fence painted,
the stage of the cooking, ...), sorts the frames by it in the direction the process runs, and re-derives the answer;
two frames closer than ``min_gap`` (a share of the whole process) reject the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.sequential.clips import ClipConfig, Filming, image_list
from mirforge.generators.sequential.process_order import timeline
from mirforge.generators.sequential.process_order.families import FAMILIES
from mirforge.generators.sequential.process_order.timeline import Ask
from mirforge.task import Needs, Question, Region, Rendered, Task, check_families, ensure, per_level, place

# Every frame is an option (or, in a twin question, the anchor or part of the anchor's clip): a frame that is none
# of these forces the answer's neighbours in time into the options (hiding it shifts the answer by one place), so
# the answer is never the earliest or the latest frame shown, and one frame's look (how far along the process it
# is) then tells the answer apart (measured: 33% at five frames, chance 25%; the option frames' consensus: 42% at
# six). Level 3 reaches more frames with a second clip instead.
CLIP_KINDS = {1: ("order", "rank"), 2: ("twin",)}
FRAMES = 4  # frames per clip: every frame of the options' clip is an option
WINDOW = 6  # a twin clip shows 4 of 6 neighbouring moments, placed anywhere in its process
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass
class ProcessOrderConfig(ClipConfig):
    families: tuple[str, ...] = tuple(FAMILIES)  # the processes drawn from, equally often
    family: str = ""  # one process only (empty: every family in ``families``)
    clips_per_level: tuple[int, ...] = per_level(1, 1, 2)  # 2: two processes filmed at the same moments
    states_per_level: tuple[int, ...] = per_level(9, 11, 11)  # moments a clip moves through, ends included
    min_gap: float = 0.05  # smallest measured change between two frames, as a share of the whole process

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(all(c in CLIP_KINDS for c in self.clips_per_level), "clips_per_level", "each must be 1 or 2")
        ensure(
            all(
                (FRAMES + 3 if c == 1 else WINDOW + 2) <= s <= 12
                for c, s in zip(self.clips_per_level, self.states_per_level, strict=True)
            ),
            "states_per_level",
            f"each must be at most 12 and leave room for the frames shown between the first and last moments "
            f"(which are never shown): at least {FRAMES + 3} for one clip (two pairs of neighbouring moments, "
            f"apart), {WINDOW + 2} for two",
        )
        ensure(0.01 <= self.min_gap <= 0.08, "min_gap", "must be between 0.01 and 0.08 (a share of the process)")
        ensure(self.n_options == FRAMES, "n_options", f"must be {FRAMES} (every frame of a clip is an option)")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Clip:
    family: str
    look: Any  # the family's look: a frozen dataclass of plain values
    states: tuple[int, ...]  # the moments shown, in time order (moment s is at t = s / (n_states - 1))
    shown: tuple[int, ...]  # the clip's k-th image shows its chronological position shown[k]


@dataclass(frozen=True)
class Scene:
    clips: tuple[Clip, ...]  # one clip, or two filmed at the same moments (the options' clip first)
    n_states: int
    ask: Ask  # the question in chronological positions (the answer is ask.keys[0])

    @property
    def family(self) -> str:
        return self.clips[0].family

    def image_of(self, clip: int, position: int) -> int:
        """The image number (from 1) that shows a clip's chronological ``position``."""
        return 1 + FRAMES * clip + self.clips[clip].shown.index(position)


class ProcessOrder(Filming, Task):
    name = "process_order"
    category = "sequential"
    description = "Order the shuffled frames of filmed everyday processes; which frame was taken k-th, or when"
    Config = ProcessOrderConfig
    needs = Needs(renderer=None, cost=0.6)

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        clips = self.config.clips_per_level[i]
        return {
            "families": list(self.config.chosen()),
            "clips": clips,
            "n_images": FRAMES * clips,
            "n_states": self.config.states_per_level[i],
            "kinds": list(CLIP_KINDS[clips]),
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        out = {"family": scene.family, "kind": scene.ask.kind}
        if len(scene.clips) > 1:
            out["second_family"] = scene.clips[1].family
        return out

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n_states = k["n_states"]
        names = self.config.chosen()
        first = names[int(rng.integers(len(names)))]
        if k["clips"] == 1:
            kind = "order" if rng.random() < 0.5 else "rank"
            if kind == "order":
                states = _paired_states(rng, n_states)
            else:
                states = tuple(sorted(int(s) for s in rng.choice(np.arange(1, n_states - 1), FRAMES, replace=False)))
            ask = self._draw_ask(rng, level, kind, [s / (n_states - 1) for s in states])
            return Scene((self._clip(rng, first, states),), n_states, ask)
        # two processes filmed at the same moments; each started at its own time and runs at its own pace, so
        # each clip shows 4 of 6 neighbouring moments of its own process, placed anywhere in it. Matching the anchor
        # by stage (the option frame as far along as the anchor, the second nearest, ...) must say nothing: the
        # answer's rank among the option frames by nearness of stage to the anchor is uniform (the farthest is
        # always the earliest or latest option, so it is drawn for half of those anchors), and the second clip's
        # moments are drawn among those that give it
        others = [n for n in names if n != first] or [first]
        second = others[int(rng.integers(len(others)))]
        anchor = int(rng.integers(FRAMES))  # the anchor's place in time, so also the answer's: uniform
        end = anchor in (0, FRAMES - 1)
        nearness = FRAMES - 1 if end and rng.random() < 0.5 else int(rng.integers(FRAMES - 1))
        for _ in range(20):
            firsts = _window_states(rng, n_states)
            choices = sorted(
                {
                    states
                    for start in range(1, n_states - WINDOW)
                    for states in combinations(range(start, start + WINDOW), FRAMES)
                    if _nearness(firsts, states[anchor], anchor) == nearness
                }
            )
            if choices:
                seconds = choices[int(rng.integers(len(choices)))]
                clips = (self._clip(rng, first, firsts), self._clip(rng, second, seconds))
                keys = (anchor, *(p for p in range(FRAMES) if p != anchor))
                return Scene(clips, n_states, Ask("twin", anchor, keys))
        raise Reject("no second clip puts the answer at the drawn nearness of stage")

    def _clip(self, rng: np.random.Generator, family: str, states: tuple[int, ...]) -> Clip:
        # any order, the chronological one too: ruling it out made 'Image 1' the answer to 'which came first' 18% of
        # the time instead of 25%, which one frame alone or the option texts could learn
        shown = tuple(int(v) for v in rng.permutation(FRAMES))
        return Clip(family, FAMILIES[family].look(rng), states, shown)

    def _draw_ask(self, rng: np.random.Generator, level: int, kind: str, times: list[float]) -> Ask:
        """An ``order`` or ``rank`` question in chronological positions that needs every frame (``times``: the
        moment each position shows). A rank question must not give the answer away through its images: the answer
        is the option frame that sits most crowded in time among the option frames (where the option images'
        consensus points) exactly one time in ``n_options``, and its place in time is drawn uniformly."""
        need = self.requires_needed(level)
        n, n_opt = len(times), self.config.n_options
        if kind == "order":
            found = timeline.configurations("order", n, n_opt, need)
            return found[int(rng.integers(len(found)))][1]
        pool = timeline.configurations("rank", n, n_opt, need)
        hit = rng.random() < 1 / n_opt
        pool = tuple(c for c in pool if (c[1].keys[0] == _most_crowded(c[1].keys, times)) == hit) or pool
        ranks = sorted({rank for rank, _ in pool})
        rank = ranks[int(rng.integers(len(ranks)))]
        asks = [a for r, a in pool if r == rank]
        return asks[int(rng.integers(len(asks)))]

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        n = FRAMES * len(scene.clips)
        first = scene.clips[0]
        fam = FAMILIES[first.family]
        pos = scene.ask
        distractors = [pos.keys[1 + int(i)] for i in rng.permutation(len(pos.keys) - 1)]
        slots = ", ".join(["<image>"] * FRAMES)
        asked = ""  # the rank question's place in time, as it says it ("second to last")
        if pos.kind == "twin":
            other = FAMILIES[scene.clips[1].family]
            keys: list[Any] = [scene.image_of(0, p) for p in place(pos.keys[0], distractors, slot)]
            options = [f"Image {i}" for i in keys]
            param = scene.image_of(1, pos.param)
            text = (
                f"Two videos were filmed at the same four moments, one of {fam.title(first.look)} and one of "
                f"{other.title(scene.clips[1].look)}. The frames {slots} come from the first video and the frames "
                f"{slots} from the second, each set in a random order. The two processes started at different times "
                "and run at different speeds, so they need not be equally far along. Which frame of the first video "
                f"was taken at the same moment as Image {param}?"
            )
        else:
            intro = (
                f"The frames {slots} were taken from a video of {fam.title(first.look)}, and are shown in a random "
                "order."
            )
            if pos.kind == "order":
                keys = [tuple(scene.image_of(0, p) for p in key) for key in place(pos.keys[0], distractors, slot)]
                options = [" -> ".join(f"Image {i}" for i in key) for key in keys]
                text = f"{intro} Which order of the frames is chronological (earliest first)?"
                param = 0
            else:
                keys = [scene.image_of(0, p) for p in place(pos.keys[0], distractors, slot)]
                options = [f"Image {i}" for i in keys]
                param = pos.param
                ask, asked = _rank_question(pos.param, n, int(rng.integers(2)))
                text = f"{intro} {ask}"
        facts = {
            "kind": pos.kind,
            "param": param,
            "asked": asked,
            "keys": [list(key) if isinstance(key, tuple) else key for key in keys],
            "rising": [FAMILIES[c.family].rising for c in scene.clips],
        }
        question = Question(text=text, options=options, answer=slot, facts=facts)
        truth = [[scene.image_of(c, p) for p in range(FRAMES)] for c in range(len(scene.clips))]
        assert _answers(question, truth, [[], []]) == {slot}
        return question

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        images, readings, gaps = [], [], []
        last = scene.n_states - 1
        for clip in scene.clips:
            fam = FAMILIES[clip.family]
            base = fam.backdrop(clip.look)
            # the clip moves through every moment of the process in turn; the frames shown are some of them
            decoded = self.shoot(
                lambda j, fam=fam, base=base, look=clip.look: fam.draw(base, look, j / last),
                scene.n_states,
                list(clip.states),
            )
            shown = [decoded[c] for c in clip.shown]
            images += shown
            readings += [(fam, fam.measure(img, base, clip.look)) for img in shown]
            gaps.append(round(self.config.min_gap * fam.span(clip.look), 2))
        return Rendered(
            images=images,
            measured={
                "values": [round(r.value, 2) for _, r in readings],
                "boxes": [r.box for _, r in readings],
                "gaps": gaps,
            },
            regions=[Region(k, fam.subject, r.box) for k, (fam, r) in enumerate(readings)],
            videos=self.videos(),
        )

    def _time_orders(
        self, question: Question, rendered: Rendered, hidden: frozenset[int] = frozenset()
    ) -> list[list[int]]:
        """Each clip's visible images (numbers from 1) in time order, by the measured cue."""
        values = rendered.measured["values"]
        orders = []
        for c, rising in enumerate(question.facts["rising"]):
            sign = 1 if rising else -1
            ks = [k for k in range(FRAMES * c, FRAMES * (c + 1)) if k not in hidden]
            orders.append([k + 1 for k in sorted(ks, key=lambda k: sign * values[k])])
        return orders

    def verify(self, question: Question, rendered: Rendered) -> int:
        values = rendered.measured["values"]
        orders = self._time_orders(question, rendered)
        for order, gap in zip(orders, rendered.measured["gaps"], strict=True):
            if min(abs(values[b - 1] - values[a - 1]) for a, b in zip(order, order[1:], strict=False)) < gap:
                raise Reject("two frames show nearly the same moment of the process")
        right = _answers(question, orders, [[], []])
        if len(right) != 1:
            raise Reject("the measured order does not give exactly one option")
        return right.pop()

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Hidden frames may sit anywhere in time; the visible ones keep their measured order."""
        orders = self._time_orders(question, rendered, hidden)
        gone = [[k + 1 for k in sorted(hidden) if k // FRAMES == c] for c in range(2)]
        return _answers(question, orders, gone)

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        values = rendered.measured["values"]
        boxes = rendered.measured["boxes"]
        orders = self._time_orders(question, rendered)
        clips = []
        for c, clip in enumerate(scene.clips):
            fam = FAMILIES[clip.family]
            per_image = []
            for j in range(FRAMES):
                k = FRAMES * c + j
                t = clip.states[clip.shown[j]] / (scene.n_states - 1)
                per_image.append(
                    {
                        "image": k + 1,
                        "subject": fam.subject,
                        "state": fam.state(clip.look, t),
                        "amount": fam.amount(values[k], clip.look),
                        "box": boxes[k],
                    }
                )
            clips.append(
                {
                    "process": fam.title(clip.look),
                    "subject": fam.subject,
                    "cue": fam.cue,
                    "why": fam.reason(clip.look, [s / (scene.n_states - 1) for s in clip.states]),
                    "rising": fam.rising,
                    "runs": fam.runs,
                    "images": per_image,
                    "chrono": [per_image[i - 1 - FRAMES * c] for i in orders[c]],
                    "chrono_text": image_list(orders[c]),
                    "first_image": FRAMES * c + 1,
                    "last_image": FRAMES * c + FRAMES,
                }
            )
        f = question.facts
        place_of_anchor = orders[1].index(f["param"]) + 1 if f["kind"] == "twin" else f["param"]
        return {
            **clips[0],
            "clips": clips,
            "kind": f["kind"],
            "param": f["param"],
            "ordinal": f["asked"] or (_ordinal(place_of_anchor, FRAMES) if f["kind"] == "twin" else ""),
            "images": [p for clip in clips for p in clip["images"]],
            "n_images": FRAMES * len(clips),
            "found": _found(question, orders),
        }


def _paired_states(rng: np.random.Generator, n_states: int) -> tuple[int, ...]:
    """The moments of an order question: two pairs of neighbouring moments, apart, each pair starting anywhere
    between the first and last moments of the clip with the same chance.

    The options swap the two earliest frames and the two latest (``timeline.order_options``), so what decides is
    which frame of each pair comes first, and one frame's look (how far along the process it is) must not tell:
    with 4 moments drawn freely among the clip's inner ones, a frame at the earliest inner moment is always the
    first of its pair, and one frame alone answered 36.7% of the time at 8 moments (best possible, chance 25). With
    neighbouring pairs whose starts are uniform, a frame at moment s is the first of its pair exactly as often as
    the second, but at the two ends: the best one frame can do is 25% + 25% / (number of starts), 29.2% at 9
    moments, 28.1% at 11. The second start is the first plus an offset (mod the number of starts) drawn so the
    pairs do not overlap: both starts are uniform."""
    starts = n_states - 3  # a pair (s, s + 1) of inner moments starts at 1 .. n_states - 3
    first = int(rng.integers(starts))
    second = (first + int(rng.integers(2, starts - 1))) % starts
    a, c = sorted((first + 1, second + 1))
    return (a, a + 1, c, c + 1)


def _window_states(rng: np.random.Generator, n_states: int) -> tuple[int, ...]:
    """4 of ``WINDOW`` neighbouring moments, the window anywhere between the first and last moments of the clip."""
    start = int(rng.integers(1, n_states - WINDOW))
    return tuple(sorted(int(s) for s in rng.choice(np.arange(start, start + WINDOW), size=FRAMES, replace=False)))


def _nearness(states: tuple[int, ...], moment: int, place: int) -> int | None:
    """How many of ``states`` are nearer to ``moment`` than the one at ``place`` (None on a tie with it): the
    answer's rank for whoever matches the anchor by how far along it looks."""
    d = [abs(s - moment) for s in states]
    if any(d[p] == d[place] for p in range(len(states)) if p != place):
        return None
    return sum(d[p] < d[place] for p in range(len(states)))


def _most_crowded(keys: tuple[int, ...], times: list[float]) -> int:
    """The option frame (a chronological position) that sits most crowded in time among ``keys``; a tie goes to the
    earlier frame, whichever frame the question is about. (Taken in the order of the keys, the asked frame first,
    every tied frame counted as the crowded one when asked about, so evenly spaced moments sent the answer to the
    earliest or latest frame 57% of the time, which one option image's look can learn.)"""
    ordered = sorted(keys)
    return ordered[_crowded([times[p] for p in ordered])]


def _crowded(times: list[float]) -> int:
    """The index of the moment with the most others close by (least summed square-root distance in time): the frame
    a consensus of frames, which sees near frames as alike and far ones as merely different, settles on."""
    return min(range(len(times)), key=lambda i: sum(abs(times[i] - t) ** 0.5 for t in times))


def _ask_of(question: Question) -> Ask:
    f = question.facts
    keys = tuple(tuple(k) if isinstance(k, list) else k for k in f["keys"])
    return Ask(f["kind"], f["param"], keys)


def _answers(question: Question, orders: list[list[int]], hidden: list[list[int]]) -> set[int]:
    """The options right for the clips' visible images in time order, the ``hidden`` ones anywhere."""
    ask = _ask_of(question)
    if ask.kind == "twin":
        return timeline.twin_consistent(ask, (orders[0], orders[1]), (hidden[0], hidden[1]))
    return timeline.consistent(ask, orders[0], hidden[0])


def _found(question: Question, orders: list[list[int]]) -> str:
    """The conclusion's last link: which frame (or order) the time order gives."""
    f = question.facts
    if f["kind"] == "twin":
        place = orders[1].index(f["param"])
        return (
            f"Image {f['param']} is the {_ordinal(place + 1, FRAMES)} frame of the second video, and the "
            f"{_ordinal(place + 1, FRAMES)} frame of the first video is Image {orders[0][place]}."
        )
    want = timeline.wanted(_ask_of(question), orders[0])
    if f["kind"] == "order":
        return (
            f"The options list the frames in orders; the one that matches is {' -> '.join(f'Image {i}' for i in want)}."
        )
    return f"The {_ordinal(f['param'], FRAMES)} frame in time is Image {want}."


def _ordinal(rank: int, n: int) -> str:
    if rank == n:
        return "last"
    return ORDINALS[rank - 1]


def _rank_question(rank: int, n: int, wording: int) -> tuple[str, str]:
    """The question for the frame taken ``rank``-th of ``n``, and that place as the question puts it."""
    if rank == 1:
        return ("Which frame was taken first?", "Which frame shows the earliest moment of the process?")[
            wording
        ], "first"
    if rank == n:
        return ("Which frame was taken last?", "Which frame shows the latest moment of the process?")[wording], "last"
    if rank == n - 1 and wording:
        return "Which frame was taken second to last?", "second to last"
    ordinal = ORDINALS[rank - 1]
    return (
        f"Counting from the earliest, which frame was taken {ordinal}?",
        f"If the frames are put in time order, which one comes {ordinal}?",
    )[wording], ordinal
