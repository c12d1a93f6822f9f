"""The statistics of ``mirforge audit``: credit for a guess, and bounds that know the sample size.

A baseline breaks its bound only when the one-sided lower confidence bound of its accuracy (Clopper-Pearson, exact
binomial) exceeds chance plus the margin. A baseline with variants (a heuristic picks or avoids the option it
prefers; one image alone may be any of the evidence images) chooses its variant per cross-validation fold on the
other folds (:func:`out_of_fold`), so at chance its accuracy is an unbiased estimate of chance, not the best of
several draws. Every variant still counts as one test, and the confidence level is corrected for their number
(Bonferroni): choosing per fold makes the folds' results depend on each other, which spreads the estimate wider than
a binomial (about 1.5 times the variance, measured), and counting the variants keeps the false alarms under 5%.
So a valid split of 60 instances does not fail by luck. Letter shares get their own two-sided interval, corrected
for the number of letters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import beta, binom

CONFIDENCE = 0.95


def pick_credit(scores: np.ndarray, correct: int) -> float:
    """Expected accuracy of choosing the best-scoring option, ties broken at random."""
    best = np.flatnonzero(scores >= scores.max() - 1e-12)
    return 1.0 / len(best) if correct in best else 0.0


def avoid_credit(scores: np.ndarray, correct: int) -> float:
    """Expected accuracy of choosing at random among the options that do not score best."""
    best = set(np.flatnonzero(scores >= scores.max() - 1e-12).tolist())
    if len(best) == len(scores):
        return 1.0 / len(scores)
    return 0.0 if correct in best else 1.0 / (len(scores) - len(best))


def fold_of(n: int, folds: int, seed: int = 0) -> np.ndarray:
    """Each of ``n`` instances' cross-validation fold (0 to folds - 1), in a shuffled order: one split that all the
    baselines of a task share."""
    fold = np.empty(n, dtype=int)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % folds
    return fold


def out_of_fold(
    values: np.ndarray, fold: np.ndarray, ranking: Callable[[int], np.ndarray] | None = None
) -> tuple[np.ndarray, list[int]]:
    """Per instance, the credit of the best variant of a baseline, chosen without the instances it is scored on.

    ``values``: variants x instances, NaN where a variant does not apply to an instance. For each fold the variants
    are ranked on the other folds (by their mean credit there, or by ``ranking(fold)``), and each of the fold's
    instances gets the credit of the best-ranked variant that applies to it (NaN: none does). Choosing the best
    variant on the very instances it is scored on would lift a baseline at chance above it (the better of two
    directions, the best of seven images); chosen this way, its expected accuracy is chance. Returns the credits
    and each fold's first-ranked variant."""
    credit = np.full(values.shape[1], np.nan)
    firsts = []
    for f in np.unique(fold):
        inside = fold == f
        if ranking is None:
            seen = [row[np.isfinite(row)] for row in values[:, ~inside]]
            score = np.array([row.mean() if len(row) else -np.inf for row in seen])
        else:
            score = ranking(int(f))
        order = np.argsort(-score, kind="stable")
        firsts.append(int(order[0]))
        for i in np.flatnonzero(inside):
            usable = [v for v in order if np.isfinite(values[v, i])]
            if usable:
                credit[i] = values[usable[0], i]
    return credit, firsts


def picked_or_avoided(scores: list[np.ndarray], correct: list[int], fold: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Credit per instance of picking the option a heuristic scores best, or of avoiding it, whichever did better on
    the other folds (:func:`out_of_fold`; variant 0 picks, 1 avoids), and each fold's choice."""
    pick = [pick_credit(s, c) for s, c in zip(scores, correct, strict=True)]
    avoid = [avoid_credit(s, c) for s, c in zip(scores, correct, strict=True)]
    return out_of_fold(np.array([pick, avoid]), fold)


def chosen_text(firsts: list[int], names: list[str]) -> str:
    """What the folds chose, for a label: "picking it", or "picking it in 3 of 5 folds, avoiding it in 2"."""
    counts = Counter(firsts).most_common()
    if len(counts) == 1:
        return names[counts[0][0]]
    return ", ".join(
        f"{names[v]} in {c} of {len(firsts)} folds" if k == 0 else f"{names[v]} in {c}"
        for k, (v, c) in enumerate(counts)
    )


def lower_bound(successes: float, n: int, alpha: float) -> float:
    """One-sided Clopper-Pearson lower bound (level 1 - alpha) of a binomial proportion.

    ``successes`` may be fractional (ties share credit); the beta quantile is defined for any real count."""
    if n <= 0:
        return 0.0
    if successes <= 0:
        return 0.0
    successes = min(successes, n)
    return float(beta.ppf(alpha, successes, n - successes + 1))


def interval(successes: float, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval (level 1 - alpha) of a binomial proportion."""
    if n <= 0:
        return 0.0, 1.0
    successes = min(max(successes, 0.0), n)
    lo = 0.0 if successes <= 0 else float(beta.ppf(alpha / 2, successes, n - successes + 1))
    hi = 1.0 if successes >= n else float(beta.ppf(1 - alpha / 2, successes + 1, n - successes))
    return lo, hi


def flagged_from(n: int, limit: float, alpha: float) -> float | None:
    """The smallest accuracy (a fraction, k/n) whose lower bound exceeds ``limit``; None when not even n/n does."""
    if n <= 0:
        return None
    k = np.arange(1, n + 1, dtype=float)
    lows = beta.ppf(alpha, k, n - k + 1)
    above = np.flatnonzero(lows > limit)
    return float(k[above[0]] / n) if len(above) else None


def chance_above(n: int, chance: float, limit: float) -> float:
    """Probability that a baseline at ``chance`` (a fraction) reads above ``limit`` on ``n`` instances, taken as
    binomial: how often a fair generator's cell of that size is marked by luck alone."""
    return float(binom.sf(np.floor(n * limit + 1e-9), n, chance)) if n > 0 else 0.0


@dataclass
class Shortcut:
    """One way to answer without the reasoning (a text heuristic, a classifier, an image baseline), judged."""

    name: str  # the table's column
    label: str  # how a broken bound names it
    value: float | None  # accuracy, percent; None: not run (too few instances, nothing to score)
    n: int  # instances it was measured on
    chance: float  # percent, on those instances
    tries: int = 1  # variants the baseline chose among (directions, image positions); each counts as one test
    by_level: dict[int, float] = field(default_factory=dict)  # percent per difficulty level (image baselines)
    level_n: dict[int, int] = field(default_factory=dict)  # instances per difficulty level behind ``by_level``
    lower: float | None = None  # corrected one-sided lower confidence bound, percent
    flagged_from: float | None = None  # the accuracy, percent, that would break the bound at this n (None: none)
    status: str = "untested"  # ok | above (point estimate above the limit, not proven at this n) | broken
    why_not: str = ""  # why it was not run, when ``value`` is None


def judge(shortcuts: list[Shortcut], margin: float, confidence: float = CONFIDENCE) -> int:
    """Fill each shortcut's corrected bound and status; the number of tests the correction counted."""
    tests = sum(s.tries for s in shortcuts if s.value is not None)
    alpha = (1 - confidence) / max(tests, 1)
    for s in shortcuts:
        if s.value is None:
            continue
        limit = (s.chance + margin) / 100
        s.lower = 100 * lower_bound(s.value / 100 * s.n, s.n, alpha)
        first = flagged_from(s.n, limit, alpha)
        s.flagged_from = None if first is None else 100 * first
        if s.lower > 100 * limit + 1e-9:
            s.status = "broken"
        elif s.value > 100 * limit + 1e-9:
            s.status = "above"
        else:
            s.status = "ok"
    return tests


def letter_intervals(counts: dict[str, int], n: int, confidence: float = CONFIDENCE) -> dict[str, tuple[float, float]]:
    """Per letter, the two-sided interval (percent) of its share, corrected for the number of letters."""
    alpha = (1 - confidence) / max(len(counts), 1)
    return {
        letter: (100 * lo, 100 * hi) for letter, (lo, hi) in ((k, interval(c, n, alpha)) for k, c in counts.items())
    }
