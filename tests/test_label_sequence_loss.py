"""Tests of `label_sequence_loss`."""

import numpy as np
import tensorflow as tf
from adaptive_label_decoder_helpers import decoder_with_encoder, text

from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.testing.dtype_policy import dtype_policy

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 2, 0]], "int32")


def test_mixed_precision_forward_and_gradients_are_finite():
    with dtype_policy("mixed_float16"):
        x, mask = text()
        decoder = decoder_with_encoder()
        sequence = np.array([[0, 4, -1, -1]] * 4, "int32")
        with tf.GradientTape() as tape:
            logits = decoder(x, label_sequence=sequence, mask=mask)
            loss = LabelSequenceLoss()(sequence, logits)
        assert logits.dtype == "float16"
        grads = tape.gradient(loss, decoder.trainable_weights)
        assert all(np.all(np.isfinite(np.asarray(tf.convert_to_tensor(g)))) for g in grads if g is not None)
        assert np.all(np.asarray(decoder(x, mask=mask)) >= -1)


def test_loss_is_masked_after_the_end_symbol():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 3, 5)).astype("float32")
    y = np.array([[1, 4, -1], [4, -1, -1]])
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = (-(log_p[0, 0, 1] + log_p[0, 1, 4]) - log_p[1, 0, 4]) / 2
    np.testing.assert_allclose(float(LabelSequenceLoss()(y, logits)), expected, rtol=1e-5)
    changed = logits.copy()
    changed[0, 2] = 100.0  # a padded step
    np.testing.assert_allclose(float(LabelSequenceLoss()(y, changed)), expected, rtol=1e-5)
