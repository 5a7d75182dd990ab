"""Base class of the F1 metrics: thresholded decisions and their weighted true/false positive counts (private)."""

import math
import numbers

import keras
from keras import ops


class ThresholdedCounts(keras.metrics.Metric):
    """A metric of thresholded multi-label decisions: a label is predicted when its score is above `threshold`.

    With `from_logits=True` the comparison is made in logit space,
    `logit > log(threshold / (1 - threshold))`: the same decision as
    `sigmoid(logit) > threshold` without saturating the sigmoid. Subclasses
    keep the counts `weighted_counts` returns in their own state.

    Args:
        threshold: float in (0, 1). Default 0.5.
        from_logits: whether `y_pred` holds logits. Default False.
    """

    def __init__(self, threshold=0.5, from_logits=False, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not 0.0 < float(threshold) < 1.0:
            raise ValueError(f"`threshold` must be a float strictly between 0 and 1. Received: threshold={threshold!r}")
        self.threshold = float(threshold)
        self.from_logits = bool(from_logits)

    @property
    def cut(self):
        """The score above which a label is predicted (a logit when `from_logits`)."""
        if self.from_logits:
            return math.log(self.threshold) - math.log1p(-self.threshold)
        return self.threshold

    def weighted_counts(self, relevance, scores, sample_weight=None, axis=None):
        """`(true positives, false positives, false negatives)` of the decisions, weighted per document
        (`sample_weight` `(B,)` or `(B, 1)`) and summed over `axis` (None: everything; 0: per label)."""
        predicted = ops.cast(ops.greater(scores, self.cut), self.dtype)
        if sample_weight is None:
            weight = ops.ones_like(relevance)
        else:
            weight = ops.cast(ops.convert_to_tensor(sample_weight), self.dtype)
            if len(weight.shape) == 1:
                weight = ops.expand_dims(weight, -1)
            weight = ops.broadcast_to(weight, ops.shape(relevance))
        return (
            ops.sum(weight * relevance * predicted, axis=axis),
            ops.sum(weight * (1.0 - relevance) * predicted, axis=axis),
            ops.sum(weight * relevance * (1.0 - predicted), axis=axis),
        )

    def get_config(self):
        config = super().get_config()
        config.update({"threshold": self.threshold, "from_logits": self.from_logits})
        return config
