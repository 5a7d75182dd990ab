"""Evaluation helpers: thresholds, seen-label and zero-shot reports,
chunked top-k scoring of huge label sets."""

from keras_labelemb.evaluation.label_index import LabelIndex
from keras_labelemb.evaluation.reports import classification_report, ranking_report, sigmoid
from keras_labelemb.evaluation.thresholds import assign_labels, choose_threshold, micro_f1_score
from keras_labelemb.evaluation.top_k_metrics import evaluate_in_chunks, top_k_metrics
from keras_labelemb.evaluation.top_k_prediction import predict_top_k, predict_top_k_encoded
from keras_labelemb.renamed import moved_attribute

__all__ = [
    "LabelIndex",
    "assign_labels",
    "choose_threshold",
    "classification_report",
    "evaluate_in_chunks",
    "micro_f1_score",
    "predict_top_k",
    "predict_top_k_encoded",
    "ranking_report",
    "sigmoid",
    "top_k_metrics",
]


def __getattr__(name):  # names moved elsewhere say where (keras_labelemb/renamed.py)
    return moved_attribute(__name__, name)
