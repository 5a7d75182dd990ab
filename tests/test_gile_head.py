import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops
from sampled_sigmoid_loss_helpers import NUM_LABELS as SAMPLED_NUM_LABELS
from sampled_sigmoid_loss_helpers import _head as sampled_head

from keras_labelemb.layers import GileHead, HierarchicalAttention, LinearHead
from keras_labelemb.layers.gile_head import joint_dim_matching_linear

RNG = np.random.default_rng(3)
VOCAB, DIM = 40, 6
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")
JOINT_VARIANTS = ["gile", "bilinear", "bilinear_yh15", "only_label", "only_input"]


def head_kwargs(variant):
    return lambda: {
        "embedding": keras.layers.Embedding(VOCAB, DIM, mask_zero=True),
        "label_ids": LABELS,
        "joint_dim": 5,
        "variant": variant,
        "activation": "tanh",
    }


def numpy_logits(head, h):
    w = {v.path.split("/")[-1]: ops.convert_to_numpy(v) for v in head.weights}
    if isinstance(head, LinearHead):
        return h @ w["kernel"] + w["bias"]
    table = w["embeddings"]
    mask = (LABELS != 0)[..., None]
    E = (table[LABELS] * mask).sum(1) / mask.sum(1)
    t = np.tanh
    if head.variant == "gile":  # eq. 14
        labels = t(E @ w["label_kernel"] + w["label_bias"])
        docs = t(h @ w["input_kernel"] + w["input_bias"]) * w["joint_weight"]
        return (labels @ docs.T).T + w["bias"]
    if head.variant == "bilinear":  # E W h
        return (E @ w["input_kernel"].T @ h.T).T + w["bias"]
    if head.variant == "bilinear_yh15":  # sigma(E W) W' h
        return (t(E @ w["label_kernel"]) @ (h @ w["input_kernel"]).T).T + w["bias"]
    if head.variant == "only_label":  # sigma(E W) h
        return (t(E @ w["label_kernel"]) @ h.T).T + w["bias"]
    return (E @ t(h @ w["input_kernel"]).T).T + w["bias"]  # only_input: E sigma(W h)


@pytest.mark.parametrize("variant", JOINT_VARIANTS + ["linear"])
def test_equations_match_numpy(variant):
    head = LinearHead(num_labels=len(LABELS)) if variant == "linear" else GileHead(**head_kwargs(variant)())
    h = RNG.normal(size=(3, 7)).astype("float32")
    head.build(h.shape)
    # Non-trivial biases and weights so a dropped term would show.
    for v in head.weights:
        v.assign(RNG.normal(size=v.shape).astype("float32"))
    logits = ops.convert_to_numpy(head(h))
    np.testing.assert_allclose(logits, numpy_logits(head, h), atol=1e-4)


def test_parameters_do_not_depend_on_the_label_set():
    small = GileHead(**head_kwargs("gile")())
    small.build((None, 7))
    many = GileHead(
        embedding=keras.layers.Embedding(VOCAB, DIM), label_ids=RNG.integers(1, VOCAB, (500, 3)), joint_dim=5
    )
    many.build((None, 7))

    def own(head):
        return sum(int(np.prod(v.shape)) for v in head.weights if "embeddings" not in v.path)

    assert own(small) == own(many) == 7 * 5 + 5 + 6 * 5 + 5 + 5 + 1


def test_zero_shot_label_swap_scores_new_labels_with_the_same_weights():
    emb = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    head = GileHead(embedding=emb, label_ids=LABELS, joint_dim=5)
    h = RNG.normal(size=(2, 7)).astype("float32")
    before = ops.convert_to_numpy(head(h))
    new_labels = np.array([[11, 12], [13, 0], [3, 4]], "int32")
    head.set_labels(new_labels)
    after = ops.convert_to_numpy(head(h))
    assert after.shape == (2, 3)
    np.testing.assert_allclose(after[:, 2], before[:, 0], atol=1e-6)  # same description, same score
    # Per-call label ids give the same scores without touching the stored set.
    np.testing.assert_allclose(ops.convert_to_numpy(head(h, label_ids=LABELS)), before, atol=1e-6)
    assert head.num_labels == 3


def test_label_set_is_saved_with_the_model(tmp_path):
    emb = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    model = keras.Sequential(
        [
            keras.Input((5,)),
            emb,
            HierarchicalAttention("dense", 7, flat=True),
            GileHead(embedding=emb, label_ids=LABELS, joint_dim=5),
        ]
    )
    model.layers[-1].set_labels(LABELS[:2])
    ids = RNG.integers(0, VOCAB, (3, 5))
    expected = model.predict(ids, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(ids, verbose=0), expected)
    assert loaded.layers[-1].embedding is loaded.layers[0], "label and word embeddings must stay one table"


@pytest.mark.parametrize("variant", ["gile", "bilinear", "only_label"])
def test_score_subset_equals_the_matching_columns_of_the_full_scores(variant):
    head = sampled_head(variant)
    h = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    indices = np.array([7, 0, 11, 3])
    np.testing.assert_allclose(head.score_subset(h, indices), np.asarray(head(h))[:, indices], rtol=1e-5, atol=1e-6)


def test_score_subset_rejects_out_of_range_label_indices():
    head = sampled_head()
    with pytest.raises(ValueError, match="label_indices"):
        head.score_subset(np.zeros((2, 4), "float32"), np.array([0, SAMPLED_NUM_LABELS]))


def test_gradients_reach_label_word_embeddings():
    emb = keras.layers.Embedding(VOCAB, DIM, mask_zero=True)
    head = GileHead(embedding=emb, label_ids=LABELS, joint_dim=5, activation="tanh")
    model = keras.Sequential([keras.Input((7,)), head])
    model.compile(keras.optimizers.SGD(1.0), keras.losses.BinaryCrossentropy(from_logits=True))
    before = ops.convert_to_numpy(emb.embeddings).copy()
    model.fit(RNG.normal(size=(4, 7)), (RNG.random((4, 4)) > 0.5).astype("float32"), verbose=0)
    changed = np.any(before != ops.convert_to_numpy(emb.embeddings), axis=1)
    assert set(np.flatnonzero(changed)) == set(np.unique(LABELS[LABELS > 0]))


def test_bad_inputs_raise_value_errors_naming_the_argument():
    emb = keras.layers.Embedding(VOCAB, DIM)
    with pytest.raises(ValueError, match="variant='deep'"):
        GileHead(embedding=emb, label_ids=LABELS, variant="deep")
    with pytest.raises(ValueError, match="joint_dim=0"):
        GileHead(embedding=emb, label_ids=LABELS, joint_dim=0)
    with pytest.raises(ValueError, match=r"outside \[0, 40\)"):
        GileHead(embedding=emb, label_ids=np.array([[1, 40]]))
    with pytest.raises(ValueError, match="empty label descriptions"):
        GileHead(embedding=emb, label_ids=np.array([[1, 2], [0, 0]]))
    with pytest.raises(ValueError, match="integer"):
        GileHead(embedding=emb, label_ids=np.array([[1.5, 2.0]]))
    with pytest.raises(ValueError, match="shape"):
        GileHead(embedding=emb, label_ids=np.array([1, 2]))
    with pytest.raises(ValueError, match="embedding=None"):
        GileHead(label_ids=LABELS)
    with pytest.raises(ValueError, match="inputs"):
        GileHead(embedding=emb, label_ids=LABELS)(np.zeros((2, 3, 4), "float32"))


def test_memory_is_linear_in_labels_no_batch_by_label_by_joint_tensor():
    """The logits come from one (B, d_j) x (d_j, L) matmul: trace the graph and look at every shape."""
    import tensorflow as tf

    head = GileHead(
        embedding=keras.layers.Embedding(VOCAB, DIM), label_ids=RNG.integers(1, VOCAB, (64, 3)), joint_dim=32
    )
    fn = tf.function(lambda h: head(h))
    graph = fn.get_concrete_function(tf.TensorSpec((16, 7), tf.float32)).graph
    sizes = [int(np.prod(t.shape)) for op in graph.get_operations() for t in op.outputs if t.shape.is_fully_defined()]
    assert max(sizes) < 16 * 64 * 32 / 4  # B*L*d_j would be 32768


def test_joint_dim_matching_linear_eq19():
    assert joint_dim_matching_linear(100, 90, 100) == 45
    assert joint_dim_matching_linear(100, [60, 30], 100) == 45
    with pytest.raises(ValueError, match="num_labels=0"):
        joint_dim_matching_linear(100, 0, 100)


def test_the_seed_builders_start_the_output_bias_at_the_label_prior():
    from keras_labelemb.models import gile_wan, wan
    from keras_labelemb.models.document_classifier import prior_bias

    labels = np.array([[2, 3], [4, 0], [5, 6], [7, 0]], "int32")

    def output_bias(model):
        return ops.convert_to_numpy(model.layers[-1].bias)

    np.testing.assert_allclose(output_bias(gile_wan(20, labels, max_tokens=5, units=6, joint_dim=4)), -np.log(4))
    np.testing.assert_allclose(output_bias(wan(20, 4, max_tokens=5, units=6)), -np.log(4), rtol=1e-6)
    zeros = gile_wan(20, labels, max_tokens=5, units=6, joint_dim=4, bias_initializer="zeros")
    np.testing.assert_array_equal(output_bias(zeros), 0.0)
    assert prior_bias(1).value == 0.0
    with pytest.raises(ValueError, match="num_labels"):
        prior_bias(0)


EN_LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8]], "int32")

DE_LABELS = np.array([[9, 10, 0], [11, 0, 0]], "int32")


def _head(**kwargs):
    keras.utils.set_random_seed(0)
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    return GileHead(
        embedding=embedding, joint_dim=5, num_languages=2, language_label_ids=[EN_LABELS, DE_LABELS], **kwargs
    )


def _numpy_gile(head, h, label_ids, language):
    E = np.asarray(head.embed_labels(label_ids))
    labels = np.tanh(E @ np.asarray(head.label_kernel) + np.asarray(head.label_bias))
    docs = np.tanh(h @ np.asarray(head.input_kernel) + np.asarray(head.input_bias))
    return (docs * np.asarray(head.joint_weight)[language]) @ labels.T + np.asarray(head.bias)[language]


def test_per_language_weights_and_label_sets_match_numpy():
    head = _head()
    h = np.random.default_rng(0).normal(size=(3, 6)).astype("float32")
    head(h, language=0)
    head.joint_weight.assign(np.random.default_rng(1).normal(size=(2, 5)).astype("float32"))
    head.bias.assign(np.array([0.5, -1.0], "float32"))
    for language, labels in ((0, EN_LABELS), (1, DE_LABELS)):
        np.testing.assert_allclose(
            head(h, language=language), _numpy_gile(head, h, labels, language), rtol=1e-5, atol=1e-6
        )
    # A per-document language tensor over one label set selects each document's w and b.
    languages = np.array([1, 0, 1], "int32")
    got = np.asarray(head(h, language=languages, label_ids=EN_LABELS))
    for row, language in enumerate(languages):
        np.testing.assert_allclose(
            got[row], _numpy_gile(head, h[row : row + 1], EN_LABELS, language)[0], rtol=1e-5, atol=1e-6
        )
    assert sorted(w.name for w in head.trainable_weights) == sorted(
        ["embeddings", "label_kernel", "label_bias", "input_kernel", "input_bias", "joint_weight", "bias"]
    )
    assert tuple(head.joint_weight.shape) == (2, 5) and tuple(head.bias.shape) == (2,)


def test_gradients_reach_shared_weights_from_every_language_and_only_own_w_b():
    head = _head()
    h = np.random.default_rng(2).normal(size=(4, 6)).astype("float32")
    head(h, language=0)
    shared = [head.label_kernel, head.input_kernel, head.label_bias, head.input_bias]
    for language in (0, 1):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(head(h, language=language) ** 2)
        grads = tape.gradient(loss, shared + [head.joint_weight, head.bias])
        for variable, grad in zip(shared, grads[:4]):
            assert float(tf.reduce_max(tf.abs(grad))) > 0, f"language {language} sends no gradient to {variable.name}"
        w_grad, b_grad = np.asarray(tf.convert_to_tensor(grads[4])), np.asarray(tf.convert_to_tensor(grads[5]))
        other = 1 - language
        assert np.abs(w_grad[language]).max() > 0 and np.abs(w_grad[other]).max() == 0
        assert b_grad[language] != 0 and b_grad[other] == 0


@pytest.mark.slow  # ~6 s on 2 cores (66 s under load): trains and saves a two-language model
def test_two_language_model_trains_jointly_and_round_trips(tmp_path):
    keras.utils.set_random_seed(0)
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    head = GileHead(embedding=embedding, joint_dim=5, num_languages=2, language_label_ids=[EN_LABELS, DE_LABELS])
    en_ids, de_ids = keras.Input((6,), dtype="int32", name="en"), keras.Input((6,), dtype="int32", name="de")
    encoder = HierarchicalAttention("dense", 6, flat=True, num_languages=2, share="encoders")
    outputs = {
        "en": head(encoder(embedding(en_ids), language=0), language=0),
        "de": head(encoder(embedding(de_ids), language=1), language=1),
    }
    model = keras.Model({"en": en_ids, "de": de_ids}, outputs)
    rng = np.random.default_rng(3)
    x = {"en": rng.integers(1, 20, (8, 6)).astype("int32"), "de": rng.integers(1, 20, (8, 6)).astype("int32")}
    predicted = model.predict(x, verbose=0)
    assert predicted["en"].shape == (8, 3) and predicted["de"].shape == (8, 2)  # each language's own label set
    y = {"en": (rng.random((8, 3)) > 0.5).astype("float32"), "de": (rng.random((8, 2)) > 0.5).astype("float32")}
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    model.compile("adam", loss={"en": bce, "de": bce})
    history = model.fit(x, y, epochs=2, verbose=0).history
    assert np.isfinite(history["loss"]).all()
    # MHAN-Enc: one word encoder (kernel, bias), one attention (3 weights) per language.
    assert len(encoder.trainable_weights) == 2 + 2 * 3
    model.save(tmp_path / "multilingual.keras")
    restored = keras.models.load_model(tmp_path / "multilingual.keras")
    for key in ("en", "de"):
        np.testing.assert_array_equal(restored.predict(x, verbose=0)[key], model.predict(x, verbose=0)[key])


def test_bad_multilingual_arguments_raise_naming_the_argument():
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    with pytest.raises(ValueError, match="language_label_ids"):
        GileHead(embedding=embedding, num_languages=2, language_label_ids=[EN_LABELS])
    with pytest.raises(ValueError, match="num_languages=0"):
        GileHead(embedding=embedding, num_languages=0)
    head = _head()
    h = np.zeros((2, 6), "float32")
    with pytest.raises(ValueError, match="language"):
        head(h)
    with pytest.raises(ValueError, match="language"):
        head(h, language=2)
    single = GileHead(embedding=embedding, label_ids=EN_LABELS, joint_dim=5)
    with pytest.raises(ValueError, match="language"):
        single(h, language=0)
    with pytest.raises(ValueError, match="share"):
        HierarchicalAttention("dense", 4, flat=True, num_languages=2, share="everything")
    mhan = HierarchicalAttention("dense", 4, flat=True, num_languages=2, share="encoders")
    with pytest.raises(ValueError, match="language"):
        mhan(np.zeros((1, 3, 2), "float32"), language=2)
    with pytest.raises(ValueError, match="language"):
        mhan(np.zeros((1, 3, 2), "float32"))
