"""BestValidationF1: validation micro-F1 at a tuned threshold in the logs, Keras' EarlyStopping on it."""

import keras
import numpy as np
import pytest

from keras_labelemb.evaluation import choose_threshold
from keras_labelemb.evaluation.reports import sigmoid
from keras_labelemb.evaluation.thresholds import assign_labels
from keras_labelemb.training import BestValidationF1

pytestmark = pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture

RNG = np.random.default_rng(0)


def linear_model(seed=0):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    model.compile(keras.optimizers.Adam(0.05), keras.losses.BinaryCrossentropy(from_logits=True))
    return model


def data(n=64):
    x = RNG.normal(size=(n, 5)).astype("float32")
    return x, (x[:, :3] > 0).astype("float32")


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_best_validation_f1_restores_the_best_epoch_and_logs():
    x, y = data()
    model = linear_model()
    callback = BestValidationF1(x, y, patience=2)
    history = model.fit(x, y, epochs=6, verbose=0, callbacks=[callback])
    curve = history.history["val_micro_f1"]
    assert callback.best_f1 == pytest.approx(max(curve))
    assert callback.best_epoch == int(np.argmax(curve))
    _, f1_now = choose_threshold(y, sigmoid(model.predict(x, verbose=0)))
    assert f1_now == pytest.approx(callback.best_f1)  # the model holds the best epoch's weights
    # The kept threshold is the best epoch's: with the restored weights it gives the best F1.
    predicted = assign_labels(sigmoid(model.predict(x, verbose=0)), callback.threshold)
    tp = (predicted * y).sum()
    assert 2 * tp / (predicted.sum() + y.sum()) == pytest.approx(callback.best_f1)


def test_the_best_weights_are_restored_when_later_epochs_are_worse():
    x, y = data()
    model = linear_model()
    callback = BestValidationF1(x, y)
    original = [w.copy() for w in model.get_weights()]

    class Spoil(keras.callbacks.Callback):
        """After the first epoch, sets weights that make every later epoch score worse."""

        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 1:
                self.model.set_weights([-w * 10 for w in original])
                self.model.optimizer.learning_rate.assign(0.0)

    model.fit(x, y, epochs=3, verbose=0, callbacks=[Spoil(), callback])
    assert callback.best_epoch == 0
    first = callback.best_weights
    for restored, kept in zip(model.get_weights(), first):
        np.testing.assert_array_equal(restored, kept)


def test_is_keras_early_stopping_on_val_micro_f1():
    callback = BestValidationF1(np.zeros((2, 5)), np.zeros((2, 3)), patience=1)
    assert isinstance(callback, keras.callbacks.EarlyStopping)
    assert (callback.monitor, callback.mode, callback.restore_best_weights) == ("val_micro_f1", "max", True)
    assert (callback.best_f1, callback.threshold, callback.best_epoch) == (-1.0, 0.5, -1)


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_patience_stops_training_and_none_never_stops():
    x, y = data()

    class Freeze(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            self.model.optimizer.learning_rate.assign(0.0)  # the F1 never improves after epoch 0

    model = linear_model()
    history = model.fit(x, y, epochs=10, verbose=0, callbacks=[Freeze(), BestValidationF1(x, y, patience=2)])
    assert len(history.history["val_micro_f1"]) == 3  # epoch 0, then 2 epochs without improvement
    model = linear_model()
    history = model.fit(x, y, epochs=4, verbose=0, callbacks=[Freeze(), BestValidationF1(x, y)])
    assert len(history.history["val_micro_f1"]) == 4


def test_probabilities_with_from_logits_false():
    x, y = data()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="sigmoid")])
    model.compile(keras.optimizers.Adam(0.05), "binary_crossentropy")
    callback = BestValidationF1(x, y, from_logits=False)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[callback])
    assert callback.best_f1 == pytest.approx(choose_threshold(y, model.predict(x, verbose=0))[1])


def test_a_second_fit_starts_afresh():
    x, y = data()
    model = linear_model()
    callback = BestValidationF1(x, y)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[callback])
    model.fit(x, y, epochs=1, verbose=0, callbacks=[callback])
    assert callback.best_epoch == 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"patience": -1}, "patience=-1"),
        ({"patience": 1.5}, "patience=1.5"),
        ({"batch_size": 0}, "batch_size=0"),
        ({"from_logits": "yes"}, "from_logits='yes'"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BestValidationF1(np.zeros((2, 5)), np.zeros((2, 3)), **kwargs)
