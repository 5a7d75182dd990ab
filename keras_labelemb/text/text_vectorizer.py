"""`TextVectorizer`: raw strings -> fixed-shape int32 token ids (flat or hierarchical)."""

import os
import warnings

import keras
import numpy as np
import tensorflow as tf

from keras_labelemb.argument_checks import check_bool, check_positive_int
from keras_labelemb.text.split_sentences import split_sentences
from keras_labelemb.text.string_layer import StringLayer
from keras_labelemb.text.tokenize import tokenize
from keras_labelemb.text.vocabulary import (
    RESERVED_TOKENS,
    build_vocabulary,
    load_vocabulary,
    save_vocabulary,
)


def _prepare_vocabulary(vocabulary):
    """Validate a vocabulary and make sure it starts with the reserved tokens."""
    if isinstance(vocabulary, (str, os.PathLike)):
        vocabulary = load_vocabulary(vocabulary)
    if isinstance(vocabulary, (tf.Tensor, np.ndarray)):
        vocabulary = np.asarray(vocabulary).reshape([-1]).tolist()
    try:
        tokens = [t.decode("utf-8") if isinstance(t, bytes) else t for t in vocabulary]
    except TypeError:
        raise ValueError(
            "`vocabulary` must be a list of strings or a path to a vocabulary file. "
            f"Received: vocabulary={vocabulary!r:.200}"
        ) from None
    for index, token in enumerate(tokens):
        if not isinstance(token, str) or token == "":
            raise ValueError(f"`vocabulary` entries must be non-empty strings. Received: vocabulary[{index}]={token!r}")
    if tuple(tokens[:2]) != RESERVED_TOKENS:
        tokens = list(RESERVED_TOKENS) + tokens
    seen = set()
    for index, token in enumerate(tokens):
        if token in seen:
            where = "is reserved (index 0 or 1)" if token in RESERVED_TOKENS else "is repeated"
            raise ValueError(f"`vocabulary` token {token!r} {where}. Received: vocabulary[{index}]={token!r}")
        seen.add(token)
    return tokens


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TextVectorizer(StringLayer):
    """Map raw UTF-8 strings to fixed-shape int32 token ids, in-graph.

    Each document is normalised (`normalize_text`: Unicode `unicode_form`,
    lower-casing, numbers -> `"<num>"`), tokenised (`tokenize`: word runs,
    punctuation dropped), looked up in the vocabulary (`tf.lookup.StaticHashTable`;
    unknown words -> 1) and padded with 0:

    - `flat=True`: `(B,)` strings -> `(B, max_tokens)` ids. Truncation
      keeps the **first** `max_tokens` tokens.
    - `flat=False` (hierarchical): documents are first split into sentences
      (`split_sentences`: `.`/`!`/`?` + whitespace, `。`, line breaks); sentences
      with no tokens are dropped; `(B,)` strings -> `(B, max_sentences,
      max_sentence_length)` ids. Truncation keeps the **first** `max_sentences`
      sentences and the **first** `max_sentence_length` tokens of each.

    Padding id is 0 (also for missing sentences), unknown id is 1. An empty
    string, or a document made only of punctuation / whitespace, gives an
    all-zero row. Input of any shape `S` gives output `S + (max_tokens,)` or
    `S + (max_sentences, max_sentence_length)`; a trailing axis of size 1
    (`keras.Input(shape=(1,), dtype="string")`) is squeezed first.

    The vocabulary is stored in `get_config()`, so `keras.models.load_model`
    restores identical behaviour, and the lookup table is a tracked TensorFlow
    resource, so `tf.saved_model.save` / `model.export()` include it (loading
    such a SavedModel needs `import tensorflow_text`). The layer uses
    TensorFlow ops: inside a Keras model (string inputs) and in SavedModel
    export it needs the TensorFlow backend; in `tf.data` it works under any
    backend. `vectorize()` is the same computation without Keras' `__call__`
    machinery (what `make_dataset` uses).

    Args:
        vocabulary: `None` (call `adapt()` later), a list of tokens, or the path
            of a file written by `save_vocabulary`. If the list does not start
            with `"<pad>", "<unk>"` these are prepended; tokens are matched
            after normalisation, so give them in normalised form.
        flat: True (default) for `(B, max_tokens)` ids (WAN), False for
            `(B, max_sentences, max_sentence_length)` (HAN), as `flat` of
            `HierarchicalAttention` and `document_classifier`.
        max_tokens: tokens per document in flat mode (default 256).
        max_sentences: sentences per document in hierarchical mode (default 15).
        max_sentence_length: tokens per sentence in hierarchical mode
            (default 30).
        lowercase: bool, default `True`.
        unicode_form: `"NFC"`, `"NFD"`, `"NFKC"` (default), `"NFKD"` or `None`.
        replace_numbers: bool, default `True`.
        **kwargs: base `keras.layers.Layer` arguments (`name`, ...).

    Example:

    >>> vec = TextVectorizer(max_tokens=5)
    >>> vec.adapt(["The cat sat.", "The dog sat!"])
    >>> vec.get_vocabulary()
    ['<pad>', '<unk>', 'sat', 'the', 'cat', 'dog']
    >>> vec(tf.constant(["the bird sat", ""])).numpy().tolist()
    [[3, 1, 2, 0, 0], [0, 0, 0, 0, 0]]
    """

    def __init__(
        self,
        vocabulary=None,
        flat=True,
        max_tokens=256,
        max_sentences=15,
        max_sentence_length=30,
        lowercase=True,
        unicode_form="NFKC",
        replace_numbers=True,
        **kwargs,
    ):
        super().__init__(lowercase=lowercase, unicode_form=unicode_form, replace_numbers=replace_numbers, **kwargs)
        self.flat = check_bool("flat", flat)
        self.max_tokens = check_positive_int("max_tokens", max_tokens)
        self.max_sentences = check_positive_int("max_sentences", max_sentences)
        self.max_sentence_length = check_positive_int("max_sentence_length", max_sentence_length)
        self._vocabulary = None  # tuple of str
        self._table = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)
        self.built = True

    # ------------------------------------------------------------------ vocabulary
    def set_vocabulary(self, vocabulary):
        """Replace the vocabulary (list of tokens or a vocabulary file path)."""
        tokens = _prepare_vocabulary(vocabulary)
        self._vocabulary = tuple(tokens)
        initializer = tf.lookup.KeyValueTensorInitializer(
            keys=tf.constant(tokens, dtype=tf.string),
            values=tf.range(len(tokens), dtype=tf.int64),
        )
        # PAD_TOKEN maps to 0 in the table, but the tokenizer never emits it.
        self._table = tf.lookup.StaticHashTable(initializer, default_value=1)

    def adapt(self, data, max_size=None, min_count=1, batch_size=1024, keep=None):
        """Build the vocabulary from documents, tokenised exactly as in `call`.

        Args:
            data: a list / array / string tensor of documents, or a
                `tf.data.Dataset` of strings (scalars or batches, or tuples
                whose first component is strings).
            max_size: `None` or the largest vocabulary size, counting
                `"<pad>"` and `"<unk>"`.
            min_count: keep tokens seen at least this many times.
            batch_size: documents tokenised per TensorFlow call.
            keep: optional texts (label descriptions, say) every word of which
                enters the vocabulary whatever `min_count` and `max_size` say:
                appended after the counted words, in order of appearance. A
                description word dropped by `min_count` would otherwise read
                as `<unk>`, and the label lose its key word.
        """
        vocabulary = build_vocabulary(
            data,
            max_size=max_size,
            min_count=min_count,
            tokenizer=self._tokenize,
            batch_size=batch_size,
        )
        if keep is not None:
            known = set(vocabulary)
            for word in self._words(keep):
                if word not in known:
                    known.add(word)
                    vocabulary.append(word)
        self.set_vocabulary(vocabulary)

    def _words(self, texts):
        """Every token of `texts` (a list of strings), in order, as `call` tokenises them."""
        if isinstance(texts, (str, bytes)):
            raise ValueError(f"Pass a list of texts. Received: {texts!r:.200}")
        tokens = self._tokenize(tf.constant(list(texts), dtype=tf.string)).flat_values.numpy()
        return [token.decode("utf-8") for token in tokens]

    def get_vocabulary(self):
        """The vocabulary as a list of `str`; index 0 `"<pad>"`, index 1 `"<unk>"`."""
        return list(self._vocabulary) if self._vocabulary is not None else []

    @property
    def vocabulary_size(self):
        """Number of ids (including padding and unknown); `None` before a vocabulary is set."""
        return len(self._vocabulary) if self._vocabulary is not None else None

    def save_vocabulary(self, path):
        """Write the vocabulary to a text file (one token per line)."""
        self._require_vocabulary()
        save_vocabulary(self._vocabulary, path)

    def _require_vocabulary(self):
        if self._table is None:
            raise ValueError(
                f"TextVectorizer {self.name!r} has no vocabulary: pass `vocabulary=[...]` or call `adapt(data)` first."
            )

    # ------------------------------------------------------------------ computation
    def _tokenize(self, strings):
        return tokenize(self.normalize(strings))

    def _output_tail(self, flat=None, max_tokens=None):
        if self.flat if flat is None else flat:
            return (max_tokens or self.max_tokens,)
        return (self.max_sentences, self.max_sentence_length)

    def _vectorize(self, strings, flat, max_tokens):
        self._require_vocabulary()
        x = strings if isinstance(strings, tf.Tensor) else tf.convert_to_tensor(strings, tf.string)
        if x.dtype != tf.string:
            raise ValueError(f"TextVectorizer expects string input. Received: dtype={x.dtype!r}")
        rank = x.shape.rank
        if rank is not None and rank >= 2 and x.shape[-1] == 1:
            x = tf.squeeze(x, axis=-1)
        lead_shape, lead_static = tf.shape(x), x.shape
        texts = self.normalize(tf.reshape(x, [-1]))
        tail = self._output_tail(flat, max_tokens)
        if flat:
            tokens = tokenize(texts)  # (N, words)
        else:
            tokens = tokenize(split_sentences(texts))  # (N, sentences, words)
            tokens = tf.ragged.boolean_mask(tokens, tokens.row_lengths(axis=2) > 0)
        ids = tf.ragged.map_flat_values(self._table.lookup, tokens)
        ids = ids.to_tensor(default_value=0, shape=(None,) + tail)
        ids = tf.cast(ids, tf.int32)
        ids = tf.reshape(ids, tf.concat([lead_shape, tf.constant(tail, tf.int32)], axis=0))
        ids.set_shape(lead_static.concatenate(tail))
        return ids

    def vectorize(self, strings):
        """Pure-TensorFlow vectorisation (what `call` does); safe in `tf.data.Dataset.map`."""
        return self._vectorize(strings, self.flat, self.max_tokens)

    def call(self, inputs):
        return self.vectorize(inputs)

    def vectorize_labels(self, descriptions, description_length):
        """In-graph `encode_labels`: a `(L,)` string tensor -> `(L, description_length)` int32 ids.

        Usable inside `tf.function`s, e.g. a serving signature that receives label
        descriptions with the request.
        """
        return self._vectorize(descriptions, True, description_length)

    def encode_labels(self, descriptions, description_length=None):
        """Token ids of label descriptions with this vocabulary and normalisation.

        Always flat (no sentence splitting), truncated to the first
        `description_length` tokens and padded with 0.

        Args:
            descriptions: a list of `L` strings (one per label).
            description_length: tokens per description, `Lw`.

        Returns:
            A NumPy int32 array of shape `(L, Lw)`.

        Description words outside the vocabulary read as `<unk>`: a
        `UserWarning` names them (adapt with `keep=descriptions` to keep them).
        """
        description_length = check_positive_int("description_length", description_length)
        if isinstance(descriptions, (str, bytes)) or len(descriptions) == 0:
            raise ValueError(
                f"`descriptions` must be a non-empty list of strings. Received: descriptions={descriptions!r:.200}"
            )
        strings = tf.constant(np.asarray(list(descriptions), dtype=object).tolist(), dtype=tf.string)
        if strings.shape.rank != 1:
            raise ValueError(
                "`descriptions` must be a flat list of strings. "
                f"Received: descriptions with shape {tuple(strings.shape)}"
            )
        ids = self.vectorize_labels(strings, description_length).numpy()
        if (ids == 1).any():  # an <unk> was read: find its words (tokenising again, only then)
            self._warn_unknown_words(descriptions)
        return ids

    def _warn_unknown_words(self, descriptions):
        known = set(self._vocabulary)
        unknown = list(dict.fromkeys(word for word in self._words(descriptions) if word not in known))
        if unknown:
            shown = ", ".join(repr(w) for w in unknown[:10]) + (
                f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
            )
            warnings.warn(
                f"{len(unknown)} label description word(s) are not in the vocabulary and read as '<unk>': {shown}. "
                "`adapt(texts, keep=descriptions)` keeps every description word.",
                stacklevel=3,  # the caller of encode_labels
            )

    # ------------------------------------------------------------------ Keras API
    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if len(shape) >= 2 and shape[-1] == 1:
            shape = shape[:-1]
        return shape + self._output_tail()

    def compute_output_spec(self, inputs):
        return keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype="int32")

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary": self.get_vocabulary() or None,
                "flat": self.flat,
                "max_tokens": self.max_tokens,
                "max_sentences": self.max_sentences,
                "max_sentence_length": self.max_sentence_length,
            }
        )
        return config
