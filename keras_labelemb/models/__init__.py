"""Reference models built from the library's layers."""

from keras_labelemb.models.document_classifier import document_classifier, gile_han, gile_wan, han, wan
from keras_labelemb.models.label_set import label_heads, set_labels

__all__ = ["document_classifier", "gile_han", "gile_wan", "han", "wan", "label_heads", "set_labels"]
