"""SampledSigmoidLoss: sampled training equals full BCE in the limit, is unbiased when asked,
corrects sampled logits by log q, and checks its arguments (the candidates themselves: test_label_sampler.py)."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from sampled_sigmoid_loss_helpers import _head, _targets

from keras_labelemb.losses import SampledSigmoidLoss

NUM_LABELS = 12


def _full_bce(y, logits):
    logits = np.asarray(logits, "float64")
    return np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))


@pytest.mark.parametrize("weighting", ["mean", "unbiased"])
def test_sampling_every_negative_gives_full_bce_and_its_gradients(weighting):
    head = _head()
    rng = np.random.default_rng(2)
    y = _targets(rng)
    h = tf.Variable(rng.normal(size=(6, 4)).astype("float32"))
    loss = SampledSigmoidLoss(num_negatives=NUM_LABELS, weighting=weighting, max_positives=4, seed=3)

    with tf.GradientTape(persistent=True) as tape:
        full = loss(y, head(h))
        candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, NUM_LABELS)
        sampled = loss.sampled_loss(y, head.score_subset(h, candidates), candidates, keep, num_positive, NUM_LABELS)
    assert sorted(np.asarray(candidates).tolist()) == list(range(NUM_LABELS))
    assert np.asarray(keep).all()
    np.testing.assert_allclose(float(sampled), float(full), rtol=1e-6)
    np.testing.assert_allclose(float(full), _full_bce(y, head(h)), rtol=1e-5)
    variables = [h] + head.trainable_variables
    for full_grad, sampled_grad in zip(tape.gradient(full, variables), tape.gradient(sampled, variables)):
        full_grad, sampled_grad = tf.convert_to_tensor(full_grad), tf.convert_to_tensor(sampled_grad)
        assert float(tf.reduce_max(tf.abs(full_grad))) > 0, "no gradient reached a weight"
        np.testing.assert_allclose(sampled_grad, full_grad, rtol=1e-4, atol=1e-7)


def _draws(loss, y, logits, count):
    """`count` sampled losses of `loss`, each on fresh candidates (one traced graph: eagerly, ~6 ms a draw)."""
    num_labels = logits.shape[1]

    @tf.function
    def draw():
        candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, num_labels)
        return loss.sampled_loss(y, tf.gather(logits, candidates, axis=1), candidates, keep, num_positive, num_labels)

    return np.array([float(draw()) for _ in range(count)])


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform"])
def test_unbiased_weighting_estimates_the_full_loss(sampler):
    rng = np.random.default_rng(5)
    num_labels, batch = 50, 4
    y = _targets(rng, batch=batch, num_labels=num_labels, rate=0.1)
    logits = rng.normal(scale=2.0, size=(batch, num_labels)).astype("float32")
    loss = SampledSigmoidLoss(num_negatives=6, weighting="unbiased", sampler=sampler, max_positives=20, seed=7)
    draws = _draws(loss, y, logits, 800)
    full = _full_bce(y, logits)
    standard_error = draws.std() / np.sqrt(len(draws))
    assert draws.std() > 0  # the estimate does vary with the draw
    assert abs(draws.mean() - full) < 4 * standard_error, (draws.mean(), full, standard_error)
    # The plain mean over candidates is not: with confident positives it is off by many standard errors.
    confident = np.where(y > 0, 6.0, logits).astype("float32")
    biased = _draws(SampledSigmoidLoss(num_negatives=6, max_positives=20, seed=7), y, confident, 200)
    assert abs(biased.mean() - _full_bce(y, confident)) > 6 * biased.std() / np.sqrt(len(biased))


def test_log_q_correction_shifts_sampled_negative_logits_by_log_expected_count():
    y = np.zeros((1, 8), "float32")
    y[0, 0] = 1
    counts = np.arange(1, 9, dtype="float64")
    kwargs = dict(num_negatives=7, sampler="frequency", label_frequencies=counts, max_positives=1, seed=0)
    plain, corrected = SampledSigmoidLoss(**kwargs), SampledSigmoidLoss(log_q_correction=True, **kwargs)
    candidates, keep, num_positive = plain.label_sampler.sample_candidates(y, 8)
    logits = np.zeros((1, 8), "float32")
    q = counts / counts.sum()
    order = np.asarray(candidates)
    shift = np.where(order == 0, 0.0, np.log(7 * q[order]))
    expected = SampledSigmoidLoss(num_negatives=7).sampled_loss(
        y, (logits[:, order] - shift).astype("float32"), candidates, keep, num_positive, 8
    )
    got = corrected.sampled_loss(y, logits[:, order], candidates, keep, num_positive, 8)
    np.testing.assert_allclose(float(got), float(expected), rtol=1e-6)


def test_documents_without_positives_give_finite_loss():
    head = _head()
    y = np.zeros((3, NUM_LABELS), "float32")
    loss = SampledSigmoidLoss(num_negatives=4, max_positives=2, seed=0)
    candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, NUM_LABELS)
    value = loss.sampled_loss(
        y, head.score_subset(np.ones((3, 4), "float32"), candidates), candidates, keep, num_positive, NUM_LABELS
    )
    assert np.isfinite(float(value)) and int(num_positive) == 0 and 1 <= np.asarray(keep).sum() <= 4


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(), "exactly one of"),
        (dict(num_negatives=3, negative_rate=0.1), "exactly one of"),
        (dict(num_negatives=0), "num_negatives"),
        (dict(negative_rate=1.5), "negative_rate"),
        (dict(num_negatives=3, sampler="zipf"), "sampler"),
        (dict(num_negatives=3, sampler="frequency"), "label_frequencies"),
        (dict(num_negatives=3, sampler="hard", weighting="unbiased"), "unbiased"),
        (dict(num_negatives=3, sampler="hard", log_q_correction=True), "log_q_correction"),
        (dict(num_negatives=3, max_positives=0), "max_positives"),
    ],
)
def test_bad_arguments_raise_naming_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SampledSigmoidLoss(**kwargs)


def test_targets_and_logits_of_another_width_name_both_shapes():
    loss = SampledSigmoidLoss(num_negatives=2, seed=0)
    with pytest.raises(ValueError, match=r"`y_true` and `y_pred`.*\(2, 4\).*\(2, 5\)"):
        loss(np.zeros((2, 4), "float32"), np.zeros((2, 5), "float32"))


def test_full_loss_equals_keras_binary_crossentropy_from_logits():
    rng = np.random.default_rng(4)
    y = (rng.random((3, 6)) < 0.4).astype("float32")
    logits = rng.normal(scale=30, size=(3, 6)).astype("float32")  # large logits: the stable form matters
    expected = keras.losses.BinaryCrossentropy(from_logits=True)(y, logits)
    np.testing.assert_allclose(float(SampledSigmoidLoss(num_negatives=2)(y, logits)), float(expected), rtol=1e-5)
