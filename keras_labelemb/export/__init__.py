"""Export to SavedModel with serving signatures that take raw text."""

from keras_labelemb.export.indexed_text_classifier import IndexedTextClassifier
from keras_labelemb.export.language_model_export import export_language_model
from keras_labelemb.export.stateless_language_model import stateless_language_model
from keras_labelemb.export.text_classifier_export import export_text_classifier, load_text_classifier

__all__ = [
    "IndexedTextClassifier",
    "export_language_model",
    "export_text_classifier",
    "load_text_classifier",
    "stateless_language_model",
]
