import keras
import numpy as np
import pytest

from keras_labelemb.evaluation import LabelIndex, predict_top_k
from keras_labelemb.layers import (
    DrillHead,
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    LinearHead,
    WideHead,
)
from keras_labelemb.models import document_classifier, gile_wan, set_labels, wan

VOCABULARY = 60


def distinct_labels(count, width=3, seed=0):
    """`count` label descriptions, no two alike (ties in the scores would make top-k orders ambiguous)."""
    rng = np.random.default_rng(seed)
    rows = set()
    while len(rows) < count:
        rows.add(tuple(rng.integers(2, VOCABULARY, width)))
    return np.array(sorted(rows), "int32")


def inner_product_heads():
    embedding = keras.layers.Embedding(VOCABULARY, 8, mask_zero=True)
    labels = distinct_labels(7)
    heads = [
        GileHead(embedding, label_ids=labels, joint_dim=5, variant=v, bias_initializer="ones")
        for v in ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input")
    ]
    heads += [DrillHead(embedding, label_ids=labels, depth=2, bias_mode=m) for m in ("per_label", "shared", "none")]
    return heads + [LinearHead(7, bias_initializer="glorot_uniform")]


@pytest.mark.parametrize("head", inner_product_heads(), ids=lambda h: f"{type(h).__name__}-{h.name}")
def test_logits_are_inner_products_of_the_two_sides(head):
    h = np.random.default_rng(1).normal(size=(4, 8)).astype("float32")
    head(h)  # builds it
    if getattr(head, "bias", None) is not None:  # a bias that is not 0 must be folded in
        head.bias.assign(np.random.default_rng(2).normal(size=head.bias.shape).astype("float32"))
    logits = np.asarray(head(h))
    queries = np.asarray(head.query_vectors(h))
    np.testing.assert_allclose(queries @ np.asarray(head.label_vectors()).T, logits, rtol=1e-5, atol=1e-5)
    rows = np.array([5, 0, 3])
    np.testing.assert_allclose(
        queries @ np.asarray(head.label_vectors(label_indices=rows)).T, logits[:, rows], rtol=1e-5, atol=1e-5
    )
    if head.scores_label_sets:
        other = distinct_labels(4, seed=3)
        expected = np.asarray(head(h, label_ids=other))
        np.testing.assert_allclose(queries @ np.asarray(head.label_vectors(label_ids=other)).T, expected, atol=1e-5)


def test_heads_that_are_not_inner_products_say_so():
    embedding = keras.layers.Embedding(VOCABULARY, 8, mask_zero=True)
    labels = distinct_labels(3)
    lexical = LexicalMatchHead(embedding, label_ids=labels)
    hybrid = HybridHead([GileHead(embedding, joint_dim=4, name="gile"), lexical], label_ids=labels)
    for head in (lexical, hybrid, WideHead(3)):
        assert not head.scores_are_inner_products
        with pytest.raises(ValueError, match="inner product"):
            head.label_vectors()
    lexical = LexicalMatchHead(keras.layers.Embedding(VOCABULARY, 8, mask_zero=True), labels)
    model = document_classifier(HierarchicalAttention("dense", 4, flat=True), lexical, max_tokens=5)
    with pytest.raises(ValueError, match="no inner-product index"):
        LabelIndex(model, kind="flat", verbose=0)


def drill_wan(labels):
    embedding = keras.layers.Embedding(VOCABULARY, 100, mask_zero=True)
    head = DrillHead(embedding, labels, depth=2, activation="tanh", input_projection=True)
    return document_classifier(HierarchicalAttention("dense", 8, flat=True), head, max_tokens=6)


def models():
    labels = distinct_labels(600)
    return {
        "gile": gile_wan(VOCABULARY, labels, max_tokens=6, units=8, joint_dim=12),
        "drill": drill_wan(labels),
        "linear": wan(VOCABULARY, 600, max_tokens=6, units=8),
    }


@pytest.fixture(scope="module")
def built_models():
    keras.utils.set_random_seed(0)
    return models()


DOCUMENTS = np.random.default_rng(5).integers(1, VOCABULARY, (40, 6)).astype("int32")


@pytest.mark.parametrize("name", ["gile", "drill", "linear"])
@pytest.mark.parametrize(
    "kind, options",
    [
        ("flat", {}),
        ("ivf", {"nlist": 8, "nprobe": 8}),
        ("ivf_pq", {"nlist": 8, "nprobe": 8, "refine_factor": 200}),
        ("hnsw", {"ef_search": 600}),
    ],
)
def test_index_top_k_equals_exact_top_k_on_a_small_label_set(built_models, name, kind, options):
    """Every list scanned (IVF; for IVF-PQ as many candidates re-scored as there are labels) or a candidate pool
    as large as the label set (HNSW): the search is exhaustive."""
    model = built_models[name]
    full = model.predict(DOCUMENTS, verbose=0)
    exact_indices, exact_scores = predict_top_k(model, DOCUMENTS, 5, verbose=0, cache_label_embeddings=False)
    indices, scores = LabelIndex(model, kind=kind, verbose=0, **options).search(DOCUMENTS, 5, batch_size=16)
    # The same top-k up to labels whose scores tie to rounding: the k best scores, and each label's own score.
    np.testing.assert_allclose(scores, exact_scores, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.take_along_axis(full, indices, axis=1), scores, rtol=1e-4, atol=1e-4)
    assert np.mean(indices == exact_indices) > 0.95


def test_exact_top_k_with_the_cached_label_side_equals_scoring_per_chunk(built_models):
    model = built_models["gile"]
    cached = predict_top_k(model, DOCUMENTS, 7, label_chunk_size=128, verbose=0)
    uncached = predict_top_k(model, DOCUMENTS, 7, label_chunk_size=128, verbose=0, cache_label_embeddings=False)
    np.testing.assert_array_equal(cached[0], uncached[0])
    np.testing.assert_allclose(cached[1], uncached[1], rtol=1e-5, atol=1e-5)


def test_a_new_label_set_needs_a_rebuilt_index_and_the_index_round_trips(tmp_path):
    keras.utils.set_random_seed(0)
    model = gile_wan(VOCABULARY, distinct_labels(50), max_tokens=6, units=8, joint_dim=12)
    index = LabelIndex(model, kind="hnsw", verbose=0)
    before = index.search(DOCUMENTS, 3)
    index.save(str(tmp_path / "index"))
    restored = LabelIndex.load(str(tmp_path / "index"), model)
    np.testing.assert_array_equal(restored.search(DOCUMENTS, 3)[0], before[0])
    set_labels(model, distinct_labels(30, seed=9))
    for stale in (index, restored):
        with pytest.raises(ValueError, match="build"):
            stale.search(DOCUMENTS, 3)
    restored.build()  # a loaded index rebuilds with the settings it was saved with
    assert restored.num_labels == 30 and restored.index.hnsw.efSearch == index.ef_search
    index.build()
    np.testing.assert_allclose(
        index.search(DOCUMENTS, 3)[1], predict_top_k(model, DOCUMENTS, 3, verbose=0)[1], atol=1e-4
    )
    with pytest.raises(ValueError, match="at most the number of labels"):
        index.search(DOCUMENTS, 31)
    with pytest.raises(ValueError, match="kind"):
        LabelIndex(model, kind="annoy")


def test_an_ivf_pq_index_round_trips_with_its_refinement(tmp_path):
    keras.utils.set_random_seed(0)
    model = gile_wan(VOCABULARY, distinct_labels(300), max_tokens=6, units=8, joint_dim=15)
    index = LabelIndex(model, kind="ivf_pq", nlist=4, nprobe=2, refine_factor=3, verbose=0)
    assert index.index.d % 2 == 0  # the transform's coordinate and a zero column: two dimensions per code
    before = index.search(DOCUMENTS, 4)
    index.save(str(tmp_path / "index"))
    restored = LabelIndex.load(str(tmp_path / "index"), model)
    assert restored.refine_factor == 3 and restored.index.k_factor == 3
    np.testing.assert_array_equal(restored.search(DOCUMENTS, 4)[0], before[0])
    full = model.predict(DOCUMENTS, verbose=0)  # the scores returned are the model's, re-scored exactly
    np.testing.assert_allclose(np.take_along_axis(full, before[0], axis=1), before[1], rtol=1e-4, atol=1e-4)


def test_an_ivf_index_with_a_graph_over_its_lists_searches_them_all_exactly_and_round_trips(built_models, tmp_path):
    model = built_models["gile"]
    exact_indices, exact_scores = predict_top_k(model, DOCUMENTS, 5, verbose=0)
    index = LabelIndex(model, kind="ivf", nlist=8, nprobe=8, coarse="hnsw", verbose=0)
    indices, scores = index.search(DOCUMENTS, 5)
    np.testing.assert_allclose(scores, exact_scores, rtol=1e-4, atol=1e-4)
    index.save(str(tmp_path / "index"))
    restored = LabelIndex.load(str(tmp_path / "index"), model)
    assert restored.coarse == "hnsw"
    np.testing.assert_array_equal(restored.search(DOCUMENTS, 5)[0], indices)
    with pytest.raises(ValueError, match="coarse"):
        LabelIndex(model, kind="ivf", coarse="kmeans", verbose=0)


@pytest.mark.parametrize("kind, options", [("ivf", {"nlist": 8, "nprobe": 1}), ("hnsw", {"ef_search": 1})])
def test_an_approximate_index_fills_every_slot_when_k_is_large(built_models, kind, options):
    """One IVF list of 8, or an `efSearch` of 1, holds fewer than k = 300 of 600 labels: faiss leaves -1 slots,
    and the search widens until each slot holds a distinct label with its own score; the settings come back."""
    model = built_models["gile"]
    index = LabelIndex(model, kind=kind, verbose=0, **options)
    indices, scores = index.search(DOCUMENTS[:4], 300, batch_size=4)
    assert (indices >= 0).all() and np.isfinite(scores).all()
    assert all(len(set(row)) == 300 for row in indices.tolist())
    full = model.predict(DOCUMENTS[:4], verbose=0)
    np.testing.assert_allclose(np.take_along_axis(full, indices, axis=1), scores, rtol=1e-4, atol=1e-4)
    assert (index.nprobe, index.ef_search) == (options.get("nprobe", 32), options.get("ef_search", index.ef_search))
    settings = (
        index.index.hnsw.efSearch if kind == "hnsw" else __import__("faiss").extract_index_ivf(index.index).nprobe
    )
    assert settings == 1
