"""One-error: how often the top-ranked label is wrong."""

import keras
from keras import ops

from keras_labelemb.metrics.document_average_metric import DocumentAverageMetric


@keras.saving.register_keras_serializable(package="keras_labelemb")
class OneError(DocumentAverageMetric):
    """Fraction of documents whose top-scored label is not relevant (streaming).

        OE = (1 / |D+|) * sum_{i in D+} [argmax_l s_il not in Y_i]

    where D+ are the documents with at least one relevant label. Documents
    without any relevant label are excluded from numerator and denominator
    (no top label could be right for them); when no document has a relevant
    label the result is 0. Ties for the top score are broken by
    `keras.ops.top_k`, which takes the lowest label index, so on D+ this is
    1 - P@1. Lower is better. Logits and probabilities give the same value.

    Args:
        name: string, default "one_error".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` multi-hot
    (batch, L), `y_pred` scores (batch, L), `sample_weight` per document
    (batch,) giving a weighted mean over documents.

    Example:

    >>> import numpy as np
    >>> m = OneError()
    >>> m.update_state(np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0]]),
    ...                np.array([[0.9, 0.5, 0.1], [0.3, 0.2, 0.8], [0.1, 0.2, 0.3]]))
    >>> round(float(m.result()), 4)  # 1 error in the 2 documents with a label
    0.5
    """

    total_name = "errors"

    def __init__(self, name="one_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    @property
    def errors(self):
        """The state variable with the weighted number of errors (`total`)."""
        return self.total

    def document_scores(self, relevance, scores, num_labels):
        _, top = ops.top_k(scores, k=1, sorted=True)
        top_relevant = ops.take_along_axis(relevance, top, axis=-1)[:, 0]
        has_relevant = ops.cast(ops.greater(ops.max(relevance, axis=-1), 0.0), self.dtype)
        return 1.0 - top_relevant, has_relevant
