"""Lexical match head: tf-idf cosine (or BM25) between a document's words and each label description's words."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool, check_choice, check_positive_float
from keras_labelemb.document_frequency import bm25_idf
from keras_labelemb.layers.label_head import document_parts, register_head
from keras_labelemb.layers.token_label_head import UNKNOWN_ID, TokenLabelHead, safe_sqrt

WEIGHTINGS = ("tfidf", "bm25")


def sublinear(counts, enabled):
    """`1 + log(count)` where count > 0 (`TfidfVectorizer(sublinear_tf=True)`), else the counts themselves."""
    if not enabled:
        return counts
    return ops.where(counts > 0, 1.0 + ops.log(ops.maximum(counts, 1.0)), 0.0)


@register_head("lexical")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class LexicalMatchHead(TokenLabelHead):
    """Scores each label by the tf-idf cosine (or the BM25 score) of the document and the label's description.

        tfidf(x)_w = tf(x, w) * idf_w,   tf = 1 + log(count) (sublinear) or the count
        logits = scale * cos(tfidf(document), tfidf(description)) + b

    With `weighting="bm25"` the match is BM25 as Lucene scores it, the
    description being the query (each of its words counted as often as it
    occurs, as `bm25s` with `method="lucene"`; tested against it):

        bm25(d, q) = sum_{w in q} idf_w * c(d, w) / (c(d, w) + k1 (1 - b + b |d| / avgdl))
        idf_w = log(1 + (n - df_w + 0.5) / (df_w + 0.5))

    where `|d|` counts the document's non-padding tokens and `n`, `df`,
    `avgdl` come from `adapt`'s documents (`average_length`, a
    non-trainable weight beside `idf`). BM25 scores are not bounded like a
    cosine: in a `HybridHead`, `standardize=True` puts them on the others'
    scale.

    Untrained (`scale` 1, `b` 0, `idf` from `adapt`), the logits equal
    scikit-learn's `TfidfVectorizer(sublinear_tf=True)` cosine fitted on the
    same documents (tested to 1e-6): the zero-shot baseline that needs no
    training, as a layer that trains (`scale`, `b`), saves and serves like any
    head, and that a `HybridHead` combines with learned heads. No parameter
    depends on the label count, so any label set is scored from its
    description (`set_labels`, call-time labels); a description none of whose
    words has an idf scores 0 (cosine with the zero vector), as does an empty
    or all-padding document.

    Cost: the document side is a `(B, V)` bag of words (one scatter), the
    label side `(L, Lw)` weights computed once per label set
    (`embed_labels`), and the score a gather `(B, L, Lw)`: it never builds
    an `(L, V)` matrix, so chunked top-k over huge label sets works.

    Args:
        embedding: the shared word embedding (only its vocabulary size is
            used), or None with `vocabulary_size`.
        label_ids: `(L, Lw)` token ids of the label descriptions.
        vocabulary_size: vocabulary size when there is no `embedding`.
        sublinear_tf: `1 + log(count)` term frequencies (tf-idf only). Default True.
        weighting: `"tfidf"` (cosine, the default) or `"bm25"`.
        k1: BM25's term-frequency saturation (Lucene's default 1.2); read with `weighting="bm25"`.
        b: BM25's length normalisation (Lucene's default 0.75); read with `weighting="bm25"`.
        ignored_ids: ids that never match. Default `(1,)` (unknown word).
        scale_initializer: initial `scale`. Default 1.
        bias_initializer: initial `b`. Default 0.

    Example:

    >>> import numpy as np
    >>> head = LexicalMatchHead(vocabulary_size=20, label_ids=np.array([[5, 6], [7, 0]]))
    >>> docs = {"token_ids": np.array([[5, 6, 6, 0], [9, 9, 0, 0]])}
    >>> head.build({"token_ids": (None, 4)})
    >>> head.adapt(np.array([[5, 6, 8], [7, 9, 0], [5, 9, 0]]))
    >>> np.asarray(head(docs), "float64").round(3).tolist()
    [[0.974, 0.0], [0.0, 0.0]]
    """

    label_side_keys = ("ids", "weights")

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        vocabulary_size=None,
        sublinear_tf=True,
        weighting="tfidf",
        k1=1.2,
        b=0.75,
        ignored_ids=(UNKNOWN_ID,),
        scale_initializer="ones",
        bias_initializer="zeros",
        **kwargs,
    ):
        self.sublinear_tf = check_bool("sublinear_tf", sublinear_tf)
        self.weighting = check_choice("weighting", weighting, WEIGHTINGS)
        self.k1 = check_positive_float("k1", k1)
        if not 0.0 <= float(b) <= 1.0:
            raise ValueError(f"`b` (BM25's length normalisation) must lie in [0, 1]. Received: b={b!r}")
        self.b = float(b)
        self.scale_initializer = keras.initializers.get(scale_initializer)
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            vocabulary_size=vocabulary_size,
            ignored_ids=ignored_ids,
            bias_initializer=bias_initializer,
            **kwargs,
        )

    def build(self, input_shape):
        super().build(input_shape)
        self.scale = self.add_weight(name="scale", shape=(), initializer=self.scale_initializer)
        if self.weighting == "bm25":
            self.average_length = self.add_weight(name="average_length", shape=(), initializer="ones", trainable=False)

    def shift_and_scale_weights(self):
        return [self.scale, *super().shift_and_scale_weights()]

    def set_idf(self, df, n, average_length=None):
        """tf-idf: scikit-learn's smoothed idf; BM25: Lucene's idf and the documents' mean length."""
        super().set_idf(df, n, average_length)
        if self.weighting == "bm25":
            if average_length is None or not average_length > 0:
                raise ValueError(
                    "BM25 normalises by the documents' mean length: pass a positive `average_length` "
                    f"(`adapt` computes it). Received: average_length={average_length!r}"
                )
            self.idf.assign(bm25_idf(df, n, self.ignored_ids))
            self.average_length.assign(float(average_length))

    def embed_label_ids(self, label_ids):
        """`{"ids", "weights"}` `(L, Lw)`: each position's share of its word's l2-normalised tf-idf value.

        A word occurring `c` times in a description has the value
        `tf(c) * idf`; each of its `c` positions holds `value / c / norm`, so
        a gather of the document's normalised tf-idf at the positions, summed,
        is the cosine.
        """
        ids, keep = self.matching_ids(ops.convert_to_tensor(label_ids, "int32"))
        if self.weighting == "bm25":  # a query word counts once per occurrence
            return {"ids": ids, "weights": ops.cast(keep, "float32")}
        same = ops.logical_and(ops.equal(ids[:, :, None], ids[:, None, :]), keep[:, None, :])
        counts = ops.sum(ops.cast(same, "float32"), axis=-1) * ops.cast(keep, "float32")  # (L, Lw)
        value = sublinear(counts, self.sublinear_tf) * ops.take(ops.cast(self.idf, "float32"), ids)
        share = ops.where(counts > 0, value / ops.maximum(counts, 1.0), 0.0)
        norm = safe_sqrt(ops.sum(share * value, axis=-1, keepdims=True))
        return {"ids": ids, "weights": ops.where(norm > 0, share / ops.maximum(norm, 1e-12), 0.0)}

    def document_vectors(self, inputs):
        """The documents' l2-normalised tf-idf vectors `(B, V)` (zero for a document without matching words);
        with BM25, each word's `idf * c / (c + k1 (1 - b + b |d| / avgdl))`."""
        ids, keep = self.document_ids(inputs)
        batch, length = ops.shape(ids)[0], ops.shape(ids)[1]
        rows = ops.repeat(ops.expand_dims(ops.arange(batch, dtype="int32"), 1), length, axis=1)
        positions = ops.stack([ops.reshape(rows, (-1,)), ops.reshape(ids, (-1,))], axis=1)
        counts = ops.scatter(positions, ops.reshape(ops.cast(keep, "float32"), (-1,)), (batch, self.vocabulary_size))
        if self.weighting == "bm25":
            return self.bm25_terms(inputs, counts)
        values = sublinear(counts, self.sublinear_tf) * ops.cast(self.idf, "float32")
        norm = safe_sqrt(ops.sum(values * values, axis=-1, keepdims=True))
        return ops.where(norm > 0, values / ops.maximum(norm, 1e-12), 0.0)

    def bm25_terms(self, inputs, counts):
        """`(B, V)` BM25 term scores of documents with word counts `counts`: length from the token mask."""
        parts = document_parts(inputs if isinstance(inputs, dict) else {"pooled": inputs})
        mask = ops.reshape(ops.cast(parts["token_mask"], "float32"), (ops.shape(counts)[0], -1))
        length = ops.sum(mask, axis=-1, keepdims=True)  # every non-padding token, unknown words included
        norm = self.k1 * (1.0 - self.b + self.b * length / ops.cast(self.average_length, "float32"))
        return ops.cast(self.idf, "float32") * counts / (counts + norm)

    def cosine(self, inputs, label_embeddings):
        """The untrained scores `(B, L)`: tf-idf cosines (or BM25 scores) of the documents and the label side."""
        documents = self.document_vectors(inputs)
        gathered = ops.take(documents, label_embeddings["ids"], axis=1)  # (B, L, Lw)
        return ops.sum(gathered * ops.cast(label_embeddings["weights"], "float32"), axis=-1)

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        logits = ops.cast(self.scale, "float32") * self.cosine(inputs, label_embeddings) + ops.cast(
            self.bias, "float32"
        )
        return ops.cast(logits, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            sublinear_tf=self.sublinear_tf,
            weighting=self.weighting,
            k1=self.k1,
            b=self.b,
            scale_initializer=keras.initializers.serialize(self.scale_initializer),
        )
        return config
