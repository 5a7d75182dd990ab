"""Turning label scores into label sets: one global threshold chosen on validation data."""

import numpy as np

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
    """Micro-averaged F1 of multi-hot arrays (0 when there is nothing to predict or find)."""
    y_true, y_pred = np.asarray(y_true) > 0.5, np.asarray(y_pred) > 0.5
    tp = np.sum(y_true & y_pred)
    denominator = 2 * tp + np.sum(~y_true & y_pred) + np.sum(y_true & ~y_pred)
    return float(2 * tp / denominator) if denominator else 0.0


def choose_threshold(y_true, scores, candidates=DEFAULT_CANDIDATES, at_least_one=True):
    """The candidate threshold with the best micro-F1 on `(y_true, scores)`; returns `(threshold, f1)`.

    >>> y = np.array([[1, 0], [0, 1]]); s = np.array([[0.7, 0.4], [0.2, 0.35]])
    >>> choose_threshold(y, s, candidates=[0.3, 0.5])
    (0.5, 1.0)
    """
    results = [(micro_f1_score(y_true, assign_labels(scores, t, at_least_one)), -t) for t in candidates]
    best_f1, negative_threshold = max(results)
    return float(-negative_threshold), float(best_f1)
