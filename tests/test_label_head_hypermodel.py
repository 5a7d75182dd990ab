"""LabelHeadHyperModel: trials are LabelClassifiers with the chosen head, a conditional space, the subclass hooks,
a tiny search whose best model is a task, argument checks."""

import keras
import keras_tuner
import numpy as np
import pytest

from keras_labelemb.evaluation import choose_threshold
from keras_labelemb.layers import (
    DrillHead,
    GileHead,
    HierarchicalAttention,
    HybridHead,
    LexicalMatchHead,
    MaxPoolEncoder,
    WordInteractionHead,
)
from keras_labelemb.metrics import MicroF1
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training import BestValidationF1
from keras_labelemb.tuning import LabelHeadHyperModel
from keras_labelemb.tuning.label_head_hypermodel import HEADS

# keras-tuner's get_best_models rebuilds a model without optimizer state and loads the checkpoint into it.
pytestmark = pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")

VOCAB, TOKENS, DIM = 30, 8, 8
LABELS = np.array([[2, 3, 0], [4, 5, 6], [7, 0, 0], [8, 9, 0]], "int32")
NAMES = ["grain", "trade", "money", "crude"]
FLAT = dict(flat=True, max_tokens=TOKENS, embedding_dim=DIM, units=DIM)


def hypermodel(cls=LabelHeadHyperModel, **kwargs):
    kwargs = {**FLAT, "joint_dims": (4, 12), "depths": (1, 3), "jit_compile": False, **kwargs}
    return cls(VOCAB, LABELS, **kwargs)


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


def attention(model):
    return [layer for layer in model.encoder.layers if isinstance(layer, HierarchicalAttention)][0]


@pytest.mark.parametrize("joint_dim", [4, 12])
def test_gile_trial_builds_a_label_classifier_with_the_chosen_joint_dim(joint_dim):
    hp = fixed(head="gile", joint_dim=joint_dim, dropout=0.3, learning_rate=0.005)
    model = hypermodel(label_names=NAMES).build(hp)
    assert isinstance(model, LabelClassifier) and model.preprocessor is None and model.multi_label
    assert model.label_names == NAMES
    head = model.head
    assert isinstance(head, GileHead) and head.variant == "gile" and head.joint_dim == joint_dim
    assert tuple(head.label_kernel.shape) == (DIM, joint_dim)  # U: (d, d_j)
    assert head.embedding is model.encoder.get_layer("word_embedding")  # one table for words and labels
    np.testing.assert_allclose(keras.ops.convert_to_numpy(head.bias), -np.log(len(LABELS)))  # the prior
    assert attention(model).dropout == pytest.approx(0.3)
    assert float(model.optimizer.learning_rate) == pytest.approx(0.005)
    assert isinstance(model.loss, keras.losses.BinaryCrossentropy) and model.loss.from_logits
    assert model.optimizer.built  # built before the first fit: one trace of the training step


@pytest.mark.parametrize("depth", [1, 3])
def test_drill_trial_builds_the_chosen_depth(depth):
    model = hypermodel().build(fixed(head="drill", depth=depth))
    head = model.head
    assert isinstance(head, DrillHead) and head.depth == depth
    kernels = sorted(v.name for v in head.weights if v.name.startswith("label_kernel_"))
    assert kernels == [f"label_kernel_{i}" for i in range(1, depth + 1)]
    assert head.activation is keras.activations.tanh and not head.input_projection  # widths equal: g_in = I
    assert model.label_names == [f"label_{i}" for i in range(len(LABELS))]
    wider = hypermodel(units=2 * DIM).build(fixed(head="drill", depth=depth)).head
    assert wider.input_projection  # the document vectors are wider than the word vectors


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
    """Every head of the registry over the word table can be a trial's head; the task gives token readers ids."""
    model = hypermodel(heads=("gile", "lexical", "interaction"))
    x, y = data(8, 0)
    for head, cls in (("lexical", LexicalMatchHead), ("interaction", WordInteractionHead)):
        hp = fixed(head=head)
        built = model.build(hp)
        assert sorted(hp.values) == ["dropout", "head", "learning_rate"]  # joint_dim is GILE's: inactive
        assert isinstance(built.head, cls) and built.head.reads_tokens
        scores = built.predict(x)
        assert scores.shape == y.shape and ((scores >= 0) & (scores <= 1)).all()
    assert "sentence" not in HEADS and "linear" not in HEADS and {"gile", "drill", "lexical"} <= set(HEADS)


class ReluGileAndHybrid(LabelHeadHyperModel):
    """GILE with a fixed option of its own, and a hybrid of GILE and lexical matching: `build_head` overridden."""

    def build_head(self, hp, name, embedding, label_ids, document_width):
        if name == "gile":
            return GileHead(
                embedding, label_ids, joint_dim=hp["joint_dim"], activation="relu", bias_initializer=self.output_bias()
            )
        if name == "hybrid":
            parts = [GileHead(embedding, joint_dim=4, name="gile"), LexicalMatchHead(embedding, name="lexical")]
            return HybridHead(parts, label_ids=label_ids, standardize=True, bias_initializer=self.output_bias())
        return super().build_head(hp, name, embedding, label_ids, document_width)


def test_a_subclass_fixes_head_options_and_builds_a_hybrid_by_overriding_build_head():
    model = hypermodel(ReluGileAndHybrid, heads=("gile", "drill", "hybrid"))
    gile = model.build(fixed(head="gile", joint_dim=12)).head
    assert gile.activation is keras.activations.relu and gile.joint_dim == 12
    assert model.build(fixed(head="drill", depth=3)).head.depth == 3  # the others through super()
    hybrid = model.build(fixed(head="hybrid"))
    assert isinstance(hybrid.head, HybridHead) and hybrid.head.standardize
    assert hybrid.predict(data(4, 0)[0]).shape == (4, len(LABELS))
    with pytest.raises(ValueError, match=r"made of other heads: subclass.*override `build_head`.*heads="):
        hypermodel(heads=("gile", "hybrid"))  # the base class cannot guess a hybrid's components


def test_a_subclass_replaces_the_encoder_by_overriding_build_encoder():
    class MaxPooled(LabelHeadHyperModel):
        def build_encoder(self, hp, embedding):
            return keras.Sequential([keras.Input((TOKENS,), dtype="int32"), embedding, MaxPoolEncoder(units=3)])

    model = hypermodel(MaxPooled, heads="drill", depths=1).build(keras_tuner.HyperParameters())
    assert isinstance(model.encoder.layers[-1], MaxPoolEncoder)
    assert model.head.input_projection  # 2 x 3 BiLSTM units against 8-d word vectors
    assert model.predict(data(4, 1)[0]).shape == (4, len(LABELS))


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
    assert set(space["joint_dim"].values) == {100, 250, 500, 1000} and set(space["depth"].values) == {1, 2, 3, 4}
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
    assert built.head.depth == 2
    assert float(built.optimizer.learning_rate) == pytest.approx(3e-3)


def test_hierarchical_inputs_and_the_fixed_arguments_reach_the_layers():
    model = LabelHeadHyperModel(
        VOCAB,
        LABELS,
        heads="gile",
        joint_dims=6,
        max_sentences=3,
        max_sentence_length=5,
        embedding_dim=DIM,
        encoder="bigru",
        units=5,
        attention_units=4,
        name="han_heads",
        jit_compile=False,
    ).build(keras_tuner.HyperParameters())
    assert tuple(model.encoder.input_shape) == (None, 3, 5)
    layer = attention(model)
    assert layer.word_encoder == layer.sentence_encoder == "bigru" and not layer.flat
    assert layer.word_units == layer.sentence_units == 5 and layer.attention_units == 4
    assert model.head.joint_dim == 6
    assert model.encoder.get_layer("word_embedding").output_dim == DIM
    assert tuple(model(np.ones((2, 3, 5), "int32")).shape) == (2, len(LABELS))  # logits


def test_pretrained_word_vectors_and_what_fine_tunes_them():
    vectors = np.random.default_rng(0).normal(size=(VOCAB, 6)).astype("float32")
    kwargs = dict(FLAT, embedding_dim=None, word_vectors=vectors, heads="gile", joint_dims=4)
    model = hypermodel(**kwargs).build(keras_tuner.HyperParameters())
    table = model.encoder.get_layer("word_embedding")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(table.embeddings), vectors)
    assert table.trainable and model.head.embedding is table
    frozen = hypermodel(**kwargs, fine_tune="documents").build(keras_tuner.HyperParameters())
    assert frozen.encoder.get_layer("word_embedding").trainable
    assert frozen.head.embedding.name == "label_word_embedding" and not frozen.head.embedding.trainable
    fixed_table = hypermodel(**kwargs, fine_tune="none").build(keras_tuner.HyperParameters())
    assert not fixed_table.encoder.get_layer("word_embedding").trainable


@pytest.mark.slow  # ~7 s on 2 cores: two search trials
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_tiny_random_search_on_micro_f1_gives_label_classifiers(tmp_path):
    x, y = data(32, seed=0)
    x_val, y_val = data(16, seed=1)
    model = hypermodel(label_names=NAMES, metrics=[MicroF1(from_logits=True)])
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
    assert isinstance(best, LabelClassifier) and best.label_names == NAMES
    # The objective is the validation micro-F1 of the saved best model (one epoch: its only checkpoint).
    scores = best.predict(x_val)  # probabilities: F1 at 0.5, as MicroF1 on logits at 0
    assert scores.shape == (16, len(LABELS)) and np.isfinite(scores).all()
    reference = MicroF1()
    reference.update_state(y_val, scores)
    assert float(reference.result()) == pytest.approx(tuner.oracle.get_best_trials(1)[0].score, abs=1e-5)
    if best_hp["head"] == "gile":
        assert isinstance(best.head, GileHead) and best.head.joint_dim == best_hp["joint_dim"]
    else:
        assert isinstance(best.head, DrillHead) and best.head.depth == best_hp["depth"]
    best.tune_thresholds(x_val, y_val)  # a rebuilt model has the weights, not the thresholds
    predicted = best.predict_labels(x_val[:3])  # ids in, label names out
    assert len(predicted) == 3 and all(row and set(row) <= set(NAMES) for row in predicted)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_search_minimizes_validation_loss_by_default_objective(tmp_path):
    x, y = data(32, seed=2)
    x_train, y_train, x_val, y_val = x[:24], y[:24], x[24:], y[24:]
    tuner = keras_tuner.RandomSearch(
        hypermodel(heads="gile"),
        objective="val_loss",
        max_trials=2,
        seed=0,
        directory=str(tmp_path),
        project_name="loss",
    )
    tuner.search(x_train, y_train, validation_data=(x_val, y_val), epochs=1, verbose=0)
    trials = sorted(tuner.oracle.trials.values(), key=lambda t: t.score)
    assert [t.trial_id for t in tuner.oracle.get_best_trials(2)] == [t.trial_id for t in trials]
    # The objective is the compiled loss (BCE from logits) on the validation documents, for the saved best model.
    scores = tuner.get_best_models()[0].predict(x_val)
    expected = float(keras.losses.BinaryCrossentropy()(y_val, scores))
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
    callback = BestValidationF1(x_val, y_val, from_logits=False)  # the task's predict gives probabilities
    tuner.search(x, y, epochs=2, batch_size=16, verbose=0, callbacks=[callback])
    trial = tuner.oracle.get_best_trials()[0]
    best = tuner.get_best_models()[0]  # weights of the trial's best epoch
    _, f1 = choose_threshold(y_val, best.predict(x_val))
    assert trial.score == pytest.approx(f1, abs=1e-6)


VECTORS = np.zeros((VOCAB, DIM), "float32")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(heads="linear"), "heads='linear'"),
        (dict(heads="sentence"), "heads='sentence'"),
        (dict(heads=()), r"heads=\(\)"),
        (dict(heads=("gile", "gile")), "must not repeat"),
        (dict(heads=("gile", "hybrid")), "made of other heads.*override `build_head`"),
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
        (dict(num_labels=4), "`num_labels` is for a linear head.*num_labels=4"),
        (dict(activation="relu"), "overrides `build_head`.*activation='relu'"),  # a head's option: by a subclass
        (dict(head_options={"gile": {"activation": "relu"}}), "overrides `build_head`.*head_options="),
        (dict(embedding={"dim": 8}), r"pass `embedding_dim=`.*embedding=\{'dim': 8\}"),
        (dict(encoder_unit=8), "`encoder_unit` is not an argument of LabelHeadHyperModel.*encoder_unit=8"),
        (dict(encoder="max_pool"), "encoder='max_pool'"),  # MaxPoolEncoder: by a subclass (build_encoder)
        (dict(encoder={"type": "gru", "units": 8}), r"encoder=\{'type': 'gru'"),
        (dict(units=0), "units=0"),
        (dict(attention_units=2.5), "attention_units=2.5"),
        (dict(flat="yes"), "flat='yes'"),
        (dict(max_tokens=None), "max_tokens=None"),
        (dict(max_sentences=3), "max_sentences=3"),  # a HAN's size beside flat=True
        (dict(flat=False, max_tokens=None), "max_sentences=None"),
        (dict(flat=False, max_sentences=3, max_sentence_length=4), "max_tokens=8"),
        (dict(embedding_dim=0), "embedding_dim=0"),
        (dict(fine_tune="labels"), "fine_tune='labels'"),
        (dict(fine_tune="documents"), "pass `word_vectors`.*word_vectors=None"),
        (dict(word_vectors=np.zeros((5, DIM))), r"word_vectors with shape \(5, 8\)"),
        (dict(word_vectors=VECTORS + np.nan), "word_vectors.*finite"),
        (dict(word_vectors=VECTORS, embedding_dim=6), "embedding_dim=6"),
        (dict(label_names=["a", "b"]), r"4 distinct.*label_names=\['a', 'b'\]"),
        (dict(label_names=["a", "a", "b", "c"]), "label_names="),
        (dict(label_names="abcd"), "label_names='abcd'"),
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
