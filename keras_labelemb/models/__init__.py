"""Reference models built from the library's layers."""

from keras_labelemb.layers.walk_layers import walk_layers
from keras_labelemb.models.cnle import cnle
from keras_labelemb.models.document_classifier import document_classifier, gile_han, gile_wan, han, prior_bias, wan
from keras_labelemb.models.language_model import drill_lm
from keras_labelemb.models.oh_2lstmp import oh_2lstmp
from keras_labelemb.models.relabel import set_labels
from keras_labelemb.models.sentence_classifier import sentence_classifier
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.renamed import moved_attribute

__all__ = [
    "cnle",
    "document_classifier",
    "drill_lm",
    "gile_han",
    "gile_wan",
    "han",
    "oh_2lstmp",
    "prior_bias",
    "sentence_classifier",
    "set_labels",
    "walk_layers",
    "wan",
    "word_embeddings",
]


def __getattr__(name):  # names moved elsewhere say where (keras_labelemb/renamed.py)
    return moved_attribute(__name__, name)
