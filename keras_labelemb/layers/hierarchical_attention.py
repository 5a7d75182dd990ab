"""Hierarchical (HAN) and flat (WAN) attention document encoders (GILE section 2.1)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int, check_rate
from keras_labelemb.layers.attention_pooling import AttentionPooling
from keras_labelemb.layers.bidirectional import bidirectional
from keras_labelemb.layers.masks import zero_masked

ENCODERS = ("dense", "gru", "bigru", "lstm", "bilstm")


def make_sequence_encoder(kind, units, activation, dtype, name):
    """One level's encoder g: a per-step Dense or a (bi)directional RNN over the steps."""
    if kind == "dense":
        return keras.layers.Dense(units, activation=activation, dtype=dtype, name=name)
    cell = keras.layers.GRU if kind.endswith("gru") else keras.layers.LSTM
    if kind.startswith("bi"):
        return bidirectional(cell, units, dtype, name, return_sequences=True)
    return cell(units, return_sequences=True, dtype=dtype, name=f"{name}_rnn")


SHARE_MODES = ("encoders", "attention", "both")


def encoder_output_size(kind, units):
    return 2 * units if kind.startswith("bi") else units


@keras.saving.register_keras_serializable(package="keras_labelemb")
class HierarchicalAttention(keras.layers.Layer):
    """Encodes a document of embedded words into one vector with attention.

    Hierarchical mode (HAN, input `(B, K, T, d)`: K sentences of T words):

        h_w^(it) = g_w(w_it)                       word encoder, eq. 1
        s_i = sum_t alpha_w^(it) h_w^(it)         word attention, eq. 2
        h_s^(i) = g_s(s_i)                          sentence encoder
        h = sum_i alpha_s^(i) h_s^(i)              sentence attention

    Flat mode (WAN, `flat=True`, input `(B, T, d)`): one level, `h = sum_t alpha_t g_w(w_t)`.

    Each encoder `g` is `"dense"` (a per-position Dense layer, GILE's DENSE),
    `"gru"`, `"bigru"`, `"lstm"` or `"bilstm"`; each attention is an
    `AttentionPooling`. Padding is taken from the mask (e.g. an
    `Embedding(mask_zero=True)` before it): padded words and all-padding
    sentences get zero attention, and an all-padding document encodes to a finite
    vector (zeros for dense encoders with `use_bias=False`-free activations;
    always finite).

    Args:
        word_encoder: encoder at word level. Default `"bigru"`.
        word_units: units of the word encoder (per direction for bi-RNNs). Default 50.
        sentence_encoder: encoder at sentence level. Default `"bigru"`.
        sentence_units: units of the sentence encoder. Default 50.
        attention_units: size of the attention projections; default the encoder size.
        flat: if True, a single word level over `(B, T, d)` (WAN).
        dense_activation: activation of dense encoders. Default `"relu"`.
        dropout: dropout rate on the pooled vectors of each level (sentence
            vectors and the document vector). Default 0.
        return_attention_scores: the default of the call argument of the
            same name (for a functional model that should output the scores).
        return_token_states: the default of the call argument of the same
            name (for a builder that feeds a head reading the tokens).
        num_languages: languages (or tasks) this one layer encodes, selected by
            the `language` call argument: the multilingual HAN of GILE section
            3.3 (Pappas & Popescu-Belis 2017). Default 1.
        share: with `num_languages > 1`, what all languages share: `"encoders"`
            (MHAN-Enc: one word and one sentence encoder, attention per
            language), `"attention"` (MHAN-Att) or `"both"` (MHAN-Both).
            Default `"both"`.

    Call arguments:
        inputs, mask, training: as usual.
        language: a Python int in `[0, num_languages)` when `num_languages > 1`.
        return_attention_scores: if True, also return the attention weights:
            `(h, word_scores (B, K, T), sentence_scores (B, K))`, or
            `(h, word_scores (B, T))` when flat, e.g. to plot them (as
            `keras.layers.MultiHeadAttention`). Default: the constructor's.
        return_token_states: if True, return the document structure a label
            head reads (`keras_labelemb.layers.label_head.DOCUMENT_KEYS`):
            `{"pooled": h, "token_states": (B, K, T, d_w)}` (`(B, T, d_w)`
            when flat), the word encoder's states, zero at masked words.
            Not together with `return_attention_scores`. Default: the
            constructor's.

    Output: `(B, d_h)`, `d_h` the sentence encoder's output size (word encoder's when flat).

    Example:

    >>> import numpy as np, keras
    >>> ids = np.random.randint(1, 100, size=(2, 3, 6))
    >>> ids[1, 1:] = 0  # the second document has one sentence
    >>> model = keras.Sequential([
    ...     keras.layers.Embedding(100, 16, mask_zero=True),
    ...     HierarchicalAttention(word_encoder="dense", word_units=8,
    ...                           sentence_encoder="dense", sentence_units=8),
    ... ])
    >>> tuple(model(ids).shape)
    (2, 8)

    Two languages sharing the encoders, each with its own attention (MHAN-Enc);
    call the one layer once per language:

    >>> mhan = HierarchicalAttention("dense", 8, "dense", 8, num_languages=2, share="encoders")
    >>> x = np.random.normal(size=(2, 3, 6, 16)).astype("float32")
    >>> english, german = mhan(x, language=0), mhan(x, language=1)
    >>> len(mhan.trainable_weights)  # 2 encoders x 2 + 2 languages x 2 attentions x 3
    16

    Reference: Pappas & Henderson, "GILE", TACL 2019, section 2.1; Yang et al., NAACL 2016.
    """

    def __init__(
        self,
        word_encoder="bigru",
        word_units=50,
        sentence_encoder="bigru",
        sentence_units=50,
        attention_units=None,
        flat=False,
        dense_activation="relu",
        dropout=0.0,
        return_attention_scores=False,
        num_languages=1,
        share="both",
        return_token_states=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.word_encoder = check_choice("word_encoder", word_encoder, ENCODERS)
        self.sentence_encoder = check_choice("sentence_encoder", sentence_encoder, ENCODERS)
        self.word_units = check_positive_int("word_units", word_units)
        self.sentence_units = check_positive_int("sentence_units", sentence_units)
        self.attention_units = check_positive_int("attention_units", attention_units, allow_none=True)
        self.flat = bool(flat)
        self.dense_activation = keras.activations.get(dense_activation)
        self.dropout = check_rate("dropout", dropout)
        self.return_attention_scores = bool(return_attention_scores)
        self.return_token_states = bool(return_token_states)
        self._check_outputs(self.return_attention_scores, self.return_token_states)
        self.num_languages = check_positive_int("num_languages", num_languages)
        self.share = check_choice("share", share, SHARE_MODES)
        self.supports_masking = True

    @property
    def output_size(self):
        if self.flat:
            return encoder_output_size(self.word_encoder, self.word_units)
        return encoder_output_size(self.sentence_encoder, self.sentence_units)

    def _make_level(self, kind, units, prefix, input_shape):
        """One encoder and one attention, or one per language where they are not shared."""
        size = encoder_output_size(kind, units)
        encoders, attentions = [], []
        for language in range(self.num_languages):
            suffix = "" if language == 0 else f"_{language}"
            if language == 0 or self.share not in ("encoders", "both"):
                encoder = make_sequence_encoder(
                    kind, units, self.dense_activation, self.dtype_policy, f"{prefix}_encoder{suffix}"
                )
                encoder.build(input_shape)
                encoders.append(encoder)
            if language == 0 or self.share not in ("attention", "both"):
                attention = AttentionPooling(
                    self.attention_units,
                    return_attention_scores=True,
                    dtype=self.dtype_policy,
                    name=f"{prefix}_attention{suffix}",
                )
                attention.build(tuple(input_shape[:-1]) + (size,))
                attentions.append(attention)
        return encoders, attentions

    def build(self, input_shape):
        expected_rank = 3 if self.flat else 4
        if len(input_shape) != expected_rank or input_shape[-1] is None:
            layout = "(B, T, d)" if self.flat else "(B, K, T, d)"
            raise ValueError(
                f"`inputs` must be embedded words of shape {layout} (flat={self.flat}); token ids "
                "go through a `keras.layers.Embedding(mask_zero=True)` first. "
                f"Received: inputs with shape {tuple(input_shape)}"
            )
        d = input_shape[-1]
        # Language 0's sublayers keep the single-language attribute names (and weight paths);
        # the other languages' own sublayers live in lists beside them.
        encoders, attentions = self._make_level(self.word_encoder, self.word_units, "word", (None, input_shape[-2], d))
        self.word_encoder_layer, self.word_attention = encoders[0], attentions[0]
        self.other_word_encoders, self.other_word_attentions = encoders[1:], attentions[1:]
        if not self.flat:
            word_size = encoder_output_size(self.word_encoder, self.word_units)
            encoders, attentions = self._make_level(
                self.sentence_encoder, self.sentence_units, "sentence", (None, input_shape[1], word_size)
            )
            self.sentence_encoder_layer, self.sentence_attention = encoders[0], attentions[0]
            self.other_sentence_encoders, self.other_sentence_attentions = encoders[1:], attentions[1:]
        self.encoder_dropout = keras.layers.Dropout(self.dropout, dtype=self.dtype_policy)

    def _sublayers(self, level, language):
        """The (encoder, attention) pair `language` uses at `level` ("word" or "sentence")."""
        encoder, attention = getattr(self, f"{level}_encoder_layer"), getattr(self, f"{level}_attention")
        if language:
            others = getattr(self, f"other_{level}_encoders")
            if others:
                encoder = others[language - 1]
            others = getattr(self, f"other_{level}_attentions")
            if others:
                attention = others[language - 1]
        return encoder, attention

    def _check_language(self, language):
        if self.num_languages == 1:
            if language not in (None, 0):
                raise ValueError(f"`language` needs num_languages > 1. Received: language={language!r}")
            return 0
        if isinstance(language, bool) or not isinstance(language, int) or not 0 <= language < self.num_languages:
            raise ValueError(
                f"`language` must be a Python int in [0, {self.num_languages}) (num_languages={self.num_languages}). "
                f"Received: language={language!r}"
            )
        return language

    @staticmethod
    def _check_outputs(return_attention_scores, return_token_states):
        if return_attention_scores and return_token_states:
            raise ValueError(
                "Ask HierarchicalAttention for attention scores or token states, not both. Received: "
                "return_attention_scores=True, return_token_states=True"
            )

    def _outputs(self, return_attention_scores, return_token_states):
        return_attention_scores = (
            self.return_attention_scores if return_attention_scores is None else return_attention_scores
        )
        return_token_states = self.return_token_states if return_token_states is None else return_token_states
        self._check_outputs(return_attention_scores, return_token_states)
        return bool(return_attention_scores), bool(return_token_states)

    def _encode(self, encoder, attention, kind, inputs, mask, training):
        if kind == "dense":
            hidden = encoder(inputs)
        else:
            hidden = encoder(inputs, mask=mask, training=training)
        pooled, scores = attention(hidden, mask=mask)
        # Dropout on the pooled vectors rather than on every word's hidden state: the same
        # regularisation point as HAN implementations, ~T times fewer random numbers (XLA's
        # CPU random number generator made word-level dropout many times slower under jit_compile).
        return self.encoder_dropout(pooled, training=training), scores, hidden

    def call(
        self, inputs, mask=None, training=None, language=None, return_attention_scores=None, return_token_states=None
    ):
        language = self._check_language(language)
        return_attention_scores, return_token_states = self._outputs(return_attention_scores, return_token_states)
        word_encoder, word_attention = self._sublayers("word", language)
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:-1], dtype="bool")
        mask = ops.cast(mask, "bool")
        # Padding words are dropped by selection before any encoder sees them: a NaN there must
        # reach neither the outputs nor (through an encoder's weights) the gradients.
        inputs = zero_masked(inputs, mask)
        if self.flat:
            doc, word_scores, states = self._encode(
                word_encoder, word_attention, self.word_encoder, inputs, mask, training
            )
            if return_token_states:
                return {"pooled": doc, "token_states": zero_masked(states, mask)}
            return (doc, word_scores) if return_attention_scores else doc
        shape = ops.shape(inputs)
        num_sentences, num_words, dim = inputs.shape[1], inputs.shape[2], inputs.shape[3]
        words = ops.reshape(inputs, (-1, num_words, dim))
        word_mask = ops.reshape(mask, (-1, num_words))
        sentences, word_scores, states = self._encode(
            word_encoder, word_attention, self.word_encoder, words, word_mask, training
        )
        sentences = ops.reshape(
            sentences, (shape[0], num_sentences, encoder_output_size(self.word_encoder, self.word_units))
        )
        sentence_mask = ops.any(mask, axis=-1)
        sentence_encoder, sentence_attention = self._sublayers("sentence", language)
        doc, sentence_scores, _ = self._encode(
            sentence_encoder, sentence_attention, self.sentence_encoder, sentences, sentence_mask, training
        )
        if return_token_states:
            states = ops.reshape(zero_masked(states, word_mask), (shape[0], num_sentences, num_words, -1))
            return {"pooled": doc, "token_states": states}
        if return_attention_scores:
            return doc, ops.reshape(word_scores, (shape[0], num_sentences, num_words)), sentence_scores
        return doc

    def compute_mask(self, inputs, mask=None, language=None):
        return None

    def compute_output_spec(
        self, inputs, mask=None, training=None, language=None, return_attention_scores=None, return_token_states=None
    ):
        return_attention_scores, return_token_states = self._outputs(return_attention_scores, return_token_states)
        shapes = self._output_shapes(tuple(inputs.shape), return_attention_scores, return_token_states)
        if return_token_states:
            return {key: keras.KerasTensor(shape, dtype=self.compute_dtype) for key, shape in shapes.items()}
        specs = [keras.KerasTensor(shape, dtype=self.compute_dtype) for shape in shapes]
        return tuple(specs) if return_attention_scores else specs[0]

    def compute_output_shape(self, input_shape):
        shapes = self._output_shapes(tuple(input_shape), self.return_attention_scores, self.return_token_states)
        return shapes if self.return_attention_scores or self.return_token_states else shapes[0]

    def _output_shapes(self, input_shape, return_attention_scores, return_token_states=False):
        doc = (input_shape[0], self.output_size)
        if return_token_states:
            states = tuple(input_shape[:-1]) + (encoder_output_size(self.word_encoder, self.word_units),)
            return {"pooled": doc, "token_states": states}
        if not return_attention_scores:
            return (doc,)
        if self.flat:
            return doc, tuple(input_shape[:2])
        return doc, tuple(input_shape[:3]), tuple(input_shape[:2])

    def get_config(self):
        config = super().get_config()
        config.update(
            word_encoder=self.word_encoder,
            word_units=self.word_units,
            sentence_encoder=self.sentence_encoder,
            sentence_units=self.sentence_units,
            attention_units=self.attention_units,
            flat=self.flat,
            dense_activation=keras.activations.serialize(self.dense_activation),
            dropout=self.dropout,
            return_attention_scores=self.return_attention_scores,
            return_token_states=self.return_token_states,
            num_languages=self.num_languages,
            share=self.share,
        )
        return config
