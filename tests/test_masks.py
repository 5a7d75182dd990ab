"""Masked positions influence nothing: a NaN or inf there reaches neither the outputs nor the gradients."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_labelemb.layers import AttentionPooling, HierarchicalAttention, LabelEncoder, RegionPooling
from keras_labelemb.layers.masks import masked_softmax, zero_masked

RNG = np.random.default_rng(5)


def test_attention_pooling_example_from_the_issue():
    x = np.ones((1, 3, 2), "float32")
    x[0, 2] = np.nan
    pooled = AttentionPooling()(x, mask=np.array([[True, True, False]]))
    np.testing.assert_allclose(ops.convert_to_numpy(pooled), [[1.0, 1.0]], atol=1e-6)


@pytest.mark.parametrize(
    "layer_fn, shape",
    [
        (lambda: AttentionPooling(units=4), (3, 5, 4)),
        (lambda: LabelEncoder(), (3, 5, 4)),
        (lambda: RegionPooling(num_regions=2, mode="average"), (3, 5, 4)),
        (lambda: RegionPooling(num_regions=2, mode="max"), (3, 5, 4)),
        (lambda: HierarchicalAttention("dense", 4, flat=True, dense_activation="tanh"), (3, 5, 4)),
        (lambda: HierarchicalAttention("gru", 3, "dense", 3), (3, 2, 5, 4)),
    ],
    ids=[
        "attention_pooling",
        "label_encoder",
        "region_pooling_average",
        "region_pooling_max",
        "hierarchical_attention_flat_dense",
        "hierarchical_attention_gru",
    ],
)
@pytest.mark.parametrize("poison", [np.nan, np.inf])
def test_poison_at_masked_positions_changes_nothing(layer_fn, shape, poison):
    clean = RNG.normal(size=shape).astype("float32")
    mask = np.ones(shape[:-1], bool)
    mask[0, ..., 3:] = False  # a short row
    mask[2] = False  # an all-padding row
    poisoned = np.where(mask[..., None], clean, np.float32(poison)).astype("float32")
    clean = np.where(mask[..., None], clean, 0.0).astype("float32")
    layer = layer_fn()
    expected = ops.convert_to_numpy(layer(clean, mask=mask))
    x = tf.Variable(poisoned)
    with tf.GradientTape() as tape:
        out = layer(x, mask=mask)
        loss = tf.reduce_sum(out)
    np.testing.assert_array_equal(ops.convert_to_numpy(out), expected)
    assert np.isfinite(expected).all()
    grads = tape.gradient(loss, [x] + layer.trainable_weights)
    for grad in grads:
        assert np.isfinite(ops.convert_to_numpy(grad)).all()


def test_zero_masked_selects_rather_than_multiplies():
    x = np.array([[[np.nan, 1.0], [2.0, 3.0]]], "float32")
    np.testing.assert_array_equal(
        ops.convert_to_numpy(zero_masked(x, np.array([[False, True]]))), [[[0.0, 0.0], [2.0, 3.0]]]
    )
    assert zero_masked(x, None) is x


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_masked_softmax_is_the_softmax_over_unmasked_positions_and_zero_for_an_empty_row(dtype):
    scores = np.array([[1.0, 30.0, -2.0, 0.5], [3.0, -1.0, 60.0, 2.0], [5.0, 5.0, 5.0, 5.0]], dtype)
    mask = np.array([[True, False, True, True], [True, True, False, False], [False] * 4])
    got = ops.convert_to_numpy(masked_softmax(scores, mask)).astype("float64")
    expected = np.zeros((3, 4))
    for i in range(2):
        e = np.exp(scores[i][mask[i]].astype("float64") - scores[i][mask[i]].max())
        expected[i][mask[i]] = e / e.sum()
    np.testing.assert_allclose(got, expected, atol=2e-3 if dtype == "float16" else 1e-6)
    unmasked = ops.convert_to_numpy(masked_softmax(scores[:2], None)).astype("float64")
    np.testing.assert_allclose(unmasked.sum(-1), [1.0, 1.0], atol=2e-3)


def _poison_check(call, clean_inputs, poisoned_inputs):
    """`call` on inputs poisoned at masked positions: outputs equal the clean ones, every gradient is finite."""
    expected = ops.convert_to_numpy(call(*clean_inputs))
    variables = [tf.Variable(x) for x in poisoned_inputs]
    with tf.GradientTape() as tape:
        out = call(*variables)
        loss = tf.reduce_sum(tf.where(tf.math.is_finite(out), out, 0.0))
    np.testing.assert_array_equal(ops.convert_to_numpy(out), expected)
    assert np.isfinite(expected).all()
    return tape, loss, variables


@pytest.mark.parametrize("poisoned", ["words", "labels"])
def test_poison_at_masked_words_or_labels_reaches_nothing_of_the_co_attentive_encoder(poisoned):
    from keras_labelemb.layers import CoAttentiveEncoder

    words, labels = RNG.normal(size=(3, 6, 4)).astype("float32"), RNG.normal(size=(5, 4)).astype("float32")
    mask, labels_mask = np.ones((3, 6), bool), np.array([True, True, True, False, False])
    mask[0, 4:], mask[2] = False, False
    clean = [np.where(mask[..., None], words, 0.0), np.where(labels_mask[:, None], labels, 0.0)]
    dirty = list(clean)
    index, keep = (0, mask) if poisoned == "words" else (1, labels_mask)
    dirty[index] = np.where(keep[..., None], clean[index], np.nan).astype("float32")
    encoder = CoAttentiveEncoder(model_dim=4, num_heads=2)

    def call(x, labels):
        return tf.concat(
            [tf.reshape(o, [-1]) for o in encoder(x, labels=labels, mask=mask, labels_mask=labels_mask)], 0
        )

    tape, loss, variables = _poison_check(call, [c.astype("float32") for c in clean], dirty)
    for grad in tape.gradient(loss, variables + encoder.trainable_weights):
        assert np.isfinite(ops.convert_to_numpy(grad)).all()


@pytest.mark.parametrize("with_encoder", [True, False])
def test_poison_at_masked_words_reaches_nothing_of_the_teacher_forced_decoder(with_encoder):
    from adaptive_label_decoder_helpers import LABELS, decoder_with_encoder, text

    from keras_labelemb.layers import AdaptiveLabelDecoder

    words, mask = text(width=6)
    sequence = np.array([[1, 2, 0, 0]] * 4, "int32")
    embedding = keras.layers.Embedding(12, 6, mask_zero=True)
    decoder = decoder_with_encoder() if with_encoder else AdaptiveLabelDecoder(embedding, LABELS, max_steps=4)
    clean = np.where(mask[..., None], words, 0.0).astype("float32")
    poisoned = np.where(mask[..., None], words, np.nan).astype("float32")
    tape, loss, variables = _poison_check(lambda x: decoder(x, label_sequence=sequence, mask=mask), [clean], [poisoned])
    for grad in tape.gradient(loss, variables + decoder.trainable_weights):
        assert np.isfinite(ops.convert_to_numpy(grad)).all()
