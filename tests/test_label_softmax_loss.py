"""`LabelSoftmaxLoss`: a NumPy reference, its gradient, documents without positives, bad shapes, precision, fit."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.losses import LabelSoftmaxLoss

RNG = np.random.default_rng(0)


def reference(y_true, logits):
    """Per document: -(1/|P|) sum over positives of log softmax(logits); 0 without a positive."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    share = y_true / np.maximum(y_true.sum(axis=1, keepdims=True), 1e-12)
    return -(share * log_p).sum(axis=1)


def test_the_loss_is_the_mean_of_the_reference_and_its_gradient_is_softmax_minus_the_share():
    y_true = (RNG.random((6, 9)) < 0.3).astype("float32")
    y_true[0] = 0  # no positive: adds 0
    logits = RNG.normal(size=(6, 9)).astype("float32") * 3
    np.testing.assert_allclose(float(LabelSoftmaxLoss()(y_true, logits)), reference(y_true, logits).mean(), rtol=1e-5)
    per_document = LabelSoftmaxLoss(reduction=None)(y_true, logits)
    np.testing.assert_allclose(np.asarray(per_document), reference(y_true, logits), rtol=1e-5, atol=1e-6)
    assert float(per_document[0]) == 0.0
    variable = tf.Variable(logits)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(LabelSoftmaxLoss(reduction=None)(y_true, variable))
    softmax = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    has = y_true.sum(axis=1, keepdims=True) > 0
    share = y_true / np.maximum(y_true.sum(axis=1, keepdims=True), 1e-12)
    np.testing.assert_allclose(tape.gradient(loss, variable).numpy(), np.where(has, softmax - share, 0), atol=1e-6)


def test_only_the_ranking_of_a_documents_labels_matters():
    y_true = np.array([[1.0, 0.0, 1.0, 0.0]])
    logits = RNG.normal(size=(1, 4)).astype("float32")
    loss = LabelSoftmaxLoss()
    # A shift shared by every label changes nothing (binary cross-entropy would change).
    np.testing.assert_allclose(float(loss(y_true, logits + 7.0)), float(loss(y_true, logits)), rtol=1e-5)


def test_large_and_half_precision_logits_stay_finite():
    y_true = np.array([[1.0, 0.0, 0.0]])
    logits = np.array([[-1e4, 1e4, 0.0]], "float32")
    assert np.isfinite(float(LabelSoftmaxLoss()(y_true, logits)))
    half = LabelSoftmaxLoss()(y_true, tf.constant([[-60.0, 60.0, 0.0]], tf.float16))
    np.testing.assert_allclose(float(half), 120.0, rtol=1e-3)


def test_targets_of_another_width_are_refused():
    with pytest.raises(ValueError, match=r"y_true of shape \(2, 3\) and y_pred of shape \(2, 4\)"):
        LabelSoftmaxLoss()(np.ones((2, 3)), np.ones((2, 4)))


def test_it_round_trips_and_trains_a_model():
    restored = keras.losses.deserialize(keras.losses.serialize(LabelSoftmaxLoss(name="ranked")))
    assert isinstance(restored, LabelSoftmaxLoss) and restored.name == "ranked"
    keras.utils.set_random_seed(1)
    x = RNG.normal(size=(64, 5)).astype("float32")
    y = (x[:, :3] > 0).astype("float32")
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    model.compile(keras.optimizers.Adam(0.05), LabelSoftmaxLoss())
    history = model.fit(x, y, epochs=20, verbose=0)
    assert history.history["loss"][-1] < 0.8 * history.history["loss"][0]
