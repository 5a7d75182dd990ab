"""stateless_language_model: a stateless copy of a (stateful) drill_lm with the same weights."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.datasets.bptt import bptt_arrays
from keras_labelemb.export import stateless_language_model
from keras_labelemb.models import drill_lm
from keras_labelemb.training.reset_states import reset_states

V, B, T = 40, 4, 6
RNG = np.random.default_rng(11)


def windows(num_batches):
    stream = RNG.integers(0, V, size=B * (num_batches * T + 1) + 3)
    return bptt_arrays(stream, B, T)


@pytest.mark.parametrize("head, options", [("drill", {"depth": 2}), ("full", {})])
def test_stateless_copy_equals_the_stateful_model_from_zero_state(head, options):
    keras.utils.set_random_seed(0)
    model = drill_lm(V, batch_size=B, bptt=T, units=8, num_layers=2, embedding_dim=6, head=head, **options)
    x, _ = windows(2)
    model(x[0])  # leaves a state behind, which the copy must not take
    copy = stateless_language_model(model)
    assert not any(getattr(layer, "stateful", False) for layer in copy.layers)
    assert len(copy.weights) == len(model.weights)  # the DRILL head stays tied to the (copied) embedding
    output_layer = copy.layers[-1]
    if head != "full":
        assert output_layer.embedding is copy.get_layer("word_embedding")
    reset_states(model)
    np.testing.assert_allclose(ops.convert_to_numpy(copy(x[1])), ops.convert_to_numpy(model(x[1])), atol=1e-6)
    # Any batch shape, each row from zero state: one row alone reads as it does among others.
    alone = ops.convert_to_numpy(copy(x[1][:1, :3]))
    np.testing.assert_allclose(alone, ops.convert_to_numpy(copy(x[1][:, :3]))[:1], atol=1e-6)
    np.testing.assert_allclose(ops.convert_to_numpy(copy(x[1][:1, :3])), alone, atol=1e-6)  # twice: no state kept


def test_stateless_copy_needs_a_chain_of_layers():
    ids = keras.Input((4,), dtype="int32")
    x = keras.layers.Embedding(V, 4)(ids)
    branching = keras.Model(ids, keras.layers.Add()([x, keras.layers.Dense(4)(x)]))
    with pytest.raises(ValueError, match="one chain"):
        stateless_language_model(branching)
