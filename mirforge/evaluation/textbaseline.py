"""A no-model, text-only baseline: can the answer be predicted from the question and option text alone?

Each (question, option) pair becomes one example: TF-IDF of the option text, TF-IDF of the question with the option
(word n-grams), the option's letter, and its length relative to the other options; a logistic regression learns
"is this the correct option" on a training split, and the option with the highest score is the prediction. A
majority-letter baseline is reported beside it. Clearly above chance on held-out data means the split leaks its
answers through text (a fixed phrasing, the longest option, a favourite letter) and images are not needed.
Needs scikit-learn (``pip install scikit-learn``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from mirforge.errors import InputError
from mirforge.evaluation.run import Prediction

SLOT = "<image>"


def _sklearn() -> Any:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise InputError("--text-baseline needs scikit-learn: pip install scikit-learn") from None
    import sklearn.feature_extraction.text as text
    import sklearn.linear_model as linear

    return text, linear


def _pairs(records: Sequence[dict[str, Any]]) -> tuple[list[str], list[str], list[list[float]], list[int]]:
    options_text, joint, extra, labels = [], [], [], []
    for r in records:
        question = r["question"].replace(SLOT, " ")
        lengths = [len(v) for v in r["options"].values()]
        mean = sum(lengths) / len(lengths)
        longest, shortest = max(lengths), min(lengths)
        letters = list(r["options"])
        for i, (letter, value) in enumerate(r["options"].items()):
            options_text.append(value)
            joint.append(f"{question} || {value}")
            extra.append(
                [
                    1.0 if i == 0 else 0.0,
                    1.0 if i == len(letters) - 1 else 0.0,
                    *[1.0 if letter == x else 0.0 for x in "ABCDEFGH"],
                    (len(value) - mean) / (mean or 1.0),
                    1.0 if len(value) == longest else 0.0,
                    1.0 if len(value) == shortest else 0.0,
                ]
            )
            labels.append(1 if letter == r["answer"] else 0)
    return options_text, joint, extra, labels


class TextBaseline:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.model: Any = None
        self.majority = "A"

    def fit(self, records: Sequence[dict[str, Any]]) -> TextBaseline:
        import numpy as np
        from scipy.sparse import csr_matrix, hstack

        text, linear = _sklearn()
        if not records:
            raise InputError("--train: the training split is empty")
        self.majority = Counter(r["answer"] for r in records).most_common(1)[0][0]
        options_text, joint, extra, labels = _pairs(records)
        if len(set(labels)) < 2:
            raise InputError("--train: every option is labelled the same; the training split is too small")
        self.v_option = text.TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
        self.v_joint = text.TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=50_000)
        try:
            x_joint = self.v_joint.fit_transform(joint)
        except ValueError:  # too few documents for min_df=2
            self.v_joint = text.TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
            x_joint = self.v_joint.fit_transform(joint)
        x = hstack([self.v_option.fit_transform(options_text), x_joint, csr_matrix(np.array(extra))]).tocsr()
        self.model = linear.LogisticRegression(max_iter=2000, C=1.0, random_state=self.seed)
        self.model.fit(x, labels)
        return self

    def predict(self, records: Sequence[dict[str, Any]]) -> tuple[list[Prediction], list[Prediction]]:
        """(classifier predictions, majority-letter predictions)."""
        import numpy as np
        from scipy.sparse import csr_matrix, hstack

        if not records:
            return [], []
        options_text, joint, extra, _ = _pairs(records)
        x = hstack(
            [self.v_option.transform(options_text), self.v_joint.transform(joint), csr_matrix(np.array(extra))]
        ).tocsr()
        scores = self.model.predict_proba(x)[:, 1]
        clf, majority = [], []
        at = 0
        for r in records:
            letters = list(r["options"])
            chunk = scores[at : at + len(letters)]
            at += len(letters)
            best = letters[int(np.argmax(chunk))]
            clf.append(_pred(r, best, "text-classifier"))
            pick = self.majority if self.majority in r["options"] else letters[0]
            majority.append(_pred(r, pick, "majority-letter"))
        return clf, majority


def _pred(record: dict[str, Any], letter: str, how: str) -> Prediction:
    return Prediction(
        id=record["id"],
        task=record["task"],
        category=record.get("category", "?"),
        answer=record["answer"],
        chosen=letter,
        how=how,
        response=letter,
    )
