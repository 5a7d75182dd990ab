"""Evaluation helpers: thresholds for multi-label decisions and a best-epoch callback."""

from keras_labelemb.evaluation.best_validation_f1 import BestValidationF1
from keras_labelemb.evaluation.thresholds import assign_labels, choose_threshold, micro_f1_score

__all__ = ["BestValidationF1", "assign_labels", "choose_threshold", "micro_f1_score"]
