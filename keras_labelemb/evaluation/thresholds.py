"""Turning label scores into label sets: one global threshold chosen on validation data."""

import numpy as np

from keras_labelemb.metrics import MicroF1

DEFAULT_CANDIDATES = tuple(np.round(np.arange(0.05, 0.951, 0.025), 3))


def assign_labels(scores, threshold, at_least_one=True):
    """Multi-hot predictions: scores above `threshold`; with `at_least_one`, the top label when none is.

    Args:
        scores: `(N, L)` probabilities (or any scores on the threshold's scale).
        threshold: a float.
        at_least_one: every document gets at least its best label (each
            document of the benchmark datasets has one or more labels).
    """
    scores = np.asarray(scores)
    predicted = scores > threshold
    if at_least_one:
        predicted[np.arange(len(scores)), scores.argmax(axis=1)] = True
    return predicted.astype("float32")


def micro_f1_score(y_true, y_pred):
    """Micro-averaged F1 of multi-hot arrays (0 when there is nothing to predict or find).

    The library's `keras_labelemb.metrics.MicroF1` over one batch, so the threshold
    choice, the reports and the training-time metric share one definition. Values
    above 0.5 count as relevant / predicted.

    >>> micro_f1_score(np.array([[1, 0, 1]]), np.array([[1, 1, 0]]))  # TP=1, FP=1, FN=1
    0.5
    """
    return _micro_f1(_count_metric(), y_true, y_pred)


def _count_metric():
    # float64 counts: exact for any number of (document, label) pairs, and an F1 that
    # compares exactly with float64 references (a float32 F1 is off by up to 6e-8).
    return MicroF1(threshold=0.5, dtype="float64")


def _micro_f1(metric, y_true, y_pred):
    metric.reset_state()
    metric.update_state(y_true, y_pred)
    return float(metric.result())


def choose_threshold(y_true, scores, candidates=DEFAULT_CANDIDATES, at_least_one=True):
    """The candidate threshold with the best micro-F1 on `(y_true, scores)`; returns `(threshold, f1)`.

    >>> y = np.array([[1, 0], [0, 1]]); s = np.array([[0.7, 0.4], [0.2, 0.35]])
    >>> choose_threshold(y, s, candidates=[0.3, 0.5])
    (0.5, 1.0)
    """
    metric, y_true = _count_metric(), np.asarray(y_true, "float32")
    results = [(_micro_f1(metric, y_true, assign_labels(scores, t, at_least_one)), -t) for t in candidates]
    best_f1, negative_threshold = max(results)
    return float(-negative_threshold), float(best_f1)


# What `LabelClassifier.predict_labels` applies to a label whose threshold was never tuned.
DEFAULT_THRESHOLD = 0.5


def tune_per_label_thresholds(y_true, scores, candidates=DEFAULT_CANDIDATES, min_positives=5):
    """One threshold per label: the candidate with the best F1 of that label on `(y_true, scores)`.

    A label with fewer than `min_positives` positives in the data (its F1 would
    be chosen on a handful of documents) gets the global threshold of
    `choose_threshold` instead. Ties go to the higher threshold.

    >>> y = np.array([[1, 0], [0, 1], [1, 0], [0, 0]]); s = np.array([[0.9, 0.2], [0.3, 0.4], [0.6, 0.1], [0.2, 0.3]])
    >>> [round(float(t), 2) for t in tune_per_label_thresholds(y, s, candidates=[0.35, 0.5], min_positives=2)]
    [0.5, 0.35]
    """
    y_true, scores = np.asarray(y_true, "float32") > 0.5, np.asarray(scores, "float32")
    if y_true.shape != scores.shape:
        raise ValueError(f"`y_true` and `scores` must have one shape. Received: {y_true.shape} and {scores.shape}")
    fallback = choose_threshold(y_true, scores, candidates)[0] if len(scores) else DEFAULT_THRESHOLD
    thresholds = np.full(scores.shape[1], fallback, "float32")
    grid = np.asarray(sorted(candidates), "float32")
    for label in range(scores.shape[1]):
        truth = y_true[:, label]
        if truth.sum() < min_positives:
            continue
        predicted = scores[:, label][None, :] >= grid[:, None]  # (candidates, N)
        tp = (predicted & truth).sum(axis=1)
        f1 = 2 * tp / np.maximum(predicted.sum(axis=1) + truth.sum(), 1)
        thresholds[label] = grid[len(grid) - 1 - np.argmax(f1[::-1])]
    return thresholds
