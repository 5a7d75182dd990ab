"""top_k_metrics / evaluate_in_chunks: equal to the streaming metrics and to the dense computation."""

import keras
import numpy as np
import pytest
import scipy.sparse as sp

from keras_labelemb import metrics as klm
from keras_labelemb.evaluation.top_k_metrics import evaluate_in_chunks, top_k_metrics

NUM_LABELS, NUM_DOCS = 23, 37  # as the `top_k_setup` fixture (conftest.py)


def streamed(metric, y, s):
    metric.update_state(y, s)
    return float(keras.ops.convert_to_numpy(metric.result()))


def random_targets(seed, n, num_labels):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, num_labels)) < 0.2).astype("float32")
    y[0] = 0.0  # documents with no positive
    y[4] = 0.0
    y[2] = 1.0
    return y


@pytest.mark.parametrize("seed", [0, 1])
def test_top_k_metrics_match_the_streaming_metrics(seed):
    n, num_labels = 40, 17
    y = random_targets(seed, n, num_labels)
    scores = np.random.default_rng(seed + 10).random((n, num_labels)).astype("float32")
    propensities = klm.label_propensities(np.random.default_rng(seed).integers(0, 300, num_labels), 1000)
    top = np.argsort(-scores, axis=1, kind="stable")[:, :5]  # ties to the lower index, as ops.top_k
    forms = {
        "dense": y,
        "sparse": sp.csr_matrix(y),
        "lists": [list(np.flatnonzero(row)) for row in y],
    }
    results = {
        name: top_k_metrics(top, targets, k=(1, 3, 5), propensities=propensities) for name, targets in forms.items()
    }
    assert results["dense"] == results["sparse"] == results["lists"]
    got = results["dense"]
    assert got["documents"] == n
    for k in (1, 3, 5):
        assert got[f"precision_at_{k}"] == pytest.approx(streamed(klm.PrecisionAtK(k), y, scores), abs=1e-6)
        assert got[f"ndcg_at_{k}"] == pytest.approx(streamed(klm.NDCGAtK(k), y, scores), abs=1e-6)
        assert got[f"psp_at_{k}"] == pytest.approx(
            streamed(klm.PropensityPrecisionAtK(propensities, k), y, scores), rel=1e-5
        )


def test_top_k_metrics_targets_conventions():
    top = np.array([[2, 0], [1, 2], [0, 1]])
    # duplicated label indices count once; sparse zeros and values <= 0.5 are not relevant
    lists = [[0, 2, 2], [], [1]]
    sparse = sp.csr_matrix(np.array([[1, 0, 1], [0, 0.2, 0], [0, 1, 0]]))
    assert top_k_metrics(top, lists, k=2) == top_k_metrics(top, sparse, k=2)
    report = top_k_metrics(top, lists, k=[1, 2], propensities=[0.5, 0.25, 1.0])
    assert report["precision_at_1"] == pytest.approx(1 / 3)
    assert report["precision_at_2"] == pytest.approx((1 + 0 + 0.5) / 3)
    # 1/p = [2, 4, 1]. PSP@1: retrieved 1 (doc 0) + 0 (doc 2) over best 2 + 4;
    # PSP@2: every positive retrieved, so 1
    assert report["psp_at_1"] == pytest.approx(1 / 6)
    assert report["psp_at_2"] == pytest.approx(1.0)
    assert top_k_metrics(np.zeros((0, 2), "int32"), [], k=1, num_labels=3)["precision_at_1"] == 0.0


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((np.array([[0, 1]]), [[0]]), {"k": 3}, r"`k`.*\(2\).*k=3"),
        ((np.array([[0, 1]]), [[0]]), {"k": 0}, "`k`.*k=0"),
        ((np.array([[0.0, 1.0]]), [[0]]), {}, "`top_indices`"),
        ((np.array([[0, 5]]), np.zeros((1, 4))), {"k": 1}, r"`top_indices`.*\[0, 4\)"),
        ((np.array([[0, 1]]), np.zeros((2, 4))), {"k": 1}, "Dense `targets`"),
        ((np.array([[0, 1]]), [[0], [1]]), {"k": 1}, "all 1 documents"),
        ((np.array([[0, 1]]), [[7]]), {"k": 1, "num_labels": 4}, r"`targets`.*\[0, 4\)"),
        ((np.array([[0, 1]]), [[0]]), {"k": 1, "propensities": [0.5, 0.5], "num_labels": 3}, "`propensities`"),
    ],
)
def test_top_k_metrics_bad_arguments(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        top_k_metrics(*args, **kwargs)


def test_evaluate_in_chunks_equals_dense_metrics(top_k_setup):
    model, x, full, _ = top_k_setup
    y = random_targets(5, NUM_DOCS, NUM_LABELS)
    propensities = klm.label_propensities(y.sum(axis=0), NUM_DOCS * 100)
    got = evaluate_in_chunks(
        model,
        x,
        sp.csr_matrix(y),
        k=[1, 5],
        propensities=propensities,
        label_chunk_size=7,
        batch_size=10,
        verbose=0,
    )
    assert sorted(got) == [
        "documents",
        "ndcg_at_1",
        "ndcg_at_5",
        "precision_at_1",
        "precision_at_5",
        "psp_at_1",
        "psp_at_5",
    ]
    for k in (1, 5):
        assert got[f"precision_at_{k}"] == pytest.approx(streamed(klm.PrecisionAtK(k), y, full), abs=1e-6)
        assert got[f"ndcg_at_{k}"] == pytest.approx(streamed(klm.NDCGAtK(k), y, full), abs=1e-6)
        assert got[f"psp_at_{k}"] == pytest.approx(
            streamed(klm.PropensityPrecisionAtK(propensities, k), y, full), rel=1e-5
        )


# ----------------------------------------------------------------------------
# bad arguments
# ----------------------------------------------------------------------------
