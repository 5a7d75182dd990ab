"""A callback that scores the label sets a decoder emits on validation data and keeps the best epoch's weights."""

import keras
import numpy as np

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.training.best_epoch_stopping import BestEpochStopping


def decoded_set_scores(y_true, decoded):
    """`{"micro_f1", "accuracy"}` of decoded multi-hot label sets against multi-hot targets.

    Micro-F1 counts every (document, label) decision (CNLE eq. 15); accuracy
    is the share of documents whose decoded set equals the true one (for
    one label per document: ordinary accuracy). A document set with no true
    and no decoded label counts as exact. Both are 0 for no document.

    >>> decoded_set_scores(np.array([[1, 0, 1], [0, 1, 0]]), np.array([[1, 0, 0], [0, 1, 0]]))
    {'micro_f1': 0.8, 'accuracy': 0.5}
    """
    y_true = np.asarray(y_true) > 0.5
    decoded = np.asarray(decoded) > 0.5
    if y_true.shape != decoded.shape or y_true.ndim != 2:
        raise ValueError(
            f"`y_true` and `decoded` must both be (N, num_labels). Received: shapes {y_true.shape} and {decoded.shape}"
        )
    true_positives = float(np.sum(y_true & decoded))
    errors = float(np.sum(y_true ^ decoded))
    micro_f1 = 2 * true_positives / (2 * true_positives + errors) if true_positives + errors else 0.0
    accuracy = float(np.mean(np.all(y_true == decoded, axis=1))) if len(y_true) else 0.0
    return {"micro_f1": micro_f1, "accuracy": accuracy}


class DecodedValidation(BestEpochStopping):
    """After each epoch, logs `val_decoded_<metric>` of the decoded label sets; restores the best epoch's weights.

    A label-sequence decoder (CNLE's `AdaptiveLabelDecoder`) trains with
    teacher forcing, through a training model whose loss says little about
    the sets greedy decoding emits. This callback decodes the validation
    texts with the inference model (`model`, sharing its weights with the
    model being trained), scores the sets (`decoded_set_scores`) and writes
    `val_decoded_micro_f1` and `val_decoded_accuracy` to the logs, so the
    progress bar, `History` and KerasTuner see them. It is Keras'
    `EarlyStopping` on `val_decoded_{metric}` (`BestEpochStopping`).

    Args:
        model: the inference model whose `predict` returns multi-hot decoded
            sets `(N, num_labels)` (a `cnle` model with its default output).
        x_val: validation inputs of `model` (token ids).
        y_val: multi-hot validation targets `(N, num_labels)`.
        metric: `"micro_f1"` (multi-label) or `"accuracy"` (multi-class) to monitor.
        patience: stop after this many epochs without improvement. Default
            `None`: never stop early (the best weights are still restored).
        batch_size: batch size of the validation `predict`. Default 256.

    Attributes:
        best_score: the best monitored score so far (-1.0 before the first epoch).
        best_epoch: index of the best epoch (-1 before training).

    Example (a stand-in decoder: any model that predicts multi-hot sets, here thresholded scores):

    >>> x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32")
    >>> y = (x[:, :3] > 0).astype("float32")
    >>> scorer = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    >>> decoder = keras.Model(scorer.inputs, keras.layers.Lambda(lambda t: keras.ops.cast(t > 0, "float32"))(
    ...     scorer.outputs[0]))
    >>> scorer.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    >>> best = DecodedValidation(decoder, x, y, patience=1)
    >>> history = scorer.fit(x, y, epochs=3, verbose=0, callbacks=[best])
    >>> best.best_score == max(history.history["val_decoded_micro_f1"])
    True

    With CNLE, `model` is the `cnle` model and the callback goes to the
    `cnle_training_model`'s `fit` (see the README).
    """

    def __init__(self, model, x_val, y_val, metric="micro_f1", patience=None, batch_size=256):
        check_choice("metric", metric, ("micro_f1", "accuracy"))
        super().__init__(f"val_decoded_{metric}", patience)
        if not isinstance(model, keras.Model):
            raise ValueError(f"`model` must be the inference keras.Model. Received: model={model!r}")
        self.inference_model = model
        self.x_val, self.y_val = x_val, np.asarray(y_val)
        self.metric = metric
        self.batch_size = check_positive_int("batch_size", batch_size)

    @property
    def best_score(self):
        return self.best_value

    def on_epoch_end(self, epoch, logs=None):
        logs = {} if logs is None else logs
        decoded = self.inference_model.predict(self.x_val, batch_size=self.batch_size, verbose=0)
        for name, value in decoded_set_scores(self.y_val, decoded).items():
            logs[f"val_decoded_{name}"] = value
        super().on_epoch_end(epoch, logs)
