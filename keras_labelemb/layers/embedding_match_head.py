"""Embedding match head: cosine of the mean word vectors of the document and of each label description."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool
from keras_labelemb.layers.label_head import register_head
from keras_labelemb.layers.token_label_head import UNKNOWN_ID, TokenLabelHead, unit_mean


@register_head("embedding")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class EmbeddingMatchHead(TokenLabelHead):
    """Scores each label by the cosine of the document's and the description's mean word vectors.

        logits = scale * cos(mean_t e(token t), mean_w e(description word w)) + b

    in the shared word `embedding` (means over the words that can match:
    padding, masked tokens and `ignored_ids` left out; with `idf_weighted`,
    each word weighted by its idf from `adapt`). Untrained (`scale` 1, `b` 0)
    it is the word-vector matching baseline of zero-shot classification; it
    orders the whole label list where tf-idf matching ties, which is why a
    `HybridHead(..., standardize=True)` over it and `LexicalMatchHead` (the
    untrained fusion) ranks better than either. A document or description
    without such words scores `b`.

    Args:
        embedding: the shared word `keras.layers.Embedding`.
        label_ids: `(L, Lw)` token ids of the label descriptions.
        idf_weighted: weight words by idf. Default False.
        ignored_ids: ids left out of the means. Default `(1,)` (unknown word).
        scale_initializer: initial `scale`. Default 1.
        bias_initializer: initial `b`. Default 0.

    Example:

    >>> import numpy as np, keras
    >>> embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    >>> head = EmbeddingMatchHead(embedding, label_ids=np.array([[4, 5], [6, 0]]))
    >>> scores = head({"token_ids": np.array([[4, 5, 0], [0, 0, 0]])})
    >>> bool(np.isclose(scores[0, 0], 1.0)), float(scores[1, 0])  # the same words; an empty document
    (True, 0.0)
    """

    label_side_keys = ("vectors",)

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        idf_weighted=False,
        ignored_ids=(UNKNOWN_ID,),
        scale_initializer="ones",
        bias_initializer="zeros",
        **kwargs,
    ):
        if embedding is None:
            raise ValueError("EmbeddingMatchHead compares word vectors: pass the shared `embedding`. Received: None")
        self.idf_weighted = check_bool("idf_weighted", idf_weighted)
        self.scale_initializer = keras.initializers.get(scale_initializer)
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            ignored_ids=ignored_ids,
            bias_initializer=bias_initializer,
            **kwargs,
        )

    def build(self, input_shape):
        super().build(input_shape)
        self.scale = self.add_weight(name="scale", shape=(), initializer=self.scale_initializer)

    def shift_and_scale_weights(self):
        return [self.scale, *super().shift_and_scale_weights()]

    def _weights(self, ids, keep):
        weights = ops.cast(keep, "float32")
        if self.idf_weighted:
            weights = weights * ops.take(ops.cast(self.idf, "float32"), ids)
        return weights

    def embed_label_ids(self, label_ids):
        """`{"vectors"}` `(L, d)`: each description's unit mean word vector."""
        ids, keep = self.matching_ids(ops.convert_to_tensor(label_ids, "int32"))
        return {"vectors": unit_mean(ops.cast(self.embedding(ids), "float32"), self._weights(ids, keep))}

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        ids, keep = self.document_ids(inputs)
        documents = unit_mean(ops.cast(self.embedding(ids), "float32"), self._weights(ids, keep))
        cosine = ops.matmul(documents, ops.transpose(ops.cast(label_embeddings["vectors"], "float32")))
        logits = ops.cast(self.scale, "float32") * cosine + ops.cast(self.bias, "float32")
        return ops.cast(logits, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.pop("vocabulary_size", None)
        config.update(
            idf_weighted=self.idf_weighted,
            scale_initializer=keras.initializers.serialize(self.scale_initializer),
        )
        return config
