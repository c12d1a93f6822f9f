"""``mirforge stats``: per-task counts of a dataset folder, and PNG plots beside MIR's published figures."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mirforge import CATEGORIES

# MIR's published figures (arXiv 2509.17040, Table 1 and Figure 2).
MIR_INSTANCES = 22_257
MIR_IMAGES = 138_277
MIR_IMAGES_PER_INSTANCE = MIR_IMAGES / MIR_INSTANCES  # about 6.21
MIR_CATEGORIES = {"sequential": 5_455, "spatial": 9_350, "analytical": 7_821}  # sum 22,626 (the figure's)
STEPS = ("summary", "caption", "text2img", "img2img", "conclusion")


@dataclass
class TaskStats:
    task: str
    category: str
    instances: int = 0
    images: int = 0
    step_chars: dict[str, float] = field(default_factory=dict)  # mean characters per step
    letters: Counter = field(default_factory=Counter)
    levels: Counter = field(default_factory=Counter)
    splits: Counter = field(default_factory=Counter)
    images_per_instance: Counter = field(default_factory=Counter)

    @property
    def mean_images(self) -> float:
        return self.images / self.instances if self.instances else 0.0

    @property
    def mean_step_chars(self) -> float:
        return sum(self.step_chars.values()) / len(self.step_chars) if self.step_chars else 0.0

    def letter_shares(self) -> dict[str, float]:
        return {k: v / self.instances for k, v in sorted(self.letters.items())}

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "category": self.category,
            "instances": self.instances,
            "images": self.images,
            "mean_images_per_instance": round(self.mean_images, 4),
            "mean_chars_per_step": {k: round(v, 1) for k, v in self.step_chars.items()},
            "letters": dict(sorted(self.letters.items())),
            "levels": {str(k): v for k, v in sorted(self.levels.items())},
            "splits": dict(sorted(self.splits.items())),
            "images_per_instance": {str(k): v for k, v in sorted(self.images_per_instance.items())},
        }


def step_length(record: dict[str, Any], step: str) -> int:
    value = record[step]
    return sum(len(v) for v in value) if isinstance(value, list) else len(value)


def compute(records: list[dict[str, Any]]) -> dict[str, TaskStats]:
    """Stats per task, plus ``"all"`` over every record."""
    out: dict[str, TaskStats] = {}
    chars: dict[str, Counter] = {}
    for record in records:
        for key in (record["task"], "all"):
            stats = out.setdefault(key, TaskStats(key, record["category"] if key != "all" else "-"))
            stats.instances += 1
            stats.images += len(record["images"])
            stats.letters[record["answer"]] += 1
            stats.levels[record["difficulty"]["level"]] += 1
            stats.splits[record["split"]] += 1
            stats.images_per_instance[len(record["images"])] += 1
            total = chars.setdefault(key, Counter())
            for step in STEPS:
                total[step] += step_length(record, step)
    for key, stats in out.items():
        stats.step_chars = {step: chars[key][step] / stats.instances for step in STEPS}
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "all", kv[0])))


def format_table(stats: dict[str, TaskStats]) -> str:
    letters = sorted({letter for s in stats.values() for letter in s.letters})
    levels = sorted({level for s in stats.values() for level in s.levels})
    head = (
        f"{'task':24} {'category':11} {'inst':>6} {'images':>7} {'img/inst':>8} {'chars/step':>10}  "
        + " ".join(f"{letter:>5}" for letter in letters)
        + "  "
        + " ".join(f"{'L' + str(level):>5}" for level in levels)
    )
    lines = [head, "-" * len(head)]
    for s in stats.values():
        shares = s.letter_shares()
        lines.append(
            f"{s.task:24} {s.category:11} {s.instances:6d} {s.images:7d} {s.mean_images:8.2f} "
            f"{s.mean_step_chars:10.0f}  "
            + " ".join(f"{shares.get(letter, 0.0):5.0%}" for letter in letters)
            + "  "
            + " ".join(f"{s.levels.get(level, 0):5d}" for level in levels)
        )
    total = stats.get("all")
    if total is not None:
        lines.append(
            f"{'MIR (published)':24} {'-':11} {MIR_INSTANCES:6d} {MIR_IMAGES:7d} {MIR_IMAGES_PER_INSTANCE:8.2f}"
        )
    lines.append("letters: share of answers per letter; L1..: instances per generator difficulty level")
    return "\n".join(lines)


def category_counts(stats: dict[str, TaskStats]) -> dict[str, int]:
    counts = dict.fromkeys(CATEGORIES, 0)
    for s in stats.values():
        if s.task != "all":
            counts[s.category] = counts.get(s.category, 0) + s.instances
    return counts


# -- plots ----------------------------------------------------------------------------------------------------
def write_plots(stats: dict[str, TaskStats], out: Path) -> list[Path]:
    """``letters.png``, ``difficulty.png`` and ``mir-comparison.png`` under ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [s for s in stats.values() if s.task != "all"]
    names = [s.task for s in tasks]
    written = []

    letters = sorted({letter for s in tasks for letter in s.letters})
    fig = Figure(figsize=(max(6.0, 0.7 * len(names) + 2), 4.2), layout="constrained")
    ax = fig.subplots()
    bottom = [0.0] * len(tasks)
    for letter in letters:
        shares = [s.letter_shares().get(letter, 0.0) for s in tasks]
        ax.bar(names, shares, bottom=bottom, label=letter)
        bottom = [b + v for b, v in zip(bottom, shares, strict=True)]
    for k in range(1, len(letters)):
        ax.axhline(k / len(letters), color="black", lw=0.6, ls="--")
    ax.set_ylabel("share of answers")
    ax.set_title("Answer letters per task (dashed: an exactly uniform split)")
    ax.tick_params(axis="x", rotation=45)
    ax.legend(title="letter", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    written.append(_save(fig, out / "letters.png"))

    levels = sorted({level for s in tasks for level in s.levels})
    fig = Figure(figsize=(max(6.0, 0.7 * len(names) + 2), 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(len(levels), 1)
    for j, level in enumerate(levels):
        xs = [i + (j - (len(levels) - 1) / 2) * width for i in range(len(tasks))]
        ax.bar(xs, [s.levels.get(level, 0) for s in tasks], width=width, label=f"level {level}")
    ax.set_xticks(range(len(tasks)), names, rotation=45, ha="right")
    ax.set_ylabel("instances")
    ax.set_title("Generator difficulty levels per task")
    ax.legend()
    written.append(_save(fig, out / "difficulty.png"))

    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2)
    ours = category_counts(stats)
    total_ours = sum(ours.values()) or 1
    total_mir = sum(MIR_CATEGORIES.values())
    cats = list(MIR_CATEGORIES)
    xs = range(len(cats))
    left.bar([x - 0.2 for x in xs], [ours.get(c, 0) / total_ours for c in cats], width=0.4, label="this dataset")
    left.bar([x + 0.2 for x in xs], [MIR_CATEGORIES[c] / total_mir for c in cats], width=0.4, label="MIR (Fig. 2)")
    left.set_xticks(list(xs), cats)
    left.set_ylabel("share of instances")
    left.set_title("Category shares")
    left.legend()
    means = [s.mean_images for s in tasks]
    right.bar(names, means, label="this dataset")
    right.axhline(MIR_IMAGES_PER_INSTANCE, color="crimson", ls="--", label=f"MIR mean {MIR_IMAGES_PER_INSTANCE:.2f}")
    if "all" in stats:
        right.axhline(stats["all"].mean_images, color="black", ls=":", label=f"our mean {stats['all'].mean_images:.2f}")
    right.set_ylabel("images per instance")
    right.set_title(f"Images per instance\n(MIR: {MIR_IMAGES:,} images / {MIR_INSTANCES:,} instances)")
    right.tick_params(axis="x", rotation=45)
    right.legend()
    written.append(_save(fig, out / "mir-comparison.png"))
    return written


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, dpi=100)
    return path
