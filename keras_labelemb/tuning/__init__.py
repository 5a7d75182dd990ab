"""KerasTuner support: `keras_tuner.HyperModel`s over the reference models.

- `LabelHeadHyperModel`: a `LabelClassifier` (HAN or WAN encoder) with a GILE
  head (searching the joint dimension `d_j`), a DRILL head (searching the
  label-network depth `k`) or another head of `HEADS`, plus dropout and
  learning rate. Fixed head options: a subclass overrides `build_head`.
- `RegionLSTMHyperModel`: an oh-2LSTMp `LabelClassifier` (`RegionLSTM`, a
  linear head): units, chop size, pooling regions and kind, gates, dropout,
  learning rate.
- `DrillLanguageModelHyperModel`: the DRILL output layer of `drill_lm`: depth,
  dropout between the label layers and its kind, residual form, learning rate
  (stateful truncated-BPTT training handled by its `fit`).
- `CNLEHyperModel`: a CNLE `LabelClassifier` (`cnle`), trained by teacher
  forcing and selected on the decoded validation label sets
  (`DecodedValidation`).

Pass any of them to a KerasTuner tuner (`keras_tuner.RandomSearch`,
`BayesianOptimization`, `Hyperband`). All but the language model's build
`LabelClassifier`s fed token ids, so `tuner.get_best_models()` returns tasks
(`predict` gives probabilities, or CNLE's decoded sets; `predict_labels`
label names).
"""

from keras_labelemb.tuning.cnle_hypermodel import CNLEHyperModel
from keras_labelemb.tuning.drill_language_model_hypermodel import DrillLanguageModelHyperModel
from keras_labelemb.tuning.label_head_hypermodel import LabelHeadHyperModel
from keras_labelemb.tuning.region_lstm_hypermodel import RegionLSTMHyperModel

__all__ = [
    "CNLEHyperModel",
    "DrillLanguageModelHyperModel",
    "LabelHeadHyperModel",
    "RegionLSTMHyperModel",
]
