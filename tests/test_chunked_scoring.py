"""predict_top_k / evaluate_in_chunks: equal to the dense computation, bounded chunk shapes."""

import keras
import numpy as np
import pytest
import scipy.sparse as sp
import tensorflow as tf

from keras_labelemb import metrics as klm
from keras_labelemb.evaluation import chunked_scoring, evaluate_in_chunks, predict_top_k, split_at_head, top_k_metrics
from keras_labelemb.models import document_classifier, wan

VOCAB, TOKENS, NUM_LABELS, NUM_DOCS = 60, 7, 23, 37


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(0)
    keras.utils.set_random_seed(0)
    label_ids = rng.integers(1, VOCAB, (NUM_LABELS, 3)).astype("int32")
    label_ids[::4, 2] = 0  # some shorter descriptions
    model = document_classifier(
        VOCAB, label_ids, flat=True, max_tokens=TOKENS, embedding_dim=8, encoder_units=8, joint_dim=8,
    )
    x = rng.integers(0, VOCAB, (NUM_DOCS, TOKENS)).astype("int32")
    full = model.predict(x, verbose=0)
    return model, x, full, label_ids


def dense_top_k(scores, k):
    """Indices of the k top scores per row, ties to the lower index (as ops.top_k)."""
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


# ----------------------------------------------------------------------------
# equality with the dense prediction
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("label_chunk_size", [1, 4, 7, 23, 100])  # 4 and 7 do not divide 23
@pytest.mark.parametrize("cache", [True, False])
def test_equals_top_k_of_dense_prediction(setup, label_chunk_size, cache):
    model, x, full, _ = setup
    k = 5
    indices, scores = predict_top_k(
        model, x, k, label_chunk_size=label_chunk_size, batch_size=10,
        cache_label_embeddings=cache, verbose=0,
    )
    assert indices.shape == scores.shape == (NUM_DOCS, k) and indices.dtype == np.int32
    np.testing.assert_array_equal(indices, dense_top_k(full, k))
    np.testing.assert_allclose(scores, np.take_along_axis(full, indices, axis=1), rtol=1e-5, atol=1e-6)


def test_k_equal_to_the_label_count_sorts_every_label(setup):
    model, x, full, _ = setup
    indices, _ = predict_top_k(model, x, NUM_LABELS, label_chunk_size=6, batch_size=16, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(full, NUM_LABELS))


def test_another_label_set(setup):
    model, x, _, _ = setup
    rng = np.random.default_rng(1)
    new_ids = rng.integers(1, VOCAB, (31, 4)).astype("int32")
    encoder, head = split_at_head(model)
    dense = keras.ops.convert_to_numpy(head(encoder.predict(x, verbose=0), label_ids=new_ids))
    indices, scores = predict_top_k(model, x, 4, label_ids=new_ids, label_chunk_size=5, batch_size=9, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(dense, 4))
    np.testing.assert_allclose(scores, np.take_along_axis(dense, indices, axis=1), rtol=1e-5, atol=1e-6)
    assert head.label_ids.shape[0] == NUM_LABELS  # the model's own label set is untouched


def test_linear_head_scores_subsets():
    rng = np.random.default_rng(2)
    model = wan(VOCAB, 19, max_tokens=TOKENS, embedding_dim=8, encoder_units=8)
    x = rng.integers(1, VOCAB, (21, TOKENS))
    full = model.predict(x, verbose=0)
    indices, _ = predict_top_k(model, x, 3, label_chunk_size=5, batch_size=8, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(full, 3))
    with pytest.raises(ValueError, match="`label_ids`.*linear"):
        predict_top_k(model, x, 3, label_ids=np.ones((4, 2), "int32"), verbose=0)


def test_dataset_and_generator_inputs(setup):
    model, x, full, _ = setup
    y = np.zeros((NUM_DOCS, NUM_LABELS), "float32")
    want = dense_top_k(full, 3)
    dataset = tf.data.Dataset.from_tensor_slices(x).batch(8)
    indices, _ = predict_top_k(model, dataset, 3, label_chunk_size=5, verbose=0)
    np.testing.assert_array_equal(indices, want)
    with_targets = tf.data.Dataset.from_tensor_slices((x, y)).batch(11)  # (x, y) batches: x is used
    indices, _ = predict_top_k(model, with_targets, 3, label_chunk_size=5, verbose=0)
    np.testing.assert_array_equal(indices, want)
    generator = (x[i : i + 6] for i in range(0, NUM_DOCS, 6))
    indices, _ = predict_top_k(model, generator, 3, label_chunk_size=5, verbose=0)
    np.testing.assert_array_equal(indices, want)


def test_merge_matches_top_k_with_ties():
    rng = np.random.default_rng(3)
    scores = (rng.integers(0, 3, (9, 50)) / 2.0).astype("float32")  # many ties
    for k, chunk in ((1, 7), (5, 3), (12, 11), (50, 16)):
        top_scores = top_indices = None
        for start in range(0, 50, chunk):
            top_scores, top_indices = chunked_scoring._merge_top_k(
                top_scores, top_indices, scores[:, start : start + chunk], start, k
            )
        want_scores, want_indices = keras.ops.top_k(scores, k)
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(top_indices), keras.ops.convert_to_numpy(want_indices))
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(top_scores), keras.ops.convert_to_numpy(want_scores))


# ----------------------------------------------------------------------------
# bounded memory (structural), progress bar
# ----------------------------------------------------------------------------


def test_no_score_block_larger_than_batch_by_chunk(setup, monkeypatch):
    model, x, _, _ = setup
    seen = []
    merge = chunked_scoring._merge_top_k

    def recording_merge(top_scores, top_indices, chunk_scores, offset, k):
        seen.append((tuple(chunk_scores.shape), offset, None if top_scores is None else tuple(top_scores.shape)))
        return merge(top_scores, top_indices, chunk_scores, offset, k)

    monkeypatch.setattr(chunked_scoring, "_merge_top_k", recording_merge)
    batch_size, chunk, k = 10, 4, 3
    predict_top_k(model, x, k, label_chunk_size=chunk, batch_size=batch_size, verbose=0)
    batches, chunks = -(-NUM_DOCS // batch_size), -(-NUM_LABELS // chunk)
    assert len(seen) == batches * chunks
    for (rows, width), offset, running in seen:
        assert rows <= batch_size and width <= chunk  # never (B, L)
        assert offset % chunk == 0 and width == min(chunk, NUM_LABELS - offset)
        assert running is None or running[1] <= k  # the running top-k stays k wide
    assert sorted({offset for _, offset, _ in seen}) == list(range(0, NUM_LABELS, chunk))


def test_label_embeddings_are_encoded_once_per_chunk(setup, monkeypatch):
    model, x, _, _ = setup
    head = split_at_head(model)[1]
    calls = []
    encode = head.encode_labels
    monkeypatch.setattr(head, "encode_labels", lambda ids=None: calls.append(len(ids)) or encode(ids))
    predict_top_k(model, x, 2, label_chunk_size=6, batch_size=10, verbose=0)
    assert calls == [6, 6, 6, 5]  # once per chunk, not once per (batch, chunk)


def test_progress_bar_over_document_batches(setup, capsys):
    model, x, _, _ = setup
    predict_top_k(model, x, 2, label_chunk_size=10, batch_size=10, verbose=1)
    out = capsys.readouterr().out
    assert "4/4" in out and "batch" in out
    predict_top_k(model, x, 2, label_chunk_size=10, batch_size=10, verbose=0)
    assert capsys.readouterr().out == ""


# ----------------------------------------------------------------------------
# metrics from top-k lists
# ----------------------------------------------------------------------------


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
    top = dense_top_k(scores, 5)
    forms = {
        "dense": y,
        "sparse": sp.csr_matrix(y),
        "lists": [list(np.flatnonzero(row)) for row in y],
    }
    results = {name: top_k_metrics(top, targets, k=(1, 3, 5), propensities=propensities) for name, targets in forms.items()}
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


def test_evaluate_in_chunks_equals_dense_metrics(setup):
    model, x, full, _ = setup
    y = random_targets(5, NUM_DOCS, NUM_LABELS)
    propensities = klm.label_propensities(y.sum(axis=0), NUM_DOCS * 100)
    got = evaluate_in_chunks(
        model, x, sp.csr_matrix(y), k=[1, 5], propensities=propensities,
        label_chunk_size=7, batch_size=10, verbose=0,
    )
    assert sorted(got) == ["documents", "ndcg_at_1", "ndcg_at_5", "precision_at_1", "precision_at_5",
                           "psp_at_1", "psp_at_5"]
    for k in (1, 5):
        assert got[f"precision_at_{k}"] == pytest.approx(streamed(klm.PrecisionAtK(k), y, full), abs=1e-6)
        assert got[f"ndcg_at_{k}"] == pytest.approx(streamed(klm.NDCGAtK(k), y, full), abs=1e-6)
        assert got[f"psp_at_{k}"] == pytest.approx(
            streamed(klm.PropensityPrecisionAtK(propensities, k), y, full), rel=1e-5
        )


# ----------------------------------------------------------------------------
# bad arguments
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"k": NUM_LABELS + 1}, rf"`k`.*\({NUM_LABELS}\).*k={NUM_LABELS + 1}"),
        ({"k": 0}, "`k`.*k=0"),
        ({"k": 2.0}, r"`k`.*k=2\.0"),
        ({"k": 2, "label_chunk_size": 0}, "`label_chunk_size`.*label_chunk_size=0"),
        ({"k": 2, "label_chunk_size": -3}, "`label_chunk_size`.*label_chunk_size=-3"),
        ({"k": 2, "label_chunk_size": 1.5}, r"`label_chunk_size`.*label_chunk_size=1\.5"),
        ({"k": 2, "batch_size": 0}, "`batch_size`.*batch_size=0"),
        ({"k": 2, "verbose": 3}, "`verbose`.*verbose=3"),
        ({"k": 2, "label_ids": np.ones(5, "int32")}, "`label_ids`.*shape"),
        ({"k": 40, "label_ids": np.ones((30, 2), "int32")}, r"`k`.*\(30\).*k=40"),
    ],
)
def test_bad_arguments(setup, kwargs, match):
    model, x, _, _ = setup
    with pytest.raises(ValueError, match=match):
        predict_top_k(model, x, **{"k": 2, "verbose": 0, **kwargs})


def test_models_without_a_usable_head():
    plain = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="no output head"):
        predict_top_k(plain, np.zeros((2, 4)), 1, verbose=0)
    with pytest.raises(ValueError, match="`model` must be a keras.Model"):
        split_at_head("not a model")


def test_head_followed_by_another_layer_is_rejected(setup):
    model, _, _, _ = setup
    probabilities = keras.Model(model.inputs, keras.layers.Activation("sigmoid")(model.outputs[0]))
    with pytest.raises(ValueError, match="only output"):
        split_at_head(probabilities)
