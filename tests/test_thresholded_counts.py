"""The F1 metrics' shared base: the decision cut (probabilities or logits) and the weighted counts."""

import math

import numpy as np
import pytest
from keras import ops

from keras_labelemb.metrics.thresholded_counts import ThresholdedCounts

RELEVANCE = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], "float32")
PROBABILITIES = np.array([[0.9, 0.6, 0.2], [0.4, 0.7, 0.8]], "float32")


def counts(metric, scores, sample_weight=None, axis=None):
    return [ops.convert_to_numpy(c) for c in metric.weighted_counts(RELEVANCE, scores, sample_weight, axis)]


def test_logits_give_the_decisions_of_their_probabilities():
    probabilities = ThresholdedCounts(threshold=0.65)
    logits = ThresholdedCounts(threshold=0.65, from_logits=True)
    assert logits.cut == pytest.approx(math.log(0.65 / 0.35))
    as_logits = np.log(PROBABILITIES / (1 - PROBABILITIES))
    np.testing.assert_allclose(counts(logits, as_logits), counts(probabilities, PROBABILITIES))
    np.testing.assert_allclose(counts(probabilities, PROBABILITIES), [2.0, 1.0, 1.0])  # 0.9, 0.7 | 0.8 | 0.2


def test_document_weights_broadcast_over_labels_and_counts_sum_per_label():
    metric = ThresholdedCounts()
    per_label = counts(metric, PROBABILITIES, sample_weight=np.array([2.0, 0.5]), axis=0)
    np.testing.assert_allclose(per_label[0], [2.0, 0.5, 0.0])  # true positives
    np.testing.assert_allclose(per_label[1], [0.0, 2.0, 0.5])  # false positives
    np.testing.assert_allclose(per_label[2], [0.0, 0.0, 2.0])  # false negatives
    column = counts(metric, PROBABILITIES, sample_weight=np.array([[2.0], [0.5]]), axis=0)
    np.testing.assert_allclose(column, per_label)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.5, True, "0.5"])
def test_threshold_outside_zero_one_raises_naming_it(threshold):
    with pytest.raises(ValueError, match="threshold"):
        ThresholdedCounts(threshold=threshold)
