"""CNLE's adaptive label decoder (section 3.3, eqs. 10-13): emits labels one step at a time."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_bool, check_choice, check_positive_int
from keras_labelemb.layers.co_attentive_encoder import CoAttentiveEncoder
from keras_labelemb.layers.label_head import LabelHead
from keras_labelemb.layers.masks import masked_softmax, zero_masked

OUTPUT_MODES = ("multi_hot", "sequence", "logits")
PADDING = -1  # label position after the end symbol in label sequences


@keras.saving.register_keras_serializable(package="keras_labelemb")
class AdaptiveLabelDecoder(LabelHead):
    """Label-sequence decoder of CNLE: an LSTM with attention emits the labels of a text one by one.

    With the final text encoding `X_fin` `(B, m, d)`, the final label
    encoding `L_fin` `(B, c, d_l)` and the encoder's final text states, for
    `t = 1..T` (CNLE eqs. 10-13):

        h_t, c_t = LSTMCell([e_{t-1}; r_{t-1}], h_{t-1}, c_{t-1})     h_0, c_0 from the encoder; e_0 = r_0 = 0
        a_t      = softmax(X_fin W1 h_t)                              over the unpadded words
        r_t      = tanh(W2 [X_fin^T a_t; h_t])
        y_t      = softmax([L_fin; e_end] W3 h_t)                     over the c labels + the end symbol

    `e_{t-1}` is the row of `L_fin` of the label emitted at step `t-1` (the
    true one with teacher forcing, the predicted one when decoding); the
    paper says only "the label embedding" of it, and `L_fin` is the one
    `d`-wide label representation it defines. `e_end` is a learned vector
    scored like a label row (one vector, not per label). Multi-class
    (`multi_label=False`): one step, no end symbol, a softmax over the `c`
    labels.

    A `LabelHead` whose label encodings depend on the text. The label set is
    the `(c, Lw)` token ids of label names or descriptions, read through the
    shared word `embedding` and the `label_encoder` (mean of word vectors)
    into `E` `(c, d_emb)`, in label-set order: that order is the label
    sequence of the paper. The co-attentive `encoder` (`CoAttentiveEncoder`)
    then turns the text word vectors and `E` into `X_fin, L_fin, h, c`: the
    head starts where the labels first meet the text, so its `inputs` are
    the text's word vectors `(B, m, d_emb)`, not one document vector.
    `set_labels`, call-time `label_ids` / `label_embeddings`,
    `embed_labels` (gives `E`), `LabelClassifier.from_model` and
    `.keras` saving (the label set as an asset) work as in every label head:
    the decoder scores whatever label set it is given. What differs:

    - the output is not one logit per label: it is the decoded label set
      (`output_mode`), or per-step logits;
    - `score_subset` raises: labels are encoded as one sequence (a BiLSTM
      over the label set, then co-attention), so a subset changes every
      label's encoding, and the softmax over the whole set is the loss;
    - with the `use_label_embedding=False` ablation (an encoder built so),
      no label description is read: the decoder has per-label parameters (an
      input embedding per label and a `Dense(c + 1)` classifier on `h_t`, "the
      linear projection layer used in most of the existing methods"), needs
      `num_labels`, and cannot score another label set.

    Without `encoder`, the decoder runs on its inputs as `X_fin` (`(B, m, d)`)
    with `L_fin = E` and zero initial states.

    Decoding (no `label_sequence`): greedy, for `max_steps` steps unrolled in
    the graph (static shapes, `jit_compile=True` and JAX work). A label
    already emitted cannot be chosen again, and padded labels never; once
    the end symbol is chosen the remaining steps output padding.
    Teacher forcing (`label_sequence` given): the true previous label feeds
    each step and the per-step logits `(B, T, c + 1)` come back for the loss
    (`LabelSequenceLoss`, eq. 14).

    Args:
        embedding: the `keras.layers.Embedding` shared with the text.
        label_ids: `(c, Lw)` token ids of the label names or descriptions.
        encoder: a `CoAttentiveEncoder` (or None: see above).
        units: LSTM units (`d`). Default: the encoder's `model_dim` (its final
            text states initialise the decoder), else the input width.
        max_steps: decoding steps `T`, the end symbol's step included
            (so at most `max_steps - 1` labels when it is emitted, `max_steps`
            when decoding runs out of steps). Required with `multi_label`;
            1 otherwise.
        multi_label: True: labels plus an end symbol; False: one label.
        output_mode: what decoding returns: `"multi_hot"` (default, `(B, c)`
            0/1 of the decoded set), `"sequence"` (`(B, max_steps)` int32 label
            positions, `c` = end symbol, -1 = padding after it) or `"logits"`
            (`(B, max_steps, c + 1)` logits of each greedy step, before the
            no-repeat mask).
        label_encoder: as in `LabelHead`.
        num_labels: as in `LabelHead`.
        label_dim: as in `LabelHead`.
        kernel_initializer: initializer of `W1, W2, W3` and the ablation's
            per-label weights.

    Call arguments:
        inputs: `(B, m, d_emb)` text word vectors (`(B, m, d)` `X_fin` without encoder).
        label_sequence: optional `(B, T)` int label positions for teacher
            forcing (`label_sequences` makes them), `T = max_steps`.
        label_ids / label_embeddings: another label set for this call.
        mask: `(B, m)` text mask (pass it explicitly together with `label_sequence`
            or `label_ids`: Keras fills `mask` automatically only for a single tensor argument).
        training: dropout in the encoder.

    Example:

    >>> import numpy as np, keras
    >>> embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    >>> labels = np.array([[3, 4], [5, 0], [6, 7]])  # 3 label names / descriptions
    >>> decoder = AdaptiveLabelDecoder(embedding, labels, encoder=CoAttentiveEncoder(model_dim=8, num_heads=2),
    ...                                max_steps=3)
    >>> words = embedding(np.array([[1, 2, 9, 0], [4, 5, 0, 0]]))
    >>> tuple(decoder(words).shape)  # the decoded label sets, multi-hot
    (2, 3)
    >>> tuple(decoder(words, label_sequence=np.array([[0, 2, 3], [1, 3, -1]])).shape)  # teacher forcing
    (2, 3, 4)

    Reference: Liu et al., "Co-attention network with label embedding for text
    classification", Neurocomputing 2022 (CNLE), section 3.3.
    """

    encodes_descriptions = True  # E: the label encoder over each description's word vectors
    has_output_bias = False  # it decodes sets; no per-label logit bias to start at a prior

    def __init__(
        self,
        embedding=None,
        label_ids=None,
        encoder=None,
        units=None,
        max_steps=None,
        multi_label=True,
        output_mode="multi_hot",
        label_encoder=None,
        num_labels=None,
        label_dim=None,
        kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        if encoder is not None and not isinstance(encoder, CoAttentiveEncoder):
            raise ValueError(f"`encoder` must be a CoAttentiveEncoder or None. Received: encoder={encoder!r}")
        # LabelHead.__init__ asks `reads_labels`; the encoder itself is assigned after it, because
        # under the PyTorch backend a sublayer (a torch Module) cannot be assigned before Module.__init__.
        self._reads_labels = encoder is None or encoder.use_label_embedding
        super().__init__(
            embedding=embedding,
            label_ids=label_ids,
            label_encoder=label_encoder,
            num_labels=num_labels,
            label_dim=label_dim,
            **kwargs,
        )
        self.encoder = encoder
        self.multi_label = check_bool("multi_label", multi_label)
        if self.multi_label:
            if max_steps is None:
                raise ValueError(
                    "A multi-label decoder needs `max_steps` (decoding steps, the end symbol's included). "
                    "Received: max_steps=None"
                )
            self.max_steps = check_positive_int("max_steps", max_steps)
        else:
            if max_steps not in (None, 1):
                raise ValueError(f"A multi-class decoder takes one step. Received: max_steps={max_steps!r}")
            self.max_steps = 1
        self.units = check_positive_int("units", units, allow_none=True)
        if encoder is not None and self.units is not None and self.units != encoder.model_dim:
            raise ValueError(
                f"The encoder's final text states ({encoder.model_dim} wide) initialise the decoder: `units` must "
                f"be {encoder.model_dim} or None. Received: units={units!r}"
            )
        self.output_mode = check_choice("output_mode", output_mode, OUTPUT_MODES)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        if self.reads_labels and self.embedding is None and self.label_dim is None:
            raise ValueError(
                "The decoder scores label encodings: pass the shared `embedding` (and `label_ids`), or "
                "`label_dim` and label embeddings at call time. Received: embedding=None"
            )
        if not self.reads_labels:
            if self._num_labels is None:
                raise ValueError(
                    "Without label embeddings (the encoder's use_label_embedding=False) the decoder has per-label "
                    "weights: pass `num_labels`. Received: num_labels=None"
                )
            if label_ids is not None:
                raise ValueError(
                    "This decoder reads no label descriptions (the encoder's use_label_embedding=False). "
                    f"Received: label_ids with shape {np.shape(label_ids)}"
                )

    # -- what kind of head --------------------------------------------------------------
    @property
    def reads_labels(self):
        """False for the "w/o label embedding" ablation: no label description is read."""
        return self._reads_labels

    @property
    def has_per_label_parameters(self):
        return not self.reads_labels

    @property
    def num_classes(self):
        """Width of the step softmax: the labels, plus the end symbol when multi-label."""
        return self.num_labels + int(self.multi_label)

    @property
    def input(self):
        """The text word vectors this head was called on (without the Keras mask that came with them).

        Keras passes the embedding's mask to `call` and records it among the
        call's inputs; `LabelClassifier.from_model` cuts the model at the head's input,
        which is the word vectors (their mask travels with them).
        """
        value = super().input
        return value[0] if isinstance(value, (list, tuple)) else value

    def score_subset(self, inputs, label_indices, training=None):
        raise ValueError(
            "AdaptiveLabelDecoder encodes its label set as one sequence (a BiLSTM over the labels, then "
            "co-attention with the text), so a subset would change every label's encoding, and its loss is a "
            "softmax over the whole set: it cannot score a subset. Decode the whole set (call the head) or pass "
            f"another set as `label_ids`. Received: label_indices with shape {np.shape(label_indices)}"
        )

    # -- weights ----------------------------------------------------------------------
    def _add(self, name, shape, initializer=None):
        return self.add_weight(name=name, shape=shape, initializer=initializer or self.kernel_initializer)

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must be text word vectors (B, m, d_emb) (or X_fin without encoder). "
                f"Received: inputs with shape {tuple(input_shape)}"
            )
        self.build_label_side()
        if self.encoder is not None:
            label_width = None if self.embedding is None else self.embedding.output_dim
            labels_shape = (None, label_width or input_shape[-1]) if self.reads_labels else None
            if not self.encoder.built:  # a deserialized encoder comes built
                self.encoder.build(tuple(input_shape), labels_shape)
            text_width = label_width_out = self.encoder.model_dim
        else:
            text_width = int(input_shape[-1])
            label_width_out = self.embedding.output_dim if self.embedding is not None else self.label_dim
        units = self.units or text_width
        self._units = units
        self._label_width = label_width_out
        input_width = label_width_out if self.reads_labels else units
        self.cell = keras.layers.LSTMCell(units, dtype=self.dtype_policy, name="decoder_cell")
        self.cell.build((None, input_width + units))
        self.attention_kernel = self._add("attention_kernel", (text_width, units))  # W1
        self.context_kernel = self._add("context_kernel", (text_width + units, units))  # W2
        if self.reads_labels:
            self.label_kernel = self._add("label_kernel", (label_width_out, units))  # W3
            if self.multi_label:
                self.end_embedding = self._add("end_embedding", (label_width_out,))  # e_end
        else:
            # Ablation: per-label input embeddings and a linear classifier (the methods CNLE compares with).
            self.label_input_embeddings = self._add("label_input_embeddings", (self.num_labels, units))
            self.output_kernel = self._add("output_kernel", (units, self.num_classes))
            self.output_bias = self._add("output_bias", (self.num_classes,), "zeros")

    # -- forward --------------------------------------------------------------------
    def call(self, inputs, label_sequence=None, label_ids=None, label_embeddings=None, mask=None, training=None):
        if self.reads_labels:
            E, _ = self._label_embeddings_for_call(label_ids, label_embeddings)
        else:
            if label_ids is not None or label_embeddings is not None:
                raise ValueError(
                    "This decoder reads no labels (the encoder's use_label_embedding=False) and scores its "
                    "fixed label set only. Received: call-time labels"
                )
            E = None
        return self.compute_logits(inputs, E, training=training, label_sequence=label_sequence, mask=mask)

    def encode(self, inputs, label_embeddings, mask=None, training=None):
        """`(X_fin, L_fin, labels_mask, (h_0, c_0))` the decoder starts from (`L_fin` None without labels)."""
        words = ops.cast(inputs, self.compute_dtype)
        batch_size = ops.shape(words)[0]
        text_mask = ops.ones(ops.shape(words)[:2], dtype="bool") if mask is None else ops.cast(mask, "bool")
        if self.encoder is not None:
            if self.reads_labels:
                x_fin, l_fin, h, c = self.encoder(words, labels=label_embeddings, mask=text_mask, training=training)
            else:
                (x_fin, h, c), l_fin = self.encoder(words, mask=text_mask, training=training), None
            states = (h, c)
        else:
            x_fin = zero_masked(words, text_mask)  # attention weighs masked words by 0, and 0 x NaN is NaN
            l_fin = ops.cast(label_embeddings, self.compute_dtype)
            l_fin = ops.broadcast_to(ops.expand_dims(l_fin, 0), (batch_size,) + tuple(l_fin.shape))
            zeros = ops.zeros((batch_size, self._units), dtype=self.compute_dtype)
            states = (zeros, zeros)
        return x_fin, l_fin, text_mask, states

    def compute_logits(
        self, inputs, label_embeddings, label_indices=None, training=None, label_sequence=None, mask=None
    ):
        x_fin, l_fin, text_mask, (h, c) = self.encode(inputs, label_embeddings, mask, training)
        keys = ops.matmul(x_fin, self._w(self.attention_kernel))  # X_fin W1: (B, m, units)
        if self.reads_labels:
            scored = l_fin
            if self.multi_label:  # the end symbol is one more row, scored like the labels
                end = ops.broadcast_to(self._w(self.end_embedding), (ops.shape(l_fin)[0], 1, self._label_width))
                scored = ops.concatenate([l_fin, end], axis=1)
            classifier = ops.matmul(scored, self._w(self.label_kernel))  # [L_fin; e_end] W3: (B, c(+1), units)
        else:
            classifier = None
        # ops.shape: the static count where known, a dynamic one for labels of unknown count (a served request).
        count = self.num_labels if l_fin is None else ops.shape(l_fin)[1]
        batch_size = ops.shape(x_fin)[0]
        previous = ops.zeros((batch_size, self._label_width if self.reads_labels else self._units), self.compute_dtype)
        context = ops.zeros((batch_size, self._units), self.compute_dtype)
        state = (h, c, context)

        def step(previous, state):
            h, c, context = state
            _, (h, c) = self.cell(ops.concatenate([previous, context], axis=-1), [h, c], training=training)
            attention = masked_softmax(ops.einsum("bmu,bu->bm", keys, h), text_mask)  # eq. 11
            attended = ops.einsum("bm,bmd->bd", attention, x_fin)
            context = ops.tanh(ops.matmul(ops.concatenate([attended, h], axis=-1), self._w(self.context_kernel)))
            if classifier is not None:
                logits = ops.einsum("bku,bu->bk", classifier, h)  # eq. 13 before the softmax
            else:
                logits = ops.matmul(h, self._w(self.output_kernel)) + self._w(self.output_bias)
            return logits, (h, c, context)

        def embed(positions):
            """`e` of the labels at `positions` `(B,)`: zeros for the end symbol and padding."""
            # A zero row for the end symbol and padding (positions outside [0, count)); compared with
            # arange rather than one_hot, which raises on out-of-range classes under PyTorch.
            label_positions = ops.arange(count, dtype=positions.dtype)
            chosen = ops.cast(ops.expand_dims(positions, -1) == label_positions, self.compute_dtype)
            if l_fin is not None:
                return ops.einsum("bk,bkd->bd", chosen, l_fin)
            return ops.matmul(chosen, self._w(self.label_input_embeddings))

        if label_sequence is not None:
            return self._teacher_forced(label_sequence, step, embed, previous, state)
        return self._greedy(step, embed, previous, state, count, batch_size)

    def _teacher_forced(self, label_sequence, step, embed, previous, state):
        label_sequence = ops.cast(label_sequence, "int32")
        if len(label_sequence.shape) != 2 or label_sequence.shape[1] != self.max_steps:
            raise ValueError(
                f"`label_sequence` must be (B, max_steps={self.max_steps}) label positions. "
                f"Received: label_sequence with shape {tuple(label_sequence.shape)}"
            )
        outputs = []
        for t in range(self.max_steps):
            logits, state = step(previous, state)
            outputs.append(logits)
            previous = embed(label_sequence[:, t])
        return ops.stack(outputs, axis=1)

    def _greedy(self, step, embed, previous, state, count, batch_size):
        end = count  # the end symbol's position (multi-label only)
        emitted = ops.zeros((batch_size, count), "bool")
        done = ops.zeros((batch_size,), "bool")
        sequence, step_logits = [], []
        for _ in range(self.max_steps):
            logits, state = step(previous, state)
            step_logits.append(logits)
            blocked = emitted
            if self.multi_label:
                blocked = ops.concatenate([emitted, ops.zeros((batch_size, 1), "bool")], axis=-1)
            choice = ops.argmax(ops.where(blocked, -np.inf, ops.cast(logits, "float32")), axis=-1)
            choice = ops.cast(choice, "int32")
            sequence.append(ops.where(done, PADDING, choice))
            emitted = ops.logical_or(
                emitted,
                ops.logical_and(
                    ops.equal(ops.expand_dims(choice, -1), ops.arange(count, dtype="int32")),
                    ops.expand_dims(ops.logical_not(done), -1),
                ),
            )
            if self.multi_label:
                done = ops.logical_or(done, ops.equal(choice, end))
            previous = embed(choice)
        if self.output_mode == "logits":
            return ops.stack(step_logits, axis=1)
        if self.output_mode == "sequence":
            return ops.stack(sequence, axis=1)
        return ops.cast(emitted, self.compute_dtype)

    # -- shapes ---------------------------------------------------------------------
    def _shape(self, batch, count, teacher_forced):
        if teacher_forced or self.output_mode == "logits":
            return (batch, self.max_steps, None if count is None else count + int(self.multi_label))
        if self.output_mode == "sequence":
            return (batch, self.max_steps)
        return (batch, count)

    def compute_output_spec(
        self, inputs, label_sequence=None, label_ids=None, label_embeddings=None, mask=None, training=None
    ):
        count = self._call_label_count(label_ids, label_embeddings)
        shape = self._shape(inputs.shape[0], count, label_sequence is not None)
        dtype = "int32" if label_sequence is None and self.output_mode == "sequence" else self.compute_dtype
        return keras.KerasTensor(shape, dtype=dtype)

    def compute_output_shape(self, input_shape):
        return self._shape(input_shape[0], self.num_labels, False)

    def compute_mask(self, inputs, mask=None):
        return None

    # -- config -----------------------------------------------------------------------
    def get_config(self):
        config = super().get_config()
        config.update(
            encoder=None if self.encoder is None else keras.saving.serialize_keras_object(self.encoder),
            units=self.units,
            max_steps=self.max_steps,
            multi_label=self.multi_label,
            output_mode=self.output_mode,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("encoder") is not None:
            config["encoder"] = keras.saving.deserialize_keras_object(config["encoder"])
        return super().from_config(config)
