"""KerasTuner support: search the joint-space dimension and depth of the label-aware heads.

`LabelHeadHyperModel` is a `keras_tuner.HyperModel` that builds
`keras_labelemb.models.document_classifier` with a GILE head (searching the
joint dimension `d_j`) or a DRILL head (searching the label-network depth
`k`), plus dropout and learning rate; pass it to any KerasTuner tuner
(`keras_tuner.RandomSearch`, `BayesianOptimization`, `Hyperband`).
"""

from keras_labelemb.tuning.label_head_hypermodel import HEADS, LabelHeadHyperModel

__all__ = ["HEADS", "LabelHeadHyperModel"]
