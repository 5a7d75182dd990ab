import numpy as np
import pytest
from keras import ops
from layer_cases import sequence_mask

from keras_labelemb.layers import AttentionPooling

RNG = np.random.default_rng(0)


def test_matches_numpy_reference_eq2():
    x = RNG.normal(size=(3, 5, 4)).astype("float32")
    mask = sequence_mask()
    layer = AttentionPooling(units=6, return_attention_scores=True)
    pooled, weights = layer(x, mask=mask)
    W, b = (ops.convert_to_numpy(v) for v in layer.projection.weights)
    u = ops.convert_to_numpy(layer.context)
    scores = np.tanh(x @ W + b) @ u
    expected_weights = np.zeros_like(scores)
    for i in range(3):
        if mask[i].any():
            e = np.exp(scores[i][mask[i]] - scores[i][mask[i]].max())
            expected_weights[i][mask[i]] = e / e.sum()
    np.testing.assert_allclose(ops.convert_to_numpy(weights), expected_weights, atol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(pooled), np.einsum("bt,btd->bd", expected_weights, x), atol=1e-5)
    # Weights of a non-empty row sum to one, the empty row pools to exactly zero.
    np.testing.assert_allclose(ops.convert_to_numpy(weights).sum(-1), [1, 1, 0], atol=1e-6)


def test_rank_four_input_pools_last_sequence_axis():
    x = RNG.normal(size=(2, 3, 5, 4)).astype("float32")
    layer = AttentionPooling()
    pooled = ops.convert_to_numpy(layer(x))
    assert pooled.shape == (2, 3, 4)
    # Each (document, sentence) row is pooled on its own, as the rank-3 call pools it.
    rows = ops.convert_to_numpy(layer(x.reshape(6, 5, 4))).reshape(2, 3, 4)
    np.testing.assert_allclose(pooled, rows, atol=1e-6)


def test_invalid_arguments_name_the_argument():
    with pytest.raises(ValueError, match="units=0"):
        AttentionPooling(units=0)
    with pytest.raises(ValueError, match="inputs"):
        AttentionPooling()(np.zeros((3,), "float32"))
