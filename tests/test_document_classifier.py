"""document_classifier(embedding={"vectors": ..., "fine_tune": ...}): what trains, saving, zero-shot."""

import json

import keras
import numpy as np
import pytest

from keras_labelemb.layers import DrillHead
from keras_labelemb.models import document_classifier, find_label_head, set_labels

VOCABULARY_SIZE, DIM, TOKENS = 30, 8, 6
LABEL_IDS = np.array([[2, 3, 0], [4, 0, 0], [5, 6, 7]])
UNSEEN_LABEL_IDS = np.array([[20, 21, 0], [22, 0, 0]])


def pretrained():
    vectors = np.random.default_rng(1).normal(size=(VOCABULARY_SIZE, DIM)).astype("float32")
    vectors[0] = 0.0
    return vectors


def build(mode, vectors, head=None):
    keras.utils.set_random_seed(0)
    return document_classifier(
        VOCABULARY_SIZE,
        LABEL_IDS,
        flat=True,
        max_tokens=TOKENS,
        encoder={"units": 8, "dropout": 0.0},
        head=head or {"joint_dim": 8},
        embedding={"vectors": vectors, "fine_tune": mode},
    )


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
    words, head = model.get_layer("word_embedding"), find_label_head(model)
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


def test_default_mode_is_all():
    model = build(None, pretrained())
    assert model.get_layer("word_embedding").trainable
    assert find_label_head(model).embedding is model.get_layer("word_embedding")


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
    words, head = loaded.get_layer("word_embedding"), find_label_head(loaded)
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
    model = document_classifier(
        5000, LABEL_IDS, flat=True, max_tokens=TOKENS, encoder={"units": 8}, embedding={"vectors": vectors}
    )
    assert len(json.dumps(model.get_config())) < 40_000  # the 40,000 values would take ~800 KB


def test_drill_head_and_linear_head():
    vectors = pretrained()
    drill = build("documents", vectors, head={"type": "drill", "depth": 1})
    assert find_label_head(drill).embedding.name == "label_word_embedding"
    assert tuple(drill(batch()[0]).shape) == (8, 3)
    linear = build("none", vectors, head="linear")
    assert not linear.get_layer("word_embedding").trainable


def test_argument_errors():
    vectors = pretrained()
    common = dict(flat=True, max_tokens=TOKENS)
    with pytest.raises(ValueError, match=r"`embedding\['vectors'\]` must be .*vocabulary_size=30.*shape \(29, 8\)"):
        document_classifier(30, LABEL_IDS, embedding={"vectors": vectors[:-1]}, **common)
    with pytest.raises(ValueError, match=r"`embedding\['vectors'\]` must be finite"):
        document_classifier(30, LABEL_IDS, embedding={"vectors": np.full((30, 8), np.nan)}, **common)
    with pytest.raises(ValueError, match=r"`embedding\['fine_tune'\]` must be one of .* Received: fine_tune='labels'"):
        document_classifier(30, LABEL_IDS, embedding={"vectors": vectors, "fine_tune": "labels"}, **common)
    with pytest.raises(ValueError, match="pass them too. Received: fine_tune='none'"):
        document_classifier(30, LABEL_IDS, embedding={"fine_tune": "none"}, **common)
    with pytest.raises(ValueError, match=r"`embedding\['dim'\]` must match .*\(8\).*Received: dim=16"):
        document_classifier(30, LABEL_IDS, embedding={"vectors": vectors, "dim": 16}, **common)
    with pytest.raises(
        ValueError, match=r"leave `initializer` and `trainable` unset\. Received: \{'trainable': False\}"
    ):
        document_classifier(30, LABEL_IDS, embedding={"vectors": vectors, "trainable": False}, **common)
    with pytest.raises(ValueError, match="'documents' .* reads no label descriptions"):
        document_classifier(30, LABEL_IDS, embedding={"vectors": vectors, "fine_tune": "documents"}, head="linear")
    assert document_classifier(30, LABEL_IDS, embedding={"vectors": vectors, "dim": 8}, **common).output_shape == (
        None,
        3,
    )


LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def test_a_label_head_layer_brings_its_embedding_into_the_builder():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    head = DrillHead(embedding, LABELS, depth=1, input_projection=True)
    model = document_classifier(40, head=head, flat=True, max_tokens=6, encoder={"units": 5})
    assert model.get_layer(embedding.name) is embedding
    assert find_label_head(model) is head
    with pytest.raises(ValueError, match=r"`dropout` only\. Received: embedding keys \['dim'\]"):
        document_classifier(
            40,
            head=DrillHead(keras.layers.Embedding(40, 6), LABELS, depth=1),
            flat=True,
            max_tokens=6,
            embedding={"dim": 8},
        )
    with pytest.raises(ValueError, match="own label set"):
        document_classifier(40, LABELS, head=head, flat=True, max_tokens=6)


@pytest.mark.parametrize(
    "spec,match",
    [
        ({"type": "gile", "depth": 2}, r"\['depth'\] belong to another head"),
        ({"type": "drill", "activation": "tanh", "num_languages": 2}, r"\['num_languages'\]"),
        ({"type": "linear", "joint_dim": 4}, r"\['joint_dim'\]"),
        ({"type": "gile", "bias_initializer": "zeros"}, r"\['bias_initializer'\]"),
        ({"type": "softmax"}, "head\\['type'\\]"),
        ("deep", "head='deep'"),
    ],
)
def test_head_specs_reject_arguments_of_another_head(spec, match):
    with pytest.raises(ValueError, match=match):
        document_classifier(40, LABELS, flat=True, max_tokens=6, head=spec)


def test_max_pool_encoder_spec_builds_the_regularised_bilstm():
    from keras_labelemb.layers import MaxPoolEncoder

    spec = {"type": "max_pool", "units": 3, "word_dropout": 0.1, "recurrent_dropout": 0.1}
    model = document_classifier(30, LABELS, flat=True, max_tokens=6, encoder=spec, head={"joint_dim": 4})
    encoder = model.get_layer("document_encoder")
    assert isinstance(encoder, MaxPoolEncoder) and encoder.output_size == 6 and encoder.word_dropout == 0.1
    ids = np.array([[2, 3, 4, 0, 0, 0], [0, 0, 0, 0, 0, 0]], "int32")
    assert np.all(np.isfinite(model(ids)))
    # A head that reads the encoder's states gets them from the max-pooling encoder too.
    states = document_classifier(
        30, LABELS, flat=True, max_tokens=6, encoder=spec, head={"type": "interaction", "document_vectors": "states"}
    )
    assert states.get_layer("document_encoder").return_token_states
    assert states(ids).shape == (2, len(LABELS))


@pytest.mark.parametrize(
    "encoder, flat, match",
    [
        ({"type": "max_pool"}, False, "flat=True"),
        ({"type": "transformer"}, True, r"type must be one of .*Received: encoder=\{'type': 'transformer'\}"),
        ({"units": 3, "word_dropout": 0.1}, True, r"\['word_dropout'\] belong to another encoder"),
        ("max_pool", False, "flat=True"),
        (3, True, "a name or a dict spec. Received: encoder=3"),
    ],
)
def test_encoder_spec_errors(encoder, flat, match):
    sizes = {"max_tokens": 6} if flat else {"max_sentences": 2, "max_sentence_length": 3}
    with pytest.raises(ValueError, match=match):
        document_classifier(30, LABELS, flat=flat, encoder=encoder, **sizes)


def test_an_encoder_spec_sets_the_attention_encoder_and_a_name_keeps_its_defaults():
    spec = {"type": "bigru", "units": 5, "attention_units": 7, "dropout": 0.3}
    encoder = document_classifier(30, LABELS, max_sentences=2, max_sentence_length=3, encoder=spec).get_layer(
        "document_encoder"
    )
    assert (encoder.word_encoder, encoder.sentence_encoder) == ("bigru", "bigru")
    assert (encoder.word_units, encoder.sentence_units, encoder.attention_units, encoder.dropout) == (5, 5, 7, 0.3)
    default = document_classifier(30, LABELS, flat=True, max_tokens=6, encoder="gru").get_layer("document_encoder")
    assert (default.word_encoder, default.word_units, default.attention_units, default.dropout) == (
        "gru",
        100,
        None,
        0.2,
    )


@pytest.mark.parametrize(
    "flat, sizes, named",
    [
        (False, {"max_tokens": 6}, "max_tokens=6"),
        (True, {"max_tokens": 6, "max_sentences": 2}, "max_sentences=2"),
        (True, {"max_sentence_length": 3}, "max_sentence_length=3"),
    ],
)
def test_sizes_of_the_other_layout_are_an_error_not_ignored(flat, sizes, named):
    with pytest.raises(ValueError, match=rf"flat={flat} reads documents sized by .*Received: .*{named}"):
        document_classifier(30, LABELS, flat=flat, **sizes)


def test_a_han_without_static_sizes_gives_a_token_reading_head_every_token():
    model = document_classifier(30, LABELS, head={"type": "hybrid", "components": ["gile", "lexical"]})
    ids = np.random.default_rng(0).integers(0, 30, size=(2, 3, 4)).astype("int32")
    flat = model.get_layer("flat_token_ids")
    assert tuple(flat.output.shape) == (None, None)
    assert model.predict(ids, verbose=0).shape == (2, len(LABELS))
