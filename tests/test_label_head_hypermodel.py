"""LabelHeadHyperModel: hp values reach the built heads, conditional space, a tiny search, argument checks."""

import keras
import keras_tuner
import numpy as np
import pytest

from keras_labelemb.evaluation import choose_threshold, sigmoid
from keras_labelemb.metrics import MicroF1
from keras_labelemb.training import BestValidationF1
from keras_labelemb.tuning import LabelHeadHyperModel

# keras-tuner's get_best_models rebuilds a model without optimizer state and loads the checkpoint into it.
pytestmark = pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")

VOCAB, TOKENS, DIM = 30, 8, 8
LABELS = np.array([[2, 3, 0], [4, 5, 6], [7, 0, 0], [8, 9, 0]], "int32")
FLAT = dict(flat=True, max_tokens=TOKENS, embedding={"dim": DIM}, encoder={"units": DIM})


def hypermodel(**kwargs):
    kwargs = {**FLAT, "joint_dims": (4, 12), "depths": (1, 3), "jit_compile": False, **kwargs}
    return LabelHeadHyperModel(VOCAB, LABELS, **kwargs)


def fixed(**values):
    hp = keras_tuner.HyperParameters()
    for name, value in values.items():
        hp.Fixed(name, value)
    return hp


def data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, VOCAB, (n, TOKENS)).astype("int32")
    x[:, -2:] = 0  # some padding
    y = (rng.random((n, len(LABELS))) < 0.3).astype("float32")
    return x, y


@pytest.mark.parametrize("joint_dim", [4, 12])
def test_gile_trial_builds_the_chosen_joint_dim(joint_dim):
    hp = fixed(head="gile", joint_dim=joint_dim, dropout=0.3, learning_rate=0.005)
    model = hypermodel().build(hp)
    head = model.get_layer("gile_head")
    assert head.variant == "gile"
    assert head.joint_dim == joint_dim
    assert tuple(head.label_kernel.shape) == (DIM, joint_dim)  # U: (d, d_j)
    assert "drill_head" not in [layer.name for layer in model.layers]
    assert model.get_layer("document_encoder").dropout == pytest.approx(0.3)
    assert float(model.optimizer.learning_rate) == pytest.approx(0.005)
    assert isinstance(model.loss, keras.losses.BinaryCrossentropy) and model.loss.from_logits


@pytest.mark.parametrize("depth", [1, 3])
def test_drill_trial_builds_the_chosen_depth(depth):
    model = hypermodel().build(fixed(head="drill", depth=depth))
    head = model.get_layer("drill_head")
    assert head.depth == depth
    kernels = sorted(v.name for v in head.weights if v.name.startswith("label_kernel_"))
    assert kernels == [f"label_kernel_{i}" for i in range(1, depth + 1)]
    assert "gile_head" not in [layer.name for layer in model.layers]


def test_conditional_hyperparameters_are_active_only_for_their_head():
    model = hypermodel()
    gile = fixed(head="gile")
    model.build(gile)
    assert gile.is_active("joint_dim") and not gile.is_active("depth")
    assert sorted(gile.values) == ["dropout", "head", "joint_dim", "learning_rate"]

    drill = fixed(head="drill")
    model.build(drill)
    assert drill.is_active("depth") and not drill.is_active("joint_dim")
    assert sorted(drill.values) == ["depth", "dropout", "head", "learning_rate"]
    # Both are in the search space, each conditioned on its head.
    conditions = {hp.name: [(c.name, c.values) for c in hp.conditions] for hp in drill.space}
    assert conditions["joint_dim"] == [("head", ["gile"])]
    assert conditions["depth"] == [("head", ["drill"])]
    assert conditions["head"] == [] and conditions["learning_rate"] == []


def test_heads_that_read_tokens_are_searched_beside_gile():
    """Every head of the registry can be a trial's head; only GILE has a searched option among these."""
    model = hypermodel(
        heads=("gile", "lexical", "hybrid"),
        head_options={"hybrid": {"components": ["lexical", "interaction"], "standardize": True}},
    )
    x, y = data(8, 0)
    for head, layer_name in (("lexical", "lexical_match_head"), ("hybrid", "hybrid_head")):
        hp = fixed(head=head)
        built = model.build(hp)
        assert sorted(hp.values) == ["dropout", "head", "learning_rate"]  # joint_dim is GILE's: inactive
        assert built.layers[-1].name == layer_name and built.predict(x, verbose=0).shape == y.shape
    assert model.build(fixed(head="hybrid")).layers[-1].standardize
    with pytest.raises(ValueError, match="components"):
        hypermodel(heads=("gile", "hybrid"))  # a hybrid needs its components


def test_default_search_space_samples_what_it_promises():
    model = LabelHeadHyperModel(VOCAB, LABELS, **FLAT)
    hp = keras_tuner.HyperParameters()
    model.declare_hyperparameters(hp)
    space = {p.name: p for p in hp.space}
    # The learning rate is drawn log-uniformly over [1e-4, 1e-2]: half the draws fall below 1e-3.
    draws = np.array([space["learning_rate"].random_sample(seed) for seed in range(2000)])
    assert draws.min() >= 1e-4 and draws.max() <= 1e-2
    assert abs(np.mean(draws < 1e-3) - 0.5) < 0.05
    dropout = np.array([space["dropout"].random_sample(seed) for seed in range(500)])
    assert dropout.min() >= 0.0 and dropout.max() <= 0.5 and abs(dropout.mean() - 0.25) < 0.03
    # Both heads can be drawn, and a model built from the defaults compiles with "auto" XLA resolved.
    assert {space["head"].random_sample(seed) for seed in range(50)} == {"gile", "drill"}
    built = model.build(keras_tuner.HyperParameters())
    import tensorflow as tf

    assert built.jit_compile is bool(tf.config.list_physical_devices("GPU"))  # XLA only on a GPU


def test_single_values_fix_hyperparameters():
    model = hypermodel(heads="drill", depths=2, dropout=0.1, learning_rate=3e-3)
    hp = keras_tuner.HyperParameters()
    built = model.build(hp)
    space = {p.name: p for p in hp.space}
    assert "joint_dim" not in space  # the GILE head is not searched: its parameter is never registered
    assert all(isinstance(p, keras_tuner.engine.hyperparameters.Fixed) for p in space.values())
    assert hp.values == {"head": "drill", "depth": 2, "dropout": 0.1, "learning_rate": 3e-3}
    assert built.get_layer("drill_head").depth == 2
    assert float(built.optimizer.learning_rate) == pytest.approx(3e-3)


def test_hierarchical_inputs_and_builder_kwargs_pass_through():
    model = LabelHeadHyperModel(
        VOCAB,
        LABELS,
        heads="gile",
        joint_dims=6,
        max_sentences=3,
        max_sentence_length=5,
        embedding={"dim": DIM},
        encoder={"units": 5},
        head_options={"gile": {"activation": "sigmoid"}},
        name="han_heads",
        jit_compile=False,
    ).build(keras_tuner.HyperParameters())
    assert tuple(model.input.shape) == (None, 3, 5)
    assert model.get_layer("gile_head").joint_dim == 6
    assert model.get_layer("gile_head").activation is keras.activations.sigmoid
    assert model.get_layer("word_embedding").output_dim == DIM
    assert tuple(model(np.ones((2, 3, 5), "int32")).shape) == (2, len(LABELS))


@pytest.mark.slow  # ~7 s on 2 cores: two search trials
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_tiny_random_search_on_micro_f1(tmp_path):
    x, y = data(32, seed=0)
    x_val, y_val = data(16, seed=1)
    model = hypermodel(metrics=[MicroF1(from_logits=True)])
    tuner = keras_tuner.RandomSearch(
        model,
        objective=keras_tuner.Objective("val_micro_f1", direction="max"),
        max_trials=2,
        seed=1,
        directory=str(tmp_path),
        project_name="tiny",
    )
    tuner.search(x, y, validation_data=(x_val, y_val), epochs=1, batch_size=16, verbose=0)

    trials = list(tuner.oracle.trials.values())
    assert len(trials) == 2 and all(t.status == "COMPLETED" for t in trials)
    assert {t.hyperparameters["head"] for t in trials} == {"gile", "drill"}  # seed 1 draws one of each
    for trial in trials:
        values = trial.hyperparameters.values
        inactive = "depth" if values["head"] == "gile" else "joint_dim"
        active = "joint_dim" if values["head"] == "gile" else "depth"
        assert active in values and inactive not in values

    best_hp = tuner.get_best_hyperparameters()[0]
    best = tuner.get_best_models()[0]
    # The objective is the validation micro-F1 of the saved best model (one epoch: its only checkpoint).
    reference = MicroF1(from_logits=True)
    reference.update_state(y_val, best.predict(x_val, verbose=0))
    assert float(reference.result()) == pytest.approx(tuner.oracle.get_best_trials(1)[0].score, abs=1e-5)
    head = best.get_layer(f"{best_hp['head']}_head")
    if best_hp["head"] == "gile":
        assert head.joint_dim == best_hp["joint_dim"]
    else:
        assert head.depth == best_hp["depth"]
    scores = best.predict(x_val, verbose=0)
    assert scores.shape == (16, len(LABELS))
    assert np.isfinite(scores).all()


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_search_minimizes_validation_loss_by_default_objective(tmp_path):
    x, y = data(32, seed=2)
    tuner = keras_tuner.RandomSearch(
        hypermodel(heads="gile"),
        objective="val_loss",
        max_trials=2,
        seed=0,
        directory=str(tmp_path),
        project_name="loss",
    )
    tuner.search(x, y, validation_split=0.25, epochs=1, verbose=0)
    trials = sorted(tuner.oracle.trials.values(), key=lambda t: t.score)
    assert [t.trial_id for t in tuner.oracle.get_best_trials(2)] == [t.trial_id for t in trials]
    # The objective is the compiled loss (BCE from logits) on the held-out quarter, for the saved best model.
    x_val, y_val = x[24:], y[24:]
    logits = tuner.get_best_models()[0].predict(x_val, verbose=0)
    expected = float(keras.losses.BinaryCrossentropy(from_logits=True)(y_val, logits))
    assert trials[0].score == pytest.approx(expected, rel=1e-4)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_best_validation_f1_callback_as_objective(tmp_path):
    """The documented alternative: micro-F1 at the best validation threshold, logged by a callback."""
    x, y = data(32, seed=4)
    x_val, y_val = data(24, seed=5)
    tuner = keras_tuner.RandomSearch(
        hypermodel(heads="drill"),
        objective=keras_tuner.Objective("val_micro_f1", "max"),
        max_trials=1,
        seed=0,
        directory=str(tmp_path),
        project_name="callback",
    )
    tuner.search(x, y, epochs=2, batch_size=16, verbose=0, callbacks=[BestValidationF1(x_val, y_val)])
    trial = tuner.oracle.get_best_trials()[0]
    best = tuner.get_best_models()[0]  # weights of the trial's best epoch
    _, f1 = choose_threshold(y_val, sigmoid(best.predict(x_val, verbose=0)))
    assert trial.score == pytest.approx(f1, abs=1e-6)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(heads="linear"), "heads='linear'"),
        (dict(heads=()), r"heads=\(\)"),
        (dict(heads=("gile", "gile")), "must not repeat"),
        (dict(joint_dims=[]), r"joint_dims=\[\]"),
        (dict(joint_dims=(0, 10)), r"joint_dims=\(0, 10\)"),
        (dict(joint_dims=(10.5,)), "joint_dims"),
        (dict(depths=(-1, 2)), r"depths=\(-1, 2\)"),
        (dict(depths=True), "depths=True"),
        (dict(dropout=1.0), "dropout=1.0"),
        (dict(dropout=(0.5, 0.1)), r"dropout=\(0.5, 0.1\)"),
        (dict(learning_rate=0), "learning_rate=0"),
        (dict(learning_rate=(1e-2, 1e-4)), r"learning_rate=\(0.01, 0.0001\)"),
        (dict(learning_rate=(1e-4, 1e-3, 1e-2)), "learning_rate"),
        (dict(jit_compile="yes"), "jit_compile='yes'"),
        (dict(metrics=[MicroF1()]), "from_logits=False"),
        (dict(metrics="micro_f1"), "metrics='micro_f1'"),
        (dict(joint_dim=100), "pass `joint_dims=`.*joint_dim=100"),
        (dict(head="drill"), "pass `heads=`.*head='drill'"),
        (dict(num_labels=4), "num_labels=4"),
        (dict(activation="relu"), "activation='relu'"),  # a head's option: goes in head_options
        (dict(head_options={"gile": {"depth": 2}}), r"\['depth'\] belong to another head"),
        (dict(head_options={"gile": {"joint_dim": 8}}), "cannot fix 'joint_dim'"),
        (dict(head_options={"linear": {}}), "head_options"),
        (dict(heads=("gile", "linear")), "heads"),
        (dict(encoder_unit=8), "encoder_unit=8"),
        (dict(max_tokens=None), "max_tokens=None"),
        (dict(flat=False, max_tokens=None), "max_sentences=None"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hypermodel(**kwargs)


def test_bad_vocabulary_and_label_ids():
    with pytest.raises(ValueError, match="vocabulary_size=0"):
        LabelHeadHyperModel(0, LABELS, **FLAT)
    with pytest.raises(ValueError, match=r"outside \[0, 5\)"):
        LabelHeadHyperModel(5, LABELS, **FLAT)
    with pytest.raises(ValueError, match="label_ids"):
        LabelHeadHyperModel(VOCAB, np.zeros((0, 3), "int32"), **FLAT)


def test_every_fixed_builder_argument_is_accepted():
    """The hypermodel's list of document_classifier arguments follows the builder's signature."""
    import inspect

    from keras_labelemb.models import document_classifier
    from keras_labelemb.tuning import label_head_hypermodel

    named = inspect.signature(document_classifier).parameters.items()
    parameters = {name for name, p in named if p.kind != p.VAR_KEYWORD}  # **renamed: old names, refused
    searched_or_given = set(label_head_hypermodel._SEARCHED) | {"vocabulary_size", "label_ids", "num_labels", "head"}
    assert parameters - searched_or_given <= label_head_hypermodel._BUILDER_ARGS
    assert label_head_hypermodel._BUILDER_ARGS <= parameters


def test_the_searched_dropout_goes_into_the_encoder_spec_and_a_fixed_one_beside_it_is_refused():
    model = hypermodel(encoder={"type": "gru", "units": DIM}).build(fixed(head="gile", dropout=0.3))
    encoder = model.get_layer("document_encoder")
    assert (encoder.word_encoder, encoder.word_units, encoder.dropout) == ("gru", DIM, 0.3)
    with pytest.raises(ValueError, match=r"`dropout` is set by the hypermodel.*'dropout': 0.1"):
        hypermodel(encoder={"units": DIM, "dropout": 0.1})


def test_a_max_pool_encoder_keeps_its_own_dropouts_and_registers_no_dropout():
    spec = {"type": "max_pool", "units": 4, "word_dropout": 0.1}
    hp = keras_tuner.HyperParameters()
    model = hypermodel(encoder=spec).build(hp)
    assert "dropout" not in hp.values
    assert model.get_layer("document_encoder").word_dropout == 0.1
