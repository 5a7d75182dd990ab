"""Tests of `one_error`."""

import numpy as np
import pytest
from metrics_helpers import make_data, one_error_reference, precision_at_k_reference, result_of, stream

from keras_labelemb import metrics as klm

SEEDS = [0, 1, 2]

SHAPES = [(23, 2), (31, 7), (17, 40)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_topk_metrics_match_numpy(seed, shape):
    y_true, scores = make_data(seed, *shape)
    for k in (1, 2, 5, 50):
        got = stream(klm.PrecisionAtK(k=k), y_true, scores)
        assert got == pytest.approx(precision_at_k_reference(y_true, scores, k), abs=1e-5)
    got = stream(klm.OneError(), y_true, scores)
    assert got == pytest.approx(one_error_reference(y_true, scores), abs=1e-5)


def test_documents_without_or_with_all_positives():
    zeros = np.zeros((2, 4), "float32")
    ones = np.ones((2, 4), "float32")
    scores = np.array([[0.1, 0.9, 0.3, 0.3], [0.2, 0.2, 0.2, 0.2]], "float32")
    # no positive: nDCG 0 (sklearn), LRAP 1, ranking loss 0, excluded from one-error
    assert result_of(klm.NDCGAtK(k=2), zeros, scores) == 0.0
    assert result_of(klm.LabelRankingAveragePrecision(), zeros, scores) == 1.0
    assert result_of(klm.RankingLoss(), zeros, scores) == 0.0
    assert result_of(klm.OneError(), zeros, scores) == 0.0
    assert result_of(klm.PrecisionAtK(k=2), zeros, scores) == 0.0
    assert result_of(klm.MicroF1(), zeros, np.zeros_like(scores)) == 0.0
    # all positive
    assert result_of(klm.NDCGAtK(k=2), ones, scores) == pytest.approx(1.0)
    assert result_of(klm.LabelRankingAveragePrecision(), ones, scores) == 1.0
    assert result_of(klm.RankingLoss(), ones, scores) == 0.0
    assert result_of(klm.OneError(), ones, scores) == 0.0
    assert result_of(klm.PrecisionAtK(k=2), ones, scores) == 1.0
    # one-error excludes documents without positives from the denominator
    y = np.array([[0, 1, 0], [0, 0, 0], [1, 0, 0]], "float32")
    s = np.array([[0.9, 0.1, 0.0], [0.3, 0.2, 0.1], [0.9, 0.1, 0.0]], "float32")
    assert result_of(klm.OneError(), y, s) == pytest.approx(0.5)
