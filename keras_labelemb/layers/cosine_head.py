"""`CosineHead`: the cosine of the projected document vector and each label's description vector."""

import math

import keras
from keras import ops

from keras_labelemb.layers.label_head import LabelHead, register_head


@register_head("cosine")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class CosineHead(LabelHead):
    """`logits = s · cos(h P, E) + b`: a document scored against label descriptions by one angle.

    `P` `(d_h, d)` projects the document vector into the word-vector space the
    label embeddings `E` `(L, d)` (the mean of each description's word
    vectors) live in; `s` is a learned scale (the cosine alone spans only
    [-1, 1], too narrow for a sigmoid) and `b` a bias shared by every label.
    No weight belongs to a label, so any label set can be scored
    (`set_labels`, zero-shot). A plain baseline for GILE: one projection, no
    joint space. An all-zero document or label vector gives cosine 0
    (the norms are floored), so the logit is `b`, finite.

    Args:
        embedding: the `keras.layers.Embedding` shared with the documents.
        label_ids: `(L, Lw)` token ids of the label descriptions.
        scale: the starting value of `s` (default 10.0).
        kernel_initializer: initializer of `P`.
        bias_initializer: initializer of `b`.

    Example:

    >>> import numpy as np
    >>> embedding = keras.layers.Embedding(20, 8, mask_zero=True)
    >>> head = CosineHead(embedding=embedding, label_ids=np.array([[2, 3], [4, 0], [5, 6]]))
    >>> tuple(head(np.ones((2, 5), "float32")).shape)
    (2, 3)
    """

    encodes_descriptions = True  # E: the label encoder over each description's word vectors

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        scale=10.0,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(embedding=embedding, label_ids=label_ids, **kwargs)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
            raise ValueError(f"`scale` must be a positive number. Received: scale={scale!r}")
        self.scale = float(scale)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

    def build(self, input_shape):
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ValueError(
                f"`inputs` must be document vectors of shape (B, d_h). Received: inputs with shape {tuple(input_shape)}"
            )
        self.build_label_side()
        width = self.embedding.output_dim if self.embedding is not None else self.label_dim
        self.kernel = self.add_weight(
            name="kernel", shape=(input_shape[-1], width), initializer=self.kernel_initializer
        )
        self.log_scale = self.add_weight(
            name="log_scale", shape=(), initializer=keras.initializers.Constant(math.log(self.scale))
        )
        self.bias = self.add_weight(name="bias", shape=(), initializer=self.bias_initializer)

    def shift_and_scale_weights(self):
        return [self.log_scale, self.bias]

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        docs = _unit(ops.matmul(ops.cast(inputs, self.compute_dtype), ops.cast(self.kernel, self.compute_dtype)))
        labels = _unit(ops.cast(label_embeddings, self.compute_dtype))
        scale = ops.cast(ops.exp(self.log_scale), self.compute_dtype)
        return scale * ops.matmul(docs, ops.transpose(labels)) + ops.cast(self.bias, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            scale=self.scale,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
        )
        return config


def _unit(x):
    # The norm is floored so that a zero vector stays zero (cosine 0) instead of 0 / 0.
    squared = ops.sum(ops.square(ops.cast(x, "float32")), axis=-1, keepdims=True)
    return x / ops.cast(ops.sqrt(ops.maximum(squared, 1e-12)), x.dtype)
