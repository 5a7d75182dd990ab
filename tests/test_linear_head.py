"""Tests of `linear_head`: `logits = h W + b`, the columns gathered by `score_subset`, no other label set."""

import keras
import numpy as np
import pytest
from sampled_sigmoid_loss_helpers import _head

from keras_labelemb.layers import LinearHead

NUM_LABELS = 12
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def randomized_head(num_labels, d_h, seed):
    head = LinearHead(num_labels)
    head.build((None, d_h))
    rng = np.random.default_rng(seed)
    head.kernel.assign(rng.normal(size=(d_h, num_labels)).astype("float32"))
    head.bias.assign(rng.normal(size=(num_labels,)).astype("float32"))  # a dropped bias would show
    return head, keras.ops.convert_to_numpy(head.kernel), keras.ops.convert_to_numpy(head.bias)


@pytest.mark.parametrize("shape", [(3, 4), (2, 5, 4)])  # (B, d_h), and (B, T, d_h) as in a language model
def test_logits_are_h_w_plus_b(shape):
    head, kernel, bias = randomized_head(6, 4, seed=0)
    h = np.random.default_rng(1).normal(size=shape).astype("float32")
    logits = keras.ops.convert_to_numpy(head(h))
    assert logits.shape == shape[:-1] + (6,)
    np.testing.assert_allclose(logits, h @ kernel + bias, rtol=1e-5, atol=1e-5)


def test_score_subset_equals_the_matching_columns_of_the_full_scores():
    head = _head("linear")
    h = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    indices = np.array([7, 0, 11, 3])
    np.testing.assert_allclose(head.score_subset(h, indices), np.asarray(head(h))[:, indices], rtol=1e-5, atol=1e-6)


def test_score_subset_rejects_out_of_range_label_indices():
    head = _head("linear")
    with pytest.raises(ValueError, match="label_indices"):
        head.score_subset(np.zeros((2, 4), "float32"), np.array([0, NUM_LABELS]))


def test_linear_head_cannot_take_another_label_set():
    head = LinearHead(num_labels=4)
    head.build((None, 7))
    with pytest.raises(ValueError, match="cannot score another label set"):
        head.set_labels(LABELS[:2])
    with pytest.raises(ValueError, match="call-time labels"):
        head(np.zeros((1, 7), "float32"), label_ids=LABELS)
    with pytest.raises(ValueError, match="reads no label descriptions"):
        LinearHead(num_labels=4, label_ids=LABELS)
