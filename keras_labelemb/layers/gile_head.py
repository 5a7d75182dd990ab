"""Generalized input-label embedding output layer (GILE eqs. 7-14) and its ablations."""

import functools

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.layers.label_head import LabelHead, register_head
from keras_labelemb.layers.label_set import LabelSet

VARIANTS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input")
_LANGUAGE_FILE = "language_{}_label_ids.npy"


def joint_dim_matching_linear(input_dim, num_labels, label_dim):
    """Joint-space size whose GILE head has about the parameters of a linear layer (GILE eq. 19).

    `d_j = d_h * |Y| / (d_h + d)`; pass a list of label counts for the
    multilingual case (`|Y|` is then their sum).

    >>> joint_dim_matching_linear(input_dim=100, num_labels=90, label_dim=100)
    45
    """
    total = sum(num_labels) if isinstance(num_labels, (list, tuple)) else num_labels
    for name, value in (("input_dim", input_dim), ("num_labels", total), ("label_dim", label_dim)):
        check_positive_int(name, value)
    return max(1, int(round(input_dim * total / (input_dim + label_dim))))


@register_head("gile")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class GileHead(LabelHead):
    """Output layer scoring every label from its description (GILE).

    With label embeddings `E` (`(L, d)`, the `label_encoder` over the shared word
    `embedding` of each label description) and a document vector `h` (`(B, d_h)`):

        variant="gile" (eq. 14):       logits = sigma(E U + b_u) (sigma(V h + b_v) * w) + b
        variant="bilinear" (N16):      logits = E W h + b
        variant="bilinear_yh15":       logits = sigma(E W) W' h + b
        variant="only_label" (eq. 6a): logits = sigma(E W) h + b
        variant="only_input" (eq. 6b): logits = E sigma(W h) + b

    No variant has per-label parameters: every one scores any label set, so
    labels can be replaced after training (`set_labels`) and labels never seen
    in training are scored from their descriptions (zero-shot). `b` is one
    scalar shared by all labels. The per-label baseline (eq. 3, `W^T h + b`) is
    `LinearHead`. A `LabelHead`: the label set, call-time labels,
    `score_subset` and saving work as described there. `g_out(E)` is computed once per call and the
    logits come from a single `(B, d_j) x (d_j, L)` matmul: memory is
    `O(B*L + L*d_j)`, never `B*L*d_j`. Outputs are logits (use
    `from_logits=True` losses).

    Args:
        embedding: the `keras.layers.Embedding` shared with the documents; label
            words are looked up in it. Not needed when label embeddings are
            passed to `call` (then set `label_dim`).
        label_ids: `(L, Lw)` int token ids of the label descriptions (0 = padding).
            Kept as layer state (an asset, not config) and saved with the model;
            replace with `set_labels`.
        joint_dim: joint-space size `d_j` for `gile` and `bilinear_yh15` (default
            500, as GILE on BioASQ; see `joint_dim_matching_linear`). `only_label` /
            `only_input` use `d_h` / `d` as the paper does; `bilinear` has none.
        variant: one of the forms above. Default `"gile"`.
        activation: `sigma`. Default `"tanh"`. GILE used `"relu"`; with binary
            cross-entropy over many mostly-negative labels every ReLU unit of the
            joint space can die early (we saw it on Reuters: constant scores,
            nothing learned), while `tanh`, which has no dead region, trains.
        label_encoder: layer mapping `(L, Lw, d)` + mask to `(L, d)`. Default
            `LabelEncoder()` (mean of word vectors).
        num_labels: label count when no `label_ids` are given (set by `from_config`).
        label_dim: size `d` of label embeddings passed directly to `call` when
            there is no `embedding`.
        kernel_initializer: initializer of the projections.
        bias_initializer: initializer of the output bias `b` (default zeros;
            e.g. `Constant(log(p / (1 - p)))` for a mean label frequency `p`,
            so training starts at the label prior).
        num_languages: languages (or tasks) sharing one joint space (GILE
            section 3.3): `U, V, b_u, b_v` are shared, while `w` and `b` are per
            language, selected by the `language` call argument. Default 1.
        language_label_ids: optional list of `num_languages` `(L_l, Lw)` arrays,
            one label set per language, used when `call` gets a Python int
            `language`; replace one with `set_labels(ids, language=l)`.

    Call arguments:
        inputs: document vectors `(B, d_h)`.
        label_ids: optional `(L', Lw')` ids scoring another label set for this call only.
        label_embeddings: optional `(L', d)` label vectors, used as `E` directly.
        language: with `num_languages > 1`, a Python int (that language's `w`,
            `b` and label set) or an int tensor `(B,)` (per-document `w` and `b`
            over one label set: the shared `label_ids` or the call's).

    Example:

    >>> import numpy as np, keras
    >>> embedding = keras.layers.Embedding(50, 8, mask_zero=True)
    >>> labels = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8]])  # 3 label descriptions
    >>> model = keras.Sequential([
    ...     keras.Input((12,)), embedding,
    ...     HierarchicalAttention(word_encoder="dense", word_units=8, flat=True),
    ...     GileHead(embedding=embedding, label_ids=labels, joint_dim=16),
    ... ])
    >>> tuple(model(np.random.randint(1, 50, (2, 12))).shape)
    (2, 3)
    >>> model.layers[-1].set_labels(np.array([[9, 10, 0], [11, 0, 0]]))  # zero-shot labels
    >>> tuple(model(np.random.randint(1, 50, (2, 12))).shape)
    (2, 2)

    Multilingual (one head, two languages with their own labels; functional
    models for each language share every layer):

    >>> head = GileHead(embedding=embedding, joint_dim=16, num_languages=2,
    ...                 language_label_ids=[labels, np.array([[12, 13, 0], [14, 0, 0]])])
    >>> h = np.random.normal(size=(2, 8)).astype("float32")
    >>> tuple(head(h, language=0).shape), tuple(head(h, language=1).shape)
    ((2, 3), (2, 2))

    Saving: `.keras` save/load keeps `embedding` the same table as the model's
    word embedding (Keras' shared-object serialization). `keras.models.clone_model`
    does not: the clone's head gets its own copy of the table.

    Reference: Pappas & Henderson, "GILE: A Generalized Input-Label Embedding for
    Text Classification", TACL 2019, sections 2.3-3.5 and Table 2.
    """

    encodes_descriptions = True  # E: the label encoder over each description's word vectors

    scores_are_inner_products = True
    # The constructor argument `LabelHeadHyperModel` searches.
    searched_option = "joint_dim"

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        joint_dim=500,
        variant="gile",
        activation="tanh",
        label_encoder=None,
        num_labels=None,
        label_dim=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        num_languages=1,
        language_label_ids=None,
        **kwargs,
    ):
        self.num_languages = check_positive_int("num_languages", num_languages)
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            label_encoder=label_encoder,
            num_labels=num_labels,
            label_dim=label_dim,
            **kwargs,
        )
        self.language_label_sets = [
            LabelSet(
                f"language_label_ids[{language}]",
                file_name=_LANGUAGE_FILE.format(language),
                restore=functools.partial(self.set_labels, language=language),
            )
            for language in range(self.num_languages)
        ]
        self.variant = check_choice("variant", variant, VARIANTS)
        self.joint_dim = check_positive_int("joint_dim", joint_dim)
        self.activation = keras.activations.get(activation)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        if language_label_ids is not None:
            if not isinstance(language_label_ids, (list, tuple)) or len(language_label_ids) != self.num_languages:
                raise ValueError(
                    f"`language_label_ids` must be a list of {self.num_languages} label-id arrays (one per language). "
                    f"Received: language_label_ids of type {type(language_label_ids).__name__}"
                    + (
                        f" and length {len(language_label_ids)}"
                        if isinstance(language_label_ids, (list, tuple))
                        else ""
                    )
                )
            for language, ids in enumerate(language_label_ids):
                if ids is not None:
                    self.set_labels(ids, language=language)
        if self.embedding is None and self.label_dim is None:
            raise ValueError(
                f"variant={self.variant!r} reads label descriptions: pass the shared `embedding` "
                "(or `label_dim` and label embeddings at call time). Received: embedding=None"
            )

    # -- the label set -----------------------------------------------------
    def set_labels(self, label_ids, language=None):
        """Replaces the label set (the `(L, Lw)` token ids of the label descriptions).

        Accepts any number of labels, including labels never seen in training.
        With `language`, replaces that language's label set. On a compiled
        model use `keras_labelemb.models.set_labels(model, ids)`.
        """
        if language is None:
            return super().set_labels(label_ids)
        self._check_language(language)
        self.language_label_sets[language].set(label_ids, self.vocabulary_size)

    @property
    def language_label_ids(self):
        """Each language's own `(L_l, Lw)` label set (None where it has none), or None when no language has one."""
        ids = [label_set.ids for label_set in self.language_label_sets]
        return None if all(i is None for i in ids) else ids

    def _check_language(self, language):
        is_int = isinstance(language, (int, np.integer)) and not isinstance(language, bool)
        if not is_int or not 0 <= language < self.num_languages:
            raise ValueError(
                f"`language` must be an int in [0, {self.num_languages}) (num_languages={self.num_languages}). "
                f"Received: language={language!r}"
            )

    def _language_label_ids(self, language):
        """The language's own stored label set, or None (then the shared one is scored)."""
        if isinstance(language, (int, np.integer)) and self.language_label_ids is not None:
            self._check_language(language)
            return self.language_label_ids[language]
        return None

    def held_label_sets(self):
        return [self.label_set, *self.language_label_sets]

    # -- weights --------------------------------------------------------------
    def _add(self, name, shape, initializer=None):
        return self.add_weight(name=name, shape=shape, initializer=initializer or self.kernel_initializer)

    def build(self, input_shape):
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ValueError(
                f"`inputs` must be document vectors of shape (B, d_h). Received: inputs with shape {tuple(input_shape)}"
            )
        d_h = input_shape[-1]
        d = self.embedding.output_dim if self.embedding is not None else self.label_dim
        self.build_label_side()
        if self.variant == "gile":
            self.label_kernel = self._add("label_kernel", (d, self.joint_dim))  # U
            self.label_bias = self._add("label_bias", (self.joint_dim,), "zeros")  # b_u
            self.input_kernel = self._add("input_kernel", (d_h, self.joint_dim))  # V
            self.input_bias = self._add("input_bias", (self.joint_dim,), "zeros")  # b_v
            languages = () if self.num_languages == 1 else (self.num_languages,)
            self.joint_weight = self._add("joint_weight", languages + (self.joint_dim,), "ones")  # w
        elif self.variant == "bilinear":
            self.input_kernel = self._add("input_kernel", (d_h, d))  # W (applied as h W)
        elif self.variant == "bilinear_yh15":
            self.label_kernel = self._add("label_kernel", (d, self.joint_dim))  # W
            self.input_kernel = self._add("input_kernel", (d_h, self.joint_dim))  # W'
        elif self.variant == "only_label":
            self.label_kernel = self._add("label_kernel", (d, d_h))
        elif self.variant == "only_input":
            self.input_kernel = self._add("input_kernel", (d_h, d))
        self.bias = self._add("bias", () if self.num_languages == 1 else (self.num_languages,), self.bias_initializer)

    def shift_and_scale_weights(self):
        return [self.bias]  # one per language: a document has one

    # -- forward --------------------------------------------------------------
    def call(self, inputs, label_ids=None, label_embeddings=None, language=None, training=None):
        self._check_language_argument(language)
        own = self._language_label_ids(language)
        if own is not None and label_ids is None and label_embeddings is None:
            label_embeddings = self.embed_labels(own)
        E, _ = self._label_embeddings_for_call(label_ids, label_embeddings)
        return self.lay_out_label_axis(self.compute_logits(inputs, E, language=language), "logits")

    def _check_language_argument(self, language):
        if self.num_languages == 1:
            if language is not None:
                raise ValueError(f"`language` needs num_languages > 1. Received: language={language!r}")
            return
        if language is None:
            raise ValueError(
                f"This head has {self.num_languages} languages: pass `language` (an int or a (B,) int tensor). "
                "Received: language=None"
            )
        if isinstance(language, (int, np.integer, bool)):
            self._check_language(language)

    def _per_language(self, variable, language, per_document_shape):
        """`w` or `b` of `language`: one row for an int, one row per document for a tensor."""
        value = self._w(variable)
        if self.num_languages == 1:
            return value
        if language is None:
            raise ValueError(f"This head has {self.num_languages} languages: pass `language`. Received: language=None")
        if isinstance(language, (int, np.integer)):
            return value[language]
        rows = ops.take(value, ops.reshape(ops.cast(language, "int32"), (-1,)), axis=0)
        return ops.reshape(rows, per_document_shape)

    def compute_output_spec(self, inputs, label_ids=None, label_embeddings=None, language=None, training=None):
        own = self._language_label_ids(language)
        if label_ids is None and label_embeddings is None and own is not None:
            count = own.shape[0]
        else:
            count = self._call_label_count(label_ids, label_embeddings)
        return keras.KerasTensor((inputs.shape[0], count), dtype=self.compute_dtype)

    def _label_side(self, label_embeddings):
        E = ops.cast(label_embeddings, self.compute_dtype)
        if self.variant in ("gile", "bilinear_yh15"):
            labels = ops.matmul(E, self._w(self.label_kernel))
            return self.activation(labels + self._w(self.label_bias) if self.variant == "gile" else labels)
        if self.variant == "only_label":
            return self.activation(ops.matmul(E, self._w(self.label_kernel)))
        return E  # bilinear, only_input

    def _document_side(self, inputs, language=None):
        h = ops.cast(inputs, self.compute_dtype)
        if self.variant == "gile":
            docs = self.activation(ops.matmul(h, self._w(self.input_kernel)) + self._w(self.input_bias))
            return docs * self._per_language(self.joint_weight, language, (-1, self.joint_dim))
        if self.variant in ("bilinear", "bilinear_yh15"):
            return ops.matmul(h, self._w(self.input_kernel))
        if self.variant == "only_label":
            return h
        return self.activation(ops.matmul(h, self._w(self.input_kernel)))  # only_input

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None, language=None):
        labels, docs = self._label_side(label_embeddings), self._document_side(inputs, language)
        return ops.matmul(docs, ops.transpose(labels)) + self._per_language(self.bias, language, (-1, 1))

    def query_vectors(self, inputs, language=None):
        """The document side `(B, joint_dim + 1)`: `g_in(h) ⊙ w` and the bias `b` (see `label_vectors`)."""
        docs = self._document_side(inputs, language)
        bias = self._per_language(self.bias, language, (-1, 1)) * ops.ones_like(docs[..., :1])
        return ops.concatenate([docs, bias], axis=-1)

    def label_vectors_of(self, label_embeddings, label_indices=None):
        """The label side `(L, joint_dim + 1)` of label embeddings `E`: `g_out(E)` and a 1 that meets `b`."""
        labels = self._label_side(label_embeddings)
        return ops.concatenate([labels, ops.ones_like(labels[:, :1])], axis=-1)

    def get_config(self):
        config = super().get_config()
        config.update(
            joint_dim=self.joint_dim,
            variant=self.variant,
            activation=keras.activations.serialize(self.activation),
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
            num_languages=self.num_languages,
        )
        return config
