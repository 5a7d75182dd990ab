"""Helpers shared by the tests split out of test_metrics.py."""

import keras
import numpy as np
from sklearn import metrics as skm


def make_data(seed, n, num_labels, ties=True):
    """Multi-hot targets with an all-zero, an all-one and a single-positive row,
    scores with many ties (a few distinct values) or continuous."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, num_labels)) < 0.35).astype("float32")
    y_true[0] = 0.0
    y_true[1] = 1.0
    y_true[2] = 0.0
    y_true[2, rng.integers(num_labels)] = 1.0
    if ties:
        scores = rng.integers(0, 4, size=(n, num_labels)).astype("float32") / 4.0
        # a block of continuous rows too
        scores[n // 2 :] = rng.random((n - n // 2, num_labels)).astype("float32")
        scores[3] = 0.5  # a row that is one big tie
    else:
        scores = rng.random((n, num_labels)).astype("float32")
    return y_true, scores


def stream(metric, y_true, y_pred, sample_weight=None, cuts=(0.3, 0.75)):
    """Feeds the data in three uneven batches; returns the result as a float."""
    n = len(y_true)
    bounds = [0] + [max(1, int(c * n)) for c in cuts] + [n]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi <= lo:
            continue
        sw = None if sample_weight is None else sample_weight[lo:hi]
        metric.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    return float(keras.ops.convert_to_numpy(metric.result()))


def top_k_reference(scores, k):
    """Indices of the k top scores per row, ties to the lower index (as top_k)."""
    order = np.argsort(-scores.astype("float64"), axis=1, kind="stable")
    return order[:, :k]


def precision_at_k_reference(y_true, scores, k, sample_weight=None):
    top = top_k_reference(scores, min(k, scores.shape[1]))
    hits = np.take_along_axis(y_true > 0.5, top, axis=1).sum(axis=1)
    return np.average(hits / k, weights=sample_weight)


def one_error_reference(y_true, scores, sample_weight=None):
    top = top_k_reference(scores, 1)[:, 0]
    has_positive = (y_true > 0.5).any(axis=1)
    wrong = ~(y_true[np.arange(len(y_true)), top] > 0.5)
    w = np.ones(len(y_true)) if sample_weight is None else sample_weight
    denominator = np.sum(w * has_positive)
    return 0.0 if denominator == 0 else np.sum(w * has_positive * wrong) / denominator


def sklearn_reference(name, y_true, scores, sample_weight=None, **kw):
    s = scores.astype("float64")
    y = y_true.astype(int)
    if name == "micro_f1":
        threshold = kw.get("threshold", 0.5)
        return skm.f1_score(
            y,
            (s > threshold).astype(int),
            average="micro",
            sample_weight=sample_weight,
            zero_division=0,
        )
    if name == "ndcg":
        return skm.ndcg_score(y, s, k=kw["k"], sample_weight=sample_weight)
    if name == "ranking_loss":
        return skm.label_ranking_loss(y, s, sample_weight=sample_weight)
    if name == "lrap":
        return skm.label_ranking_average_precision_score(y, s, sample_weight=sample_weight)
    raise KeyError(name)


def result_of(metric, y_true, y_pred):
    metric.update_state(y_true, y_pred)
    return float(keras.ops.convert_to_numpy(metric.result()))
