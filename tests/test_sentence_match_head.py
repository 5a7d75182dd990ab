"""SentenceEncoder and SentenceMatchHead: mean pooling and cosine against NumPy, a frozen pretrained encoder that
stays frozen, and a hybrid of exact words and sentence meaning that trains, relabels and round-trips."""

import keras
import numpy as np
import pytest

from keras_labelemb.evaluation import predict_top_k
from keras_labelemb.layers import HybridHead, LexicalMatchHead, SentenceEncoder, SentenceMatchHead
from keras_labelemb.models import set_labels

keras_hub = pytest.importorskip("keras_hub")
from layer_cases import tiny_bert  # noqa: E402  (after the skip: it imports keras_hub)

V, T = 16, 6
LABELS = np.array([[2, 5, 7, 3], [2, 9, 3, 0], [2, 3, 0, 0]])  # [CLS] words [SEP]; the last, an empty text
DOCUMENTS = np.array([[2, 5, 7, 3, 0, 0], [2, 9, 9, 4, 3, 0], [0, 0, 0, 0, 0, 0]])  # one is all padding


def encoder():
    keras.utils.set_random_seed(0)
    return SentenceEncoder(tiny_bert(V, 8, T))


def unit_means(backbone, ids):
    """sentence-transformers' pooling: mean of the token states that are not padding, then unit length."""
    inputs = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": ids != 0}
    states = np.asarray(backbone(inputs)["sequence_output"])
    out = np.zeros((len(ids), states.shape[-1]))
    for i, row in enumerate(ids):
        if (row != 0).any():
            mean = states[i, row != 0].mean(axis=0)
            out[i] = mean / np.linalg.norm(mean)
    return out


def test_pooled_vectors_and_scores_equal_numpy():
    layer = encoder()
    document = layer(DOCUMENTS)
    np.testing.assert_allclose(document["pooled"], unit_means(layer.backbone, DOCUMENTS), atol=1e-5)
    assert np.all(np.asarray(document["pooled"])[2] == 0.0)  # all padding: zeros, not NaN
    np.testing.assert_array_equal(document["token_mask"], DOCUMENTS != 0)

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
    )
    ids = keras.Input((T,), dtype="int32")
    return keras.Model(ids, head(layer(ids)))


def test_a_frozen_encoder_stays_frozen_while_the_blend_trains(tmp_path):
    layer = encoder()
    model = model_of(layer)
    model.layers[-1].adapt(DOCUMENTS)
    assert sorted(w.path for w in model.trainable_weights) == sorted(
        ["hybrid_head/component_weights", "hybrid_head/bias", "hybrid_head/lexical/scale", "hybrid_head/lexical/bias",
         "hybrid_head/sentence/scale", "hybrid_head/sentence/bias"]
    )  # fmt: skip
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

    set_labels(loaded, np.array([[2, 9, 4, 3], [2, 11, 12, 3]]))  # zero-shot: new descriptions, same encoder
    assert loaded.predict(DOCUMENTS, verbose=0).shape == (3, 2)


def test_fine_tuning_reaches_the_encoder_through_documents_only():
    keras.utils.set_random_seed(0)
    layer = SentenceEncoder(tiny_bert(V, 8, T), fine_tune=True)
    head = SentenceMatchHead(layer, LABELS)
    ids = keras.Input((T,), dtype="int32")
    model = keras.Model(ids, head(layer(ids)["pooled"]))
    with _tape() as tape:
        documents_only = model(DOCUMENTS[:2], training=True)
        loss = keras.ops.sum(documents_only)
    grads = tape.gradient(loss, [w.value for w in layer.backbone.trainable_weights])
    assert any(g is not None and np.any(np.asarray(g) != 0) for g in grads)
    # The label side alone: no gradient reaches the encoder unless `fine_tune_labels`.
    for fine_tune_labels, reaches in ((False, False), (True, True)):
        head = SentenceMatchHead(layer, LABELS, fine_tune_labels=fine_tune_labels)
        fixed = keras.ops.convert_to_tensor(np.eye(8, dtype="float32")[:2])
        with _tape() as tape:
            loss = keras.ops.sum(head(fixed))
        grads = tape.gradient(loss, [w.value for w in layer.backbone.trainable_weights])
        assert any(g is not None and np.any(np.asarray(g) != 0) for g in grads) == reaches


def _tape():
    import tensorflow as tf

    return tf.GradientTape()


def test_bad_arguments_name_the_argument():
    with pytest.raises(ValueError, match="backbone"):
        SentenceEncoder(keras.layers.Dense(3))
    ids = keras.Input((4,), dtype="int32")
    with pytest.raises(ValueError, match="backbone"):  # a functional model, but no token embedding
        SentenceEncoder(keras.Model({"token_ids": ids, "padding_mask": ids}, keras.layers.Embedding(9, 2)(ids)))
    layer = encoder()
    with pytest.raises(ValueError, match=r"token_ids.*\(2, 9\)"):  # longer than the backbone's 6 positions
        layer(np.ones((2, 9), "int32"))
    with pytest.raises(ValueError, match="token_ids"):
        layer(np.ones((2, 3, 4), "int32"))
    with pytest.raises(ValueError, match="label_encoder"):
        SentenceMatchHead(layer, LABELS, label_encoder=keras.layers.Dense(8))
    with pytest.raises(ValueError, match="SentenceEncoder"):
        SentenceMatchHead(keras.layers.Embedding(V, 8), LABELS)
    head = SentenceMatchHead(encoder(), LABELS)
    with pytest.raises(ValueError, match="label_embeddings"):
        head(np.zeros((2, 8), "float32"), label_embeddings=np.zeros((3, 5), "float32"))
    with pytest.raises(ValueError, match="8-d"):
        head(np.zeros((2, 5), "float32"))
    with pytest.raises(ValueError, match="label_ids"):
        head.set_labels(np.array([[2, V + 3]]))  # outside the encoder's vocabulary


PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "wheat", "corn", "oil", "price", "rose", "fell", "bank"]
PIECES += ["rate", "##s", "grain", "crude"]


def vectorizer(length=T):
    from keras_labelemb.text import WordPieceVectorizer

    return WordPieceVectorizer(keras_hub.models.BertTokenizer(PIECES, lowercase=True), length)


def test_word_piece_vectorizer_packs_and_round_trips(tmp_path):
    layer = vectorizer()
    ids = layer(["Wheat prices rose", "", "crude oil bank rate fell sharply"]).numpy()
    np.testing.assert_array_equal(ids[0], [2, 5, 8, 13, 9, 3])  # [CLS] wheat price ##s rose [SEP]
    np.testing.assert_array_equal(ids[1], [2, 3, 0, 0, 0, 0])  # an empty text: no pieces, padding after
    assert ids[2, -1] == 3 and ids.dtype == np.int32  # truncated, still ends with [SEP]
    assert layer.special_ids == (1, 2, 3)
    np.testing.assert_array_equal(layer.encode_labels(["grain", "crude oil"], 4), [[2, 14, 3, 0], [2, 15, 7, 3]])
    copy = type(layer).from_config(layer.get_config())  # the vocabulary is an asset of the tokenizer, not config
    with pytest.raises(ValueError, match="vocabulary"):
        copy(["Wheat prices rose"])
    layer.save_assets(str(tmp_path))
    copy.load_assets(str(tmp_path))
    np.testing.assert_array_equal(copy(["Wheat prices rose"]), ids[:1])
    with pytest.raises(ValueError, match="tokenizer"):
        type(layer)(keras.layers.Dense(2), 6)
    with pytest.raises(ValueError, match="sequence_length"):
        vectorizer(length=2)
    with pytest.raises(ValueError, match="description_length"):  # [CLS] [SEP] only: every label the same
        layer.encode_labels(["grain"], 2)
    column = layer(np.array([["Wheat prices rose"], [""]], dtype=object)).numpy()  # keras.Input((1,), "string")
    np.testing.assert_array_equal(column, ids[:2])


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
