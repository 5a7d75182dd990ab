"""run_layer_test, the one helper every layer's tests call, catches the defects it exists for."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.layers import LinearHead
from keras_labelemb.testing import run_layer_test


@keras.saving.register_keras_serializable(package="test_layer_test")
class Scale(keras.layers.Layer):
    """A dense layer times a constant; `forget_factor=True` leaves the factor out of its config."""

    def __init__(self, factor=1.0, forget_factor=False, **kwargs):
        super().__init__(**kwargs)
        self.factor, self.forget_factor = factor, forget_factor
        self.dense = keras.layers.Dense(2)

    def build(self, input_shape):
        self.dense.build(input_shape)

    def call(self, inputs):
        return self.factor * self.dense(inputs)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], 2)

    def get_config(self):
        config = super().get_config()
        if not self.forget_factor:
            config.update(factor=self.factor)
        config.update(forget_factor=self.forget_factor)
        return config


@keras.saving.register_keras_serializable(package="test_layer_test")
class ForgetfulScale(keras.layers.Layer):
    """A per-feature scale that writes its weight to no `.keras` file: loaded, it starts from fresh random ones."""

    def build(self, input_shape):
        self.scale = self.add_weight(shape=input_shape[-1:], initializer="random_normal")

    def call(self, inputs):
        return inputs * self.scale

    def compute_output_shape(self, input_shape):
        return input_shape

    def save_own_variables(self, store):
        pass

    def load_own_variables(self, store):
        pass


@keras.saving.register_keras_serializable(package="test_layer_test")
class LeakyMean(keras.layers.Layer):
    """Claims to support masks but averages masked steps too."""

    supports_masking = True

    def call(self, inputs, mask=None):
        return ops.mean(inputs, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])


@keras.saving.register_keras_serializable(package="test_layer_test")
class UnbuiltPart(LinearHead):
    """A head that holds a sublayer its `build()` leaves unbuilt (as every head's label encoder was before
    `build_label_side`)."""

    def __init__(self, num_labels, **kwargs):
        super().__init__(num_labels, **kwargs)
        self.projection = keras.layers.Dense(2, name="projection")

    def held_layers(self):
        return [*super().held_layers(), self.projection]


DATA = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")


def test_a_correct_layer_passes():
    run_layer_test(Scale, {"factor": 3.0}, DATA, (3, 2), run_mixed_precision=False)


def test_a_config_that_loses_an_argument_fails():
    with pytest.raises(AssertionError, match="round trip changed predictions"):
        run_layer_test(Scale, {"factor": 3.0, "forget_factor": True}, DATA, (3, 2), run_mixed_precision=False)


def test_a_layer_that_saves_no_weights_fails():
    with pytest.raises(AssertionError, match="round trip changed predictions"):
        run_layer_test(ForgetfulScale, {}, DATA, (3, 4), run_training=False, run_mixed_precision=False)


def test_a_layer_that_reads_masked_positions_fails():
    x = np.random.default_rng(1).normal(size=(2, 5, 3)).astype("float32")
    mask = np.array([[True] * 5, [True, True, False, False, False]])
    with pytest.raises(AssertionError):
        run_layer_test(LeakyMean, {}, x, (2, 3), mask=mask, run_training=False, run_mixed_precision=False)


def test_a_layer_that_leaves_a_sublayer_unbuilt_fails():
    with pytest.raises(AssertionError, match=r"left sublayers unbuilt: \['projection'\]"):
        run_layer_test(UnbuiltPart, {"num_labels": 2}, DATA, (3, 2), run_training=False, run_mixed_precision=False)


@keras.saving.register_keras_serializable(package="test_layer_test")
class DriftingConfig(Scale):
    """Writes a factor its constructor does not take back as given: each round trip of the config moves it."""

    def get_config(self):
        return {**super().get_config(), "factor": self.factor + 1.0}


@keras.saving.register_keras_serializable(package="test_layer_test")
class TrainingOverflow(Scale):
    """Scales by 1e5 in training mode only: finite in float32, beyond float16's range (65,504) under mixed precision."""

    def call(self, inputs, training=None):
        outputs = super().call(inputs)
        return outputs * 1e5 if training else outputs


@pytest.mark.parametrize("mode", ["inference", "training"])
def test_a_layer_that_overflows_in_float16_fails(mode):
    """The mixed-precision step checks both modes: here only training mode overflows, or (scaled) inference too."""
    kwargs = {"factor": 1e5 if mode == "inference" else 1.0}
    with pytest.raises(AssertionError, match=rf"not finite under mixed_float16 \({mode}\)"):
        run_layer_test(TrainingOverflow, kwargs, DATA, (3, 2), run_training=False)


def test_a_config_that_changes_in_a_round_trip_fails():
    with pytest.raises(AssertionError, match="has another config"):
        run_layer_test(DriftingConfig, {"factor": 3.0}, DATA, (3, 2), run_mixed_precision=False)
