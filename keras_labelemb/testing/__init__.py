"""Test utilities shared by every layer's tests."""

from keras_labelemb.testing.layer_test import run_layer_test

__all__ = ["run_layer_test"]
