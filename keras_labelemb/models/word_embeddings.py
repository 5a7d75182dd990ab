"""The word embedding block the builders share: one spec, pretrained vectors checked, which side trains them."""

import keras
import numpy as np

from keras_labelemb.argument_checks import check_positive_int, check_rate

# Which side of the model fine-tunes pretrained word vectors.
FINE_TUNE_WORD_VECTORS = ("all", "none", "documents")
# The `embedding` spec of `document_classifier` and `cnle`: its keys and their defaults. `dim` (100),
# `initializer` ("uniform") and `trainable` (True) make a new table; `vectors` starts it from pretrained word
# vectors instead, and `fine_tune` ("all" with them) says what trains them; `dropout` is on the word vectors.
EMBEDDING_DEFAULTS = {
    "dim": None,
    "initializer": None,
    "trainable": None,
    "vectors": None,
    "fine_tune": None,
    "dropout": 0.0,
}


def embedding_spec(embedding, vocabulary_size, builder="document_classifier", keys=tuple(EMBEDDING_DEFAULTS)):
    """`embedding` (None or a dict of keys of `EMBEDDING_DEFAULTS` among `keys`) as a full spec: the keys left
    out at their defaults, `vectors` as float32 and `fine_tune` resolved ("all" with vectors, else None).

    >>> embedding_spec({"dim": 8}, 50)
    {'dim': 8, 'initializer': None, 'trainable': None, 'vectors': None, 'fine_tune': None, 'dropout': 0.0}
    """
    if embedding is None:
        embedding = {}
    if not isinstance(embedding, dict):
        raise ValueError(
            f"`embedding` of {builder} must be None or a dict spec with keys among {list(keys)}. "
            f"Received: embedding={embedding!r}"
        )
    unknown = sorted(set(embedding) - set(keys))
    if unknown:
        raise ValueError(
            f"Unknown key(s) {unknown} of the `embedding` spec of {builder}; its keys are {list(keys)}. "
            f"Received: embedding keys {sorted(embedding)}"
        )
    spec = {**EMBEDDING_DEFAULTS, **embedding}
    check_rate("embedding['dropout']", spec["dropout"])
    check_positive_int("embedding['dim']", spec["dim"], allow_none=True)
    spec["vectors"], spec["fine_tune"] = _checked_vectors(spec, vocabulary_size)
    return spec


def _checked_vectors(spec, vocabulary_size):
    """`(vectors, fine_tune)`: the pretrained matrix as float32 and the mode ("all" by default)."""
    fine_tune = spec["fine_tune"]
    if spec["vectors"] is None:
        if fine_tune is not None:
            raise ValueError(
                "`embedding['fine_tune']` says how pretrained `embedding['vectors']` train: pass them too. "
                f"Received: fine_tune={fine_tune!r}, vectors=None"
            )
        return None, None
    vectors = np.asarray(spec["vectors"])
    if vectors.ndim != 2 or vectors.shape[0] != vocabulary_size or not np.issubdtype(vectors.dtype, np.number):
        raise ValueError(
            f"`embedding['vectors']` must be a numeric (vocabulary_size={vocabulary_size}, dim) matrix. "
            f"Received: vectors with shape {vectors.shape} and dtype {vectors.dtype}"
        )
    if not np.all(np.isfinite(vectors)):
        raise ValueError("`embedding['vectors']` must be finite. Received: vectors with NaN or infinite values")
    if spec["dim"] is not None and spec["dim"] != vectors.shape[1]:
        raise ValueError(
            f"`embedding['dim']` must match the width of `embedding['vectors']` ({vectors.shape[1]}) or be left "
            f"unset. Received: dim={spec['dim']!r}"
        )
    given = {key: spec[key] for key in ("initializer", "trainable") if spec[key] is not None}
    if given:
        raise ValueError(
            "With `embedding['vectors']`, the vectors are the initial weights and `embedding['fine_tune']` says "
            f"what trains: leave `initializer` and `trainable` unset. Received: {given}"
        )
    fine_tune = "all" if fine_tune is None else fine_tune
    if fine_tune not in FINE_TUNE_WORD_VECTORS:
        raise ValueError(
            f"`embedding['fine_tune']` must be one of {list(FINE_TUNE_WORD_VECTORS)}. Received: fine_tune={fine_tune!r}"
        )
    return vectors.astype("float32"), fine_tune


def pretrained_embedding(vectors, trainable, name):
    embedding = keras.layers.Embedding(*vectors.shape, mask_zero=True, trainable=trainable, name=name)
    # Set as weights, not a Constant initializer: the matrix then stays out of the config (a few KB at
    # any vocabulary size) and `.keras` files keep it once, with the weights.
    embedding.build()
    embedding.set_weights([vectors])
    return embedding


def word_embeddings(vocabulary_size, spec):
    """`(embedding, label_embedding)` of a full spec (`embedding_spec`): the documents' word embedding, and the
    frozen copy of the pretrained vectors the label side reads when `fine_tune == "documents"` (otherwise None:
    labels read `embedding`). Without vectors, a new table of `dim` (default 100) from `initializer` (default
    uniform).
    """
    vectors, fine_tune = spec["vectors"], spec["fine_tune"]
    if vectors is not None:
        embedding = pretrained_embedding(vectors, fine_tune != "none", "word_embedding")
        frozen = pretrained_embedding(vectors, False, "label_word_embedding") if fine_tune == "documents" else None
        return embedding, frozen
    embedding = keras.layers.Embedding(
        vocabulary_size,
        spec["dim"] or 100,
        mask_zero=True,
        embeddings_initializer=spec["initializer"] or "uniform",
        trainable=True if spec["trainable"] is None else bool(spec["trainable"]),
        name="word_embedding",
    )
    return embedding, None
