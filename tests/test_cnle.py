"""The CNLE model (Liu et al. 2022): builder, ablations, teacher-forcing training, `.keras` round trip, a toy task."""

import os

import keras
import numpy as np
import pytest

from keras_labelemb.layers import AdaptiveLabelDecoder
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.losses.label_sequences import label_sequences, label_sequences_to_multi_hot
from keras_labelemb.models import cnle
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training.cnle_training import cnle_training_model

LABEL_WORDS = np.array([[2, 0], [3, 0], [4, 0]], "int32")  # three one-word label names


def toy_task(num_docs=48, length=6, seed=0):
    """Each text holds the name words of its labels among filler words: the labels are readable from the text."""
    rng = np.random.default_rng(seed)
    targets = (rng.random((num_docs, 3)) < 0.4).astype("float32")
    ids = rng.integers(5, 20, size=(num_docs, length)).astype("int32")
    for row in range(num_docs):
        positions = rng.permutation(length)
        for k, label in enumerate(np.flatnonzero(targets[row])):
            ids[row, positions[k]] = LABEL_WORDS[label, 0]
        ids[row, length - 1 - rng.integers(0, 2) :] = 0  # some padding
    ids[ids == 0] = 0
    for row in range(num_docs):  # padding may have erased a label word: targets follow the text
        targets[row] = [float(w in ids[row]) for w in LABEL_WORDS[:, 0]]
    return ids, targets


def small_cnle(**kwargs):
    options = dict(max_tokens=6, max_steps=4, model_dim=8, num_heads=2, attention_dim=8, embedding_dim=8)
    options.update(kwargs)
    return cnle(20, LABEL_WORDS if options.get("ablation") != "no_label_embedding" else None, **options)


def test_builder_ablations_and_head_access():
    ids, _ = toy_task(4)
    full = small_cnle()
    classifier = LabelClassifier.from_model(full)
    head, encoder = classifier.head, classifier.encoder
    assert isinstance(head, AdaptiveLabelDecoder) and head.num_labels == 3
    assert tuple(encoder.output.shape) == (None, 6, 8)
    no_t2l = small_cnle(ablation="no_text_to_label_attention")
    no_labels = small_cnle(ablation="no_label_embedding", num_labels=3)
    for model in (full, no_t2l, no_labels):
        assert tuple(model(ids).shape) == (4, 3)
    paths = {w.path.split("/")[-2] for w in no_t2l.weights}
    assert "label_attention" not in {p.split("/")[0] for p in paths} and not any(
        "label_attention" in w.path for w in no_t2l.weights
    )
    assert not any("label_projection" in w.path for w in no_labels.weights)
    with pytest.raises(ValueError, match="ablation"):
        small_cnle(ablation="no_co_attention")
    with pytest.raises(ValueError, match="label_ids"):
        cnle(20, None, max_tokens=6, max_steps=3)


def test_the_encoder_keeps_the_papers_values_for_the_arguments_left_out():
    model = cnle(20, LABEL_WORDS, max_tokens=6, max_steps=4, model_dim=6, dropout=0.1, embedding_dim=8)
    encoder = LabelClassifier.from_model(model).head.encoder
    assert (encoder.model_dim, encoder.num_heads, encoder.attention_dim, encoder.dropout) == (6, 3, 150, 0.1)
    assert encoder.intermediate_dim is None  # CoAttention's default, the model width
    embedding = model.get_layer("word_embedding")  # default: a new table, trained with the model
    assert (
        embedding.trainable
        and embedding.output_dim == 8
        and LabelClassifier.from_model(model).head.embedding is embedding
    )
    assert cnle(20, LABEL_WORDS, max_tokens=6, max_steps=4, model_dim=6).get_layer("word_embedding").output_dim == 100


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(model_dim=7), "model_dim"),  # odd: two BiLSTM directions of model_dim / 2
        (dict(dropout=1.0), "dropout=1.0"),
        (dict(embedding_dim=0), "dim=0"),
        (dict(fine_tune="labels"), "fine_tune='labels'"),
        (dict(fine_tune="documents"), "pass `vectors`. Received: vectors=None"),
        (dict(ablation="no_co_attention"), "ablation='no_co_attention'"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        small_cnle(**kwargs)


def test_an_unknown_argument_is_a_type_error():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'units'"):
        small_cnle(units=8)


def test_frozen_word_vectors_take_document_classifiers_path():
    vectors = np.random.default_rng(0).normal(size=(20, 8)).astype("float32")
    model = cnle(
        20, LABEL_WORDS, max_tokens=6, max_steps=3, model_dim=8, num_heads=2, word_vectors=vectors, fine_tune="none"
    )
    embedding = model.get_layer("word_embedding")
    assert not embedding.trainable and LabelClassifier.from_model(model).head.embedding is embedding
    np.testing.assert_array_equal(np.asarray(embedding.embeddings), vectors)
    documents = cnle(
        20,
        LABEL_WORDS,
        max_tokens=6,
        max_steps=3,
        model_dim=8,
        num_heads=2,
        word_vectors=vectors,
        fine_tune="documents",
    )
    assert LabelClassifier.from_model(documents).head.embedding.name == "label_word_embedding"
    assert documents.get_layer("word_embedding").trainable
    with pytest.raises(ValueError, match=r"`dim` must match the width of `vectors` \(8\).*dim=5"):
        cnle(20, LABEL_WORDS, max_tokens=6, max_steps=3, word_vectors=vectors, embedding_dim=5)
    with pytest.raises(ValueError, match=r"`vectors` must be a numeric \(vocabulary_size=20, dim\) matrix"):
        cnle(20, LABEL_WORDS, max_tokens=6, max_steps=3, word_vectors=vectors[:10])
    with pytest.raises(ValueError, match="fine_tune='documents' freezes.*ablation='no_label_embedding'"):
        cnle(
            20,
            None,
            max_tokens=6,
            max_steps=3,
            num_labels=3,
            ablation="no_label_embedding",
            word_vectors=vectors,
            fine_tune="documents",
        )


@pytest.mark.slow  # ~50 s on 2 shared cores: 120 graph-mode steps of four BiLSTM passes
def test_toy_multi_label_task_is_learned_and_survives_a_keras_round_trip(tmp_path):
    keras.utils.set_random_seed(0)
    ids, targets = toy_task()
    sequences = label_sequences(targets, max_steps=4)
    model = small_cnle()
    training = cnle_training_model(model)
    training.compile(optimizer=keras.optimizers.Adam(1e-2, global_clipnorm=1.0), loss=LabelSequenceLoss())
    history = training.fit(
        {"token_ids": ids, "label_sequence": sequences}, sequences, batch_size=16, epochs=40, verbose=0
    )
    losses = history.history["loss"]
    assert losses[-1] < 0.3 * losses[0], losses[::10]
    # One batch: 48 texts in Keras' default batches of 32 trace the decoding graph twice (32, then 16 rows).
    decoded = model.predict(ids, batch_size=len(ids), verbose=0)
    exact = np.mean(np.all(decoded == targets, axis=1))
    assert exact >= 0.9, exact
    path = os.path.join(tmp_path, "cnle.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(loaded.predict(ids, batch_size=len(ids), verbose=0), decoded)
    loaded_head = LabelClassifier.from_model(loaded).head
    np.testing.assert_array_equal(loaded_head.label_ids, LABEL_WORDS)
    # The training model still reaches the loaded weights' head the same way, and decoding as sequences agrees.
    loaded_head.output_mode = "sequence"
    sequences_out = np.asarray(loaded_head(loaded.get_layer("word_embedding")(ids), mask=ids != 0))
    np.testing.assert_array_equal(label_sequences_to_multi_hot(sequences_out, 3), decoded)
