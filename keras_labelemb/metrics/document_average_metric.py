"""Base class of the metrics that average a per-document score (private)."""

import keras
from keras import ops

from keras_labelemb.metrics import _ranking


class DocumentAverageMetric(keras.metrics.Metric):
    """Streaming weighted mean of a per-document score.

    Keeps two scalar state variables, the weighted sum of the scores
    (`self.total`, named `total_name`) and the summed document weights
    (`self.count`); `result()` is their ratio, 0 before any document counts.
    Subclasses implement only `document_scores`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document,
    shape (batch,) or (batch, 1).
    """

    total_name = "total"

    def __init__(self, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name=self.total_name)
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def document_scores(self, relevance, scores, num_labels):
        """Returns `(values, valid)`: the score of each document, shape
        (batch,) in `self.dtype`, and a (batch,) 0/1 mask in `self.dtype` of
        the documents that count, or None when all of them do.

        `relevance`, `scores` and `num_labels` are those of `_ranking.prepare`.
        """
        raise NotImplementedError

    def update_state(self, y_true, y_pred, sample_weight=None):
        relevance, scores, num_labels = _ranking.prepare(y_true, y_pred, self.dtype)
        weight = _ranking.document_weights(sample_weight, relevance, self.dtype)
        values, valid = self.document_scores(relevance, scores, num_labels)
        if valid is not None:
            weight = weight * valid
        self.total.assign_add(ops.sum(weight * values))
        self.count.assign_add(ops.sum(weight))

    def result(self):
        return ops.divide_no_nan(self.total, self.count)
