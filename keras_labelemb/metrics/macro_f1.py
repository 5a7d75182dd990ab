"""Macro-averaged F1: the unweighted mean of per-label F1 scores."""

import math
import numbers

import keras
from keras import ops

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.metrics import _ranking
from keras_labelemb.metrics.thresholded_counts import ThresholdedCounts


def _check_zero_division(zero_division):
    """Returns 0.0, 1.0 or NaN, or raises a ValueError naming `zero_division`."""
    if (
        not isinstance(zero_division, bool)
        and isinstance(zero_division, numbers.Real)
        and (float(zero_division) in (0.0, 1.0) or math.isnan(float(zero_division)))
    ):
        return float(zero_division)
    raise ValueError(f"`zero_division` must be 0.0, 1.0 or float('nan'). Received: zero_division={zero_division!r}")


@keras.saving.register_keras_serializable(package="keras_labelemb")
class MacroF1(ThresholdedCounts):
    """Macro-averaged F1 of thresholded multi-label predictions (streaming).

    A label is predicted for a document when its probability is strictly
    greater than `threshold` (with `from_logits=True`, when its logit is
    greater than `log(threshold / (1 - threshold))`, the same decision without
    saturating the sigmoid): the convention of `MicroF1`. True positives,
    false positives and false negatives are summed per label over every batch,
    and

        F1_l     = 2 TP_l / (2 TP_l + FP_l + FN_l)
        macro-F1 = (1 / L) * sum_l F1_l

    Every label weighs the same however rare it is, so macro-F1 rewards the
    tail of a large label set where micro-F1 is dominated by frequent labels.

    A label that is neither relevant for nor predicted on any document seen
    (TP_l + FP_l + FN_l = 0) has no defined F1. It scores `zero_division`:
    with the default 0.0 it counts as 0 and stays in the mean over all L
    labels, which is `sklearn.metrics.f1_score(y_true, y_pred > threshold,
    average="macro", zero_division=0)`; with 1.0 it counts as 1
    (`zero_division=1`); with `float("nan")` it is left out of the mean
    (`zero_division=np.nan`). When no label counts at all the result is 0
    (scikit-learn answers NaN there). A label with positives but no
    predictions, or predictions but no positives, scores 0 in every mode.

    The state is three vectors of length L. They are created on the first
    `update_state` from the static label count of `y_pred` unless
    `num_labels` is given.

    Args:
        num_labels: int or None, default None. Number of labels; None reads it
            from the first batch.
        threshold: float in (0, 1), default 0.5. Decision threshold applied
            to probabilities.
        from_logits: bool, default False. Whether `y_pred` holds logits.
        zero_division: 0.0 (default), 1.0 or `float("nan")`: the F1 of a
            label with no positive and no prediction, as in scikit-learn.
        name: string, default "macro_f1".
        dtype: dtype of the state and result, default `keras.config.floatx()`.

    `update_state(y_true, y_pred, sample_weight=None)`: `y_true` is multi-hot
    (batch, L) (values > 0.5 count as relevant), `y_pred` scores (batch, L);
    `sample_weight` is per document, shape (batch,), or per decision, shape
    (batch, L).

    Example:

    >>> import numpy as np
    >>> m = MacroF1()
    >>> m.update_state(np.array([[1, 0, 0], [1, 1, 0]]),
    ...                np.array([[0.9, 0.6, 0.2], [0.3, 0.8, 0.1]]))
    >>> round(float(m.result()), 4)  # F1 = 2/3, 2/3 and 0 (label 2: no positive, no prediction)
    0.4444
    """

    def __init__(
        self,
        num_labels=None,
        threshold=0.5,
        from_logits=False,
        zero_division=0.0,
        name="macro_f1",
        dtype=None,
    ):
        super().__init__(threshold=threshold, from_logits=from_logits, name=name, dtype=dtype)
        check_positive_int("num_labels", num_labels, allow_none=True)
        self.zero_division = _check_zero_division(zero_division)
        self.num_labels = None
        if num_labels is not None:
            self._build_state(int(num_labels))

    def _build_state(self, num_labels):
        self.num_labels = num_labels
        for name in ("true_positives", "false_positives", "false_negatives"):
            variable = self.add_variable(shape=(num_labels,), initializer="zeros", dtype=self.dtype, name=name)
            setattr(self, name, variable)

    def update_state(self, y_true, y_pred, sample_weight=None):
        relevance, scores, num_labels = _ranking.prepare(y_true, y_pred, self.dtype)
        if self.num_labels is None:
            self._build_state(num_labels)
        elif num_labels != self.num_labels:
            raise ValueError(
                f"This MacroF1 counts {self.num_labels} labels. "
                f"Received: y_pred with {num_labels} labels (shape {y_pred.shape})"
            )
        tp, fp, fn = self.weighted_counts(relevance, scores, sample_weight, axis=0)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.false_negatives.assign_add(fn)

    def per_label_f1(self):
        """F1 of each label, shape (L,); labels with nothing to score give `zero_division`."""
        if self.num_labels is None:
            raise ValueError("MacroF1 has seen no batch yet: the number of labels is unknown.")
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        denominator = 2.0 * tp + fp + fn
        f1 = ops.divide_no_nan(2.0 * tp, denominator)
        empty = ops.equal(denominator, 0.0)
        return ops.where(empty, ops.full_like(f1, self.zero_division), f1)

    def result(self):
        if self.num_labels is None:
            return ops.convert_to_tensor(0.0, dtype=self.dtype)
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        denominator = 2.0 * tp + fp + fn
        f1 = ops.divide_no_nan(2.0 * tp, denominator)
        counted = ops.cast(ops.greater(denominator, 0.0), self.dtype)
        if math.isnan(self.zero_division):
            return ops.divide_no_nan(ops.sum(f1 * counted), ops.sum(counted))
        f1 = f1 + (1.0 - counted) * self.zero_division
        return ops.mean(f1)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "num_labels": self.num_labels,
                "zero_division": self.zero_division,
            }
        )
        return config
