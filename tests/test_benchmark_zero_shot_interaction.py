"""The learned word-interaction zero-shot scorer of benchmarks/zero_shot_interaction.py, against direct references."""

import numpy as np

from benchmarks import zero_shot_interaction as zsi


def test_kernel_features_are_the_library_heads_in_batches():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(12, 5)).astype("float32")
    docs = rng.integers(0, 12, size=(7, 2, 3)).astype("int32")  # (N, sentences, words)
    labels = np.array([[2, 8, 0], [9, 1, 0]], "int32")
    head = zsi.interaction_head(vectors, labels, idf_from=docs)
    got = zsi.kernel_features(head, docs, labels, batch_size=3)
    expected = head.kernel_features({"token_ids": docs}, head.embed_labels(labels))
    assert got.shape == (7, 2, len(head.kernel_centres))
    np.testing.assert_allclose(got, np.asarray(expected), atol=1e-6)
    assert head.description_weighting == "idf" and not head.embedding.trainable


def test_listwise_fit_gradient_and_that_it_learns_the_informative_feature():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 5, 3))
    targets = np.zeros((60, 5))
    targets[np.arange(60), np.argmax(x[..., 1], axis=1)] = 1  # feature 1 decides the positive
    targets[:3] = 0  # documents without a positive are left out
    keep = targets.sum(axis=1) > 0
    p = targets[keep] / targets[keep].sum(axis=1, keepdims=True)

    def loss(w):
        s = x[keep] @ w
        log_softmax = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        return -(p * log_softmax).sum() / keep.sum() + 0.01 * w @ w

    def gradient(w):  # finite differences of the reference loss
        return np.array([(loss(w + e) - loss(w - e)) / 2e-6 for e in np.eye(3) * 1e-6])

    w = zsi.fit_listwise(x, targets, l2=0.01)
    assert np.linalg.norm(gradient(w)) < 1e-3  # a minimum of the reference loss
    assert w[1] > 1.0 and abs(w[0]) < 0.5 * w[1] and abs(w[2]) < 0.5 * w[1]
