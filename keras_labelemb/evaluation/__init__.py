"""Evaluation helpers: thresholds, seen-label and zero-shot reports,
chunked top-k scoring of huge label sets."""

from keras_labelemb.evaluation.label_index import LabelIndex
from keras_labelemb.evaluation.reports import classification_report, ranking_report
from keras_labelemb.evaluation.thresholds import choose_threshold
from keras_labelemb.evaluation.top_k_prediction import predict_top_k

__all__ = [
    "LabelIndex",
    "choose_threshold",
    "classification_report",
    "predict_top_k",
    "ranking_report",
]
