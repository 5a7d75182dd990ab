"""Tests of `cosine_head`: `s · cos(h P, E) + b` against NumPy, zero vectors, relabelling.

The layer contract (`run_layer_test`, TF, JAX and PyTorch) runs from its case in tests/layer_cases.py.
"""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import CosineHead

LABELS = np.array([[2, 3, 0], [4, 0, 0], [5, 6, 7], [8, 9, 0]], "int32")


def built_head(seed=0, labels=LABELS):
    embedding = keras.layers.Embedding(12, 6, mask_zero=True)
    head = CosineHead(
        embedding=embedding, label_ids=labels, scale=5.0, bias_initializer=keras.initializers.Constant(0.3)
    )
    head.build((None, 4))
    rng = np.random.default_rng(seed)
    embedding.embeddings.assign(rng.normal(size=(12, 6)).astype("float32"))
    head.kernel.assign(rng.normal(size=(4, 6)).astype("float32"))
    return head, keras.ops.convert_to_numpy(embedding.embeddings), keras.ops.convert_to_numpy(head.kernel)


def reference(h, table, kernel, labels, scale, bias):
    mask = labels != 0
    E = (table[labels] * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
    docs = h @ kernel
    unit = lambda x: x / np.sqrt(np.maximum((x**2).sum(-1, keepdims=True), 1e-12))  # noqa: E731
    return scale * unit(docs) @ unit(E).T + bias


def test_logits_are_the_scaled_cosine_plus_the_bias():
    head, table, kernel = built_head()
    h = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(head(h)), reference(h, table, kernel, LABELS, 5.0, 0.3), rtol=1e-5, atol=1e-5
    )


def test_a_zero_document_scores_the_bias_for_every_label():
    head, _, _ = built_head()
    logits = keras.ops.convert_to_numpy(head(np.zeros((2, 4), "float32")))
    np.testing.assert_allclose(logits, 0.3, atol=1e-6)


def test_new_labels_are_scored_from_their_descriptions():
    head, table, kernel = built_head()
    new = np.array([[9, 2, 0], [7, 0, 0]], "int32")
    head.set_labels(new)
    h = np.random.default_rng(2).normal(size=(2, 4)).astype("float32")
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(head(h)), reference(h, table, kernel, new, 5.0, 0.3), atol=1e-5
    )


@pytest.mark.parametrize("scale", [0, -1.0, True, "10"])
def test_scale_must_be_a_positive_number(scale):
    with pytest.raises(ValueError, match="scale"):
        CosineHead(embedding=keras.layers.Embedding(12, 6), scale=scale)
