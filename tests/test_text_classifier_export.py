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
    model = gile_han(
        vectorizer.vocabulary_size, label_ids, 3, 8, encoder_units=8, head={"joint_dim": 8, "activation": "tanh"}
    )
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=True)
    ids = vectorizer(tf.constant(TEXTS))
    model.fit(ids, np.eye(4, 3, dtype="float32"), epochs=2, verbose=0)
    return model, vectorizer, ids


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.slow  # ~5.5 s on 2 cores: writes and reloads a SavedModel
def test_served_scores_equal_in_memory_predictions(trained, tmp_path):
    model, vectorizer, ids = trained
    expected = sigmoid(model.predict(ids, verbose=0))
    export_text_classifier(model, vectorizer, str(tmp_path / "served"))
    served = load_text_classifier(str(tmp_path / "served"))
    scores = served.serve(tf.constant(TEXTS))["scores"].numpy()
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert np.all(np.isfinite(scores)) and scores.shape == (4, 3)
    # The default serving signature is the raw-text one.
    signature = served.signatures["serving_default"]
    np.testing.assert_allclose(signature(texts=tf.constant(TEXTS))["scores"].numpy(), expected, atol=1e-6)


@pytest.mark.slow  # ~5.5 s on 2 cores: writes and reloads a SavedModel
def test_served_model_scores_labels_added_after_training(trained, tmp_path):
    model, vectorizer, ids = trained
    export_text_classifier(model, vectorizer, str(tmp_path / "served"), description_length=4)
    served = load_text_classifier(str(tmp_path / "served"))
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
    model = han(vectorizer.vocabulary_size, 3, 3, 8, encoder_units=8)
    export_text_classifier(model, vectorizer, str(tmp_path / "served"))
    served = load_text_classifier(str(tmp_path / "served"))
    expected = sigmoid(model.predict(vectorizer(tf.constant(TEXTS)), verbose=0))
    np.testing.assert_allclose(served.serve(tf.constant(TEXTS))["scores"].numpy(), expected, atol=1e-6)
    assert not hasattr(served, "serve_with_labels")


def test_plain_keras_export_round_trip(trained, tmp_path):
    """`model.export()` (token ids in, logits out) reloads with identical predictions."""
    model, _, ids = trained
    model.export(str(tmp_path / "plain"), verbose=False)
    reloaded = tf.saved_model.load(str(tmp_path / "plain"))
    np.testing.assert_allclose(reloaded.serve(ids).numpy(), model.predict(ids, verbose=0), atol=1e-6)


@pytest.mark.slow  # ~18 s on 2 cores: a small CNLE trained ten eager steps, then written and reloaded as a SavedModel
def test_cnle_export_serves_the_decoded_label_sets(tmp_path):
    from keras_labelemb.layers import AdaptiveLabelDecoder
    from keras_labelemb.models import cnle, cnle_training_model, compile_cnle_training_model, find_label_head
    from keras_labelemb.text.label_sequences import label_sequences

    keras.utils.set_random_seed(0)
    vectorizer = TextVectorizer(max_tokens=10)
    vectorizer.adapt(TEXTS + LABELS + NEW_LABELS)
    label_ids = vectorizer.encode_labels(LABELS, 4)
    model = cnle(
        vectorizer.vocabulary_size, label_ids, max_tokens=10, max_steps=3, model_dim=8, num_heads=2, attention_dim=4
    )
    ids = vectorizer(tf.constant(TEXTS))
    targets = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1]], "float32")
    sequences = label_sequences(targets, max_steps=3)
    # Eager: ten steps cost less than tracing the training graph (6 s against 14 s for twenty at a lower rate).
    training = compile_cnle_training_model(cnle_training_model(model), keras.optimizers.Adam(3e-2), run_eagerly=True)
    training.fit({"token_ids": ids, "label_sequence": sequences}, sequences, epochs=10, verbose=0)
    expected = model.predict(ids, verbose=0)
    assert expected.sum() > 0, "the decoder should emit some label after training"

    path = export_text_classifier(model, vectorizer, str(tmp_path / "cnle"))
    served = load_text_classifier(path)
    np.testing.assert_array_equal(served.serve(tf.constant(TEXTS))["labels"].numpy(), expected)
    # Labels written at serving time decode like a call of the head with those labels.
    described = NEW_LABELS[:3]  # the fourth is empty: a call refuses it, a served request decodes it as padding
    head = find_label_head(model)
    assert isinstance(head, AdaptiveLabelDecoder)
    words = model.get_layer("word_embedding")(ids)
    in_memory = np.asarray(head(words, label_ids=vectorizer.encode_labels(described, 4), mask=np.asarray(ids) != 0))
    out = served.serve_with_labels(tf.constant(TEXTS), tf.constant(described))["labels"].numpy()
    assert out.shape == (len(TEXTS), len(described))
    np.testing.assert_array_equal(out, in_memory)
    with_empty = served.serve_with_labels(tf.constant(TEXTS), tf.constant(NEW_LABELS))["labels"].numpy()
    assert with_empty.shape == (len(TEXTS), len(NEW_LABELS)) and np.isin(with_empty, (0.0, 1.0)).all()
    # Malformed requests: a batch of no text, and bytes that are not UTF-8, give defined outputs.
    assert served.serve(tf.constant([], dtype=tf.string))["labels"].shape == (0, len(LABELS))
    odd = served.serve(tf.constant([b"\xff\xfe wheat"]))["labels"].numpy()
    assert odd.shape == (1, len(LABELS)) and np.isin(odd, (0.0, 1.0)).all()


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
