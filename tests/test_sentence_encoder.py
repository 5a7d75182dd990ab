"""SentenceEncoder: sentence-transformers' mean pooling against NumPy, all-padding rows, gradients only where
fine-tuning lets them through, and clear errors for what a backbone cannot read."""

import keras
import numpy as np
import pytest
from sentence_helpers import DOCUMENTS, LABELS, T, V, encoder, gradient_tape, tiny_bert, unit_means

from keras_labelemb.layers import SentenceEncoder, SentenceMatchHead


def test_pooled_vectors_equal_numpy():
    layer = encoder()
    document = layer(DOCUMENTS)
    np.testing.assert_allclose(document["pooled"], unit_means(layer.backbone, DOCUMENTS), atol=1e-5)
    assert np.all(np.asarray(document["pooled"])[2] == 0.0)  # all padding: zeros, not NaN
    np.testing.assert_array_equal(document["token_mask"], DOCUMENTS != 0)
    np.testing.assert_allclose(layer.encode(LABELS), unit_means(layer.backbone, LABELS), atol=1e-5)


def test_fine_tuning_reaches_the_encoder_through_documents_only():
    keras.utils.set_random_seed(0)
    layer = SentenceEncoder(tiny_bert(V, 8, T), fine_tune=True)
    head = SentenceMatchHead(layer, LABELS)
    ids = keras.Input((T,), dtype="int32")
    model = keras.Model(ids, head(layer(ids)["pooled"]))
    with gradient_tape() as tape:
        documents_only = model(DOCUMENTS[:2], training=True)
        loss = keras.ops.sum(documents_only)
    grads = tape.gradient(loss, [w.value for w in layer.backbone.trainable_weights])
    assert any(g is not None and np.any(np.asarray(g) != 0) for g in grads)
    # The label side alone: no gradient reaches the encoder unless `fine_tune_labels`.
    for fine_tune_labels, reaches in ((False, False), (True, True)):
        head = SentenceMatchHead(layer, LABELS, fine_tune_labels=fine_tune_labels)
        fixed = keras.ops.convert_to_tensor(np.eye(8, dtype="float32")[:2])
        with gradient_tape() as tape:
            loss = keras.ops.sum(head(fixed))
        grads = tape.gradient(loss, [w.value for w in layer.backbone.trainable_weights])
        assert any(g is not None and np.any(np.asarray(g) != 0) for g in grads) == reaches


@pytest.mark.parametrize("fine_tune", [False, True, "documents"])
def test_fine_tune_holds_through_freezing_and_thawing_the_model(fine_tune):
    layer = SentenceEncoder(tiny_bert(V, 8, T), fine_tune=fine_tune)
    ids = keras.Input((T,), dtype="int32")
    model = keras.Model(ids, keras.layers.Dense(2)(layer(ids)["pooled"]))
    backbone = {w.path for w in layer.backbone.weights}
    for _ in range(2):
        assert bool(backbone & {w.path for w in model.trainable_weights}) == bool(fine_tune)
        if layer.label_backbone is not None:  # the label side's copy never trains
            assert not layer.label_backbone.trainable_weights
        model.trainable = False
        assert not model.trainable_weights
        model.trainable = True


@pytest.mark.parametrize("fine_tune", [True, "documents"])
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_documents_mode_reads_labels_with_the_pretrained_copy(fine_tune, tmp_path):
    keras.utils.set_random_seed(0)
    layer = SentenceEncoder(tiny_bert(V, 8, T), fine_tune=fine_tune)
    ids = keras.Input((T,), dtype="int32")
    model = keras.Model(ids, SentenceMatchHead(layer, LABELS)(layer(ids)["pooled"]))
    # Eager steps: tracing the tiny BERT's training step costs more than the five steps.
    loss = keras.losses.BinaryCrossentropy(from_logits=True)
    model.compile(keras.optimizers.Adam(1e-2), loss, run_eagerly=True)
    pretrained = [np.array(w) for w in layer.backbone.get_weights()]
    before = np.asarray(layer.encode(LABELS))
    np.testing.assert_allclose(before, unit_means(layer.backbone, LABELS), atol=1e-5)
    model.fit(DOCUMENTS[:2], np.eye(3, dtype="float32")[:2], epochs=5, verbose=0)
    assert any(not np.allclose(a, b) for a, b in zip(layer.backbone.get_weights(), pretrained))  # documents' side
    after = np.asarray(layer.encode(LABELS))
    if fine_tune is True:  # one backbone for both sides: the label vectors moved with it
        assert not np.allclose(after, before, atol=1e-4)
        return
    # "documents": exactly the pretrained backbone's vectors, by NumPy pooling.
    for a, b in zip(layer.label_backbone.get_weights(), pretrained):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(after, unit_means(layer.label_backbone, LABELS), atol=1e-5)
    # Saved and loaded: both sides as trained, the same scores.
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    np.testing.assert_allclose(loaded(DOCUMENTS), model(DOCUMENTS), atol=1e-5)
    encoder = next(x for x in loaded.layers if isinstance(x, SentenceEncoder))
    assert encoder.fine_tune == "documents"
    np.testing.assert_allclose(encoder.encode(LABELS), after, atol=1e-6)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="backbone"):
        SentenceEncoder(keras.layers.Dense(3))
    ids = keras.Input((4,), dtype="int32")
    with pytest.raises(ValueError, match="backbone"):  # a functional model, but no token embedding
        SentenceEncoder(keras.Model({"token_ids": ids, "padding_mask": ids}, keras.layers.Embedding(9, 2)(ids)))
    with pytest.raises(ValueError, match="fine_tune.*'documents'.*'labels'"):
        SentenceEncoder(tiny_bert(V, 8, T), fine_tune="labels")
    layer = encoder()
    with pytest.raises(ValueError, match=r"token_ids.*\(2, 9\)"):  # longer than the backbone's 6 positions
        layer(np.ones((2, 9), "int32"))
    with pytest.raises(ValueError, match="token_ids"):
        layer(np.ones((2, 3, 4), "int32"))
