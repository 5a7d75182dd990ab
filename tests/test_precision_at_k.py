"""Tests of `precision_at_k`."""

import numpy as np
import pytest
from metrics_helpers import result_of

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
