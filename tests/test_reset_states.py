"""ResetStates / reset_states: stateful RNN state is zeroed between passes (truncated BPTT)."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.training import ResetStates
from keras_labelemb.training.reset_states import reset_states

B, T, D = 2, 3, 4


def stateful_model():
    keras.utils.set_random_seed(0)
    inner = keras.Sequential([keras.Input(batch_shape=(B, T, D)), keras.layers.LSTM(5, stateful=True)], name="inner")
    return keras.Sequential([keras.Input(batch_shape=(B, T, D)), inner, keras.layers.Dense(1)])


def test_reset_states_zeroes_nested_stateful_layers():
    model = stateful_model()
    x = np.random.default_rng(0).normal(size=(B, T, D)).astype("float32")
    first = ops.convert_to_numpy(model(x))
    assert not np.allclose(ops.convert_to_numpy(model(x)), first)  # the state was carried
    assert reset_states(model) == 1
    np.testing.assert_allclose(ops.convert_to_numpy(model(x)), first, atol=1e-6)
    assert reset_states(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])) == 0


def test_callback_resets_before_every_pass():
    model = stateful_model()
    model.compile("sgd", "mse")
    x = np.random.default_rng(1).normal(size=(B, T, D)).astype("float32")
    first = model.predict(x, batch_size=B, verbose=0)
    carried = model.predict(x, batch_size=B, verbose=0)  # no callback: starts from the last state
    assert not np.allclose(carried, first)
    again = model.predict(x, batch_size=B, verbose=0, callbacks=[ResetStates()])
    np.testing.assert_allclose(again, first, atol=1e-6)
    a = model.evaluate(x, np.zeros((B, 1)), batch_size=B, verbose=0, callbacks=[ResetStates()])
    b = model.evaluate(x, np.zeros((B, 1)), batch_size=B, verbose=0, callbacks=[ResetStates()])
    assert a == b
