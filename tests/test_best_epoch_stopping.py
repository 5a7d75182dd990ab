"""BestEpochStopping: EarlyStopping on a score the subclass logs; strictly better epochs only; best weights back."""

import keras
import numpy as np
import pytest

from keras_labelemb.training.best_epoch_stopping import BestEpochStopping

pytestmark = pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture


class Scripted(BestEpochStopping):
    """Logs the next score of a fixed list and remembers the weights it saw at each epoch."""

    def __init__(self, scores, patience=None):
        super().__init__("val_scripted", patience)
        self.scores, self.seen = list(scores), []

    def on_epoch_end(self, epoch, logs=None):
        logs["val_scripted"] = self.scores[epoch]
        self.seen.append([np.array(w) for w in self.model.get_weights()])
        super().on_epoch_end(epoch, logs)


def fit(callback, epochs):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.random.default_rng(0).normal(size=(16, 3)).astype("float32")
    history = model.fit(x, x[:, :2], epochs=epochs, verbose=0, callbacks=[callback])
    return model, history


def test_best_epoch_weights_are_restored_and_ties_keep_the_earlier_epoch():
    callback = Scripted([0.2, 0.7, 0.7, 0.4])
    model, history = fit(callback, 4)
    assert len(history.history["loss"]) == 4  # no patience: never stops early
    assert callback.best_value == 0.7 and callback.best_epoch == 1
    for restored, best in zip(model.get_weights(), callback.seen[1]):
        np.testing.assert_array_equal(restored, best)


def test_patience_stops_after_epochs_without_improvement():
    callback = Scripted([0.5, 0.4, 0.3, 0.9, 0.1], patience=2)
    _, history = fit(callback, 5)
    assert len(history.history["loss"]) == 3 and callback.best_value == 0.5


def test_before_training_and_bad_patience():
    assert Scripted([1.0]).best_value == -1.0 and Scripted([1.0]).best_epoch == -1
    with pytest.raises(ValueError, match="patience"):
        Scripted([1.0], patience=-1)
