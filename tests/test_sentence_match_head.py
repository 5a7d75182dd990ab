"""SentenceMatchHead: cosine against NumPy (inner products too), a frozen encoder that stays frozen while a hybrid
of exact words and sentence meaning trains, relabels, round-trips and serves raw strings."""

import keras
import numpy as np
import pytest
from sentence_helpers import DOCUMENTS, LABELS, T, encoder, tiny_bert, unit_means, vectorizer

from keras_labelemb.evaluation import predict_top_k
from keras_labelemb.layers import HybridHead, LexicalMatchHead, SentenceEncoder, SentenceMatchHead
from keras_labelemb.models import set_labels


def test_scores_equal_numpy_cosines_and_inner_products():
    layer = encoder()
    document = layer(DOCUMENTS)
    head = SentenceMatchHead(layer, LABELS, bias_initializer=keras.initializers.Constant(0.5))
    expected = unit_means(layer.backbone, DOCUMENTS) @ unit_means(layer.backbone, LABELS).T + 0.5
    np.testing.assert_allclose(head(document["pooled"]), expected, atol=1e-5)
    assert np.isclose(np.asarray(head(document["pooled"]))[0, 0], 1.5, atol=1e-5)  # the same text: cosine 1
    assert np.isfinite(np.asarray(head(document["pooled"]))[:, 2]).all()  # an empty text, [CLS] [SEP]: finite
    # Inner products, bias folded in: what a maximum-inner-product index (LabelIndex) searches.
    inner = np.asarray(head.query_vectors(document["pooled"])) @ np.asarray(head.label_vectors()).T
    np.testing.assert_allclose(inner, expected, atol=1e-5)


def model_of(layer, labels=LABELS):
    """Word-piece ids -> sentence encoder -> z-scored hybrid of tf-idf word matching and sentence cosine."""
    head = HybridHead(
        [LexicalMatchHead(layer, ignored_ids=(1, 2, 3), name="lexical"), SentenceMatchHead(layer, name="sentence")],
        label_ids=labels,
        standardize=True,
        name="hybrid",  # weight paths below do not depend on how many hybrids the process made before
    )
    ids = keras.Input((T,), dtype="int32")
    return keras.Model(ids, head(layer(ids)))


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_a_frozen_encoder_stays_frozen_while_the_blend_trains(tmp_path):
    layer = encoder()
    model = model_of(layer)
    model.layers[-1].adapt(DOCUMENTS)
    # The blend alone: the z-scores cancel the components' scales and biases, which the hybrid freezes.
    assert sorted(w.path for w in model.trainable_weights) == ["hybrid/bias", "hybrid/component_weights"]
    before = [np.array(w) for w in layer.backbone.weights]
    blend = np.array(model.layers[-1].weights_by_component)
    model.compile(keras.optimizers.Adam(0.1), keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(DOCUMENTS, np.eye(3)[[0, 1, 2]], epochs=2, verbose=0)
    for old, new in zip(before, layer.backbone.weights):
        np.testing.assert_array_equal(old, new)
    assert not np.allclose(blend, model.layers[-1].weights_by_component)

    full = model.predict(DOCUMENTS, verbose=0)
    assert np.isfinite(full).all()
    indices, _ = predict_top_k(model, DOCUMENTS, k=2, label_chunk_size=2, verbose=0)
    np.testing.assert_array_equal(indices, np.argsort(-full, axis=1, kind="stable")[:, :2])

    model.save(tmp_path / "sentence.keras")
    loaded = keras.models.load_model(tmp_path / "sentence.keras")
    np.testing.assert_allclose(loaded.predict(DOCUMENTS, verbose=0), full, atol=1e-5)
    encoders = [layer for layer in loaded.layers if isinstance(layer, SentenceEncoder)]
    heads = loaded.layers[-1].components
    assert heads[1].embedding is encoders[0]  # one encoder for documents and descriptions, after loading too
    assert sorted(w.path for w in loaded.trainable_weights) == ["hybrid/bias", "hybrid/component_weights"]

    set_labels(loaded, np.array([[2, 9, 4, 3], [2, 11, 12, 3]]))  # zero-shot: new descriptions, same encoder
    assert loaded.predict(DOCUMENTS, verbose=0).shape == (3, 2)


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="SentenceEncoder"):
        SentenceMatchHead(keras.layers.Embedding(16, 8), LABELS)
    layer = encoder()
    with pytest.raises(ValueError, match="label_encoder"):
        SentenceMatchHead(layer, LABELS, label_encoder=keras.layers.Dense(8))
    head = SentenceMatchHead(layer, LABELS)
    with pytest.raises(ValueError, match="label_embeddings"):
        head(np.zeros((2, 8), "float32"), label_embeddings=np.zeros((3, 5), "float32"))
    with pytest.raises(ValueError, match="8-d"):
        head(np.zeros((2, 5), "float32"))
    with pytest.raises(ValueError, match="label_ids"):
        head.set_labels(np.array([[2, 16 + 3]]))  # outside the encoder's vocabulary
    documents_only = SentenceEncoder(tiny_bert(16, 8, T), fine_tune="documents")
    with pytest.raises(ValueError, match=r"fine_tune_labels=True.*frozen copy"):
        SentenceMatchHead(documents_only, LABELS, fine_tune_labels=True)


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_a_sentence_model_serves_raw_strings_and_labels_sent_with_the_request(tmp_path):
    from keras_labelemb.export import export_text_classifier, load_text_classifier

    words = vectorizer()
    layer = encoder()
    labels = words.encode_labels(["grain", "crude oil", "bank rate"], 4)
    model = model_of(layer, labels)
    texts = ["wheat prices rose", "crude oil fell", ""]
    model.layers[-1].adapt(words(texts).numpy())
    served = load_text_classifier(export_text_classifier(model, words, str(tmp_path / "served")))
    expected = keras.ops.sigmoid(model.predict(words(texts), verbose=0))
    np.testing.assert_allclose(served.serve(texts)["scores"], expected, atol=1e-5)

    new = ["corn", "oil price"]
    set_labels(model, words.encode_labels(new, 4))
    np.testing.assert_allclose(
        served.serve_with_labels(texts, new)["scores"],
        keras.ops.sigmoid(model.predict(words(texts), verbose=0)),
        atol=1e-5,
    )
