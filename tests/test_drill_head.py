"""DrillHead: eqs. 9-10 against NumPy, dropout masks, weight tying, subsets, widths, gradients.

The shared layer contract (config, save/load, XLA fit step, mixed precision)
runs through tests/layer_cases.py (`drill_head_tied`, `drill_head_descriptions`).
"""

import itertools

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_labelemb.layers import DrillHead, LinearHead

RNG = np.random.default_rng(5)
VOCAB, DIM = 30, 6
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def randomize(head):
    """Non-trivial values for every weight, biases included, so a dropped term would show."""
    for v in head.weights:
        v.assign(RNG.normal(scale=0.5, size=v.shape).astype("float32"))


def weights(head):
    return {v.path.split("/")[-1]: ops.convert_to_numpy(v) for v in head.weights}


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_drill(E, h, w, depth, to_embedding, to_previous, act=sigmoid, input_projection=False):
    """Eqs. 9-10 with dropout off, then logits = g_in(h) E_k^T + b."""
    previous = E
    for i in range(1, depth + 1):
        out = act(previous @ w[f"label_kernel_{i}"] + w[f"label_bias_{i}"])  # eq. 9
        if to_previous:
            out = out + previous  # eq. 10
        if to_embedding:
            out = out + E  # eq. 10
        previous = out
    if input_projection:
        h = act(h @ w["input_kernel"] + w["input_bias"])
    return h @ previous.T + w.get("bias", 0.0)


def mean_of_descriptions(table, ids):
    mask = (ids != 0)[..., None]
    return (table[ids] * mask).sum(1) / mask.sum(1)


# ---------------------------------------------------------------------------
# Equations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("to_embedding,to_previous", list(itertools.product([True, False], repeat=2)))
def test_tied_label_network_matches_numpy_eqs_9_10(to_embedding, to_previous):
    head = DrillHead(
        keras.layers.Embedding(VOCAB, DIM),
        depth=3,
        dropout=0.5,
        residual_to_embedding=to_embedding,
        residual_to_previous=to_previous,
    )
    h = RNG.normal(size=(2, 4, DIM)).astype("float32")  # (B, T, d): a language model
    head.build(h.shape)
    randomize(head)
    w = weights(head)
    assert w["bias"].shape == (VOCAB,)  # per-label bias when tied to the vocabulary
    got = ops.convert_to_numpy(head(h, training=False))  # dropout is off at inference
    assert got.shape == (2, 4, VOCAB)
    want = numpy_drill(w["embeddings"], h, w, 3, to_embedding, to_previous)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_description_labels_with_input_projection_match_numpy():
    head = DrillHead(
        keras.layers.Embedding(VOCAB, DIM, mask_zero=True),
        label_ids=LABELS,
        depth=2,
        activation="tanh",
        input_projection=True,
    )
    h = RNG.normal(size=(3, 9)).astype("float32")  # d_h = 9 != d: the projection maps it
    head.build(h.shape)
    randomize(head)
    w = weights(head)
    assert w["bias"].shape == ()  # one shared bias over label descriptions (labels can be swapped)
    E = mean_of_descriptions(w["embeddings"], LABELS)
    want = numpy_drill(E, h, w, 2, True, False, act=np.tanh, input_projection=True)
    np.testing.assert_allclose(ops.convert_to_numpy(head(h)), want, rtol=1e-5, atol=1e-4)


def test_baseline_variants_match_their_equations():
    h = RNG.normal(size=(3, DIM)).astype("float32")
    out = {}
    for variant in ("tied", "bilinear", "dual", "full"):
        if variant == "full":  # the usual softmax layer is LinearHead, compared here with its DRILL relatives
            head = LinearHead(VOCAB)
        else:
            head = DrillHead(keras.layers.Embedding(VOCAB, DIM), variant=variant)
        head.build(h.shape)
        randomize(head)
        out[variant] = (ops.convert_to_numpy(head(h)), weights(head))
    got, w = out["tied"]
    np.testing.assert_allclose(got, h @ w["embeddings"].T + w["bias"], atol=1e-5)
    got, w = out["bilinear"]  # E W h + b
    np.testing.assert_allclose(got, (w["embeddings"] @ w["label_kernel_1"] @ h.T).T + w["bias"], atol=1e-4)
    got, w = out["dual"]  # sigma(E U + b_u) sigma(V h + b_v) + b
    labels = sigmoid(w["embeddings"] @ w["label_kernel_1"] + w["label_bias_1"])
    docs = sigmoid(h @ w["input_kernel"] + w["input_bias"])
    np.testing.assert_allclose(got, docs @ labels.T + w["bias"], atol=1e-4)
    got, w = out["full"]
    np.testing.assert_allclose(got, h @ w["kernel"] + w["bias"], atol=1e-5)
    assert set(w) == {"kernel", "bias"}


def test_depth_zero_is_exactly_weight_tying():
    embedding = keras.layers.Embedding(VOCAB, DIM)
    drill = DrillHead(embedding, depth=0, dropout=0.5)
    tied = DrillHead(embedding, variant="tied")
    h = RNG.normal(size=(2, 5, DIM)).astype("float32")
    drill.build(h.shape)
    tied.build(h.shape)
    bias = RNG.normal(size=(VOCAB,)).astype("float32")
    drill.bias.assign(bias)
    tied.bias.assign(bias)
    want = ops.convert_to_numpy(ops.matmul(h, ops.transpose(embedding.embeddings)) + bias)
    np.testing.assert_array_equal(ops.convert_to_numpy(drill(h, training=True)), want)
    np.testing.assert_array_equal(ops.convert_to_numpy(tied(h)), want)
    assert sorted(v.path.split("/")[-1] for v in drill.trainable_weights) == ["bias", "embeddings"]


# ---------------------------------------------------------------------------
# Dropout between layers
# ---------------------------------------------------------------------------


def dropped_features(dropout_type):
    """Zero pattern of E_1 = dropout(sigmoid(E U + b)) in training mode (sigmoid > 0, so zeros are dropped)."""
    head = DrillHead(
        keras.layers.Embedding(200, 16),
        depth=1,
        dropout=0.5,
        dropout_type=dropout_type,
        residual_to_embedding=False,
        seed=3,
    )
    head.build((None, 16))
    E = head.embed_labels()
    return ops.convert_to_numpy(head.label_network(E, training=True)) == 0


def test_variational_dropout_mask_is_shared_by_all_labels():
    zeros = dropped_features("variational")
    assert zeros.shape == (200, 16) and 0 < zeros[0].sum() < 16
    assert (zeros == zeros[0]).all()  # one mask over the features, identical for every label


def test_standard_dropout_mask_differs_across_labels():
    zeros = dropped_features("standard")
    assert 0.3 < zeros.mean() < 0.7
    assert not (zeros == zeros[0]).all()


def test_no_dropout_at_inference():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2, dropout=0.5)
    h = RNG.normal(size=(2, DIM)).astype("float32")
    np.testing.assert_array_equal(ops.convert_to_numpy(head(h)), ops.convert_to_numpy(head(h, training=False)))
    assert not np.allclose(ops.convert_to_numpy(head(h, training=True)), ops.convert_to_numpy(head(h)))


# ---------------------------------------------------------------------------
# Subsets of labels (sampled training)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["drill", "tied", "bilinear", "dual", "full"])
@pytest.mark.parametrize("source", ["vocabulary", "descriptions"])
def test_score_subset_equals_the_columns_of_the_full_call(variant, source):
    kwargs = {"label_ids": LABELS, "bias_mode": "per_label"} if source == "descriptions" else {}
    if variant == "full":
        head = LinearHead(len(LABELS) if source == "descriptions" else VOCAB)
    else:
        head = DrillHead(
            keras.layers.Embedding(VOCAB, DIM, mask_zero=source == "descriptions"),
            variant=variant,
            dropout=0.3,
            **kwargs,
        )
        assert head.label_source == source
    h = RNG.normal(size=(2, 3, DIM)).astype("float32")
    head.build(h.shape)
    randomize(head)
    indices = np.array([3, 0, 3, 1], "int32") if source == "descriptions" else np.array([17, 2, 29, 2, 5], "int32")
    full = ops.convert_to_numpy(head(h))
    subset = ops.convert_to_numpy(head.score_subset(h, indices))
    assert subset.shape == (2, 3, len(indices))
    np.testing.assert_allclose(subset, full[..., indices], rtol=1e-5, atol=1e-5)


def test_score_subset_rejects_out_of_range_indices():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM))
    with pytest.raises(ValueError, match="label_indices"):
        head.score_subset(np.zeros((1, DIM), "float32"), np.array([0, VOCAB]))


def test_score_subset_runs_in_a_compiled_function():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2, dropout=0.2)
    h = RNG.normal(size=(2, DIM)).astype("float32")
    head.build(h.shape)
    fn = tf.function(lambda h, i: head.score_subset(h, i, training=True), jit_compile=True)
    out = fn(tf.constant(h), tf.constant([1, 4, 7]))
    assert out.shape == (2, 3) and np.isfinite(out.numpy()).all()


# ---------------------------------------------------------------------------
# Widths and arguments
# ---------------------------------------------------------------------------


def test_input_width_mismatch_is_a_clear_error():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2)
    with pytest.raises(ValueError, match=r"d_h=9.*input_projection=True"):
        head(np.zeros((2, 9), "float32"))
    projected = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2, input_projection=True)
    assert tuple(projected(np.zeros((2, 9), "float32")).shape) == (2, VOCAB)


def test_residual_width_mismatch_is_a_clear_error():
    with pytest.raises(ValueError, match=r"joint_dim.*Received: joint_dim=8"):
        DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2, joint_dim=8)
    with pytest.raises(ValueError, match=r"joint_dim.*Received: joint_dim=8"):
        DrillHead(
            keras.layers.Embedding(VOCAB, DIM),
            depth=2,
            joint_dim=8,
            residual_to_embedding=False,
            residual_to_previous=True,
        )
    bilinear_with_residual = DrillHead(
        keras.layers.Embedding(VOCAB, DIM), variant="bilinear", residual_to_embedding=True
    )
    with pytest.raises(ValueError, match="pass joint_dim=6"):
        bilinear_with_residual(np.zeros((2, 9), "float32"))  # bilinear's joint_dim defaults to d_h = 9
    # Without residuals the label network may change the width; h must then match it.
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=2, joint_dim=8, residual_to_embedding=False)
    assert tuple(head(np.zeros((2, 8), "float32")).shape) == (2, VOCAB)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"variant": "deep"}, "variant"),
        ({"depth": -1}, "depth"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout_type": "locked"}, "dropout_type"),
        ({"bias_mode": "per_word"}, "bias_mode"),
        ({"variant": "tied", "depth": 2}, "tied"),
        ({"variant": "full"}, "variant"),  # the usual softmax layer is LinearHead
        ({"residual_to_previous": "yes"}, "residual_to_previous"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DrillHead(keras.layers.Embedding(VOCAB, DIM), **kwargs)


def test_needs_label_embeddings_from_somewhere():
    with pytest.raises(ValueError, match="embedding"):
        DrillHead()
    head = DrillHead(label_dim=DIM, depth=1)  # label embeddings at call time, shared bias
    E = RNG.normal(size=(7, DIM)).astype("float32")
    assert tuple(head(np.zeros((2, DIM), "float32"), label_embeddings=E).shape) == (2, 7)


# ---------------------------------------------------------------------------
# Label sets and the per-label bias policy
# ---------------------------------------------------------------------------


def test_shared_bias_heads_score_new_label_sets():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM, mask_zero=True), label_ids=LABELS, depth=2)
    h = RNG.normal(size=(2, DIM)).astype("float32")
    before = ops.convert_to_numpy(head(h))
    head.set_labels(np.array([[11, 12], [13, 0], [3, 4]], "int32"))
    after = ops.convert_to_numpy(head(h))
    assert after.shape == (2, 3)
    np.testing.assert_allclose(after[:, 2], before[:, 0], atol=1e-6)  # same description, same score
    np.testing.assert_allclose(ops.convert_to_numpy(head(h, label_ids=LABELS)), before, atol=1e-6)


def test_per_label_bias_refuses_another_label_count():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM, mask_zero=True), label_ids=LABELS, bias_mode="per_label")
    h = RNG.normal(size=(2, DIM)).astype("float32")
    head(h)
    head.set_labels(LABELS[::-1])  # same count: allowed (biases stay by position)
    with pytest.raises(ValueError, match="per-label parameters for 4 labels"):
        head.set_labels(LABELS[:2])
    with pytest.raises(ValueError, match="call-time labels must be as many"):
        head(h, label_ids=LABELS[:3])


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["drill", "bilinear", "dual"])
def test_gradients_reach_every_weight(variant):
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), variant=variant, dropout=0.2)
    h = tf.constant(RNG.normal(size=(4, 3, DIM)).astype("float32"))
    head.build(h.shape)
    targets = RNG.integers(0, VOCAB, size=(4, 3))
    with tf.GradientTape() as tape:
        tape.watch(h)
        logits = head(h, training=True)
        loss = ops.mean(ops.sparse_categorical_crossentropy(targets, logits, from_logits=True))
    grads = tape.gradient(loss, head.trainable_weights + [h])
    for v, g in zip(head.trainable_weights + [h], grads):
        assert g is not None and float(tf.reduce_max(tf.abs(tf.convert_to_tensor(g)))) > 0, getattr(v, "path", "h")


def test_subset_gradients_reach_only_the_scored_words():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=1)
    h = tf.constant(RNG.normal(size=(2, DIM)).astype("float32"))
    head.build(h.shape)
    with tf.GradientTape() as tape:
        loss = ops.sum(head.score_subset(h, np.array([2, 5])))
    grads = dict(
        zip([v.path.split("/")[-1] for v in head.trainable_weights], tape.gradient(loss, head.trainable_weights))
    )
    table = tf.convert_to_tensor(grads["embeddings"]).numpy()
    assert set(np.flatnonzero(np.abs(table).sum(1))) == {2, 5}
    bias = tf.convert_to_tensor(grads["bias"]).numpy()
    assert set(np.flatnonzero(bias)) == {2, 5}
    assert np.abs(grads["label_kernel_1"].numpy()).sum() > 0


def test_masks_pass_through_per_time_step():
    head = DrillHead(keras.layers.Embedding(VOCAB, DIM), depth=1)
    mask = np.array([[True, True, False]])
    assert head.compute_mask(np.zeros((1, 3, DIM)), mask) is mask
    assert head.compute_mask(np.zeros((1, DIM)), None) is None


# ---------------------------------------------------------------------------
# DrillHead as a document classifier's output layer (label descriptions)
# ---------------------------------------------------------------------------


def test_bias_initializer_sets_the_starting_logit_and_survives_the_config():
    head = DrillHead(
        keras.layers.Embedding(VOCAB, DIM, mask_zero=True),
        label_ids=LABELS,
        depth=1,
        bias_initializer=keras.initializers.Constant(-4.0),
    )
    head(np.zeros((1, DIM), "float32"))
    assert float(ops.convert_to_numpy(head.bias)) == -4.0
    config = head.get_config()
    assert "label_ids" not in config and config["num_labels"] == len(LABELS)  # the label set is an asset
    clone = DrillHead.from_config(config)
    with pytest.raises(ValueError, match="no label set"):
        clone(np.zeros((1, DIM), "float32"))
    clone.set_labels(head.label_ids)
    clone(np.zeros((1, DIM), "float32"))
    assert float(ops.convert_to_numpy(clone.bias)) == -4.0


@pytest.mark.parametrize("units", [DIM, DIM + 3])  # g_in = I, and the projected (dual) form
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_document_classifier_drill_head_scores_new_labels_and_round_trips(units, tmp_path):
    from keras_labelemb.layers import HierarchicalAttention
    from keras_labelemb.models import document_classifier, set_labels
    from keras_labelemb.models.document_classifier import prior_bias

    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    head = DrillHead(
        embedding,
        LABELS,
        depth=2,
        activation="tanh",
        input_projection=units != DIM,
        bias_initializer=prior_bias(len(LABELS)),
        name="drill_head",
    )
    encoder = HierarchicalAttention("dense", units, "dense", units, dropout=0.2)
    model = document_classifier(encoder, head, max_sentences=2, max_sentence_length=4)
    head = model.get_layer("drill_head")
    assert head.input_projection == (units != DIM)
    np.testing.assert_allclose(float(ops.convert_to_numpy(head.bias)), -np.log(len(LABELS)), rtol=1e-6)
    x = RNG.integers(0, VOCAB, size=(3, 2, 4)).astype("int32")
    y = np.eye(len(LABELS), dtype="float32")[[0, 1, 2]]
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(x, y, epochs=1, verbose=0)
    before = model.predict(x, verbose=0)

    path = tmp_path / "drill.keras"
    model.save(path)
    np.testing.assert_array_equal(keras.models.load_model(path).predict(x, verbose=0), before)

    set_labels(model, np.concatenate([LABELS[2:3], [[10, 11, 0]]]))  # a known label first, then a new one
    after = model.predict(x, verbose=0)
    assert after.shape == (3, 2) and np.isfinite(after).all()
    np.testing.assert_allclose(after[:, 0], before[:, 2], atol=1e-5)


def test_a_drill_head_without_descriptions_scores_every_word_when_wired():
    """Without `label_ids` the labels are the table's words (the language-model setting), documented, not an error."""
    from keras_labelemb.layers import HierarchicalAttention
    from keras_labelemb.models import document_classifier

    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    model = document_classifier(HierarchicalAttention("dense", DIM, flat=True), DrillHead(embedding), max_tokens=5)
    assert model.predict(np.ones((2, 5), "int32"), verbose=0).shape == (2, VOCAB)
