"""Tests of `linear_head`."""

import numpy as np
import pytest
from sampled_sigmoid_loss_helpers import _head

NUM_LABELS = 12


@pytest.mark.parametrize("variant", ["gile", "bilinear", "only_label", "linear"])
def test_score_subset_equals_the_matching_columns_of_the_full_scores(variant):
    head = _head(variant)
    h = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    indices = np.array([7, 0, 11, 3])
    np.testing.assert_allclose(head.score_subset(h, indices), np.asarray(head(h))[:, indices], rtol=1e-5, atol=1e-6)


def test_score_subset_rejects_out_of_range_label_indices():
    head = _head()
    with pytest.raises(ValueError, match="label_indices"):
        head.score_subset(np.zeros((2, 4), "float32"), np.array([0, NUM_LABELS]))
