"""`build_optimizer`: the library's compile paths create the optimizer's variables before the first trace, so
Keras' own TensorFlow trainer traces a first `fit` once, and training is what it would have been."""

import keras
import keras_tuner
import numpy as np
import pytest
from trace_counting import first_fit_traces

from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models import cnle, gile_wan
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training.cnle_training import cnle_training_model, compile_cnle_training_model
from keras_labelemb.training.optimizer_build import build_optimizer
from keras_labelemb.tuning import (
    CNLEHyperModel,
    DrillLanguageModelHyperModel,
    LabelHeadHyperModel,
    RegionLSTMHyperModel,
)

LABELS = np.array([[2, 3], [4, 0], [5, 6]], "int32")
X = np.random.default_rng(0).integers(1, 20, (8, 6)).astype("int32")
Y = (np.random.default_rng(1).random((8, 3)) < 0.5).astype("float32")
tensorflow_only = pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="a TensorFlow trainer's retrace")


def dense_model(seed=0):
    keras.utils.set_random_seed(seed)
    inputs = keras.Input((3,))
    return keras.Model(inputs, keras.layers.Dense(2)(inputs))


@tensorflow_only
def test_a_built_optimizer_gives_one_trace_and_the_same_training(keras_as_users_run_it):
    x, y = np.random.default_rng(2).normal(size=(8, 3)).astype("float32"), np.zeros((8, 2), "float32")
    trained = {}
    for built in (False, True):
        model = dense_model()
        model.compile(keras.optimizers.Adam(0.1), "mse")
        if built:
            assert build_optimizer(model) is model and model.optimizer.built
        trained[built] = (first_fit_traces(model, x, y), model.get_weights(), model.optimizer.iterations.numpy())
    assert trained[False][0] == 2 and trained[True][0] == 1  # Keras' own, then built first
    for before, after in zip(trained[False][1], trained[True][1]):
        np.testing.assert_array_equal(before, after)  # the same steps, bit for bit
    assert trained[False][2] == trained[True][2] == 2


@tensorflow_only
def test_a_classifier_cut_from_a_model_compiled_with_the_sampled_loss_gives_one_trace(keras_as_users_run_it):
    trainer = LabelClassifier.from_model(gile_wan(20, LABELS, max_tokens=6, embedding_dim=4, joint_dim=4))
    trainer.compile("adam", loss=SampledSigmoidLoss(num_negatives=2))
    assert trainer.optimizer.built
    assert first_fit_traces(trainer, X, Y) == 1


def test_what_is_not_ready_is_left_to_keras():
    uncompiled = dense_model()
    assert build_optimizer(uncompiled) is uncompiled  # no optimizer: nothing to build
    unbuilt = keras.Sequential([keras.layers.Dense(2)])  # no input shape: built by its first call
    unbuilt.compile("adam", "mse")
    build_optimizer(unbuilt)
    assert not unbuilt.optimizer.built
    unbuilt.fit(np.ones((4, 3), "float32"), np.zeros((4, 2), "float32"), verbose=0)  # Keras builds both
    assert unbuilt.optimizer.built and unbuilt.optimizer.iterations.numpy() == 1


def _built_by_hypermodels():
    small = dict(jit_compile=False)
    hp = keras_tuner.HyperParameters()
    yield LabelHeadHyperModel(20, LABELS, flat=True, max_tokens=6, embedding_dim=4, **small).build(hp)
    yield RegionLSTMHyperModel(20, 3, max_tokens=6, units=(4,), chop_sizes=(0,), **small).build(hp)
    yield DrillLanguageModelHyperModel(20, bptt=4, units=4, num_layers=1, **small).build(hp)
    cnle_maker = CNLEHyperModel(20, LABELS, max_tokens=6, max_steps=2, model_dims=(4,), embedding_dim=4, **small)
    yield cnle_maker.build(hp)  # a LabelClassifier compiled with the trial's optimizer


def test_hypermodels_and_the_cnle_compile_helper_build_the_optimizer():
    models = list(_built_by_hypermodels())
    training = cnle_training_model(cnle(20, LABELS, max_tokens=6, max_steps=2, model_dim=4))
    models.append(compile_cnle_training_model(training))
    assert [model.optimizer.built for model in models] == [True] * 5
