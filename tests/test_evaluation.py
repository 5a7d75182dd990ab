import numpy as np
import pytest
from sklearn.metrics import f1_score, label_ranking_average_precision_score, label_ranking_loss

from keras_labelemb.evaluation import (
    assign_labels,
    choose_threshold,
    classification_report,
    micro_f1_score,
    ranking_report,
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


def test_reports_match_scikit_learn():
    report = classification_report(Y, S, 0.5)
    assert report["micro_f1"] == pytest.approx(f1_score(Y, assign_labels(S, 0.5), average="micro"), abs=1e-6)
    ranking = ranking_report(Y, S)
    keep = Y.sum(1) > 0
    assert ranking["documents"] == keep.sum() < len(Y)
    assert ranking["label_ranking_average_precision"] == pytest.approx(
        label_ranking_average_precision_score(Y[keep], S[keep]), abs=1e-6
    )
    assert ranking["ranking_loss"] == pytest.approx(label_ranking_loss(Y[keep], S[keep]), abs=1e-6)
