"""One-hot LSTM region embedding with pooling (oh-LSTMp / oh-2LSTMp; Johnson & Zhang 2016)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_non_negative_int, check_positive_int, check_token_ids
from keras_labelemb.layers.region_pooling import POOLING_MODES, RegionPooling

GATES = ("no_io", "full")
DIRECTIONS = ("forward", "backward", "bidirectional")


class _StepCell(keras.layers.Layer):
    """Adapter that lets `keras.layers.RNN` loop `RegionLSTM._step`; holds no weights of its own."""

    def __init__(self, step, size, **kwargs):
        super().__init__(**kwargs)
        self._step_fn = step
        self.state_size = [size, size]
        self.output_size = size
        self.built = True

    def call(self, inputs, states, training=None):
        return self._step_fn(inputs, states)


@keras.saving.register_keras_serializable(package="keras_labelemb")
class RegionLSTM(keras.layers.Layer):
    """One-hot LSTM over token ids, optionally bidirectional, pooled over k regions.

    There is no word-embedding layer: the input projection `W x_t` of a one-hot
    `x_t` is a column of `W`, so the layer looks up all gate pre-activations of
    a word at once in a `(V, n_gates * q)` table and runs only the recurrence
    `U h_{t-1}` step by step (one `keras.layers.RNN` loop for all directions:
    `lax.scan` under JAX, a bounded while loop that XLA compiles under
    TensorFlow). With `gates="no_io"` (the
    paper's cell without input and output gates, eqs. 2-3):

        f_t = sigmoid(W_f[x_t] + S_f s_t + U_f h_{t-1} + b_f)
        u_t = tanh(W_u[x_t] + S_u s_t + U_u h_{t-1} + b_u)
        c_t = u_t + f_t * c_{t-1},      h_t = tanh(c_t)

    and with `gates="full"` the usual LSTM (`i, f, o` sigmoid gates,
    `c_t = i_t * u_t + f_t * c_{t-1}`, `h_t = o_t * tanh(c_t)`). `W[x_t]` is the
    table row of word `x_t`; `s_t` the optional side inputs (below). The
    backward direction runs the same cell from the last word to the first with
    its own weights; `"bidirectional"` concatenates `[h_fwd_t, h_bwd_t]` for
    each time step `t` (time-aligned). Padding steps (id 0, or mask False)
    leave `h` and `c` unchanged and output zeros, so padding before, inside or
    after a document changes nothing.

    The per-step outputs are then pooled over the whole document with
    `RegionPooling` (`k` equal regions, max or average, concatenated), or
    returned as a sequence with `pooling=None`.

    Chopping (`chop_size`): at training time each document is cut into
    segments of `chop_size` words that the recurrence processes in parallel as
    separate sequences (a batch of `B * ceil(T / chop_size)` sequences of
    `chop_size + chop_overlap` steps); their outputs are put back in place and
    pooling still spans the whole document. `chop_overlap` extra words before
    each segment (after it, for the backward direction) warm up the state and
    their outputs are dropped. At inference documents are not chopped unless
    `chop_at_inference=True`. Shapes stay fixed (T is padded up to a multiple
    of `chop_size` with padding ids), so chopping compiles under XLA. With
    `chop_size >= T` the chopped layer computes exactly the unchopped one.

    Side inputs (section 3.2): extra per-time-step vectors `s_t`, e.g. the
    outputs of LSTM tv-embeddings trained on unlabeled text, projected by
    `S` (`side_kernel`, trainable) into every gate pre-activation. They come from
    `side_encoders`, layers called on the same token ids (e.g. the
    `RegionLSTM(pooling=None)` encoders of `keras_labelemb.training.tv_embedding.TvEmbedding`),
    frozen unless `train_side_encoders=True`; and/or from the call argument
    `side_inputs` (a `(B, T, side_input_dim)` tensor or a list of them whose
    sizes sum to `side_input_dim`).

    Args:
        units: `q`, LSTM units per direction.
        vocabulary_size: `V`, number of token ids (0 = padding). Ids must be in
            `[0, V)`: an eager call raises a `ValueError` for others; inside a
            compiled function (where values are unknown) they are read as
            padding.
        gates: `"no_io"` (default; no input/output gates, eqs. 2-3) or `"full"`.
        direction: `"forward"`, `"backward"` or `"bidirectional"` (default).
        pooling: `"max"` (default), `"average"`, or None to return the
            per-step outputs `(B, T, D*q)` with the input mask.
        num_regions: `k` regions for pooling. Default 1.
        chop_size: segment length for training-time chopping; None (default)
            for no chopping.
        chop_overlap: extra context words per segment. Default 0.
        chop_at_inference: also chop when not training. Default False.
        side_encoders: optional list of layers mapping the token ids `(B, T)`
            to `(B, T, d_j)`.
        train_side_encoders: if False (default) the side encoders are frozen
            (`trainable=False`, outputs behind `stop_gradient`).
        side_input_dim: total size of the call-time `side_inputs`; None
            (default) when there are none.
        kernel_initializer: initializer of the per-word tables (the input
            weights `W`). Default `RandomNormal(stddev=0.01)` as in the paper.
        recurrent_initializer: initializer of `U`. Default
            `RandomNormal(stddev=0.01)` as in the paper. Not Keras' usual
            `"orthogonal"`: without input and output gates the cell adds
            `u_t` to `f_t c_{t-1}` at full strength, and an orthogonal `U`
            saturates `h` at +-1 whatever the words, and the first epochs
            learn almost nothing (seen on 20 Newsgroups).
        bias_initializer: initializer of `b`. Default `"zeros"`.
        unit_forget_bias: add 1 to the forget-gate bias at initialisation.
            Default True.
        side_kernel_initializer: initializer of `S`. Default `"glorot_uniform"`.

    Call arguments:
        inputs: int token ids `(B, T)`, 0 = padding.
        mask: optional boolean `(B, T)`, merged (AND) with `inputs != 0`.
        training: chop when True (and `chop_size` is set).
        side_inputs: optional per-step side inputs (see above).

    Output: `(B, num_regions * D * q)` pooled, or `(B, T, D * q)` when
    `pooling=None`; `D` = 2 when bidirectional, else 1.

    Example:

    >>> import numpy as np
    >>> ids = np.array([[5, 3, 9, 2, 0, 0], [0, 0, 0, 0, 0, 0]])
    >>> layer = RegionLSTM(units=4, vocabulary_size=10, num_regions=2, chop_size=3)
    >>> out = layer(ids)
    >>> tuple(out.shape)
    (2, 16)
    >>> float(np.abs(out[1]).sum())  # an all-padding document pools to zeros
    0.0
    >>> tuple(RegionLSTM(4, 10, pooling=None, direction="forward")(ids).shape)
    (2, 6, 4)

    In a model (the oh-2LSTMp of the paper, see also
    `keras_labelemb.models.oh_2lstmp`):

    >>> model = keras.Sequential([
    ...     keras.Input((6,), dtype="int32"),
    ...     RegionLSTM(units=4, vocabulary_size=10, num_regions=2),
    ...     keras.layers.Dropout(0.5),
    ...     keras.layers.Dense(3),
    ... ])
    >>> tuple(model(ids).shape)
    (2, 3)

    Reference: Johnson & Zhang, "Supervised and semi-supervised text
    categorization using LSTM for region embeddings", ICML 2016, sections 2-3.
    """

    def __init__(
        self,
        units,
        vocabulary_size,
        gates="no_io",
        direction="bidirectional",
        pooling="max",
        num_regions=1,
        chop_size=None,
        chop_overlap=0,
        chop_at_inference=False,
        side_encoders=None,
        train_side_encoders=False,
        side_input_dim=None,
        kernel_initializer=None,
        recurrent_initializer=None,
        bias_initializer="zeros",
        unit_forget_bias=True,
        side_kernel_initializer="glorot_uniform",
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.units = check_positive_int("units", units)
        self.vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
        if self.vocabulary_size < 2:
            raise ValueError(
                f"`vocabulary_size` must be at least 2 (id 0 is padding). Received: vocabulary_size={vocabulary_size!r}"
            )
        self.gates = check_choice("gates", gates, GATES)
        self.direction = check_choice("direction", direction, DIRECTIONS)
        if pooling is not None:
            check_choice("pooling", pooling, POOLING_MODES)
        self.pooling = pooling
        self.num_regions = check_positive_int("num_regions", num_regions)
        self.chop_size = check_positive_int("chop_size", chop_size, allow_none=True)
        self.chop_overlap = check_non_negative_int("chop_overlap", chop_overlap)
        if self.chop_overlap and self.chop_size is None:
            raise ValueError(
                f"`chop_overlap` needs `chop_size`. Received: chop_overlap={chop_overlap!r}, chop_size=None"
            )
        self.chop_at_inference = bool(chop_at_inference)
        if self.chop_at_inference and self.chop_size is None:
            raise ValueError("`chop_at_inference=True` needs `chop_size`. Received: chop_size=None")
        if side_encoders is None:
            side_encoders = []
        if isinstance(side_encoders, keras.layers.Layer) or not isinstance(side_encoders, (list, tuple)):
            side_encoders = [side_encoders]
        for index, encoder in enumerate(side_encoders):
            if not isinstance(encoder, keras.layers.Layer):
                raise ValueError(
                    "`side_encoders` must be a list of Keras layers mapping token ids to (B, T, d) vectors. "
                    f"Received: side_encoders[{index}]={encoder!r}"
                )
        self.side_encoders = list(side_encoders)
        self.train_side_encoders = bool(train_side_encoders)
        self.side_input_dim = check_positive_int("side_input_dim", side_input_dim, allow_none=True)
        if kernel_initializer is None:
            kernel_initializer = keras.initializers.RandomNormal(stddev=0.01)
        if recurrent_initializer is None:
            recurrent_initializer = keras.initializers.RandomNormal(stddev=0.01)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.side_kernel_initializer = keras.initializers.get(side_kernel_initializer)
        self.supports_masking = True

    # ------------------------------------------------------------------ shapes
    @property
    def num_gates(self):
        return 2 if self.gates == "no_io" else 4

    @property
    def directions(self):
        return ("forward", "backward") if self.direction == "bidirectional" else (self.direction,)

    @property
    def output_size(self):
        """Per-step output size `D * q`."""
        return len(self.directions) * self.units

    def build(self, input_shape):
        if len(input_shape) != 2:
            raise ValueError(
                "`inputs` must be token ids of shape (B, T) (one-hot input: no embedding layer before "
                f"RegionLSTM). Received: inputs with shape {tuple(input_shape)}"
            )
        q, width = self.units, self.num_gates * self.units
        self.kernels = {}
        for name in self.directions:
            self.kernels[name] = self.add_weight(
                shape=(self.vocabulary_size, width), initializer=self.kernel_initializer, name=f"{name}_kernel"
            )
        num_directions = len(self.directions)
        self.recurrent_kernel = self.add_weight(
            shape=(num_directions, q, width), initializer=self._recurrent_init, name="recurrent_kernel"
        )
        self.bias = self.add_weight(shape=(num_directions, width), initializer=self._bias_init, name="bias")
        side_dim = self.side_input_dim or 0
        for encoder in self.side_encoders:
            if not encoder.built:
                encoder.build(input_shape)
            encoder.trainable = self.train_side_encoders
            shape = encoder.compute_output_shape(tuple(input_shape))
            if len(shape) != 3 or shape[-1] is None:
                raise ValueError(
                    "Every side encoder must map token ids (B, T) to (B, T, d). "
                    f"Received: side encoder {encoder.name!r} with output shape {tuple(shape)}"
                )
            side_dim += shape[-1]
        self.total_side_dim = side_dim
        self.side_kernel = None
        if side_dim:
            self.side_kernel = self.add_weight(
                shape=(side_dim, num_directions * width),
                initializer=self.side_kernel_initializer,
                name="side_kernel",
            )
        # keras.layers.RNN runs the loop: an XLA-compilable while loop on TensorFlow (a scan
        # with a bounded trip count, which `ops.scan` lacks there), `lax.scan` on JAX.
        self.recurrence = keras.layers.RNN(
            _StepCell(self._step, self.output_size, dtype=self.dtype_policy, name="cell"),
            return_sequences=True,
            dtype=self.dtype_policy,
            name="recurrence",
        )
        # Its input: every direction's gate pre-activations and mask, (S, L, D * (width + 1)).
        self.recurrence.build((None, None, num_directions * (width + 1)))
        self.region_pooling = None
        if self.pooling is not None:
            self.region_pooling = RegionPooling(
                self.num_regions, self.pooling, dtype=self.dtype_policy, name="region_pooling"
            )
            self.region_pooling.build((input_shape[0], input_shape[1], self.output_size))

    def _recurrent_init(self, shape, dtype=None):
        init = self.recurrent_initializer
        return ops.stack([init((shape[1], shape[2]), dtype=dtype) for _ in range(shape[0])])

    def _bias_init(self, shape, dtype=None):
        bias = self.bias_initializer(shape, dtype=dtype)
        if not self.unit_forget_bias:
            return bias
        q = self.units
        forget = 0 if self.gates == "no_io" else 1  # gate order: [f, u] or [i, f, o, u]
        width = shape[-1]
        ones = ops.concatenate([ops.zeros((forget * q,)), ops.ones((q,)), ops.zeros((width - (forget + 1) * q,))])
        return bias + ops.cast(ops.expand_dims(ones, 0), bias.dtype)

    # ------------------------------------------------------------------ side inputs
    def _side_features(self, ids, mask, side_inputs, training):
        parts = []
        for encoder in self.side_encoders:
            kwargs = {"training": training}
            if encoder.supports_masking:  # Keras' convention: a layer that takes `mask` in call says so
                kwargs["mask"] = mask
            features = ops.cast(encoder(ids, **kwargs), self.compute_dtype)
            if not self.train_side_encoders:
                features = ops.stop_gradient(features)
            parts.append(features)
        if side_inputs is not None:
            if self.side_input_dim is None:
                raise ValueError(
                    "`side_inputs` were given but the layer was built without `side_input_dim`. "
                    "Pass side_input_dim=<their total size> to the constructor."
                )
            given = list(side_inputs) if isinstance(side_inputs, (list, tuple)) else [side_inputs]
            size = sum(int(s.shape[-1]) for s in given)
            if size != self.side_input_dim:
                raise ValueError(
                    f"`side_inputs` must have {self.side_input_dim} features in all (side_input_dim). "
                    f"Received: side_inputs with shapes {[tuple(s.shape) for s in given]}"
                )
            parts.extend(ops.cast(s, self.compute_dtype) for s in given)
        elif self.side_input_dim is not None:
            raise ValueError(
                f"This layer expects `side_inputs` with {self.side_input_dim} features "
                "(side_input_dim); none were given."
            )
        if not parts:
            return None
        features = parts[0] if len(parts) == 1 else ops.concatenate(parts, axis=-1)
        return ops.matmul(features, ops.cast(self.side_kernel, self.compute_dtype))

    # ------------------------------------------------------------------ recurrence
    def _windows(self, length, chop, overlap, backward):
        """Positions `(n, chop + overlap)` each segment reads, in the order the cell reads them."""
        count = (length + chop - 1) // chop
        starts = ops.expand_dims(ops.arange(count, dtype="int32") * chop, 1)
        steps = ops.expand_dims(ops.arange(chop + overlap, dtype="int32"), 0)
        if backward:
            return starts + (chop + overlap - 1) - steps
        return starts - overlap + steps

    def _step(self, inputs, states):
        """One time step of every direction.

        `inputs` is `[x_fwd, x_bwd, m_fwd, m_bwd]` (each direction's gate pre-activations
        `W[x_t] + S s_t + b`, then its 0/1 mask); `states` is `[h, c]`, directions concatenated.
        """
        q, width = self.units, self.num_gates * self.units
        num_directions = len(self.directions)
        recurrent_kernel = ops.cast(self.recurrent_kernel, self.compute_dtype)
        outputs, hs, cs = [], [], []
        for d in range(num_directions):
            h = states[0][:, d * q : (d + 1) * q] if num_directions > 1 else states[0]
            c = states[1][:, d * q : (d + 1) * q] if num_directions > 1 else states[1]
            z = inputs[:, d * width : (d + 1) * width] + ops.matmul(h, recurrent_kernel[d])
            if self.gates == "no_io":  # eqs. 2-3
                f = ops.sigmoid(z[:, :q])
                u = ops.tanh(z[:, q:])
                c_new = u + f * c
                h_new = ops.tanh(c_new)
            else:
                i = ops.sigmoid(z[:, :q])
                f = ops.sigmoid(z[:, q : 2 * q])
                o = ops.sigmoid(z[:, 2 * q : 3 * q])
                u = ops.tanh(z[:, 3 * q :])
                c_new = i * u + f * c
                h_new = o * ops.tanh(c_new)
            # Padding steps carry the state through unchanged and output zeros.
            m = inputs[:, num_directions * width + d : num_directions * width + d + 1] > 0
            cs.append(ops.where(m, c_new, c))
            hs.append(ops.where(m, h_new, h))
            outputs.append(ops.where(m, h_new, ops.zeros_like(h_new)))
        if num_directions == 1:
            return outputs[0], [hs[0], cs[0]]
        return ops.concatenate(outputs, -1), [ops.concatenate(hs, -1), ops.concatenate(cs, -1)]

    def _run(self, ids, mask, side, chopped):
        static_length = ids.shape[1]
        length = static_length if static_length is not None else ops.shape(ids)[1]
        if chopped:
            chop, overlap = self.chop_size, self.chop_overlap
        else:
            chop, overlap = length, 0
        steps = chop + overlap
        width = self.num_gates * self.units
        xs, ms = [], []
        for d, name in enumerate(self.directions):
            positions = self._windows(length, chop, overlap, backward=name == "backward")  # (n, L)
            inside = ops.logical_and(positions >= 0, positions < length)
            clipped = ops.clip(positions, 0, length - 1)
            seg_ids = ops.reshape(ops.take(ids, clipped, axis=1), (-1, steps))  # (S, L), S = B * n
            seg_mask = ops.logical_and(ops.take(mask, clipped, axis=1), inside)  # (B, n, L)
            x = ops.cast(ops.take(self.kernels[name], seg_ids, axis=0), self.compute_dtype)  # (S, L, width)
            if side is not None:
                side_d = ops.take(side[..., d * width : (d + 1) * width], clipped, axis=1)  # (B, n, L, width)
                x = x + ops.reshape(side_d, (-1, steps, width))
            xs.append(x + ops.cast(self.bias[d], self.compute_dtype))
            ms.append(ops.cast(ops.reshape(seg_mask, (-1, steps, 1)), self.compute_dtype))
        # One loop runs every direction, each with its own positions, mask and weights.
        outputs = self.recurrence(ops.concatenate(xs + ms, axis=-1))  # (S, L, D * q)
        outputs = outputs[:, overlap:]  # (S, chop, D * q)
        batch = ops.shape(ids)[0]
        per_direction = []
        for d, name in enumerate(self.directions):
            out = outputs[..., d * self.units : (d + 1) * self.units] if len(self.directions) > 1 else outputs
            if name == "backward":
                out = ops.flip(out, axis=1)
            out = ops.reshape(out, (batch, -1, self.units))  # (B, n * chop, q)
            per_direction.append(out[:, :length] if chopped else out)
        return per_direction[0] if len(per_direction) == 1 else ops.concatenate(per_direction, axis=-1)

    def call(self, inputs, mask=None, training=None, side_inputs=None):
        check_token_ids(inputs, self.vocabulary_size, name="inputs")
        # Inside a compiled function ids are not known: out-of-vocabulary ids are read as padding
        # (masked) instead of another word's row (TensorFlow clips) or NaN (JAX).
        ids = ops.cast(inputs, "int32")
        ids = ops.where(ops.logical_and(ops.greater_equal(ids, 0), ops.less(ids, self.vocabulary_size)), ids, 0)
        valid = ops.not_equal(ids, 0)
        mask = valid if mask is None else ops.logical_and(valid, ops.cast(mask, "bool"))
        side = self._side_features(ids, mask, side_inputs, training)
        chopped = self.chop_size is not None and (bool(training) or self.chop_at_inference)
        sequence = self._run(ids, mask, side, chopped)
        if self.region_pooling is None:
            return sequence
        return self.region_pooling(sequence, mask=mask)

    def compute_mask(self, inputs, mask=None):
        if self.pooling is not None:
            return None
        ids = ops.cast(inputs, "int32")
        valid = ops.logical_and(ops.greater(ids, 0), ops.less(ids, self.vocabulary_size))
        return valid if mask is None else ops.logical_and(valid, ops.cast(mask, "bool"))

    def compute_output_shape(self, inputs_shape, side_inputs_shape=None):
        if self.pooling is None:
            return (inputs_shape[0], inputs_shape[1], self.output_size)
        return (inputs_shape[0], self.num_regions * self.output_size)

    def get_config(self):
        config = super().get_config()
        config.update(
            units=self.units,
            vocabulary_size=self.vocabulary_size,
            gates=self.gates,
            direction=self.direction,
            pooling=self.pooling,
            num_regions=self.num_regions,
            chop_size=self.chop_size,
            chop_overlap=self.chop_overlap,
            chop_at_inference=self.chop_at_inference,
            side_encoders=[keras.saving.serialize_keras_object(e) for e in self.side_encoders],
            train_side_encoders=self.train_side_encoders,
            side_input_dim=self.side_input_dim,
            kernel_initializer=keras.initializers.serialize(self.kernel_initializer),
            recurrent_initializer=keras.initializers.serialize(self.recurrent_initializer),
            bias_initializer=keras.initializers.serialize(self.bias_initializer),
            unit_forget_bias=self.unit_forget_bias,
            side_kernel_initializer=keras.initializers.serialize(self.side_kernel_initializer),
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["side_encoders"] = [keras.saving.deserialize_keras_object(e) for e in config.get("side_encoders") or []]
        return cls(**config)
