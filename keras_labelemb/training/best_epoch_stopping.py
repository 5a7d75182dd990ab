"""Keras' EarlyStopping on a validation score that a callback computes itself, maximised, best weights restored."""

import math

import keras
import numpy as np

from keras_labelemb.argument_checks import check_non_negative_int


class BestEpochStopping(keras.callbacks.EarlyStopping):
    """`EarlyStopping(monitor, mode="max", restore_best_weights=True)` for scores a subclass writes to the logs.

    The subclass computes its score in `on_epoch_end`, writes it to `logs[monitor]`
    and then calls this class's `on_epoch_end`: one callback, so the score is in
    the logs before it is monitored, whatever the order of the callbacks list.
    An epoch is better only when its score is strictly higher.

    Args:
        monitor: the key of the score in the logs.
        patience: stop after this many epochs without improvement; None:
            never stop early (the best weights are still restored).

    Attributes:
        best_value: the best score so far (-1.0 before the first epoch).
        best_epoch: index of the best epoch (-1 before training).

    Example:

    >>> class Constant(BestEpochStopping):
    ...     def on_epoch_end(self, epoch, logs=None):
    ...         logs["val_constant"] = 0.5
    ...         super().on_epoch_end(epoch, logs)
    >>> model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    >>> model.compile("sgd", "mse")
    >>> callback = Constant("val_constant", patience=1)
    >>> history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=5, verbose=0, callbacks=[callback])
    >>> callback.best_value, callback.best_epoch, len(history.history["loss"])  # no better epoch after the first
    (0.5, 0, 2)
    """

    def __init__(self, monitor, patience=None):
        patience = check_non_negative_int("patience", patience, allow_none=True)
        super().__init__(
            monitor=monitor, mode="max", patience=math.inf if patience is None else patience, restore_best_weights=True
        )
        self.best_epoch = -1

    @property
    def best_value(self):
        # EarlyStopping's `best` starts as None (Keras 3.15) or -inf (older Keras 3 releases).
        if self.best is None or not np.isfinite(self.best):
            return -1.0
        return float(self.best)
