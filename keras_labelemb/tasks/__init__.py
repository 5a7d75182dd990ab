"""The task: `LabelClassifier`, from raw strings to label names, with its preprocessor and named presets."""

from keras_labelemb.tasks.label_classifier import LabelClassifier
from keras_labelemb.tasks.label_classifier_preprocessor import LabelClassifierPreprocessor

__all__ = ["LabelClassifier", "LabelClassifierPreprocessor"]
