"""Label ranking average precision (LRAP)."""

import keras
from keras import ops

from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelRankingAveragePrecision(DocumentAverageMetric):
    """Label ranking average precision, averaged over documents (streaming).

    For document i with relevant labels Y_i and scores s_i:

        rank_ij = |{l : s_il >= s_ij}|
        LRAP_i  = (1 / |Y_i|) * sum_{j in Y_i} |{l in Y_i : s_il >= s_ij}| / rank_ij
        LRAP    = (1 / N) * sum_i LRAP_i

    This is `sklearn.metrics.label_ranking_average_precision_score`, including
    its tie handling (a label's rank counts every label scored >= it, so ties
    are resolved pessimistically) and its convention that a document whose
    labels are all relevant or all irrelevant scores 1.0. Logits and probabilities give the same value. Cost
    O(L log L) per document.

    Args:
        name: string, default "label_ranking_average_precision".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) giving a weighted mean over documents.

    Example:

    >>> import numpy as np
    >>> m = LabelRankingAveragePrecision()
    >>> m.update_state(np.array([[1, 0, 1]]), np.array([[0.9, 0.5, 0.1]]))
    >>> round(float(m.result()), 4)  # (1/1 + 2/3) / 2
    0.8333
    """

    def __init__(self, name="label_ranking_average_precision", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def document_scores(self, relevance, scores, num_labels):
        gain, _, at_or_above = _ranking.rank_statistics(relevance, scores)
        positives_above = _ranking.positives_at_or_above(gain, at_or_above)
        precision = positives_above / ops.cast(at_or_above, self.dtype)
        num_relevant = ops.sum(gain, axis=-1)
        lrap = ops.divide_no_nan(ops.sum(gain * precision, axis=-1), num_relevant)
        degenerate = ops.logical_or(ops.equal(num_relevant, 0.0), ops.equal(num_relevant, float(num_labels)))
        return ops.where(degenerate, ops.ones_like(lrap), lrap), None
