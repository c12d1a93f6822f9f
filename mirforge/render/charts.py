"""Charts drawn with matplotlib's Agg canvas, returned as RGB arrays with the drawing data read back in pixels.

No pyplot: each chart is a :class:`matplotlib.figure.Figure` on its own ``FigureCanvasAgg``, so nothing touches
pyplot's global figure list and no display backend is involved. Fonts, sizes and DPI are fixed inside an
``rc_context``, so the same spec gives the same bytes.

:func:`render_chart` returns, besides the image, a :class:`Reading`: what was actually drawn, taken from the
artists after drawing and expressed in image pixels (row 0 at the top): bar tops and bases, line vertices, pie
wedge angles, tick positions with their labels. :func:`read_values` turns a reading back into data values using
only those pixels and the tick labels, the way a reader calibrates a chart against its axis, so a verifier can
re-derive numbers without looking at the table the chart was made from.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

KINDS = ("bar", "grouped", "stacked", "line", "pie")
DPI = 100
MARK_BOX_PX = 6  # half-size of the box around a line vertex
MARKER_RADIUS_PX = 2.5  # a line vertex's dot: markersize 4 pt at DPI 100 is 5.6 px across
OWN_COLOUR = 60.0  # RGB distance within which a pixel shows a series' own colour
_RC = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 10,
    "axes.labelsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7,
    "axes.linewidth": 0.8,
    "svg.hashsalt": "mirforge",
    "path.simplify": False,
    "text.antialiased": True,
    # glyphs as drawn, without FreeType's auto-hinter: a tenth of a chart's time, and the 6-point value labels come
    # out cleaner (hinting bent '18' and '48' at that size)
    "text.hinting": "no_hinting",
}


@dataclass
class ChartSpec:
    """What to draw.

    ``xlabels`` are the x tick labels (pie: the wedge labels); ``series`` are (label, one value per x label).
    ``colors`` holds one colour per x label for ``bar`` and ``pie`` charts, one per series otherwise.
    """

    kind: str
    title: str
    xlabels: list[str]
    series: list[tuple[str, list[float]]]
    unit: str
    colors: list[str]
    ymax: float = 100.0
    value_labels: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown chart kind {self.kind!r}; expected one of {KINDS}")
        for name, values in self.series:
            if len(values) != len(self.xlabels):
                raise ValueError(f"series {name!r} has {len(values)} values for {len(self.xlabels)} x labels")
        if self.kind in ("bar", "pie") and len(self.series) != 1:
            raise ValueError(f"a {self.kind} chart draws exactly one series")


@dataclass
class Chart:
    rgb: np.ndarray  # H x W x 3 uint8
    reading: dict[str, Any]  # json-able drawing data in pixels (see module doc)
    boxes: dict[str, list[int]] = field(default_factory=dict)  # "series|x" -> pixel box of that mark; "plot"


def render_chart(spec: ChartSpec, size: int = 448) -> Chart:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(size / DPI, size / DPI), dpi=DPI, facecolor="white")
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0.15, 0.14, 0.8, 0.74) if spec.kind != "pie" else (0.08, 0.06, 0.84, 0.8))
        _draw(ax, spec)
        ticks = _ticks(ax, spec, canvas.get_renderer()) if spec.kind != "pie" else None
        canvas.draw()
        rgb = np.asarray(canvas.buffer_rgba())[..., :3].copy()
        height = rgb.shape[0]
        reading, boxes = _read(ax, spec, ticks, canvas.get_renderer(), height)
    return Chart(rgb=rgb, reading=reading, boxes=boxes)


def _draw(ax: Any, spec: ChartSpec) -> None:
    ax.set_title(spec.title, pad=8, y=1.0)  # a fixed y skips matplotlib's title placement search (a fifth of a draw)
    n = len(spec.xlabels)
    x = np.arange(n, dtype=float)
    if spec.kind == "pie":
        name, values = spec.series[0]
        wedges, _texts = ax.pie(
            values,
            labels=spec.xlabels,
            colors=spec.colors,
            startangle=90,
            counterclock=False,
            wedgeprops={"linewidth": 1.0, "edgecolor": "white"},
            labeldistance=1.08,
            textprops={"fontsize": 8},
        )
        total = sum(values)
        for wedge, value in zip(wedges, values, strict=True):
            wedge.set_gid(name)
            if spec.value_labels:
                mid = np.deg2rad((wedge.theta1 + wedge.theta2) / 2)
                ax.text(0.62 * np.cos(mid), 0.62 * np.sin(mid), f"{value:g}", ha="center", va="center", fontsize=8)
            else:
                mid = np.deg2rad((wedge.theta1 + wedge.theta2) / 2)
                share = 100 * value / total
                ax.text(
                    0.62 * np.cos(mid),
                    0.62 * np.sin(mid),
                    f"{share:.0f}%",
                    ha="center",
                    va="center",
                    fontsize=8,
                    gid=f"share|{wedge.get_label()}",
                )
        ax.text(0, -1.32, f"total {total:g} {spec.unit}", ha="center", va="center", fontsize=9, gid="total")
        ax.set_xlim(-1.45, 1.45)
        ax.set_ylim(-1.45, 1.3)
        ax.set_aspect("equal")
        return
    ax.set_ylim(0, spec.ymax)
    ax.spines[["top", "right"]].set_visible(False)
    if spec.kind == "bar":
        name, values = spec.series[0]
        bars = ax.bar(x, values, width=0.6, color=spec.colors, label=name)
        if spec.value_labels:
            ax.bar_label(bars, fmt="%g", padding=2, fontsize=8)
    elif spec.kind == "grouped":
        k = len(spec.series)
        width = 0.8 / k
        for j, (name, values) in enumerate(spec.series):
            bars = ax.bar(x + (j - (k - 1) / 2) * width, values, width=width * 0.95, color=spec.colors[j], label=name)
            if spec.value_labels:
                ax.bar_label(bars, fmt="%g", padding=1, fontsize=6)
        ax.legend(loc="upper right", frameon=False, ncols=min(k, 3))
    elif spec.kind == "stacked":
        bottom = np.zeros(n)
        for j, (name, values) in enumerate(spec.series):
            bars = ax.bar(x, values, width=0.6, bottom=bottom, color=spec.colors[j], label=name)
            if spec.value_labels:
                ax.bar_label(bars, fmt="%g", label_type="center", fontsize=7, color="white")
            bottom = bottom + np.asarray(values, dtype=float)
        ax.legend(loc="upper right", frameon=False, ncols=min(len(spec.series), 3))
    else:  # line
        for j, (name, values) in enumerate(spec.series):
            ax.plot(x, values, marker="o", markersize=4, linewidth=1.6, color=spec.colors[j], label=name)
            if spec.value_labels:
                for xi, v in zip(x, values, strict=True):
                    ax.annotate(f"{v:g}", (xi, v), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=6)
        ax.legend(loc="upper left", frameon=False, ncols=min(len(spec.series), 3))
        ax.set_xlim(-0.4, n - 0.6)


@dataclass
class _Ticks:
    y: list[tuple[float, Any]]  # (value, its label's Text)
    x: list[tuple[float, Any]]  # (position, its label's Text)


def mark_showing(chart: Chart, spec: ChartSpec, series: str, x_label: str) -> float:
    """The share of a line chart's dot for ``series`` at ``x_label`` that shows the series' own colour: a dot drawn
    over by later series' dots, where their values are close, can be hidden altogether."""
    from matplotlib.colors import to_rgb

    j = [name for name, _ in spec.series].index(series)
    mark = next(
        m
        for m in chart.reading["marks"]
        if m["series"] == series and _nearest_label(chart.reading["x_ticks"], m["x_px"]) == x_label
    )
    r = math.ceil(MARKER_RADIUS_PX)
    h, w = chart.rgb.shape[:2]
    y0, y1 = max(0, round(mark["y_px"]) - r), min(h, round(mark["y_px"]) + r + 1)
    x0, x1 = max(0, round(mark["x_px"]) - r), min(w, round(mark["x_px"]) + r + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dot = (xx - mark["x_px"]) ** 2 + (yy - mark["y_px"]) ** 2 <= MARKER_RADIUS_PX**2
    own = np.array(to_rgb(spec.colors[j])) * 255
    return float((np.linalg.norm(chart.rgb[y0:y1, x0:x1][dot] - own, axis=1) < OWN_COLOUR).mean())


def _ticks(ax: Any, spec: ChartSpec, renderer: Any) -> _Ticks:
    """The axes' ticks, grid and value-axis title drawn as a few plain artists, looking as matplotlib's own.

    matplotlib builds five artists per tick (two marks, a grid line, two labels) and measures every label again to
    place the axis titles; here each axis' marks are one marker line, the grid one line collection and each label
    one text: a sixth of a chart's time, the same pixels."""
    from matplotlib import lines, rcParams, ticker, transforms

    rc = rcParams  # inside render_chart's rc_context
    yaxis_t, xaxis_t = ax.get_yaxis_transform(), ax.get_xaxis_transform()
    lo, hi = ax.get_ylim()
    ys = [float(v) for v in ax.yaxis.get_major_locator()() if lo - 1e-9 <= v <= hi + 1e-9]
    ylabels = ax.yaxis.get_major_formatter().format_ticks(ys)
    xs = [float(v) for v in range(len(spec.xlabels))]
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(ticker.NullLocator())
    ax.hlines(ys, 0, 1, transform=yaxis_t, colors="#cccccc", linewidths=0.6, zorder=0.5)
    size, width, pad = rc["ytick.major.size"], rc["ytick.major.width"], rc["ytick.major.pad"]
    # gid "ticks": not a series' line, which _read looks for among the axes' lines
    marks = {"linestyle": "", "markersize": size, "markeredgewidth": width, "color": "black", "clip_on": False}
    marks["gid"] = "ticks"
    ax.add_artist(lines.Line2D([0] * len(ys), ys, marker=lines.TICKLEFT, transform=yaxis_t, **marks))
    ax.add_artist(lines.Line2D(xs, [0] * len(xs), marker=lines.TICKDOWN, transform=xaxis_t, **marks))
    shift = (size + pad) / 72
    left = yaxis_t + transforms.ScaledTranslation(-shift, 0, ax.figure.dpi_scale_trans)
    down = xaxis_t + transforms.ScaledTranslation(0, -shift, ax.figure.dpi_scale_trans)
    font = {"fontsize": rc["ytick.labelsize"], "clip_on": False}
    y = [
        (v, ax.text(0, v, t, transform=left, ha="right", va="center_baseline", **font))
        for v, t in zip(ys, ylabels, strict=True)
    ]
    x = [
        (v, ax.text(v, 0, t, transform=down, ha="center", va="top", **font))
        for v, t in zip(xs, spec.xlabels, strict=True)
    ]
    # the value axis' title left of its widest label, as matplotlib places it
    edge = min([ax.spines["left"].get_window_extent(renderer).x0] + [t.get_window_extent(renderer).x0 for _, t in y])
    ax.set_ylabel(spec.unit)
    ax.yaxis.set_label_coords(
        edge - rc["axes.labelpad"] * ax.figure.dpi / 72,
        0.5,
        transform=transforms.blended_transform_factory(transforms.IdentityTransform(), ax.transAxes),
    )
    return _Ticks(y=y, x=x)


def _px(ax: Any, xy: tuple[float, float], height: int) -> tuple[float, float]:
    """Data coordinates -> image pixels (column, row with row 0 at the top)."""
    dx, dy = ax.transData.transform(xy)
    return float(dx), float(height - dy)


def _box(extent: Any, height: int, width: int) -> list[int]:
    x0 = int(np.clip(np.floor(extent.x0), 0, width))
    x1 = int(np.clip(np.ceil(extent.x1), 0, width))
    y0 = int(np.clip(np.floor(height - extent.y1), 0, height))
    y1 = int(np.clip(np.ceil(height - extent.y0), 0, height))
    return [x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)]


def _read(
    ax: Any, spec: ChartSpec, ticks: _Ticks | None, renderer: Any, height: int
) -> tuple[dict[str, Any], dict[str, list[int]]]:
    width = height
    boxes: dict[str, list[int]] = {"plot": _box(ax.get_window_extent(renderer), height, width)}
    reading: dict[str, Any] = {"kind": spec.kind, "title": ax.get_title()}
    if spec.kind == "pie":
        wedges = []
        for patch in ax.patches:
            # the wedge's angular extent, measured from its outline in pixels around the pixel centre
            cx, cy = _px(ax, (patch.center[0], patch.center[1]), height)
            verts = ax.transData.transform(patch.get_patch_transform().transform(patch.get_path().vertices))
            angles = np.degrees(np.arctan2((height - verts[:, 1]) - cy, verts[:, 0] - cx) * -1)
            radii = np.hypot(verts[:, 0] - cx, (height - verts[:, 1]) - cy)
            rim = angles[radii > 0.5 * radii.max()]
            span = _angular_span(rim)
            wedges.append(
                {
                    "series": patch.get_gid(),
                    "label": patch.get_label(),
                    "span_deg": round(span, 3),
                    "box": _box(patch.get_window_extent(renderer), height, width),
                }
            )
            boxes[f"{patch.get_gid()}|{patch.get_label()}"] = wedges[-1]["box"]
        reading["wedges"] = wedges
        total = [t.get_text() for t in ax.texts if t.get_gid() == "total"]
        reading["total_text"] = total[0] if total else ""
        shares = {
            t.get_gid().split("|", 1)[1]: t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("share|")
        }
        if shares:
            reading["share_texts"] = shares
        return reading, boxes
    labelled = [(v, t) for v, t in ticks.y if t.get_text()]
    calib = []
    for v, t in (labelled[0], labelled[-1]):
        _, row = _px(ax, (0, v), height)
        calib.append([round(row, 3), _number(t.get_text())])
    reading["y_calib"] = calib
    reading["x_ticks"] = [{"label": t.get_text(), "px": round(_px(ax, (v, 0), height)[0], 3)} for v, t in ticks.x]
    marks = []
    if spec.kind == "line":
        for line in (line for line in ax.get_lines() if line.get_gid() != "ticks"):
            for xd, yd in line.get_xydata():
                col, row = _px(ax, (float(xd), float(yd)), height)
                x_label = _nearest_label(reading["x_ticks"], col)
                box = [int(col) - MARK_BOX_PX, int(row) - MARK_BOX_PX, int(col) + MARK_BOX_PX, int(row) + MARK_BOX_PX]
                marks.append({"series": line.get_label(), "x_px": round(col, 3), "y_px": round(row, 3), "box": box})
                boxes[f"{line.get_label()}|{x_label}"] = box
    else:
        for container in ax.containers:
            for patch in container.patches:
                bb = patch.get_bbox()  # data coordinates
                col, top = _px(ax, (bb.x0 + bb.width / 2, bb.y1), height)
                _, base = _px(ax, (bb.x0 + bb.width / 2, bb.y0), height)
                box = _box(patch.get_window_extent(renderer), height, width)
                series = container.get_label()
                marks.append(
                    {
                        "series": series,
                        "x_px": round(col, 3),
                        "top_px": round(top, 3),
                        "base_px": round(base, 3),
                        "box": box,
                    }
                )
                boxes[f"{series}|{_nearest_label(reading['x_ticks'], col)}"] = box
    reading["marks"] = marks
    return reading, boxes


def _angular_span(angles: np.ndarray) -> float:
    """Angular extent (degrees) of a set of directions that cover one arc, robust to the +-180 wrap."""
    a = np.sort(np.mod(angles, 360.0))
    gaps = np.diff(np.r_[a, a[0] + 360.0])
    return float(360.0 - gaps.max()) if len(a) > 1 else 0.0


def _number(text: str) -> float:
    return float(text.replace("\u2212", "-").replace(",", ""))


def _nearest_label(ticks: list[dict[str, Any]], col: float) -> str:
    return min(ticks, key=lambda t: abs(t["px"] - col))["label"]


def read_values(reading: dict[str, Any]) -> dict[str, dict[str, float]]:
    """series -> x label -> value, from the pixel reading alone (tick calibration, pie angles and total)."""
    out: dict[str, dict[str, float]] = {}
    if reading["kind"] == "pie":
        total = printed_total(reading)
        for w in reading["wedges"]:
            out.setdefault(w["series"], {})[w["label"]] = w["span_deg"] / 360.0 * total
        return out
    (r0, v0), (r1, v1) = reading["y_calib"]
    per_px = (v1 - v0) / (r1 - r0)

    def value(row: float) -> float:
        return v0 + (row - r0) * per_px

    for m in reading["marks"]:
        label = _nearest_label(reading["x_ticks"], m["x_px"])
        if reading["kind"] == "line":
            v = value(m["y_px"])
        else:
            v = value(m["top_px"]) - value(m["base_px"])
        out.setdefault(m["series"], {})[label] = v
    return out


def printed_total(reading: dict[str, Any]) -> float:
    """The total a pie prints below itself."""
    match = re.search(r"total\s+([-\d.,]+)", reading["total_text"])
    if not match:
        raise ValueError("pie chart without a readable total")
    return _number(match.group(1))


def read_printed_shares(reading: dict[str, Any]) -> dict[str, dict[str, float]]:
    """A pie's values as a person reads them off a pie that prints shares: each wedge's printed percentage of
    the printed total (17% of 345 = 58.65 where the wedge's angle gives 57). Empty for every other chart."""
    if "share_texts" not in reading:
        return {}
    total = printed_total(reading)
    out: dict[str, dict[str, float]] = {}
    for w in reading["wedges"]:
        pct = _number(reading["share_texts"][w["label"]].rstrip("%"))
        out.setdefault(w["series"], {})[w["label"]] = pct * total / 100
    return out


def units_per_px(reading: dict[str, Any]) -> float:
    """Data units per pixel of the value axis (pie: units per degree of the total)."""
    if reading["kind"] == "pie":
        return printed_total(reading) / 360.0
    (r0, v0), (r1, v1) = reading["y_calib"]
    return abs((v1 - v0) / (r1 - r0))
