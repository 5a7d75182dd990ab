"""Generalized input-label embedding output layer (GILE eqs. 7-14) and its ablations."""

import math

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_label_indices, check_positive_int
from keras_labelemb.layers.label_encoder import LabelEncoder

VARIANTS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input", "linear")


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


def validate_label_ids(label_ids, vocabulary_size=None, name="label_ids"):
    """Checks a `(L, Lw)` array of label-description token ids; returns it as int32."""
    array = np.asarray(label_ids)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(
            f"`{name}` must be a non-empty (num_labels, description_length) array of token ids. "
            f"Received: {name} with shape {array.shape}"
        )
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"`{name}` must hold integer token ids. Received: {name} with dtype {array.dtype}")
    if array.min() < 0 or (vocabulary_size is not None and array.max() >= vocabulary_size):
        raise ValueError(
            f"`{name}` holds token ids outside [0, {vocabulary_size}). "
            f"Received: {name} with min {array.min()} and max {array.max()}"
        )
    empty = np.flatnonzero((array != 0).sum(axis=1) == 0)
    if empty.size:
        raise ValueError(
            f"`{name}` has empty label descriptions (all padding) in rows {empty[:10].tolist()}: "
            "every label needs at least one known word. Received: "
            f"{name} with {empty.size} empty rows of {array.shape[0]}"
        )
    return array.astype("int32")


@keras.saving.register_keras_serializable(package="keras_labelemb")
class GileHead(keras.layers.Layer):
    """Output layer scoring every label from its description (GILE).

    With label embeddings `E` (`(L, d)`, the `label_encoder` over the shared word
    `embedding` of each label description) and a document vector `h` (`(B, d_h)`):

        variant="gile" (eq. 14):       logits = sigma(E U + b_u) (sigma(V h + b_v) * w) + b
        variant="bilinear" (N16):      logits = E W h + b
        variant="bilinear_yh15":       logits = sigma(E W) W' h + b
        variant="only_label" (eq. 6a): logits = sigma(E W) h + b
        variant="only_input" (eq. 6b): logits = E sigma(W h) + b
        variant="linear" (eq. 3):      logits = W^T h + b        (the usual Dense; baseline)

    Only `linear` has per-label parameters: the joint variants score any label
    set, so labels can be replaced after training (`set_labels`) and labels never
    seen in training are scored from their descriptions (zero-shot). `b` is one
    scalar shared by all labels. `g_out(E)` is computed once per call and the
    logits come from a single `(B, d_j) x (d_j, L)` matmul: memory is
    `O(B*L + L*d_j)`, never `B*L*d_j`. Outputs are logits (use
    `from_logits=True` losses).

    Args:
        embedding: the `keras.layers.Embedding` shared with the documents; label
            words are looked up in it. Not needed for `variant="linear"`, nor when
            label embeddings are passed to `call`.
        label_ids: `(L, Lw)` int token ids of the label descriptions (0 = padding).
            Kept as layer state and saved with the model; replace with `set_labels`.
        joint_dim: joint-space size `d_j` for `gile` and `bilinear_yh15` (default
            500, as GILE on BioASQ; see `joint_dim_matching_linear`). `only_label` /
            `only_input` use `d_h` / `d` as the paper does; `bilinear` has none.
        variant: one of the forms above. Default `"gile"`.
        activation: `sigma`. Default `"tanh"`. GILE used `"relu"`; with binary
            cross-entropy over many mostly-negative labels we saw every ReLU unit
            of the joint space die early on Reuters (constant scores, validation
            micro-F1 stuck at 0.028), while `tanh` trained.
        label_encoder: layer mapping `(L, Lw, d)` + mask to `(L, d)`. Default
            `LabelEncoder()` (mean of word vectors).
        num_labels: label count for `variant="linear"` when no `label_ids` are given.
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
        super().__init__(**kwargs)
        self.variant = check_choice("variant", variant, VARIANTS)
        self.joint_dim = check_positive_int("joint_dim", joint_dim)
        self.activation = keras.activations.get(activation)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        if embedding is not None and not hasattr(embedding, "input_dim"):
            raise ValueError(
                "`embedding` must be a keras.layers.Embedding (or a layer with `input_dim` and "
                f"`output_dim`). Received: embedding={embedding!r}"
            )
        self.embedding = embedding
        self.label_encoder = label_encoder if label_encoder is not None else LabelEncoder(dtype=self.dtype_policy)
        self.label_dim = check_positive_int("label_dim", label_dim, allow_none=True)
        self.num_labels = check_positive_int("num_labels", num_labels, allow_none=True)
        self.num_languages = check_positive_int("num_languages", num_languages)
        if self.num_languages > 1 and self.variant == "linear":
            raise ValueError("A multilingual joint space needs a joint variant, not 'linear'. Received: variant='linear'")
        self.label_ids = None
        self.language_label_ids = None
        if label_ids is not None:
            self.set_labels(label_ids)
        if language_label_ids is not None:
            if not isinstance(language_label_ids, (list, tuple)) or len(language_label_ids) != self.num_languages:
                raise ValueError(
                    f"`language_label_ids` must be a list of {self.num_languages} label-id arrays (one per language). "
                    f"Received: language_label_ids of type {type(language_label_ids).__name__}"
                    + (f" and length {len(language_label_ids)}" if isinstance(language_label_ids, (list, tuple)) else "")
                )
            for language, ids in enumerate(language_label_ids):
                if ids is not None:
                    self.set_labels(ids, language=language)
        if self.variant == "linear" and self.num_labels is None:
            raise ValueError("variant='linear' needs `num_labels` or `label_ids`. Received: num_labels=None")
        if self.variant != "linear" and self.embedding is None and self.label_dim is None:
            raise ValueError(
                f"variant={self.variant!r} reads label descriptions: pass the shared `embedding` "
                "(or `label_dim` and label embeddings at call time). Received: embedding=None"
            )

    # -- the label set -----------------------------------------------------
    def set_labels(self, label_ids, language=None):
        """Replaces the label set (the `(L, Lw)` token ids of the label descriptions).

        Joint variants accept any number of labels, including labels never seen
        in training. A model compiled before the change must rebuild its
        compiled functions: use `keras_labelemb.models.set_labels(model, ids)`,
        which does both. With `language`, replaces that language's label set.
        """
        vocabulary_size = self.embedding.input_dim if self.embedding is not None else None
        if language is not None:
            self._check_language(language)
            ids = validate_label_ids(label_ids, vocabulary_size, name=f"language_label_ids[{language}]")
            if self.language_label_ids is None:
                self.language_label_ids = [None] * self.num_languages
            self.language_label_ids[language] = ids
            return
        ids = validate_label_ids(label_ids, vocabulary_size)
        if self.variant == "linear" and self.built and ids.shape[0] != self.num_labels:
            raise ValueError(
                "variant='linear' has one weight vector per label and cannot score a different label set "
                f"(built for {self.num_labels} labels). Received: label_ids with {ids.shape[0]} labels"
            )
        self.label_ids = ids
        self.num_labels = ids.shape[0]

    def _check_language(self, language):
        if isinstance(language, bool) or not isinstance(language, (int, np.integer)) or not 0 <= language < self.num_languages:
            raise ValueError(
                f"`language` must be an int in [0, {self.num_languages}) (num_languages={self.num_languages}). "
                f"Received: language={language!r}"
            )

    def _label_set(self, language):
        """The stored label ids a call scores: the language's own set, else the shared one."""
        if isinstance(language, (int, np.integer)) and self.language_label_ids is not None:
            self._check_language(language)
            if self.language_label_ids[language] is not None:
                return self.language_label_ids[language]
        if self.label_ids is None:
            raise ValueError(
                "No label set: pass `label_ids` (or `language_label_ids` with a Python int `language`) "
                f"to the constructor or to `set_labels`. Received: language={language!r}"
            )
        return self.label_ids

    @property
    def _label_dim(self):
        return self.embedding.output_dim if self.embedding is not None else self.label_dim

    # -- weights --------------------------------------------------------------
    def _add(self, name, shape, initializer=None):
        return self.add_weight(name=name, shape=shape, initializer=initializer or self.kernel_initializer)

    def build(self, input_shape):
        if len(input_shape) != 2 or input_shape[-1] is None:
            raise ValueError(
                f"`inputs` must be document vectors of shape (B, d_h). Received: inputs with shape {tuple(input_shape)}"
            )
        d_h, d = input_shape[-1], self._label_dim
        if self.variant == "linear":
            self.kernel = self._add("kernel", (d_h, self.num_labels))
            self.bias = self._add("bias", (self.num_labels,), self.bias_initializer)
            return
        if self.embedding is not None and not self.embedding.built:
            self.embedding.build((None,))
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

    # -- forward --------------------------------------------------------------
    def encode_labels(self, label_ids=None):
        """Label embeddings `E` `(L, d)` of the given (default: stored) label ids."""
        if label_ids is None:
            if self.label_ids is None:
                raise ValueError("No label set: pass `label_ids` to the constructor or to `set_labels`.")
            label_ids = self.label_ids
        label_ids = ops.convert_to_tensor(label_ids, dtype="int32")
        words = self.embedding(label_ids)
        return self.label_encoder(words, mask=ops.not_equal(label_ids, 0))

    def _w(self, variable):
        return ops.cast(variable, self.compute_dtype)

    def call(self, inputs, label_ids=None, label_embeddings=None, language=None):
        h = inputs
        if self.variant == "linear":
            return ops.matmul(h, self._w(self.kernel)) + self._w(self.bias)
        self._check_language_argument(language)
        if label_embeddings is None:
            label_embeddings = self.encode_labels(label_ids if label_ids is not None else self._label_set(language))
        return self._joint_logits(h, label_embeddings, language)

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
        if isinstance(language, (int, np.integer)):
            return value[language]
        rows = ops.take(value, ops.reshape(ops.cast(language, "int32"), (-1,)), axis=0)
        return ops.reshape(rows, per_document_shape)

    def compute_output_spec(self, inputs, label_ids=None, label_embeddings=None, language=None):
        if label_embeddings is not None:
            num_labels = label_embeddings.shape[0]
        elif label_ids is not None:
            num_labels = np.shape(label_ids)[0]
        elif self.variant != "linear" and (self.label_ids is not None or self.language_label_ids is not None):
            num_labels = self._label_set(language).shape[0]
        else:
            num_labels = self.num_labels
        return keras.KerasTensor((inputs.shape[0], num_labels), dtype=self.compute_dtype)

    def score_subset(self, inputs, label_indices):
        """Logits `(B, C)` of the labels at `label_indices` `(C,)` of the current label set.

        Only those `C` labels are encoded and projected, so the cost of a call
        grows with `C`, not with the label count: this is what
        `SampledSigmoidLoss` trains through. Column `c` equals column
        `label_indices[c]` of `call(inputs)`.
        """
        indices = ops.convert_to_tensor(label_indices, dtype="int32")
        check_label_indices(indices, self.num_labels)
        if self.variant == "linear":
            kernel = ops.take(self._w(self.kernel), indices, axis=1)
            return ops.matmul(inputs, kernel) + ops.take(self._w(self.bias), indices, axis=0)
        if self.label_ids is None:
            raise ValueError("No label set: pass `label_ids` to the constructor or to `set_labels`.")
        subset_ids = ops.take(ops.convert_to_tensor(self.label_ids, dtype="int32"), indices, axis=0)
        return self._joint_logits(inputs, self.encode_labels(subset_ids))

    def _joint_logits(self, h, label_embeddings, language=None):
        E = ops.cast(label_embeddings, self.compute_dtype)
        act = self.activation
        if self.variant == "gile":
            labels = act(ops.matmul(E, self._w(self.label_kernel)) + self._w(self.label_bias))
            docs = act(ops.matmul(h, self._w(self.input_kernel)) + self._w(self.input_bias))
            docs = docs * self._per_language(self.joint_weight, language, (-1, self.joint_dim))
        elif self.variant == "bilinear":
            labels, docs = E, ops.matmul(h, self._w(self.input_kernel))
        elif self.variant == "bilinear_yh15":
            labels = act(ops.matmul(E, self._w(self.label_kernel)))
            docs = ops.matmul(h, self._w(self.input_kernel))
        elif self.variant == "only_label":
            labels, docs = act(ops.matmul(E, self._w(self.label_kernel))), h
        else:  # only_input
            labels, docs = E, act(ops.matmul(h, self._w(self.input_kernel)))
        return ops.matmul(docs, ops.transpose(labels)) + self._per_language(self.bias, language, (-1, 1))

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.num_labels)

    def get_config(self):
        config = super().get_config()
        config.update(
            embedding=None if self.embedding is None else keras.saving.serialize_keras_object(self.embedding),
            label_ids=None if self.label_ids is None else self.label_ids.tolist(),
            joint_dim=self.joint_dim,
            variant=self.variant,
            activation=keras.activations.serialize(self.activation),
            label_encoder=keras.saving.serialize_keras_object(self.label_encoder),
            num_labels=self.num_labels,
            label_dim=self.label_dim,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
            num_languages=self.num_languages,
            language_label_ids=None if self.language_label_ids is None else [
                None if ids is None else ids.tolist() for ids in self.language_label_ids],
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("embedding", "label_encoder"):
            if config.get(key) is not None:
                config[key] = keras.saving.deserialize_keras_object(config[key])
        return cls(**config)
