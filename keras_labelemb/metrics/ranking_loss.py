"""Label ranking loss."""

import keras
from keras import ops

from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


@keras.saving.register_keras_serializable(package="keras_labelemb")
class RankingLoss(DocumentAverageMetric):
    """Fraction of wrongly ordered (relevant, irrelevant) label pairs (streaming).

        RL_i = |{(j, l) : j in Y_i, l not in Y_i, s_ij <= s_il}| / (|Y_i| (L - |Y_i|))
        RL   = (1 / N) * sum_i RL_i

    Ties count as wrongly ordered. A document whose labels are all relevant or
    all irrelevant has no pair and contributes 0, and still counts in the mean
    over all N documents. This is `sklearn.metrics.label_ranking_loss`. Lower
    is better. Logits and probabilities give the same value.

    It is computed from one sort per document, O(L log L): for each relevant
    label, the irrelevant labels scored >= it are (labels scored >= it) minus
    (relevant labels scored >= it).

    Args:
        name: string, default "ranking_loss".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) giving a weighted mean over documents.

    Example:

    >>> import numpy as np
    >>> m = RankingLoss()
    >>> m.update_state(np.array([[1, 0, 1]]), np.array([[0.9, 0.5, 0.1]]))
    >>> round(float(m.result()), 4)  # 1 of the 2 pairs is wrong
    0.5
    """

    def __init__(self, name="ranking_loss", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def document_scores(self, relevance, scores, num_labels):
        gain, _, at_or_above = _ranking.rank_statistics(relevance, scores)
        positives_above = _ranking.positives_at_or_above(gain, at_or_above)
        negatives_above = ops.cast(at_or_above, self.dtype) - positives_above
        wrong = ops.sum(gain * negatives_above, axis=-1)
        num_relevant = ops.sum(gain, axis=-1)
        pairs = num_relevant * (float(num_labels) - num_relevant)
        return ops.divide_no_nan(wrong, pairs), None
