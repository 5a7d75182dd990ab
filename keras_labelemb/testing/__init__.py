"""Test utilities for layer and head authors: `run_layer_test` for a layer, `run_task_test` for a preset."""

from keras_labelemb.testing.layer_test import run_layer_test
from keras_labelemb.testing.task_test import run_task_test

__all__ = [
    "run_layer_test",
    "run_task_test",
]
