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


def tune_thresholds(y_true, scores, candidates=DEFAULT_CANDIDATES, min_positives=5):
    """`(thresholds (L,), mode)`: per-label thresholds, or one global threshold for all, by held-out F1.

    Per-label thresholds fitted on a few hundred validation documents can fit
    their noise: on Reuters-21578 (6,000 training documents, 777 for
    validation; the SVM's scores) they lost 0.005 micro-F1 to one global
    threshold on held-out halves of the validation split. So both are fitted
    on one half of `(y_true, scores)` (even rows, then odd rows) and scored
    (micro-F1, each document keeping at least its best label) on the other;
    the mode with the higher sum is refitted on all rows (`mode` is
    `"per_label"` or `"global"`; ties: global).

    >>> y = np.eye(2)[[0, 1, 0, 1, 0, 1]]
    >>> s = np.array([[0.9, 0.2], [0.3, 0.4], [0.8, 0.1], [0.2, 0.6], [0.7, 0.3], [0.1, 0.5]])
    >>> thresholds, mode = tune_thresholds(y, s, candidates=[0.35, 0.5], min_positives=1)
    >>> mode, len(thresholds)
    ('global', 2)
    """
    y_true, scores = np.asarray(y_true, "float32"), np.asarray(scores, "float32")
    if y_true.shape != scores.shape:
        raise ValueError(f"`y_true` and `scores` must have one shape. Received: {y_true.shape} and {scores.shape}")
    rows = np.arange(len(scores))
    halves = (rows % 2 == 0, rows % 2 == 1)
    totals = {"per_label": 0.0, "global": 0.0}
    if len(scores) >= 4:
        for fit, held in (halves, halves[::-1]):
            fitted = {
                "per_label": tune_per_label_thresholds(y_true[fit], scores[fit], candidates, min_positives),
                "global": choose_threshold(y_true[fit], scores[fit], candidates)[0],
            }
            for mode, thresholds in fitted.items():
                totals[mode] += micro_f1_score(y_true[held], labels_at_thresholds(scores[held], thresholds))
    if totals["per_label"] > totals["global"]:
        return tune_per_label_thresholds(y_true, scores, candidates, min_positives), "per_label"
    threshold = choose_threshold(y_true, scores, candidates)[0] if len(scores) else DEFAULT_THRESHOLD
    return np.full(scores.shape[1], threshold, "float32"), "global"


def labels_at_thresholds(scores, thresholds):
    """Multi-hot `(N, L)`: scores at or above their label's threshold, and each document's best label."""
    scores = np.asarray(scores)
    chosen = scores >= np.asarray(thresholds, scores.dtype)
    if len(scores):
        chosen[np.arange(len(scores)), scores.argmax(axis=1)] = True
    return chosen.astype("float32")
