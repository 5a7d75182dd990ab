"""Test utilities shared by every layer's tests."""

from keras_labelemb.testing.dtype_policy import dtype_policy
from keras_labelemb.testing.layer_test import run_layer_test

__all__ = ["dtype_policy", "run_layer_test"]
