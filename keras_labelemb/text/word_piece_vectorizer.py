"""Word-piece vectorizer: strings to the ids a pretrained transformer reads, in the graph like `TextVectorizer`."""

import keras
import tensorflow as tf


@keras.saving.register_keras_serializable(package="keras_labelemb")
class WordPieceVectorizer(keras.layers.Layer):
    """Strings -> `[CLS] pieces [SEP]` ids of a keras-hub word-piece tokenizer, 0-padded to a fixed length.

    The inputs of a `SentenceEncoder`, for documents and label descriptions
    alike, with the two methods `export_text_classifier` serves through
    (`vectorize`, `vectorize_labels`), so a sentence-encoder model serves raw
    strings, labels sent with the request included. Pure TensorFlow
    (tensorflow-text inside the tokenizer): safe in `tf.data.Dataset.map`.

    Args:
        tokenizer: a keras-hub word-piece tokenizer with `[CLS]`, `[SEP]` and
            `[PAD]` = 0 (e.g. `keras_hub.models.BertTokenizer`).
        sequence_length: ids per text, `[CLS]` and `[SEP]` included.

    Example:

    >>> import keras_hub
    >>> pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "wheat", "price", "##s"]
    >>> vectorizer = WordPieceVectorizer(keras_hub.models.BertTokenizer(pieces, lowercase=True), 6)
    >>> vectorizer(["Wheat prices"]).numpy().tolist(), vectorizer.special_ids
    ([[2, 5, 6, 7, 3, 0]], (1, 2, 3))
    """

    def __init__(self, tokenizer=None, sequence_length=None, **kwargs):
        super().__init__(**kwargs)
        if not hasattr(tokenizer, "cls_token_id") or not hasattr(tokenizer, "token_to_id"):
            raise ValueError(
                "`tokenizer` must be a keras-hub word-piece tokenizer with [CLS], [SEP] and [PAD] tokens. "
                f"Received: tokenizer={tokenizer!r}"
            )
        if not isinstance(sequence_length, int) or sequence_length < 3:
            raise ValueError(f"`sequence_length` must be an int >= 3. Received: sequence_length={sequence_length!r}")
        self.tokenizer = tokenizer
        self.sequence_length = sequence_length
        # Raw strings in (as `StringLayer`s): no XLA, no casting, a Python list is one input.
        self.supports_jit = False
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        if tokenizer.vocabulary is not None:  # restored from a config, the vocabulary comes with the assets
            self._check_tokens()

    def _check_tokens(self):
        if self.tokenizer.vocabulary is None:
            raise ValueError(
                "The tokenizer has no vocabulary yet: a vectorizer rebuilt from its config gets it with the "
                "assets (`load_assets`, or loading the `.keras` file that holds it). Received: vocabulary=None"
            )
        ids = {name: getattr(self.tokenizer, f"{name}_token_id", None) for name in ("cls", "sep", "pad")}
        if None in ids.values() or ids["pad"] != 0:
            raise ValueError(
                "`tokenizer` needs [CLS], [SEP] and [PAD] tokens, [PAD] with id 0 (the heads' padding). "
                f"Received: ids {ids}"
            )

    @property
    def special_ids(self):
        """`([UNK], [CLS], [SEP])` ids: what a `LexicalMatchHead` over these ids should not match (`ignored_ids`)."""
        unknown = self.tokenizer.token_to_id(getattr(self.tokenizer, "oov_token", "[UNK]"))
        return (int(unknown), int(self.tokenizer.cls_token_id), int(self.tokenizer.sep_token_id))

    def _pack(self, strings, length):
        self._check_tokens()
        strings = tf.convert_to_tensor(strings, tf.string)
        if strings.shape.rank == 2 and strings.shape[-1] == 1:  # `keras.Input((1,), dtype="string")`
            strings = tf.squeeze(strings, -1)
        # In a graph: keras-hub tokenizers turn ragged outputs into Python lists when run eagerly.
        return _pack(self.tokenizer, strings, length)

    def vectorize(self, strings):
        """`(B,)` strings -> `(B, sequence_length)` int32 ids."""
        return self._pack(strings, self.sequence_length)

    def vectorize_labels(self, descriptions, description_length):
        """`(L,)` descriptions -> `(L, description_length)` int32 ids (what `export_text_classifier` serves)."""
        if not isinstance(description_length, int) or description_length < 3:
            raise ValueError(
                "`description_length` must be an int >= 3 ([CLS], a word piece, [SEP]). "
                f"Received: description_length={description_length!r}"
            )
        return self._pack(descriptions, description_length)

    def encode_labels(self, descriptions, description_length):
        """Label descriptions (a list of strings) -> `(L, description_length)` NumPy ids, for `set_labels`."""
        return self.vectorize_labels(list(descriptions), description_length).numpy()

    def call(self, strings):
        return self.vectorize(strings)

    def build(self, input_shape=None):
        self.built = True  # no weights; the tokenizer's vocabulary is its own state

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        return (shape[:-1] if len(shape) >= 2 and shape[-1] == 1 else shape) + (self.sequence_length,)

    def compute_output_spec(self, strings):
        return keras.KerasTensor(self.compute_output_shape(strings.shape), dtype="int32")

    # The vocabulary is the tokenizer's asset; the vectorizer hands it on, so that a vectorizer rebuilt from its
    # config reads text once `load_assets` ran on it (a `.keras` file also writes the tokenizer's own copy).
    def save_assets(self, dir_path):
        self.tokenizer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self.tokenizer.load_assets(dir_path)

    def get_config(self):
        config = super().get_config()
        config.update(
            tokenizer=keras.saving.serialize_keras_object(self.tokenizer), sequence_length=self.sequence_length
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["tokenizer"] = keras.saving.deserialize_keras_object(config["tokenizer"])
        return cls(**config)


@tf.function(reduce_retracing=True)
def _pack(tokenizer, strings, length):
    """`[CLS] pieces [SEP]`, truncated and 0-padded to `length` ids."""
    pieces = tf.cast(tokenizer(strings)[:, : length - 2], tf.int32)
    ends = tf.ones([pieces.nrows(), 1], tf.int32)
    packed = tf.concat([ends * tokenizer.cls_token_id, pieces, ends * tokenizer.sep_token_id], axis=1)
    return packed.to_tensor(default_value=0, shape=[None, length])
