"""Label description encoder: masked mean of word vectors (GILE section 2.2)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_rank
from keras_labelemb.layers.masks import zero_masked


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelEncoder(keras.layers.Layer):
    """Encodes each label description as the mean of its word vectors.

    Computes `e_j = (1 / L_j) sum_t c_jt` over the non-padding words of
    description `j` (GILE section 2.2). It has no weights, so labels added after
    training are encoded exactly like the training labels. A description with
    no word (all padding) encodes to the zero vector; `GileHead.set_labels`
    refuses such rows so the mistake is caught early.

    Any layer mapping `(L, Lw, d)` with a `(L, Lw)` mask to `(L, d)` can replace
    it (pass it as `GileHead(label_encoder=...)`).

    Input: `(L, Lw, d)` embedded label words, boolean mask `(L, Lw)`.
    Output: `(L, d)`.

    Example:

    >>> import numpy as np
    >>> words = np.ones((3, 4, 2), "float32")
    >>> mask = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], bool)
    >>> LabelEncoder()(words, mask=mask).numpy().tolist()
    [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def build(self, input_shape):
        check_rank("inputs", input_shape, (3,))  # (L, Lw, d): embedded words of L label descriptions

    def call(self, inputs, mask=None):
        check_rank("inputs", inputs.shape, (3,))
        if mask is None:
            return ops.mean(inputs, axis=-2)
        inputs = zero_masked(inputs, mask)
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        total = ops.sum(inputs, axis=-2)
        count = ops.sum(weights, axis=-2)
        return total / ops.maximum(count, ops.cast(1.0, inputs.dtype))

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-2]) + (input_shape[-1],)

    def get_config(self):
        return super().get_config()
