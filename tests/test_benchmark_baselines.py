"""The baselines every benchmark result stands beside, checked against references."""

import numpy as np
import pytest
from sklearn.metrics import label_ranking_average_precision_score, label_ranking_loss

from benchmarks import baselines
from keras_labelemb.evaluation import ranking_report


@pytest.mark.slow  # ~1 s on 2 cores: the Monte Carlo side of the comparison
def test_random_ranking_expectation_matches_monte_carlo():
    rng = np.random.default_rng(0)
    y = (rng.random((40, 7)) < 0.25).astype("float32")
    y[0] = 0  # no relevant label: left out, as ranking_report does
    y[1] = 1  # every label relevant: ranking loss 0
    expected = baselines.random_ranking_expectation(y)
    kept = y[y.sum(axis=1) > 0]
    draws = [rng.random(kept.shape) for _ in range(300)]
    simulated = {
        "label_ranking_average_precision": [label_ranking_average_precision_score(kept, s) for s in draws],
        "ranking_loss": [label_ranking_loss(kept, s) for s in draws],
        "one_error": [1.0 - kept[np.arange(len(kept)), s.argmax(axis=1)].mean() for s in draws],
    }
    assert expected["documents"] == len(kept)
    for metric, values in simulated.items():
        standard_error = np.std(values) / np.sqrt(len(values))  # about 0.002 to 0.004 here
        assert expected[metric] == pytest.approx(np.mean(values), abs=4 * standard_error), metric


def test_tfidf_match_ranks_the_label_whose_words_the_document_uses():
    train = ["wheat and corn harvest", "interest rates rose", "gold mining output", "the bank said"]
    labels = ["wheat grain", "interest rates", "gold"]
    docs = ["the wheat harvest was large", "rates of interest fell", "gold output rose"]
    scores = baselines.tfidf_match_scores(train, docs, labels)
    assert scores.shape == (3, 3)
    np.testing.assert_array_equal(scores.argmax(axis=1), [0, 1, 2])
    report = ranking_report(np.eye(3), scores)
    assert report["one_error"] == 0.0


def test_embedding_cosine_is_the_cosine_of_mean_vectors_without_padding():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(10, 4))
    docs = np.array([[[1, 2, 0], [3, 0, 0]], [[4, 0, 0], [0, 0, 0]]])  # (N, sentences, words)
    labels = np.array([[5, 6], [7, 0]])
    scores = baselines.embedding_cosine_scores(docs, labels, vectors)

    def cosine(a, b):
        return a @ b / np.linalg.norm(a) / np.linalg.norm(b)

    doc_means = [vectors[[1, 2, 3]].mean(axis=0), vectors[[4]].mean(axis=0)]
    label_means = [vectors[[5, 6]].mean(axis=0), vectors[[7]].mean(axis=0)]
    reference = [[cosine(d, e) for e in label_means] for d in doc_means]
    np.testing.assert_allclose(scores, reference, rtol=1e-6)


def test_tuned_linear_svc_selects_on_validation():
    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(30)]

    def corpus(n):
        texts, y = [], np.zeros((n, 3), "float32")
        for i in range(n):
            label = i % 3
            y[i, label] = 1
            texts.append(" ".join([f"topic{label}"] * 2 + list(rng.choice(words, 5))))
        return texts, y

    (train, y_train), (val, y_val), (test, y_test) = corpus(60), corpus(30), corpus(30)
    decision, info = baselines.tuned_linear_svc(train, y_train, val, y_val, multi_label=True, c_grid=(0.01, 1.0))
    for ngram_range in baselines.NGRAM_GRID:  # every C given is tried; the grid widens where its best is at an edge
        tried = sorted(g["C"] for g in info["grid"] if g["ngram_range"] == list(ngram_range))
        assert {0.01, 1.0} <= set(tried)
    best = max(info["grid"], key=lambda g: g["val_score"])
    assert info["val_score"] == best["val_score"]
    np.testing.assert_array_equal(decision(test).argmax(axis=1), y_test.argmax(axis=1))
    # Multi-class: selected on accuracy, argmax of the decision values.
    decision, info = baselines.tuned_linear_svc(
        train, y_train.argmax(1), val, y_val.argmax(1), multi_label=False, ngram_grid=((1, 1),)
    )
    assert info["selected_on"] == "validation accuracy" and info["val_score"] == 1.0
    assert "threshold" not in info


def test_tuned_svm_scores_the_selected_model_on_test_as_scikit_learn_does():
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40)]

    def corpus(n):
        labels = rng.integers(0, 3, n)  # noisy: a third of the documents carry another topic's word
        noise = np.where(rng.random(n) < 0.3, rng.integers(0, 3, n), labels)
        texts = [f"topic{a} " + " ".join(rng.choice(words, 6)) for a in noise]
        return texts, np.eye(3, dtype="float32")[labels]

    (train, y_train), (val, y_val), (test, y_test) = corpus(90), corpus(45), corpus(60)
    grid = {"c_grid": (0.1, 1.0), "ngram_grid": ((1, 1),)}
    decision, report = baselines.tuned_svm(train, y_train, val, y_val, test, y_test, True, **grid)
    expected = baselines.classification_report(y_test, decision(test), report["threshold"])
    assert {k: report[k] for k in expected} == expected
    tried = sorted(g["C"] for g in report["grid"])
    assert set(grid["c_grid"]) <= set(tried) and report["C"] in tried
    # The chosen C is not at an edge of what was tried: the grid was widened past it (within 1e-3 .. 1e3).
    assert report["C"] not in (tried[0], tried[-1]) or report["C"] <= 1e-3 or report["C"] >= 1e3
    labels = {name: y.argmax(axis=1) for name, y in (("train", y_train), ("val", y_val), ("test", y_test))}
    decision, report = baselines.tuned_svm(
        train, labels["train"], val, labels["val"], test, labels["test"], False, **grid
    )
    accuracy = accuracy_score(labels["test"], decision(test).argmax(axis=1))
    assert report["accuracy"] == pytest.approx(accuracy) and report["error"] == pytest.approx(1 - accuracy)
    assert 0.0 < report["error"] < 1.0 and "threshold" not in report


def test_blend_is_the_weighted_sum_of_per_document_z_scores():
    rng = np.random.default_rng(3)
    learned, lexical = rng.normal(size=(4, 6)), rng.exponential(size=(4, 6))
    lexical[1] = 0.0  # a document no description word matches: z-scores 0, not NaN

    def z(s):
        return (s - s.mean(axis=1, keepdims=True)) / (s.std(axis=1, keepdims=True) + 1e-6)

    np.testing.assert_allclose(
        baselines.blend_scores(learned, lexical, 0.3), 0.7 * z(learned) + 0.3 * z(lexical), atol=1e-5
    )
    y = np.eye(6)[[0, 1, 2, 3]]
    weight, curve = baselines.choose_blend_weight(y, learned, y * 5)  # lexical scores that rank each positive first
    assert curve[1.0] == curve[weight] == 1.0 and curve[0.0] < 1.0
