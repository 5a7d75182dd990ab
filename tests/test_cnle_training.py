"""CNLE's training pieces: the paper's optimizer, the loss, and teacher forcing over the inference model's weights.

The toy task learned end to end is in tests/test_cnle.py.
"""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead
from keras_labelemb.losses import LabelSequenceLoss
from keras_labelemb.models import cnle, gile_wan
from keras_labelemb.training.cnle_training import (
    TeacherForcing,
    cnle_optimizer,
    cnle_training_model,
    compile_cnle_training_model,
)
from keras_labelemb.training.warmup_schedule import WarmupSchedule

LABELS = np.array([[2, 3], [4, 0], [5, 6]], "int32")


def test_cnle_optimizer_is_the_papers():
    optimizer = cnle_optimizer(model_dim=256, warmup_steps=800)
    assert (optimizer.beta_1, optimizer.beta_2, optimizer.epsilon, optimizer.global_clipnorm) == (0.9, 0.98, 1e-9, 1.0)
    schedule = optimizer.get_config()["learning_rate"]  # the learning rate is a schedule, not a number
    assert keras.saving.deserialize_keras_object(schedule).__class__ is WarmupSchedule


def test_training_model_shares_every_weight_and_compiles_with_the_sequence_loss():
    model = cnle(
        20,
        LABELS,
        max_tokens=5,
        max_steps=3,
        model_dim=8,
        num_heads=2,
        attention_dim=4,
        embedding_dim=6,
    )
    training = compile_cnle_training_model(cnle_training_model(model))
    assert sorted(training.input) == ["label_sequence", "token_ids"]
    assert {id(v) for v in training.weights} == {id(v) for v in model.weights}
    assert isinstance(training.loss, LabelSequenceLoss)
    assert (training.optimizer.beta_2, training.optimizer.global_clipnorm) == (0.98, 1.0)  # cnle_optimizer()


def test_teacher_forcing_needs_an_adaptive_label_decoder():
    with pytest.raises(ValueError, match="AdaptiveLabelDecoder"):
        TeacherForcing(GileHead(keras.layers.Embedding(20, 4), LABELS))
    with pytest.raises(ValueError, match="AdaptiveLabelDecoder"):
        cnle_training_model(gile_wan(20, LABELS, max_tokens=5, units=4, joint_dim=4))
