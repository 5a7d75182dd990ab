"""Normalized discounted cumulative gain at k (binary relevance)."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


@keras.saving.register_keras_serializable(package="keras_labelemb")
class NDCGAtK(DocumentAverageMetric):
    """Binary-relevance nDCG@k averaged over documents (streaming).

    With the discount `d_p = 1 / log2(p + 2)` for the 0-based rank p, set to
    0 for p >= k, and `D(n) = d_0 + ... + d_{n-1}`:

        DCG@k_i  = sum_p rel_i(p) * d_p
        IDCG@k_i = D(min(|Y_i|, k))
        nDCG@k   = (1 / N) * sum_i DCG@k_i / IDCG@k_i

    Tied scores are handled as `sklearn.metrics.ndcg_score(y_true, y_score,
    k=k)` (default `ignore_ties=False`) does: a group of labels with equal
    scores occupying ranks [a, e) gets, for each of its labels, the average
    discount `(D(e) - D(a)) / (e - a)`, so the result does not depend on the
    order of tied labels. A document with no relevant label has IDCG = 0 and
    scores 0 (sklearn's convention); it still counts in the mean. With a
    single label the value is 1 for a relevant label and 0 otherwise. Logits
    and probabilities give the same value. Cost O(L log L) per document.

    Args:
        k: int >= 1, default 5. Rank cut-off.
        name: string, default "ndcg_at_{k}".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) giving a weighted mean over documents.

    Example:

    >>> import numpy as np
    >>> m = NDCGAtK(k=2)
    >>> m.update_state(np.array([[0, 1, 1]]), np.array([[0.9, 0.5, 0.1]]))
    >>> round(float(m.result()), 4)  # (1/log2(3)) / (1 + 1/log2(3))
    0.3869
    """

    def __init__(self, k=5, name=None, dtype=None):
        k = _ranking.validate_k(k)
        super().__init__(name=name or f"ndcg_at_{k}", dtype=dtype)
        self.k = k

    def _cumulative_discount(self, num_labels):
        """D(n) for n = 0..L as a constant, truncated at k."""
        discount = 1.0 / np.log2(np.arange(num_labels, dtype="float64") + 2.0)
        discount[self.k :] = 0.0
        table = np.concatenate([[0.0], np.cumsum(discount)])
        return ops.convert_to_tensor(table.astype(self.dtype))

    def document_scores(self, relevance, scores, num_labels):
        table = self._cumulative_discount(num_labels)
        gain, above, at_or_above = _ranking.rank_statistics(relevance, scores)
        group_size = ops.cast(at_or_above - above, self.dtype)
        mean_discount = (ops.take(table, at_or_above) - ops.take(table, above)) / group_size
        dcg = ops.sum(gain * mean_discount, axis=-1)
        num_relevant = ops.cast(ops.sum(gain, axis=-1), "int32")
        ideal = ops.take(table, num_relevant)
        return ops.divide_no_nan(dcg, ideal), None

    def get_config(self):
        config = super().get_config()
        config.update({"k": self.k})
        return config
