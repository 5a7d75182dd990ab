"""Reference models built from the library's layers."""

from keras_labelemb.models.cnle import cnle
from keras_labelemb.models.document_classifier import document_classifier, gile_han, gile_wan, han, wan
from keras_labelemb.models.language_model import drill_lm
from keras_labelemb.models.oh_2lstmp import oh_2lstmp
from keras_labelemb.models.relabel import set_labels
from keras_labelemb.models.sentence_classifier import sentence_classifier

__all__ = [
    "cnle",
    "document_classifier",
    "drill_lm",
    "gile_han",
    "gile_wan",
    "han",
    "oh_2lstmp",
    "sentence_classifier",
    "set_labels",
    "wan",
]
