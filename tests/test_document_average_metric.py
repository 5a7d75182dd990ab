"""DocumentAverageMetric: the streaming weighted mean of a per-document score that the ranking metrics share.

A minimal subclass (score = the top-scored label is relevant; only documents with a positive count)
pins the base class's own contract; each real metric's value is checked in its own test file.
"""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


class TopHit(DocumentAverageMetric):
    total_name = "hits"

    def document_scores(self, relevance, scores, num_labels):
        top = ops.argmax(scores, axis=-1)
        hit = ops.take_along_axis(relevance, ops.expand_dims(top, -1), axis=-1)[:, 0]
        return hit, ops.cast(ops.max(relevance, axis=-1) > 0, self.dtype)


def value(metric):
    return float(ops.convert_to_numpy(metric.result()))


def reference(y, s, w):
    hit = y[np.arange(len(y)), s.argmax(1)]
    valid = y.max(1) > 0
    return np.sum(w * valid * hit) / np.sum(w * valid)


@pytest.mark.parametrize("weight_shape", ["none", "(batch,)", "(batch, 1)"])
def test_streams_the_weighted_mean_over_the_documents_that_count(weight_shape):
    rng = np.random.default_rng(0)
    y = (rng.random((23, 5)) < 0.3).astype("float32")
    y[:3] = 0.0  # documents without a positive do not count
    s = rng.random((23, 5)).astype("float32")
    w = np.ones(23) if weight_shape == "none" else rng.random(23) + 0.1
    metric = TopHit()
    assert value(metric) == 0.0  # nothing counted yet: 0, not NaN
    for lo, hi in [(0, 4), (4, 15), (15, 23)]:  # uneven batches
        weight = None if weight_shape == "none" else w[lo:hi] if weight_shape == "(batch,)" else w[lo:hi, None]
        metric.update_state(y[lo:hi], s[lo:hi], sample_weight=weight)
    assert value(metric) == pytest.approx(reference(y, s, w), abs=1e-6)
    assert [v.name for v in metric.variables] == ["hits", "count"]
    metric.reset_state()
    assert value(metric) == 0.0


def test_only_documents_that_do_not_count_give_zero_and_bad_weights_raise():
    metric = TopHit()
    metric.update_state(np.zeros((3, 4)), np.ones((3, 4)))
    assert value(metric) == 0.0
    with pytest.raises(ValueError, match="one weight per document"):
        metric.update_state(np.ones((3, 4)), np.ones((3, 4)), sample_weight=np.ones((3, 2)))
    with pytest.raises(ValueError, match="same number of labels"):
        metric.update_state(np.ones((3, 4)), np.ones((3, 5)))


def test_runs_compiled_under_xla():
    rng = np.random.default_rng(1)
    y = (rng.random((20, 6)) < 0.4).astype("float32")
    s = rng.random((20, 6)).astype("float32")
    model = keras.Sequential([keras.Input((6,)), keras.layers.Identity()])
    model.compile(loss="mse", metrics=[TopHit(name="top_hit")], jit_compile=True)
    got = model.evaluate(s, y, batch_size=7, verbose=0, return_dict=True)["top_hit"]
    assert got == pytest.approx(reference(y, s, np.ones(20)), abs=1e-6)
