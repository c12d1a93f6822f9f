"""Image-space baselines of ``mirforge audit``: ways to answer that never read the question.

- **option-image consensus** (tasks whose options are images): distractors made by perturbing the answer make the
  answer their consensus. Three scores per option image, on 64 x 64 thumbnails: ``img-median`` (closeness to the
  per-pixel median of the option images), ``img-mode`` (how often its pixels, 8 levels per channel, agree with the
  other option images'), ``img-near`` (closeness to the other option images on average). Each, like the text
  heuristics, picks the option it prefers or avoids it, whichever did better on the other cross-validation folds;
- **opt-alone**: a cross-validated classifier that scores each option image on its own features, one at a time;
- **opt-only**: a cross-validated classifier that sees only the option images, each against its siblings;
- **placement**: a cross-validated scorer of where each option's object is in the pictures, from the record's
  regions (perfect perception, no reasoning): how low and how large it is among the options' objects
  (:mod:`mirforge.placement`), a conditional logit per difficulty level;
- **one-image**: for each position among the other (evidence) images, a cross-validated classifier that sees that
  one image and predicts the answer's text (for options like "Image 4", that is the letter); each option gets the
  score of its text. Each fold is scored at the position that did best on the other folds; every position tried
  counts as a test.

The classifiers are linear (ridge) classifiers on simple per-image features: mean and std per channel, colour
histograms, edge density (whole image and quadrants), and 8 x 8 grey and 4 x 4 colour thumbnails.

Option images are the images ``provenance.roles`` marks ``"option"``, one per option in option order; otherwise the
images the options name, one each ("The top view in Image 3": image 3, counted from 1).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirforge.audit_stats import Shortcut, chosen_text, fold_of, out_of_fold, pick_credit, picked_or_avoided
from mirforge.placement import fit_odds, option_boxes, placement_features

IMAGE_REF = re.compile(r"\bimage\s+(\d+)\b", re.IGNORECASE)
THUMB = 64  # side of the thumbnails the consensus scores compare
CONSENSUS = ("img-median", "img-mode", "img-near")
RARE = "\x00rare"  # the class of answer texts too rare to learn; no option scores it


# -- which images are what -------------------------------------------------------------------------------------
def option_images(record: dict[str, Any]) -> list[int] | None:
    """Indices of the option images, in option order, or None when the options are not images."""
    n_images, n_options = len(record["images"]), len(record["options"])
    roles = (record.get("provenance") or {}).get("roles")
    if isinstance(roles, list) and len(roles) == n_images:
        marked = [i for i, role in enumerate(roles) if role == "option"]
        if len(marked) == n_options:
            return marked
    # Images the options name are checked whatever their role: the answer may be their consensus all the same.
    named = []
    for text in record["options"].values():
        refs = {int(m) for m in IMAGE_REF.findall(text)}
        if len(refs) != 1:
            return None
        named.append(refs.pop() - 1)
    if len(set(named)) != n_options or not all(0 <= i < n_images for i in named):
        return None
    return named


def needed_share(records: list[dict[str, Any]]) -> tuple[float | None, int, dict[int, float]]:
    """Percent of instances whose evidence images are all needed (``provenance.needed``), over the instances that
    record it; how many do; the percent per difficulty level. None when no instance records it."""
    flags, levels = [], []
    for r in records:
        needed = (r.get("provenance") or {}).get("needed")
        if not isinstance(needed, list):
            continue
        known = [v for v in needed if isinstance(v, bool)]
        if not known:
            continue
        flags.append(all(known))
        levels.append(level_of(r))
    if not flags:
        return None, 0, {}
    share = np.array(flags, float)
    return 100.0 * float(share.mean()), len(flags), per_level(share, levels)


def level_of(record: dict[str, Any]) -> int | None:
    level = (record.get("difficulty") or {}).get("level")
    return level if isinstance(level, int) and not isinstance(level, bool) else None


def per_level(credit: np.ndarray, levels: list[int | None]) -> dict[int, float]:
    out = {}
    for level in sorted({lv for lv in levels if lv is not None}):
        mine = np.array([lv == level for lv in levels])
        out[level] = 100.0 * float(credit[mine].mean())
    return out


# -- per image -------------------------------------------------------------------------------------------------
def reduced(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The image at 128 x 128 (for edges) and at THUMB x THUMB (for everything else), resized once from full size."""
    import cv2

    mid = cv2.resize(image, (128, 128), interpolation=cv2.INTER_AREA)
    return mid, cv2.resize(mid, (THUMB, THUMB), interpolation=cv2.INTER_AREA)


def features(mid: np.ndarray, thumb: np.ndarray) -> np.ndarray:
    """Simple features of one image (BGR, as :func:`reduced` gives it): what a classifier that cannot reason might
    latch onto."""
    import cv2

    pixels = thumb.reshape(-1, 3).astype(np.float32) / 255
    bins = np.minimum((pixels * 8).astype(np.int64), 7)
    hist = np.concatenate([np.bincount(bins[:, c], minlength=8) / len(bins) for c in range(3)])
    grey = cv2.cvtColor(mid, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(grey, 50, 150) > 0
    quadrants = [edges[y : y + 64, x : x + 64].mean() for y in (0, 64) for x in (0, 64)]
    return np.concatenate(
        [
            pixels.mean(axis=0),
            pixels.std(axis=0),
            hist,
            [edges.mean(), *quadrants],
            cv2.resize(grey, (8, 8), interpolation=cv2.INTER_AREA).ravel() / 255,
            cv2.resize(thumb, (4, 4), interpolation=cv2.INTER_AREA).ravel() / 255,
        ]
    ).astype(np.float32)


def consensus_scores(thumbs: np.ndarray) -> dict[str, np.ndarray]:
    """Per option image (``thumbs``: k x H x W x 3), how much it is the consensus of the others (higher: more)."""
    x = thumbs.astype(np.float32)
    k = len(x)
    median = np.median(x, axis=0)
    codes = (x // 32).astype(np.int32)  # 8 levels per channel
    codes = codes[..., 0] * 64 + codes[..., 1] * 8 + codes[..., 2]
    agree = np.array([(codes[np.arange(k) != i] == codes[i]).sum(axis=0).mean() for i in range(k)])
    pair = np.abs(x[:, None] - x[None, :]).mean(axis=(2, 3, 4))
    return {
        "img-median": -np.abs(x - median).mean(axis=(1, 2, 3)),
        "img-mode": agree,
        "img-near": -pair.sum(axis=1) / max(k - 1, 1),
    }


class ImageEvidence:
    """What the image baselines keep of each instance while the audit decodes its images (once, for all checks)."""

    def __init__(self, records: list[dict[str, Any]]):
        self.records = records
        self.options = [option_images(r) for r in records]
        self.features: list[list[np.ndarray | None]] = [[] for _ in records]
        self.consensus: list[dict[str, np.ndarray] | None] = [None for _ in records]

    def add(self, n: int, images: list[np.ndarray | None]) -> None:
        """The decoded images (None: unreadable) of instance ``n``."""
        small = [None if image is None else reduced(image) for image in images]
        self.features[n] = [None if pair is None else features(*pair) for pair in small]
        thumbs = [None if pair is None else pair[1] for pair in small]
        chosen = self.options[n]
        if chosen and all(thumbs[i] is not None for i in chosen):
            self.consensus[n] = consensus_scores(np.stack([thumbs[i] for i in chosen]))


# -- the baselines ---------------------------------------------------------------------------------------------
def image_shortcuts(evidence: ImageEvidence, folds: int = 5, seed: int = 0) -> list[Shortcut]:
    """The image-space baselines of one task, unjudged (see :func:`mirforge.audit_stats.judge`)."""
    records = evidence.records
    correct = [list(r["options"]).index(r["answer"]) for r in records]
    fold = fold_of(len(records), folds, seed)
    out = []
    with_options = [i for i, c in enumerate(evidence.consensus) if c is not None]
    if with_options:
        for name in CONSENSUS:
            scores = [evidence.consensus[i][name] for i in with_options]
            credit, firsts = picked_or_avoided(scores, [correct[i] for i in with_options], fold[with_options])
            how = chosen_text(firsts, ["picking it", "avoiding it"])
            out.append(summarise(name, f"image baseline {name} ({how})", credit, with_options, records, tries=2))
        for name, label, relative in (
            ("opt-alone", "image baseline opt-alone (each option image alone)", False),
            ("opt-only", "image baseline opt-only (the option images only)", True),
        ):
            rows = option_rows(evidence, with_options, relative=relative)
            out.append(classified(name, label, rows, with_options, records, correct, fold, folds))
    out.append(one_image(evidence, correct, fold, folds))
    out.append(placement(records, correct, fold, folds))
    return out


# -- where the options' objects are ----------------------------------------------------------------------------
def object_name(text: str) -> str:
    """An option's or a region's object name as the two are compared: "The shoe box" and "shoe box" alike."""
    words = text.lower().strip(" .").split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


def placement_rows(record: dict[str, Any]) -> np.ndarray | None:
    """Per option, where its object is among the options' objects in the evidence images, from the record's regions
    (:func:`mirforge.placement.placement_features`). None unless every option names an object boxed in some
    picture."""
    names = [object_name(t) for t in record["options"].values()]
    n_images = len(record["images"])
    found = [
        (int(r["image"]), object_name(str(r.get("name", ""))), r["box"])
        for r in record.get("regions") or []
        if isinstance(r.get("box"), list)
    ]
    boxes = option_boxes(found, names, n_images)
    boxed = ~np.isnan(boxes).any(axis=2)
    if not boxed.any(axis=0).all() or len(set(names)) < len(names):
        return None
    return placement_features(boxes, n_images)


def placement(records: list[dict[str, Any]], correct: list[int], fold: np.ndarray, folds: int) -> Shortcut:
    """A cross-validated scorer of where each option's object is in the pictures (:func:`placement_rows`): perfect
    perception without reasoning. A conditional logit per difficulty level (and option count): the levels' photos
    differ in number and role, and a pattern one level shows another may reverse (a scorer pooled over the levels
    read 29-31% on depth_relationship where one per level read 33-36% at level 2)."""
    label = "region baseline placement (where the options' objects are, not what the question asks)"
    rows, which = [], []
    for i, r in enumerate(records):
        found = placement_rows(r)
        if found is not None:
            rows.append(found)
            which.append(i)
    if len(which) < 2 * folds:
        why = f"{len(which)} instances, fewer than 2 per fold" if which else ""
        return Shortcut("placement", label, None, len(which), 0.0, why_not=why)
    answers, mine = [correct[i] for i in which], fold[which]
    groups: dict[tuple[int | None, int], list[int]] = {}
    for t, i in enumerate(which):
        groups.setdefault((level_of(records[i]), len(rows[t])), []).append(t)
    credit = np.zeros(len(which))
    for (_, k), group in groups.items():
        credit[group] = 1.0 / k  # chance, where no other fold holds this group
        for f in np.unique(mine[group]):
            train = [u for u in group if mine[u] != f]
            if not train:
                continue
            w = fit_odds(np.stack([rows[u] for u in train]), np.array([answers[u] for u in train]))
            for t in (u for u in group if mine[u] == f):
                credit[t] = pick_credit(rows[t] @ w, answers[t])
    return summarise("placement", label, credit, which, records)


def summarise(
    name: str, label: str, credit: np.ndarray, which: list[int], records: list[dict[str, Any]], tries: int = 1
) -> Shortcut:
    chance = 100.0 * float(np.mean([1.0 / len(records[i]["options"]) for i in which]))
    levels = [level_of(records[i]) for i in which]
    return Shortcut(
        name=name,
        label=label,
        value=100.0 * float(credit.mean()),
        n=len(which),
        chance=chance,
        tries=tries,
        by_level=per_level(credit, levels),
        level_n=dict(sorted(Counter(lv for lv in levels if lv is not None).items())),
    )


def option_rows(evidence: ImageEvidence, which: list[int], *, relative: bool) -> list[np.ndarray]:
    """Per instance, one feature row per option image: its own features, or its features against its siblings'
    (difference from their mean, and its consensus scores against theirs)."""
    rows = []
    for i in which:
        own = np.stack([evidence.features[i][j] for j in evidence.options[i]])
        if relative:
            scores = np.stack([s - s.mean() for s in evidence.consensus[i].values()], axis=1)
            own = np.concatenate([own - own.mean(axis=0), scores], axis=1)
        rows.append(own)
    return rows


def classified(
    name: str,
    label: str,
    rows: list[np.ndarray],
    which: list[int],
    records: list[dict[str, Any]],
    correct: list[int],
    fold: np.ndarray,
    folds: int,
) -> Shortcut:
    """A cross-validated scorer of option rows (is this the answer?); the best-scoring option is the guess."""
    if len(which) < 2 * folds:
        return Shortcut(name, label, None, len(which), 0.0, why_not=f"{len(which)} instances, fewer than 2 per fold")
    answers = [correct[i] for i in which]
    mine = fold[which]
    credit = np.zeros(len(which))
    for f in np.unique(mine):
        train, test = np.flatnonzero(mine != f), np.flatnonzero(mine == f)
        x = np.concatenate([rows[t] for t in train])
        y = np.concatenate([np.arange(len(rows[t])) == answers[t] for t in train]).astype(int)
        model = fitted(x, y)
        for t in test:
            credit[t] = pick_credit(model.decision_function(rows[t]), answers[t])
    return summarise(name, label, credit, which, records)


def fitted(x: np.ndarray, y: np.ndarray) -> Any:
    """A linear classifier on standardised features. Ridge, fitted in closed form: a logistic regression found the
    same shortcuts within a few points at 10 to 30 times the time (many answer texts make many classes)."""
    from sklearn.linear_model import RidgeClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), RidgeClassifier(alpha=100.0)).fit(x, y)


def answer_text(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class Position:
    """The evidence images at one position (the p-th image that is not an option image) and what they must tell."""

    owners: np.ndarray  # the instance each image belongs to
    x: np.ndarray  # their features
    texts: list[str]  # their instances' answer texts

    def credit(
        self, train: np.ndarray, test: np.ndarray, records: list[dict[str, Any]], correct: list[int]
    ) -> np.ndarray:
        """Credit on the ``test`` images (indices) of a classifier fitted on the ``train`` images."""
        seen = Counter(self.texts[t] for t in train)
        labels = [self.texts[t] if seen[self.texts[t]] >= 2 else RARE for t in train]  # a class needs examples
        if len(set(labels) - {RARE}) < 2:
            return np.array([1.0 / len(records[self.owners[t]]["options"]) for t in test])
        model = fitted(self.x[train], np.array(labels, dtype=object))
        classes = {c: k for k, c in enumerate(model.classes_)}
        scores = model.decision_function(self.x[test])
        if scores.ndim == 1:  # two classes: one score, for the second
            scores = np.stack([-scores, scores], axis=1)
        out = np.zeros(len(test))
        for k, (row, t) in enumerate(zip(scores, test, strict=True)):
            i = self.owners[t]
            texts_i = [answer_text(o) for o in records[i]["options"].values()]
            mine = np.array([row[classes[o]] if o in classes else -np.inf for o in texts_i])
            out[k] = pick_credit(mine, correct[i])
        return out


def positions(evidence: ImageEvidence, folds: int) -> dict[int, Position]:
    """The evidence-image positions a classifier can learn from: at least two answer texts recur ``folds`` times."""
    records = evidence.records
    found: dict[int, list[tuple[int, np.ndarray]]] = {}
    for i, r in enumerate(records):
        options = set(evidence.options[i] or ())
        others = [j for j in range(len(r["images"])) if j not in options]
        for p, j in enumerate(others):
            if j < len(evidence.features[i]) and evidence.features[i][j] is not None:
                found.setdefault(p, []).append((i, evidence.features[i][j]))
    out = {}
    for p, items in sorted(found.items()):
        texts = [answer_text(records[i]["options"][records[i]["answer"]]) for i, _ in items]
        if len(items) >= 2 * folds and sum(1 for c in Counter(texts).values() if c >= folds) >= 2:
            out[p] = Position(np.array([i for i, _ in items]), np.stack([f for _, f in items]), texts)
    return out


def one_image(evidence: ImageEvidence, correct: list[int], fold: np.ndarray, folds: int) -> Shortcut:
    """One classifier per evidence-image position, each seeing that one image and predicting the answer's text.
    Each fold is scored at the position that did best in a cross-validation among the other folds only (nested:
    ranked by their ordinary cross-validated credit on the other folds, which were scored by classifiers that saw
    the fold, random features measured 28.0% at n = 60 and 26.6% at n = 200 for a chance of 25%), or, for an
    instance without that position, at the best-ranked position it has. Every position counts as one test."""
    records = evidence.records
    label = "image baseline one-image"
    found = positions(evidence, folds)
    if not found:
        why = f"no image position with two answer texts recurring {folds} times or more"
        return Shortcut("one-image", label, None, len(records), 0.0, why_not=why)
    order = sorted(found)
    values = np.full((len(order), len(records)), np.nan)
    inner = np.full((folds, len(order)), -np.inf)
    for v, p in enumerate(order):
        where = fold[found[p].owners]
        present = np.unique(where)
        # fitted without folds f and g, a classifier scores g for the ranking of f and f for the ranking of g
        scored: dict[int, list[np.ndarray]] = {int(f): [] for f in present}
        for a, b in itertools.combinations(present, 2):
            train = np.flatnonzero((where != a) & (where != b))
            both = np.flatnonzero((where == a) | (where == b))
            credit = found[p].credit(train, both, records, correct)
            scored[int(a)].append(credit[where[both] == b])
            scored[int(b)].append(credit[where[both] == a])
        for f in present:
            test = np.flatnonzero(where == f)
            values[v, found[p].owners[test]] = found[p].credit(np.flatnonzero(where != f), test, records, correct)
            if scored[int(f)]:
                inner[f, v] = float(np.concatenate(scored[int(f)]).mean())
    credit, firsts = out_of_fold(values, fold, ranking=lambda f: inner[f])
    which = np.flatnonzero(np.isfinite(credit)).tolist()
    how = chosen_text(firsts, [f"evidence image {p + 1} alone" for p in order])
    return summarise("one-image", f"{label} ({how})", credit[which], which, records, tries=len(order))
