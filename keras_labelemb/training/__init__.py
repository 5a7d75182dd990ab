"""Training code: sampled labels, CNLE's teacher forcing, tv-embedding and word-vector pretraining, callbacks."""

from keras_labelemb.training.best_validation_f1 import BestValidationF1
from keras_labelemb.training.cnle_training import (
    TeacherForcing,
    cnle_optimizer,
    cnle_training_model,
    compile_cnle_training_model,
)
from keras_labelemb.training.decoded_validation import DecodedValidation, decoded_set_scores
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.training.reset_states import ResetStates, reset_states
from keras_labelemb.training.tv_embedding import TvEmbedding, train_tv_embeddings, window_target_counts
from keras_labelemb.training.warmup_schedule import WarmupSchedule
from keras_labelemb.training.word_vectors import pretrain_word_vectors

__all__ = [
    "BestValidationF1",
    "DecodedValidation",
    "ResetStates",
    "TeacherForcing",
    "TvEmbedding",
    "WarmupSchedule",
    "build_optimizer",
    "cnle_optimizer",
    "cnle_training_model",
    "compile_cnle_training_model",
    "decoded_set_scores",
    "pretrain_word_vectors",
    "reset_states",
    "train_tv_embeddings",
    "window_target_counts",
]
