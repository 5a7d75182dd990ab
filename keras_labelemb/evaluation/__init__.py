"""Evaluation helpers: thresholds, chunked top-k scoring of huge label sets and the label index."""

from keras_labelemb.evaluation.label_index import LabelIndex
from keras_labelemb.evaluation.thresholds import choose_threshold
from keras_labelemb.evaluation.top_k_prediction import predict_top_k

__all__ = [
    "LabelIndex",
    "choose_threshold",
    "predict_top_k",
]
