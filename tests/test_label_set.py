"""LabelSet: the one component every head holds its label sets in (checks, refusal, assets, restore order)."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HybridHead, LabelHead, LexicalMatchHead, LinearHead
from keras_labelemb.layers.label_set import LabelSet

IDS = np.array([[3, 4, 0], [5, 0, 0]])


def test_set_checks_the_ids_and_a_refused_set_leaves_the_previous_one():
    label_set = LabelSet("seen_label_ids")
    assert label_set.ids is None and label_set.count is None and label_set.file_name == "seen_label_ids.npy"
    label_set.set(IDS, vocabulary_size=10)
    with pytest.raises(ValueError, match="seen_label_ids"):
        label_set.set(np.array([[3, 0], [0, 0]]), vocabulary_size=10)  # an empty description
    with pytest.raises(ValueError, match="seen_label_ids"):
        label_set.set(np.array([[12, 0]]), vocabulary_size=10)  # outside the vocabulary

    def refuse(ids):
        raise ValueError(f"three labels only. Received: {len(ids)}")

    with pytest.raises(ValueError, match="three labels only"):
        label_set.set(np.array([[1, 2]]), vocabulary_size=10, check=refuse)
    np.testing.assert_array_equal(label_set.ids, IDS)
    assert label_set.ids.dtype == np.int32 and label_set.count == 2


def test_save_and_load_go_through_restore(tmp_path):
    restored = []
    source = LabelSet("label_ids")
    source.set(IDS)
    source.save(tmp_path)
    LabelSet("label_ids", restore=restored.append).load(tmp_path)
    np.testing.assert_array_equal(restored[0], IDS)
    LabelSet("other", restore=restored.append).load(tmp_path)  # no file: nothing restored
    assert len(restored) == 1


def test_every_head_holds_its_sets_as_label_sets_in_restore_order():
    embedding = keras.layers.Embedding(10, 4)
    gile = GileHead(embedding, label_ids=IDS, joint_dim=3, num_languages=2, language_label_ids=[None, IDS[:1]])
    files = [label_set.file_name for label_set in gile.held_label_sets()]
    assert files == ["label_ids.npy", "language_0_label_ids.npy", "language_1_label_ids.npy"]
    assert gile.language_label_ids[0] is None and gile.language_label_ids[1].shape == (1, 3)
    hybrid = HybridHead([LexicalMatchHead(embedding, name="lexical"), LinearHead(2, name="linear")], label_ids=IDS)
    assert [s.name for s in hybrid.held_label_sets()] == ["seen_label_ids", "label_ids"]  # seen first: the columns
    np.testing.assert_array_equal(hybrid.seen_label_ids, IDS)
    assert all(isinstance(s, LabelSet) for s in hybrid.held_label_sets())


def test_a_head_without_descriptions_says_so_from_the_class_attribute():
    assert LabelHead.reads_descriptions and not LinearHead.reads_descriptions
    head = LinearHead(2)
    for call in (lambda: head.set_labels(IDS), lambda: head.embed_labels()):
        with pytest.raises(ValueError, match="LinearHead has one weight vector per label"):
            call()


def test_a_compiled_step_captures_the_label_ids_instead_of_embedding_them_as_a_constant():
    import tensorflow as tf

    if keras.backend.backend() != "tensorflow":
        pytest.skip("the captured tensor is TensorFlow's")
    label_ids = np.tile(np.arange(1, 9, dtype="int32"), (512, 1))  # 4,096 ids: a constant would hold them
    head = GileHead(keras.layers.Embedding(10, 4), label_ids=label_ids, joint_dim=3)
    assert head.label_set.tensor is head.label_set.tensor  # made once, when the set was
    graph = tf.function(lambda h: head(h)).get_concrete_function(tf.TensorSpec((None, 4), "float32")).graph
    sizes = [op.get_attr("value").tensor_shape for op in graph.get_operations() if op.type == "Const"]
    assert not any(len(shape.dim) == 2 and shape.dim[0].size == 512 for shape in sizes)
