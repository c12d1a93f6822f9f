"""Terminal tables, ``results.json`` and small PNG charts (matplotlib Figure API, Agg; no pyplot state)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{100 * value:5.1f}%"


def table(summary: dict[str, Any], title: str = "") -> str:
    """Accuracy per task and per category, overall, parse failures and the letter confusion, as plain text."""
    chance = summary.get("chance", {})
    lines = [title] if title else []
    header = f"{'group':28} {'n':>6} {'acc':>7} {'chance':>7} {'unparsed':>9}"
    lines += [header, "-" * len(header)]

    def row(name: str, g: dict[str, Any], ch: float | None) -> str:
        return f"{name:28} {g['n']:6d} {_pct(g['accuracy']):>7} {_pct(ch):>7} {_pct(g['parse_failure_rate']):>9}"

    for task, g in summary["by_task"].items():
        lines.append(row(task, g, chance.get(task)))
    lines.append("-" * len(header))
    for cat, g in summary["by_category"].items():
        lines.append(row(f"[{cat}]", g, None))
    lines.append(row("overall", summary["overall"], chance.get("overall")))
    confusion = summary.get("confusion") or {}
    if confusion:
        chosen = sorted({c for row_ in confusion.values() for c in row_}, key=lambda c: (len(c) > 1, c))
        lines += ["", "confusion (rows: gold letter, columns: chosen)"]
        lines.append("gold " + "".join(f"{c[:8]:>9}" for c in chosen))
        for gold, counts in confusion.items():
            lines.append(f"{gold:4} " + "".join(f"{counts.get(c, 0):9d}" for c in chosen))
    return "\n".join(lines)


def write_json(data: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return path


def bar_chart(summary: dict[str, Any], path: Path, title: str = "accuracy") -> Path:
    """Accuracy per task (and overall) as horizontal bars, with the chance level marked."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = [*summary["by_task"], "overall"]
    values = [100 * (g["accuracy"] or 0.0) for g in summary["by_task"].values()]
    values.append(100 * (summary["overall"]["accuracy"] or 0.0))
    chance = summary.get("chance", {})
    fig = Figure(figsize=(6, 0.6 + 0.35 * len(names)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ys = list(range(len(names)))[::-1]
    ax.barh(ys, values, color=["#4c72b0"] * (len(names) - 1) + ["#dd8452"])
    for y, name in zip(ys, names, strict=True):
        if name in chance:
            ax.plot([100 * chance[name]] * 2, [y - 0.4, y + 0.4], color="black", linewidth=1)
    ax.set_yticks(ys, names)
    ax.set_xlim(0, 100)
    ax.set_xlabel("accuracy (%)  |  black tick: chance")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def curve_chart(points: Sequence[dict[str, Any]], path: Path, title: str = "held-out accuracy per stage") -> Path:
    """Overall held-out accuracy after each stage (``points``: {"stage", "accuracy", "chance"?})."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    xs = list(range(len(points)))
    ax.plot(xs, [100 * (p["accuracy"] or 0.0) for p in points], marker="o", label="accuracy")
    if points and points[0].get("chance") is not None:
        ax.axhline(100 * points[0]["chance"], color="grey", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(xs, [p["stage"] for p in points], rotation=30)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path
