"""Word interaction head: kernel-pooled soft matches between description words and document words (K-NRM)."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice
from keras_labelemb.layers.label_head import register_head
from keras_labelemb.layers.token_label_head import UNKNOWN_ID, TokenLabelHead, unit_vectors

# Exact match, then soft levels from very similar to dissimilar (Xiong et al. 2017 use 11 levels of width 0.1).
DEFAULT_CENTRES = (1.0, 0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3)
WEIGHTINGS = ("plain", "idf")
DOCUMENT_VECTORS = ("words", "states")


@register_head("interaction")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class WordInteractionHead(TokenLabelHead):
    """Scores each label by soft matches of its description words in the document (K-NRM kernel pooling).

    With `s_{wt} = cos(e(description word w), e(document token t))` in the
    shared word `embedding` and RBF kernels `K_k(s) = exp(-(s - mu_k)^2 / (2 sigma_k^2))`:

        phi_k(document, label) = sum_w a_w log(1 + sum_t K_k(s_wt))
        logits = sum_k v_k phi_k + b

    `a_w` averages over the description's words (`description_weighting`
    `"plain"`: `1 / n`; `"idf"`: `idf_w / sum idf`, with `idf` from `adapt`).
    With `document_vectors="states"` a document token is its encoder state
    instead of its word vector, projected into the word space
    (`e(t) = W s_t`, `W` trained; the document dict's `token_states`, which
    the builders wire from the word encoder): soft matches in context.
    The first kernel (`mu` 1, width `exact_match_width`) counts exact matches,
    the others soft matches at their similarity level. `v` (one weight per
    kernel, starting at the kernel centres, so an untrained head ranks by
    soft similarity) and `b` train, end to end with the embedding when it is
    trainable: the builders' `embedding["fine_tune"]` decides. No parameter
    depends on the label count: labels are scored from their descriptions,
    seen or not. Padding, ignored ids (unknown words) and masked tokens take
    no part; an empty or all-padding document scores `b`.

    Memory: the similarities are `(B, L, Lw, T)` per kernel (kernels are
    pooled one at a time); chunked top-k and sampled training bound `L`.

    Args:
        embedding: the shared word `keras.layers.Embedding`.
        label_ids: `(L, Lw)` token ids of the label descriptions.
        kernel_centres: `mu_k`. Default `(1.0, 0.9, 0.7, 0.5, 0.3, 0.1, -0.1, -0.3)`.
        kernel_width: `sigma` of every kernel but the exact-match one. Default 0.1.
        exact_match_width: `sigma` of the kernels centred at 1. Default 1e-3.
        description_weighting: `"plain"` (default) or `"idf"`.
        document_vectors: `"words"` (default: the shared embedding of the
            document's ids) or `"states"` (the projected `token_states`).
        ignored_ids: ids that never match. Default `(1,)` (unknown word).
        kernel_weight_initializer: initial `v` (default: the kernel centres).
        bias_initializer: initial `b`.

    Example:

    >>> import numpy as np, keras
    >>> embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    >>> head = WordInteractionHead(embedding, label_ids=np.array([[4, 5], [6, 0]]))
    >>> tuple(head({"token_ids": np.array([[4, 9, 0], [0, 0, 0]])}).shape)
    (2, 2)

    Reference: Xiong, Dai, Callan, Liu, Power, "End-to-End Neural Ad-hoc
    Ranking with Kernel Pooling", SIGIR 2017.
    """

    label_side_keys = ("ids", "vectors", "weights")

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        kernel_centres=DEFAULT_CENTRES,
        kernel_width=0.1,
        exact_match_width=1e-3,
        description_weighting="plain",
        document_vectors="words",
        ignored_ids=(UNKNOWN_ID,),
        kernel_weight_initializer=None,
        bias_initializer="zeros",
        **kwargs,
    ):
        if embedding is None:
            raise ValueError("WordInteractionHead compares word vectors: pass the shared `embedding`. Received: None")
        centres = tuple(float(c) for c in kernel_centres)
        if not centres or any(not -1.0 <= c <= 1.0 for c in centres):
            raise ValueError(
                f"`kernel_centres` must be a non-empty list of cosines in [-1, 1]. Received: kernel_centres={centres}"
            )
        for name, width in (("kernel_width", kernel_width), ("exact_match_width", exact_match_width)):
            if isinstance(width, bool) or not isinstance(width, (int, float)) or not width > 0:
                raise ValueError(f"`{name}` must be a positive number. Received: {name}={width!r}")
        self.kernel_centres = centres
        self.kernel_width = float(kernel_width)
        self.exact_match_width = float(exact_match_width)
        self.description_weighting = check_choice("description_weighting", description_weighting, WEIGHTINGS)
        self.document_vectors = check_choice("document_vectors", document_vectors, DOCUMENT_VECTORS)
        self.kernel_weight_initializer = keras.initializers.get(
            kernel_weight_initializer or keras.initializers.Constant(np.asarray(centres, "float32"))
        )
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            ignored_ids=ignored_ids,
            bias_initializer=bias_initializer,
            **kwargs,
        )

    @property
    def kernel_widths(self):
        return tuple(self.exact_match_width if c == 1.0 else self.kernel_width for c in self.kernel_centres)

    def build(self, input_shape):
        super().build(input_shape)
        if self.document_vectors == "states":
            states = input_shape.get("token_states")
            if states is None or states[-1] is None:
                raise ValueError(
                    "WordInteractionHead(document_vectors='states') reads `token_states` (B, T, d_t) of the document "
                    f"dict. Received: token_states with shape {states}"
                )
            self.state_projection = keras.layers.Dense(
                self.embedding.output_dim, use_bias=False, dtype=self.dtype_policy, name="state_projection"
            )
            self.state_projection.build((None, states[-1]))
        self.kernel_weights = self.add_weight(
            name="kernel_weights", shape=(len(self.kernel_centres),), initializer=self.kernel_weight_initializer
        )

    def embed_label_ids(self, label_ids):
        """`{"ids", "vectors", "weights"}`: description words, their unit vectors `(L, Lw, d)`, `a_w` `(L, Lw)`."""
        ids, keep = self.matching_ids(ops.convert_to_tensor(label_ids, "int32"))
        weights = ops.cast(keep, "float32")
        if self.description_weighting == "idf":
            weights = weights * ops.take(ops.cast(self.idf, "float32"), ids)
        total = ops.sum(weights, axis=-1, keepdims=True)
        weights = ops.where(total > 0, weights / ops.maximum(total, 1e-12), 0.0)
        vectors = unit_vectors(ops.cast(self.embedding(ids), "float32"))
        return {"ids": ids, "vectors": vectors, "weights": weights}

    def kernel_features(self, inputs, label_embeddings):
        """`phi` `(B, L, K)`: the pooled soft-match features of every document and label."""
        ids, keep = self.document_ids(inputs)
        if self.document_vectors == "states":
            states = inputs.get("token_states") if isinstance(inputs, dict) else None
            if states is None:
                raise ValueError(
                    "WordInteractionHead(document_vectors='states') reads `token_states` of the document dict. "
                    "Received: no token_states"
                )
            states = ops.reshape(states, (ops.shape(ids)[0], ops.shape(ids)[1], states.shape[-1]))
            vectors = self.state_projection(states)
        else:
            vectors = self.embedding(ids)
        documents = unit_vectors(ops.cast(vectors, "float32")) * ops.cast(keep, "float32")[..., None]
        similarity = ops.einsum("btd,lwd->blwt", documents, ops.cast(label_embeddings["vectors"], "float32"))
        present = ops.cast(keep, "float32")[:, None, None, :]
        weights = ops.cast(label_embeddings["weights"], "float32")[None]
        features = []
        for centre, width in zip(self.kernel_centres, self.kernel_widths):
            soft = ops.sum(ops.exp(-ops.square(similarity - centre) / (2.0 * width**2)) * present, axis=-1)
            features.append(ops.sum(weights * ops.log1p(soft), axis=-1))
        return ops.stack(features, axis=-1)

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        features = self.kernel_features(inputs, label_embeddings)
        logits = ops.matmul(features, ops.cast(self.kernel_weights, "float32")) + ops.cast(self.bias, "float32")
        return ops.cast(logits, self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.pop("vocabulary_size", None)
        config.update(
            kernel_centres=list(self.kernel_centres),
            kernel_width=self.kernel_width,
            exact_match_width=self.exact_match_width,
            description_weighting=self.description_weighting,
            document_vectors=self.document_vectors,
            kernel_weight_initializer=keras.initializers.serialize(self.kernel_weight_initializer),
        )
        return config
