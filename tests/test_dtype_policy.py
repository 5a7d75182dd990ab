"""`dtype_policy`: the global policy inside the block, the previous one after it, also after an error."""

import keras
import pytest

from keras_labelemb.testing.dtype_policy import dtype_policy


def test_sets_the_policy_inside_and_restores_the_previous_one():
    keras.config.set_dtype_policy("bfloat16")
    try:
        with dtype_policy("mixed_float16"):
            assert keras.config.dtype_policy().name == "mixed_float16"
            layer = keras.layers.Dense(2)
        assert keras.config.dtype_policy().name == "bfloat16"
        assert layer.compute_dtype == "float16"  # a layer keeps the policy it was made with
    finally:
        keras.config.set_dtype_policy("float32")


def test_restores_the_policy_when_the_block_raises():
    with pytest.raises(RuntimeError, match="inside"):
        with dtype_policy("mixed_float16"):
            raise RuntimeError("inside")
    assert keras.config.dtype_policy().name == "float32"
