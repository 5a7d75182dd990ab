"""The task: `LabelClassifier`, from raw strings to label names, with its preprocessor and named presets.

`LabelClassifier` fed token ids runs on every Keras backend without TensorFlow; its preprocessor (raw strings,
tensorflow-text) is imported on first use.
"""

from keras_labelemb.tasks.label_classifier import LabelClassifier


def __getattr__(name):
    if name == "LabelClassifierPreprocessor":
        from keras_labelemb.tasks.label_classifier_preprocessor import LabelClassifierPreprocessor

        return LabelClassifierPreprocessor
    raise AttributeError(f"module 'keras_labelemb.tasks' has no attribute {name!r}")


__all__ = ["LabelClassifier", "LabelClassifierPreprocessor"]
