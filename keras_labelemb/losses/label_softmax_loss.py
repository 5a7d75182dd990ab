"""A softmax over the labels of each document: the labels ranked against each other, not scored one by one."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelSoftmaxLoss(keras.losses.Loss):
    """Cross-entropy of a softmax over the labels towards the document's positives, which share the target.

    For a document with positive labels `P` and logits `s`, the loss is
    `-(1 / |P|) * sum_{j in P} log softmax(s)_j`, the listwise softmax loss of
    learning to rank (Cao et al. 2007; TF-Ranking's softmax loss) over the
    label set. Binary cross-entropy fits each label's score to its own base
    rate; this loss only asks that a document's labels rank above its other
    labels, so scores of different labels land on one scale. That is what a
    ranking over seen labels and labels added later (scored from their
    descriptions) needs, e.g. `HybridHead(per_label_dropout=...)` in the
    `minilm_generalized` preset. A document without a positive label adds 0.

    Targets are multi-hot `(B, L)` (any non-negative weights: they are
    normalised per document); logits are `(B, L)`.

    Example:

    >>> import numpy as np
    >>> loss = LabelSoftmaxLoss()
    >>> y_true = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    >>> y_pred = np.array([[2.0, 2.0, 0.0], [1.0, 0.0, 0.0]])
    >>> round(float(loss(y_true, y_pred)), 4)  # (log(2 + e^-2) + 0) / 2
    0.3793
    """

    def __init__(self, name="label_softmax_loss", reduction="sum_over_batch_size", dtype=None):
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true, y_pred):
        y_pred = ops.cast(y_pred, "float32")  # the log-sum-exp in float32 under mixed precision
        y_true = ops.cast(y_true, "float32")
        if y_true.shape[-1] is not None and y_pred.shape[-1] is not None and y_true.shape[-1] != y_pred.shape[-1]:
            raise ValueError(
                "LabelSoftmaxLoss reads multi-hot targets with one column per label of the logits. "
                f"Received: y_true of shape {tuple(y_true.shape)} and y_pred of shape {tuple(y_pred.shape)}"
            )
        total = ops.sum(y_true, axis=-1, keepdims=True)
        share = y_true / ops.maximum(total, 1e-12)
        log_probabilities = y_pred - ops.logsumexp(y_pred, axis=-1, keepdims=True)
        return -ops.sum(share * log_probabilities, axis=-1)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "dtype": self.dtype}
