"""The regularised BiLSTM + max-pooling document encoder of LSTM_reg (Adhikari et al., NAACL 2019)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool, check_choice, check_positive_int, check_rate
from keras_labelemb.layers.bidirectional import bidirectional
from keras_labelemb.layers.hierarchical_attention import encoder_output_size
from keras_labelemb.layers.masks import zero_masked
from keras_labelemb.layers.region_pooling import RegionPooling

RNN_ENCODERS = ("lstm", "bilstm", "gru", "bigru")


@keras.saving.register_keras_serializable(package="keras_labelemb")
class MaxPoolEncoder(keras.layers.Layer):
    """Encodes a document of embedded words into one vector: a (bi)directional RNN, then max over time.

    The document encoder of LSTM_reg: one recurrent layer over the words
    `w_1..w_T` (`(B, T, d)`), its states pooled component-wise by their
    maximum over the document's words:

        w'_t = word_dropout(w_t)                     whole word vectors dropped (training)
        h_t = [LSTM_fwd(w')_t ; LSTM_bwd(w')_t]     per-direction `units`, recurrent dropout
        output = max_{t unmasked} h_t               (B, output_size)

    Padding is taken from the mask (e.g. an `Embedding(mask_zero=True)` before
    it): the RNN skips masked steps, padding never wins the max, and an
    all-padding document encodes to zeros (never -inf or NaN).

    Regularisation, as Keras provides it:

    - `recurrent_dropout` is the Keras LSTM/GRU `recurrent_dropout`: variational
      dropout on the recurrent state `h_{t-1}` (one mask per sequence, Gal &
      Ghahramani 2016). LSTM_reg uses weight dropping (DropConnect on the
      hidden-to-hidden weight matrices, AWD-LSTM, Merity et al. 2018); Keras
      has no weight-dropped LSTM, and dropping the recurrent state is the
      closest Keras equivalent, not the same operation.
    - `word_dropout` zeroes whole word vectors at training time: each position's
      vector is dropped with probability `word_dropout` and the kept ones scaled
      by `1 / (1 - word_dropout)` (`Dropout` with noise shape `(B, T, 1)`).
      Merity et al.'s embedding dropout drops word *types* (every occurrence of
      a word in the batch at once); this drops *positions* independently.

    Args:
        encoder: `"lstm"`, `"bilstm"` (default, LSTM_reg's), `"gru"` or `"bigru"`.
        units: RNN units per direction. Default 128.
        recurrent_dropout: rate of the RNN's `recurrent_dropout`. Default 0.
        word_dropout: rate at which whole word positions are dropped. Default 0.
        return_token_states: the default of the call argument of the same name
            (for a builder that feeds a head reading the tokens). Default False.

    Call arguments:
        inputs: embedded words `(B, T, d)`.
        mask: optional boolean `(B, T)`, True at words (default: the
            upstream `Embedding(mask_zero=True)`'s mask; none: every position).
        training: turns the two dropouts on.
        return_token_states: if True, return the document structure a label
            head reads (`keras_labelemb.layers.label_head.DOCUMENT_KEYS`):
            `{"pooled": (B, output_size), "token_states": (B, T, output_size)}`,
            the RNN's states, zero at masked words. Default: the constructor's.

    Output: `(B, output_size)`, `output_size = 2 * units` for `"bilstm"` and
    `"bigru"`, `units` otherwise.

    Example:

    >>> import numpy as np, keras
    >>> ids = np.array([[4, 7, 2, 0, 0], [0, 0, 0, 0, 0]])  # a 3-word and an empty document
    >>> model = keras.Sequential([
    ...     keras.layers.Embedding(10, 8, mask_zero=True),
    ...     MaxPoolEncoder(units=4, recurrent_dropout=0.2, word_dropout=0.1),
    ... ])
    >>> encoded = keras.ops.convert_to_numpy(model(ids))
    >>> encoded.shape
    (2, 8)
    >>> float(np.abs(encoded[1]).max())  # the empty document encodes to zeros
    0.0

    Reference: Adhikari, Ram, Tang & Lin, "Rethinking complex neural network
    architectures for document classification", NAACL 2019 (LSTM_reg);
    Merity, Keskar & Socher, "Regularizing and optimizing LSTM language models", ICLR 2018.
    """

    def __init__(
        self,
        encoder="bilstm",
        units=128,
        recurrent_dropout=0.0,
        word_dropout=0.0,
        return_token_states=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.encoder = check_choice("encoder", encoder, RNN_ENCODERS)
        self.units = check_positive_int("units", units)
        self.recurrent_dropout = check_rate("recurrent_dropout", recurrent_dropout)
        self.word_dropout = check_rate("word_dropout", word_dropout)
        self.return_token_states = check_bool("return_token_states", return_token_states)
        self.supports_masking = True

    @property
    def output_size(self):
        return encoder_output_size(self.encoder, self.units)

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(
                "`inputs` must be embedded words of shape (B, T, d) with a known d; token ids go through a "
                f"`keras.layers.Embedding(mask_zero=True)` first. Received: inputs with shape {tuple(input_shape)}"
            )
        rnn_class = keras.layers.GRU if self.encoder.endswith("gru") else keras.layers.LSTM
        rnn_kwargs = {"return_sequences": True, "recurrent_dropout": self.recurrent_dropout}
        if self.encoder.startswith("bi"):
            self.rnn = bidirectional(rnn_class, self.units, self.dtype_policy, "rnn", **rnn_kwargs)
        else:
            self.rnn = rnn_class(self.units, dtype=self.dtype_policy, name="rnn", **rnn_kwargs)
        self.rnn.build((None,) + tuple(input_shape[1:]))
        # Max over the document's words: RegionPooling with one region (padding never wins, no word gives 0).
        self.pooling = RegionPooling(num_regions=1, mode="max", dtype=self.dtype_policy, name="max_pooling")
        self.pooling.build((None, None, self.rnn.compute_output_shape((None,) + tuple(input_shape[1:]))[-1]))
        # Noise shape (B, T, 1): one draw per word position, shared by its whole vector.
        self.word_dropout_layer = keras.layers.Dropout(
            self.word_dropout, noise_shape=(None, None, 1), dtype=self.dtype_policy, name="word_dropout"
        )

    def call(self, inputs, mask=None, training=None, return_token_states=None):
        return_token_states = self._return_token_states(return_token_states)
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:-1], dtype="bool")
        mask = ops.cast(mask, "bool")
        # Padding is dropped by selection before the RNN sees it: a NaN there must reach neither
        # the outputs nor (through the RNN's weights) the gradients.
        words = self.word_dropout_layer(zero_masked(inputs, mask), training=training)
        states = zero_masked(self.rnn(words, mask=mask, training=training), mask)
        pooled = self.pooling(states, mask=mask)
        if return_token_states:
            return {"pooled": pooled, "token_states": states}
        return pooled

    def _return_token_states(self, return_token_states):
        if return_token_states is None:
            return self.return_token_states
        return check_bool("return_token_states", return_token_states)

    def compute_mask(self, inputs, mask=None):
        return None

    def _output_shapes(self, input_shape, return_token_states):
        pooled = (input_shape[0], self.output_size)
        if return_token_states:
            return {"pooled": pooled, "token_states": tuple(input_shape[:2]) + (self.output_size,)}
        return pooled

    def compute_output_shape(self, input_shape):
        return self._output_shapes(tuple(input_shape), self.return_token_states)

    def compute_output_spec(self, inputs, mask=None, training=None, return_token_states=None):
        shapes = self._output_shapes(tuple(inputs.shape), self._return_token_states(return_token_states))
        if isinstance(shapes, dict):
            return {key: keras.KerasTensor(shape, dtype=self.compute_dtype) for key, shape in shapes.items()}
        return keras.KerasTensor(shapes, dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(
            encoder=self.encoder,
            units=self.units,
            recurrent_dropout=self.recurrent_dropout,
            word_dropout=self.word_dropout,
            return_token_states=self.return_token_states,
        )
        return config
