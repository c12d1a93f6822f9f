"""Where the options' objects stand in the pictures: what a detector that never reads the question sees.

One feature row per option, from the boxes of the options' objects in each picture: how often it is in a picture,
its mean rank by the lowest row of its box (lower in the picture is nearer on a floor) and by its area, how often
it is the lowest, the highest, the largest or the smallest, and whether it is never the lowest nor the highest;
against the other options' mean. The audit's placement baseline scores these rows (perfect perception without
reasoning); a task may thin its own draws so that they tell nothing (:func:`keep_chance`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def option_boxes(regions: Iterable[tuple[int, str, Sequence[float]]], names: list[str], n_images: int) -> np.ndarray:
    """The boxes of the objects ``names`` (pictures x names x 4, NaN where one is not boxed) from regions given as
    (image, name, box)."""
    out = np.full((n_images, len(names), 4), np.nan)
    where = {n: k for k, n in enumerate(names)}
    for image, name, box in regions:
        if name in where and 0 <= image < n_images:
            out[image, where[name]] = box
    return out


def placement_features(boxes: np.ndarray, n_images: int) -> np.ndarray:
    """Feature rows (options x 8) from ``boxes`` (pictures x options x [x0, y0, x1, y1], NaN where an
    option's object is not in the picture); ``n_images``: the pictures of the instance, boxed or not."""
    k = boxes.shape[1]
    total = np.zeros((k, 7))
    for found in boxes:
        present = np.flatnonzero(~np.isnan(found).any(axis=1))
        if len(present) < 2:
            continue
        box = found[present]
        bottom, area = box[:, 3], (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])
        for j, i in enumerate(present):
            total[i] += [
                1,
                (bottom < bottom[j]).mean(),
                (area < area[j]).mean(),
                bottom[j] == bottom.max(),
                bottom[j] == bottom.min(),
                area[j] == area.max(),
                area[j] == area.min(),
            ]
    seen = np.maximum(total[:, :1], 1)
    n = max(n_images, 1)
    rows = np.concatenate([total[:, :1] / n, total[:, 1:3] / seen, total[:, 3:7] / n], axis=1)
    never = ((total[:, 0] > 0) & (total[:, 3] == 0) & (total[:, 4] == 0)).astype(float)[:, None]
    rows = np.concatenate([rows, never], axis=1)
    return rows - rows.mean(axis=0)


def fit_odds(rows: np.ndarray, answers: np.ndarray, l2: float = 1.0) -> np.ndarray:
    """Weights of a conditional logit (:func:`odds`) maximising the likelihood of the ``answers`` (rows: questions x
    options x features), with a ridge penalty ``l2``."""
    from scipy.optimize import minimize

    at = np.arange(len(rows))

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = rows @ w
        s = s - s.max(axis=1, keepdims=True)
        log_p = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        grad = -(rows[at, answers] - (np.exp(log_p)[:, :, None] * rows).sum(axis=1)).sum(axis=0) + 2 * l2 * w
        return float(-log_p[at, answers].sum() + l2 * w @ w), grad

    return minimize(loss, np.zeros(rows.shape[2]), jac=True, method="L-BFGS-B").x


def odds(rows: np.ndarray, weights: tuple[float, ...]) -> np.ndarray:
    """Each option's chance of being the answer under a conditional logit on its feature row."""
    score = rows @ np.asarray(weights, float)
    p = np.exp(score - score.max())
    return p / p.sum()


def keep_chance(rows: np.ndarray, weights: tuple[float, ...], answer: int) -> float:
    """The chance of keeping a draw whose answer is option ``answer`` so that, among the kept draws, the answer is
    every option equally often whatever the rows (when ``weights`` fit the unthinned draws): the likeliest-looking
    answers are thinned down to the least likely's odds."""
    p = odds(rows, weights)
    return float(p.min() / p[answer])
