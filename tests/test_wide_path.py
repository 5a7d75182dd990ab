"""Tests of `tasks.wide_path` and the `wide_deep` preset: the wide path is the SVM, the mix is the one chosen."""

import numpy as np
import pytest
import scipy.sparse
from sklearn.svm import LinearSVC
from task_helpers import LABELS, texts_and_targets

from keras_labelemb.layers import WideHead
from keras_labelemb.tasks import LabelClassifier, wide_path
from keras_labelemb.tasks.wide_path import choose_mix, fit_wide_path, sparse_rows
from keras_labelemb.text import TfidfVectorizer

SMALL = {"embedding_dim": 8, "max_tokens": 16, "description_length": 4}


def _problem(seed=0, n=60, features=30, labels=3):
    rng = np.random.default_rng(seed)
    x = scipy.sparse.random(n, features, density=0.2, random_state=seed, format="csr", dtype="float64")
    y = (rng.random((n, labels)) < 0.4).astype("float32")
    return x, y


def test_the_wide_path_scores_as_scikit_learns_linear_svm():
    x, y = _problem()
    wide = WideHead(3)
    fit_wide_path(wide, x, y, multi_label=True)  # no validation: the default C
    ours = np.asarray(wide(x.toarray().astype("float32")))
    for label in range(3):
        svm = LinearSVC(C=wide_path.DEFAULT_C, max_iter=5000).fit(x, y[:, label])
        np.testing.assert_allclose(ours[:, label], svm.decision_function(x), atol=1e-4)


def test_single_label_wide_path_is_the_one_vs_rest_svm_and_two_classes_are_opposite_columns():
    x, y = _problem(labels=3)
    classes = np.eye(3, dtype="float32")[np.arange(60) % 3]
    wide = WideHead(3)
    fit_wide_path(wide, x, classes, multi_label=False)
    svm = LinearSVC(C=wide_path.DEFAULT_C, max_iter=5000).fit(x, np.arange(60) % 3)
    np.testing.assert_allclose(np.asarray(wide(x.toarray().astype("float32"))), svm.decision_function(x), atol=1e-4)
    two = WideHead(2)
    fit_wide_path(two, x, np.eye(2, dtype="float32")[np.arange(60) % 2], multi_label=False)
    scores = np.asarray(two(x.toarray().astype("float32")))
    np.testing.assert_allclose(scores[:, 0], -scores[:, 1], atol=1e-6)


def test_a_label_without_positives_gets_a_constant_negative_score():
    x, y = _problem()
    y[:, 1] = 0.0
    wide = WideHead(3)
    fit_wide_path(wide, x, y)
    scores = np.asarray(wide(x.toarray().astype("float32")))
    np.testing.assert_allclose(scores[:, 1], -1.0)


def test_c_is_chosen_on_validation_and_the_grid_widens_at_its_edge(monkeypatch):
    x, y = _problem()
    seen = []

    def score(targets, logits, multi_label):  # the validation score rises with C up to 270, then falls
        c = seen[-1]
        return -abs(np.log(c) - np.log(270.0))

    real_svm = wide_path._svm
    monkeypatch.setattr(wide_path, "_svm", lambda x, y, c, m: (seen.append(c), real_svm(x, y, c, m))[1])  # noqa: B023
    monkeypatch.setattr(wide_path, "_score", score)
    choice = fit_wide_path(WideHead(3), x, y, x, y)
    assert choice["C"] == pytest.approx(270.0)
    assert max(seen) == pytest.approx(810.0)  # one step past the best: the choice is inside the grid
    assert sorted(seen)[: len(wide_path.C_GRID)] == list(wide_path.C_GRID)


def test_choose_mix_picks_the_best_validation_mix_of_the_scaled_logits():
    rng = np.random.default_rng(0)
    y = np.eye(4, dtype="float32")[rng.integers(0, 4, 200)]
    good = y * 3.0 + rng.normal(size=y.shape)  # component 1 knows the classes
    noise = rng.normal(size=y.shape) * 10.0
    chosen = choose_mix([noise, good], y, multi_label=False)
    assert chosen["mix"] < 0.5
    # Reference: every mix scored by accuracy; the first best kept.
    scores = [
        ((m * noise / noise.std() + (1 - m) * good / good.std()).argmax(1) == y.argmax(1)).mean()
        for m in wide_path.MIXES
    ]
    assert chosen["mix"] == pytest.approx(wide_path.MIXES[int(np.argmax(scores))])
    np.testing.assert_allclose(chosen["weights"], [chosen["mix"] / noise.std(), (1 - chosen["mix"]) / good.std()])


def test_sparse_rows_equals_the_vectorizers_dense_output():
    texts = ["wheat prices rose", "the bank raised rates", "", "wheat rates wheat"]
    sparse, dense = TfidfVectorizer(ngrams=2), TfidfVectorizer(ngrams=2, sparse=False)
    sparse.adapt(texts)
    dense.adapt(texts)
    np.testing.assert_allclose(sparse_rows(sparse, texts, batch_size=3).toarray(), sparse_rows(dense, texts).toarray())


@pytest.fixture(scope="module")
def wide_deep():
    texts, targets = texts_and_targets(48)
    classifier = LabelClassifier.from_preset("wide_deep", labels=LABELS, **SMALL)
    history = classifier.fit(texts, targets, validation_data=(texts[:24], targets[:24]), epochs=2, verbose=0)
    return classifier, history, texts, targets


@pytest.mark.slow  # the wide_deep fixture: three n-gram lengths solved, a deep path trained
def test_wide_deep_logits_are_the_chosen_mix_of_its_two_components(wide_deep):
    classifier, history, texts, _ = wide_deep
    choice = history.wide_deep
    assert set(choice) == {"ngrams", "C", "val_score", "mix", "mix_val_score"} and 0.0 <= choice["mix"] <= 1.0
    assert classifier.preprocessor.features.ngrams == choice["ngrams"] in wide_path.NGRAMS
    head = classifier.head
    weights = np.array(head.weights_by_component.numpy())
    logits = classifier.predict_logits(texts)
    parts = []
    for index in range(2):
        head.weights_by_component.assign(np.eye(2, dtype="float32")[index])
        parts.append(classifier.predict_logits(texts))
    head.weights_by_component.assign(weights)
    np.testing.assert_allclose(logits, weights[0] * parts[0] + weights[1] * parts[1], atol=1e-4)
    assert float(head.bias.numpy()) == 0.0
    assert not head.components[1].trainable and not head.weights_by_component.trainable


def test_wide_deep_refuses_a_dataset_it_cannot_solve_the_wide_path_on():
    import tensorflow as tf

    texts, targets = texts_and_targets(16)
    classifier = LabelClassifier.from_preset("wide_deep", labels=LABELS, **SMALL)
    dataset = tf.data.Dataset.from_tensor_slices((texts, np.zeros((16, len(LABELS)), "float32"))).batch(8)
    with pytest.raises(ValueError, match="not a tf.data.Dataset"):
        classifier.fit(dataset, epochs=1, verbose=0)


@pytest.mark.slow  # the wide_deep fixture: three n-gram lengths solved, a deep path trained
def test_a_relabelled_wide_deep_model_scores_new_labels_by_its_deep_path(wide_deep):
    classifier, _, texts, _ = wide_deep
    keep = classifier.get_weights()
    try:
        classifier.set_labels({"gold": "gold mining", "oil": "crude oil"})
        scores = classifier.predict(texts)
        assert scores.shape == (len(texts), 2) and np.isfinite(scores).all()
    finally:
        classifier.set_labels(LABELS)
        classifier.set_weights(keep)


def test_equal_validation_scores_keep_the_default_c_and_do_not_walk_to_an_edge(monkeypatch):
    x, y = _problem()
    monkeypatch.setattr(wide_path, "_score", lambda targets, logits, multi_label: 0.5)
    assert fit_wide_path(WideHead(3), x, y, x, y)["C"] == wide_path.DEFAULT_C
