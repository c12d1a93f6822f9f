"""chart_analysis: values and trends read across several charts of one small data table.

A table holds one value per category (a store, a product, an energy source) and period (a quarter, a year).
The periods are split over 2-6 charts of different kinds (bar, pie, grouped or stacked bars, lines), and the
question text says which chart shows which periods. Questions need values from several charts: a category's
total over all periods, its change between two periods shown in different charts, the category that grew the
most from the first to the last period, or the category that ranks second overall.

The answer is computed from the table. The verifier never sees the table: it re-reads every value from the
charts' drawing data in pixels (bar tops and bases, line vertices, pie wedge angles, calibrated against the
tick labels; :func:`mirforge.render.charts.read_values`) and recomputes the answer. A change's wrong options are
near misses (the adjacent category, an off-by-one period, the sign flipped), offered in +- pairs (the answer's sign
flip and a wrong value's), so the answer is not the one value offered with its negative; a total's are the rungs of
a ladder with the answer on any rung alike (see :func:`_ladder`). All options differ by at least ``gap`` units, far
above chart reading precision; a total's ``gap`` grows with the square root of the values it reads on the axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.errors import Reject
from mirforge.generators.analytical.chart_analysis.topics import (
    CATEGORY_COLOR_NAMES,
    CATEGORY_COLORS,
    PERIOD_COLOR_NAMES,
    PERIOD_COLORS,
    TOPICS,
    Topic,
)
from mirforge.render.charts import (
    ChartSpec,
    mark_showing,
    printed_total,
    read_printed_shares,
    read_values,
    render_chart,
)
from mirforge.task import Needs, Question, Region, Rendered, Task, TaskConfig, check_families, ensure, per_level, place

QTYPES = ("total", "difference", "growth", "rank2")
TWO_CHART_QTYPES = ("difference", "growth")  # these read two periods: the data is split over exactly two charts
FAMILIES = ("coffee_revenue", "electronics_sales", "electricity", "web_traffic", "rainfall", "library_loans")
KIND_TEXT = {
    "bar": "bar chart",
    "pie": "pie chart",
    "grouped": "grouped bar chart",
    "stacked": "stacked bar chart",
    "line": "line chart",
}
MIN_CHARTS = (2, 3, 4)  # per level: the fewest charts of a total or a ranking (a change reads exactly two)
SINGLE_KINDS = ("bar", "pie")
MULTI_KINDS = ("grouped", "line", "stacked")
MARK_SHOWN = 0.5  # a line's dot the question needs shows its own colour on this share of it, not under another's


@dataclass
class ChartAnalysisConfig(TaskConfig):
    periods_per_level: tuple[int, ...] = per_level(2, 4, 6)  # the most periods (charts cover one or more each)
    gap_fraction: float = 0.08  # options differ by at least this share of the value scale
    max_sample_tries: int = 60
    families: tuple[str, ...] = FAMILIES  # the data topics drawn from, equally often
    family: str = ""  # one family only (empty: every family in ``families``)

    def validate(self) -> None:
        super().validate()
        check_families(self.families, self.family, FAMILIES)
        ensure(all(2 <= n <= 6 for n in self.periods_per_level), "periods_per_level", "each must be 2 to 6")
        ensure(0.02 <= self.gap_fraction <= 0.3, "gap_fraction", "must be between 0.02 and 0.3")
        ensure(self.max_sample_tries >= 1, "max_sample_tries", "must be at least 1")
        ensure(self.n_options <= 5, "n_options", "at most 5: there are at most 5 categories to choose from")

    def chosen(self) -> tuple[str, ...]:
        return (self.family,) if self.family else self.families


@dataclass(frozen=True)
class Scene:
    topic: int  # index into TOPICS
    categories: tuple[str, ...]
    periods: tuple[str, ...]
    table: tuple[tuple[int, ...], ...]  # table[category][period]
    blocks: tuple[tuple[str, tuple[int, ...]], ...]  # per chart: kind, period indices
    scale: int
    gap: int
    value_labels: bool
    min_charts: int  # the fewest charts the periods were split over (a change question: exactly two)
    qtype: str
    palette: tuple[int, ...]  # category colour indices, shuffled per instance
    params: tuple[int, ...]  # total: (c,); difference: (c, pa, pb); growth/rank2: ()


class ChartAnalysis(Task):
    name = "chart_analysis"
    category = "analytical"
    description = "Read values and trends across several charts of one table (sums, changes, rankings)"
    Config = ChartAnalysisConfig
    needs = Needs(renderer=None, cost=0.6)

    def scene_knobs(self, scene: Scene) -> dict[str, Any]:
        # per scene, not per level: a change question is drawn on exactly two charts, a total or a ranking on at
        # least the level's MIN_CHARTS, so the level alone would record a minimum the instance may not meet
        return {
            "family": FAMILIES[scene.topic],
            "question": scene.qtype,
            "min_charts": scene.min_charts,
            "n_charts": len(scene.blocks),
            # what the charts print: levels 1-2 label bars with their values, yet a line chart prints none
            "value_labels": _labels_printed(scene),
        }

    def knobs(self, level: int) -> dict[str, Any]:
        n_periods = self.config.periods_per_level[level - 1]
        return {
            "n_periods": n_periods,
            "n_categories": (4, 5, 5)[level - 1] if self.config.n_options <= 4 else 5,
            "chart_kinds": [("bar",), ("bar", "pie", "grouped", "line"), ("bar", "pie", "grouped", "line", "stacked")][
                level - 1
            ],
            "max_periods_per_chart": (1, 2, 3)[level - 1],
            "gap_fraction": round(self.config.gap_fraction * (1.0, 1.0, 1.25)[level - 1], 4),
            "questions": [("total", "difference"), QTYPES, QTYPES][level - 1],
        }

    # -- scene and question ---------------------------------------------------------------------------------
    def sample(self, rng: np.random.Generator, level: int) -> Scene:
        k = self.knobs(level)
        chosen = self.config.chosen()
        t = FAMILIES.index(chosen[int(rng.integers(len(chosen)))])
        topic = TOPICS[t]
        n_cat, n_per = k["n_categories"], k["n_periods"]
        cat_idx = sorted(rng.permutation(len(topic.categories))[:n_cat].tolist())
        start = int(rng.integers(len(topic.periods) - n_per + 1))
        periods = topic.periods[start : start + n_per]
        categories = tuple(topic.categories[i] for i in cat_idx)
        qtype = k["questions"][int(rng.integers(len(k["questions"])))]
        two = qtype in TWO_CHART_QTYPES  # every chart must hold a period the question reads
        min_charts = 2 if two else max(2, min(MIN_CHARTS[level - 1], n_per))
        blocks = _partition(
            rng, n_per, k["max_periods_per_chart"], k["chart_kinds"], two_charts=two, min_charts=min_charts
        )
        scale = int(topic.scales[int(rng.integers(len(topic.scales)))])
        value_labels = level < 3
        # a sum of values read on the axis errs by the square root of their number times one reading's error, so a
        # total's (and a ranking of totals') options lie further apart the more of its values no chart prints
        reads = _axis_reads(blocks, value_labels) if qtype in ("total", "rank2") else 0
        gap = max(2, round(k["gap_fraction"] * scale * max(1.0, math.sqrt(reads / 2))))
        palette = tuple(int(i) for i in rng.permutation(len(CATEGORY_COLORS)))
        for _ in range(self.config.max_sample_tries):
            # every cell at least ``gap``: a hidden chart's share of a total then exceeds the ladder's step (_ladder)
            table = rng.integers(max(round(0.1 * scale), gap), scale + 1, size=(n_cat, n_per))
            params = _question_params(rng, qtype, table, blocks, gap)
            if params is not None:
                return Scene(
                    topic=t,
                    categories=categories,
                    periods=tuple(periods),
                    table=tuple(tuple(int(v) for v in row) for row in table),
                    blocks=blocks,
                    scale=scale,
                    gap=gap,
                    value_labels=value_labels,
                    min_charts=min_charts,
                    qtype=qtype,
                    params=params,
                    palette=palette,
                )
        raise Reject("no table with clear margins")

    def ask(self, scene: Scene, rng: np.random.Generator, slot: int) -> Question:
        topic = TOPICS[scene.topic]
        n = self.config.n_options
        table = np.asarray(scene.table)
        cats = scene.categories
        values: list[float] | None = None
        if scene.qtype in ("total", "difference"):
            if scene.qtype == "difference":
                correct, near = _change_and_near_misses(scene, table)
                distractors = _signed_spread(rng, correct, near, n - 1, scene.gap)
            else:
                correct = int(table[scene.params[0]].sum())
                distractors = _ladder(rng, correct, n - 1, scene.gap)
            options_v = place(correct, distractors, slot)
            signed = scene.qtype == "difference"
            options = [_fmt(v, topic.unit, signed) for v in options_v]
            values = [float(v) for v in options_v]
        else:
            order = _category_order(scene.qtype, table)
            answer = order[0]
            near = [c for c in order[1:]]
            if scene.qtype == "growth":  # the category with the highest final value tempts a quick reader
                top_last = int(np.argmax(table[:, -1]))
                if top_last != answer:
                    near.remove(top_last)
                    near.insert(0, top_last)
            pool = near[:2] + [near[2 + int(i)] for i in rng.permutation(len(near) - 2)]
            options = place(cats[answer], [cats[c] for c in pool[: n - 1]], slot)
        text = _question_text(scene, topic, rng)
        if len(set(options)) != len(options):
            raise Reject("duplicate option texts")
        facts = {"values": values, "unit": topic.unit}
        return Question(text=text, options=options, answer=slot, facts=facts)

    # -- rendering and verification ----------------------------------------------------------------------------
    def render(self, scene: Scene, question: Question) -> Rendered:
        topic = TOPICS[scene.topic]
        images, readings, regions = [], [], []
        refs = _referenced_cells(scene)
        for k, (kind, pidx) in enumerate(scene.blocks):
            spec = _spec(scene, topic, kind, pidx)
            chart = render_chart(spec, self.image_size)
            images.append(chart.rgb)
            readings.append(chart.reading)
            regions.append(Region(k, f"chart {k + 1}", chart.boxes["plot"]))
            for c, p in refs:
                if p in pidx:
                    key = _mark_key(kind, scene.categories[c], scene.periods[p])
                    if key not in chart.boxes:
                        raise Reject(f"mark {key} not drawn")
                    if kind == "line" and mark_showing(chart, spec, *key.split("|")) < MARK_SHOWN:
                        raise Reject(f"the dot of {key} is hidden under another line's")
                    regions.append(Region(k, f"{scene.categories[c]} {scene.periods[p]}", chart.boxes[key]))
        measured = {"charts": readings, "gap": scene.gap, "qtype": scene.qtype, "params": list(scene.params)}
        measured["names"] = {"categories": list(scene.categories), "periods": list(scene.periods)}
        return Rendered(images=images, measured=measured, regions=regions)

    def verify(self, question: Question, rendered: Rendered) -> int:
        """The option the values read from the pixels single out; a pie that prints shares must single out the same
        one when read as a person reads it (printed share of the printed total, see :func:`as_read`)."""
        m = rendered.measured
        found = _pick(question, m, measured_table(m))
        try:
            read = _pick(question, m, as_read(m)[0])
        except Reject:
            read = None
        if read != found:
            raise Reject("the printed pie shares do not single out the option the drawing does")
        return found

    def consistent(self, question: Question, rendered: Rendered, hidden: frozenset[int]) -> set[int]:
        """Options some values of the hidden charts' cells (any value >= 0) could make right. Every chart draws
        every category for its periods, and each question reads a period from every chart (totals and rankings
        sum all periods; a change reads the two charts of a two-chart split), so a hidden chart frees cells the
        answer depends on."""
        if not hidden:
            return {self.verify(question, rendered)}
        m = rendered.measured
        shown = dict(m, charts=[c for k, c in enumerate(m["charts"]) if k not in hidden])
        table = partial_table(shown)
        qtype, params, gap = m["qtype"], m["params"], m["gap"]
        n = len(question.options)
        if qtype == "total":
            row = table[params[0]]
            if None not in row:
                return {self.verify(question, rendered)}
            known = sum(v for v in row if v is not None)
            return {i for i, v in enumerate(question.facts["values"]) if v >= known - gap / 4}
        if qtype == "difference":
            c, pa, pb = params
            if table[c][pa] is None or table[c][pb] is None:
                return set(range(n))
            return {self.verify(question, rendered)}
        cats = m["names"]["categories"]
        lo, hi = _score_bounds(qtype, table)
        alive = set()
        for i, name in enumerate(question.options):
            x = cats.index(name)
            others = [y for y in range(len(cats)) if y != x]
            if qtype == "growth":
                ok = all(hi[x] > lo[y] for y in others)
            else:  # second place: one other above x, all the rest below
                ok = False
                for y in others:
                    v = max([lo[x]] + [lo[z] + 1e-6 for z in others if z != y])  # x's least total above the rest
                    ok = ok or (v <= hi[x] and v < hi[y])
            if ok:
                alive.add(i)
        return alive

    # -- reasoning steps ------------------------------------------------------------------------------------
    def step_facts(self, scene: Scene, question: Question, rendered: Rendered) -> dict[str, Any]:
        topic = TOPICS[scene.topic]
        table, said = as_read(rendered.measured)
        boxes = {(r.image, r.name): r.box for r in rendered.regions}
        where = {p: k for k, (_, pidx) in enumerate(scene.blocks) for p in pidx}
        charts = []
        for k, (kind, pidx) in enumerate(scene.blocks):
            charts.append(
                {
                    "image": k + 1,
                    "kind": KIND_TEXT[kind],
                    "raw_kind": kind,
                    "periods": [scene.periods[p] for p in pidx],
                    "box": boxes[(k, f"chart {k + 1}")],
                    "encoding": _encoding_text(kind, scene, pidx),
                }
            )
        # whether each period's value is printed on its chart: a value read against the gridlines is "about" it
        printed = [_labelled(scene.value_labels, scene.blocks[where[p]][0]) for p in range(len(scene.periods))]
        cells = []
        for c, p in _referenced_cells(scene):
            name = f"{scene.categories[c]} {scene.periods[p]}"
            cells.append(
                {
                    "category": scene.categories[c],
                    "period": scene.periods[p],
                    "image": where[p] + 1,
                    "value": round(table[c][p]),
                    "share": said.get((c, p)),  # a pie's printed share of its printed total, else None
                    "printed": printed[p],
                    "box": boxes[(where[p], name)],
                }
            )
        cats = scene.categories
        facts: dict[str, Any] = {
            "measure": topic.measure,
            "whose": topic.whose,
            "noun": topic.noun,
            "unit": topic.unit,
            "categories": list(cats),
            "periods": list(scene.periods),
            "charts": charts,
            "cells": cells,
            "qtype": scene.qtype,
            "labels": all(_labelled(scene.value_labels, kind) for kind, _ in scene.blocks),
            "printed": printed,
            "printing": _printing(scene),
            "gap": scene.gap,
        }
        if scene.qtype in ("total", "difference"):
            facts["category"] = cats[scene.params[0]]
            facts["of_category"] = topic.of_category(cats[scene.params[0]])
            written = [cell["value"] for cell in cells]  # the steps add and subtract the values as written
            facts["result"] = sum(written) if scene.qtype == "total" else written[1] - written[0]
            facts["exact"] = facts["result"] == question.facts["values"][question.answer]
            if scene.qtype == "difference":
                facts["from_period"], facts["to_period"] = (
                    scene.periods[scene.params[1]],
                    scene.periods[scene.params[2]],
                )
        else:
            written = [[round(v) for v in row] for row in table]  # scores from the values as written
            scores = _category_scores(scene.qtype, written)
            facts["ranking"] = [
                {
                    "category": cats[c],
                    "score": round(scores[c]),
                    "first": written[c][0],
                    "last": written[c][-1],
                    "vals": written[c],
                }
                for c in _category_order(scene.qtype, table)
            ]
        return facts


# -- helpers ------------------------------------------------------------------------------------------------
def measured_table(measured: dict[str, Any]) -> list[list[float]]:
    """table[category][period] re-read from the charts' pixels; Reject if a cell is missing or read twice."""
    cats, pers = measured["names"]["categories"], measured["names"]["periods"]
    table: list[list[float | None]] = [[None] * len(pers) for _ in cats]
    for reading in measured["charts"]:
        for series, row in read_values(reading).items():
            for x, v in row.items():
                cat, per = (series, x) if reading["kind"] == "line" else (x, series)
                if cat not in cats or per not in pers:
                    raise Reject(f"chart shows unknown cell {cat}/{per}")
                c, p = cats.index(cat), pers.index(per)
                if table[c][p] is not None:
                    raise Reject(f"cell {cat}/{per} drawn twice")
                table[c][p] = float(v)
    if any(v is None for row in table for v in row):
        raise Reject("a table cell is not drawn in any chart")
    return table  # type: ignore[return-value]


def partial_table(measured: dict[str, Any]) -> list[list[float | None]]:
    """table[category][period] from the charts in ``measured`` (None: a cell no chart there draws)."""
    cats, pers = measured["names"]["categories"], measured["names"]["periods"]
    table: list[list[float | None]] = [[None] * len(pers) for _ in cats]
    for reading in measured["charts"]:
        for series, row in read_values(reading).items():
            for x, v in row.items():
                cat, per = (series, x) if reading["kind"] == "line" else (x, series)
                table[cats.index(cat)][pers.index(per)] = float(v)
    return table


def _score_bounds(qtype: str, table: list[list[float | None]]) -> tuple[list[float], list[float]]:
    """The least and the most score (growth: last minus first; rank2: total) each category could have, its
    unknown cells being any value >= 0."""
    lo, hi = [], []
    for row in table:
        if qtype == "growth":
            first, last = row[0], row[-1]
            lo.append(-math.inf if first is None else (-first if last is None else last - first))
            hi.append(math.inf if last is None else (last if first is None else last - first))
        else:
            known = sum(v for v in row if v is not None)
            lo.append(known)
            hi.append(math.inf if None in row else known)
    return lo, hi


def _partition(
    rng: np.random.Generator,
    n: int,
    max_block: int,
    kinds: tuple[str, ...],
    *,
    two_charts: bool = False,
    min_charts: int = 2,
) -> tuple:
    """Charts as (kind, period indices), consecutive periods each; ``two_charts``: exactly two charts."""
    singles = [k for k in kinds if k in SINGLE_KINDS]
    multis = [k for k in kinds if k in MULTI_KINDS]
    if two_charts:
        firsts = [s for s in range(1, n) if s <= max_block and n - s <= max_block and (multis or s == 1 == n - s)]
        if not firsts:
            raise Reject(f"{n} periods do not fit two charts of at most {max_block} periods")
        first = firsts[int(rng.integers(len(firsts)))]
        sizes = [first, n - first]
    else:
        for _ in range(50):
            sizes, left = [], n
            while left:
                s = int(rng.integers(1, min(max_block, left) + 1)) if multis else 1
                sizes.append(s)
                left -= s
            if max(2, min(min_charts, n)) <= len(sizes) <= 6:
                break
        else:
            sizes = [1] * n
    blocks, p = [], 0
    for s in sizes:
        pool = singles if s == 1 else multis
        blocks.append((pool[int(rng.integers(len(pool)))], tuple(range(p, p + s))))
        p += s
    return tuple(blocks)


def _chart_of(blocks: tuple, p: int) -> int:
    return next(k for k, (_, pidx) in enumerate(blocks) if p in pidx)


def _question_params(rng: np.random.Generator, qtype: str, table: np.ndarray, blocks: tuple, gap: int) -> tuple | None:
    n_cat, n_per = table.shape
    if qtype == "total":
        return (int(rng.integers(n_cat)),)
    if qtype == "difference":
        c = int(rng.integers(n_cat))
        pa, pb = sorted(int(v) for v in rng.choice(n_per, size=2, replace=False))
        if _chart_of(blocks, pa) == _chart_of(blocks, pb) and len(blocks) > 1:
            return None
        if abs(int(table[c, pb]) - int(table[c, pa])) < gap:
            return None
        return (c, pa, pb)
    ranked = sorted(_category_scores(qtype, table), reverse=True)
    if ranked[0] - ranked[1] < gap or (qtype == "rank2" and ranked[1] - ranked[2] < gap):
        return None
    if qtype == "growth" and abs(ranked[0]) < gap / 2:  # "grew the most" or "lost the least": the sign is clear
        return None
    return ()


def _pick(question: Question, m: dict[str, Any], table: list[list[float]]) -> int:
    """The option ``table`` singles out by the verifier's margins (Reject when it does not)."""
    gap, qtype, params = m["gap"], m["qtype"], m["params"]
    if qtype in ("total", "difference"):
        value = _numeric_answer(qtype, params, table)
        dist = [abs(v - value) for v in question.facts["values"]]
        best = int(np.argmin(dist))
        if dist[best] > gap / 4 or sorted(dist)[1] < gap / 2:
            raise Reject("read value does not single out one option")
        return best
    order = _category_order(qtype, table)
    scores = _category_scores(qtype, table)
    ranked = sorted(scores, reverse=True)
    margins = [ranked[0] - ranked[1]] if qtype == "growth" else [ranked[0] - ranked[1], ranked[1] - ranked[2]]
    if min(margins) < gap / 2:
        raise Reject("ranking too close to read")
    name = m["names"]["categories"][order[0]]
    if question.options.count(name) != 1:
        raise Reject("answer category not among the options")
    return question.options.index(name)


def _category_scores(qtype: str, table: Any) -> list[float]:
    arr = np.asarray(table, dtype=float)
    return (arr[:, -1] - arr[:, 0] if qtype == "growth" else arr.sum(axis=1)).tolist()


def _category_order(qtype: str, table: Any) -> list[int]:
    """Categories in option order: the answer first, then the rest by score (closest first)."""
    scores = _category_scores(qtype, table)
    by_score = sorted(range(len(scores)), key=lambda c: -scores[c])
    if qtype == "growth":
        return by_score
    return [by_score[1], by_score[0], *by_score[2:]]  # rank2: second place, then first, third, ...


def _numeric_answer(qtype: str, params: list[int], table: Any) -> float:
    arr = np.asarray(table, dtype=float)
    if qtype == "total":
        return float(arr[params[0]].sum())
    c, pa, pb = params
    return float(arr[c, pb] - arr[c, pa])


def _change_and_near_misses(scene: Scene, table: np.ndarray) -> tuple[int, list[int]]:
    """A change question's answer and its near misses, most tempting first."""
    n_cat, n_per = table.shape
    c, pa, pb = scene.params
    adj = [a for a in (c + 1, c - 1) if 0 <= a < n_cat]
    d = int(table[c, pb] - table[c, pa])
    near = [int(table[a, pb] - table[a, pa]) for a in adj]
    for q in (pb - 1, pb + 1):  # off-by-one period
        if 0 <= q < n_per and q != pa:
            near.append(int(table[c, q] - table[c, pa]))
    near.append(-d)
    return d, near


def _ladder(rng: np.random.Generator, answer: int, n: int, gap: int) -> list[int]:
    """``n`` wrong totals: the answer and they are the rungs of a ladder whose steps are drawn on their own (``gap``
    to 1.25 ``gap``), with the answer on a rung drawn uniformly. The ladder's shape does not depend on which rung
    is the answer, so nothing in the values finds it: neither its rank nor nearness to the options' mean (wrong
    totals taken from near misses, most of them a period too few and so under the answer, left the answer the
    smallest option in 0 of 127 questions and the one nearest the mean in 39%). The rung under the answer is at
    most 1.25 ``gap`` below it, less than any chart's share of a total plus a quarter ``gap`` (every cell is at
    least ``gap``), so leaving out
    any one chart leaves that rung possible too: every chart is needed. A reader who leaves a chart out undercounts
    by about a rung or more, and lands on the answer only when it is the lowest rung: a quarter of the time, as a
    guess does (always offering the undercount, as the near misses did, made the lowest rung never the answer)."""
    steps = [gap + int(rng.integers(gap // 4 + 1)) for _ in range(n)]
    rungs = np.concatenate([[0], np.cumsum(steps)])
    below = int(rng.integers(n + 1))
    values = [answer + int(r - rungs[below]) for r in rungs]
    wrong = values[:below] + values[below + 1 :]
    if min(wrong) < (gap + 1) // 2:
        raise Reject("no room for the wrong totals under the answer")
    return [wrong[int(k)] for k in rng.permutation(n)]


def _signed_spread(rng: np.random.Generator, answer: int, near: list[int], n: int, gap: int) -> list[int]:
    """Distractors of a signed change, offered in +- pairs (+72 and -72: the sign-flip near miss).

    A text-only guesser reads +72 and -72 alike, so if only the answer came with its sign flip it would be the
    odd one out. The options are therefore as many +- pairs as fit, plus one unpaired value when their count is
    odd, and the answer is that unpaired value with its fair share of probability (1 / options). Wrong
    magnitudes come from the near misses first, then from steps of 1.5 ``gap`` around the answer; all magnitudes
    differ by at least ``gap`` and are at least ``gap / 2``, so every two options are at least ``gap`` apart.
    """
    pairs, single = divmod(n + 1, 2)
    answer_single = bool(single) and rng.random() < 1.0 / (n + 1)
    wanted = pairs if answer_single else pairs - 1 + single  # wrong magnitudes to draw
    chosen: list[int] = []  # signed wrong values, one per magnitude
    used = [abs(answer)]

    def take(v: int) -> None:
        m = abs(v)
        if len(chosen) < wanted and m >= (gap + 1) // 2 and all(abs(m - u) >= gap for u in used):
            chosen.append(v)
            used.append(m)

    for v in near:
        take(v)
    step, k = int(gap * 1.5), 1
    while len(chosen) < wanted:
        sign = 1 if rng.random() < 0.5 else -1
        for m in (abs(answer) + sign * k * step, abs(answer) - sign * k * step):
            take(m if rng.random() < 0.5 else -m)
        k += 1
    out = [] if answer_single else [-answer]
    for i, v in enumerate(chosen):
        if answer_single or i < pairs - 1:
            out += [v, -v]
        else:
            out.append(v)  # the unpaired wrong value
    return [out[int(i)] for i in rng.permutation(len(out))]


def _fmt(v: float, unit: str, signed: bool) -> str:
    return f"{int(v):+d} {unit}" if signed else f"{int(v)} {unit}"


def _spec(scene: Scene, topic: Topic, kind: str, pidx: tuple[int, ...]) -> ChartSpec:
    cats = list(scene.categories)
    table = np.asarray(scene.table)
    pers = [scene.periods[p] for p in pidx]
    title = (
        f"{topic.measure.capitalize()}, {pers[0]}"
        if len(pers) == 1
        else f"{topic.measure.capitalize()}, {pers[0]}-{pers[-1]}"
    )
    cat_colors = [CATEGORY_COLORS[scene.palette[i]] for i in range(len(cats))]
    if kind in SINGLE_KINDS:
        series = [(pers[0], [int(v) for v in table[:, pidx[0]]])]
        peak, colors, xl = max(series[0][1]), cat_colors, cats
    elif kind == "line":
        series = [(cat, [int(table[c, p]) for p in pidx]) for c, cat in enumerate(cats)]
        peak, colors, xl = int(table[:, list(pidx)].max()), cat_colors, pers
    else:
        series = [(per, [int(v) for v in table[:, p]]) for per, p in zip(pers, pidx, strict=True)]
        colors, xl = list(PERIOD_COLORS[: len(pers)]), cats
        sub = table[:, list(pidx)]
        peak = int(sub.sum(axis=1).max() if kind == "stacked" else sub.max())
    head = 1.45 if kind in ("line", "grouped", "stacked") else 1.2
    step = 10 if peak * head <= 150 else 20 if peak * head <= 300 else 50
    ymax = float(np.ceil(peak * head / step) * step)
    return ChartSpec(
        kind=kind,
        title=title,
        xlabels=xl,
        series=series,
        unit=topic.unit,
        colors=colors,
        ymax=ymax,
        value_labels=_labelled(scene.value_labels, kind),
    )


def as_read(measured: dict[str, Any]) -> tuple[list[list[float]], dict[tuple[int, int], str]]:
    """table[category][period] as a person reads it: where a pie prints shares, each wedge is its printed
    percentage of the printed total (17% of 345 = 58.65 where the wedge's angle gives 57); every other cell as
    :func:`measured_table` reads it. Also the words of those share readings, by cell ("17% of 345")."""
    table = measured_table(measured)
    cats, pers = measured["names"]["categories"], measured["names"]["periods"]
    said: dict[tuple[int, int], str] = {}
    for reading in measured["charts"]:
        for per, row in read_printed_shares(reading).items():
            for cat, v in row.items():
                c, p = cats.index(cat), pers.index(per)
                table[c][p] = v
                said[(c, p)] = f"{reading['share_texts'][cat]} of {printed_total(reading):g}"
    return table, said


def _labels_printed(scene: Scene) -> str:
    """Whether all, some or none of the charts print their values."""
    labelled = [_labelled(scene.value_labels, kind) for kind, _ in scene.blocks]
    return "all" if all(labelled) else "some" if any(labelled) else "none"


def _labelled(value_labels: bool, kind: str) -> bool:
    """Value labels where they cannot collide: never on line charts, whose points of one period sit close."""
    return value_labels and kind != "line"


def _axis_reads(blocks: tuple, value_labels: bool) -> int:
    """How many periods of a category are read against the value axis: those on charts that print neither values
    nor a pie's shares."""
    return sum(len(pidx) for kind, pidx in blocks if kind != "pie" and not _labelled(value_labels, kind))


def _printing(scene: Scene) -> list[dict[str, Any]]:
    """What the charts print, grouped by what it is: their ``values``, a pie's ``shares`` (percentages, and the
    total below it), or ``nothing`` (values are read on the value axis); each group with its charts by kind."""
    groups: dict[str, dict[str, int]] = {}
    for kind, _ in scene.blocks:
        what = "values" if _labelled(scene.value_labels, kind) else "shares" if kind == "pie" else "nothing"
        kinds = groups.setdefault(what, {})
        kinds[kind] = kinds.get(kind, 0) + 1
    return [
        {
            "what": what,
            "charts": [f"the {KIND_TEXT[kind]}{'s' if n > 1 else ''}" for kind, n in kinds.items()],
            "n": sum(kinds.values()),
        }
        for what, kinds in groups.items()
    ]


def _mark_key(kind: str, cat: str, per: str) -> str:
    return f"{cat}|{per}" if kind == "line" else f"{per}|{cat}"


def _referenced_cells(scene: Scene) -> list[tuple[int, int]]:
    n_cat, n_per = len(scene.categories), len(scene.periods)
    if scene.qtype == "total":
        return [(scene.params[0], p) for p in range(n_per)]
    if scene.qtype == "difference":
        c, pa, pb = scene.params
        return [(c, pa), (c, pb)]
    if scene.qtype == "growth":
        return [(c, p) for c in range(n_cat) for p in (0, n_per - 1)]
    return [(c, p) for c in range(n_cat) for p in range(n_per)]


def _encoding_text(kind: str, scene: Scene, pidx: tuple[int, ...]) -> str:
    n = len(scene.categories)
    cat_cols = ", ".join(f"{scene.categories[i]} {CATEGORY_COLOR_NAMES[scene.palette[i]]}" for i in range(n))
    pers = [scene.periods[p] for p in pidx]
    if kind == "bar":
        return f"one bar per {TOPICS[scene.topic].noun} ({cat_cols})"
    if kind == "pie":
        how = (
            "labelled with its value"
            if _labelled(scene.value_labels, kind)
            else "labelled with its percentage of the total printed below"
        )
        return f"one wedge per {TOPICS[scene.topic].noun} ({cat_cols}), each {how}"
    if kind == "line":
        return f"one line per {TOPICS[scene.topic].noun} ({cat_cols}) over {', '.join(pers)}"
    per_cols = ", ".join(f"{p} {PERIOD_COLOR_NAMES[j]}" for j, p in enumerate(pers))
    how = "side by side" if kind == "grouped" else "stacked on top of each other"
    return f"bars of {', '.join(pers)} {how} for each {TOPICS[scene.topic].noun} ({per_cols})"


def _best_change(scene: Scene) -> float:
    return max(_category_scores("growth", scene.table))


def _periods_text(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _question_text(scene: Scene, topic: Topic, rng: np.random.Generator) -> str:
    def pick(*xs: str) -> str:
        return xs[int(rng.integers(len(xs)))]

    parts = []
    for kind, pidx in scene.blocks:
        pers = _periods_text([scene.periods[p] for p in pidx])
        verb = "is" if len(pidx) == 1 else "are"
        parts.append(f"{pers} {verb} in <image> ({KIND_TEXT[kind]})")
    intro = pick(
        f"These charts show the {topic.measure} ({topic.unit}) {topic.whose} by {topic.noun}: ",
        f"Figures for the {topic.measure} {topic.whose} ({topic.unit}, per {topic.noun}) are spread over "
        "several charts: ",
        f"A report on the {topic.measure} {topic.whose} ({topic.unit}) splits its data by period: ",
    )
    intro += "; ".join(parts) + "."
    cats, pers = scene.categories, scene.periods
    if scene.qtype == "total":
        q = pick(
            f"What is {topic.of_category(cats[scene.params[0]], total=True)} from {pers[0]} to {pers[-1]}?",
            f"Adding up all periods from {pers[0]} to {pers[-1]}, what is {topic.of_category(cats[scene.params[0]])}?",
        )
    elif scene.qtype == "difference":
        c, pa, pb = scene.params
        q = pick(
            f"By how much did {topic.of_category(cats[c])} change from {pers[pa]} to {pers[pb]}?",
            f"What is the change in {topic.of_category(cats[c])} between {pers[pa]} and {pers[pb]} "
            "(later minus earlier)?",
        )
    elif scene.qtype == "growth" and _best_change(scene) > 0:
        q = pick(
            f"Which {topic.noun} grew the most from {pers[0]} to {pers[-1]}?",
            f"Between {pers[0]} and {pers[-1]}, which {topic.noun} shows the largest increase?",
        )
    elif scene.qtype == "growth":  # every category fell: asking which "grew" would be a false premise
        q = pick(
            f"Which {topic.noun} fell the least from {pers[0]} to {pers[-1]}?",
            f"Between {pers[0]} and {pers[-1]}, which {topic.noun} shows the smallest decrease?",
        )
    else:
        q = pick(
            f"Summed over all periods, which {topic.noun} ranks second in {topic.measure}?",
            f"Which {topic.noun} has the second-highest total {topic.measure} over {pers[0]} to {pers[-1]}?",
        )
    return f"{intro} {q}"
