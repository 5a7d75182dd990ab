"""The learned word-interaction zero-shot scorer of benchmarks/zero_shot_interaction.py, against direct references."""

import numpy as np

from benchmarks import zero_shot_interaction as zsi


def _unit(rng, rows, dim):
    v = rng.normal(size=(rows, dim))
    v[0] = 0.0  # padding
    v[1:] /= np.linalg.norm(v[1:], axis=1, keepdims=True)
    return v


def test_kernel_features_match_a_word_by_word_loop():
    rng = np.random.default_rng(0)
    unit = _unit(rng, 12, 5)
    docs = np.array([[[1, 2, 0], [3, 3, 0]], [[0, 0, 0], [0, 0, 0]], [[4, 5, 6], [7, 0, 0]]])  # (N, sentences, words)
    labels = np.array([[2, 8, 0], [9, 0, 0]])
    weights = rng.random(12) + 0.5
    for word_weights in (None, weights):
        got = zsi.kernel_features(docs, labels, unit, word_weights)
        assert got.shape == (3, 2, len(zsi.KERNEL_CENTRES))
        for n, doc in enumerate(docs.reshape(3, -1)):
            doc = doc[doc > 0]
            for j, label in enumerate(labels):
                words = label[label > 0]
                w = np.ones(len(words)) if word_weights is None else word_weights[words]
                if len(doc) == 0:
                    np.testing.assert_array_equal(got[n, j], 0.0)  # an empty document: zeros, not NaN
                    continue
                per_word = [
                    np.log1p(
                        [
                            sum(np.exp(-((unit[q] @ unit[d] - mu) ** 2) / (2 * s**2)) for d in doc)
                            for mu, s in zip(zsi.KERNEL_CENTRES, zsi.KERNEL_WIDTHS)
                        ]
                    )
                    for q in words
                ]
                expected = (np.array(per_word) * w[:, None]).sum(axis=0) / w.sum()
                np.testing.assert_allclose(got[n, j], expected, rtol=1e-5, atol=1e-6)


def test_exact_match_kernel_counts_repeated_words():
    unit = np.eye(4)
    features = zsi.kernel_features(np.array([[1, 1, 1, 2]]), np.array([[1, 0]]), unit)
    assert np.isclose(features[0, 0, 0], np.log(1 + 3))  # the word occurs three times


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


def test_document_frequencies_give_rarer_words_a_larger_idf():
    idf = zsi.document_frequencies(np.array([[1, 2, 0], [1, 3, 3], [1, 0, 0]]), 5)
    assert idf[1] < idf[2] == idf[3] < idf[4]  # 1 in every document; 2 and 3 in one (3 twice in it); 4 in none
