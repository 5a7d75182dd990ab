"""Tests of `perplexity`."""

import numpy as np
import pytest

from keras_labelemb.metrics import Perplexity

RNG = np.random.default_rng(11)


def numpy_cross_entropy(targets, logits):
    logits = logits - logits.max(-1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return -np.take_along_axis(log_probs, targets[..., None], -1)[..., 0]


def test_perplexity_streams_exp_of_mean_token_cross_entropy():
    logits = RNG.normal(scale=3, size=(2, 4, 5, 9)).astype("float32")  # two batches of (4, 5) tokens
    targets = RNG.integers(0, 9, size=(2, 4, 5))
    weights = (RNG.random((2, 4, 5)) > 0.3).astype("float32")
    metric = Perplexity()
    for b in range(2):
        metric.update_state(targets[b], logits[b], sample_weight=weights[b])
    ce = numpy_cross_entropy(targets, logits)
    want = np.exp((ce * weights).sum() / weights.sum())
    assert float(metric.result()) == pytest.approx(want, rel=1e-5)
    metric.reset_state()
    assert float(metric.result()) == 1.0
    probabilities = Perplexity(from_logits=False)
    softmax = np.exp(logits[0]) / np.exp(logits[0]).sum(-1, keepdims=True)
    probabilities.update_state(targets[0], softmax)
    assert float(probabilities.result()) == pytest.approx(np.exp(ce[0].mean()), rel=1e-4)


def test_perplexity_ignores_a_class_and_accepts_per_sequence_weights():
    logits = RNG.normal(size=(3, 4, 6)).astype("float32")
    targets = RNG.integers(1, 6, size=(3, 4))
    targets[0, 2:] = 0  # padding
    metric = Perplexity(ignore_class=0)
    metric.update_state(targets, logits, sample_weight=np.array([1.0, 0.0, 2.0]))
    ce = numpy_cross_entropy(targets, logits)
    w = (targets != 0) * np.array([1.0, 0.0, 2.0])[:, None]
    assert float(metric.result()) == pytest.approx(np.exp((ce * w).sum() / w.sum()), rel=1e-5)
    config = metric.get_config()
    assert Perplexity.from_config(config).ignore_class == 0
    with pytest.raises(ValueError, match="ignore_class"):
        Perplexity(ignore_class="pad")
