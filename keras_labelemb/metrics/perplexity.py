"""Perplexity of a language model: exp of the mean token cross-entropy (streaming)."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_labelemb")
class Perplexity(keras.metrics.Metric):
    """Perplexity over every scored token of every batch.

        PPL = exp( sum_t w_t * CE_t / sum_t w_t ),   CE_t = -log p(y_t | context)

    The sums run over all tokens seen since the last `reset_state`, so the
    value over an evaluation set is the corpus perplexity (not a mean of
    per-batch perplexities). With no token scored yet it is 1.

    Args:
        from_logits: whether `y_pred` holds logits (default True) or probabilities.
        ignore_class: optional target id that is not scored (e.g. padding).
        name: default `"perplexity"`.
        dtype: dtype of the state and result.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` int targets
    `(B,)` or `(B, T)`; `y_pred` scores `(..., L)`; `sample_weight` per token
    (broadcast to `y_true`'s shape).

    Example:

    >>> import numpy as np
    >>> m = Perplexity(from_logits=False)
    >>> m.update_state(np.array([[0, 1]]), np.array([[[0.5, 0.5], [0.25, 0.75]]]))
    >>> round(float(m.result()), 4)   # exp(-(log 0.5 + log 0.75) / 2)
    1.633
    """

    def __init__(self, from_logits=True, ignore_class=None, name="perplexity", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if not isinstance(from_logits, bool):
            raise ValueError(f"`from_logits` must be True or False. Received: from_logits={from_logits!r}")
        if ignore_class is not None and (isinstance(ignore_class, bool) or not isinstance(ignore_class, int)):
            raise ValueError(f"`ignore_class` must be an int or None. Received: ignore_class={ignore_class!r}")
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        y_pred = ops.cast(y_pred, "float32")
        if len(y_true.shape) == len(y_pred.shape):  # (..., 1) targets
            y_true = ops.squeeze(y_true, axis=-1)
        weight = ops.ones(ops.shape(y_true), self.dtype)
        if self.ignore_class is not None:
            weight = weight * ops.cast(ops.not_equal(y_true, self.ignore_class), self.dtype)
            y_true = ops.where(ops.equal(y_true, self.ignore_class), 0, y_true)
        if sample_weight is not None:
            sample_weight = ops.cast(sample_weight, self.dtype)
            while len(sample_weight.shape) < len(weight.shape):
                sample_weight = ops.expand_dims(sample_weight, -1)
            weight = weight * sample_weight
        ce = ops.sparse_categorical_crossentropy(y_true, y_pred, from_logits=self.from_logits)
        self.total.assign_add(ops.sum(ops.cast(ce, self.dtype) * weight))
        self.count.assign_add(ops.sum(weight))

    def result(self):
        return ops.exp(ops.divide_no_nan(self.total, self.count))

    def reset_state(self):
        self.total.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {
            "name": self.name,
            "dtype": self.dtype,
            "from_logits": self.from_logits,
            "ignore_class": self.ignore_class,
        }
