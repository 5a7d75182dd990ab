"""Tests of `reports`."""

import numpy as np
import pytest
from sklearn.metrics import f1_score, label_ranking_average_precision_score, label_ranking_loss, ndcg_score

from keras_labelemb.evaluation import classification_report, ranking_report
from keras_labelemb.evaluation.thresholds import assign_labels

RNG = np.random.default_rng(0)

Y = (RNG.random((60, 8)) > 0.7).astype("float32")

S = np.clip(Y * 0.3 + RNG.random((60, 8)) * 0.7, 0, 1)


def test_reports_match_scikit_learn():
    report = classification_report(Y, S, 0.5)
    assert report["micro_f1"] == pytest.approx(f1_score(Y, assign_labels(S, 0.5), average="micro"), abs=1e-6)
    ranking = ranking_report(Y, S)
    keep = Y.sum(1) > 0
    assert ranking["documents"] == keep.sum() < len(Y)
    assert ranking["label_ranking_average_precision"] == pytest.approx(
        label_ranking_average_precision_score(Y[keep], S[keep]), abs=1e-6
    )
    assert ranking["ranking_loss"] == pytest.approx(label_ranking_loss(Y[keep], S[keep]), abs=1e-6)


def test_every_classification_report_key_is_scikit_learns_on_the_scores():
    """P@k and nDCG rank the scores themselves (thresholded predictions would tie every predicted label)."""
    report = classification_report(Y, S, 0.5)
    top = np.argsort(-S, axis=1, kind="stable")
    for k in (1, 5):
        assert report[f"precision_at_{k}"] == pytest.approx(np.take_along_axis(Y, top[:, :k], 1).mean(), abs=1e-6)
    assert report["ndcg_at_5"] == pytest.approx(ndcg_score(Y, S, k=5), abs=1e-6)
    assert set(report) == {"micro_f1", "precision_at_1", "precision_at_5", "ndcg_at_5", "threshold"}
