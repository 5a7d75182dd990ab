"""`word_embeddings`, the builders' word embedding: a new table or pretrained vectors, and which side trains them."""

import keras
import numpy as np
import pytest

from keras_labelemb.models.word_embeddings import word_embeddings

VECTORS = np.random.default_rng(0).normal(size=(12, 4))


@pytest.mark.parametrize(
    "mode, trainable, label_side", [("all", True, None), ("none", False, None), ("documents", True, False)]
)
def test_which_side_trains_the_pretrained_vectors(mode, trainable, label_side):
    embedding, label_embedding = word_embeddings(12, vectors=VECTORS, fine_tune=mode)
    assert embedding.embeddings.dtype == "float32"
    np.testing.assert_allclose(np.asarray(embedding.embeddings), VECTORS, rtol=1e-6)
    assert embedding.trainable is trainable and embedding.mask_zero and embedding.name == "word_embedding"
    assert len(embedding.trainable_weights) == int(trainable)
    if label_side is None:
        assert label_embedding is None  # labels read the documents' table
    else:
        assert label_embedding.trainable is label_side and not label_embedding.trainable_weights
        assert label_embedding.name == "label_word_embedding" and label_embedding.mask_zero
        np.testing.assert_allclose(np.asarray(label_embedding.embeddings), VECTORS, rtol=1e-6)


def test_fine_tune_documents_changes_the_documents_table_only():
    embedding, label_embedding = word_embeddings(12, vectors=VECTORS, fine_tune="documents")
    ids = keras.Input((3,), dtype="int32")
    words = keras.layers.GlobalAveragePooling1D()(embedding(ids))
    labels = keras.layers.GlobalAveragePooling1D()(label_embedding(ids))
    model = keras.Model(ids, keras.layers.Dense(1)(keras.layers.Concatenate()([words, labels])))
    model.compile(keras.optimizers.SGD(1.0), "mse")
    model.fit(np.array([[1, 2, 3]] * 4), np.ones((4, 1)), verbose=0)
    assert not np.allclose(np.asarray(embedding.embeddings), VECTORS, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(label_embedding.embeddings), VECTORS, rtol=1e-6)


@pytest.mark.parametrize("mode, trainable", [("all", True), ("none", False)])
def test_without_vectors_a_new_table(mode, trainable):
    embedding, label_embedding = word_embeddings(12, dim=8, fine_tune=mode)
    embedding.build()
    assert tuple(embedding.embeddings.shape) == (12, 8) and embedding.mask_zero and label_embedding is None
    assert embedding.trainable is trainable
    default, _ = word_embeddings(12)
    assert default.output_dim == 100 and default.trainable


def test_dim_may_repeat_the_width_of_the_vectors():
    embedding, _ = word_embeddings(12, dim=4, vectors=VECTORS.astype("float64"))
    assert embedding.output_dim == 4


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(vectors=VECTORS[:5]), r"`vectors` must be a numeric \(vocabulary_size=12, dim\) matrix.*shape \(5, 4\)"),
        (dict(vectors=VECTORS[0]), r"shape \(4,\)"),
        (dict(vectors=np.full((12, 4), "a")), "dtype <U1"),
        (dict(vectors=np.full((12, 4), np.nan)), "`vectors` must be finite"),
        (dict(vectors=VECTORS, dim=6), r"`dim` must match the width of `vectors` \(4\).*dim=6"),
        (dict(fine_tune="documents"), r"fine_tune='documents'.*pass `vectors`. Received: vectors=None"),
        (dict(fine_tune="labels"), r"`fine_tune` must be one of \['all', 'none', 'documents'\].*fine_tune='labels'"),
        (dict(vectors=VECTORS, fine_tune=None), "fine_tune=None"),
        (dict(dim=0), "dim=0"),
    ],
)
def test_bad_arguments_raise_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        word_embeddings(12, **kwargs)
    with pytest.raises(ValueError, match="vocabulary_size=0"):
        word_embeddings(0)
