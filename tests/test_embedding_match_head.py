"""EmbeddingMatchHead: cosine of mean word vectors, against NumPy; the standardised hybrid is the untrained fusion."""

import keras
import numpy as np
import pytest

from keras_labelemb.evaluation import predict_top_k
from keras_labelemb.layers import EmbeddingMatchHead, HybridHead, LexicalMatchHead

V, D = 30, 6
LABELS = np.array([[4, 5, 5], [6, 1, 0], [7, 8, 0], [9, 0, 0]])


def embedding():
    vectors = np.random.default_rng(0).normal(size=(V, D)).astype("float32")
    layer = keras.layers.Embedding(V, D, mask_zero=True)
    layer.build((None,))
    layer.set_weights([vectors])
    return layer, vectors


def documents():
    ids = np.random.default_rng(1).integers(1, V, size=(5, 7)).astype("int32")
    ids[1] = 0  # all padding
    ids[2, 3:] = 0
    ids[3] = 1  # unknown words only
    return ids


def reference(ids, label_ids, vectors, weights=None):
    """Cosine of the (weighted) mean vectors of the words other than padding and the unknown word."""

    def unit_means(rows):
        out = np.zeros((len(rows), vectors.shape[1]))
        for i, row in enumerate(rows):
            words = row[row > 1]
            if len(words):
                w = np.ones(len(words)) if weights is None else weights[words]
                mean = (vectors[words] * w[:, None]).sum(0) / max(w.sum(), 1e-12)
                out[i] = mean / np.linalg.norm(mean) if np.linalg.norm(mean) > 0 else 0
        return out

    return unit_means(ids) @ unit_means(label_ids).T


def test_scores_equal_the_cosine_of_mean_word_vectors():
    table, vectors = embedding()
    head = EmbeddingMatchHead(table, LABELS)
    np.testing.assert_allclose(head({"token_ids": documents()}), reference(documents(), LABELS, vectors), atol=1e-6)
    assert np.all(np.asarray(head({"token_ids": documents()}))[[1, 3]] == 0.0)  # no matching word: the bias


def test_idf_weighted_means():
    table, vectors = embedding()
    head = EmbeddingMatchHead(table, LABELS, idf_weighted=True)
    head({"token_ids": documents()})  # builds
    training = np.random.default_rng(2).integers(0, V, size=(12, 5))
    head.adapt(training)
    idf = np.asarray(head.idf)
    expected = reference(documents(), LABELS, vectors, weights=idf)
    np.testing.assert_allclose(head({"token_ids": documents()}), expected, atol=1e-5)


def test_standardised_hybrid_is_the_z_scored_fusion_of_its_components():
    table, _ = embedding()
    lexical, match = LexicalMatchHead(table, name="lexical"), EmbeddingMatchHead(table, name="match")
    hybrid = HybridHead([lexical, match], LABELS, standardize=True)
    document = {"token_ids": documents()}
    hybrid(document)
    lexical.adapt(documents())
    parts = hybrid.component_logits(document)

    def z(scores):
        scores = np.asarray(scores, "float64")
        centred = scores - scores.mean(axis=1, keepdims=True)
        return centred / (centred.std(axis=1, keepdims=True) + 1e-6)

    np.testing.assert_allclose(hybrid(document), z(parts["lexical"]) + z(parts["match"]), atol=1e-5)
    one_label = hybrid(document, label_ids=LABELS[:1])  # one label: every z-score is 0, the score is the bias
    np.testing.assert_array_equal(np.asarray(one_label), np.zeros((5, 1)))


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="embedding"):
        EmbeddingMatchHead(None, LABELS)
    with pytest.raises(ValueError, match="idf_weighted"):
        EmbeddingMatchHead(embedding()[0], LABELS, idf_weighted="yes")
    with pytest.raises(ValueError, match="standardize"):
        HybridHead([EmbeddingMatchHead(embedding()[0])], LABELS, standardize=1)


def test_chunked_top_k_of_a_standardised_hybrid_scores_every_label_at_once():
    table, _ = embedding()
    labels = np.random.default_rng(3).integers(2, V, size=(12, 3))
    ids = keras.Input((7,), dtype="int32")
    hybrid = HybridHead([LexicalMatchHead(table), EmbeddingMatchHead(table)], labels, standardize=True)
    model = keras.Model(ids, hybrid({"token_ids": ids}))
    assert hybrid.scores_depend_on_label_set
    full = model.predict(documents(), verbose=0)
    indices, scores = predict_top_k(model, documents(), k=3, label_chunk_size=4, verbose=0)
    np.testing.assert_array_equal(indices, np.argsort(-full, axis=1, kind="stable")[:, :3])
    np.testing.assert_allclose(scores, np.sort(full, axis=1)[:, ::-1][:, :3], atol=1e-6)
