"""benchmarks.training_loop: the one loop the benchmark scripts train through."""

import keras
import numpy as np
import pytest

from benchmarks.training_loop import fit_best_epoch

pytestmark = pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture


def small_model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.5), "mse")
    return model


def test_reports_the_epoch_the_callback_chose_and_runs_the_other_callbacks_first():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 3)), rng.normal(size=(32, 1))
    x_val, y_val = rng.normal(size=(16, 3)), rng.normal(size=(16, 1))
    order = []

    class Mark(keras.callbacks.Callback):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def on_epoch_end(self, epoch, logs=None):
            order.append(self.tag)

    class Best(keras.callbacks.EarlyStopping):
        def on_epoch_end(self, epoch, logs=None):
            order.append("best")
            super().on_epoch_end(epoch, logs)

    best = Best(monitor="val_loss", patience=100, restore_best_weights=True)
    model = small_model()
    history, report = fit_best_epoch(
        model, x, y, best=best, epochs=6, callbacks=[Mark("first")], batch_size=8, validation_data=(x_val, y_val)
    )
    assert report["best_epoch"] == int(np.argmin(history["val_loss"])) + 1
    assert report["epochs_run"] == 6 and report["parameters"] == 4
    assert 0 <= report["seconds_to_best_epoch"] <= report["train_seconds"]
    assert order == ["first", "best"] * 6
    np.testing.assert_allclose(model.evaluate(x_val, y_val, verbose=0), min(history["val_loss"]), rtol=1e-5)


def test_without_a_best_callback_the_last_epoch_counts():
    model = small_model()
    _, report = fit_best_epoch(model, np.ones((4, 3)), np.ones((4, 1)), best=None, epochs=3)
    assert report["best_epoch"] == report["epochs_run"] == 3


def test_a_best_callback_listed_among_the_callbacks_runs_where_it_stands():
    order = []

    class Mark(keras.callbacks.Callback):
        best_epoch = 0

        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def on_epoch_end(self, epoch, logs=None):
            order.append(self.tag)

    best = Mark("best")
    fit_best_epoch(
        small_model(), np.ones((4, 3)), np.ones((4, 1)), best=best, epochs=2, callbacks=[best, Mark("after")]
    )
    assert order == ["best", "after"] * 2
