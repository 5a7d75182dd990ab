import keras
import numpy as np
import pytest
import scipy.sparse
import tensorflow as tf

from keras_labelemb.export import export_text_classifier, load_text_classifier
from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, LinearHead, WideHead
from keras_labelemb.models import document_classifier, set_labels
from keras_labelemb.models.document_classifier import prior_bias
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.text import TextVectorizer, TfidfVectorizer

TEXTS = ["wheat prices rose sharply", "oil exports fell", "wheat and oil trade", "gold rose", "bank rates rose"]
TARGETS = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [0, 0]], "float32")


def sparse_tensor(matrix):
    coo = scipy.sparse.coo_matrix(matrix)
    return tf.sparse.reorder(
        tf.SparseTensor(np.stack([coo.row, coo.col], 1).astype("int64"), coo.data.astype("float32"), coo.shape)
    )


def test_wide_head_is_a_linear_model_of_the_features_dense_or_sparse():
    rng = np.random.default_rng(0)
    x = scipy.sparse.random(4, 30, density=0.2, random_state=0, dtype="float32").toarray()
    head = WideHead(num_labels=3, kernel_initializer="glorot_uniform", bias_initializer="ones")
    head.build((None, 30))
    kernel, bias = head.get_weights()
    np.testing.assert_allclose(head(x), x @ kernel + bias, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(head(sparse_tensor(x)), x @ kernel + bias, rtol=1e-5, atol=1e-6)
    columns = rng.permutation(3)[:2]
    np.testing.assert_allclose(head.score_subset(x, columns), (x @ kernel + bias)[:, columns], rtol=1e-5, atol=1e-6)
    assert WideHead.reads_features and not WideHead.reads_tokens and head.has_per_label_parameters
    with pytest.raises(ValueError, match="cannot score another label set"):
        head.set_labels(np.array([[2, 3]]))


def test_wide_head_starts_at_zero_and_its_regularizer_is_a_loss():
    head = WideHead(num_labels=2, kernel_regularizer=keras.regularizers.L2(0.5))
    x = np.ones((1, 3), "float32")
    np.testing.assert_allclose(head(x), np.zeros((1, 2)))  # zero kernel, zero bias
    head.kernel.assign(np.ones((3, 2), "float32"))
    head(x)
    np.testing.assert_allclose(float(sum(head.losses)), 0.5 * 6.0, rtol=1e-6)
    assert WideHead.from_config(head.get_config()).kernel_regularizer.get_config() == {"l2": 0.5}


@pytest.fixture(scope="module")
def vectorizers():
    tokens = TextVectorizer(max_tokens=8)
    tokens.adapt(TEXTS)
    features = TfidfVectorizer(ngrams=2)
    features.adapt(TEXTS)
    return tokens, features


def inputs(vectorizers, texts=TEXTS):
    tokens, features = vectorizers
    strings = tf.constant(texts)
    return {"token_ids": tokens(strings), "features": features(strings)}


def wide_deep(vectorizers, head="gile"):
    """The deep head and a WideHead over the tf-idf features in a HybridHead (its bias at the prior)."""
    tokens, features = vectorizers
    labels = tokens.encode_labels(["wheat grain", "oil crude"], 3)
    embedding = keras.layers.Embedding(tokens.vocabulary_size, 100, mask_zero=True, name="word_embedding")
    deep = GileHead(embedding, joint_dim=500, name="gile_head") if head == "gile" else LinearHead(2, name="linear")
    hybrid = HybridHead(
        [deep, WideHead(2, name="wide_head")],
        label_ids=labels if head == "gile" else None,
        num_labels=2,
        bias_initializer=prior_bias(2),
        name="hybrid_head",
    )
    encoder = HierarchicalAttention("dense", 4, flat=True, dropout=0.2, name="document_encoder")
    return document_classifier(encoder, hybrid, embedding=embedding, max_tokens=8, num_features=features.num_features)


def test_wide_deep_adds_the_wide_path_to_the_deep_head(vectorizers):
    model = wide_deep(vectorizers)
    head = model.layers[-1]
    assert isinstance(head, HybridHead) and [type(c) for c in head.components] == [GileHead, WideHead]
    assert sorted(model.input) == ["features", "token_ids"]
    x = inputs(vectorizers)
    wide = head.components[1]
    wide.kernel.assign(np.random.default_rng(0).normal(size=wide.kernel.shape).astype("float32"))
    encoder = LabelClassifier.from_model(model).encoder
    parts = head.component_logits(encoder(x))
    features = tf.sparse.to_dense(x["features"]).numpy()
    np.testing.assert_allclose(parts["wide_head"], features @ wide.kernel.numpy() + wide.bias.numpy(), rtol=1e-5)
    expected = parts["gile_head"] + parts["wide_head"] + head.bias.numpy()  # component weights start at 1
    np.testing.assert_allclose(model(x), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_wide_deep_trains_both_paths_and_round_trips(vectorizers, tmp_path):
    keras.utils.set_random_seed(0)
    model = wide_deep(vectorizers)
    x = inputs(vectorizers)
    before = [w.numpy().copy() for w in model.trainable_weights]
    model.compile(keras.optimizers.Adam(0.05), keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(x, TARGETS, epochs=3, batch_size=5, verbose=0)
    changed = {w.path for w, old in zip(model.trainable_weights, before) if not np.allclose(w.numpy(), old)}
    assert any("wide_head" in path for path in changed) and any("document_encoder" in path for path in changed)
    path = str(tmp_path / "wide_deep.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    np.testing.assert_allclose(restored(x), model(x), rtol=1e-5, atol=1e-6)


def test_new_labels_are_scored_by_the_deep_path_alone(vectorizers):
    tokens, _ = vectorizers
    model = wide_deep(vectorizers)
    head = model.layers[-1]
    wide = head.components[1]
    wide.kernel.assign(np.ones(wide.kernel.shape, "float32"))
    x = inputs(vectorizers)
    seen = model(x).numpy()
    relabelled = tokens.encode_labels(["gold metal", "wheat grain"], 3)  # a new label, then a seen one
    set_labels(model, relabelled)
    parts = head.component_logits(LabelClassifier.from_model(model).encoder(x))
    np.testing.assert_array_equal(parts["wide_head"][:, 0], 0.0)  # no wide weights for the new label
    np.testing.assert_allclose(model(x)[:, 1], seen[:, 0], rtol=1e-5)  # the seen label keeps its wide weights


def test_linear_deep_head_with_the_wide_path_has_no_label_descriptions(vectorizers):
    model = wide_deep(vectorizers, head="linear")
    head = model.layers[-1]
    assert [type(c) for c in head.components] == [LinearHead, WideHead] and head.has_per_label_parameters
    assert model(inputs(vectorizers)).shape == (5, 2)
    with pytest.raises(ValueError):
        head.set_labels(np.array([[2, 3]]))


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_exported_wide_deep_serves_raw_text_and_labels_sent_with_the_request(vectorizers, tmp_path):
    tokens, features = vectorizers
    model = wide_deep(vectorizers)
    path = export_text_classifier(model, {"token_ids": tokens, "features": features}, str(tmp_path / "served"))
    served = load_text_classifier(path)
    scores = served.serve(tf.constant(TEXTS))["scores"].numpy()
    np.testing.assert_allclose(scores, keras.ops.sigmoid(model(inputs(vectorizers))), rtol=1e-5, atol=1e-6)
    with_labels = served.serve_with_labels(tf.constant(TEXTS), tf.constant(["gold metal", "", "oil crude"]))
    assert with_labels["scores"].shape == (5, 3) and np.all(np.isfinite(with_labels["scores"]))
    assert served.serve(tf.constant([], tf.string))["scores"].shape == (0, 2)
    with pytest.raises(ValueError, match="token_ids"):
        export_text_classifier(model, {"features": features}, str(tmp_path / "other"))


def test_a_wide_head_needs_the_feature_width_and_a_deep_head_refuses_one(vectorizers):
    tokens, _ = vectorizers
    embedding = keras.layers.Embedding(tokens.vocabulary_size, 8)
    encoder = HierarchicalAttention("dense", 4, flat=True)
    layer = GileHead(embedding, label_ids=np.array([[2, 3]]), joint_dim=4)
    with pytest.raises(ValueError, match="`num_features` is the width .* Received: num_features=5"):
        document_classifier(encoder, layer, max_tokens=8, num_features=5)
    hybrid = HybridHead([GileHead(embedding, joint_dim=4), WideHead(1)], label_ids=np.array([[2, 3]]))
    with pytest.raises(ValueError, match="Received: num_features=None"):
        document_classifier(encoder, hybrid, max_tokens=8)
