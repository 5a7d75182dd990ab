"""The word embedding the builders share: a new table or pretrained vectors, and which side trains them."""

import keras
import numpy as np

from keras_labelemb.argument_checks import check_positive_int

# Which side of the model fine-tunes the word vectors.
FINE_TUNE_WORD_VECTORS = ("all", "none", "documents")


def word_embeddings(vocabulary_size, dim=None, vectors=None, fine_tune="all"):
    """`(embedding, label_embedding)`: the documents' word embedding and, when labels read their own, theirs.

    Without `vectors`, a new `Embedding(vocabulary_size, dim or 100,
    mask_zero=True)` initialised uniformly. With `vectors` (a
    `(vocabulary_size, d)` matrix of pretrained word vectors, row 0 padding,
    e.g. from `keras_labelemb.text.load_glove_6b`) the table starts from
    them. `fine_tune` says what trains the table:

    - `"all"` (default): one table, fine-tuned by documents and labels alike;
    - `"none"`: frozen everywhere;
    - `"documents"`: the documents' table fine-tunes, while label
      descriptions are read through a second, frozen copy of the pretrained
      vectors (`label_embedding`, named `"label_word_embedding"`). Labels,
      seen or unseen (zero-shot `set_labels`), then stay in the space the
      vectors were trained in. Needs `vectors`.

    `label_embedding` is None unless `fine_tune="documents"` (labels then read
    `embedding`). Give the head the label embedding (`GileHead(label_embedding
    or embedding, ...)`) and the builder the documents' (`document_classifier(
    ..., embedding=embedding)`).

    >>> embedding, label_embedding = word_embeddings(50, dim=8)
    >>> embedding.output_dim, label_embedding
    (8, None)
    >>> vectors = np.random.default_rng(0).normal(size=(50, 6))
    >>> embedding, label_embedding = word_embeddings(50, vectors=vectors, fine_tune="documents")
    >>> embedding.trainable, label_embedding.trainable, label_embedding.name
    (True, False, 'label_word_embedding')
    """
    check_positive_int("vocabulary_size", vocabulary_size)
    check_positive_int("dim", dim, allow_none=True)
    if fine_tune not in FINE_TUNE_WORD_VECTORS:
        raise ValueError(
            f"`fine_tune` must be one of {list(FINE_TUNE_WORD_VECTORS)}. Received: fine_tune={fine_tune!r}"
        )
    if vectors is None:
        if fine_tune == "documents":
            raise ValueError(
                "fine_tune='documents' reads labels through a frozen copy of pretrained vectors: pass `vectors`. "
                "Received: vectors=None"
            )
        embedding = keras.layers.Embedding(
            vocabulary_size,
            dim or 100,
            mask_zero=True,
            embeddings_initializer="uniform",
            trainable=fine_tune == "all",
            name="word_embedding",
        )
        return embedding, None
    vectors = checked_vectors(vectors, vocabulary_size)
    if dim is not None and dim != vectors.shape[1]:
        raise ValueError(
            f"`dim` must match the width of `vectors` ({vectors.shape[1]}) or be left unset. Received: dim={dim!r}"
        )
    embedding = pretrained_embedding(vectors, fine_tune != "none", "word_embedding")
    frozen = pretrained_embedding(vectors, False, "label_word_embedding") if fine_tune == "documents" else None
    return embedding, frozen


def checked_vectors(vectors, vocabulary_size):
    """`vectors` as a finite float32 `(vocabulary_size, d)` matrix, or a `ValueError` saying what was passed."""
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != vocabulary_size or not np.issubdtype(vectors.dtype, np.number):
        raise ValueError(
            f"`vectors` must be a numeric (vocabulary_size={vocabulary_size}, dim) matrix. "
            f"Received: vectors with shape {vectors.shape} and dtype {vectors.dtype}"
        )
    if not np.all(np.isfinite(vectors)):
        raise ValueError("`vectors` must be finite. Received: vectors with NaN or infinite values")
    return vectors.astype("float32")


def pretrained_embedding(vectors, trainable, name):
    embedding = keras.layers.Embedding(*vectors.shape, mask_zero=True, trainable=trainable, name=name)
    # Set as weights, not a Constant initializer: the matrix then stays out of the config (a few KB at
    # any vocabulary size) and `.keras` files keep it once, with the weights.
    embedding.build()
    embedding.set_weights([vectors])
    return embedding
