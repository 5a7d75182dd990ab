"""Tests of `ndcg_at_k`."""

import pytest
from metrics_helpers import make_data, stream
from sklearn import metrics as skm

from keras_labelemb import metrics as klm


def test_float16_scores_match_sklearn():
    y_true, scores = make_data(5, 19, 8, ties=False)
    s16 = (scores * 4.0 - 2.0).astype("float16")
    s = s16.astype("float64")
    assert stream(klm.NDCGAtK(k=3), y_true, s16) == pytest.approx(skm.ndcg_score(y_true, s, k=3), abs=1e-5)
    assert stream(klm.LabelRankingAveragePrecision(), y_true, s16) == pytest.approx(
        skm.label_ranking_average_precision_score(y_true, s), abs=1e-5
    )
    assert stream(klm.RankingLoss(), y_true, s16) == pytest.approx(skm.label_ranking_loss(y_true, s), abs=1e-5)
    assert stream(klm.MicroF1(from_logits=True), y_true, s16) == pytest.approx(
        skm.f1_score(y_true.astype(int), (s > 0).astype(int), average="micro"), abs=1e-5
    )
