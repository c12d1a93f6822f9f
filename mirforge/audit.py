"""``mirforge audit``: is a generated benchmark valid, or can a model pass it without looking at the images?

Per task, against configurable bounds:

- **answer letters**: each letter's share within ``100/k +- letter_tolerance`` points (k options): a letter breaks
  when its confidence interval lies outside that band;
- **blind baseline**: a text-only classifier, cross-validated, must not beat chance by more than
  ``blind_margin`` points: it breaks when the lower confidence bound of its accuracy does (see
  :mod:`mirforge.audit_stats`; every baseline and variant run on a task counts in the correction). It scores each
  (question, option) pair with a logistic regression on TF-IDF features of the option, the words it shares with
  the question, and its length, question overlap and similarity to the other options relative to the instance's
  other options; the predicted answer is the best-scoring option.
  Scoring pairs, rather than training one classifier per letter on the whole text, shares the weights across
  positions (the letter is balanced by construction and audited on its own), needs k times less data to learn
  "what a correct option looks like", and works for any number of options;
- **heuristics** under the same bound: the longest option, the most specific option (rarest words), the option
  that repeats most words of the question, and the consensus option (most similar to the others, the classic
  leak of distractors made by perturbing the answer). Each heuristic picks the option it prefers or avoids it,
  whichever did better on the other cross-validation folds; ties share the credit. Where every option holds one
  number, the option of one rank by it (or the one nearest the options' mean) is a heuristic too;
- **image baselines** under the same bound, which never read the question (:mod:`mirforge.audit_images`):
  option-image consensus, one option image alone, the option images only, one evidence image alone, and where the
  options' objects sit in the pictures (from the regions: perfect perception without reasoning);
- **needed**: the share of instances whose evidence images are all needed (``provenance.needed``);
- **duplicates**: identical question + options + image bytes, identical image sets, and near-duplicate image
  sets (the same perceptual hashes);
- **image sanity**: no blank or near-uniform image; every region inside its image and at least a few pixels;
- **regeneration**: a sample of instances rebuilt alone from the manifest (sample, ask, render, verify) gives
  the same record (so the same answer) and the same image bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from mirforge.audit_images import IMAGE_REF, ImageEvidence, image_shortcuts, needed_share, summarise
from mirforge.audit_stats import (
    CONFIDENCE,
    Shortcut,
    chance_above,
    chosen_text,
    fold_of,
    judge,
    letter_intervals,
    out_of_fold,
    pick_credit,
    picked_or_avoided,
)
from mirforge.dataset import Dataset
from mirforge.dataset import Entry as Loaded  # one instance line, as the reader gives it
from mirforge.errors import InputError

CONFIDENCE_TEXT = f"{CONFIDENCE:.0%} one-sided"
TOKEN = re.compile(r"\w+")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
STOP = frozenset(
    "a an the of in on at to is are was were be by for and or with from that this which what these those it its "
    "as than into image images".split()
)


@dataclass
class Bounds:
    """The bounds an audit checks; every field can be set in a YAML or TOML file or on the command line."""

    letter_tolerance: float = 3.0  # points around 100/k
    blind_margin: float = 5.0  # points above chance no baseline's lower confidence bound may exceed (text and image)
    duplicates: int = 0  # identical question + options + images
    image_set_duplicates: int = 0  # identical sets of image bytes
    near_duplicates: int = 0  # identical sets of perceptual image hashes (that are not identical bytes)
    reused_images: float = 100.0  # percent of instances sharing an image with another one (default: not checked)
    needed: float = 0.0  # least percent of instances whose evidence images are all needed (default: not checked)
    blank_images: int = 0
    bad_regions: int = 0
    uniform_std: float = 2.0  # an image whose every colour channel varies less than this (std) is blank
    min_region_area: int = 16  # pixels
    min_region_side: int = 2  # pixels
    regen_agreement: float = 100.0  # percent of the regenerated sample that must match byte for byte

    @classmethod
    def load(cls, path: Path | None, **overrides: Any) -> Bounds:
        values: dict[str, Any] = {}
        if path is not None:
            values = read_bounds_file(Path(path))
        values.update({k: v for k, v in overrides.items() if v is not None})
        kinds = {f.name: f.type for f in dataclasses.fields(cls)}
        where = str(path) if path is not None else "bounds"
        for key, value in values.items():
            if key not in kinds:
                raise InputError(f"{where}: unknown bound {key!r}; known bounds: {', '.join(kinds)}")
            want = int if kinds[key] in (int, "int") else float
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InputError(f"{where}: {key} must be a number, got {value!r}")
            if want is int and value != int(value):
                raise InputError(f"{where}: {key} must be a whole number, got {value!r}")
            if value < 0:
                raise InputError(f"{where}: {key} must not be negative, got {value!r}")
            values[key] = want(value)
        return cls(**values)


def read_bounds_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--bounds: cannot read {path} ({exc})") from None
    try:
        if path.suffix == ".toml":
            data = tomllib.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # yaml and toml raise their own error types
        kind = "TOML" if path.suffix == ".toml" else "YAML"
        raise InputError(f"--bounds: {path} is not valid {kind} ({exc})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"--bounds: {path} must hold a mapping of bound names to numbers")
    return dict(data)


@dataclass
class TaskAudit:
    task: str
    n: int = 0
    k: int = 0
    letters: dict[str, float] = field(default_factory=dict)  # percent
    letter_deviation: float = 0.0  # points, the largest
    letter_intervals: dict[str, tuple[float, float]] = field(default_factory=dict)  # percent, corrected
    letter_expected: dict[str, float] = field(default_factory=dict)  # percent
    chance: float = 0.0  # percent
    blind: float | None = None  # cross-validated accuracy, percent (None: too few instances)
    heuristics: dict[str, float] = field(default_factory=dict)  # percent
    shortcuts: list[Shortcut] = field(default_factory=list)  # every baseline above and the image ones, judged
    tests: int = 0  # accuracies tried, which the confidence level is corrected for
    needed: float | None = None  # percent of instances whose evidence images are all needed (None: not recorded)
    needed_n: int = 0  # instances that record it
    needed_by_level: dict[int, float] = field(default_factory=dict)
    duplicates: int = 0
    image_set_duplicates: int = 0
    near_duplicates: int = 0
    reused: float = 0.0  # percent of instances with an image byte-identical to one of another instance
    images: int = 0
    blank_images: list[str] = field(default_factory=list)
    regions: int = 0
    bad_regions: list[str] = field(default_factory=list)
    regenerated: int = 0
    regen_disagreements: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the audit cannot tell at this n

    @property
    def regen_agreement(self) -> float | None:
        if not self.regenerated:
            return None
        return 100.0 * (self.regenerated - len(self.regen_disagreements)) / self.regenerated


# -- reading --------------------------------------------------------------------------------------------------
def load_dataset(root: Path, tasks: list[str] | None = None, split: str | None = None) -> dict[str, list[Loaded]]:
    by_task: dict[str, list[Loaded]] = {}
    for entry in Dataset(root, tasks, split).entries():
        try:
            _check_shape(entry.record)
        except (ValueError, TypeError, KeyError) as exc:
            raise InputError(f"{entry.where}: not an instance record ({exc}); run `mirforge validate {root}`") from None
        by_task.setdefault(entry.task, []).append(entry)
    return by_task


def _check_shape(record: Any) -> None:
    if not isinstance(record, dict):
        raise TypeError(f"expected an object, got {type(record).__name__}")
    if not isinstance(record["question"], str) or not isinstance(record["options"], dict):
        raise TypeError("question must be a string and options an object")
    if record["answer"] not in record["options"] or not all(isinstance(v, str) for v in record["options"].values()):
        raise ValueError("answer is not an option, or an option is not a string")
    if not isinstance(record["images"], list) or not isinstance(record.get("regions", []), list):
        raise TypeError("images and regions must be lists")


# -- text ------------------------------------------------------------------------------------------------------
def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def content(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in STOP}


def grams(text: str) -> set[tuple[str, ...]]:
    words = tokens(text)
    return {(w,) for w in words} | set(zip(words, words[1:], strict=False))


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def option_stats(records: list[dict[str, Any]]) -> list[dict[str, np.ndarray]]:
    """Per instance, per option: length, specificity (sum of IDF of its words), question overlap, consensus."""
    docs = Counter(w for r in records for text in r["options"].values() for w in set(tokens(text)))
    total = sum(len(r["options"]) for r in records)
    idf = {w: math.log((1 + total) / (1 + df)) + 1 for w, df in docs.items()}
    out = []
    for r in records:
        texts = list(r["options"].values())
        question = content(r["question"])
        g = [grams(t) for t in texts]
        consensus = [
            float(np.mean([jaccard(g[i], g[j]) for j in range(len(texts)) if j != i])) if len(texts) > 1 else 0.0
            for i in range(len(texts))
        ]
        out.append(
            {
                "longest": np.array([len(t) for t in texts], float),
                "specific": np.array([sum(idf[w] for w in set(tokens(t))) for t in texts], float),
                "overlap": np.array([len(content(t) & question) for t in texts], float),
                "consensus": np.array(consensus, float),
            }
        )
    return out


def heuristics(records: list[dict[str, Any]], folds: int = 5, seed: int = 0) -> dict[str, float]:
    """Accuracy (percent) of each heuristic, picking or avoiding the option it prefers as the other folds found
    better."""
    stats = option_stats(records)
    correct = [list(r["options"]).index(r["answer"]) for r in records]
    fold = fold_of(len(records), folds, seed)
    out = {}
    for name in ("longest", "specific", "overlap", "consensus"):
        credit, _ = picked_or_avoided([s[name] for s in stats], correct, fold)
        out[name] = 100.0 * float(credit.mean())
    return out


def option_numbers(record: dict[str, Any]) -> np.ndarray | None:
    """The number in each option, when every option holds exactly one ("+72 kWh", "about 1.9 times"), else None.
    An image number ("Image 4") is no quantity: its rank is the answer's letter, which is audited on its own."""
    values = []
    for text in record["options"].values():
        if IMAGE_REF.search(text):
            return None
        found = NUMBER.findall(text.replace(",", ""))
        if len(found) != 1:
            return None
        values.append(float(found[0]))
    return np.array(values)


def numeric_rank(records: list[dict[str, Any]], folds: int = 5, seed: int = 0) -> Shortcut:
    """The option of a given rank by its number (the smallest, the second smallest, ...) or the one nearest the
    options' mean, whichever did best on the other folds: distractors drawn on one side of the answer make its
    rank a tell that no text feature shows. Run on the instances whose options hold one number each, chosen apart
    for signed options ("+72", "-15": a change) and plain ones (a total), which a task draws differently."""
    parsed = {i: numbers for i, r in enumerate(records) if (numbers := option_numbers(r)) is not None}
    which = list(parsed)
    label = "heuristic numeric rank"
    if not which:
        return Shortcut("rank", label, None, 0, 0.0)
    k = max(len(records[i]["options"]) for i in which)
    names = [f"rank {r + 1} from the smallest" for r in range(k)] + ["nearest the mean"]
    fold = fold_of(len(records), folds, seed)
    credit = np.zeros(len(which))
    hows, tries = [], 0
    signed = np.array([any(t.lstrip().startswith(("+", "-")) for t in records[i]["options"].values()) for i in which])
    for kind, mine in (("signed", signed), ("plain", ~signed)):
        if not mine.any():
            continue
        values = np.full((k + 1, int(mine.sum())), np.nan)
        for col, i in enumerate(np.array(which)[mine]):
            numbers = parsed[i]
            correct = list(records[i]["options"]).index(records[i]["answer"])
            ranks = rankdata(numbers) - 1  # ties share a rank
            for r in range(len(numbers)):
                values[r, col] = pick_credit(-np.abs(ranks - r), correct)
            values[k, col] = pick_credit(-np.abs(numbers - numbers.mean()), correct)
        credit[mine], firsts = out_of_fold(values, fold[np.array(which)[mine]])
        hows.append(f"{kind}: {chosen_text(firsts, names)}")
        tries += k + 1
    chance = 100.0 * float(np.mean([1.0 / len(records[i]["options"]) for i in which]))
    return Shortcut(
        "rank", f"{label} ({'; '.join(hows)})", 100.0 * float(credit.mean()), len(which), chance, tries=tries
    )


def blind_baseline(records: list[dict[str, Any]], folds: int = 5, seed: int = 0) -> float | None:
    """Cross-validated accuracy (percent) of the text-only option scorer, or None with too few instances."""
    credit = blind_credits(records, folds, seed)
    return None if credit is None else 100.0 * float(credit.mean())


def blind_credits(records: list[dict[str, Any]], folds: int = 5, seed: int = 0) -> np.ndarray | None:
    """Per instance, the credit of the text-only option scorer (see the module docstring), each scored by a model
    fitted on the other folds; None with too few instances."""
    try:
        from scipy.sparse import csr_matrix, hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise InputError(
            "mirforge audit needs the [audit] extra (scikit-learn): pip install 'mirforge[audit]'"
        ) from None
    if len(records) < 2 * folds:
        return None
    stats = option_stats(records)
    rows_option, rows_shared, dense, label, owner = [], [], [], [], []
    for i, (r, s) in enumerate(zip(records, stats, strict=True)):
        question = content(r["question"])
        relative = np.stack([v - v.mean() for v in s.values()], axis=1)  # each option against its siblings
        scale = np.stack([v.std() + 1e-9 for v in s.values()])
        for j, (letter, text) in enumerate(r["options"].items()):
            rows_option.append(text)
            rows_shared.append(" ".join(sorted(content(text) & question)) or "_none_")
            dense.append(np.concatenate([relative[j], relative[j] / scale]))
            label.append(int(letter == r["answer"]))
            owner.append(i)
    owner_a, label_a, dense_a = np.array(owner), np.array(label), np.array(dense)
    credit = np.zeros(len(records))
    fold = fold_of(len(records), folds, seed)
    for f in range(folds):
        test_i = np.flatnonzero(fold == f)
        train = ~np.isin(owner_a, test_i)
        test = ~train
        opt = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2), sublinear_tf=True)
        shared = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b")
        text_o = np.array(rows_option, dtype=object)
        text_s = np.array(rows_shared, dtype=object)
        x_train = hstack([opt.fit_transform(text_o[train]), shared.fit_transform(text_s[train]), dense_a[train]])
        x_test = hstack([opt.transform(text_o[test]), shared.transform(text_s[test]), csr_matrix(dense_a[test])])
        if len(set(label_a[train])) < 2:
            continue
        model = LogisticRegression(C=1.0, max_iter=2000)
        model.fit(x_train.tocsr(), label_a[train])
        scores = model.decision_function(x_test.tocsr())
        test_owner = owner_a[test]
        for i in test_i:
            mine = scores[test_owner == i]
            letters = list(records[i]["options"])
            credit[i] = pick_credit(mine, letters.index(records[i]["answer"]))
    return credit


# -- images ----------------------------------------------------------------------------------------------------
def thumb_hash(image: np.ndarray) -> str:
    """A near-duplicate key: the 16 x 16 colour thumbnail, 8 levels per channel (noise-level changes keep it)."""
    import cv2

    small = cv2.resize(image, (16, 16), interpolation=cv2.INTER_AREA) // 32
    return hashlib.sha1(small.astype(np.uint8).tobytes()).hexdigest()


def audit_images(
    root: Path, loaded: list[Loaded], bounds: Bounds, result: TaskAudit, evidence: ImageEvidence | None = None
) -> None:
    """Duplicates and image sanity; ``evidence`` gets each instance's decoded images (read once for all checks)."""
    import cv2

    exact: Counter = Counter()
    sets: Counter = Counter()
    near: dict[tuple, set] = {}
    owners: dict[str, set] = {}
    for n, item in enumerate(loaded):
        r = item.record
        digests, hashes, sizes = [], [], []
        decoded: list[np.ndarray | None] = []
        for rel in r["images"]:
            result.images += 1
            try:
                data = (root / rel).read_bytes()
            except OSError:
                decoded.append(None)
                result.blank_images.append(f"{rel}: missing")
                digests.append("missing:" + rel)
                hashes.append("missing:" + rel)
                sizes.append(None)
                continue
            digests.append(hashlib.sha256(data).hexdigest())
            owners.setdefault(digests[-1], set()).add(n)
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            decoded.append(image)
            if image is None:
                result.blank_images.append(f"{rel}: not a readable image")
                hashes.append("unreadable:" + rel)
                sizes.append(None)
                continue
            # per channel: pink and cyan on beige differ in colour, hardly in grey level
            std = float(cv2.meanStdDev(image)[1].max())
            if std < bounds.uniform_std:
                result.blank_images.append(f"{rel}: near-uniform (colour std {std:.2f})")
            hashes.append(thumb_hash(image))
            sizes.append(image.shape[:2])
        if evidence is not None:
            evidence.add(n, decoded)
        for i, region in enumerate(r.get("regions", [])):
            result.regions += 1
            problem = region_problem(region, sizes, bounds)
            if problem:
                result.bad_regions.append(f"{r['id']} regions[{i}] ({region.get('name')}): {problem}")
        exact[(r["question"], json.dumps(r["options"], sort_keys=True), tuple(digests))] += 1
        sets[tuple(sorted(digests))] += 1
        near.setdefault(tuple(sorted(hashes)), set()).add(tuple(sorted(digests)))
    result.duplicates = sum(c - 1 for c in exact.values())
    result.image_set_duplicates = sum(c - 1 for c in sets.values())
    result.near_duplicates = sum(len(v) - 1 for v in near.values())
    shared = {i for users in owners.values() if len(users) > 1 for i in users}
    result.reused = 100.0 * len(shared) / len(loaded) if loaded else 0.0


def region_problem(region: Any, sizes: list, bounds: Bounds) -> str | None:
    try:
        image = int(region["image"])
        x0, y0, x1, y1 = (int(v) for v in region["box"])
    except (KeyError, TypeError, ValueError):
        return "not an {image, box} region"
    if not 0 <= image < len(sizes):
        return f"image {image} is not an image index"
    if sizes[image] is None:
        return "its image is unreadable"
    h, w = sizes[image]
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return f"box {[x0, y0, x1, y1]} leaves the {w} x {h} image"
    if min(x1 - x0, y1 - y0) < bounds.min_region_side or (x1 - x0) * (y1 - y0) < bounds.min_region_area:
        return f"box {[x0, y0, x1, y1]} is too small to show the object"
    return None


# -- regeneration ----------------------------------------------------------------------------------------------
def regenerate_sample(root: Path, loaded: list[Loaded], sample: int, result: TaskAudit, seed: int = 0) -> None:
    from mirforge.show import regenerate_and_compare

    if sample <= 0:
        return
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(loaded), size=min(sample, len(loaded)), replace=False).tolist())
    for i in chosen:
        item = loaded[i]
        result.regenerated += 1
        try:
            differences = regenerate_and_compare(root, item.line)
        except Exception as exc:  # a crash while regenerating is a disagreement, reported with its cause
            differences = [f"regeneration failed: {type(exc).__name__}: {exc}"]
        if differences:
            result.regen_disagreements.append(f"{item.record['id']}: {'; '.join(differences)}")


# -- the audit -------------------------------------------------------------------------------------------------
def audit_task(
    root: Path, task: str, loaded: list[Loaded], bounds: Bounds, *, sample: int = 5, folds: int = 5
) -> TaskAudit:
    records = [item.record for item in loaded]
    result = TaskAudit(task=task, n=len(records))
    ks = Counter(len(r["options"]) for r in records)
    result.k = ks.most_common(1)[0][0]
    result.chance = 100.0 * float(np.mean([1.0 / len(r["options"]) for r in records]))
    answers = Counter(r["answer"] for r in records)
    letters = sorted({letter for r in records for letter in r["options"]})
    for letter in letters:
        expected = 100.0 * sum(1.0 / len(r["options"]) for r in records if letter in r["options"]) / len(records)
        share = 100.0 * answers[letter] / len(records)
        result.letters[letter] = share
        result.letter_expected[letter] = expected
        result.letter_deviation = max(result.letter_deviation, abs(share - expected))
    result.letter_intervals = letter_intervals({letter: answers[letter] for letter in letters}, len(records))
    blind = blind_credits(records, folds=folds)
    result.blind = None if blind is None else 100.0 * float(blind.mean())
    result.heuristics = heuristics(records, folds=folds)
    evidence = ImageEvidence(records)
    audit_images(root, loaded, bounds, result, evidence)
    result.shortcuts = [
        *text_shortcuts(result, records, blind),
        numeric_rank(records, folds),
        *image_shortcuts(evidence, folds=folds),
    ]
    result.tests = judge(result.shortcuts, bounds.blind_margin)
    result.needed, result.needed_n, result.needed_by_level = needed_share(records)
    regenerate_sample(root, loaded, sample, result)
    result.violations = violations(result, bounds)
    result.notes = notes(result, bounds)
    return result


def text_shortcuts(r: TaskAudit, records: list[dict[str, Any]], blind: np.ndarray | None) -> list[Shortcut]:
    label = "blind baseline (text-only classifier)"
    if blind is None:
        out = [Shortcut("blind", label, None, r.n, r.chance, why_not=f"{r.n} instances, fewer than 2 per fold")]
    else:  # per level too: a text prior of one level (one kind of question) hides in the pooled value
        out = [summarise("blind", label, blind, list(range(len(records))), records)]
    return out + [Shortcut(h, f"heuristic {h}", v, r.n, r.chance, tries=2) for h, v in r.heuristics.items()]


def letters_outside(r: TaskAudit, b: Bounds) -> list[str]:
    """Letters whose share's interval lies wholly outside 100/k +- the tolerance."""
    return [
        letter
        for letter, (lo, hi) in r.letter_intervals.items()
        if lo > r.letter_expected[letter] + b.letter_tolerance + 1e-9
        or hi < r.letter_expected[letter] - b.letter_tolerance - 1e-9
    ]


def violations(r: TaskAudit, b: Bounds) -> list[str]:
    out = []
    outside = letters_outside(r, b)
    if outside:
        shares = ", ".join(f"{k} {v:.1f}%" for k, v in r.letters.items())
        worst = ", ".join(
            f"{k} {r.letters[k]:.1f}% (interval {r.letter_intervals[k][0]:.1f}-{r.letter_intervals[k][1]:.1f})"
            for k in outside
        )
        out.append(f"answer letters: {worst} outside 100/k +- {b.letter_tolerance}; {shares}")
    for s in r.shortcuts:
        if s.status == "broken":
            out.append(
                f"{s.label}: {s.value:.1f}% of {s.n}, lower bound {s.lower:.1f}% ({CONFIDENCE_TEXT}, {r.tests} "
                f"tests) > chance {s.chance:.1f} + {b.blind_margin}{levels_text(s)}"
            )
    if r.needed is not None and r.needed < b.needed - 1e-9:
        out.append(f"needed: {r.needed:.1f}% of {r.needed_n} instances need all their evidence images < {b.needed}")
    for label, value, bound in (
        ("duplicates (question + options + images)", r.duplicates, b.duplicates),
        ("identical image sets", r.image_set_duplicates, b.image_set_duplicates),
        ("near-duplicate image sets", r.near_duplicates, b.near_duplicates),
        ("blank or unreadable images", len(r.blank_images), b.blank_images),
        ("bad regions", len(r.bad_regions), b.bad_regions),
        ("% of instances sharing an image with another", round(r.reused, 1), b.reused_images),
    ):
        if value > bound:
            out.append(f"{label}: {value} > {bound}")
    for item in (r.blank_images + r.bad_regions)[:3]:
        out.append(f"  e.g. {item}")
    agreement = r.regen_agreement
    if agreement is not None and agreement < b.regen_agreement - 1e-9:
        out.append(f"regeneration: {agreement:.0f}% of {r.regenerated} agree (bound {b.regen_agreement:.0f}%)")
        out += [f"  {d}" for d in r.regen_disagreements[:3]]
    return out


def levels_text(s: Shortcut) -> str:
    if len(s.by_level) < 2:
        return ""
    return "; by level " + ", ".join(f"{level}: {v:.1f}%" for level, v in s.by_level.items())


def notes(r: TaskAudit, b: Bounds) -> list[str]:
    """What is above its limit without proof at this n, and where n is too small to tell at all."""
    out = []
    if r.letter_deviation > b.letter_tolerance + 1e-9 and not letters_outside(r, b):
        out.append(
            f"answer letters: a share is {r.letter_deviation:.1f} points from 100/k, within what n = {r.n} allows"
        )
    blind_spots: dict[int, list[str]] = {}
    subsets: dict[tuple[int, float], list[str]] = {}
    for s in r.shortcuts:
        if s.status == "above":
            out.append(
                f"{s.name}: {s.value:.1f}% is above chance {s.chance:.1f} + {b.blind_margin}, not proven at n = "
                f"{s.n} (lower bound {s.lower:.1f}%; flagged from {s.flagged_from:.1f}%)"
                if s.flagged_from is not None
                else f"{s.name}: {s.value:.1f}% is above chance {s.chance:.1f} + {b.blind_margin}, not proven"
            )
        if s.value is None and s.why_not:
            out.append(f"{s.name}: not run ({s.why_not})")
        elif s.value is not None and s.flagged_from is None:
            blind_spots.setdefault(s.n, []).append(s.name)
        elif s.value is not None and s.n != r.n:
            subsets.setdefault((s.n, s.flagged_from), []).append(s.name)
    for (n, flagged), names in sorted(subsets.items()):
        out.append(f"{', '.join(names)}: measured on {n} of {r.n} instances, so flagged from {flagged:.1f}%")
    for n, names in sorted(blind_spots.items()):
        out.append(f"n = {n} is too small to tell a shortcut from chance for {', '.join(names)}")
    return out


def audit(
    root: Path,
    bounds: Bounds | None = None,
    *,
    tasks: list[str] | None = None,
    split: str | None = None,
    sample: int = 5,
    folds: int = 5,
) -> list[TaskAudit]:
    bounds = bounds or Bounds()
    if folds < 2:
        raise InputError(f"--folds: must be at least 2, got {folds}")
    if sample < 0:
        raise InputError(f"--sample: must not be negative, got {sample}")
    root = Path(root)
    loaded = load_dataset(root, tasks, split)
    return [audit_task(root, task, items, bounds, sample=sample, folds=folds) for task, items in sorted(loaded.items())]


# -- report ----------------------------------------------------------------------------------------------------
SHORTCUT_COLUMNS = (  # (header, shortcut name, width)
    ("blind", "blind", 6),
    ("longest", "longest", 7),
    ("specific", "specific", 8),
    ("q-overlap", "overlap", 9),
    ("consensus", "consensus", 9),
    ("rank", "rank", 6),
    ("img-median", "img-median", 10),
    ("img-mode", "img-mode", 8),
    ("img-near", "img-near", 8),
    ("opt-alone", "opt-alone", 9),
    ("opt-only", "opt-only", 8),
    ("one-image", "one-image", 9),
    ("placement", "placement", 9),
)
SHORTCUT_TABLE = (
    ("task", 20),
    ("n", 5),
    ("k", 2),
    ("chance", 6),
    ("letters±", 8),
    *((header, width) for header, _, width in SHORTCUT_COLUMNS),
    ("flagged≥", 8),
    ("needed%", 7),
    ("status", 6),
)
SANITY_TABLE = (
    ("task", 20),
    ("dup", 4),
    ("imgset", 6),
    ("near", 5),
    ("reused%", 7),
    ("blank", 5),
    ("badbox", 6),
    ("regen", 7),
    ("status", 6),
)


def row(cells: list[str], columns: tuple[tuple[str, int], ...]) -> str:
    """One line of a table: the first cell left-aligned, the others right-aligned, each at its column's width."""
    return "  ".join(
        f"{c:>{w}}" if i else f"{c:<{w}}" for i, (c, (_, w)) in enumerate(zip(cells, columns, strict=True))
    )


def table(results: list[TaskAudit], bounds: Bounds) -> str:
    """Two blocks: the shortcuts (accuracies with their verdicts) and the data's sanity."""

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    def cell(s: Shortcut | None) -> str:
        if s is None or s.value is None:
            return "-"
        return pct(s.value) + {"broken": "*", "above": "?"}.get(s.status, "")

    def status(r: TaskAudit) -> str:
        return "FAIL" if r.violations else "ok"

    shortcuts = [row([name for name, _ in SHORTCUT_TABLE], SHORTCUT_TABLE)]
    sanity = [row([name for name, _ in SANITY_TABLE], SANITY_TABLE)]
    for r in results:
        by_name = {s.name: s for s in r.shortcuts}
        full = next((s for s in r.shortcuts if s.n == r.n and s.value is not None), None)
        flagged = "-" if full is None else "never" if full.flagged_from is None else pct(full.flagged_from)
        letters = pct(r.letter_deviation)
        if letters_outside(r, bounds):
            letters += "*"
        elif r.letter_deviation > bounds.letter_tolerance + 1e-9:
            letters += "?"
        cells = [r.task, str(r.n), str(r.k), pct(r.chance), letters]
        cells += [cell(by_name.get(name)) for _, name, _ in SHORTCUT_COLUMNS]
        cells += [flagged, "n/a" if r.needed is None else pct(r.needed), status(r)]
        shortcuts.append(row(cells, SHORTCUT_TABLE))
        regen = "-" if r.regen_agreement is None else f"{r.regenerated - len(r.regen_disagreements)}/{r.regenerated}"
        cells = [
            r.task,
            str(r.duplicates),
            str(r.image_set_duplicates),
            str(r.near_duplicates),
            pct(r.reused),
            str(len(r.blank_images)),
            str(len(r.bad_regions)),
            regen,
            status(r),
        ]
        sanity.append(row(cells, SANITY_TABLE))
    return "\n".join([*shortcuts, "", *sanity])


def levels_table(results: list[TaskAudit], bounds: Bounds) -> str:
    """The baselines measured per difficulty level (the text-only classifier and the image baselines): accuracy in
    % and, in brackets, the instances it was measured on; ? marks a point estimate above chance + the margin. A
    level's cell holds a third of the task's instances, so its points are noisier than the pooled value that the
    bounds judge (about 5 points of standard error at 67); the last line sets the number of marks against the number
    chance alone gives at those sizes."""
    measured = {s.name for r in results for s in r.shortcuts if s.by_level}
    names = [name for _, name, _ in SHORTCUT_COLUMNS if name in measured]
    columns = (("task", 20), ("level", 5), *((name, 12) for name in names))
    lines = [row([c for c, _ in columns], columns)]
    counted = marked = 0
    expected = 0.0
    for r in results:
        by_name = {s.name: s for s in r.shortcuts if s.name in names and s.value is not None}
        for level in sorted({lv for s in by_name.values() for lv in s.by_level}):
            cells = [r.task, str(level)]
            for name in names:
                s = by_name.get(name)
                if s is None or level not in s.by_level:
                    cells.append("-")
                    continue
                value, limit = s.by_level[level], s.chance + bounds.blind_margin
                mark = "?" if value > limit + 1e-9 else ""
                counted, marked = counted + 1, marked + bool(mark)
                expected += chance_above(s.level_n[level], s.chance / 100, limit / 100)
                cells.append(f"{value:.1f}{mark} ({s.level_n[level]})")
            lines.append(row(cells, columns))
    lines.append(
        f"Per level: accuracy in % (instances); ? = above chance + {bounds.blind_margin} as a point estimate, not "
        "judged (the bounds judge the pooled value). "
        f"{marked} of {counted} cells marked; {expected:.1f} expected if every baseline were at chance (binomial at "
        "each cell's size): as many marks as that are what luck gives, more point to a real shortcut in one level."
    )
    return "\n".join(lines)


LEGEND = (
    "Accuracies in %. letters± = largest distance of a letter's share from 100/k, in points; a letter breaks when "
    "its interval lies outside 100/k +- {letter_tolerance}. blind = cross-validated text-only classifier; "
    "longest/specific/q-overlap/consensus = text heuristics (picking or avoiding the option they prefer, as the "
    "other folds found better); rank = the option of one rank by its number, or the one nearest the options' mean "
    "(where every option holds one number); img-median/img-mode/img-near = option-image consensus; opt-alone = "
    "each option image scored alone; opt-only = the option images only; one-image = one evidence image alone, the "
    "one that did best on the other folds; placement = where the options' objects are in the pictures, from the "
    "regions (perfect perception, no reasoning) (- : not run). A baseline breaks (*) when the one-sided 95% lower "
    "confidence bound of its accuracy, corrected for every baseline and variant run on the task, exceeds chance + "
    "{blind_margin}; ? = above chance + {blind_margin} but not proven at this n. flagged≥ = the accuracy that "
    "would break at this n (never: n too small to tell). needed% = instances whose evidence images are all needed "
    "(n/a: not recorded; bound {needed}). dup/imgset/near = duplicate instances, identical and near-identical "
    "image sets; reused% = instances sharing an image (bytes) with another instance (bound {reused_images}); "
    "blank = blank or near-uniform images; badbox = regions outside their image or under {min_region_area} px; "
    "regen = regenerated instances identical in record and bytes."
)


def to_json(results: list[TaskAudit], bounds: Bounds) -> dict[str, Any]:
    return {
        "bounds": dataclasses.asdict(bounds),
        "tasks": {r.task: {**dataclasses.asdict(r), "regen_agreement": r.regen_agreement} for r in results},
        "ok": not any(r.violations for r in results),
    }
