"""Tests of `region_pooling`."""

import numpy as np
import pytest
from region_lstm_helpers import numpy_region_pooling

from keras_labelemb.layers import RegionPooling


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_region_pooling_matches_numpy(mode, k):
    rng = np.random.default_rng(10 + k)
    h = rng.normal(size=(5, 11, 3)).astype("float32") - 5.0  # negative: padding zeros would win a max
    mask = rng.random((5, 11)) > 0.3
    mask[0] = True
    mask[1] = False
    mask[2] = False
    mask[2, 4] = True  # a single word
    out = RegionPooling(k, mode)(h, mask=mask)
    np.testing.assert_allclose(np.asarray(out), numpy_region_pooling(h, mask, k, mode), atol=1e-5)


def test_region_pooling_without_mask_splits_the_whole_length():
    h = np.arange(24, dtype="float32").reshape(1, 8, 3)
    out = np.asarray(RegionPooling(4, "average")(h))
    np.testing.assert_allclose(out.reshape(4, 3), h[0].reshape(4, 2, 3).mean(axis=1))


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="num_regions"):
        RegionPooling(num_regions=-1)
    with pytest.raises(ValueError, match="mode"):
        RegionPooling(mode="min")
