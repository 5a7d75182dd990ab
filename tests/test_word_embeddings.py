"""The builders' word-embedding block: pretrained vectors checked, and which side of the model trains them."""

import numpy as np
import pytest

from keras_labelemb.models.word_embeddings import check_word_vectors, word_embeddings

VECTORS = np.random.default_rng(0).normal(size=(12, 4))


@pytest.mark.parametrize(
    "mode, trainable, label_side", [("all", True, None), ("none", False, None), ("documents", True, False)]
)
def test_which_side_trains_the_pretrained_vectors(mode, trainable, label_side):
    vectors, fine_tune = check_word_vectors(VECTORS, mode, 12, None, None, None)
    embedding, label_embedding = word_embeddings(12, vectors, fine_tune)
    np.testing.assert_allclose(np.asarray(embedding.embeddings), VECTORS, rtol=1e-6)
    assert embedding.trainable is trainable and embedding.mask_zero
    if label_side is None:
        assert label_embedding is None  # labels read the documents' table
    else:
        assert label_embedding.trainable is label_side
        np.testing.assert_allclose(np.asarray(label_embedding.embeddings), VECTORS, rtol=1e-6)


def test_without_vectors_a_new_table():
    assert check_word_vectors(None, None, 12, 8, None, None) == (None, None)
    embedding, label_embedding = word_embeddings(12, None, None, embedding_dim=8, train_embeddings=False)
    embedding.build()
    assert tuple(embedding.embeddings.shape) == (12, 8) and not embedding.trainable and label_embedding is None


@pytest.mark.parametrize(
    "args, match",
    [
        ((None, "all", 12, None, None, None), "fine_tune_word_vectors='all', word_vectors=None"),
        ((VECTORS[:5], None, 12, None, None, None), r"shape \(5, 4\)"),
        ((np.full((12, 4), np.nan), None, 12, None, None, None), "finite"),
        ((VECTORS, None, 12, 6, None, None), "embedding_dim=6"),
        ((VECTORS, None, 12, None, "zeros", None), "embeddings_initializer"),
        ((VECTORS, "labels", 12, None, None, None), "fine_tune_word_vectors='labels'"),
    ],
)
def test_bad_vectors_and_modes_raise_naming_them(args, match):
    with pytest.raises(ValueError, match=match):
        check_word_vectors(*args)
