"""The benchmarks' one training loop: `model.fit` under a best-epoch callback, timed, with the report keys
every script records. Each script builds and compiles its own model and scores its own test metric."""

import time


def fit_best_epoch(model, x, y=None, *, best, epochs, callbacks=(), **fit_arguments):
    """Fits `model` for at most `epochs`, `best` keeping the weights of the best validation epoch (or, with
    `best=None`, for `epochs`, keeping the last).

    Args:
        model: a compiled model (a `LabelClassifier` fed token ids, say).
        x, y: the training data, as `model.fit` takes them.
        best: the callback that chooses the epoch and restores its weights, with a `best_epoch` (0-based)
            attribute: `BestValidationF1`, `BestEpochStopping` or `keras.callbacks.EarlyStopping(...,
            restore_best_weights=True)`; it runs after `callbacks` unless they hold it (then where it
            stands). None: no selection, the last epoch.
        epochs: the most epochs to train.
        callbacks: callbacks that run before `best` (e.g. `SwapEMAWeights`, so that `best` reads the averaged
            weights).
        **fit_arguments: the rest of `model.fit`'s arguments (`batch_size`, `validation_data`, ...).

    Returns:
        `(history, report)`: the history dict, and `best_epoch` (1-based), `epochs_run`, `train_seconds` (wall
        clock of the whole fit, validation included), `seconds_to_best_epoch` (its share up to the best
        epoch) and `parameters`.
    """
    start = time.time()
    callbacks = [*callbacks] + ([best] if best is not None and best not in callbacks else [])
    history = model.fit(x, y, epochs=epochs, callbacks=callbacks, verbose=2, **fit_arguments).history
    seconds = time.time() - start
    epochs_run = len(history["loss"])
    best_epoch = int(best.best_epoch) + 1 if best is not None else epochs_run
    return history, {
        "best_epoch": best_epoch,
        "epochs_run": epochs_run,
        "train_seconds": round(seconds, 1),
        "seconds_to_best_epoch": round(seconds / epochs_run * best_epoch, 1),
        "parameters": int(model.count_params()),
    }
