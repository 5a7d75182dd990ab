"""CNLE's text-label co-attentive encoder (section 3.2): projections, shared BiLSTM, co-attention, final BiLSTMs."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool, check_positive_int, check_rate
from keras_labelemb.layers.bidirectional import bidirectional
from keras_labelemb.layers.co_attention import CoAttention
from keras_labelemb.layers.masks import zero_masked


@keras.saving.register_keras_serializable(package="keras_labelemb")
class CoAttentiveEncoder(keras.layers.Layer):
    """Text-Label Co-attentive Encoder (TLCE) of CNLE, from word vectors to the decoder's inputs.

    With text word vectors `X_emb` `(B, m, d_emb)` and label vectors `L_emb`
    `(c, d_emb)` (one row per label of the label sequence, in label-set order):

        X_proj = X_emb W_x + b_x,  L_proj = L_emb W_l + b_l      two projections to d
        X_enc  = BiLSTM(X_proj),   L_enc  = BiLSTM(L_proj)       one BiLSTM, shared (eq. 3)
        X_fuse, L_fuse = CoAttention(X_enc, L_enc)               (eqs. 6-7)
        X_fin  = BiLSTM_X(X_fuse), L_fin = BiLSTM_L(L_fuse)      two BiLSTMs (eqs. 8-9)

    Each BiLSTM has `d / 2` units per direction and concatenates both. The
    final states `h, c` (`(B, d)`: forward and backward concatenated) of
    `BiLSTM_X` initialise the decoder (section 3.3.1). The label sequence
    is one sequence shared by every text, so `L_enc` is computed once per
    call; `L_fuse` and `L_fin` are per text.

    Where this library differs from the paper: the paper gives each label a
    randomly initialised embedding; here `L_emb` comes from the label's name
    or description read through the word embedding shared with the text
    (`AdaptiveLabelDecoder` does that), so no weight belongs to one label.

    Ablations (passed to `CoAttention`, see there for what each removes):
    `use_text_to_label_attention=False`, and `use_label_embedding=False`,
    which takes no labels and returns `(X_fin, h, c)`.

    Args:
        model_dim: `d` (even). Default 256 (the paper).
        num_heads: attention heads of `CoAttention` (the paper: 3).
        attention_dim: per-head width of `CoAttention` (the paper: `d_h = 150`).
        intermediate_dim: the feed-forward width of `CoAttention`.
        dropout: of `CoAttention`.
        use_text_to_label_attention: ablation switch (`CoAttention`). Default True.
        use_label_embedding: ablation switch (`CoAttention`); False takes no labels. Default True.
        kernel_initializer: initializer of the projections and `CoAttention`.

    Call arguments:
        inputs: `(B, m, d_emb)` text word vectors; `mask` `(B, m)`.
        labels: `(c, d_emb)` or `(B, c, d_emb)` label vectors; `labels_mask`.
        return_attention_scores: also return `CoAttention`'s two score tensors.

    Returns:
        `(X_fin, L_fin, h, c)` (`(B, m, d)`, `(B, c, d)`, `(B, d)`, `(B, d)`),
        or `(X_fin, h, c)` without labels; plus the scores when asked.

    Example:

    >>> import numpy as np
    >>> encoder = CoAttentiveEncoder(model_dim=8, num_heads=2)
    >>> words, labels = np.random.rand(2, 5, 6).astype("float32"), np.random.rand(3, 6).astype("float32")
    >>> [tuple(t.shape) for t in encoder(words, labels=labels)]
    [(2, 5, 8), (2, 3, 8), (2, 8), (2, 8)]

    Reference: Liu et al., "Co-attention network with label embedding for text
    classification", Neurocomputing 2022 (CNLE), section 3.2.
    """

    def __init__(
        self,
        model_dim=256,
        num_heads=3,
        attention_dim=None,
        intermediate_dim=None,
        dropout=0.0,
        use_text_to_label_attention=True,
        use_label_embedding=True,
        kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.model_dim = check_positive_int("model_dim", model_dim)
        if self.model_dim % 2:
            raise ValueError(
                f"`model_dim` must be even (d/2 units per BiLSTM direction). Received: model_dim={model_dim!r}"
            )
        self.num_heads = check_positive_int("num_heads", num_heads)
        self.attention_dim = check_positive_int("attention_dim", attention_dim, allow_none=True)
        self.intermediate_dim = check_positive_int("intermediate_dim", intermediate_dim, allow_none=True)
        self.dropout = check_rate("dropout", dropout)
        self.use_text_to_label_attention = check_bool("use_text_to_label_attention", use_text_to_label_attention)
        self.use_label_embedding = check_bool("use_label_embedding", use_label_embedding)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True

    def _initializer(self):
        return keras.initializers.get(keras.initializers.serialize(self.kernel_initializer))

    def _bilstm(self, name, return_state=False):
        return bidirectional(
            keras.layers.LSTM,
            self.model_dim // 2,
            self.dtype_policy,
            name,
            return_sequences=True,
            return_state=return_state,
        )

    def build(self, inputs_shape, labels_shape=None):
        if len(inputs_shape) != 3 or inputs_shape[-1] is None:
            raise ValueError(
                f"`inputs` must be word vectors (B, m, d_emb) with a known d_emb. Received: inputs with shape "
                f"{tuple(inputs_shape)}"
            )
        d_emb, d = int(inputs_shape[-1]), self.model_dim
        label_width = d_emb if labels_shape is None else int(labels_shape[-1])
        self.text_projection = keras.layers.Dense(
            d, kernel_initializer=self._initializer(), dtype=self.dtype_policy, name="text_projection"
        )
        self.text_projection.build((None, None, d_emb))
        self.shared_bilstm = self._bilstm("shared_bilstm")
        self.shared_bilstm.build((None, None, d))
        self.co_attention = CoAttention(
            num_heads=self.num_heads,
            attention_dim=self.attention_dim,
            intermediate_dim=self.intermediate_dim,
            dropout=self.dropout,
            use_text_to_label_attention=self.use_text_to_label_attention,
            use_label_embedding=self.use_label_embedding,
            # Scores cost next to nothing (CoAttention computes them either way); `call` drops them unless asked.
            return_attention_scores=self.use_label_embedding,
            kernel_initializer=self._initializer(),
            dtype=self.dtype_policy,
            name="co_attention",
        )
        self.co_attention.build((None, None, d), None if not self.use_label_embedding else (None, d))
        self.text_bilstm = self._bilstm("text_bilstm", return_state=True)
        self.text_bilstm.build((None, None, d))
        if self.use_label_embedding:
            self.label_projection = keras.layers.Dense(
                d, kernel_initializer=self._initializer(), dtype=self.dtype_policy, name="label_projection"
            )
            self.label_projection.build((None, label_width))
            self.label_bilstm = self._bilstm("label_bilstm")
            self.label_bilstm.build((None, None, d))

    def call(self, inputs, labels=None, mask=None, labels_mask=None, training=None, return_attention_scores=False):
        words = ops.cast(inputs, self.compute_dtype)
        text_mask = ops.ones(ops.shape(words)[:2], dtype="bool") if mask is None else ops.cast(mask, "bool")
        # Selected away before the projection: a NaN there would reach the kernel's gradient (NaN x 0).
        words = zero_masked(words, text_mask)
        x_enc = zero_masked(self.shared_bilstm(self.text_projection(words), mask=text_mask), text_mask)
        if not self.use_label_embedding:
            if labels is not None:
                raise ValueError(
                    "This encoder reads no labels (use_label_embedding=False). "
                    f"Received: labels with shape {tuple(labels.shape)}"
                )
            x_fuse = self.co_attention(x_enc, mask=text_mask, training=training)
            x_fin, h, c = self._final_text(x_fuse, text_mask)
            return x_fin, h, c
        if labels is None:
            raise ValueError("`labels` (label vectors, (c, d_emb) or (B, c, d_emb)) are required. Received: None")
        labels = ops.cast(labels, self.compute_dtype)
        unbatched = len(labels.shape) == 2
        if labels_mask is None:
            labels_mask = ops.ones(ops.shape(labels)[:-1], dtype="bool")
        labels_mask = ops.cast(labels_mask, "bool")
        labels = zero_masked(labels, labels_mask)
        sequence = ops.expand_dims(labels, 0) if unbatched else labels
        sequence_mask = ops.expand_dims(labels_mask, 0) if unbatched else labels_mask
        l_enc = zero_masked(self.shared_bilstm(self.label_projection(sequence), mask=sequence_mask), sequence_mask)
        if unbatched:
            l_enc = l_enc[0]
        x_fuse, l_fuse, label_to_text, text_to_label = self.co_attention(
            x_enc, labels=l_enc, mask=text_mask, labels_mask=labels_mask, training=training
        )
        batch_labels_mask = labels_mask
        if unbatched:
            batch_labels_mask = ops.broadcast_to(ops.expand_dims(labels_mask, 0), ops.shape(l_fuse)[:2])
        l_fin = zero_masked(self.label_bilstm(l_fuse, mask=batch_labels_mask), batch_labels_mask)
        x_fin, h, c = self._final_text(x_fuse, text_mask)
        if return_attention_scores:
            return x_fin, l_fin, h, c, label_to_text, text_to_label
        return x_fin, l_fin, h, c

    def _final_text(self, x_fuse, text_mask):
        x_fin, h_forward, c_forward, h_backward, c_backward = self.text_bilstm(x_fuse, mask=text_mask)
        h = ops.concatenate([h_forward, h_backward], axis=-1)
        c = ops.concatenate([c_forward, c_backward], axis=-1)
        return zero_masked(x_fin, text_mask), h, c

    def compute_output_shape(self, inputs_shape, labels_shape=None):
        batch, length, d = inputs_shape[0], inputs_shape[1], self.model_dim
        text = ((batch, length, d), (batch, d), (batch, d))
        if not self.use_label_embedding:
            return text
        count = None if labels_shape is None else labels_shape[-2]
        return (text[0], (batch, count, d)) + text[1:]

    def compute_output_spec(
        self, inputs, labels=None, mask=None, labels_mask=None, training=None, return_attention_scores=False
    ):
        shapes = self.compute_output_shape(inputs.shape, None if labels is None else labels.shape)
        if return_attention_scores and self.use_label_embedding:
            batch, length, count = inputs.shape[0], inputs.shape[1], labels.shape[-2]
            shapes += ((batch, self.num_heads, length, count), (batch, self.num_heads, count, length))
        return tuple(keras.KerasTensor(shape, dtype=self.compute_dtype) for shape in shapes)

    def compute_mask(self, inputs, mask=None, labels=None, labels_mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update(
            model_dim=self.model_dim,
            num_heads=self.num_heads,
            attention_dim=self.attention_dim,
            intermediate_dim=self.intermediate_dim,
            dropout=self.dropout,
            use_text_to_label_attention=self.use_text_to_label_attention,
            use_label_embedding=self.use_label_embedding,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
        )
        return config
