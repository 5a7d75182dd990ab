import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_labelemb.layers import MaxPoolEncoder, RegionPooling

RNG = np.random.default_rng(3)


def words_and_mask(batch=4, steps=6, dim=5):
    x = RNG.normal(size=(batch, steps, dim)).astype("float32")
    mask = np.ones((batch, steps), bool)
    mask[0, 4:] = False  # a short document
    mask[1, 2] = False  # a word hidden inside a document (an explicit mask)
    mask[3] = False  # an all-padding document
    return x, mask


def numpy(value):
    return ops.convert_to_numpy(value)


def reference_states(layer, x, mask):
    """The RNN run on each document's own words alone (padding removed), written back to their positions.

    Keras RNNs skip a masked step (the state carries over it), so the states of the words equal an
    unmasked run over the words without the padding: forward and, for a bidirectional encoder, backward
    over the reversed words, each with the layer's weights.
    """
    rnn_class = keras.layers.GRU if layer.encoder.endswith("gru") else keras.layers.LSTM
    directions = [layer.rnn.forward_layer, layer.rnn.backward_layer] if layer.encoder.startswith("bi") else [layer.rnn]
    expected = np.zeros(x.shape[:2] + (layer.output_size,), "float32")
    for i, direction in enumerate(directions):
        plain = rnn_class(layer.units, return_sequences=True)
        plain.build((None, None, x.shape[-1]))
        plain.set_weights(direction.get_weights())
        for row in range(len(x)):
            words = x[row : row + 1, mask[row]]
            if not words.shape[1]:
                continue
            if i == 0:
                states = numpy(plain(words))[0]
            else:
                states = numpy(plain(words[:, ::-1]))[0, ::-1]
            expected[row, mask[row], i * layer.units : (i + 1) * layer.units] = states
    return expected


@pytest.mark.parametrize("encoder", ["lstm", "bilstm", "gru", "bigru"])
def test_states_are_the_rnn_over_the_words_and_pooled_is_their_max(encoder):
    x, mask = words_and_mask()
    layer = MaxPoolEncoder(encoder, units=3)
    document = layer(x, mask=mask, return_token_states=True)
    states, pooled = numpy(document["token_states"]), numpy(document["pooled"])
    assert layer.output_size == (6 if encoder.startswith("bi") else 3)
    assert states.shape == (4, 6, layer.output_size) and pooled.shape == (4, layer.output_size)
    np.testing.assert_allclose(states, reference_states(layer, x, mask), atol=1e-5)
    assert np.all(states[~mask] == 0)
    # Max over time at the words only; an all-padding document pools to zeros.
    empty = np.zeros(layer.output_size, "float32")
    expected = np.stack([states[row, mask[row]].max(0) if mask[row].any() else empty for row in range(len(x))])
    np.testing.assert_allclose(pooled, expected, atol=0)
    assert np.all(pooled[3] == 0)
    # Without token states, the same pooled vector.
    np.testing.assert_allclose(numpy(layer(x, mask=mask)), pooled, atol=0)


def test_the_max_over_time_matches_numpy_and_never_lets_padding_win():
    """The encoder pools with RegionPooling(num_regions=1, mode="max")."""
    states = RNG.normal(size=(3, 4, 2)).astype("float32")
    states[0, 3] = 100.0  # a large value at a padding position
    states[1, 0] = np.nan  # a NaN at a padding position
    mask = np.array([[1, 1, 1, 0], [0, 1, 1, 1], [0, 0, 0, 0]], bool)
    out = numpy(RegionPooling(1, "max")(states, mask=mask))
    expected = np.stack([states[0, :3].max(0), states[1, 1:].max(0), np.zeros(2)])
    np.testing.assert_array_equal(out, expected)
    half = numpy(RegionPooling(1, "max", dtype="float16")(states.astype("float16"), mask=mask))
    assert half.dtype == np.float16 and np.all(np.isfinite(half)) and np.all(half[2] == 0)


def test_padding_content_changes_nothing():
    x, mask = words_and_mask()
    layer = MaxPoolEncoder("bilstm", units=3, return_token_states=True)
    clean = layer(x, mask=mask)
    noisy = np.where(mask[..., None], x, RNG.normal(size=x.shape).astype("float32") * 100)
    noisy[3, 0] = np.nan  # even a NaN in the padding
    with tf.GradientTape() as tape:
        document = layer(noisy, mask=mask)
        loss = tf.reduce_sum(document["pooled"])
    for key, value in document.items():
        np.testing.assert_array_equal(numpy(value), numpy(clean[key]), err_msg=key)
    # Nor does it reach the gradients (NaN * 0 is NaN: padding must be dropped before the RNN's matmuls).
    for weight, grad in zip(layer.trainable_weights, tape.gradient(loss, layer.trainable_weights)):
        assert np.all(np.isfinite(numpy(tf.convert_to_tensor(grad)))), weight.path
    # More padding after the words: the same encoding.
    longer_x = np.concatenate([x, RNG.normal(size=(4, 3, 5)).astype("float32")], axis=1)
    longer_mask = np.concatenate([mask, np.zeros((4, 3), bool)], axis=1)
    np.testing.assert_allclose(numpy(layer(longer_x, mask=longer_mask)["pooled"]), numpy(clean["pooled"]), atol=1e-6)


def test_mask_of_the_embedding_is_used_and_padding_ids_change_nothing():
    ids = RNG.integers(1, 20, size=(3, 7)).astype("int32")
    ids[0, 4:] = 0
    ids[2] = 0
    model = keras.Sequential(
        [keras.Input((7,), dtype="int32"), keras.layers.Embedding(20, 6, mask_zero=True), MaxPoolEncoder("gru", 4)]
    )
    out = numpy(model(ids))
    short = numpy(model(ids[:1, :4]))  # the first document without its trailing padding
    np.testing.assert_allclose(out[:1], short, atol=1e-6)
    assert np.all(out[2] == 0) and np.all(np.isfinite(out))
    # Explicit mask over different ids at the masked positions: identical outputs.
    embedding, encoder = model.layers
    mask = ids != 0
    other = np.where(mask, ids, RNG.integers(1, 20, size=ids.shape)).astype("int32")
    np.testing.assert_array_equal(numpy(encoder(embedding(other), mask=mask)), out)


def test_all_padding_batch_is_finite_zeros_with_finite_gradients():
    x = RNG.normal(size=(2, 5, 4)).astype("float32")
    mask = np.zeros((2, 5), bool)
    layer = MaxPoolEncoder("bilstm", units=3, word_dropout=0.3, recurrent_dropout=0.3)
    with tf.GradientTape() as tape:
        document = layer(x, mask=mask, training=True, return_token_states=True)
        loss = tf.reduce_sum(document["pooled"])
    for value in document.values():
        assert np.all(numpy(value) == 0)
    for grad in tape.gradient(loss, layer.trainable_weights):
        assert grad is None or np.all(np.isfinite(numpy(tf.convert_to_tensor(grad))))


def test_word_dropout_drops_whole_positions_at_training_only():
    rate = 0.5
    layer = MaxPoolEncoder("lstm", units=4, word_dropout=rate)
    x = RNG.normal(size=(400, 1, 6)).astype("float32")
    inference = numpy(layer(x))
    np.testing.assert_array_equal(numpy(layer(x, training=False)), inference)
    # The sub-step: one draw per position, shared by the whole vector, kept ones scaled by 1 / (1 - rate).
    dropped = numpy(layer.word_dropout_layer(np.ones((50, 8, 6), "float32"), training=True))
    assert set(np.unique(dropped)) == {0.0, 2.0}
    assert np.all(dropped.min(-1) == dropped.max(-1))
    # End to end, one-word documents: a dropped word leaves the LSTM's input 0, hence h = o * tanh(i * tanh(0)) = 0;
    # a kept one encodes exactly as its scaled vector does at inference.
    trained = numpy(layer(x, training=True))
    zero_rows = np.all(trained == 0, axis=-1)
    assert 0.35 < zero_rows.mean() < 0.65, zero_rows.mean()
    assert np.all(inference[zero_rows] != 0)  # those rows were dropped, not zero anyway
    np.testing.assert_allclose(trained[~zero_rows], numpy(layer(x / (1 - rate)))[~zero_rows], atol=1e-6)


def test_dropouts_are_off_at_inference_and_recurrent_dropout_reaches_both_directions():
    x, mask = words_and_mask()
    layer = MaxPoolEncoder("bigru", units=3, recurrent_dropout=0.4, word_dropout=0.3)
    plain = MaxPoolEncoder("bigru", units=3)
    out = numpy(layer(x, mask=mask))
    plain(x, mask=mask)
    plain.set_weights(layer.get_weights())
    np.testing.assert_allclose(numpy(plain(x, mask=mask)), out, atol=1e-6)
    assert layer.rnn.forward_layer.recurrent_dropout == layer.rnn.backward_layer.recurrent_dropout == 0.4
    trained = numpy(layer(x, mask=mask, training=True))
    assert not np.allclose(trained[:3], out[:3]) and np.all(trained[3] == 0)


def test_gradients_reach_every_rnn_weight():
    x, mask = words_and_mask()
    for encoder in ("lstm", "bilstm"):
        layer = MaxPoolEncoder(encoder, units=3, recurrent_dropout=0.2, word_dropout=0.2)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x, mask=mask, training=True) ** 2)
        grads = tape.gradient(loss, layer.trainable_weights)
        assert len(grads) == (6 if encoder == "bilstm" else 3)
        for weight, grad in zip(layer.trainable_weights, grads):
            grad = numpy(tf.convert_to_tensor(grad))
            assert np.all(np.isfinite(grad)) and np.abs(grad).max() > 0, weight.path


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"encoder": "cnn"}, "encoder='cnn'"),
        ({"encoder": "dense"}, "encoder='dense'"),
        ({"units": 0}, "units=0"),
        ({"units": 2.5}, "units=2.5"),
        ({"recurrent_dropout": 1.0}, "recurrent_dropout=1.0"),
        ({"word_dropout": -0.1}, "word_dropout=-0.1"),
        ({"return_token_states": "yes"}, "return_token_states='yes'"),
    ],
)
def test_invalid_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MaxPoolEncoder(**kwargs)


def test_token_ids_without_embedding_get_a_hint():
    with pytest.raises(ValueError, match="Embedding"):
        MaxPoolEncoder(units=2)(np.ones((2, 5), "int32"))


def test_token_states_on_request_and_output_shapes():
    layer = MaxPoolEncoder("bilstm", units=2)
    assert layer.compute_output_shape((None, 7, 3)) == (None, 4)
    symbolic = layer(keras.Input((7, 3)), return_token_states=True)
    assert tuple(symbolic["pooled"].shape) == (None, 4) and tuple(symbolic["token_states"].shape) == (None, 7, 4)
    assert tuple(layer(keras.Input((7, 3))).shape) == (None, 4)
    assert layer.return_token_states is False  # the call argument leaves the layer unchanged
    by_default = MaxPoolEncoder("gru", units=2, return_token_states=True)
    assert by_default.compute_output_shape((None, 7, 3)) == {"pooled": (None, 2), "token_states": (None, 7, 2)}
    assert tuple(by_default(keras.Input((7, 3)), return_token_states=False).shape) == (None, 2)


def test_config_round_trip():
    layer = MaxPoolEncoder("gru", units=3, recurrent_dropout=0.25, word_dropout=0.125, return_token_states=True)
    config = layer.get_config()
    assert {k: config[k] for k in ("encoder", "units", "recurrent_dropout", "word_dropout", "return_token_states")} == {
        "encoder": "gru",
        "units": 3,
        "recurrent_dropout": 0.25,
        "word_dropout": 0.125,
        "return_token_states": True,
    }
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert type(restored) is MaxPoolEncoder and restored.get_config() == config
    x, mask = words_and_mask()
    expected = layer(x, mask=mask)
    restored(x, mask=mask)
    restored.set_weights(layer.get_weights())
    for key, value in restored(x, mask=mask).items():
        np.testing.assert_array_equal(numpy(value), numpy(expected[key]))


def test_build_builds_every_sublayer():
    """An unbuilt sublayer makes Keras' JAX `predict` run the whole model eagerly first."""
    encoder = MaxPoolEncoder("bilstm", units=4)
    encoder.build((2, 5, 3))
    assert encoder.rnn.built and encoder.pooling.built
