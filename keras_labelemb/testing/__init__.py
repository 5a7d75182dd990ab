"""Test utilities for layer and head authors: `run_layer_test` for a layer, `run_task_test` for a preset."""

from keras_labelemb.testing.dtype_policy import dtype_policy
from keras_labelemb.testing.layer_test import run_layer_test
from keras_labelemb.testing.task_test import run_task_test

__all__ = ["dtype_policy", "run_layer_test", "run_task_test"]
