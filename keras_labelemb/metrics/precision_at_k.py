"""Precision at k for multi-label ranking."""

import keras
from keras import ops

from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


@keras.saving.register_keras_serializable(package="keras_labelemb")
class PrecisionAtK(DocumentAverageMetric):
    """Mean precision of the k top-scored labels per document (streaming).

        P@k = (1 / N) * sum_i |top_k(s_i) ∩ Y_i| / k

    where `top_k(s_i)` are the k highest-scored labels of document i and `Y_i`
    its relevant labels. Documents without any relevant label count (with
    precision 0), as is usual for P@k in extreme classification. When k > L
    only L labels can be retrieved and the missing slots count as not relevant
    (the divisor stays k). Ties: the top k are chosen by `keras.ops.top_k`,
    which prefers the lower label index among equal scores. Logits and
    probabilities give the same value.

    Args:
        k: int >= 1, default 1. Number of top-scored labels.
        name: string, default "precision_at_{k}".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) giving a weighted mean over documents.

    Example:

    >>> import numpy as np
    >>> m = PrecisionAtK(k=2)
    >>> m.update_state(np.array([[1, 0, 1], [0, 1, 0]]),
    ...                np.array([[0.9, 0.5, 0.1], [0.3, 0.2, 0.8]]))
    >>> round(float(m.result()), 4)  # (1/2 + 0/2) / 2
    0.25
    """

    def __init__(self, k=1, name=None, dtype=None):
        k = _ranking.validate_k(k)
        super().__init__(name=name or f"precision_at_{k}", dtype=dtype)
        self.k = k

    def document_scores(self, relevance, scores, num_labels):
        _, top = ops.top_k(scores, k=min(self.k, num_labels), sorted=True)
        hits = ops.sum(ops.take_along_axis(relevance, top, axis=-1), axis=-1)
        return hits / float(self.k), None

    def get_config(self):
        config = super().get_config()
        config.update({"k": self.k})
        return config
