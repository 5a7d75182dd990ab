"""A callback keeping the weights of the epoch with the best validation micro-F1."""

import keras
import numpy as np

from keras_labelemb.evaluation.thresholds import choose_threshold


class BestValidationF1(keras.callbacks.Callback):
    """After each epoch, scores the validation set, picks the best threshold, keeps the best weights.

    At the end of training the model holds the weights of the best epoch and
    `threshold` / `best_f1` / `best_epoch` hold what was chosen. Logs
    `val_micro_f1` so Keras' progress bar and History show it.

    Args:
        x_val: validation inputs (token ids). y_val: multi-hot targets.
        from_logits: the model outputs logits (default) rather than probabilities.
        patience: stop after this many epochs without improvement (None: never).
    """

    def __init__(self, x_val, y_val, from_logits=True, patience=None, batch_size=256):
        super().__init__()
        self.x_val, self.y_val = x_val, np.asarray(y_val)
        self.from_logits, self.patience, self.batch_size = from_logits, patience, batch_size
        self.best_f1, self.threshold, self.best_epoch, self._best_weights = -1.0, 0.5, -1, None

    def on_epoch_end(self, epoch, logs=None):
        scores = self.model.predict(self.x_val, batch_size=self.batch_size, verbose=0)
        if self.from_logits:
            scores = 1.0 / (1.0 + np.exp(-np.clip(scores, -50, 50)))
        threshold, f1 = choose_threshold(self.y_val, scores)
        if logs is not None:
            logs["val_micro_f1"] = f1
        if f1 > self.best_f1:
            self.best_f1, self.threshold, self.best_epoch = f1, threshold, epoch
            self._best_weights = self.model.get_weights()
        elif self.patience is not None and epoch - self.best_epoch >= self.patience:
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self._best_weights is not None:
            self.model.set_weights(self._best_weights)
