"""The suite's own set-up (tests/conftest.py): the optimizer pre-build gives one trace, and the opt-out that
README's blocks use gives Keras' own first `fit` back; graph operations are created without their Python stack."""

import keras
import numpy as np
import pytest
from trace_counting import first_fit_traces


class Wrapper(keras.Model):
    """A model holding a built model and no weights of its own, as `LabelClassifier.from_model` does: never built
    itself."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def call(self, inputs):
        return self.inner(inputs)


def _train_step_traces(wrapped=False):
    """How many times a tiny model's first `fit` traces its train step."""
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    if wrapped:
        model = Wrapper(model)
    model.compile("adam", "mse")
    return first_fit_traces(model, np.ones((4, 3), "float32"), np.zeros((4, 2), "float32"))


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="a TensorFlow trainer's retrace")
def test_the_prebuilt_optimizer_saves_the_second_trace_and_users_keep_kerass_own(keras_as_users_run_it):
    assert _train_step_traces() == 2  # Keras' own: variables created in the first trace, then traced again


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="a TensorFlow trainer's retrace")
def test_the_suite_traces_a_first_fit_once():
    assert _train_step_traces() == 1
    assert _train_step_traces(wrapped=True) == 1


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="TensorFlow's graph operations")
def test_graph_operations_carry_no_python_stack_in_the_suite():
    """Fails when a TensorFlow release changes the constructor `op_tracebacks_off` (tests/tensorflow_settings.py)
    reaches, which then turns nothing off (a tenth of the TensorFlow-heavy files' CPU)."""
    import tensorflow as tf

    graph = tf.function(lambda x: x + 1).get_concrete_function(tf.TensorSpec([], tf.float32)).graph
    assert [op.traceback for op in graph.get_operations()] == [None] * 4  # without it, stacks of 13 to 30 frames
