"""Tests of `label_ranking_average_precision`."""

import numpy as np
import pytest
from metrics_helpers import make_data, result_of, sklearn_reference, stream
from sklearn import metrics as skm

from keras_labelemb import metrics as klm


def test_large_label_set_sort_based():
    y_true, scores = make_data(3, 12, 300)
    assert stream(klm.LabelRankingAveragePrecision(), y_true, scores) == pytest.approx(
        sklearn_reference("lrap", y_true, scores), abs=1e-5
    )
    assert stream(klm.RankingLoss(), y_true, scores) == pytest.approx(
        sklearn_reference("ranking_loss", y_true, scores), abs=1e-5
    )
    assert stream(klm.NDCGAtK(k=10), y_true, scores) == pytest.approx(
        sklearn_reference("ndcg", y_true, scores, k=10), abs=1e-5
    )


def test_ties_conventions():
    y = np.array([[0, 1, 1, 0]], "float32")
    tied = np.full((1, 4), 0.5, "float32")
    # sklearn: every label tied at rank 4 -> LRAP 2/4, all 4 pairs wrong
    assert result_of(klm.LabelRankingAveragePrecision(), y, tied) == pytest.approx(0.5)
    assert result_of(klm.RankingLoss(), y, tied) == pytest.approx(1.0)
    assert result_of(klm.NDCGAtK(k=4), y, tied) == pytest.approx(
        skm.ndcg_score(y, tied.astype("float64"), k=4), abs=1e-6
    )
    # top_k prefers the lower index: label 0 (irrelevant) is the top label
    assert result_of(klm.OneError(), y, tied) == 1.0
    assert result_of(klm.PrecisionAtK(k=2), y, tied) == pytest.approx(0.5)


def test_average_precision_is_sklearns_label_ranking_average_precision():
    y_true, scores = make_data(4, 20, 6)
    assert stream(klm.LabelRankingAveragePrecision(), y_true, scores) == pytest.approx(
        sklearn_reference("lrap", y_true, scores), abs=1e-5
    )
