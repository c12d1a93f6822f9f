"""mirforge.render.charts: plotted values agree with the data, and the readings agree with the pixels."""

from __future__ import annotations

import numpy as np
import pytest

from mirforge.render.charts import (
    KINDS,
    ChartSpec,
    mark_showing,
    read_printed_shares,
    read_values,
    render_chart,
    units_per_px,
)

TOLERANCE_PX = 0.5  # a value read back from the drawing may be off by at most half a pixel of the value axis
CATS = ["Lisbon", "Porto", "Braga", "Faro"]
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def _spec(kind: str, labels: bool = True) -> ChartSpec:
    if kind in ("bar", "pie"):
        return ChartSpec(
            kind, "Revenue, Q1", CATS, [("Q1", [31, 47, 12, 68])], "k EUR", COLORS, ymax=90, value_labels=labels
        )
    if kind == "line":
        series = [(c, [v, v + 7, v - 3]) for c, v in zip(CATS, [20, 35, 50, 61], strict=True)]
        return ChartSpec(kind, "Revenue", ["Q1", "Q2", "Q3"], series, "k EUR", COLORS, ymax=100, value_labels=labels)
    series = [("Q1", [31, 47, 12, 68]), ("Q2", [22, 9, 40, 17])]
    return ChartSpec(kind, "Revenue", CATS, series, "k EUR", COLORS[:2], ymax=120, value_labels=labels)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("labels", [True, False])
def test_plotted_values_match_the_table(kind, labels):
    spec = _spec(kind, labels)
    chart = render_chart(spec)
    assert chart.rgb.shape == (448, 448, 3) and chart.rgb.dtype == np.uint8
    read = read_values(chart.reading)
    tol = TOLERANCE_PX * units_per_px(chart.reading)
    for name, values in spec.series:
        for x, v in zip(spec.xlabels, values, strict=True):
            got = read[name][x] if kind != "line" else read[name][x]
            assert abs(got - v) <= tol, (kind, name, x, got, v, tol)


def test_a_pie_that_prints_shares_is_read_as_its_printed_share_of_the_printed_total():
    """31 of 158 prints '20%' and 'total 158': a person reads 31.6, not the 31 the wedge's angle gives."""
    shares = read_printed_shares(render_chart(_spec("pie", labels=False)).reading)
    total = 31 + 47 + 12 + 68
    expected = {c: round(100 * v / total) * total / 100 for c, v in zip(CATS, [31, 47, 12, 68], strict=True)}
    assert shares == {"Q1": pytest.approx(expected)}
    assert shares["Q1"]["Lisbon"] == pytest.approx(0.20 * 158)
    assert read_printed_shares(render_chart(_spec("pie", labels=True)).reading) == {}
    assert read_printed_shares(render_chart(_spec("bar", labels=False)).reading) == {}


def test_same_spec_same_bytes():
    a, b = render_chart(_spec("grouped")), render_chart(_spec("grouped"))
    assert a.rgb.tobytes() == b.rgb.tobytes()
    assert a.reading == b.reading


def test_bar_tops_in_the_reading_are_where_the_pixels_are():
    spec = _spec("bar", labels=False)
    chart = render_chart(spec)
    for mark, color in zip(chart.reading["marks"], COLORS, strict=True):
        col = int(round(mark["x_px"]))
        rgb = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
        rows = np.nonzero(np.abs(chart.rgb[:, col].astype(int) - rgb).sum(axis=1) < 30)[0]
        assert abs(rows.min() - mark["top_px"]) <= 1.5
        assert abs(rows.max() + 1 - mark["base_px"]) <= 1.5


def test_mark_boxes_cover_every_cell():
    chart = render_chart(_spec("stacked"))
    for cat in CATS:
        for per in ("Q1", "Q2"):
            x0, y0, x1, y1 = chart.boxes[f"{per}|{cat}"]
            assert 0 <= x0 < x1 <= 448 and 0 <= y0 < y1 <= 448


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown chart kind"):
        ChartSpec("radar", "t", ["a"], [("s", [1])], "u", ["#000000"])


def test_a_dot_drawn_over_by_a_later_line_does_not_show():
    """Lines are drawn in turn, so where two series share a value the later one's dot covers the earlier one's: the
    earlier dot shows none of its colour there, and both show wholly where they are apart."""
    spec = ChartSpec(
        "line", "t", ["2023", "2024"], [("A", [40.0, 60.0]), ("B", [40.0, 20.0])], "u", ["#9467bd", "#8c564b"]
    )
    chart = render_chart(spec, 448)
    assert mark_showing(chart, spec, "A", "2023") < 0.1
    assert mark_showing(chart, spec, "B", "2023") > 0.9
    assert min(mark_showing(chart, spec, s, "2024") for s in "AB") > 0.9
