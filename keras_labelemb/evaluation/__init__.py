"""Evaluation helpers: thresholds, best-epoch callback, seen-label and zero-shot reports."""

from keras_labelemb.evaluation.best_validation_f1 import BestValidationF1
from keras_labelemb.evaluation.reports import classification_report, ranking_report, sigmoid
from keras_labelemb.evaluation.thresholds import assign_labels, choose_threshold, micro_f1_score

__all__ = [
    "BestValidationF1",
    "assign_labels",
    "choose_threshold",
    "classification_report",
    "micro_f1_score",
    "ranking_report",
    "sigmoid",
]
