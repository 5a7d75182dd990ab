"""Context-vector attention pooling (GILE eq. 2; Yang et al. 2016)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers.masks import masked_softmax, zero_masked


@keras.saving.register_keras_serializable(package="keras_labelemb")
class AttentionPooling(keras.layers.Layer):
    """Pools a sequence of vectors into one with a learned context vector.

    Computes (GILE eq. 2, Yang et al. 2016):

        v_t = tanh(W h_t + b),   alpha_t = softmax_t(v_t . u),   s = sum_t alpha_t h_t

    Padding positions (mask False) get zero weight; a sequence with no
    unmasked position pools to the zero vector (finite, never NaN).

    Args:
        units: size of the attention projection `W`; defaults to the input
            feature size.
        return_attention_scores: if True, `call` returns `(s, alpha)` where
            `alpha` has the input's shape without the feature axis.
        kernel_initializer: initializer for `W` and `u`.

    Input: `(..., T, d)` float tensor, optional boolean mask `(..., T)`.
    Output: `(..., d)` (and `(..., T)` attention weights when requested).

    Example:

    >>> import numpy as np
    >>> pool = AttentionPooling(units=8)
    >>> x = np.random.rand(2, 5, 4).astype("float32")
    >>> mask = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0]], bool)
    >>> tuple(pool(x, mask=mask).shape)
    (2, 4)
    >>> float(np.abs(pool(x, mask=mask)[1]).sum())  # empty row pools to zeros
    0.0

    Reference: Pappas & Henderson, "GILE", TACL 2019, section 2.1.
    """

    def __init__(self, units=None, return_attention_scores=False, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self.units = check_positive_int("units", units, allow_none=True)
        self.return_attention_scores = bool(return_attention_scores)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True

    def build(self, input_shape):
        if len(input_shape) < 2 or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must have shape (..., T, d) with a known feature size d. "
                f"Received: inputs with shape {tuple(input_shape)}"
            )
        units = self.units or input_shape[-1]
        self.projection = keras.layers.Dense(
            units,
            activation="tanh",
            kernel_initializer=self.kernel_initializer,
            dtype=self.dtype_policy,
            name="projection",
        )
        self.projection.build(input_shape)
        self.context = self.add_weight(shape=(units,), initializer=self.kernel_initializer, name="context")

    def call(self, inputs, mask=None):
        inputs = zero_masked(inputs, mask)
        scores = ops.matmul(self.projection(inputs), ops.cast(self.context, self.compute_dtype))
        weights = masked_softmax(scores, mask)
        pooled = ops.sum(ops.expand_dims(weights, -1) * inputs, axis=-2)
        if self.return_attention_scores:
            return pooled, weights
        return pooled

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        pooled = tuple(input_shape[:-2]) + (input_shape[-1],)
        if self.return_attention_scores:
            return pooled, tuple(input_shape[:-1])
        return pooled

    def get_config(self):
        config = super().get_config()
        config.update(
            units=self.units,
            return_attention_scores=self.return_attention_scores,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
        )
        return config
