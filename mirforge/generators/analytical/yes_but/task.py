"""yes_but: how far does reality (the BUT panel) fall short of the promise (the YES panel)?

Each promise is a pair of panels. The YES panel shows the promise as it is printed or pictured: a box label, a
menu photo, the net weight on a package, a timetable, a sale tag, the volume on a bottle, a 'one size fits all'
card, a best-before date, a speed limit sign, a 'wet floor' sign in an aisle. The BUT panel shows what is really
there: the contents counted, a kitchen scale's display, a clock, the receipt, a measuring jug, a tape measure, the
calendar, the speedometer, the aisle where the floor is wet. Ten families (``families.FAMILIES``); the family of an
index is the task's balanced variant, so over any ten consecutive indices every family appears once.

The question never states the promise: it names the panels and asks how far the reality falls short, summed over
the pairs (1, 2 and 3 pairs by level: 2, 4 and 6 images). So every image is needed: the YES panel alone gives the
promise and not the reality, the BUT panel the reality and not the promise, and with any one panel hidden the sum
could be any option at or above what the other pairs already give (a hidden panel could show a kept promise or a
broken one), so at least two options stay consistent (``consistent``).

Options are four consecutive values of the family's lattice (1 item, 10 g, 5 minutes, 50 cents, ...), worded
alike; the answer's rank among them is the balanced answer slot, and the window of four lies inside the range of
sums the family draws (an ``ask`` that would push it out rejects the draw), so given the options every rank is
equally likely: neither the wording, the numbers nor their order tell the answer without both kinds of panel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.analytical.yes_but.families import FAMILIES, WORDS, Drawn, Family, Pair
from mirforge.generators.analytical.yes_but.panels import Style, draw_style
from mirforge.task import (
    Layer,
    Needs,
    Question,
    Region,
    Rendered,
    Task,
    TaskConfig,
    check_families,
    ensure,
    per_level,
    place,
)


@dataclass
class YesButConfig(TaskConfig):
    families: tuple[str, ...] = tuple(FAMILIES)  # the scene families drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)
    pairs_per_level: tuple[int, ...] = per_level(1, 2, 3)  # YES/BUT pairs per question: 2, 4 and 6 images

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(all(1 <= k <= 4 for k in self.pairs_per_level), "pairs_per_level", "each 1 to 4")
        ensure(self.n_options == 4, "n_options", "must be 4 (the options are a window of four values)")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    family: str
    pairs: tuple[Pair, ...]
    total: int  # the sum of the pairs' gaps: the answer
    style: Style


CITED_PER_PANEL = 2  # regions a panel's steps cite (a box per counted item would drown the text)


class YesBut(Task):
    name = "yes_but"
    category = "analytical"
    description = "How far the BUT panels fall short of what the YES panels promise (labels, menus, timetables, ...)"
    Config = YesButConfig
    needs = Needs(renderer=None, cost=0.15, realism=True)
    variants = len(FAMILIES)  # the family of an index: balanced exactly over every block of indices

    def knobs(self, level: int) -> dict[str, Any]:
        k = self.config.pairs_per_level[self.levels.index(level)]
        return {"families": list(self.config.chosen()), "pairs": k, "images": 2 * k}

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        return {"family": scene.family}

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int, variant: int | None = None) -> Scene:
        k = self.knobs(level)["pairs"]
        names = self.config.chosen()
        fam = FAMILIES[names[(int(rng.integers(len(names))) if variant is None else variant) % len(names)]]
        lo, hi = fam.gaps
        s = fam.step
        total = k * lo + s * int(rng.integers((k * (hi - lo)) // s + 1))
        gaps = _split(rng, total, k, lo, hi, s)
        kind = fam.kinds[int(rng.integers(len(fam.kinds)))]
        pairs = tuple(fam.sample(rng, g, kind) for g in gaps)
        same = {key: pairs[0].look[key] for key in fam.shared}
        pairs = tuple(replace(p, look={**p.look, **same}) for p in pairs)
        return Scene(fam.name, pairs, total, draw_style(rng))

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        fam = FAMILIES[scene.family]
        k, s, n = len(scene.pairs), fam.step, self.config.n_options
        start = scene.total - slot * s
        if start < k * fam.gaps[0] or start + (n - 1) * s > k * fam.gaps[1]:
            raise Reject("the window of options would leave the range of sums")  # keeps every rank equally likely
        values = [start + j * s for j in range(n)]
        first = scene.pairs[0]
        options = [fam.option(v, first, k) for v in values]
        yes, but = fam.shows(first)
        if k == 1:
            text = [
                f"In the YES panel <image> we see {yes}; in the BUT panel <image> we see {but}. ",
                f"<image> (YES) shows {yes}, and <image> (BUT) shows {but}. ",
            ][int(rng.integers(2))]
        else:
            slots = ", ".join("<image> and <image>" for _ in range(k))
            text = (
                f"Here are {WORDS[k]} YES/BUT pairs, in order: {slots}. In each pair the YES panel shows "
                f"{yes} and the BUT panel shows {but}. "
            )
        text += fam.ask(first, k)
        facts = {"values": values, "family": scene.family}
        return Question(
            text=text,
            options=place(options[slot], options[:slot] + options[slot + 1 :], slot),
            answer=slot,
            facts=facts,
        )

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        fam = FAMILIES[scene.family]
        images, regions, layers, readings = [], [], [], []
        k = len(scene.pairs)
        for j, pair in enumerate(scene.pairs):
            suffix = f" {j + 1}" if k > 1 else ""
            for side, draw in (("yes", fam.yes), ("but", fam.but)):
                drawn: Drawn = draw(self.image_size, scene.style, pair, side.upper() + suffix)
                index = len(images)
                img = drawn.canvas.img
                images.append(img)
                boxes = [(name, box) for name, box in drawn.regions if box][:CITED_PER_PANEL]
                regions += [Region(index, name, _clip(box, self.image_size)) for name, box in boxes]
                readings.append({"image": index, "pair": j, "side": side, **drawn.reading})
                layers.append(Layer(ids=drawn.canvas.mask, names=drawn.names) if drawn.names else None)
        measured = {"family": scene.family, "readings": readings}
        return Rendered(images=images, measured=measured, regions=regions, layers=layers)

    def verify(self, question: Question, rendered: Rendered) -> int:
        hits = self.consistent(question, rendered, frozenset())
        if len(hits) != 1:
            raise Reject(f"{len(hits)} options fit the panels")
        return hits.pop()

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options whose sum some values of the hidden panels could give. A pair with both panels shown has its
        gap; a pair with a panel hidden could have any gap from 0 (the promise kept) upwards, or, on a 12-hour
        clock, any gap at all: so an option survives when it is at least the sum of the known gaps."""
        fam = FAMILIES[rendered.measured["family"]]
        known, open_pairs = _gaps(fam, rendered.measured["readings"], hidden)
        values = question.facts["values"]
        if fam.cyclic and open_pairs:
            return set(range(len(values)))
        if open_pairs:
            return {i for i, v in enumerate(values) if v >= known}
        return {i for i, v in enumerate(values) if v == known}

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        fam = FAMILIES[scene.family]
        readings = rendered.measured["readings"]
        by_image: dict[int, list[dict]] = {}
        for r in rendered.regions:
            by_image.setdefault(r.image, []).append({"label": _label(r.name), "box": r.box})
        captions, pairs = [], []
        for j, pair in enumerate(scene.pairs):
            yes = next(r for r in readings if r["pair"] == j and r["side"] == "yes")
            but = next(r for r in readings if r["pair"] == j and r["side"] == "but")
            gap = fam.gap(yes["value"], but["value"])
            tag = f" of pair {j + 1}" if len(scene.pairs) > 1 else ""
            captions += [
                f"The YES panel{tag}: {fam.yes_says(pair, yes)}.",
                f"The BUT panel{tag}: {fam.but_says(pair, but)}.",
            ]
            pairs.append(
                {
                    "yes_image": yes["image"] + 1,
                    "but_image": but["image"] + 1,
                    "promise": fam.value_text(yes["value"], pair),
                    "actual": fam.actual_text(but["value"], pair),
                    "gap": fam.amount(gap, pair),
                    "by": fam.by,
                    "claim": fam.claim,
                    "kind": pair.look["kind"],
                    "yes_regions": by_image.get(yes["image"], []),
                    "but_regions": by_image.get(but["image"], []),
                }
            )
        return {
            "family": scene.family,
            "n_pairs": len(scene.pairs),
            "captions": captions,
            "pairs": pairs,
            "total": fam.amount(scene.total, scene.pairs[0]),
            "answer_text": question.options[question.answer],
            "clock": bool(fam.cyclic),
            "gap_noun": fam.gap_noun,
            "stated": fam.stated,
        }


def _gaps(fam: Family, readings: list[dict[str, Any]], hidden: frozenset[int]) -> tuple[int, int]:
    """The sum of the gaps of the pairs shown whole, and how many pairs have a hidden panel."""
    sides: dict[int, dict[str, int]] = {}
    for r in readings:
        if r["image"] not in hidden:
            sides.setdefault(r["pair"], {})[r["side"]] = r["value"]
    n_pairs = len({r["pair"] for r in readings})
    whole = [s for s in sides.values() if len(s) == 2]
    return sum(fam.gap(s["yes"], s["but"]) for s in whole), n_pairs - len(whole)


def _split(rng: np.random.Generator, total: int, k: int, lo: int, hi: int, step: int) -> list[int]:
    """``k`` gaps on the lattice, each from lo to hi, adding up to ``total``."""
    for _ in range(64):
        gaps = [lo + step * int(rng.integers((hi - lo) // step + 1)) for _ in range(k - 1)]
        last = total - sum(gaps)
        if lo <= last <= hi:
            return [*gaps, last]
    raise Reject("no split of the sum into gaps")


def _label(name: str) -> str:
    """A region as the steps name it: "the label", but "doughnut 1" (a numbered item takes no article)."""
    return name if name.rsplit(" ", 1)[-1].isdigit() else f"the {name}"


def _clip(box: list[int], size: int) -> list[int]:
    x0, y0, x1, y1 = box
    return [max(0, x0), max(0, y0), min(size, x1), min(size, y1)]
