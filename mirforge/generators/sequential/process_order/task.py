"""process_order: shuffled frames of a filmed process; which order is chronological, which frame comes k-th, which
comes right after (or before, or two places after) a given frame?

MIR's "cooking process" asks for the order of the steps of a procedure. Here the processes are everyday ones whose
state shows in several cues at once (:mod:`.families`): vegetables sliced, fried and served; a plant growing in a
pot; ice melting on a plate; a house being built; washing drying on a line; a fence being painted; a candle burning
down. Each is drawn in its own room or garden and filmed to an H.264 mp4 (every moment of the process in turn);
frames are extracted at chosen moments and shown shuffled. Neither the first nor the last moment of the clip is
ever shown, so no frame is known to be the earliest or the latest by itself.

The questions (:mod:`.timeline`) are asked so that every image is needed: hiding any one frame (it could then sit
anywhere in time) leaves at least two options possible. ``order`` questions have four orders that reach each other
by the same swaps of neighbouring frames; the frame questions draw the answer's place among the option frames in
time uniformly, so neither the options' text nor their images single it out.

The verifier reads one cue per frame from the decoded pixels (the candle's height, the share of the fence painted,
the stage of the cooking, ...), sorts the frames by it in the direction the process runs, and re-derives the answer;
two frames closer than ``min_gap`` (a share of the whole process) reject the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.sequential.clips import ClipConfig, Filming, image_list
from mirforge.generators.sequential.process_order import timeline
from mirforge.generators.sequential.process_order.families import FAMILIES
from mirforge.generators.sequential.process_order.timeline import Ask
from mirforge.task import Needs, Question, Region, Rendered, Task, ensure, per_level, place

LEVEL_KINDS = (("order", "rank"), ("rank", "next", "before"), ("rank", "after2", "before2"))
WHERE = {"next": "right after", "before": "right before", "after2": "two places after", "before2": "two places before"}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@dataclass
class ProcessOrderConfig(ClipConfig):
    families: tuple[str, ...] = tuple(FAMILIES)  # the processes drawn from, equally often
    family: str = ""  # one process only (empty: every family in ``families``)
    images_per_level: tuple[int, ...] = per_level(4, 5, 6)
    states_per_level: tuple[int, ...] = per_level(8, 9, 10)  # moments the clip moves through, ends included
    min_gap: float = 0.05  # smallest measured change between two frames, as a share of the whole process

    def validate(self) -> None:
        super().validate()
        known = ", ".join(FAMILIES)
        ensure(len(self.families) > 0, "families", f"name at least one family: {known}")
        for name in self.families:
            ensure(name in FAMILIES, "families", f"unknown family {name!r}; families: {known}")
        ensure(
            self.family == "" or self.family in FAMILIES, "family", f"unknown family {self.family!r}; families: {known}"
        )
        ensure(all(4 <= n <= 8 for n in self.images_per_level), "images_per_level", "each count must be 4 to 8")
        ensure(
            all(n + 2 <= s <= 12 for n, s in zip(self.images_per_level, self.states_per_level, strict=True)),
            "states_per_level",
            "each must be at least the level's images + 2 (the first and last moments are never shown) and at most 12",
        )
        ensure(0.01 <= self.min_gap <= 0.08, "min_gap", "must be between 0.01 and 0.08 (a share of the process)")
        ensure(self.n_options == 4, "n_options", "must be 4 (order questions offer four orders)")
        for level, (n, kinds) in enumerate(zip(self.images_per_level, LEVEL_KINDS, strict=True), start=1):
            need = level > 1 if not self.require_needed else self.require_needed[level - 1]
            for kind in kinds:
                ensure(
                    bool(timeline.configurations(kind, n, self.n_options, need)),
                    "images_per_level",
                    f"level {level} asks {kind!r} questions, which cannot need every one of {n} images",
                )

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    family: str
    look: Any  # the family's look: a frozen dataclass of plain values
    n_states: int
    states: tuple[int, ...]  # the moments shown, in time order (moment s is at t = s / (n_states - 1))
    shown: tuple[int, ...]  # image k shows the chronological position shown[k]
    ask: Ask  # the question in chronological positions (the answer is ask.keys[0])


class ProcessOrder(Filming, Task):
    name = "process_order"
    category = "sequential"
    description = (
        "Order the shuffled frames of a filmed everyday process, or find the frame k-th, after or before another"
    )
    Config = ProcessOrderConfig
    needs = Needs(renderer=None, cost=0.5)

    def knobs(self, level: int) -> dict[str, Any]:
        i = self.levels.index(level)
        return {
            "families": list(self.config.chosen()),
            "n_images": self.config.images_per_level[i],
            "n_states": self.config.states_per_level[i],
            "kinds": list(LEVEL_KINDS[i]),
        }

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family, "kind": scene.ask.kind}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        n, n_states = k["n_images"], k["n_states"]
        names = self.config.chosen()
        family = FAMILIES[names[int(rng.integers(len(names)))]]
        ask = self._draw_ask(rng, level, n)
        inner = rng.choice(np.arange(1, n_states - 1), size=n, replace=False)
        states = tuple(sorted(int(s) for s in inner))
        shown = tuple(int(v) for v in rng.permutation(n))
        if shown == tuple(range(n)):
            shown = (*shown[1:], shown[0])
        return Scene(family.name, family.look(rng), n_states, states, shown, ask)

    def _draw_ask(self, rng: np.random.Generator, level: int, n: int) -> Ask:
        """A question in chronological positions that needs every frame. ``order`` is drawn as often as each other
        kind; for the frame kinds the answer's place among the option frames in time is drawn uniformly first, so
        it says nothing about the answer."""
        kinds = LEVEL_KINDS[self.levels.index(level)]
        need = self.requires_needed(level)
        if "order" in kinds and rng.random() < 1 / len(kinds):
            found = timeline.configurations("order", n, self.config.n_options, need)
            return found[int(rng.integers(len(found)))][1]
        pools = {
            kind: timeline.configurations(kind, n, self.config.n_options, need) for kind in kinds if kind != "order"
        }
        ranks = sorted({r for found in pools.values() for r, _ in found})
        rank = ranks[int(rng.integers(len(ranks)))]
        having = [kind for kind, found in pools.items() if any(r == rank for r, _ in found)]
        kind = having[int(rng.integers(len(having)))]
        asks = [a for r, a in pools[kind] if r == rank]
        return asks[int(rng.integers(len(asks)))]

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        n = len(scene.states)
        image_of = [1 + scene.shown.index(c) for c in range(n)]  # chronological position -> image number
        fam = FAMILIES[scene.family]
        slots = ", ".join(["<image>"] * n)
        intro = (
            f"The frames {slots} were taken from a video of {fam.title(scene.look)}, and are shown in a random order."
        )
        pos = scene.ask
        distractors = [pos.keys[1 + int(i)] for i in rng.permutation(len(pos.keys) - 1)]
        if pos.kind == "order":
            keys: list[Any] = [tuple(image_of[p] for p in key) for key in place(pos.keys[0], distractors, slot)]
            options = [" -> ".join(f"Image {i}" for i in key) for key in keys]
            text = "Which order of the frames is chronological (earliest first)?"
            param = 0
        else:
            keys = [image_of[p] for p in place(pos.keys[0], distractors, slot)]
            options = [f"Image {i}" for i in keys]
            if pos.kind == "rank":
                param = pos.param
                text = _rank_question(pos.param, n)
            else:
                param = image_of[pos.param]
                text = _anchor_question(pos.kind, param)
        ask = Ask(pos.kind, param, tuple(keys))
        facts = {
            "kind": pos.kind,
            "param": param,
            "keys": [list(key) if isinstance(key, tuple) else key for key in keys],
            "rising": fam.rising,
        }
        assert timeline.answers(ask, [image_of[p] for p in range(n)]) == {slot}
        return Question(text=f"{intro} {text}", options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        self._start_filming()
        fam = FAMILIES[scene.family]
        base = fam.backdrop(scene.look)
        # the clip moves through every moment of the process in turn; the frames shown are some of them
        last = scene.n_states - 1
        frames = [fam.draw(base, scene.look, j / last) for j in range(scene.n_states)]
        decoded = self.shoot(frames, list(scene.states))
        images = [decoded[c] for c in scene.shown]
        readings = [fam.measure(img, base, scene.look) for img in images]
        return Rendered(
            images=images,
            measured={
                "values": [round(r.value, 2) for r in readings],
                "boxes": [r.box for r in readings],
                "gap": round(self.config.min_gap * fam.span(scene.look), 2),
            },
            regions=[Region(k, fam.subject, r.box) for k, r in enumerate(readings)],
            videos=self.videos(),
        )

    def _time_order(self, question: Question, rendered: Rendered, hidden: frozenset[int] = frozenset()) -> list[int]:
        values = rendered.measured["values"]
        sign = 1 if question.facts["rising"] else -1
        return [
            k + 1 for k in sorted((k for k in range(len(values)) if k not in hidden), key=lambda k: sign * values[k])
        ]

    def verify(self, question: Question, rendered: Rendered) -> int:
        values = rendered.measured["values"]
        order = self._time_order(question, rendered)
        steps = [abs(values[b - 1] - values[a - 1]) for a, b in zip(order, order[1:], strict=False)]
        if min(steps) < rendered.measured["gap"]:
            raise Reject("two frames show nearly the same moment of the process")
        right = timeline.answers(_ask_of(question), order)
        if len(right) != 1:
            raise Reject("the measured order does not give exactly one option")
        return right.pop()

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Hidden frames may sit anywhere in time; the visible ones keep their measured order."""
        visible = self._time_order(question, rendered, hidden)
        return timeline.consistent(_ask_of(question), visible, [k + 1 for k in sorted(hidden)])

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        fam = FAMILIES[scene.family]
        values = rendered.measured["values"]
        boxes = rendered.measured["boxes"]
        n = len(values)
        per_image = []
        for k in range(n):
            t = scene.states[scene.shown[k]] / (scene.n_states - 1)
            per_image.append(
                {
                    "image": k + 1,
                    "state": fam.state(scene.look, t),
                    "amount": fam.amount(values[k], scene.look),
                    "box": boxes[k],
                }
            )
        order = self._time_order(question, rendered)
        f = question.facts
        return {
            "kind": f["kind"],
            "param": f["param"],
            "ordinal": _ordinal(f["param"], n) if f["kind"] == "rank" else "",
            "where": WHERE.get(f["kind"], ""),
            "process": fam.title(scene.look),
            "subject": fam.subject,
            "cue": fam.cue,
            "why": fam.why,
            "rising": fam.rising,
            "images": per_image,
            "chrono": [per_image[i - 1] for i in order],
            "chrono_text": image_list(order),
            "n_images": n,
            "found": _found(question, order),
        }


def _ask_of(question: Question) -> Ask:
    f = question.facts
    keys = tuple(tuple(k) if isinstance(k, list) else k for k in f["keys"])
    return Ask(f["kind"], f["param"], keys)


def _found(question: Question, order: list[int]) -> str:
    """The conclusion's last link: which frame (or order) the time order gives."""
    f = question.facts
    want = timeline.wanted(_ask_of(question), order)
    if f["kind"] == "order":
        return (
            f"The options list the frames in orders; the one that matches is {' -> '.join(f'Image {i}' for i in want)}."
        )
    if f["kind"] == "rank":
        return f"The {_ordinal(f['param'], len(order))} frame in time is Image {want}."
    return f"Counting along this order, {WHERE[f['kind']]} Image {f['param']} comes Image {want}."


def _ordinal(rank: int, n: int) -> str:
    if rank == n:
        return "last"
    return ORDINALS[rank - 1]


def _rank_question(rank: int, n: int) -> str:
    if rank == 1:
        return "Which frame was taken first?"
    if rank == n:
        return "Which frame was taken last?"
    return f"Counting from the earliest, which frame was taken {ORDINALS[rank - 1]}?"


def _anchor_question(kind: str, anchor: int) -> str:
    return {
        "next": f"Which frame was taken right after Image {anchor}?",
        "before": f"Which frame was taken right before Image {anchor}?",
        "after2": f"Counting only these frames, which one comes two places after Image {anchor} in time?",
        "before2": f"Counting only these frames, which one comes two places before Image {anchor} in time?",
    }[kind]
