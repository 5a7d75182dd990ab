"""`LabelClassifierPreprocessor`: raw strings -> what a `LabelClassifier`'s encoder reads; descriptions -> label ids."""

import keras
import numpy as np
import tensorflow as tf

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.text import TextVectorizer, TfidfVectorizer, WordPieceVectorizer


def check_texts(texts, name="texts"):
    """`texts` as a list of `str`, or a `ValueError` naming `name` and what was wrong.

    Accepts a list or tuple of strings, a 1-D NumPy array of `str`/`object`,
    or UTF-8 `bytes` items (decoded). A single string is refused: a model fed
    `"wheat"` would otherwise read five one-letter documents.
    """
    if isinstance(texts, (str, bytes)):
        raise ValueError(
            f"`{name}` must be a list of strings, not one string. Received: {name}={texts!r:.100}; pass [{texts!r:.60}]"
        )
    if isinstance(texts, (tf.Tensor, np.ndarray)):
        array = np.asarray(texts)
        if array.ndim == 2 and array.shape[-1] == 1:
            array = array[:, 0]
        if array.ndim != 1:
            raise ValueError(
                f"`{name}` must be one string per document (1-D). Received: {name} with shape {array.shape}"
            )
        texts = array.tolist()
    if not isinstance(texts, (list, tuple)):
        raise ValueError(f"`{name}` must be a list of strings. Received: {name} of type {type(texts).__name__}")
    checked = []
    for index, text in enumerate(texts):
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"`{name}[{index}]` is bytes that are not UTF-8. Received: {text!r:.100}") from None
        if not isinstance(text, str):
            raise ValueError(
                f"`{name}` must hold strings only. Received: {name}[{index}]={text!r:.100} ({type(text).__name__})"
            )
        checked.append(text)
    return checked


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelClassifierPreprocessor(keras.layers.Layer):
    """Raw strings -> token ids for a `LabelClassifier`, and label descriptions -> label token ids.

    It holds the word `TextVectorizer` (flat ids for WAN, RegionLSTM and
    max-pool encoders; sentences of ids for HAN), or a pretrained model's
    `WordPieceVectorizer` (`load_minilm`; nothing to adapt), and the number
    of tokens a label description is read with. `adapt(texts, descriptions)` builds the
    vocabulary from training documents and keeps every description word, so no
    label loses its key word to `<unk>`. Like keras-hub's preprocessors it runs
    in `tf.data` (TensorFlow ops), under any Keras backend.

    With `features` (a `TfidfVectorizer`, the wide path's n-grams) it gives
    the dict `{"token_ids": ids, "features": tf-idf}`: the encoder reads the
    ids, a `WideHead` the features; `adapt` fits both on the same texts.

    Args:
        vectorizer: a `TextVectorizer` (adapted or not) or a
            `WordPieceVectorizer`. Default: `TextVectorizer()` (flat, 256 tokens).
        description_length: tokens per label description (default 16).
        max_vocabulary: the largest vocabulary `adapt` builds (default 50,000).
        min_count: words seen fewer times in the training texts are dropped (default 1).
        features: `None` (default) or a `TfidfVectorizer` for a wide path.

    Example:

    >>> preprocessor = LabelClassifierPreprocessor(TextVectorizer(max_tokens=4), description_length=3)
    >>> preprocessor.adapt(["wheat prices rose", "rates fell"], ["wheat and grain", "interest rates"])
    >>> preprocessor(["wheat rates"]).numpy().tolist()
    [[6, 4, 0, 0]]
    >>> preprocessor.encode_labels(["interest rates"]).tolist()
    [[9, 4, 0]]
    """

    def __init__(
        self, vectorizer=None, description_length=16, max_vocabulary=50_000, min_count=1, features=None, **kwargs
    ):
        super().__init__(**kwargs)
        if vectorizer is None:
            vectorizer = TextVectorizer()
        if not isinstance(vectorizer, (TextVectorizer, WordPieceVectorizer)):
            raise ValueError(
                "`vectorizer` must be a TextVectorizer (words) or a WordPieceVectorizer (a pretrained model's "
                f"word pieces). Received: vectorizer={vectorizer!r:.200}"
            )
        if features is not None and not isinstance(features, TfidfVectorizer):
            raise ValueError(f"`features` must be a TfidfVectorizer or None. Received: features={features!r:.200}")
        if isinstance(vectorizer, WordPieceVectorizer) and not vectorizer.built:
            vectorizer.build()  # no weights: built, so that an export can track it
        self.vectorizer = vectorizer
        self.features = features
        # Raw strings in (as the vectorizers): under JAX, Keras must not convert them to arrays.
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.description_length = check_positive_int("description_length", description_length)
        self.max_vocabulary = check_positive_int("max_vocabulary", max_vocabulary, allow_none=True)
        self.min_count = check_positive_int("min_count", min_count)
        self.built = True

    @property
    def pretrained(self):
        """True for a word-piece vectorizer: its vocabulary is the pretrained model's, `adapt` leaves it."""
        return isinstance(self.vectorizer, WordPieceVectorizer)

    @property
    def adapted(self):
        """True once the vectorizer has a vocabulary."""
        if self.pretrained:
            return self.vectorizer.tokenizer.vocabulary is not None
        return self.vectorizer.vocabulary_size is not None

    @property
    def vocabulary_size(self):
        if self.pretrained:
            return self.vectorizer.tokenizer.vocabulary_size()
        return self.vectorizer.vocabulary_size

    @property
    def output_shape_per_text(self):
        """The shape of one text's ids: `(max_tokens,)` or `(max_sentences, max_sentence_length)`."""
        return self.vectorizer.compute_output_shape((None,))[1:]

    def adapt(self, texts, descriptions=()):
        """Builds the vocabulary from `texts` (training documents), keeping every word of `descriptions`."""
        texts = check_texts(texts)
        if not texts:
            raise ValueError("`texts` must hold at least one training document to adapt to. Received: texts=[]")
        if not self.pretrained:
            self.vectorizer.adapt(
                texts, max_size=self.max_vocabulary, min_count=self.min_count, keep=list(descriptions) or None
            )
        if self.features is not None:
            self.features.adapt(texts)

    def _require_adapted(self):
        if not self.adapted:
            raise ValueError(
                "The preprocessor has no vocabulary yet: call `fit(texts, targets)` or `adapt(texts)` on the "
                "classifier (or give the TextVectorizer a vocabulary) first. Received: an unadapted vectorizer"
            )

    def __call__(self, texts, **kwargs):
        if not isinstance(texts, tf.Tensor):  # a list of strings: checked, then one string tensor
            texts = tf.constant(check_texts(texts), tf.string)
        return super().__call__(texts, **kwargs)

    def call(self, texts):
        """`(B,)` strings -> `(B, ...)` int32 token ids, or with `features` the dict of ids and tf-idf features.

        Pure TensorFlow: safe in `tf.data.Dataset.map`.
        """
        self._require_adapted()
        ids = self.vectorizer.vectorize(texts)
        if self.features is None:
            return ids
        return {"token_ids": ids, "features": self.features.vectorize(texts)}

    def vectorize_labels(self, descriptions):
        """In-graph: `(L,)` description strings -> `(L, description_length)` int32 ids."""
        self._require_adapted()
        return self.vectorizer.vectorize_labels(descriptions, self.description_length)

    def encode_labels(self, descriptions):
        """NumPy `(L, description_length)` int32 ids of `descriptions` (a list of strings)."""
        self._require_adapted()
        return self.vectorizer.encode_labels(check_texts(descriptions, "descriptions"), self.description_length)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape) + self.output_shape_per_text
        if self.features is None:
            return shape
        return {"token_ids": shape, "features": (input_shape[0], self.features.num_features)}

    def get_config(self):
        config = super().get_config()
        config.update(
            vectorizer=keras.saving.serialize_keras_object(self.vectorizer),
            description_length=self.description_length,
            max_vocabulary=self.max_vocabulary,
            min_count=self.min_count,
            features=None if self.features is None else keras.saving.serialize_keras_object(self.features),
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("vectorizer", "features"):
            if config.get(key) is not None:
                config[key] = keras.saving.deserialize_keras_object(config[key])
        return cls(**config)
