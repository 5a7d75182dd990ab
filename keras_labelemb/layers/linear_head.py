"""The usual per-label output layer, as a label head (the baseline of GILE eq. 3 and DRILL's full softmax)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_label_indices, check_positive_int
from keras_labelemb.layers.label_head import LabelHead, register_head


@register_head("linear")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class LinearHead(LabelHead):
    """Per-label output layer: `logits = h W + b`, `W` `(d_h, L)`, `b` `(L,)`.

    The baseline every label-embedding head is compared with: one weight vector
    and one bias per label, no label descriptions, so it cannot score labels it
    was not built with (`set_labels` and call-time labels raise). It is a
    `LabelHead` so that sampled training (`score_subset` gathers the `C`
    columns of `W`), chunked top-k scoring and export treat it like the other
    heads. `h` is `(B, d_h)` or `(B, T, d_h)` (a language model's full softmax).

    Args:
        num_labels: `L`.
        kernel_initializer: initializer of `W`.
        kernel_regularizer: regularizer of `W`, e.g. `keras.regularizers.L2(1e-6)`. Default None.
        bias_initializer: initializer of `b` (e.g. the log-odds of the label prior).

    Example:

    >>> import numpy as np
    >>> head = LinearHead(num_labels=5)
    >>> tuple(head(np.zeros((2, 3), "float32")).shape)
    (2, 5)
    >>> tuple(head.score_subset(np.zeros((2, 3), "float32"), np.array([0, 4])).shape)
    (2, 2)
    """

    scores_are_inner_products = True
    reads_descriptions = False

    def __init__(
        self,
        num_labels,
        kernel_initializer="glorot_uniform",
        kernel_regularizer=None,
        bias_initializer="zeros",
        **kwargs,
    ):
        for key in ("embedding", "label_ids", "label_dim"):
            if kwargs.get(key) is not None:
                raise ValueError(f"LinearHead reads no label descriptions. Received: {key}={kwargs[key]!r}")
            kwargs.pop(key, None)
        super().__init__(num_labels=check_positive_int("num_labels", num_labels), **kwargs)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

    @property
    def has_per_label_parameters(self):
        return True

    def build(self, input_shape):
        if len(input_shape) not in (2, 3) or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must be (B, d_h) or (B, T, d_h) with a known d_h. "
                f"Received: inputs with shape {tuple(input_shape)}"
            )
        self.build_label_side()
        self.kernel = self.add_weight(
            name="kernel",
            shape=(input_shape[-1], self.num_labels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.bias = self.add_weight(name="bias", shape=(self.num_labels,), initializer=self.bias_initializer)

    def call(self, inputs, label_ids=None, label_embeddings=None, training=None):
        if label_ids is not None or label_embeddings is not None:
            raise ValueError(
                "LinearHead cannot score call-time labels (one weight vector per stored label). "
                "Received: label_ids or label_embeddings"
            )
        h = ops.cast(inputs, self.compute_dtype)
        logits = ops.matmul(h, ops.cast(self.kernel, self.compute_dtype)) + ops.cast(self.bias, self.compute_dtype)
        return self.lay_out_label_axis(logits, "logits")

    def score_subset(self, inputs, label_indices, training=None):
        check_label_indices(label_indices, self.num_labels)
        indices = ops.convert_to_tensor(label_indices, dtype="int32")
        kernel = ops.take(ops.cast(self.kernel, self.compute_dtype), indices, axis=1)
        bias = ops.take(ops.cast(self.bias, self.compute_dtype), indices, axis=0)
        return self.lay_out_label_axis(ops.matmul(ops.cast(inputs, self.compute_dtype), kernel) + bias, "logits")

    def query_vectors(self, inputs):
        """The document side `(B, d_h + 1)`: `h` and a 1 that meets the bias."""
        h = ops.cast(inputs, self.compute_dtype)
        return ops.concatenate([h, ops.ones_like(h[..., :1])], axis=-1)

    def label_vectors(self, label_indices=None, label_ids=None):
        """The label side `(L, d_h + 1)`: each label's weights and bias (all, or the labels at `label_indices`)."""
        self._require_inner_products()
        if label_ids is not None:
            raise ValueError(f"LinearHead reads no label descriptions. Received: label_ids={label_ids!r:.80}")
        vectors = ops.concatenate(
            [ops.transpose(self._w(self.kernel)), ops.reshape(self._w(self.bias), (-1, 1))], axis=-1
        )
        if label_indices is None:
            return vectors
        check_label_indices(label_indices, self.num_labels)
        return ops.take(vectors, ops.convert_to_tensor(label_indices, "int32"), axis=0)

    def label_axis_variables(self):
        return [(self.kernel, 1), (self.bias, 0)]

    def get_config(self):
        config = super().get_config()
        config.update(
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            kernel_regularizer=keras.regularizers.serialize(self.kernel_regularizer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
        )
        return config
