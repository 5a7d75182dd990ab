"""The word embedding block the builders share: pretrained vectors checked, and which side trains them."""

import keras
import numpy as np

# Which side of the model fine-tunes pretrained word vectors.
FINE_TUNE_WORD_VECTORS = ("all", "none", "documents")


def check_word_vectors(word_vectors, fine_tune, vocabulary_size, embedding_dim, initializer, train_embeddings):
    """`(vectors, fine_tune)`: the pretrained matrix as float32 and the mode ("all" by default)."""
    if word_vectors is None:
        if fine_tune is not None:
            raise ValueError(
                "`fine_tune_word_vectors` says how pretrained `word_vectors` train: pass them too. "
                f"Received: fine_tune_word_vectors={fine_tune!r}, word_vectors=None"
            )
        return None, None
    vectors = np.asarray(word_vectors)
    if vectors.ndim != 2 or vectors.shape[0] != vocabulary_size or not np.issubdtype(vectors.dtype, np.number):
        raise ValueError(
            f"`word_vectors` must be a numeric (vocabulary_size={vocabulary_size}, dim) matrix. "
            f"Received: word_vectors with shape {vectors.shape} and dtype {vectors.dtype}"
        )
    if not np.all(np.isfinite(vectors)):
        raise ValueError("`word_vectors` must be finite. Received: word_vectors with NaN or infinite values")
    if embedding_dim is not None and embedding_dim != vectors.shape[1]:
        raise ValueError(
            f"`embedding_dim` must match the width of `word_vectors` ({vectors.shape[1]}) or be left unset. "
            f"Received: embedding_dim={embedding_dim!r}"
        )
    pairs = (("embeddings_initializer", initializer), ("train_embeddings", train_embeddings))
    given = {key: value for key, value in pairs if value is not None}
    if given:
        raise ValueError(
            "With `word_vectors`, the vectors are the initial weights and `fine_tune_word_vectors` says what "
            f"trains: leave `embeddings_initializer` and `train_embeddings` unset. Received: {given}"
        )
    fine_tune = "all" if fine_tune is None else fine_tune
    if fine_tune not in FINE_TUNE_WORD_VECTORS:
        raise ValueError(
            f"`fine_tune_word_vectors` must be one of {list(FINE_TUNE_WORD_VECTORS)}. "
            f"Received: fine_tune_word_vectors={fine_tune!r}"
        )
    return vectors.astype("float32"), fine_tune


def pretrained_embedding(vectors, trainable, name):
    embedding = keras.layers.Embedding(*vectors.shape, mask_zero=True, trainable=trainable, name=name)
    # Set as weights, not a Constant initializer: the matrix then stays out of the config (a few KB at
    # any vocabulary size) and `.keras` files keep it once, with the weights.
    embedding.build()
    embedding.set_weights([vectors])
    return embedding


def word_embeddings(
    vocabulary_size, vectors, fine_tune, embedding_dim=None, embeddings_initializer=None, train_embeddings=None
):
    """`(embedding, label_embedding)`: the documents' word embedding, and the frozen copy of the pretrained
    vectors the label side reads when `fine_tune == "documents"` (otherwise None: labels read `embedding`).

    `vectors` and `fine_tune` as `check_word_vectors` returns them; without vectors, a new table of
    `embedding_dim` (default 100) from `embeddings_initializer` (default uniform).
    """
    if vectors is not None:
        embedding = pretrained_embedding(vectors, fine_tune != "none", "word_embedding")
        frozen = pretrained_embedding(vectors, False, "label_word_embedding") if fine_tune == "documents" else None
        return embedding, frozen
    embedding = keras.layers.Embedding(
        vocabulary_size,
        embedding_dim or 100,
        mask_zero=True,
        embeddings_initializer=embeddings_initializer or "uniform",
        trainable=True if train_embeddings is None else bool(train_embeddings),
        name="word_embedding",
    )
    return embedding, None
