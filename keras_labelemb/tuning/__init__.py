"""KerasTuner support: `keras_tuner.HyperModel`s over the reference models.

- `LabelHeadHyperModel`: `document_classifier` with a GILE head (searching the
  joint dimension `d_j`) or a DRILL head (searching the label-network depth
  `k`), plus dropout and learning rate.
- `RegionLSTMHyperModel`: oh-2LSTMp (`oh_2lstmp`): units, chop size, pooling
  regions and kind, gates, dropout, learning rate.
- `DrillLanguageModelHyperModel`: the DRILL output layer of `drill_lm`: depth,
  dropout between the label layers and its kind, residual form, learning rate
  (stateful truncated-BPTT training handled by its `fit`).
- `CNLEHyperModel`: `cnle`, trained by teacher forcing in its `fit` and
  selected on the decoded validation label sets (`DecodedValidation`).

Pass any of them to a KerasTuner tuner (`keras_tuner.RandomSearch`,
`BayesianOptimization`, `Hyperband`).
"""

from keras_labelemb.tuning.cnle_hypermodel import CNLEHyperModel
from keras_labelemb.tuning.drill_language_model_hypermodel import DrillLanguageModelHyperModel
from keras_labelemb.tuning.label_head_hypermodel import HEADS, LabelHeadHyperModel
from keras_labelemb.tuning.region_lstm_hypermodel import RegionLSTMHyperModel

__all__ = ["HEADS", "CNLEHyperModel", "DrillLanguageModelHyperModel", "LabelHeadHyperModel", "RegionLSTMHyperModel"]
