"""SavedModel export: raw text in, label scores out; reloaded predictions equal in-memory ones."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.export import export_text_classifier, load_text_classifier
from keras_labelemb.models import gile_han, han, set_labels
from keras_labelemb.text import TextVectorizer

TEXTS = [
    "Wheat prices rose. Farmers sold more grain this week.",
    "The central bank cut interest rates. Bonds rallied.",
    "",  # an empty document is served too
    "Gold and silver fell sharply! Miners lost 3.5 percent.",
]
LABELS = ["wheat grain", "interest rates bank", "gold silver metals"]
NEW_LABELS = ["farmers grain harvest", "bonds", "miners metals", ""]


@pytest.fixture(scope="module")
def trained():
    vectorizer = TextVectorizer(flat=False, max_sentences=3, max_sentence_length=8)
    vectorizer.adapt(TEXTS + LABELS + NEW_LABELS)
    label_ids = vectorizer.encode_labels(LABELS, 4)
    model = gile_han(vectorizer.vocabulary_size, label_ids, 3, 8, units=8, joint_dim=8)
    # Eager: two steps (and the in-memory predictions) cost less than tracing a training and a prediction graph.
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), run_eagerly=True)
    ids = vectorizer(tf.constant(TEXTS))
    model.fit(ids, np.eye(4, 3, dtype="float32"), epochs=2, verbose=0)
    return model, vectorizer, ids


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.fixture(scope="module")
def served(trained, tmp_path_factory):
    """The trained model exported once (writing and reloading a SavedModel: ~5 s on 2 cores) and reloaded.

    Its descriptions sent with a request are 6 tokens, not the model's 4: more padding changes no score."""
    model, vectorizer, _ = trained
    path = str(tmp_path_factory.mktemp("served") / "served")
    export_text_classifier(model, vectorizer, path, description_length=6)
    return load_text_classifier(path)


@pytest.mark.slow
def test_served_scores_equal_in_memory_predictions(trained, served):
    model, vectorizer, ids = trained
    expected = sigmoid(model.predict(ids, verbose=0))
    scores = served.serve(tf.constant(TEXTS))["scores"].numpy()
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert np.all(np.isfinite(scores)) and scores.shape == (4, 3)
    # The default serving signature is the raw-text one.
    signature = served.signatures["serving_default"]
    np.testing.assert_allclose(signature(texts=tf.constant(TEXTS))["scores"].numpy(), expected, atol=1e-6)


@pytest.mark.slow
def test_served_model_scores_labels_added_after_training(trained, served, tmp_path):
    model, vectorizer, ids = trained
    scores = served.serve_with_labels(tf.constant(TEXTS), tf.constant(NEW_LABELS))["scores"].numpy()
    assert scores.shape == (4, 4)
    assert np.all(np.isfinite(scores)), "an empty label description must give a finite score"
    # Same numbers as swapping the label set of the in-memory model (non-empty labels).
    model.save(tmp_path / "copy.keras")
    clone = keras.models.load_model(tmp_path / "copy.keras")
    set_labels(clone, vectorizer.encode_labels(NEW_LABELS[:3], 4))
    np.testing.assert_allclose(scores[:, :3], sigmoid(clone.predict(ids, verbose=0)), atol=1e-6)
    # Served with its own training labels, the result equals the default endpoint.
    same = served.serve_with_labels(tf.constant(TEXTS), tf.constant(LABELS))["scores"].numpy()
    np.testing.assert_allclose(same, served.serve(tf.constant(TEXTS))["scores"].numpy(), atol=1e-6)


def test_linear_head_exports_without_label_endpoint(tmp_path):
    vectorizer = TextVectorizer(flat=False, max_sentences=3, max_sentence_length=8, vocabulary=["wheat", "gold"])
    model = han(vectorizer.vocabulary_size, 3, 3, 8, units=8)
    export_text_classifier(model, vectorizer, str(tmp_path / "served"))
    served = load_text_classifier(str(tmp_path / "served"))
    expected = sigmoid(model.predict(vectorizer(tf.constant(TEXTS)), verbose=0))
    np.testing.assert_allclose(served.serve(tf.constant(TEXTS))["scores"].numpy(), expected, atol=1e-6)
    assert not hasattr(served, "serve_with_labels")
    # Its logits are inner products: the query vectors it serves meet the weights and biases in them.
    from keras_labelemb.tasks import LabelClassifier

    head = LabelClassifier.from_model(model).head
    queries = served.query_vectors(tf.constant(TEXTS))["query_vectors"].numpy()
    logits = model.predict(vectorizer(tf.constant(TEXTS)), verbose=0)
    np.testing.assert_allclose(queries @ np.asarray(head.label_vectors()).T, logits, rtol=1e-5, atol=1e-5)


def test_plain_keras_export_round_trip(trained, tmp_path):
    """`model.export()` (token ids in, logits out) reloads with identical predictions."""
    model, _, ids = trained
    model.export(str(tmp_path / "plain"), verbose=False)
    reloaded = tf.saved_model.load(str(tmp_path / "plain"))
    np.testing.assert_allclose(reloaded.serve(ids).numpy(), model.predict(ids, verbose=0), atol=1e-6)


@pytest.mark.slow  # ~9 s on 2 busy cores: an untrained tiny CNLE written and reloaded
def test_cnle_sequence_export_refuses_a_request_without_labels_clearly(tmp_path):
    from keras_labelemb.models import cnle

    vectorizer = TextVectorizer(max_tokens=6, vocabulary=["wheat", "gold", "grain"])
    label_ids = vectorizer.encode_labels(["wheat grain", "gold"], 2)
    model = cnle(
        vectorizer.vocabulary_size,
        label_ids,
        max_tokens=6,
        max_steps=2,
        model_dim=4,
        num_heads=1,
        attention_dim=4,
        output_mode="sequence",
    )
    served = load_text_classifier(export_text_classifier(model, vectorizer, str(tmp_path / "sequence")))
    sequence = served.serve_with_labels(tf.constant(["wheat"]), tf.constant(["gold"]))["label_sequence"]
    assert sequence.shape == (1, 2) and sequence.dtype == tf.int32
    # A label sequence over no labels has no defined end symbol: a clear error, not the decoder's opaque one.
    with pytest.raises(tf.errors.InvalidArgumentError, match="pass at least one"):
        served.serve_with_labels(tf.constant(["wheat"]), tf.constant([], tf.string))


@pytest.mark.slow
def test_served_endpoints_read_one_string_and_a_column_and_refuse_what_is_not_text(served):
    batch = served.serve(tf.constant(TEXTS))["scores"].numpy()
    # One string is a batch of one; a (B, 1) column (tensor or NumPy) its B texts; a list of str as a tensor.
    np.testing.assert_allclose(served.serve(TEXTS[0])["scores"].numpy(), batch[:1], atol=1e-6)
    np.testing.assert_allclose(served.serve(tf.constant(TEXTS)[:, None])["scores"].numpy(), batch, atol=1e-6)
    np.testing.assert_allclose(served.serve(np.array(TEXTS)[:, None])["scores"].numpy(), batch, atol=1e-6)
    np.testing.assert_allclose(served.serve(list(TEXTS))["scores"].numpy(), batch, atol=1e-6)
    assert served.serve([])["scores"].shape == (0, 3)
    for sent, message in (
        (None, "must be a list of strings"),
        (5, "must be a list of strings"),
        ([1, 2], r"texts\[0\]=1 \(int\)"),
        (["wheat", None], r"texts\[1\]=None"),
        (tf.constant([1, 2]), "dtype int32"),
    ):
        with pytest.raises(ValueError, match=message):
            served.serve(sent)
    with pytest.raises(ValueError, match=r"label_descriptions\[0\]=3"):
        served.serve_with_labels(TEXTS, [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(B,\), \(B, 1\) or one string"):
        served.serve(tf.constant([["a", "b"]]))
