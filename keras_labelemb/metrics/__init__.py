"""Streaming multi-label metrics (keras.metrics.Metric, keras.ops only).

`MicroF1` and `MacroF1` score thresholded decisions; the ranking metrics
(`PrecisionAtK`, `NDCGAtK`, `PropensityPrecisionAtK`, `RankingLoss`,
`LabelRankingAveragePrecision`, `OneError`) depend
only on the order of the scores, so logits and probabilities give the same
values. All run under the TensorFlow and JAX backends and inside
`jit_compile=True`, and under PyTorch; there `top_k` orders tied scores in
no fixed way, so the top-k metrics (P@k, nDCG@k, PSP@k, one-error) of tied
scores can differ from TensorFlow's and JAX's, which rank the lower label
index first.
"""

from keras_labelemb.metrics.label_ranking_average_precision import (
    LabelRankingAveragePrecision,
)
from keras_labelemb.metrics.macro_f1 import MacroF1
from keras_labelemb.metrics.micro_f1 import MicroF1
from keras_labelemb.metrics.ndcg_at_k import NDCGAtK
from keras_labelemb.metrics.one_error import OneError
from keras_labelemb.metrics.perplexity import Perplexity
from keras_labelemb.metrics.precision_at_k import PrecisionAtK
from keras_labelemb.metrics.propensity_precision_at_k import (
    PropensityPrecisionAtK,
    label_propensities,
)
from keras_labelemb.metrics.ranking_loss import RankingLoss

__all__ = [
    "LabelRankingAveragePrecision",
    "MacroF1",
    "MicroF1",
    "NDCGAtK",
    "OneError",
    "Perplexity",
    "PrecisionAtK",
    "PropensityPrecisionAtK",
    "RankingLoss",
    "label_propensities",
]
