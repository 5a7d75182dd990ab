"""Deep residual output layer (DRILL) and the output layers it generalises."""

import keras
from keras import ops

from keras_labelemb.argument_checks import (
    check_bool,
    check_choice,
    check_non_negative_int,
    check_positive_int,
    check_rate,
)
from keras_labelemb.layers.label_head import LabelHead, register_head

VARIANTS = ("drill", "tied", "bilinear", "dual")
DROPOUT_TYPES = ("variational", "standard")
BIAS_MODES = ("auto", "per_label", "shared", "none")

# What each variant fills in for the structural arguments left as None.
_PRESETS = {
    "drill": dict(
        depth=2,
        activation="sigmoid",
        residual_to_embedding=True,
        residual_to_previous=False,
        input_projection=False,
        projection_bias=True,
    ),
    "tied": dict(
        depth=0,
        activation="linear",
        residual_to_embedding=False,
        residual_to_previous=False,
        input_projection=False,
        projection_bias=False,
    ),
    "bilinear": dict(
        depth=1,
        activation="linear",
        residual_to_embedding=False,
        residual_to_previous=False,
        input_projection=False,
        projection_bias=False,
    ),
    "dual": dict(
        depth=1,
        activation="sigmoid",
        residual_to_embedding=False,
        residual_to_previous=False,
        input_projection=True,
        projection_bias=True,
    ),
}
_STRUCTURE = ("depth", "residual_to_embedding", "residual_to_previous", "input_projection", "projection_bias")


@register_head("drill")
@keras.saving.register_keras_serializable(package="keras_labelemb")
class DrillHead(LabelHead):
    """Deep residual output layer: a deep label network over the label embeddings (DRILL).

    The label embeddings `E` (`(L, d)`) pass through `k = depth` nonlinear
    layers (eqs. 9, 10 and 12 of the paper):

        f_i(E_{i-1}) = act(E_{i-1} U_i + b_i)                                  (eq. 9)
        E_i = dropout(f_i(E_{i-1})) [+ E_{i-1} if residual_to_previous] [+ E if residual_to_embedding]
        logits = g_in(h) E_k^T + b,     g_in(h) = h   or   act(h V + b_v) (input_projection)

    with `E_0 = E`. Eq. 10 is applied literally at every layer, so with both
    residual switches on, the first layer adds `E` twice (`E_0` is `E`).
    `dropout_type="variational"` samples one mask over the `joint_dim` features per
    layer and step, shared by every label (the paper's locked mask);
    `"standard"` samples a mask per label and feature. With `depth=0` the head
    is exactly weight tying, `logits = h E^T + b`.

    `h` is `(B, d_h)` (classification) or `(B, T, d_h)` (a language model: one
    distribution per time step); logits are `(B, L)` or `(B, T, L)`.

    Where `E` comes from:

    - tied to the vocabulary (language modelling, DRILL/PW17 weight tying):
      pass the model's input `embedding` and no `label_ids`; `E` is the
      embedding table and the labels are the `L = embedding.input_dim` words;
    - label descriptions (classification, as `GileHead`): pass the shared
      `embedding` and `label_ids` `(L, Lw)`; `E` is `label_encoder` over the
      embedded description words. The label set is layer state, saved with the
      model (an asset, not config) and replaceable with `set_labels`;
    - label embeddings given to `call` (`label_embeddings=`; set `label_dim`).

    The baselines of the paper are the same layer with another `variant`; the
    structural arguments left as `None` take the variant's values, explicit
    ones override them (e.g. `variant="dual", residual_to_embedding=True`, as
    the paper's footnote 6 allowed its baselines):

        variant="drill" (default):  depth 2, sigmoid, residual to E        (DRILL)
        variant="tied":             logits = h E^T + b                        (PW17, depth 0)
        variant="bilinear":         logits = h (E W)^T + b                    (G18; W is (d, d_h))
        variant="dual":             logits = act(h V + b_v) act(E U + b_u)^T + b   (PH18)

    The usual softmax layer (`logits = h W + b`, `W` `(d_h, L)`) is `LinearHead`.

    Output bias `b`: `bias_mode="auto"` gives one bias per label (`b` of shape
    `(L,)`, the paper's `b in R^|V|`) when tied to the vocabulary, and a
    single shared scalar over label descriptions or call-time
    label embeddings, so that any label set can be scored (zero-shot). A
    per-label bias belongs to the stored label set, position by position:
    `set_labels` with another label count, or call-time labels of another
    count, raise a `ValueError` (a new label has no learned bias, and the
    layer does not invent one); use `bias_mode="shared"` for swappable label sets.

    Outputs are logits: train with a `from_logits=True` loss (softmax
    cross-entropy for language models, sigmoid for multi-label).

    Args:
        embedding: the `keras.layers.Embedding` shared with the inputs.
        label_ids: `(L, Lw)` token ids of label descriptions (0 = padding).
            Without them, a head with an `embedding` is tied to the vocabulary.
        variant: `"drill"`, `"tied"`, `"bilinear"` or `"dual"`.
        depth: `k`, layers of the label network (DRILL: default 2; the paper's
            best PTB setting is 4).
        joint_dim: width `d_j` of the label-network layers (the joint space, as in `GileHead`). Default: `d` (the label
            embedding width); for `"bilinear"`, `d_h`. Residuals need `d_j = d`.
        activation: `act`, a name (`"sigmoid"`, `"relu"`, `"tanh"`, `"linear"`)
            or callable. Default: the variant's (`sigmoid`, the paper's PTB choice).
        residual_to_embedding: add `E` to every layer's output (eq. 10). Default
            True for `"drill"`.
        residual_to_previous: add the layer's input `E_{i-1}` (eq. 10). Default False.
        dropout: rate of the dropout after each label-network layer. Default 0
            (the paper used 0.6).
        dropout_type: `"variational"` (default) or `"standard"`.
        input_projection: `g_in(h) = act(h V + b_v)` into the label network's
            width (the dual form); default only for `"dual"`.
        projection_bias: use the biases `b_i` (and `b_v`). Default True except
            for `"bilinear"`.
        bias_mode: `"auto"`, `"per_label"`, `"shared"` or `"none"` (see above).
        label_encoder: layer mapping `(L, Lw, d)` + mask to `(L, d)`; default
            `LabelEncoder()` (mean of word vectors).
        num_labels: label count when `E` comes only from call-time label
            embeddings and the bias is per label (set by `from_config`).
        label_dim: `d` when there is no `embedding`.
        kernel_initializer: initializer of `U_i`, `V`, `W`.
        bias_initializer: initializer of the output bias `b` (default zeros).
            For multi-label classification, the log-odds of the mean label
            frequency (e.g. `Constant(-4.5)` when documents carry about 1 of
            90 labels) starts every logit at the prior instead of at 0.5.
        seed: seed of the dropout masks.

    Call arguments:
        inputs: `h`, `(B, d_h)` or `(B, T, d_h)`.
        label_ids: optional `(L', Lw)` description ids for this call only.
        label_embeddings: optional `(L', d)` label embeddings used as `E`.
        training: dropout on or off.

    Example:

    >>> import numpy as np, keras
    >>> embedding = keras.layers.Embedding(100, 8)
    >>> head = DrillHead(embedding, depth=2, dropout=0.5)   # tied to the 100 words
    >>> h = np.random.normal(size=(2, 5, 8)).astype("float32")   # (B, T, d) LSTM outputs
    >>> tuple(head(h).shape)
    (2, 5, 100)
    >>> tuple(head.score_subset(h, np.array([3, 7, 9])).shape)   # 3 of the 100 words
    (2, 5, 3)
    >>> labels = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8]])      # 3 label descriptions
    >>> classifier = DrillHead(embedding, label_ids=labels, depth=1)
    >>> tuple(classifier(np.random.normal(size=(4, 8)).astype("float32")).shape)
    (4, 3)

    Reference: Pappas & Henderson, "Deep Residual Output Layers for Neural
    Language Generation", ICML 2019, section 3 (eqs. 7-12) and Table 4.
    """

    encodes_descriptions = True  # E: the label encoder over each description's word vectors

    scores_are_inner_products = True
    # The constructor argument `LabelHeadHyperModel` searches.
    searched_option = "depth"

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        variant="drill",
        depth=None,
        joint_dim=None,
        activation=None,
        residual_to_embedding=None,
        residual_to_previous=None,
        dropout=0.0,
        dropout_type="variational",
        input_projection=None,
        projection_bias=None,
        bias_mode="auto",
        label_encoder=None,
        num_labels=None,
        label_dim=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        seed=None,
        **kwargs,
    ):
        self.variant = check_choice("variant", variant, VARIANTS)
        bias_mode = check_choice("bias_mode", bias_mode, BIAS_MODES)
        if bias_mode == "auto":  # resolved once: per label when tied to the vocabulary (the paper's b in R^|V|)
            tied = embedding is not None and label_ids is None and num_labels is None
            bias_mode = "per_label" if tied else "shared"
        self.bias_mode = bias_mode
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            label_encoder=label_encoder,
            num_labels=num_labels,
            label_dim=label_dim,
            **kwargs,
        )
        self.joint_dim = check_positive_int("joint_dim", joint_dim, allow_none=True)
        self.dropout = check_rate("dropout", dropout)
        self.dropout_type = check_choice("dropout_type", dropout_type, DROPOUT_TYPES)
        self.seed = seed
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

        # The structural arguments as given (None = the variant's), kept for get_config.
        self._given = dict(
            depth=check_non_negative_int("depth", depth, allow_none=True),
            activation=activation,
            residual_to_embedding=check_bool("residual_to_embedding", residual_to_embedding, allow_none=True),
            residual_to_previous=check_bool("residual_to_previous", residual_to_previous, allow_none=True),
            input_projection=check_bool("input_projection", input_projection, allow_none=True),
            projection_bias=check_bool("projection_bias", projection_bias, allow_none=True),
        )
        if self.variant == "tied":
            fixed = {
                k: v for k, v in self._given.items() if k in _STRUCTURE and v is not None and v != _PRESETS["tied"][k]
            }
            if fixed or joint_dim is not None:
                raise ValueError(
                    "variant='tied' has no label network (no depth, residuals, joint_dim or input "
                    f"projection). Received: {fixed or {'joint_dim': joint_dim}}"
                )
        resolved = {k: (v if v is not None else _PRESETS[self.variant][k]) for k, v in self._given.items()}
        self.depth = resolved["depth"]
        self.activation = keras.activations.get(resolved["activation"])
        self.residual_to_embedding = resolved["residual_to_embedding"]
        self.residual_to_previous = resolved["residual_to_previous"]
        self.input_projection = resolved["input_projection"]
        self.projection_bias = resolved["projection_bias"]

        if self.embedding is None and self.label_dim is None:
            raise ValueError(
                "DrillHead needs label embeddings: pass the shared `embedding` (tied to the vocabulary, or with "
                "`label_ids`), or `label_dim` and `label_embeddings` at call time. Received: embedding=None"
            )
        if self.bias_mode == "per_label" and self.num_labels is None:
            raise ValueError(
                f"A per-label bias (bias_mode={self.bias_mode!r}) needs a label count: pass an `embedding` (tied "
                "to the vocabulary), `label_ids` or `num_labels`. Received: num_labels=None"
            )
        d = self._label_dim
        residual = self.residual_to_embedding or self.residual_to_previous
        if self.depth and residual and self.joint_dim not in (None, d):
            raise ValueError(
                f"Residual connections add E (width d={d}) to each label-network layer, so `joint_dim` must equal d "
                f"(or be left as None). Received: joint_dim={self.joint_dim} with label embeddings of width {d}"
            )
        self.supports_masking = True

    # -- the label set ---------------------------------------------------------
    @property
    def label_source(self):
        """`"descriptions"`, `"vocabulary"` (tied to the embedding table) or `"embeddings"` (call time)."""
        if self.label_ids is not None or (self.embedding is not None and self._num_labels is not None):
            return "descriptions"  # (a layer restored from its config gets its label set from load_assets)
        return "vocabulary" if self.embedding is not None else "embeddings"

    @property
    def num_labels(self):
        if self.label_source == "vocabulary":
            return int(self.embedding.input_dim)
        return super().num_labels

    @property
    def has_per_label_parameters(self):
        return self.bias_mode == "per_label"

    @property
    def _label_dim(self):
        return self.embedding.output_dim if self.embedding is not None else self.label_dim

    def _stored_label_embeddings(self, label_indices=None):
        if self.label_source != "vocabulary":
            return super()._stored_label_embeddings(label_indices)
        table = ops.cast(self.embedding.embeddings, self.compute_dtype)
        E = table if label_indices is None else ops.take(table, label_indices, axis=0)
        return self.lay_out_label_axis(E, "label_embeddings")

    def label_axis_variables(self):
        """The per-label bias, and the word table when the vocabulary is the label set (tied language model)."""
        variables = [(self.bias, 0)] if self.bias_mode == "per_label" else []
        if self.label_source == "vocabulary":
            variables.append((self.embedding.embeddings, 0))
        return variables

    # -- weights ---------------------------------------------------------------
    def _add(self, name, shape, initializer=None):
        return self.add_weight(name=name, shape=shape, initializer=initializer or self.kernel_initializer)

    def _resolved_joint_dim(self, input_dim):
        if self.joint_dim is not None:
            return self.joint_dim
        return input_dim if self.variant == "bilinear" else self._label_dim

    def build(self, input_shape):
        if len(input_shape) not in (2, 3) or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must be hidden states of shape (B, d_h) or (B, T, d_h) with a known d_h. "
                f"Received: inputs with shape {tuple(input_shape)}"
            )
        d_h = int(input_shape[-1])
        self.build_label_side()
        d, width = self._label_dim, self._resolved_joint_dim(d_h)
        out_width = width if self.depth else d
        if self.depth and (self.residual_to_embedding or self.residual_to_previous) and width != d:
            raise ValueError(
                f"Residual connections add E (width d={d}) to each label-network layer of width {width} "
                f"(variant={self.variant!r}); pass joint_dim={d}. Received: inputs with shape {tuple(input_shape)}"
            )
        if not self.input_projection and d_h != out_width:
            raise ValueError(
                f"The logits multiply h (width d_h={d_h}) with the label network's output E_k (width "
                f"{out_width}: {'joint_dim' if self.depth else 'the label embedding width d'}); they must match. "
                "Pass input_projection=True (the dual form), give the encoder output the label width (e.g. a "
                f"Dense({out_width}) projection), or set `joint_dim`. Received: inputs with shape {tuple(input_shape)}"
            )
        self.label_kernels, self.label_biases, self.label_dropouts = [], [], []
        for i in range(1, self.depth + 1):
            self.label_kernels.append(self._add(f"label_kernel_{i}", (d if i == 1 else width, width)))
            if self.projection_bias:
                self.label_biases.append(self._add(f"label_bias_{i}", (width,), "zeros"))
            if self.dropout:
                noise_shape = (1, width) if self.dropout_type == "variational" else None
                seed = None if self.seed is None else self.seed + i
                dropout = keras.layers.Dropout(
                    self.dropout, noise_shape=noise_shape, seed=seed, dtype=self.dtype_policy, name=f"label_dropout_{i}"
                )
                dropout.build((None, width))
                self.label_dropouts.append(dropout)
        if self.input_projection:
            self.input_kernel = self._add("input_kernel", (d_h, out_width))
            if self.projection_bias:
                self.input_bias = self._add("input_bias", (out_width,), "zeros")
        self.bias = None
        if self.bias_mode == "per_label":
            self.bias = self._add("bias", (self.num_labels,), self.bias_initializer)
        elif self.bias_mode == "shared":
            self.bias = self._add("bias", (), self.bias_initializer)
        self.built = True

    def shift_and_scale_weights(self):
        return [self.bias] if self.bias_mode == "shared" else []

    # -- forward ---------------------------------------------------------------
    def label_network(self, label_embeddings, training=None):
        """`E_k` of eqs. 9-10 (with eq. 12's dropout) for label embeddings `E` `(L, d)`."""
        E = ops.cast(label_embeddings, self.compute_dtype)
        previous = E
        for i in range(self.depth):
            out = ops.matmul(previous, self._w(self.label_kernels[i]))
            if self.projection_bias:
                out = out + self._w(self.label_biases[i])
            out = self.activation(out)
            if self.dropout:
                out = self.label_dropouts[i](out, training=training)
            if self.residual_to_previous:
                out = out + previous
            if self.residual_to_embedding:
                out = out + E
            previous = out
        return previous

    def _input_network(self, h):
        if not self.input_projection:
            return h
        out = ops.matmul(h, self._w(self.input_kernel))
        if self.projection_bias:
            out = out + self._w(self.input_bias)
        return self.activation(out)

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        h = ops.cast(inputs, self.compute_dtype)
        labels = self.label_network(label_embeddings, training=training)
        logits = ops.matmul(self._input_network(h), ops.transpose(labels))
        if self.bias is None:
            return logits
        bias = self._w(self.bias)
        if self.bias_mode == "per_label" and label_indices is not None:
            bias = ops.take(bias, label_indices, axis=0)
        return logits + bias

    def query_vectors(self, inputs):
        """The document side `(B, D + 1)`: the (projected) document vector and a 1 that meets the bias."""
        docs = self._input_network(ops.cast(inputs, self.compute_dtype))
        return ops.concatenate([docs, ops.ones_like(docs[..., :1])], axis=-1)

    def label_vectors_of(self, label_embeddings, label_indices=None):
        """The label side `(L, D + 1)`: `E_k` and each label's bias (0 without one)."""
        labels = self.label_network(label_embeddings)
        if self.bias is None:
            bias = ops.zeros_like(labels[:, :1])
        elif self.bias_mode == "per_label":
            bias = self._w(self.bias) if label_indices is None else ops.take(self._w(self.bias), label_indices, axis=0)
            bias = ops.reshape(bias, (-1, 1))
        else:
            bias = self._w(self.bias) * ops.ones_like(labels[:, :1])
        return ops.concatenate([labels, bias], axis=-1)

    def call(self, inputs, label_ids=None, label_embeddings=None, training=None):
        if label_ids is None and label_embeddings is None and self.label_source == "embeddings":
            raise ValueError(
                "This head has no stored labels: pass `label_embeddings` (or `label_ids`). Received: neither"
            )
        return super().call(inputs, label_ids=label_ids, label_embeddings=label_embeddings, training=training)

    # -- shapes, masks, config ----------------------------------------------------
    def compute_mask(self, inputs, mask=None):
        # Per-time-step logits keep the time-step mask; one vector per example has none.
        return mask if mask is not None and len(inputs.shape) == 3 else None

    def get_config(self):
        config = super().get_config()
        config.update(
            variant=self.variant,
            depth=self._given["depth"],
            joint_dim=self.joint_dim,
            activation=None if self._given["activation"] is None else keras.activations.serialize(self.activation),
            residual_to_embedding=self._given["residual_to_embedding"],
            residual_to_previous=self._given["residual_to_previous"],
            dropout=self.dropout,
            dropout_type=self.dropout_type,
            input_projection=self._given["input_projection"],
            projection_bias=self._given["projection_bias"],
            bias_mode=self.bias_mode,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
            seed=self.seed,
        )
        if self.label_source == "vocabulary":
            config["num_labels"] = None  # the vocabulary size, from the embedding
        return config
