"""Cross-entropy over a decoded label sequence, masked after the end symbol (CNLE eq. 14)."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelSequenceLoss(keras.losses.Loss):
    """CNLE eq. 14: `-sum_t log y_t[y*_t]` over the steps up to and including the end symbol.

    `y_true` `(B, T)` int label positions from `label_sequences` (labels,
    the end symbol `c`, then -1 padding); `y_pred` `(B, T, c + 1)` step
    logits (teacher forcing). Padding steps (negative targets) count zero.
    Each document's loss is its sum over steps, as in eq. 14; Keras' reduction
    then averages over documents.

    Example:

    >>> import numpy as np
    >>> logits = np.zeros((1, 3, 4), "float32")
    >>> round(float(LabelSequenceLoss()(np.array([[0, 3, -1]]), logits)), 4)  # 2 steps x log 4
    2.7726
    """

    def __init__(self, name="label_sequence_loss", reduction="sum_over_batch_size", dtype=None):
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, "int32")
        logits = ops.cast(y_pred, "float32")
        keep = ops.greater_equal(y_true, 0)
        safe = ops.where(keep, y_true, 0)
        per_step = ops.sparse_categorical_crossentropy(safe, logits, from_logits=True)
        return ops.sum(ops.where(keep, per_step, 0.0), axis=-1)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}
