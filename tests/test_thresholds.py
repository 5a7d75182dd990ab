"""Tests of `thresholds`."""

import numpy as np
import pytest
from sklearn.metrics import f1_score

from keras_labelemb.evaluation import (
    assign_labels,
    choose_threshold,
    micro_f1_score,
)

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
