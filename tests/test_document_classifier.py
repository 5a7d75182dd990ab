"""document_classifier(encoder, head, embedding=...): layers wired, what trains, saving, zero-shot, errors."""

import json

import keras
import numpy as np
import pytest

from keras_labelemb.layers import (
    CosineHead,
    DrillHead,
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    LinearHead,
    MaxPoolEncoder,
    WideHead,
    WordInteractionHead,
)
from keras_labelemb.models import document_classifier, gile_han, gile_wan, han, set_labels, wan
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.tasks import LabelClassifier

VOCABULARY_SIZE, DIM, TOKENS = 30, 8, 6
LABEL_IDS = np.array([[2, 3, 0], [4, 0, 0], [5, 6, 7]])
UNSEEN_LABEL_IDS = np.array([[20, 21, 0], [22, 0, 0]])
LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def pretrained():
    vectors = np.random.default_rng(1).normal(size=(VOCABULARY_SIZE, DIM)).astype("float32")
    vectors[0] = 0.0
    return vectors


def build(mode, vectors):
    keras.utils.set_random_seed(0)
    return gile_wan(
        VOCABULARY_SIZE, LABEL_IDS, max_tokens=TOKENS, units=8, dropout=0.0, joint_dim=8, word_vectors=vectors,
        fine_tune=mode,
    )  # fmt: skip


def batch():
    rng = np.random.default_rng(2)
    ids = rng.integers(2, 10, size=(8, TOKENS)).astype("int32")  # words the labels use too
    return ids, rng.integers(0, 2, size=(8, len(LABEL_IDS))).astype("float32")


def train_step(model):
    model.compile(keras.optimizers.Adam(0.05), keras.losses.BinaryCrossentropy(from_logits=True))
    model.train_on_batch(*batch())


def label_means(vectors, label_ids):
    return np.stack([vectors[row[row != 0]].mean(axis=0) for row in label_ids])


@pytest.mark.parametrize("mode", ["all", "none", "documents"])
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_which_vectors_train(mode):
    vectors = pretrained()
    model = build(mode, vectors)
    words, head = model.get_layer("word_embedding"), LabelClassifier.from_model(model).head
    np.testing.assert_array_equal(words.embeddings.numpy(), vectors)
    encoder_before = [w.numpy() for w in model.get_layer("document_encoder").weights]
    train_step(model)
    moved = not np.allclose(words.embeddings.numpy(), vectors)
    assert moved == (mode != "none")
    assert words.trainable == (mode != "none")
    assert any(
        not np.allclose(a, b.numpy()) for a, b in zip(encoder_before, model.get_layer("document_encoder").weights)
    )
    if mode == "documents":
        assert head.embedding is not words and head.embedding.name == "label_word_embedding"
        assert not head.embedding.trainable and not head.embedding.trainable_weights
        np.testing.assert_array_equal(head.embedding.embeddings.numpy(), vectors)  # the label side stays pretrained
        np.testing.assert_allclose(head.embed_labels(), label_means(vectors, LABEL_IDS), rtol=1e-5, atol=1e-6)
    else:
        assert head.embedding is words  # one shared table
    trained_words = {id(w) for w in model.trainable_weights}
    assert (id(words.embeddings) in trained_words) == (mode != "none")


@pytest.mark.parametrize("mode", ["all", "none", "documents"])
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_keras_round_trip_and_zero_shot(mode, tmp_path):
    vectors = pretrained()
    model = build(mode, vectors)
    train_step(model)
    ids = batch()[0]
    path = tmp_path / f"{mode}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0), rtol=1e-6, atol=1e-6)
    words, head = loaded.get_layer("word_embedding"), LabelClassifier.from_model(loaded).head
    assert words.trainable == (mode != "none")
    if mode == "documents":
        assert head.embedding is not words and not head.embedding.trainable
        np.testing.assert_array_equal(head.embedding.embeddings.numpy(), vectors)
    else:
        assert head.embedding is words
    # Zero-shot: unseen labels scored from their descriptions, the same before and after saving.
    set_labels(model, UNSEEN_LABEL_IDS)
    set_labels(loaded, UNSEEN_LABEL_IDS)
    scores = loaded.predict(ids, verbose=0)
    assert scores.shape == (len(ids), len(UNSEEN_LABEL_IDS))
    np.testing.assert_allclose(scores, model.predict(ids, verbose=0), rtol=1e-6, atol=1e-6)
    if mode == "documents":
        np.testing.assert_allclose(head.embed_labels(), label_means(vectors, UNSEEN_LABEL_IDS), rtol=1e-5, atol=1e-6)
        # Training the reloaded model still leaves the label side where it was.
        set_labels(loaded, LABEL_IDS)
        train_step(loaded)
        np.testing.assert_array_equal(head.embedding.embeddings.numpy(), vectors)


def test_vectors_stay_out_of_the_config():
    vectors = np.random.default_rng(0).normal(size=(5000, DIM)).astype("float32")
    model = gile_wan(5000, LABEL_IDS, max_tokens=TOKENS, units=8, word_vectors=vectors)
    assert len(json.dumps(model.get_config())) < 40_000  # the 40,000 values would take ~800 KB


def test_the_seed_builders_set_their_layers_and_the_prior_bias():
    model = gile_han(30, LABELS, max_sentences=2, max_sentence_length=3, encoder="bigru", units=5, joint_dim=7)
    encoder, head = model.get_layer("document_encoder"), model.get_layer("gile_head")
    assert (encoder.word_encoder, encoder.sentence_encoder, encoder.word_units, encoder.dropout) == (
        "bigru",
        "bigru",
        5,
        0.2,
    )
    assert head.joint_dim == 7 and model.name == "gile_han"
    np.testing.assert_allclose(keras.ops.convert_to_numpy(head.bias), -np.log(len(LABELS)), rtol=1e-6)
    linear = wan(30, 5, max_tokens=6, units=4)
    assert isinstance(LabelClassifier.from_model(linear).head, LinearHead) and linear.output_shape == (None, 5)
    assert han(30, 5, max_sentences=2, max_sentence_length=3, units=4).output_shape == (None, 5)
    with pytest.raises(ValueError, match="a linear head reads no labels"):
        wan(30, 5, max_tokens=6, word_vectors=pretrained(), fine_tune="documents")


def test_any_head_layer_over_any_encoder_layer():
    """The builder wires what it is given: a DRILL head over a max-pooling BiLSTM, and a registered cosine head."""
    embedding, _ = word_embeddings(40, dim=6)
    head = DrillHead(embedding, LABELS, depth=1, input_projection=True)
    model = document_classifier(MaxPoolEncoder(units=3, word_dropout=0.1), head, max_tokens=6)
    assert model.get_layer(embedding.name) is embedding and LabelClassifier.from_model(model).head is head
    ids = np.array([[2, 3, 4, 0, 0, 0], [0, 0, 0, 0, 0, 0]], "int32")
    assert np.all(np.isfinite(model(ids)))  # an all-padding document included
    cosine = document_classifier(HierarchicalAttention("dense", 4, flat=True), CosineHead(embedding, LABELS))
    assert isinstance(LabelClassifier.from_model(cosine).head, CosineHead) and cosine.name == "cosine_wan"


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_the_word_states_reach_a_head_that_reads_them_and_train_the_encoder(tmp_path):
    """A word-interaction head over a HAN's word states: they reach it flattened over sentences, it trains the
    word encoder through them, the encoder cut at the head outputs them, and the model saves."""
    embedding, _ = word_embeddings(12, dim=4)
    encoder = HierarchicalAttention("dense", 5, "dense", 5, return_token_states=True, name="document_encoder")
    head = WordInteractionHead(embedding, LABELS, document_vectors="states")
    model = document_classifier(encoder, head, max_sentences=2, max_sentence_length=3)
    ids = np.random.default_rng(0).integers(0, 12, size=(4, 2, 3)).astype("int32")
    document = LabelClassifier.from_model(model).encoder.predict(ids, verbose=0)
    assert sorted(document) == ["pooled", "token_ids", "token_states"] and document["token_states"].shape == (4, 6, 5)
    word_encoder = model.get_layer("document_encoder").word_encoder_layer
    before = keras.ops.convert_to_numpy(word_encoder.kernel).copy()
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(ids, np.ones((4, 4), "float32"), epochs=1, verbose=0)
    assert not np.array_equal(keras.ops.convert_to_numpy(word_encoder.kernel), before)
    model.save(tmp_path / "states.keras")
    loaded = keras.saving.load_model(tmp_path / "states.keras")
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0), atol=1e-6)


def test_a_han_without_static_sizes_gives_a_token_reading_head_every_token():
    embedding, _ = word_embeddings(30, dim=4)
    hybrid = HybridHead([GileHead(embedding, joint_dim=3), LexicalMatchHead(embedding)], LABELS)
    model = document_classifier(HierarchicalAttention("dense", 4, "dense", 4), hybrid, max_sentences=None)
    ids = np.random.default_rng(0).integers(0, 30, size=(2, 3, 4)).astype("int32")
    assert tuple(model.get_layer("flat_token_ids").output.shape) == (None, None)
    assert model.predict(ids, verbose=0).shape == (2, len(LABELS))


def test_a_wide_head_makes_the_model_read_features():
    embedding, _ = word_embeddings(30, dim=4)
    hybrid = HybridHead([GileHead(embedding, joint_dim=3), WideHead(len(LABELS))], LABELS)
    model = document_classifier(HierarchicalAttention("dense", 4, flat=True), hybrid, max_tokens=5, num_features=9)
    x = {"token_ids": np.ones((2, 5), "int32"), "features": np.random.default_rng(0).random((2, 9), "float32")}
    assert sorted(model.input) == ["features", "token_ids"] and model.predict(x, verbose=0).shape == (2, len(LABELS))
    with pytest.raises(ValueError, match=r"`num_features` .* Received: num_features=None"):
        document_classifier(HierarchicalAttention("dense", 4, flat=True), hybrid, max_tokens=5)


def test_argument_errors_name_what_was_passed():
    embedding, _ = word_embeddings(30, dim=4)
    gile = GileHead(embedding, LABELS, joint_dim=3)
    flat = HierarchicalAttention("dense", 4, flat=True)
    with pytest.raises(ValueError, match="`head` must be a LabelHead layer.*Received: head='gile'"):
        document_classifier(flat, "gile")
    with pytest.raises(ValueError, match="`encoder` must be a Keras layer. Received: encoder='dense'"):
        document_classifier("dense", gile)
    with pytest.raises(ValueError, match="holds no word embedding.*pass `embedding`"):
        document_classifier(flat, LinearHead(3), max_tokens=5)
    with pytest.raises(ValueError, match="reads flat documents.*Received: max_tokens=None, max_sentences=2"):
        document_classifier(flat, gile, max_sentences=2, max_sentence_length=3)
    with pytest.raises(ValueError, match="not both. Received: max_tokens=5, max_sentences=2"):
        document_classifier(flat, gile, max_tokens=5, max_sentences=2, max_sentence_length=3)
    with pytest.raises(ValueError, match="`num_features` .* Received: num_features=4"):
        document_classifier(flat, gile, max_tokens=5, num_features=4)
