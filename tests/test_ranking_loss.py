"""Tests of `ranking_loss`."""

import keras
import pytest
from metrics_helpers import make_data, sklearn_reference, stream

from keras_labelemb import metrics as klm

SEEDS = [0, 1, 2]

SHAPES = [(23, 2), (31, 7), (17, 40)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_ranking_metrics_match_sklearn(seed, shape):
    y_true, scores = make_data(seed, *shape)
    for k in (1, 3, 5, 50):
        got = stream(klm.NDCGAtK(k=k), y_true, scores)
        want = sklearn_reference("ndcg", y_true, scores, k=k)
        assert got == pytest.approx(want, abs=1e-5), ("ndcg", k)
    got = stream(klm.RankingLoss(), y_true, scores)
    assert got == pytest.approx(sklearn_reference("ranking_loss", y_true, scores), abs=1e-5)
    got = stream(klm.LabelRankingAveragePrecision(), y_true, scores)
    assert got == pytest.approx(sklearn_reference("lrap", y_true, scores), abs=1e-5)


def test_ranking_metrics_ignore_logits_vs_probabilities():
    y_true, scores = make_data(4, 20, 6, ties=False)
    logits = (scores - 0.5) * 8.0
    probs = keras.ops.convert_to_numpy(keras.ops.sigmoid(logits))
    for make in (
        lambda: klm.PrecisionAtK(k=2),
        lambda: klm.NDCGAtK(k=3),
        klm.RankingLoss,
        klm.LabelRankingAveragePrecision,
        klm.OneError,
    ):
        assert stream(make(), y_true, logits) == pytest.approx(stream(make(), y_true, probs), abs=1e-6)
