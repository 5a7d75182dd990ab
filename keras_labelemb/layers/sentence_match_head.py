"""Sentence match head: cosine of the document's and each description's sentence vectors, one encoder for both."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool
from keras_labelemb.layers.label_head import LabelHead, register_head
from keras_labelemb.layers.sentence_encoder import SentenceEncoder
from keras_labelemb.layers.token_label_head import unit_vectors


@register_head("sentence")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class SentenceMatchHead(LabelHead):
    """Scores each label by the cosine of the document's and the description's sentence vectors.

        logits = scale * cos(h, s(description)) + b

    `h` is the document's pooled vector from the `SentenceEncoder` shared
    with the documents (`document["pooled"]`), `s` the same encoder applied to
    the description's word-piece ids. Untrained (`scale` 1, `b` 0) with a
    pretrained bi-encoder it is the sentence-embedding baseline of zero-shot
    classification; in a `HybridHead(..., standardize=True)` beside a
    `LexicalMatchHead` over the same ids it fuses meaning and exact words.

    The description side is frozen unless `fine_tune_labels` (gradients do
    not reach the encoder through it), as `word_embeddings(fine_tune="documents")`
    freezes the label side of the word-vector heads. A description of
    padding only is refused by the label-set checks; `WordPieceVectorizer`
    encodes an empty text as `[CLS] [SEP]`, which the encoder reads as it
    reads any text (a finite cosine).

    Cost: each call encodes the whole label set with the transformer (frozen
    or not), so for many labels or many calls compute `head.embed_labels()`
    once and pass it as `label_embeddings=` (what chunked top-k scoring
    does per chunk). `keras_labelemb.models.sentence_classifier` builds a
    model around it (`head="sentence"`, or a hybrid with `"lexical"`).

    Args:
        embedding: the shared `SentenceEncoder`.
        label_ids: `(L, Lw)` word-piece ids of the label descriptions (the
            encoder's tokenizer; 0 = padding).
        fine_tune_labels: let gradients reach the encoder through the
            descriptions. Default False. Refused beside an encoder with
            `fine_tune="documents"`, whose label side is a frozen copy.
        scale_initializer: initial `scale`. Default 1.
        bias_initializer: initial `b`. Default 0.

    Example:

    >>> import numpy as np, keras_hub
    >>> backbone = keras_hub.models.BertBackbone(
    ...     vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=6)
    >>> encoder = SentenceEncoder(backbone)
    >>> head = SentenceMatchHead(encoder, label_ids=np.array([[2, 5, 7, 3], [2, 9, 3, 0]]))
    >>> scores = head(encoder(np.array([[2, 5, 7, 3, 0, 0]]))["pooled"])
    >>> tuple(scores.shape), bool(np.isclose(scores[0, 0], 1.0, atol=1e-5))  # the same text: cosine 1
    ((1, 2), True)
    """

    # Logits are `query_vectors(h) @ label_vectors().T`: a maximum-inner-product index (`LabelIndex`) serves it.
    scores_are_inner_products = True
    reads_sentence_vectors = True

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        fine_tune_labels=False,
        scale_initializer="ones",
        bias_initializer="zeros",
        **kwargs,
    ):
        if not isinstance(embedding, SentenceEncoder):
            raise ValueError(
                "SentenceMatchHead reads descriptions with the documents' `SentenceEncoder`: pass it as "
                f"`embedding`. Received: embedding={embedding!r}"
            )
        self.fine_tune_labels = check_bool("fine_tune_labels", fine_tune_labels)
        if self.fine_tune_labels and embedding.fine_tune == "documents":
            raise ValueError(
                "`fine_tune_labels=True` trains the encoder through the descriptions, but "
                "`SentenceEncoder(fine_tune='documents')` reads them with a frozen copy: nothing would train. Use "
                "`fine_tune=True` for one encoder trained on both sides. Received: fine_tune_labels=True"
            )
        self.scale_initializer = keras.initializers.get(scale_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        super().__init__(embedding=embedding, label_ids=label_ids, **kwargs)

    def _check_width(self, shape):
        if shape[-1] is not None and shape[-1] != self.embedding.output_dim:
            raise ValueError(
                f"SentenceMatchHead compares the encoder's {self.embedding.output_dim}-d sentence vectors. "
                f"Received: inputs with shape {tuple(shape)}"
            )

    def build(self, input_shape):
        self._check_width(input_shape)
        self.build_label_side()
        self.scale = self.add_weight(name="scale", shape=(), initializer=self.scale_initializer)
        self.bias = self.add_weight(name="bias", shape=(), initializer=self.bias_initializer)

    def shift_and_scale_weights(self):
        return [self.scale, self.bias]

    def embed_label_ids(self, label_ids):
        """`(L, d)` unit sentence vectors of the descriptions."""
        vectors = self.embedding.encode(label_ids)
        if not self.fine_tune_labels:
            vectors = ops.stop_gradient(vectors)
        return self.lay_out_label_axis(vectors, "label_embeddings")

    def _check_call_label_embeddings(self, label_embeddings):
        shape = tuple(label_embeddings.shape)
        if len(shape) != 2 or shape[-1] != self.embedding.output_dim:
            raise ValueError(
                f"`label_embeddings` must be (num_labels, {self.embedding.output_dim}). "
                f"Received: label_embeddings with shape {shape}"
            )
        return ops.cast(label_embeddings, "float32")

    def compute_logits(self, h, label_embeddings, label_indices=None, training=None):
        self._check_width(h.shape)
        documents = unit_vectors(ops.cast(h, "float32"))
        cosine = ops.matmul(documents, ops.transpose(ops.cast(label_embeddings, "float32")))
        logits = ops.cast(self.scale, "float32") * cosine + ops.cast(self.bias, "float32")
        return ops.cast(logits, self.compute_dtype)

    def query_vectors(self, inputs):
        """The document side `(B, d + 1)`: `scale * unit(h)` and `b` (see `label_vectors`)."""
        documents = ops.cast(self.scale, "float32") * unit_vectors(ops.cast(inputs, "float32"))
        return ops.concatenate([documents, ops.cast(self.bias, "float32") * ops.ones_like(documents[..., :1])], -1)

    def label_vectors_of(self, label_embeddings, label_indices=None):
        """The label side `(L, d + 1)`: each description's unit sentence vector and a 1 that meets `b`."""
        vectors = ops.cast(label_embeddings, "float32")
        return ops.concatenate([vectors, ops.ones_like(vectors[:, :1])], axis=-1)

    def get_config(self):
        config = super().get_config()
        config.update(
            fine_tune_labels=self.fine_tune_labels,
            scale_initializer=keras.initializers.serialize(self.scale_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
        )
        return config
