"""Micro-averaged F1 over all (document, label) decisions."""

import keras
from keras import ops

from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.thresholded_counts import ThresholdedCounts


@keras.saving.register_keras_serializable(package="keras_labelemb")
class MicroF1(ThresholdedCounts):
    """Micro-averaged F1 of thresholded multi-label predictions (streaming).

    A label is predicted for a document when its probability is strictly
    greater than `threshold`. True positives, false positives and false
    negatives are summed over every (document, label) pair of every batch:

        F1 = 2 TP / (2 TP + FP + FN)        (0 when TP + FP + FN = 0)

    which is `sklearn.metrics.f1_score(y_true, y_pred > threshold,
    average="micro")` (sklearn also answers 0 when there is nothing to score).
    With `from_logits=True` the scores are logits and the comparison is made in
    logit space, `logit > log(threshold / (1 - threshold))`, which is the same
    decision as `sigmoid(logit) > threshold` without saturating the sigmoid.

    Args:
        threshold: float in (0, 1), default 0.5. Decision threshold applied
            to probabilities.
        from_logits: bool, default False. Whether `y_pred` holds logits.
        name: string, default "micro_f1".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` is multi-hot
    (batch, L) (values > 0.5 count as relevant), `y_pred` scores (batch, L);
    `sample_weight` is per document, shape (batch,), or per decision, shape
    (batch, L).

    Example:

    >>> import numpy as np
    >>> m = MicroF1()
    >>> m.update_state(np.array([[1, 0, 1]]), np.array([[0.9, 0.6, 0.2]]))
    >>> round(float(m.result()), 4)  # TP=1, FP=1, FN=1
    0.5
    """

    def __init__(self, threshold=0.5, from_logits=False, name="micro_f1", dtype=None):
        super().__init__(threshold=threshold, from_logits=from_logits, name=name, dtype=dtype)
        self.true_positives = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="true_positives")
        self.false_positives = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="false_positives"
        )
        self.false_negatives = self.add_variable(
            shape=(), initializer="zeros", dtype=self.dtype, name="false_negatives"
        )

    def update_state(self, y_true, y_pred, sample_weight=None):
        relevance, scores, _ = _ranking.prepare(y_true, y_pred, self.dtype)
        tp, fp, fn = self.weighted_counts(relevance, scores, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.false_negatives.assign_add(fn)

    def result(self):
        tp = self.true_positives
        return ops.divide_no_nan(2.0 * tp, 2.0 * tp + self.false_positives + self.false_negatives)
