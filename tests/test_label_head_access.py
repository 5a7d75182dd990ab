"""Tests of `label_head_access`."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.layers import GileHead, LinearHead
from keras_labelemb.models import find_label_head, gile_wan, set_labels, split_at_head

RNG = np.random.default_rng(11)

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 3, 0]], "int32")


def small_model():
    return gile_wan(40, LABELS, max_tokens=6, embedding_dim=6, units=6, joint_dim=5)


def test_set_labels_on_a_compiled_model_that_already_predicted():
    """The compiled predict function captured the old label set; `set_labels(model, ...)` rebuilds it."""
    model = small_model()
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=True)
    x = RNG.integers(1, 40, size=(3, 6)).astype("int32")
    before = model.predict(x, verbose=0)
    new_labels = np.array([[6, 7, 8], [10, 11, 0], [12, 0, 0]], "int32")  # a known label first
    set_labels(model, new_labels)
    after = model.predict(x, verbose=0)
    assert after.shape == (3, 3)
    np.testing.assert_allclose(after[:, 0], before[:, 2], atol=1e-5)
    np.testing.assert_allclose(after, ops.convert_to_numpy(model(x)), atol=1e-5)
    model.fit(x, np.ones((3, 3), "float32"), verbose=0)  # the train function follows the new label count


def test_find_label_head_and_split_at_head():
    model = small_model()
    head = find_label_head(model)
    assert isinstance(head, GileHead)
    encoder, same = split_at_head(model)
    assert same is head and split_at_head(model)[0] is encoder  # one encoder per model and head
    x = RNG.integers(1, 40, size=(2, 6)).astype("int32")
    np.testing.assert_allclose(ops.convert_to_numpy(head(encoder(x))), ops.convert_to_numpy(model(x)), atol=1e-6)
    # A model nested in another is searched too.
    outer = keras.Sequential([keras.Input((6,), dtype="int32"), model])
    assert find_label_head(outer) is head


def test_find_label_head_errors_name_what_was_received():
    plain = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="no label head"):
        find_label_head(plain)
    with pytest.raises(ValueError, match="keras.Model"):
        find_label_head("not a model")
    inputs = keras.Input((4,))
    two = keras.Model(inputs, [LinearHead(3, name="a")(inputs), LinearHead(2, name="b")(inputs)])
    with pytest.raises(ValueError, match=r"several label heads \(\['a', 'b'\]\)"):
        find_label_head(two)
    inputs = keras.Input((4,))
    after_head = keras.Model(inputs, keras.layers.Activation("sigmoid")(LinearHead(3)(inputs)))
    with pytest.raises(ValueError, match="model's only output"):
        split_at_head(after_head)
