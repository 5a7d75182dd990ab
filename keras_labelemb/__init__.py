"""keras_labelemb: Keras 3 layers for text classification that use what labels mean.

Importing the package registers every serializable object (layers, losses,
metrics, `LabelClassifier`), so `keras.saving.load_model` works in a fresh
process after `import keras_labelemb`, and exposes the subpackages as
attributes (`keras_labelemb.layers.GileHead`), as keras-hub does. The
subpackages that run on every Keras backend are imported at once (`tasks`
among them: a `LabelClassifier` fed token ids needs no TensorFlow); the
TensorFlow-only ones (`text`, `export`, `datasets`; the test helpers, `testing`; `tuning` and `plotting`
pull in KerasTuner and matplotlib) on first use, except `text`, which is
imported at once under the TensorFlow backend to register `TextVectorizer`.
"""

import importlib

import keras

from keras_labelemb import evaluation, layers, losses, metrics, models, tasks, training

__version__ = "0.1.0"

_ON_FIRST_USE = ("datasets", "distribution", "export", "plotting", "testing", "text", "tuning")

if keras.backend.backend() == "tensorflow":
    from keras_labelemb import text  # noqa: F401  (registers TextVectorizer)


def __getattr__(name):
    if name in _ON_FIRST_USE:
        return importlib.import_module(f"keras_labelemb.{name}")
    raise AttributeError(f"module 'keras_labelemb' has no attribute {name!r}")


__all__ = ["evaluation", "layers", "losses", "metrics", "models", "tasks", "training", *_ON_FIRST_USE]
