"""predict_top_k: equal to the dense computation, bounded chunk shapes, every LabelHead."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.evaluation import predict_top_k, top_k_prediction
from keras_labelemb.models import wan
from keras_labelemb.tasks import LabelClassifier

VOCAB, TOKENS, NUM_LABELS, NUM_DOCS = 60, 7, 23, 37  # as the `top_k_setup` fixture (conftest.py)


def dense_top_k(scores, k):
    """Indices of the k top scores per row, ties to the lower index (as ops.top_k)."""
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


# ----------------------------------------------------------------------------
# equality with the dense prediction
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("label_chunk_size", [1, 4, 7, 23, 100])  # 4 and 7 do not divide 23
@pytest.mark.parametrize("cache", [True, False])
def test_equals_top_k_of_dense_prediction(top_k_setup, label_chunk_size, cache):
    model, x, full, _ = top_k_setup
    k = 5
    indices, scores = predict_top_k(
        model,
        x,
        k,
        label_chunk_size=label_chunk_size,
        batch_size=10,
        cache_label_embeddings=cache,
        verbose=0,
    )
    assert indices.shape == scores.shape == (NUM_DOCS, k) and indices.dtype == np.int32
    np.testing.assert_array_equal(indices, dense_top_k(full, k))
    np.testing.assert_allclose(scores, np.take_along_axis(full, indices, axis=1), rtol=1e-5, atol=1e-6)


def test_k_equal_to_the_label_count_sorts_every_label(top_k_setup):
    model, x, full, _ = top_k_setup
    indices, _ = predict_top_k(model, x, NUM_LABELS, label_chunk_size=6, batch_size=16, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(full, NUM_LABELS))


def test_another_label_set(top_k_setup):
    model, x, _, _ = top_k_setup
    rng = np.random.default_rng(1)
    new_ids = rng.integers(1, VOCAB, (31, 4)).astype("int32")
    classifier = LabelClassifier.from_model(model)
    encoder, head = classifier.encoder, classifier.head
    dense = keras.ops.convert_to_numpy(head(encoder.predict(x, verbose=0), label_ids=new_ids))
    indices, scores = predict_top_k(model, x, 4, label_ids=new_ids, label_chunk_size=5, batch_size=9, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(dense, 4))
    np.testing.assert_allclose(scores, np.take_along_axis(dense, indices, axis=1), rtol=1e-5, atol=1e-6)
    assert head.label_ids.shape[0] == NUM_LABELS  # the model's own label set is untouched


def test_linear_head_scores_subsets():
    rng = np.random.default_rng(2)
    model = wan(VOCAB, 19, max_tokens=TOKENS, embedding_dim=8, units=8)
    x = rng.integers(1, VOCAB, (21, TOKENS))
    full = model.predict(x, verbose=0)
    indices, _ = predict_top_k(model, x, 3, label_chunk_size=5, batch_size=8, verbose=0)
    np.testing.assert_array_equal(indices, dense_top_k(full, 3))
    with pytest.raises(ValueError, match="`label_ids`.*linear"):
        predict_top_k(model, x, 3, label_ids=np.ones((4, 2), "int32"), verbose=0)


def test_dataset_and_generator_inputs(top_k_setup):
    model, x, full, _ = top_k_setup
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
            top_scores, top_indices = top_k_prediction._merge_top_k(
                top_scores, top_indices, scores[:, start : start + chunk], start, k
            )
        want_scores, want_indices = keras.ops.top_k(scores, k)
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(top_indices), keras.ops.convert_to_numpy(want_indices))
        np.testing.assert_array_equal(keras.ops.convert_to_numpy(top_scores), keras.ops.convert_to_numpy(want_scores))


# ----------------------------------------------------------------------------
# bounded memory (structural), progress bar
# ----------------------------------------------------------------------------


def test_no_score_block_larger_than_batch_by_chunk(top_k_setup, monkeypatch):
    model, x, _, _ = top_k_setup
    seen = []
    merge = top_k_prediction._merge_top_k

    def recording_merge(top_scores, top_indices, chunk_scores, offset, k):
        seen.append((tuple(chunk_scores.shape), offset, None if top_scores is None else tuple(top_scores.shape)))
        return merge(top_scores, top_indices, chunk_scores, offset, k)

    monkeypatch.setattr(top_k_prediction, "_merge_top_k", recording_merge)
    batch_size, chunk, k = 10, 4, 3
    predict_top_k(model, x, k, label_chunk_size=chunk, batch_size=batch_size, verbose=0)
    batches, chunks = -(-NUM_DOCS // batch_size), -(-NUM_LABELS // chunk)
    assert len(seen) == batches * chunks
    for (rows, width), offset, running in seen:
        assert rows <= batch_size and width <= chunk  # never (B, L)
        assert offset % chunk == 0 and width == min(chunk, NUM_LABELS - offset)
        assert running is None or running[1] <= k  # the running top-k stays k wide
    assert sorted({offset for _, offset, _ in seen}) == list(range(0, NUM_LABELS, chunk))


def test_label_embeddings_are_encoded_once_per_chunk(top_k_setup, monkeypatch):
    model, x, _, _ = top_k_setup
    head = LabelClassifier.from_model(model).head
    calls = []
    encode = head.embed_labels
    monkeypatch.setattr(head, "embed_labels", lambda ids=None: calls.append(len(ids)) or encode(ids))
    predict_top_k(model, x, 2, label_chunk_size=6, batch_size=10, verbose=0)
    assert calls == [6, 6, 6, 5]  # once per chunk, not once per (batch, chunk)


def test_an_inner_product_head_s_label_side_is_computed_once_per_chunk(top_k_setup, monkeypatch):
    model, x, full, _ = top_k_setup
    head = LabelClassifier.from_model(model).head
    assert head.scores_are_inner_products
    calls, side = [], head.label_vectors
    monkeypatch.setattr(head, "label_vectors", lambda **kwargs: calls.append(kwargs) or side(**kwargs))
    indices, _ = predict_top_k(model, x, 3, label_chunk_size=10, batch_size=10, verbose=0)
    assert len(calls) == 3  # 23 labels in chunks of 10, for all 4 document batches
    np.testing.assert_array_equal(indices, dense_top_k(full, 3))


def test_encoded_documents_give_the_same_top_k(top_k_setup):
    from keras_labelemb.evaluation.top_k_prediction import predict_top_k_encoded

    model, x, _, _ = top_k_setup
    classifier = LabelClassifier.from_model(model)
    encoder, head = classifier.encoder, classifier.head
    expected = predict_top_k(model, x, 4, label_chunk_size=7, verbose=0)
    found = predict_top_k_encoded(head, encoder.predict(x, verbose=0), 4, label_chunk_size=7, batch_size=9)
    np.testing.assert_array_equal(found[0], expected[0])
    np.testing.assert_allclose(found[1], expected[1], rtol=1e-6)


def test_progress_bar_over_document_batches(top_k_setup, capsys):
    model, x, _, _ = top_k_setup
    predict_top_k(model, x, 2, label_chunk_size=10, batch_size=10, verbose=1)
    out = capsys.readouterr().out
    assert "4/4" in out and "batch" in out
    predict_top_k(model, x, 2, label_chunk_size=10, batch_size=10, verbose=0)
    assert capsys.readouterr().out == ""


# ----------------------------------------------------------------------------
# metrics from top-k lists
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
def test_bad_arguments(top_k_setup, kwargs, match):
    model, x, _, _ = top_k_setup
    with pytest.raises(ValueError, match=match):
        predict_top_k(model, x, **{"k": 2, "verbose": 0, **kwargs})


def test_models_without_a_usable_head():
    plain = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    with pytest.raises(ValueError, match="no label head"):
        predict_top_k(plain, np.zeros((2, 4)), 1, verbose=0)
    with pytest.raises(ValueError, match="`model` must be a keras.Model"):
        predict_top_k("not a model", np.zeros((2, 4)), 1, verbose=0)


def test_head_followed_by_another_layer_is_rejected(top_k_setup):
    model, _, _, _ = top_k_setup
    probabilities = keras.Model(model.inputs, keras.layers.Activation("sigmoid")(model.outputs[0]))
    with pytest.raises(ValueError, match="only output"):
        predict_top_k(probabilities, np.zeros((2, TOKENS), "int32"), 1, verbose=0)
