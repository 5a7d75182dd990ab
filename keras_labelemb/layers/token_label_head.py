"""The base of the label heads that read the document's words: the document dict, idf weights, `adapt`."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_positive_int, check_token_ids
from keras_labelemb.document_frequency import document_statistics, smoothed_idf
from keras_labelemb.layers.label_head import LabelHead, document_parts

# The library's TextVectorizer reads unknown words as id 1: two unknown words are not a match.
UNKNOWN_ID = 1


def safe_sqrt(x):
    """`sqrt(x)` whose gradient stays finite at 0 (that of `sqrt` is infinite there, and 0 * inf is NaN).

    Norms and spreads of all-zero rows (an empty document, an all-zero row of the word table) are 0.
    """
    return ops.sqrt(ops.maximum(x, 1e-24))


def unit_vectors(vectors):
    """`vectors` l2-normalised along the last axis; a zero vector stays zero (finite gradients too)."""
    norm = safe_sqrt(ops.sum(vectors * vectors, axis=-1, keepdims=True))
    return ops.where(norm > 1e-12, vectors / norm, 0.0)


def unit_mean(vectors, weights):
    """The weighted mean of `vectors` `(..., n, d)` over `n`, l2-normalised (zero where no weight)."""
    weights = ops.expand_dims(weights, -1)
    return unit_vectors(ops.sum(vectors * weights, axis=-2) / ops.maximum(ops.sum(weights, axis=-2), 1e-12))


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TokenLabelHead(LabelHead):
    """A `LabelHead` that scores labels from the document's token ids (`reads_tokens = True`).

    Its input is the document dict (`keras_labelemb.layers.label_head.DOCUMENT_KEYS`):
    `token_ids` `(B, T)` (or `(B, K, T)` sentences, read as one sequence) are
    required, the pooled vector is not read. Token ids outside the vocabulary
    raise in eager calls and read as padding in compiled ones; ids in
    `ignored_ids` (default the unknown word, 1) and padding never match.

    It holds non-trainable inverse document frequencies `idf` `(V,)`, 1 for
    every id until `adapt(documents)` sets scikit-learn's smoothed idf from
    training documents (`keras_labelemb.document_frequency.smoothed_idf`; ids that occur in
    none of them get 0, as a vectorizer fitted on them has no column for
    them). They are weights: saved, loaded and served with the model.

    The label side (`embed_labels`, call-time `label_embeddings`) is a dict
    of `(L, Lw)` tensors, computed once per label set by the subclass's
    `embed_label_ids`.

    Args:
        embedding: the shared word `keras.layers.Embedding` (its `input_dim`
            is the vocabulary size).
        label_ids: `(L, Lw)` token ids of the label descriptions.
        vocabulary_size: the vocabulary size when there is no `embedding`
            (a head that reads ids only).
        ignored_ids: token ids that never match (default `(1,)`: unknown).
        bias_initializer: initializer of the output bias.
    """

    reads_tokens = True
    # The keys of the label-side dict `embed_label_ids` returns.
    label_side_keys = ()

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        vocabulary_size=None,
        ignored_ids=(UNKNOWN_ID,),
        bias_initializer="zeros",
        num_labels=None,
        **kwargs,
    ):
        if embedding is not None and not (hasattr(embedding, "input_dim") and hasattr(embedding, "output_dim")):
            raise ValueError(
                "`embedding` must be a keras.layers.Embedding (or a layer with `input_dim` and `output_dim`). "
                f"Received: embedding={embedding!r}"
            )
        if embedding is not None and vocabulary_size is not None and vocabulary_size != embedding.input_dim:
            raise ValueError(
                f"`vocabulary_size` must match the embedding's {embedding.input_dim} rows or be left unset. "
                f"Received: vocabulary_size={vocabulary_size!r}"
            )
        self._vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size, allow_none=True)
        super().__init__(embedding=None, num_labels=num_labels, **kwargs)
        self.embedding = embedding
        if self.vocabulary_size is None:
            raise ValueError(
                f"{type(self).__name__} reads token ids: pass the shared `embedding` or `vocabulary_size`. "
                "Received: embedding=None, vocabulary_size=None"
            )
        try:
            ignored = tuple(int(i) for i in ignored_ids)
        except (TypeError, ValueError):
            ignored = None
        if ignored is None or any(i < 1 or i >= self.vocabulary_size for i in ignored):
            raise ValueError(
                f"`ignored_ids` must lie in [1, {self.vocabulary_size}) (0 is padding, always ignored). "
                f"Received: ignored_ids={ignored_ids!r}"
            )
        self.ignored_ids = ignored
        self.bias_initializer = keras.initializers.get(bias_initializer)
        if label_ids is not None:
            self.set_labels(label_ids)

    @property
    def vocabulary_size(self):
        return int(self.embedding.input_dim) if self.embedding is not None else self._vocabulary_size

    # -- weights ------------------------------------------------------------------
    def build(self, input_shape):
        if not isinstance(input_shape, dict) or "token_ids" not in input_shape:
            raise ValueError(
                f"{type(self).__name__} reads the document's tokens: its input is a dict with `token_ids` "
                f"(B, T) (see LabelHead). Received: inputs with shape {input_shape}"
            )
        self.build_label_side()
        initial = np.ones(self.vocabulary_size, "float32")
        initial[[0, *self.ignored_ids]] = 0.0
        self.idf = self.add_weight(
            name="idf", shape=(self.vocabulary_size,), initializer=keras.initializers.Constant(initial), trainable=False
        )
        self.bias = self.add_weight(name="bias", shape=(), initializer=self.bias_initializer)

    def shift_and_scale_weights(self):
        return [self.bias]

    def adapt(self, documents):
        """Sets `idf` from documents of token ids (an array `(N, T)` / `(N, K, T)` or an iterable of batches).

        Include the label descriptions among them to give their words an idf
        too, as a vectorizer fitted on documents and descriptions does.
        """
        df, n, average_length = document_statistics(documents, self.vocabulary_size)
        self.set_idf(df, n, average_length)

    def set_idf(self, df, n, average_length=None):
        """Sets `idf` from document frequencies `df` `(V,)` over `n` documents (`document_statistics`).

        `average_length` (tokens per document) is read by heads that normalise by document length (BM25).
        """
        if n == 0:
            raise ValueError("`documents` must hold at least one document. Received: no documents")
        if not self.built:
            raise ValueError(
                f"Build {type(self).__name__} (call it or its model once) before `adapt`. Received: unbuilt"
            )
        self.idf.assign(smoothed_idf(df, n, self.ignored_ids))

    # -- the document ---------------------------------------------------------------
    def document_ids(self, inputs):
        """`(ids (B, T), mask (B, T))` of the document, padding, ignored and out-of-range ids masked and set to 0."""
        parts = document_parts(inputs if isinstance(inputs, dict) else {"pooled": inputs})  # a tensor: no token_ids
        ids, mask = parts["token_ids"], parts["token_mask"]
        check_token_ids(ids, self.vocabulary_size)
        ids = ops.cast(ids, "int32")
        ids = ops.reshape(ids, (ops.shape(ids)[0], -1))
        mask = ops.reshape(ops.cast(mask, "bool"), ops.shape(ids))
        return self.matching_ids(ids, mask)

    def matching_ids(self, ids, mask=None):
        """`(ids, keep)`: ids that can match (in the vocabulary, not padding, not ignored), the others set to 0."""
        keep = ops.logical_and(ops.greater(ids, 0), ops.less(ids, self.vocabulary_size))
        for ignored in self.ignored_ids:
            keep = ops.logical_and(keep, ops.not_equal(ids, ignored))
        if mask is not None:
            keep = ops.logical_and(keep, mask)
        return ops.where(keep, ids, 0), keep

    def _check_call_label_embeddings(self, label_embeddings):
        expected = sorted(self.label_side_keys)
        if not isinstance(label_embeddings, dict) or sorted(label_embeddings) != expected:
            raise ValueError(
                f"{type(self).__name__}'s label embeddings are the dict `embed_labels` returns (keys {expected}). "
                f"Received: label_embeddings of type {type(label_embeddings).__name__}"
            )
        return label_embeddings

    def compute_output_spec(self, inputs, label_ids=None, label_embeddings=None, training=None, **kwargs):
        document_parts(inputs if isinstance(inputs, dict) else {"pooled": inputs})  # checks the structure
        return super().compute_output_spec(inputs, label_ids, label_embeddings, training)

    def get_config(self):
        config = super().get_config()
        config.update(
            vocabulary_size=self._vocabulary_size,
            ignored_ids=list(self.ignored_ids),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
        )
        return config
