"""A callback that logs the validation micro-F1 at a tuned threshold and keeps the best epoch's weights."""

import numpy as np

from keras_labelemb.argument_checks import check_bool, check_positive_int
from keras_labelemb.evaluation.reports import sigmoid
from keras_labelemb.evaluation.thresholds import choose_threshold
from keras_labelemb.training.best_epoch_stopping import BestEpochStopping


class BestValidationF1(BestEpochStopping):
    """After each epoch, logs `val_micro_f1` at the best threshold; restores the best epoch's weights.

    Each epoch ends with the validation set scored, the threshold with the best
    micro-F1 picked (`keras_labelemb.evaluation.choose_threshold`, every
    document keeps at least its top label) and that F1 written to
    `logs["val_micro_f1"]`, so the progress bar, `History` and KerasTuner
    (`Objective("val_micro_f1", "max")`) see it. Keras' `MicroF1` metric in
    `compile` cannot do this: it scores at one fixed threshold, batch by batch.

    Stopping early and restoring the best weights is Keras' own
    `EarlyStopping(monitor="val_micro_f1", mode="max", restore_best_weights=True)`,
    which this callback is: being one callback (not F1 logging plus a separate
    `EarlyStopping`) guarantees that the F1 is in the logs before it is
    monitored, whatever the order of the callbacks list. An epoch is better
    only when its F1 is strictly higher (ties keep the earlier epoch).

    Attributes:
        best_f1: the best validation micro-F1 so far (-1.0 before the first epoch).
        threshold: the threshold chosen at the best epoch (0.5 before the
            first epoch), for `keras_labelemb.evaluation.thresholds.assign_labels`.
        best_epoch: index of the best epoch (EarlyStopping's attribute; -1
            before training).

    Args:
        x_val: validation inputs (token ids).
        y_val: multi-hot validation targets `(N, L)`.
        from_logits: whether the model's `predict` gives logits (then a sigmoid
            is applied). Default `None`: False for a `LabelClassifier` (it
            predicts probabilities), True for any other model.
        patience: stop after this many epochs without improvement. Default
            `None`: never stop early (the best weights are still restored).
        batch_size: batch size of the validation `predict`. Default 256.

    Example:

    >>> x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
    >>> y = (x[:, :2] > 0).astype("float32")
    >>> model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    >>> model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    >>> best = BestValidationF1(x, y, patience=2)
    >>> history = model.fit(x, y, epochs=3, verbose=0, callbacks=[best])
    >>> best.best_f1 == max(history.history["val_micro_f1"])
    True
    """

    def __init__(self, x_val, y_val, from_logits=None, patience=None, batch_size=256):
        super().__init__("val_micro_f1", patience)
        self.x_val, self.y_val = x_val, np.asarray(y_val)
        self.from_logits = None if from_logits is None else check_bool("from_logits", from_logits)
        self.batch_size = check_positive_int("batch_size", batch_size)
        # The threshold belongs to the best epoch's weights, so it is kept beside them;
        # EarlyStopping keeps the rest (best value, epoch, weights, patience count).
        self.threshold = 0.5

    @property
    def best_f1(self):
        return self.best_value

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        self.threshold = 0.5

    def on_epoch_end(self, epoch, logs=None):
        logs = {} if logs is None else logs
        scores = self.model.predict(self.x_val, batch_size=self.batch_size, verbose=0)
        from_logits = self.from_logits
        if from_logits is None:
            from keras_labelemb.tasks.label_classifier import LabelClassifier

            from_logits = not isinstance(self.model, LabelClassifier)
        if from_logits:
            scores = sigmoid(scores)
        threshold, f1 = choose_threshold(self.y_val, scores)
        logs["val_micro_f1"] = f1
        super().on_epoch_end(epoch, logs)
        if self.best_epoch == epoch:
            self.threshold = threshold
