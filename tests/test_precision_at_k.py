"""Tests of `precision_at_k`."""

import keras
import numpy as np
import pytest
from metrics_helpers import make_data, precision_at_k_reference, result_of, sklearn_reference

from keras_labelemb import metrics as klm


def test_single_label():
    y = np.array([[1], [0], [1]], "float32")
    s = np.array([[0.9], [0.8], [0.1]], "float32")
    assert result_of(klm.NDCGAtK(k=5), y, s) == pytest.approx(2 / 3)
    assert result_of(klm.PrecisionAtK(k=1), y, s) == pytest.approx(2 / 3)
    assert result_of(klm.PrecisionAtK(k=3), y, s) == pytest.approx(2 / 9)
    assert result_of(klm.LabelRankingAveragePrecision(), y, s) == 1.0
    assert result_of(klm.RankingLoss(), y, s) == 0.0
    assert result_of(klm.OneError(), y, s) == 0.0
    # TP = 1, FP = 1, FN = 1 (sklearn reads an (n, 1) array as binary targets
    # and micro-averages both classes, so it is not the reference here)
    assert result_of(klm.MicroF1(), y, s) == pytest.approx(0.5)


@pytest.mark.parametrize("cls", [klm.PrecisionAtK, klm.NDCGAtK])
@pytest.mark.parametrize("k", [0, -3, 1.5, True, "2"])
def test_invalid_k(cls, k):
    with pytest.raises(ValueError, match=r"`k`.*" + str(k).replace(".", r"\.")):
        cls(k=k)


def test_compiled_metrics_are_logged_under_their_k():
    """Metrics that differ only in k log under distinct keys (callbacks and tuner objectives read them)."""
    y_true, scores = make_data(6, 24, 7, ties=False)
    model = keras.Sequential([keras.Input((7,)), keras.layers.Identity()])
    model.compile(
        loss="mse",
        metrics=[klm.PrecisionAtK(k=1), klm.PrecisionAtK(k=3), klm.NDCGAtK(), klm.PrecisionAtK(k=2, name="p2")],
    )
    got = model.evaluate(scores, y_true, batch_size=len(y_true), verbose=0, return_dict=True)
    assert got["precision_at_1"] == pytest.approx(precision_at_k_reference(y_true, scores, 1), abs=1e-5)
    assert got["precision_at_3"] == pytest.approx(precision_at_k_reference(y_true, scores, 3), abs=1e-5)
    assert got["p2"] == pytest.approx(precision_at_k_reference(y_true, scores, 2), abs=1e-5)
    assert got["ndcg_at_5"] == pytest.approx(sklearn_reference("ndcg", y_true, scores, k=5), abs=1e-5)
