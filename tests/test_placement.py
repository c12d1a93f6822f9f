"""Placement features (where the options' objects stand in the pictures) and the thinning that makes them say
nothing of the answer."""

from __future__ import annotations

import numpy as np

from mirforge.placement import keep_chance, odds, option_boxes, placement_features


def test_option_boxes_are_nan_where_an_object_is_not_boxed():
    boxes = option_boxes(
        [(0, "mug", (1, 2, 3, 4)), (1, "lamp", (5, 6, 7, 8)), (1, "sofa", (0, 0, 9, 9))], ["mug", "lamp"], 2
    )
    assert boxes.shape == (2, 2, 4)
    assert boxes[0, 0].tolist() == [1, 2, 3, 4] and boxes[1, 1].tolist() == [5, 6, 7, 8]
    assert np.isnan(boxes[0, 1]).all() and np.isnan(boxes[1, 0]).all()


def test_features_rank_the_options_by_foot_and_area():
    # one picture: option 0 lowest and largest, option 2 highest and smallest; option 3 is not in the picture
    boxes = np.array([[[0, 50, 40, 100], [0, 40, 20, 80], [0, 10, 10, 30], [np.nan] * 4]])
    rows = placement_features(boxes, 1)  # against the options' mean
    raw = rows - rows[3]  # option 3 has zeros before centring (never seen)
    assert np.isclose(raw[0, 1], 2 / 3) and raw[2, 1] == 0.0  # share of the pictured options whose foot is higher
    assert raw[0, 3] == 1 and raw[2, 4] == 1 and raw[0, 5] == 1 and raw[2, 6] == 1  # lowest, highest, largest, smallest
    assert raw[1, 7] == 1 and raw[0, 7] == 0  # never lowest nor highest
    assert np.allclose(rows.mean(axis=0), 0)


def test_the_least_likely_looking_answer_is_always_kept():
    rows = np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    weights = (1.0, 0.5)
    p = odds(rows, weights)
    assert np.isclose(p.sum(), 1) and p.argmax() == 0
    assert keep_chance(rows, weights, int(p.argmin())) == 1.0
    assert np.isclose(keep_chance(rows, weights, 0), p.min() / p[0])


def test_thinning_leaves_the_placement_scorer_at_chance():
    """Questions whose answer follows a placement scorer (the answer is its top option 40-50% of the time) are kept
    with the keep chance: among the kept, the top option is the answer a quarter of the time, whatever the rows."""
    rng = np.random.default_rng(0)
    weights = (0.0, 1.6, -1.2, 0.9, -0.6, 0.8, 0.0, 1.4)
    before, after, kept = [], [], 0
    for _ in range(6000):
        corner = rng.uniform(0, 200, size=(3, 4, 2))
        size = rng.uniform(10, 60, size=(3, 4, 2))
        rows = placement_features(np.concatenate([corner, corner + size], axis=2), 3)
        answer = int(rng.choice(4, p=odds(rows, weights)))
        top = int((rows @ np.array(weights)).argmax())
        before.append(top == answer)
        if rng.uniform() < keep_chance(rows, weights, answer):
            after.append(top == answer)
            kept += 1
    assert np.mean(before) > 0.4
    assert kept > 2000 and abs(np.mean(after) - 0.25) < 0.025, (kept, np.mean(after))
