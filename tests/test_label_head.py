"""The LabelHead protocol: the label set as data, call-time labels, and the one way to reach a model's head."""

import json

import keras
import numpy as np
import pytest

from keras_labelemb.layers import DrillHead, GileHead, HierarchicalAttention, LabelHead, LinearHead

RNG = np.random.default_rng(11)

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def test_every_head_is_a_label_head():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    heads = [GileHead(embedding, LABELS, joint_dim=5), DrillHead(embedding, LABELS, depth=1), LinearHead(4)]
    assert all(isinstance(head, LabelHead) for head in heads)
    assert [head.scores_label_sets for head in heads] == [True, True, False]


def test_huge_label_set_stays_out_of_the_config_and_round_trips(tmp_path):
    """26,104 labels x 35 tokens (BioASQ-sized): a few-KB config; the .keras file keeps the label set exactly."""
    labels = RNG.integers(1, 30_000, size=(26_104, 35)).astype("int32")
    embedding = keras.layers.Embedding(30_000, 4, mask_zero=True)
    inputs = keras.Input((6,), dtype="int32")
    document = HierarchicalAttention("dense", 4, flat=True)(embedding(inputs))
    head = GileHead(embedding, labels, joint_dim=8)
    model = keras.Model(inputs, head(document))
    config_bytes = len(json.dumps(keras.saving.serialize_keras_object(head)))
    assert config_bytes < 10_000, config_bytes
    x = RNG.integers(1, 30_000, size=(2, 6)).astype("int32")
    model.save(tmp_path / "huge.keras")
    # The label set is read back from the file's assets: the loaded head shares no array with this one.
    loaded = keras.saving.load_model(tmp_path / "huge.keras")
    assert loaded.layers[-1].label_ids is not head.label_ids
    np.testing.assert_array_equal(loaded.layers[-1].label_ids, labels)
    np.testing.assert_array_equal(loaded(x), model(x))


def test_call_time_labels_are_checked_like_the_constructors():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    head = GileHead(embedding, LABELS, joint_dim=5)
    h = RNG.normal(size=(2, 7)).astype("float32")
    with pytest.raises(ValueError, match=r"label_embeddings.*\(num_labels, 6\).*\(3, 5\)"):
        head(h, label_embeddings=np.zeros((3, 5), "float32"))
    with pytest.raises(ValueError, match=r"outside \[0, 40\)"):
        head(h, label_ids=np.array([[1, 40]]))
    with pytest.raises(ValueError, match="negative"):
        head(h, label_ids=np.array([[1, -1]]))
    with pytest.raises(ValueError, match="empty label descriptions"):
        head(h, label_ids=np.array([[1, 2], [0, 0]]))
    with pytest.raises(ValueError, match="at most one"):
        head(h, label_ids=LABELS, label_embeddings=np.zeros((4, 6), "float32"))


def test_an_empty_description_inside_a_compiled_function_gives_a_finite_score():
    """Traced call-time ids cannot be checked: an all-padding description encodes to the zero vector."""
    import tensorflow as tf

    head = GileHead(keras.layers.Embedding(40, 6, mask_zero=True), LABELS, joint_dim=5)
    scores = tf.function(lambda h, ids: head(h, label_ids=ids), jit_compile=True)(
        tf.constant(RNG.normal(size=(2, 7)).astype("float32")), tf.constant([[3, 4], [0, 0]])
    )
    assert scores.shape == (2, 2) and np.isfinite(scores.numpy()).all()


def test_out_of_vocabulary_ids_inside_a_compiled_function_are_read_as_padding():
    import tensorflow as tf

    head = GileHead(keras.layers.Embedding(40, 6, mask_zero=True), LABELS, joint_dim=5)
    h = tf.constant(RNG.normal(size=(2, 7)).astype("float32"))
    score = tf.function(lambda h, ids: head(h, label_ids=ids), jit_compile=True)
    np.testing.assert_allclose(
        score(h, tf.constant([[3, 99], [5, -4]])).numpy(), score(h, tf.constant([[3, 0], [5, 0]])).numpy(), atol=1e-6
    )


def test_label_count_is_fixed_only_for_per_label_parameters():
    embedding = keras.layers.Embedding(40, 6, mask_zero=True)
    shared = DrillHead(embedding, LABELS, depth=1)
    shared(np.zeros((1, 6), "float32"))
    shared.set_labels(LABELS[:2])
    assert shared.num_labels == 2
    per_label = DrillHead(embedding, LABELS, depth=1, bias_mode="per_label")
    per_label(np.zeros((1, 6), "float32"))
    with pytest.raises(ValueError, match="per-label parameters for 4 labels"):
        per_label.set_labels(LABELS[:2])


def test_the_label_side_is_in_the_config_of_the_heads_that_read_descriptions_only():
    """A per-label head carries no embedding, label encoder or label width; a head that reads the words itself
    takes no label encoder (a given one is an error, not dropped); GILE's is saved."""
    from keras_labelemb.layers import (
        GileHead,
        HybridHead,
        LabelEncoder,
        LexicalMatchHead,
        LinearHead,
        WideHead,
    )

    table = keras.layers.Embedding(20, 4, mask_zero=True)
    ids = np.array([[2, 3], [4, 0]], "int32")
    for head in (LinearHead(2), WideHead(2), HybridHead([GileHead(table), LinearHead(2)], ids)):
        assert not {"embedding", "label_encoder", "label_dim"} & set(head.get_config()), type(head).__name__
    assert "label_encoder" not in LexicalMatchHead(table, ids).get_config()
    assert (
        GileHead(table, ids, label_encoder=LabelEncoder()).get_config()["label_encoder"]["class_name"] == "LabelEncoder"
    )
    assert "label_encoder" not in GileHead(table, ids).get_config()  # the default is made at build
    for build in (
        lambda: LinearHead(2, label_encoder=LabelEncoder()),
        lambda: LexicalMatchHead(table, ids, label_encoder=LabelEncoder()),
    ):  # (a hybrid takes one for its components that encode descriptions: tests/test_hybrid_head.py)
        with pytest.raises(ValueError, match="takes no `label_encoder`. Received: label_encoder="):
            build()


def test_a_head_that_reads_descriptions_declares_how():
    """A new head that reads descriptions either implements `embed_label_ids` or declares
    `encodes_descriptions` (then the base encodes each description with its label encoder)."""

    class Undeclared(LabelHead):
        def compute_logits(self, h, E, label_indices=None, training=None):
            return keras.ops.matmul(h, keras.ops.transpose(E))

    table = keras.layers.Embedding(20, 4, mask_zero=True)
    with pytest.raises(NotImplementedError, match="implement `embed_label_ids`, or declare `encodes_descriptions"):
        Undeclared(table, np.array([[2, 3]], "int32")).embed_labels()

    class Declared(Undeclared):
        encodes_descriptions = True

    E = keras.ops.convert_to_numpy(Declared(table, np.array([[2, 3]], "int32")).embed_labels())
    words = keras.ops.convert_to_numpy(table.embeddings)
    np.testing.assert_allclose(E, words[[2, 3]].mean(axis=0, keepdims=True), rtol=1e-5)
