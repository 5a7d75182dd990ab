"""HybridHead: the weighted sum, per-label components over changing label sets, saving, sampled training, top-k.

The shared layer contract (config, save/load, fit step, mixed precision) runs
through tests/layer_cases.py (`hybrid_head`).
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

import keras_labelemb
from keras_labelemb.layers import (
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    LinearHead,
    WordInteractionHead,
)
from keras_labelemb.layers.hybrid_head import label_columns, label_columns_in_graph
from keras_labelemb.models import document_classifier, set_labels
from keras_labelemb.models.document_classifier import prior_bias
from keras_labelemb.tasks import LabelClassifier

RNG = np.random.default_rng(17)
VOCAB, DIM, POOLED, T = 30, 5, 7, 6
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")
# Labels 0 and 1 swapped, an unseen label, label 3 with other padding, label 2 last.
RELABELLED = np.array([[5, 0, 0, 0], [3, 4, 0, 0], [13, 14, 0, 0], [9, 3, 0, 0], [6, 7, 8, 0]], "int32")
SEEN_COLUMNS = [1, 0, -1, 3, 2]
DOCUMENT = {
    "pooled": RNG.normal(size=(3, POOLED)).astype("float32"),
    "token_ids": np.array([[3, 4, 9, 1, 0, 0], [6, 7, 7, 13, 14, 2], [0, 0, 0, 0, 0, 0]], "int32"),
}
NAMES = ["gile", "lexical", "interaction", "linear"]


def make_hybrid():
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    components = [
        GileHead(embedding, joint_dim=4, name="gile"),
        LexicalMatchHead(embedding, name="lexical"),
        WordInteractionHead(embedding, name="interaction"),
        LinearHead(len(LABELS), name="linear"),
    ]
    head = HybridHead(components, label_ids=LABELS)
    head.build({"pooled": (None, POOLED), "token_ids": (None, T)})
    for variable in head.trainable_weights:  # biases and the hybrid's own weights too, so a dropped term shows
        variable.assign(RNG.normal(scale=0.7, size=variable.shape).astype("float32"))
    return head


def numpy_of(structure):
    return {name: ops.convert_to_numpy(value) for name, value in structure.items()}


# ---------------------------------------------------------------------------
# The weighted sum
# ---------------------------------------------------------------------------


def test_logits_are_the_weighted_sum_of_the_components():
    head = make_hybrid()
    parts = numpy_of(head.component_logits(DOCUMENT))
    assert list(parts) == NAMES
    a = ops.convert_to_numpy(head.weights_by_component)
    b = float(ops.convert_to_numpy(head.bias))
    expected = sum(a[i] * parts[name] for i, name in enumerate(NAMES)) + b
    np.testing.assert_allclose(ops.convert_to_numpy(head(DOCUMENT)), expected, atol=1e-5)
    # Each component scores the hybrid's label set from what it reads: the pooled vector or the document dict.
    gile, lexical, interaction, linear = head.components
    np.testing.assert_allclose(
        parts["gile"], ops.convert_to_numpy(gile(DOCUMENT["pooled"], label_ids=LABELS)), atol=1e-6
    )
    for component in (lexical, interaction):
        own = ops.convert_to_numpy(component(DOCUMENT, label_ids=LABELS))
        np.testing.assert_allclose(parts[component.name], own, atol=1e-6)
    np.testing.assert_allclose(parts["linear"], ops.convert_to_numpy(linear(DOCUMENT["pooled"])), atol=1e-6)
    assert min(np.abs(parts[name]).max() for name in NAMES) > 1e-3  # every component contributes


# ---------------------------------------------------------------------------
# A per-label component over other label sets
# ---------------------------------------------------------------------------


def expected_linear(head, columns):
    full = ops.convert_to_numpy(head.components[-1](DOCUMENT["pooled"]))
    columns = np.asarray(columns)
    return np.where(columns >= 0, full[:, np.maximum(columns, 0)], 0.0)


def check_relabelled(head, logits, parts):
    np.testing.assert_allclose(parts["linear"], expected_linear(head, SEEN_COLUMNS), atol=1e-6)
    assert np.all(parts["linear"][:, 2] == 0.0)  # the unseen label: exactly no linear contribution
    a = ops.convert_to_numpy(head.weights_by_component)
    expected = sum(a[i] * parts[name] for i, name in enumerate(NAMES)) + float(ops.convert_to_numpy(head.bias))
    np.testing.assert_allclose(logits, expected, atol=1e-5)


def test_set_labels_reorders_the_linear_columns_and_drops_it_for_unseen_labels():
    head = make_hybrid()
    before = ops.convert_to_numpy(head(DOCUMENT))
    np.testing.assert_allclose(
        numpy_of(head.component_logits(DOCUMENT))["linear"], expected_linear(head, [0, 1, 2, 3]), atol=1e-6
    )
    head.set_labels(RELABELLED)
    np.testing.assert_array_equal(head.seen_label_ids, LABELS)
    np.testing.assert_array_equal(head.label_ids, RELABELLED)
    logits = ops.convert_to_numpy(head(DOCUMENT))
    check_relabelled(head, logits, numpy_of(head.component_logits(DOCUMENT)))
    # The seen labels keep their scores, at their new positions.
    np.testing.assert_allclose(logits[:, [1, 0, 3, 4]], before[:, [0, 1, 3, 2]], atol=1e-5)


def test_call_time_labels_find_the_seen_columns_eagerly():
    head = make_hybrid()
    logits = ops.convert_to_numpy(head(DOCUMENT, label_ids=RELABELLED))
    check_relabelled(head, logits, numpy_of(head.component_logits(DOCUMENT, label_ids=RELABELLED)))
    by_embeddings = head(DOCUMENT, label_embeddings=head.embed_labels(RELABELLED))
    np.testing.assert_allclose(ops.convert_to_numpy(by_embeddings), logits, atol=1e-6)
    np.testing.assert_array_equal(head.label_ids, LABELS)  # the stored set is untouched
    # Traced labels (a served model's labels sent with a request) find the same columns in the graph.
    traced = tf.function(lambda document, ids: head(document, label_ids=ids))
    np.testing.assert_allclose(ops.convert_to_numpy(traced(DOCUMENT, RELABELLED)), logits, atol=1e-5)


def test_score_subset_equals_columns_of_the_full_call():
    head = make_hybrid()
    head.set_labels(RELABELLED)
    subset = ops.convert_to_numpy(head.score_subset(DOCUMENT, np.array([2, 0, 4])))
    np.testing.assert_allclose(subset, ops.convert_to_numpy(head(DOCUMENT))[:, [2, 0, 4]], atol=1e-6)


@pytest.mark.parametrize(
    "label_ids, seen, expected",
    [
        ([[5, 6, 0], [7, 0, 0]], [[7, 0], [5, 6]], [1, 0]),  # trailing padding does not matter
        ([[8, 0]], [[7, 0]], [-1]),
        ([[6, 5]], [[5, 6]], [-1]),  # word order does
        ([[5, 0, 6]], [[5, 6, 0]], [-1]),  # and so does padding inside
        ([[5, 0], [5, 0]], [[4, 0], [5, 0, 0], [5, 0]], [1, 2]),  # equal descriptions matched in order
        ([[4, 0, 0, 0]], [[4]], [0]),
    ],
)
def test_label_columns(label_ids, seen, expected):
    def padded(rows):
        width = max(len(row) for row in rows)
        return np.array([row + [0] * (width - len(row)) for row in rows], "int32")

    columns = label_columns(padded(label_ids), padded(seen))
    assert columns.dtype == np.int32
    assert columns.tolist() == expected
    # The graph version (labels whose values are known only when a compiled function runs) gives the same.
    assert ops.convert_to_numpy(label_columns_in_graph(padded(label_ids), padded(seen))).tolist() == expected
    traced = tf.function(label_columns_in_graph)(tf.constant(padded(label_ids)), tf.constant(padded(seen)))
    assert traced.numpy().tolist() == expected


def test_label_columns_in_graph_matches_the_numpy_rule_on_random_sets():
    rng = np.random.default_rng(3)
    for _ in range(20):
        seen = rng.integers(0, 4, size=(rng.integers(1, 8), 3))
        rows = np.concatenate([seen[rng.integers(0, len(seen), size=6)], rng.integers(0, 4, size=(4, 3))])
        rows = rows[rng.permutation(len(rows))]  # copies of seen rows (some repeated) among new ones
        expected = label_columns(rows, seen)
        np.testing.assert_array_equal(ops.convert_to_numpy(label_columns_in_graph(rows, seen)), expected)


# ---------------------------------------------------------------------------
# Through the model builder: saving, sampled training, chunked top-k
# ---------------------------------------------------------------------------


def hybrid_model(components, flat=True, labels=LABELS, standardize=False):
    keras.utils.set_random_seed(0)
    shape = {"max_tokens": T} if flat else {"max_sentences": 2, "max_sentence_length": T // 2}
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True, name="word_embedding")
    parts = {
        "gile": lambda: GileHead(embedding, joint_dim=4, name="gile_head"),
        "lexical": lambda: LexicalMatchHead(embedding, name="lexical_match_head"),
        "interaction": lambda: WordInteractionHead(embedding, name="word_interaction_head"),
        "linear": lambda: LinearHead(len(labels), name="linear_head"),
    }
    head = HybridHead(
        [parts[name]() for name in components],
        labels,
        standardize=standardize,
        bias_initializer=prior_bias(len(labels)),
        name="hybrid_head",
    )
    encoder = HierarchicalAttention("dense", 4, "dense", 4, flat=flat, dropout=0.2, name="document_encoder")
    return document_classifier(encoder, head, **shape)


def documents(n, flat=True):
    ids = RNG.integers(0, VOCAB, size=(n, T)).astype("int32")
    return ids if flat else ids.reshape(n, 2, T // 2)


@pytest.mark.parametrize("relabel", [True], ids=["relabelled"])  # the seen set alone: the layer contract
def test_keras_save_load_keeps_label_sets_idf_and_predictions(tmp_path, relabel):
    model = hybrid_model(["gile", "lexical", "linear"])
    x = documents(5)
    head = LabelClassifier.from_model(model).head
    head.adapt(documents(12))
    lexical = head.components[1]
    idf = ops.convert_to_numpy(lexical.idf)
    assert np.any((idf != 1.0) & (idf != 0.0))  # adapted
    if relabel:
        set_labels(model, RELABELLED)
    expected = model.predict(x, verbose=0)
    path = tmp_path / "hybrid.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    loaded_head = LabelClassifier.from_model(loaded).head
    np.testing.assert_array_equal(loaded_head.seen_label_ids, LABELS)
    np.testing.assert_array_equal(loaded_head.label_ids, RELABELLED if relabel else LABELS)
    np.testing.assert_array_equal(ops.convert_to_numpy(loaded_head.components[1].idf), idf)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, atol=1e-6)


@pytest.mark.parametrize("flat", [False], ids=["han"])  # sentences read as one sequence; flat: test_any_encoder
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_sampled_training_and_chunked_top_k(flat):
    labels = np.array([[3, 4], [5, 0], [6, 7], [9, 3], [10, 0], [11, 12], [13, 0], [14, 15]], "int32")
    model = hybrid_model(["gile", "lexical", "interaction", "linear"], flat=flat, labels=labels)
    trainer = LabelClassifier.from_model(model)
    head = trainer.head
    x = documents(8, flat)
    head.adapt(x)
    y = (RNG.random((8, len(labels))) < 0.25).astype("float32")
    y[:, 0] = 1.0
    loss = keras_labelemb.losses.SampledSigmoidLoss(num_negatives=3, max_positives=4, seed=0)
    trainer.compile(optimizer=keras.optimizers.Adam(0.05), loss=loss, run_eagerly=True)
    _, lexical, interaction, linear = head.components
    watched = [head.weights_by_component, lexical.scale, interaction.kernel_weights, linear.kernel]
    before = [ops.convert_to_numpy(v).copy() for v in watched]
    history = trainer.fit(x, y, batch_size=4, epochs=1, verbose=0)
    assert len(history.history["loss"]) == 1 and np.all(np.isfinite(history.history["loss"]))
    for variable, start in zip(watched, before):  # every kind of component trains
        assert not np.array_equal(ops.convert_to_numpy(variable), start), variable.path
    # Chunked top-k equals the dense top-3, over the seen labels re-ordered (flat) or with an unseen one (HAN).
    set_labels(model, labels[[2, 0, 1, 5, 4, 3, 7, 6]] if flat else np.vstack([labels, [[16, 17]]]))
    full = model.predict(x, verbose=0)
    indices, scores = keras_labelemb.evaluation.predict_top_k(model, x, k=3, label_chunk_size=2, verbose=0)
    top_scores, top_indices = ops.top_k(full, k=3)
    np.testing.assert_array_equal(indices, ops.convert_to_numpy(top_indices))
    np.testing.assert_allclose(scores, ops.convert_to_numpy(top_scores), atol=1e-5)


# ---------------------------------------------------------------------------
# Constructor errors
# ---------------------------------------------------------------------------


def test_a_hybrid_refuses_components_it_cannot_combine():
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    with pytest.raises(ValueError, match="non-empty list of LabelHead layers. Received: \\[\\]"):
        HybridHead([], LABELS)
    inner = HybridHead([GileHead(embedding, joint_dim=3)], LABELS)
    with pytest.raises(ValueError, match="other than a HybridHead"):
        HybridHead([GileHead(embedding, joint_dim=3), inner], LABELS)
    with pytest.raises(ValueError, match="distinct names"):
        HybridHead([GileHead(embedding, name="g"), LexicalMatchHead(embedding, name="g")], LABELS)
    with pytest.raises(ValueError, match="needs the shared embedding"):
        HybridHead([LinearHead(len(LABELS))], LABELS)


def test_a_hybrid_rebuilt_from_its_config_asks_for_its_seen_labels_before_relabelling():
    embedding = keras.layers.Embedding(VOCAB, 4, mask_zero=True)
    head = HybridHead([GileHead(embedding, joint_dim=3, name="g"), LinearHead(len(LABELS), name="lin")], LABELS)
    clone = HybridHead.from_config(head.get_config())
    with pytest.raises(ValueError, match="seen_label_ids"):
        clone.set_labels(LABELS[::-1])
    clone.set_seen_labels(LABELS)
    clone.set_labels(LABELS[::-1])
    assert clone.columns_of(LABELS[::-1]).tolist() == list(range(len(LABELS)))[::-1]


@pytest.mark.parametrize("standardize", [True, False], ids=["standardized", "plain"])
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_a_standardising_hybrid_freezes_the_weights_its_z_scores_cancel(standardize):
    # Their gradients are rounding noise there, which Adam turned into full-size steps (a lexical scale went
    # 1 -> 0.22 in 100 epochs on random labels and could cross 0, flipping the component's sign).
    model = hybrid_model(["gile", "lexical", "interaction", "linear"], standardize=standardize)
    head = LabelClassifier.from_model(model).head
    cancelled = [w for c in head.components for w in c.shift_and_scale_weights()]
    named = [(type(c).__name__, w.name) for c in head.components for w in c.shift_and_scale_weights()]
    assert named == [("GileHead", "bias"), ("LexicalMatchHead", "scale"), ("LexicalMatchHead", "bias")] + [
        ("WordInteractionHead", "bias")
    ]
    trainable = {w.path for w in model.trainable_weights}
    assert all((w.path in trainable) != standardize for w in cancelled)
    before = [ops.convert_to_numpy(w) for w in cancelled] + [ops.convert_to_numpy(head.weights_by_component)]
    model.compile(optimizer=keras.optimizers.Adam(0.1), loss="binary_crossentropy")
    model.fit(documents(16), RNG.integers(0, 2, (16, len(LABELS))), epochs=2, verbose=0)
    after = [ops.convert_to_numpy(w) for w in cancelled] + [ops.convert_to_numpy(head.weights_by_component)]
    assert [np.array_equal(b, a) for b, a in zip(before, after)] == [standardize] * len(cancelled) + [False]
    # Freezing and thawing the model (the usual fine-tuning pattern) leaves them as the hybrid wants them.
    model.trainable = False
    assert not model.trainable_weights
    model.trainable = True
    trainable = {w.path for w in model.trainable_weights}
    assert all((w.path in trainable) != standardize for w in cancelled) and head.weights_by_component.trainable


def test_relabelling_a_hybrid_gives_every_description_component_the_one_new_set():
    """Components built without a label set read the hybrid's: one set, replaced once, and no stale copy."""
    model = hybrid_model(["gile", "lexical", "linear"])
    head = LabelClassifier.from_model(model).head
    assert all(c.label_ids is None for c in head.components if c.reads_descriptions)
    x = documents(3)
    set_labels(model, RELABELLED)
    assert all(c.label_ids is None for c in head.components if c.reads_descriptions)
    alone = HybridHead([c for c in head.components], label_ids=RELABELLED, seen_label_ids=LABELS, name="again")
    encoder = LabelClassifier.from_model(model).encoder
    np.testing.assert_allclose(
        model.predict(x, verbose=0) - ops.convert_to_numpy(head.bias),
        ops.convert_to_numpy(alone(encoder.predict(x, verbose=0))) - ops.convert_to_numpy(alone.bias),
        atol=1e-5,
    )
    assert head.label_ids.shape == RELABELLED.shape


@keras.saving.register_keras_serializable(package="test_hybrid_head")
class WeightedMean(keras.layers.Layer):
    """A label encoder with weights: a learned projection of the mean word vector."""

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], input_shape[-1]), initializer="identity", name="kernel")

    def call(self, inputs, mask=None):
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        mean = ops.sum(inputs * weights, axis=-2) / ops.maximum(ops.sum(weights, axis=-2), 1.0)
        return ops.matmul(mean, self.kernel)


def test_a_label_encoder_given_once_reaches_every_description_head_and_saves_once(tmp_path):
    from keras_labelemb.layers import CosineHead

    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    encoder = WeightedMean(name="shared_encoder")
    components = [
        GileHead(embedding, joint_dim=4, name="gile"),
        CosineHead(embedding, name="cosine"),
        LexicalMatchHead(embedding, name="lexical"),
    ]
    head = HybridHead(components, label_ids=LABELS, label_encoder=encoder)
    assert [c.label_encoder for c in components[:2]] == [encoder] * 2
    assert components[2].label_encoder is None  # it reads the description words itself
    inputs = keras.Input((T,), dtype="int32")
    pooled = keras.layers.GlobalAveragePooling1D()(embedding(inputs))
    model = keras.Model(inputs, head({"pooled": keras.layers.Dense(POOLED)(pooled), "token_ids": inputs}))
    assert sum(w.path.endswith("shared_encoder/kernel") for w in model.weights) == 1  # one kernel, not two
    # The encoder reaches every component: changing its kernel changes each one's logits.
    before = {k: ops.convert_to_numpy(v) for k, v in head.component_logits(DOCUMENT).items()}
    encoder.kernel.assign(RNG.normal(size=(DIM, DIM)).astype("float32"))  # a rotation: cosines change too
    after = {k: ops.convert_to_numpy(v) for k, v in head.component_logits(DOCUMENT).items()}
    for name in ("gile", "cosine"):
        assert not np.allclose(before[name], after[name]), name
    np.testing.assert_array_equal(before["lexical"], after["lexical"])
    # Saved and read back as one layer, in the config round trip and in .keras files.
    clone = HybridHead.from_config(head.get_config())
    assert len({id(c.label_encoder) for c in clone.components[:2]}) == 1
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    hybrid = [layer for layer in loaded.layers if isinstance(layer, HybridHead)][0]
    assert len({id(c.label_encoder) for c in hybrid.components[:2]}) == 1
    x = DOCUMENT["token_ids"]
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-5)


def test_components_without_an_encoder_share_one_default():
    from keras_labelemb.layers import CosineHead, LabelEncoder

    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    components = [GileHead(embedding, joint_dim=4, name="gile"), CosineHead(embedding, name="cosine")]
    HybridHead(components, label_ids=LABELS)
    assert isinstance(components[0].label_encoder, LabelEncoder)
    assert components[0].label_encoder is components[1].label_encoder
    alone = GileHead(embedding, LABELS, joint_dim=4)
    assert alone.label_encoder is None and "label_encoder" not in alone.get_config()  # made when built
    alone(DOCUMENT["pooled"][:, :DIM])
    assert isinstance(alone.label_encoder, LabelEncoder)


def test_a_label_encoder_given_twice_or_read_by_no_component_is_refused():
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    own = GileHead(embedding, joint_dim=4, label_encoder=WeightedMean(), name="gile")
    with pytest.raises(ValueError, match=r"Components \['gile'\] already hold their own label encoder"):
        HybridHead([own, LexicalMatchHead(embedding, name="lexical")], label_ids=LABELS, label_encoder=WeightedMean())
    with pytest.raises(ValueError, match="would be read by none"):
        HybridHead([LexicalMatchHead(embedding, name="lexical")], label_ids=LABELS, label_encoder=WeightedMean())
    with pytest.raises(ValueError, match="must be a layer"):
        HybridHead([GileHead(embedding, joint_dim=4)], label_ids=LABELS, label_encoder="mean")


# ---------------------------------------------------------------------------
# Per-label dropout: the labels scored without their per-label components, on one scale
# ---------------------------------------------------------------------------


def dropout_hybrid(rate):
    keras.utils.set_random_seed(5)
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    components = [LexicalMatchHead(embedding, name="lexical"), LinearHead(len(LABELS), name="linear")]
    head = HybridHead(components, label_ids=LABELS, standardize=True, per_label_dropout=rate)
    head.build({"pooled": (None, POOLED), "token_ids": (None, T)})
    for variable in head.trainable_weights:
        variable.assign(RNG.normal(scale=0.7, size=variable.shape).astype("float32"))
    return head


def z(scores):
    centred = scores - scores.mean(axis=1, keepdims=True)
    return centred / (np.sqrt((centred**2).mean(axis=1, keepdims=True)) + 1e-6)


def reference(head, present):
    """NumPy: the z-scored components (the linear one 0 where a label is absent) weighed, plus the offset there."""
    parts = numpy_of(head.component_logits(DOCUMENT))
    linear = np.where(present, ops.convert_to_numpy(head.components[1](DOCUMENT["pooled"]))[:, :4], 0.0)
    a, b = ops.convert_to_numpy(head.weights_by_component), float(ops.convert_to_numpy(head.bias))
    offset = float(ops.convert_to_numpy(head.unseen_offset))
    return a[0] * z(parts["lexical"]) + a[1] * z(linear) + b + offset * ~present


def test_new_labels_get_the_learned_offset_and_seen_ones_do_not():
    head = dropout_hybrid(0.5)
    np.testing.assert_allclose(ops.convert_to_numpy(head(DOCUMENT)), reference(head, np.ones(4, bool)), atol=1e-5)
    head.set_labels(RELABELLED)
    present = np.array(SEEN_COLUMNS) >= 0
    parts = numpy_of(head.component_logits(DOCUMENT))
    a, b = ops.convert_to_numpy(head.weights_by_component), float(ops.convert_to_numpy(head.bias))
    expected = a[0] * z(parts["lexical"]) + a[1] * z(parts["linear"]) + b
    expected += float(ops.convert_to_numpy(head.unseen_offset)) * ~present
    np.testing.assert_allclose(ops.convert_to_numpy(head(DOCUMENT)), expected, atol=1e-5)


def test_in_training_dropped_labels_are_scored_as_new_ones():
    head = dropout_hybrid(0.5)
    outputs = [ops.convert_to_numpy(head(DOCUMENT, training=True)) for _ in range(12)]
    patterns = set()
    for output in outputs:  # each step: one of the 16 drop patterns, the same for every document
        matches = [
            p for p in np.ndindex(2, 2, 2, 2) if np.allclose(output, reference(head, np.array(p, bool)), atol=1e-5)
        ]
        assert matches, "a training step's scores match no drop pattern"
        patterns.add(matches[0])
    assert len(patterns) > 2  # labels are drawn again each step
    np.testing.assert_allclose(ops.convert_to_numpy(head(DOCUMENT)), reference(head, np.ones(4, bool)), atol=1e-5)


def test_the_offset_learns_only_from_dropped_labels():
    head = dropout_hybrid(0.5)
    y = np.zeros((3, 4), "float32")
    y[:, 0] = 1
    with tf.GradientTape() as tape:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)(y, head(DOCUMENT, training=True))
    grads = dict(zip([w.path for w in head.trainable_weights], tape.gradient(loss, head.trainable_weights)))
    offset = next(g for path, g in grads.items() if path.endswith("unseen_offset"))
    assert offset is not None and np.isfinite(ops.convert_to_numpy(offset))
    with tf.GradientTape() as tape:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)(y, head(DOCUMENT))
    assert float(ops.convert_to_numpy(tape.gradient(loss, head.unseen_offset))) == 0.0  # no label absent


@pytest.mark.parametrize("rate", [-0.1, 1.0, True, "0.2"])
def test_per_label_dropout_is_a_probability(rate):
    components = [LexicalMatchHead(vocabulary_size=VOCAB, name="lexical"), LinearHead(len(LABELS), name="linear")]
    with pytest.raises(ValueError, match="per_label_dropout"):
        HybridHead(components, label_ids=LABELS, per_label_dropout=rate)


def test_per_label_dropout_needs_both_kinds_of_component():
    with pytest.raises(ValueError, match="both kinds"):
        HybridHead([LexicalMatchHead(vocabulary_size=VOCAB, name="lexical")], label_ids=LABELS, per_label_dropout=0.2)
    config = dropout_hybrid(0.3).get_config()
    assert config["per_label_dropout"] == 0.3
