"""Training code: sampled labels, CNLE's teacher forcing, tv-embedding and word-vector pretraining, callbacks."""

from keras_labelemb.training.best_validation_f1 import BestValidationF1
from keras_labelemb.training.decoded_validation import DecodedValidation
from keras_labelemb.training.reset_states import ResetStates
from keras_labelemb.training.tv_embedding import train_tv_embeddings
from keras_labelemb.training.word_vectors import pretrain_word_vectors

__all__ = [
    "BestValidationF1",
    "DecodedValidation",
    "ResetStates",
    "pretrain_word_vectors",
    "train_tv_embeddings",
]
