"""Tests of `thresholds`."""

import numpy as np
import pytest
from sklearn.metrics import f1_score

from keras_labelemb.evaluation import choose_threshold
from keras_labelemb.evaluation.thresholds import assign_labels, micro_f1_score

RNG = np.random.default_rng(0)

Y = (RNG.random((60, 8)) > 0.7).astype("float32")

S = np.clip(Y * 0.3 + RNG.random((60, 8)) * 0.7, 0, 1)


def test_assign_labels_gives_every_document_its_top_label():
    predicted = assign_labels(np.array([[0.1, 0.2], [0.9, 0.6]]), threshold=0.5)
    np.testing.assert_array_equal(predicted, [[0, 1], [1, 1]])
    np.testing.assert_array_equal(assign_labels(np.array([[0.1, 0.2]]), 0.5, at_least_one=False), [[0, 0]])


def test_micro_f1_and_threshold_choice_match_scikit_learn():
    threshold, f1 = choose_threshold(Y, S)
    assert f1 == pytest.approx(f1_score(Y, assign_labels(S, threshold), average="micro"))
    for t in (0.2, 0.5, 0.8):  # the chosen threshold is at least as good as others
        assert f1 >= f1_score(Y, assign_labels(S, t), average="micro") - 1e-12
    assert micro_f1_score(np.zeros((2, 2)), np.zeros((2, 2))) == 0.0


def _f1_at(y, scores, thresholds):
    chosen = scores >= thresholds
    chosen[np.arange(len(scores)), scores.argmax(1)] = True
    return f1_score(y, chosen.astype(int), average="micro", zero_division=0)


@pytest.mark.parametrize("noisy_labels", [True, False])
def test_tune_thresholds_keeps_the_mode_that_scores_better_on_held_out_halves(noisy_labels):
    from keras_labelemb.evaluation.thresholds import tune_per_label_thresholds, tune_thresholds

    rng = np.random.default_rng(0)
    y = (rng.random((400, 6)) < 0.3).astype("float32")
    # Labels whose score scales differ (per-label thresholds help), or one scale and pure noise (they fit noise).
    shift = rng.normal(size=6) * (0.05 if noisy_labels else 0.3)
    scores = np.clip(0.5 + (y - 0.5) * (0.05 if noisy_labels else 0.4) + shift + rng.normal(size=y.shape) * 0.2, 0, 1)
    thresholds, mode = tune_thresholds(y, scores)
    # Reference: both modes fitted on even rows scored on odd rows, and the reverse (scikit-learn's micro-F1).
    even, odd = np.arange(400) % 2 == 0, np.arange(400) % 2 == 1
    totals = {"per_label": 0.0, "global": 0.0}
    for fit, held in ((even, odd), (odd, even)):
        totals["per_label"] += _f1_at(y[held], scores[held], tune_per_label_thresholds(y[fit], scores[fit]))
        totals["global"] += _f1_at(y[held], scores[held], choose_threshold(y[fit], scores[fit])[0])
    expected = "per_label" if totals["per_label"] > totals["global"] else "global"
    assert mode == expected
    if mode == "global":
        assert len(set(thresholds.tolist())) == 1
    else:
        np.testing.assert_array_equal(thresholds, tune_per_label_thresholds(y, scores))
    if not noisy_labels:
        assert mode == "per_label"  # labels on different scales: per-label thresholds hold up
