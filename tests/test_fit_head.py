"""`LabelClassifier.fit_head` trains the head alone on the frozen encoder's vectors; `head_first` runs it in `fit`."""

import keras
import numpy as np
import pytest
from sentence_helpers import T, V, tiny_bert, vectorizer

from keras_labelemb.evaluation import choose_threshold
from keras_labelemb.layers import LinearHead, SentenceEncoder
from keras_labelemb.tasks import LabelClassifier, LabelClassifierPreprocessor

WORDS = ["wheat", "corn", "oil", "crude", "bank", "rate"]


def texts_and_targets(count, seed=0):
    """Texts of two or three pieces; label 0 when "wheat" or "corn" is in it, label 1 when "oil" or "crude"."""
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(WORDS, size=3)) for _ in range(count)]
    y = np.array([[any(w in t for w in pair) for pair in (("wheat", "corn"), ("oil", "crude"))] for t in texts])
    return texts, y.astype("float32")


def classifier(head_first=False, multi_label=True):
    keras.utils.set_random_seed(0)
    preprocessor = LabelClassifierPreprocessor(vectorizer(T), description_length=4)
    encoder = SentenceEncoder(tiny_bert(V, 8, T), fine_tune=True)
    labels = {"grain": "wheat corn", "oil": "crude oil"}
    c = LabelClassifier(
        encoder, LinearHead(2), preprocessor, labels=labels, multi_label=multi_label, head_first=head_first
    )
    c.predict_logits(["wheat"])  # built: its initial weights exist
    return c


def backbone_weights(c):
    return [np.array(w) for w in c.encoder.backbone.get_weights()]


def test_fit_head_trains_the_head_alone_keeps_the_best_validation_epoch_and_tunes_thresholds():
    texts, y = texts_and_targets(48)
    val_texts, val_y = texts_and_targets(24, seed=1)
    c = classifier()
    before, head_before = backbone_weights(c), [np.array(w) for w in c.head.get_weights()]
    history = c.fit_head(texts, y, validation_data=(val_texts, val_y), epochs=30, patience=3, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(before, backbone_weights(c)))  # the encoder did not move
    assert not np.allclose(head_before[0], c.head.get_weights()[0])
    scores = history.history["val_micro_f1"]
    assert len(scores) <= 30
    # The weights kept are the best epoch's: its validation F1 at the best threshold, recomputed here.
    probabilities = keras.ops.convert_to_numpy(keras.ops.sigmoid(c.predict_logits(val_texts)))
    assert choose_threshold(val_y, probabilities)[1] == pytest.approx(max(scores), abs=1e-6)
    assert c.threshold_mode is not None  # thresholds tuned on the validation data
    # The vectors are the encoder's: the same logits as the whole classifier's.
    vectors = c._document_vectors(val_texts)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(c.head(vectors)), c.predict_logits(val_texts), atol=1e-5)


def test_without_validation_it_runs_the_epochs_given_and_single_label_reads_accuracy():
    texts, y = texts_and_targets(32)
    assert len(classifier().fit_head(texts, y, epochs=4, verbose=0).history["loss"]) == 4
    single = np.eye(2, dtype="float32")[y[:, 1].astype(int)]  # one label each: "oil" or not
    c = classifier(multi_label=False)
    history = c.fit_head(texts, single, validation_data=(texts[:16], single[:16]), epochs=5, patience=2, verbose=0)
    assert "val_accuracy" in history.history


def test_head_first_fit_trains_the_head_before_the_whole_model():
    texts, y = texts_and_targets(32)
    # A learning rate of 0 in `fit`: only the head-first step can move the head.
    moved = classifier(head_first=True)
    moved.compile(keras.optimizers.SGD(0.0))
    head = [np.array(w) for w in moved.head.get_weights()]
    history = moved.fit(texts, y, epochs=1, batch_size=16, verbose=0)
    assert len(history.head_first["loss"]) == 200  # no validation data: every epoch of fit_head's default
    assert not np.allclose(head[0], moved.head.get_weights()[0])
    still = classifier(head_first=False)
    still.compile(keras.optimizers.SGD(0.0))
    head = [np.array(w) for w in still.head.get_weights()]
    assert not hasattr(still.fit(texts, y, epochs=1, batch_size=16, verbose=0), "head_first")
    np.testing.assert_array_equal(head[0], still.head.get_weights()[0])


def test_head_first_survives_a_save_and_the_preset_asks_for_it(tmp_path):
    texts, y = texts_and_targets(16)
    c = classifier(head_first=True)
    c.fit(texts, y, epochs=1, verbose=0)
    c.save(tmp_path / "c.keras")
    assert keras.saving.load_model(tmp_path / "c.keras").head_first is True
    from keras_labelemb.tasks.presets import load_preset

    assert load_preset("minilm_fine_tuned").head_first and not load_preset("minilm_cosine").head_first


def test_fit_head_refuses_what_it_cannot_train_by_name(monkeypatch):
    texts, y = texts_and_targets(8)
    with pytest.raises(ValueError, match="at least one document"):
        classifier().fit_head([], y[:0])
    import tensorflow as tf

    with pytest.raises(ValueError, match="tf.data"):
        classifier().fit_head(tf.data.Dataset.from_tensor_slices((texts, y)).batch(4), None)
    with pytest.raises(ValueError, match="head_first"):
        LabelClassifier(None, None, labels=["a"], head_first="yes")
    c = classifier()
    monkeypatch.setattr(LinearHead, "reads_tokens", property(lambda self: True))  # as a head of the words
    with pytest.raises(ValueError, match="reads_tokens=True"):
        c.fit_head(texts, y)
