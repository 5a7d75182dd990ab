"""`set_labels(model, label_ids)` on a model you built: the head that gives the output is relabelled."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, LinearHead
from keras_labelemb.models import document_classifier, gile_wan, set_labels


def test_a_compiled_model_scores_the_new_labels_and_a_kept_description_keeps_its_score():
    model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, units=4, joint_dim=4)
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    ids = np.random.default_rng(0).integers(1, 30, (5, 6))
    before = model.predict(ids, verbose=0)
    set_labels(model, np.array([[9, 8], [2, 3], [7, 0]]))
    after = model.predict(ids, verbose=0)
    assert after.shape == (5, 3)
    np.testing.assert_allclose(after[:, 1], before[:, 0], atol=1e-5)


def test_a_hybrid_is_relabelled_as_one_head():
    table = keras.layers.Embedding(30, 8, mask_zero=True)
    hybrid = HybridHead([GileHead(table, joint_dim=4), GileHead(table, joint_dim=4)], np.array([[2, 3], [4, 0]]))
    model = document_classifier(HierarchicalAttention("dense", 4, flat=True), hybrid, embedding=table, max_tokens=6)
    set_labels(model, np.array([[5, 6], [7, 0], [8, 9]]))
    assert hybrid.num_labels == 3
    assert model.predict(np.ones((2, 6), "int32"), verbose=0).shape == (2, 3)


def test_a_model_without_a_label_head_is_refused_by_name():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs), name="plain")
    with pytest.raises(ValueError, match="has no label head.*plain"):
        set_labels(model, np.array([[2, 3]]))


def test_a_per_label_head_refuses_a_new_label_set():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, LinearHead(2)(inputs))
    with pytest.raises(ValueError, match="reads no descriptions"):
        set_labels(model, np.array([[2, 3], [4, 5]]))
