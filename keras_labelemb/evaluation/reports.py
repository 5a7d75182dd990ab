"""Seen-label and zero-shot (unseen-label) evaluation with the library's metrics."""

import numpy as np
from keras import ops

from keras_labelemb import metrics
from keras_labelemb.evaluation.thresholds import assign_labels


def sigmoid(logits):
    """`keras.ops.sigmoid` of `logits` (e.g. `model.predict` output) as a NumPy array of probabilities.

    float64 logits stay float64 where the backend allows it; anything else is float32.

    >>> sigmoid(np.array([0.0, 2.0, -2.0])).round(4).tolist()
    [0.5, 0.8808, 0.1192]
    """
    logits = np.asarray(logits)
    dtype = "float64" if logits.dtype == np.float64 else "float32"
    return ops.convert_to_numpy(ops.sigmoid(ops.convert_to_tensor(logits, dtype)))


def _compute(metric_objects, y_true, scores):
    results = {}
    for metric in metric_objects:
        metric.update_state(np.asarray(y_true, "float32"), np.asarray(scores, "float32"))
        results[metric.name] = float(metric.result())
    return results


def classification_report(y_true, probabilities, threshold, at_least_one=True):
    """Micro-F1 at `threshold` (see `assign_labels`), P@1, P@5 and nDCG@5, as fractions."""
    predicted = assign_labels(probabilities, threshold, at_least_one)
    report = _compute([metrics.MicroF1(threshold=0.5)], y_true, predicted)
    report.update(
        _compute([metrics.PrecisionAtK(1), metrics.PrecisionAtK(5), metrics.NDCGAtK(5)], y_true, probabilities)
    )
    report["threshold"] = float(threshold)
    return report


def ranking_report(y_true, scores, only_documents_with_labels=True):
    """Ranking loss, average precision (LRAP) and one-error (GILE Table 2), as fractions.

    With `only_documents_with_labels` (default), documents with no relevant
    label are left out: over a held-out label subset most documents have
    none, and the metrics would count them as perfect (LRAP) or ignore them
    inconsistently.
    """
    y_true, scores = np.asarray(y_true), np.asarray(scores)
    if only_documents_with_labels:
        keep = y_true.sum(axis=1) > 0
        y_true, scores = y_true[keep], scores[keep]
    report = _compute(
        [metrics.RankingLoss(), metrics.LabelRankingAveragePrecision(), metrics.OneError()], y_true, scores
    )
    report["documents"] = int(len(y_true))
    return report
