"""DrillLanguageModelHyperModel: hp values reach the DRILL head, depth-0 conditions, stateful fit, searches, checks."""

import inspect

import keras
import keras_tuner
import numpy as np
import pytest

from keras_labelemb.models import drill_lm
from keras_labelemb.models.language_model import HEAD_OPTIONS
from keras_labelemb.training import ResetStates
from keras_labelemb.tuning import DrillLanguageModelHyperModel, drill_language_model_hypermodel

# keras-tuner's get_best_models rebuilds a model without optimizer state and loads the checkpoint into it.
pytestmark = pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")

VOCAB, BPTT, BATCH = 40, 5, 4
ENCODER = dict(bptt=BPTT, units=8, num_layers=1)


def hypermodel(**kwargs):
    return DrillLanguageModelHyperModel(VOCAB, **{"depths": (0, 1, 3), "jit_compile": False, **ENCODER, **kwargs})


def fixed(**values):
    hp = keras_tuner.HyperParameters()
    for name, value in values.items():
        hp.Fixed(name, value)
    return hp


def windows(rows, seed):
    """`rows` consecutive bptt windows of a random token stream: inputs and next-token targets."""
    ids = np.random.default_rng(seed).integers(0, VOCAB, (rows, BPTT + 1)).astype("int32")
    return ids[:, :-1], ids[:, 1:]


@pytest.mark.parametrize(
    "residual, to_embedding, to_previous",
    [("embedding", True, False), ("previous", False, True), ("both", True, True)],
)
def test_trial_values_reach_the_drill_head(residual, to_embedding, to_previous):
    hp = fixed(depth=3, head_dropout=0.2, dropout_type="standard", residual=residual, learning_rate=10.0)
    model = hypermodel().build(hp)
    head = model.get_layer("drill_head")
    assert head.depth == 3
    kernels = sorted(v.name for v in head.weights if v.name.startswith("label_kernel_"))
    assert kernels == ["label_kernel_1", "label_kernel_2", "label_kernel_3"]
    assert (head.residual_to_embedding, head.residual_to_previous) == (to_embedding, to_previous)
    assert head.dropout == pytest.approx(0.2) and head.dropout_type == "standard"
    assert head.embedding is model.get_layer("word_embedding")  # tied
    assert isinstance(model.optimizer, keras.optimizers.SGD)
    assert float(model.optimizer.learning_rate) == pytest.approx(10.0)
    assert model.optimizer.global_clipnorm == pytest.approx(0.25)
    assert isinstance(model.loss, keras.losses.SparseCategoricalCrossentropy) and model.loss.from_logits
    assert not model.get_layer("lstm_1").stateful
    assert tuple(model(np.ones((2, BPTT), "int32")).shape) == (2, BPTT, VOCAB)


def test_label_network_parameters_are_active_only_for_a_positive_depth():
    model = hypermodel()
    tied = fixed(depth=0)
    head = model.build(tied).get_layer("drill_head")
    assert head.depth == 0 and not [v for v in head.weights if v.name.startswith("label_kernel_")]
    assert sorted(tied.values) == ["depth", "learning_rate"]
    for name in ("head_dropout", "dropout_type", "residual"):
        assert not tied.is_active(name)

    deep = fixed(depth=1)
    model.build(deep)
    assert sorted(deep.values) == ["depth", "dropout_type", "head_dropout", "learning_rate", "residual"]
    conditions = {hp.name: [(c.name, c.values) for c in hp.conditions] for hp in deep.space}
    for name in ("head_dropout", "dropout_type", "residual"):
        assert conditions[name] == [("depth", [1, 3])]
    assert conditions["depth"] == [] and conditions["learning_rate"] == []


def test_without_depth_zero_there_is_no_condition_and_with_only_zero_no_label_network_parameter():
    hp = keras_tuner.HyperParameters()
    DrillLanguageModelHyperModel(VOCAB, **ENCODER).declare_hyperparameters(hp)
    space = {p.name: p for p in hp.space}
    assert set(space) == {"depth", "head_dropout", "dropout_type", "residual", "learning_rate"}
    assert all(not p.conditions for p in space.values())
    assert set(space["depth"].values) == {1, 2, 3, 4}
    assert set(space["residual"].values) == {"embedding", "previous", "both"}
    draws = np.array([space["learning_rate"].random_sample(seed) for seed in range(1000)])  # SGD: 5 to 40
    assert draws.min() >= 5.0 and draws.max() <= 40.0 and abs(np.mean(draws < np.sqrt(200.0)) - 0.5) < 0.06

    hp = keras_tuner.HyperParameters()
    model = hypermodel(depths=0).build(hp)
    assert set(hp.values) == {"depth", "learning_rate"}
    assert model.get_layer("drill_head").depth == 0


def test_adam_cosine_decay_without_clipping_and_head_options():
    model = hypermodel(
        optimizer="adam",
        learning_rate=2e-3,
        clipnorm=None,
        decay_steps=100,
        head_activation="tanh",
        embedding_dim=6,
    ).build(fixed(depth=1, residual="embedding"))
    optimizer = model.optimizer
    assert isinstance(optimizer, keras.optimizers.Adam) and optimizer.global_clipnorm is None
    schedule = optimizer.learning_rate if callable(optimizer.learning_rate) else optimizer._learning_rate
    assert isinstance(schedule, keras.optimizers.schedules.CosineDecay)
    assert float(schedule(0)) == pytest.approx(2e-3) and float(schedule(100)) == pytest.approx(2e-4)
    assert model.get_layer("drill_head").activation is keras.activations.tanh
    assert model.get_layer("word_embedding").output_dim == 6


def test_stateful_model_has_the_fixed_batch_shape_and_fit_sets_up_truncated_bptt():
    model_maker = hypermodel(stateful=True, batch_size=BATCH)
    hp = fixed(depth=1)
    model = model_maker.build(hp)
    assert model.get_layer("lstm_1").stateful
    assert tuple(model.inputs[0].shape) == (BATCH, BPTT)
    x, y = windows(2 * BATCH, 0)
    seen = {}

    class Spy(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen["params"] = dict(self.params)

    history = model_maker.fit(hp, model, x, y, validation_data=(x, y), epochs=2, verbose=0, callbacks=[Spy()])
    assert len(history.history["val_perplexity"]) == 2
    assert seen["params"]["steps"] == 2  # batches of BATCH rows
    # The validation perplexity is the stateful evaluation from zero state (ResetStates was added).
    result = model.evaluate(x, y, batch_size=BATCH, verbose=0, callbacks=[ResetStates()], return_dict=True)
    assert history.history["val_perplexity"][-1] == pytest.approx(result["perplexity"], rel=1e-5)


@pytest.mark.parametrize(
    "fit_kwargs, rows, match",
    [
        (dict(batch_size=8), BATCH, "batch_size=8"),
        (dict(validation_batch_size=2), BATCH, "validation_batch_size=2"),
        (dict(shuffle=True), BATCH, "shuffle=True"),
        (dict(validation_split=0.5), 2 * BATCH, "validation_split=0.5"),
        ({}, BATCH + 1, r"x with shape \(5, 5\)"),
    ],
)
def test_stateful_fit_refuses_what_breaks_the_carried_state(fit_kwargs, rows, match):
    model_maker = hypermodel(stateful=True, batch_size=BATCH)
    hp = fixed(depth=1)
    model = model_maker.build(hp)
    x, y = windows(rows, 1)
    with pytest.raises(ValueError, match=match):
        model_maker.fit(hp, model, x, y, epochs=1, verbose=0, **fit_kwargs)
    x, y = windows(BATCH, 1)
    with pytest.raises(ValueError, match=r"validation_data with shape \(3, 5\)"):
        model_maker.fit(hp, model, x, y, validation_data=windows(3, 2), epochs=1, verbose=0)


@pytest.mark.slow  # ~5 s on one core: a stateful trial and two stateless ones
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_tiny_searches_stateful_on_perplexity_and_stateless_on_loss(tmp_path):
    x, y = windows(2 * BATCH, 3)
    x_val, y_val = windows(BATCH, 4)
    tuner = keras_tuner.RandomSearch(
        hypermodel(stateful=True, batch_size=BATCH),
        objective=keras_tuner.Objective("val_perplexity", "min"),
        max_trials=1,
        seed=0,
        directory=str(tmp_path),
        project_name="stateful",
    )
    tuner.search(x, y, validation_data=(x_val, y_val), epochs=1, verbose=0)
    best_hp = tuner.get_best_hyperparameters()[0]
    best = tuner.get_best_models()[0]
    assert best.get_layer("drill_head").depth == best_hp["depth"]
    assert best.get_layer("lstm_1").stateful and tuple(best.inputs[0].shape) == (BATCH, BPTT)
    result = best.evaluate(x_val, y_val, batch_size=BATCH, verbose=0, callbacks=[ResetStates()], return_dict=True)
    assert result["perplexity"] == pytest.approx(tuner.oracle.get_best_trials(1)[0].score, rel=1e-5)

    tuner = keras_tuner.RandomSearch(
        hypermodel(),
        objective="val_loss",
        max_trials=2,
        seed=1,
        directory=str(tmp_path),
        project_name="stateless",
    )
    tuner.search(x, y, validation_data=(x_val, y_val), epochs=1, batch_size=3, verbose=0)
    trials = list(tuner.oracle.trials.values())
    assert len(trials) == 2 and all(t.status == "COMPLETED" for t in trials)
    for trial in trials:
        values = trial.hyperparameters.values
        assert ("residual" in values) == (values["depth"] > 0)
    logits = tuner.get_best_models()[0].predict(x_val[:3], verbose=0)
    assert logits.shape == (3, BPTT, VOCAB) and np.isfinite(logits).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(depths=(-1, 2)), r"depths=\(-1, 2\)"),
        (dict(depths=[]), r"depths=\[\]"),
        (dict(depths=(2, 2)), "must not repeat"),
        (dict(head_dropout=1.0), "head_dropout=1.0"),
        (dict(head_dropout=(0.5, 0.1)), r"head_dropout=\(0.5, 0.1\)"),
        (dict(dropout_types="locked"), "dropout_types='locked'"),
        (dict(residuals=("embedding", "none")), r"residuals=\('embedding', 'none'\)"),
        (dict(learning_rate=0.0), "learning_rate=0.0"),
        (dict(optimizer="rmsprop"), "optimizer='rmsprop'"),
        (dict(clipnorm=0), "clipnorm=0"),
        (dict(clipnorm=(0.1, 1.0)), r"clipnorm=\(0.1, 1.0\)"),
        (dict(decay_steps=0), "decay_steps=0"),
        (dict(stateful=1), "stateful=1"),
        (dict(stateful=True), "batch_size=None"),
        (dict(batch_size=4), "batch_size=4"),
        (dict(stateful=True, batch_size=4, bptt=None), "bptt=None"),
        (dict(jit_compile=None), "jit_compile=None"),
        (dict(head="tied"), "pass `depths=`.*head='tied'"),
        (dict(lstm_units=8), "lstm_units=8"),
        (dict(depth=2), "`depth` is set by the hypermodel: pass `depths=`"),
        (dict(residual_to_previous=True), "pass `residuals=`.*residual_to_previous=True"),
        (dict(head_dropout_type="standard"), "pass `dropout_types=`.*head_dropout_type='standard'"),
        (dict(bias=False), "`bias` is not an argument of keras_labelemb.models.drill_lm"),
        (dict(head_options={"activation": "tanh"}), r"keyword arguments.*head_activation=.*head_options=\{"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hypermodel(**kwargs)
    with pytest.raises(ValueError, match="vocabulary_size=0"):
        DrillLanguageModelHyperModel(0)


def test_the_builder_argument_lists_follow_drill_lm():
    signature = inspect.signature(drill_lm).parameters.values()
    parameters = {p.name for p in signature if p.kind != inspect.Parameter.VAR_KEYWORD}  # not **head_options
    searched = set(drill_language_model_hypermodel._SEARCHED)
    assert searched <= parameters
    assert parameters - searched == drill_language_model_hypermodel._BUILDER_ARGS
    # The head options: those searched and those fixed are all of drill_lm's.
    head_searched = set(drill_language_model_hypermodel._HEAD_SEARCHED)
    assert head_searched | drill_language_model_hypermodel._HEAD_FIXED == set(HEAD_OPTIONS)
    assert not head_searched & drill_language_model_hypermodel._HEAD_FIXED
