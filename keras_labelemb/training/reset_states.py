"""A callback zeroing stateful RNN states between passes over a token stream (truncated BPTT)."""

import keras

from keras_labelemb.layers.walk_layers import walk_layers


def reset_states(model):
    """Zeroes the state of every stateful RNN layer of `model`; returns how many were reset.

    Layers nested in sub-models count too. Keras has `layer.reset_state()` per RNN layer but no
    model-wide reset, hence this walk over the layers.

    Example:

    >>> model = keras.Sequential([keras.Input(batch_shape=(2, 3, 4)), keras.layers.LSTM(5, stateful=True)])
    >>> reset_states(model)
    1
    """
    count = 0
    for layer in walk_layers(model):
        if getattr(layer, "stateful", False) and hasattr(layer, "reset_state"):
            layer.reset_state()
            count += 1
    return count


class ResetStates(keras.callbacks.Callback):
    """Zeroes stateful RNN states at the start of each epoch, evaluation and prediction.

    Truncated BPTT carries the LSTM state across the batches of one pass over
    a token stream; every new pass (a training epoch, `evaluate`, `predict`,
    and the validation run at the end of an epoch) starts from zero state.
    Used with `keras_labelemb.models.drill_lm(stateful=True)`.

    Example:

    >>> import numpy as np
    >>> model = keras.Sequential([keras.Input(batch_shape=(2, 3, 4)), keras.layers.LSTM(5, stateful=True)])
    >>> model.compile("sgd", "mse")
    >>> history = model.fit(np.ones((4, 3, 4)), np.zeros((4, 5)), batch_size=2, shuffle=False,
    ...                     callbacks=[ResetStates()], verbose=0)
    """

    def on_epoch_begin(self, epoch, logs=None):
        reset_states(self.model)

    def on_test_begin(self, logs=None):
        reset_states(self.model)

    def on_predict_begin(self, logs=None):
        reset_states(self.model)
