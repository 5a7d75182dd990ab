"""Text-label co-attention (CNLE eqs. 6-7): text attends to labels, labels attend to text."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool, check_positive_int, check_rate
from keras_labelemb.layers.masks import zero_masked


def _any(mask):
    """`(B, n)` bool mask -> `(B, 1, 1)`: True where the row has at least one unmasked position."""
    return ops.reshape(ops.any(mask, axis=-1), (-1, 1, 1))


@keras.saving.register_keras_serializable(package="keras_labelemb")
class CoAttention(keras.layers.Layer):
    """Co-attention between a text encoding and a label encoding (CNLE section 3.2.2).

    With the text encoding `X` `(B, m, d)` and the label encoding `L` `(c, d_l)`
    (one label sequence shared by every text) or `(B, c, d_l)`:

        X_att  = MultiHead_X(X, L, L)          label-to-text attention (eq. 6):
                                               each word attends over the labels
        L_att  = MultiHead_L(L, X, X)          text-to-label attention (eq. 6):
                                               each label attends over the words
        X_fuse = LN_X(FFN_X(X_att) + X)        (eq. 7)
        L_fuse = LN_L(FFN_L(L_att) + L)        (eq. 7)

    `MultiHead` is `keras.layers.MultiHeadAttention` with `num_heads` heads of
    `key_dim = attention_dim // num_heads` and output width `attention_dim`
    (the paper's `d_h`; `W^O` maps the concatenated heads to it), `FFN` is
    `Dense(intermediate_dim, relu) -> Dense(d)` (it "projects the input into
    dimension d"), `LN` is `LayerNormalization`. `L_fuse` is always batched:
    each text attends to the labels its own way.

    Ablations (CNLE section 5.1, Tables 5 and 6). The rule for both: a removed
    attention is replaced by its query, so `FFN + residual + LN` stays (same
    depth, same text-side parameters) and only the information flow between
    text and labels goes away:

    - `use_text_to_label_attention=False` ("CNLE w/o Text-to-label
      Attention": "we retain the label embedding and label-to-text attention
      [...] remove the text-to-label attention such that the label embedding
      is not attended by the text"): `L_att = L`, so
      `L_fuse = LN_L(FFN_L(L) + L)` does not depend on the text; `X_fuse` is
      unchanged. `MultiHead_L` is not created.
    - `use_label_embedding=False` ("CNLE w/o Label Embedding": "we do not use
      the label embedding (i.e., label sequence) at all [...] only the text
      sequence is fed into the model"): no labels are passed, `X_att = X`,
      `X_fuse = LN_X(FFN_X(X) + X)`, and the layer returns `X_fuse` only.
      Neither `MultiHead` nor the label-side `FFN_L`/`LN_L` exists.

    Masks: padded words (`mask`, `(B, m)`) and padded labels (`labels_mask`,
    `(c,)` or `(B, c)`) get zero attention weight, their input values never
    reach an output, and their outputs are zeros. Attention over no position
    (a fully padded text, or no label left) gives zeros, so a fully padded
    text yields finite outputs (`L_fuse = LN_L(FFN_L(0) + L)`).

    Args:
        num_heads: number of heads `p`. Default 3 (the paper).
        attention_dim: output width `d_h` of each `MultiHead` (the paper: 150
            with `d = 256`). Default: the text width `d`.
        key_dim: width of each head. Default `max(1, attention_dim // num_heads)`.
        intermediate_dim: hidden width of each `FFN`. Default `d`.
        dropout: dropout rate on the attention weights and on the `FFN` outputs.
        use_text_to_label_attention: False drops `MultiHead_L` (above).
        use_label_embedding: False drops the label side (above).
        return_attention_scores: also return the attention weights,
            `label_to_text_scores` `(B, p, m, c)` (words attending over labels)
            and `text_to_label_scores` `(B, p, c, m)` (labels attending over
            words; zeros when that attention is switched off). Rows of padded
            queries are zeros. Needs the label side.
        layer_norm_epsilon: epsilon of both `LayerNormalization`s.
        kernel_initializer: initializer of every kernel.

    Call arguments:
        inputs: text encoding `X` `(B, m, d)`.
        labels: label encoding `L` `(c, d_l)` or `(B, c, d_l)` (omit with
            `use_label_embedding=False`).
        mask: `(B, m)` boolean text mask.
        labels_mask: `(c,)` or `(B, c)` boolean label mask.
        training: dropout on or off.

    Returns:
        `(X_fuse, L_fuse)` (`(B, m, d)`, `(B, c, d_l)`), followed by the two
        score tensors when `return_attention_scores`; `X_fuse` alone with
        `use_label_embedding=False`.

    Example:

    >>> import numpy as np
    >>> layer = CoAttention(num_heads=2, attention_dim=4)
    >>> text = np.random.rand(2, 5, 6).astype("float32")
    >>> labels = np.random.rand(3, 6).astype("float32")  # 3 labels, shared by both texts
    >>> mask = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0]], bool)  # the second text is all padding
    >>> text_fused, labels_fused = layer(text, labels=labels, mask=mask)
    >>> tuple(text_fused.shape), tuple(labels_fused.shape)
    ((2, 5, 6), (2, 3, 6))
    >>> bool(np.isfinite(np.asarray(labels_fused)).all())
    True

    Reference: Liu et al., "Co-attention network with label embedding for text
    classification", Neurocomputing 2022 (CNLE), section 3.2.2 and section 5.1.
    """

    def __init__(
        self,
        num_heads=3,
        attention_dim=None,
        key_dim=None,
        intermediate_dim=None,
        dropout=0.0,
        use_text_to_label_attention=True,
        use_label_embedding=True,
        return_attention_scores=False,
        layer_norm_epsilon=1e-5,
        kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_heads = check_positive_int("num_heads", num_heads)
        self.attention_dim = check_positive_int("attention_dim", attention_dim, allow_none=True)
        self.key_dim = check_positive_int("key_dim", key_dim, allow_none=True)
        self.intermediate_dim = check_positive_int("intermediate_dim", intermediate_dim, allow_none=True)
        self.dropout = check_rate("dropout", dropout)
        self.use_text_to_label_attention = check_bool("use_text_to_label_attention", use_text_to_label_attention)
        self.use_label_embedding = check_bool("use_label_embedding", use_label_embedding)
        self.return_attention_scores = check_bool("return_attention_scores", return_attention_scores)
        if self.return_attention_scores and not self.use_label_embedding:
            raise ValueError(
                "Attention scores exist only between text and labels: `return_attention_scores=True` needs "
                f"use_label_embedding=True. Received: use_label_embedding={use_label_embedding!r}"
            )
        if isinstance(layer_norm_epsilon, bool) or not isinstance(layer_norm_epsilon, (int, float)):
            raise ValueError(f"`layer_norm_epsilon` must be a positive float. Received: {layer_norm_epsilon!r}")
        if layer_norm_epsilon <= 0:
            raise ValueError(f"`layer_norm_epsilon` must be a positive float. Received: {layer_norm_epsilon!r}")
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True

    # -- sublayers ------------------------------------------------------------------
    def _dense(self, units, name, activation=None):
        return keras.layers.Dense(
            units,
            activation=activation,
            kernel_initializer=keras.initializers.get(keras.initializers.serialize(self.kernel_initializer)),
            dtype=self.dtype_policy,
            name=name,
        )

    def _attention(self, name):
        return keras.layers.MultiHeadAttention(
            num_heads=self.num_heads,
            key_dim=self._key_dim,
            output_shape=self._attention_dim,
            dropout=self.dropout,
            kernel_initializer=keras.initializers.get(keras.initializers.serialize(self.kernel_initializer)),
            dtype=self.dtype_policy,
            name=name,
        )

    def _side(self, prefix, width, attention_width):
        """`FFN` (two Dense) and `LN` of one side, built for an attention output of `attention_width`."""
        hidden = self.intermediate_dim or width
        ffn_in = self._dense(hidden, f"{prefix}_ffn_intermediate", "relu")
        ffn_out = self._dense(width, f"{prefix}_ffn_output")
        norm = keras.layers.LayerNormalization(
            epsilon=self.layer_norm_epsilon, dtype=self.dtype_policy, name=f"{prefix}_layer_norm"
        )
        ffn_in.build((None, None, attention_width))
        ffn_out.build((None, None, hidden))
        norm.build((None, None, width))
        return ffn_in, ffn_out, norm

    def build(self, inputs_shape, labels_shape=None):
        if len(inputs_shape) != 3 or inputs_shape[-1] is None:
            raise ValueError(
                f"`inputs` must be a text encoding (B, m, d) with a known d. Received: inputs with shape "
                f"{tuple(inputs_shape)}"
            )
        d = int(inputs_shape[-1])
        if labels_shape is not None and (len(labels_shape) not in (2, 3) or labels_shape[-1] is None):
            raise ValueError(
                f"`labels` must be a label encoding (c, d_l) or (B, c, d_l) with a known d_l. Received: labels "
                f"with shape {tuple(labels_shape)}"
            )
        # Built from the text shape alone (e.g. `build(inputs_shape)`), the labels are taken to be as wide.
        d_l = d if labels_shape is None else int(labels_shape[-1])
        self._attention_dim = self.attention_dim or d
        self._key_dim = self.key_dim or max(1, self._attention_dim // self.num_heads)
        self.dropout_layer = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy, name="ffn_dropout")
        if not self.use_label_embedding:
            self.text_ffn_intermediate, self.text_ffn_output, self.text_layer_norm = self._side("text", d, d)
            return
        self.text_attention = self._attention("text_attention")  # MultiHead_X: words attend over labels
        self.text_attention.build((None, None, d), (None, None, d_l), (None, None, d_l))
        self.text_ffn_intermediate, self.text_ffn_output, self.text_layer_norm = self._side(
            "text", d, self._attention_dim
        )
        label_attention_width = d_l
        if self.use_text_to_label_attention:
            self.label_attention = self._attention("label_attention")  # MultiHead_L: labels attend over words
            self.label_attention.build((None, None, d_l), (None, None, d), (None, None, d))
            label_attention_width = self._attention_dim
        self.label_ffn_intermediate, self.label_ffn_output, self.label_layer_norm = self._side(
            "label", d_l, label_attention_width
        )

    # -- forward --------------------------------------------------------------------
    def _fuse(self, attended, residual, mask, prefix, training):
        """`LN(FFN(attended) + residual)` with padded positions set to zero."""
        hidden = getattr(self, f"{prefix}_ffn_intermediate")(attended)
        update = self.dropout_layer(getattr(self, f"{prefix}_ffn_output")(hidden), training=training)
        return zero_masked(getattr(self, f"{prefix}_layer_norm")(update + residual), mask)

    def _labels_and_mask(self, labels, labels_mask, batch_size):
        labels = ops.cast(labels, self.compute_dtype)
        if len(labels.shape) not in (2, 3):
            raise ValueError(
                f"`labels` must be a label encoding (c, d_l) or (B, c, d_l). Received: labels with shape "
                f"{tuple(labels.shape)}"
            )
        # ops.shape: static sizes where known, dynamic ones for a label set of unknown size (a served request).
        count, width = ops.shape(labels)[-2:]
        if len(labels.shape) == 2:
            labels = ops.broadcast_to(ops.expand_dims(labels, 0), (batch_size, count, width))
        if labels_mask is None:
            labels_mask = ops.ones(ops.shape(labels)[:2], dtype="bool")
        else:
            labels_mask = ops.cast(labels_mask, "bool")
            if len(labels_mask.shape) == 1:
                labels_mask = ops.broadcast_to(ops.expand_dims(labels_mask, 0), (batch_size, count))
        return labels, labels_mask

    def call(self, inputs, labels=None, mask=None, labels_mask=None, training=None):
        x = ops.cast(inputs, self.compute_dtype)
        batch_size = ops.shape(x)[0]
        text_mask = ops.ones(ops.shape(x)[:2], dtype="bool") if mask is None else ops.cast(mask, "bool")
        x = zero_masked(x, text_mask)
        if not self.use_label_embedding:
            if labels is not None:
                raise ValueError(
                    "This CoAttention has no label side (use_label_embedding=False): call it on the text only. "
                    f"Received: labels with shape {tuple(labels.shape)}"
                )
            return self._fuse(x, x, text_mask, "text", training)
        if labels is None:
            raise ValueError("`labels` (the label encoding, (c, d_l) or (B, c, d_l)) are required. Received: None")
        labels, labels_mask = self._labels_and_mask(labels, labels_mask, batch_size)
        labels = zero_masked(labels, labels_mask)

        # Scores are always requested: that path zeroes the weights of a query with no key left (the fused
        # dot_product_attention kernel may not), and it is the one `return_attention_scores` needs anyway.
        x_att, label_to_text = self.text_attention(
            x, labels, labels, value_mask=labels_mask, return_attention_scores=True, training=training
        )
        x_att = ops.where(_any(labels_mask), x_att, ops.zeros_like(x_att))  # no label: attention gives zeros
        x_fuse = self._fuse(x_att, x, text_mask, "text", training)

        if self.use_text_to_label_attention:
            l_att, text_to_label = self.label_attention(
                labels, x, x, value_mask=text_mask, return_attention_scores=True, training=training
            )
            l_att = ops.where(_any(text_mask), l_att, ops.zeros_like(l_att))  # a fully padded text: zeros
        else:
            l_att = labels
            text_to_label = None
        l_fuse = self._fuse(l_att, labels, labels_mask, "label", training)
        if not self.return_attention_scores:
            return x_fuse, l_fuse
        label_to_text = self._mask_scores(label_to_text, text_mask, labels_mask)
        if text_to_label is None:
            text_to_label = ops.zeros(
                (batch_size, self.num_heads, ops.shape(labels)[1], ops.shape(x)[1]), dtype=label_to_text.dtype
            )
        else:
            text_to_label = self._mask_scores(text_to_label, labels_mask, text_mask)
        return x_fuse, l_fuse, label_to_text, text_to_label

    @staticmethod
    def _mask_scores(scores, query_mask, key_mask):
        keep = ops.logical_and(ops.expand_dims(query_mask, -1), ops.expand_dims(key_mask, -2))
        return ops.where(ops.expand_dims(keep, 1), scores, ops.zeros_like(scores))

    # -- shapes and masks -----------------------------------------------------------
    def compute_output_shape(self, inputs_shape, labels_shape=None):
        inputs_shape = tuple(inputs_shape)
        if not self.use_label_embedding:
            return inputs_shape
        count, width = (None, inputs_shape[-1]) if labels_shape is None else tuple(labels_shape)[-2:]
        shapes = (inputs_shape, (inputs_shape[0], count, width))
        if self.return_attention_scores:
            shapes += (
                (inputs_shape[0], self.num_heads, inputs_shape[1], count),
                (inputs_shape[0], self.num_heads, count, inputs_shape[1]),
            )
        return shapes

    def compute_output_spec(self, inputs, labels=None, mask=None, labels_mask=None, training=None):
        labels_shape = None if labels is None else tuple(labels.shape)
        shapes = self.compute_output_shape(inputs.shape, labels_shape)
        if not self.use_label_embedding:
            return keras.KerasTensor(shapes, dtype=self.compute_dtype)
        return tuple(keras.KerasTensor(shape, dtype=self.compute_dtype) for shape in shapes)

    def compute_mask(self, inputs, mask=None, labels=None, labels_mask=None):
        if not self.use_label_embedding:
            return mask
        if labels_mask is not None and len(labels_mask.shape) == 1:
            labels_mask = ops.broadcast_to(
                ops.expand_dims(labels_mask, 0), (ops.shape(inputs)[0], labels_mask.shape[0])
            )
        masks = [mask, labels_mask]
        return masks + [None, None] if self.return_attention_scores else masks

    def get_config(self):
        config = super().get_config()
        config.update(
            num_heads=self.num_heads,
            attention_dim=self.attention_dim,
            key_dim=self.key_dim,
            intermediate_dim=self.intermediate_dim,
            dropout=self.dropout,
            use_text_to_label_attention=self.use_text_to_label_attention,
            use_label_embedding=self.use_label_embedding,
            return_attention_scores=self.return_attention_scores,
            layer_norm_epsilon=self.layer_norm_epsilon,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
        )
        return config
