"""Reference models built from the library's layers."""

from keras_labelemb.models.document_classifier import document_classifier, gile_han, gile_wan, han, wan
from keras_labelemb.models.label_head_access import find_label_head, set_labels, split_at_head
from keras_labelemb.models.language_model import ResetStates, drill_lm, reset_states
from keras_labelemb.models.oh_2lstmp import oh_2lstmp
from keras_labelemb.models.tv_embedding import TvEmbedding, target_vocabulary, train_tv_embeddings, window_target_counts

__all__ = ["document_classifier", "gile_han", "gile_wan", "han", "wan", "find_label_head", "set_labels", "split_at_head", "drill_lm", "ResetStates", "reset_states", "oh_2lstmp", "TvEmbedding", "target_vocabulary", "train_tv_embeddings", "window_target_counts"]
