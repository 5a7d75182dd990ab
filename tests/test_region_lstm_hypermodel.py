"""RegionLSTMHyperModel: trials are LabelClassifiers whose RegionLSTM has the hp values, conditional chop overlap,
the head hook, a tiny search whose best model is a task, argument checks."""

import keras
import keras_tuner
import numpy as np
import pytest

from keras_labelemb.layers import CosineHead, LinearHead
from keras_labelemb.metrics import MicroF1
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.tuning import RegionLSTMHyperModel

# keras-tuner's get_best_models rebuilds a model without optimizer state and loads the checkpoint into it.
pytestmark = pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")

VOCAB, TOKENS, LABELS = 30, 12, 3


def hypermodel(cls=RegionLSTMHyperModel, **kwargs):
    kwargs = {
        "max_tokens": TOKENS,
        "units": (4, 6),
        "chop_sizes": (0, 4),
        "chop_overlaps": (0, 2),
        "num_regions": (1, 3),
        "jit_compile": False,
        **kwargs,
    }
    return cls(VOCAB, LABELS, **kwargs)


def fixed(**values):
    hp = keras_tuner.HyperParameters()
    for name, value in values.items():
        hp.Fixed(name, value)
    return hp


def data(n, seed, multi_label=False):
    rng = np.random.default_rng(seed)
    x = rng.integers(2, VOCAB, (n, TOKENS)).astype("int32")
    x[:, -3:] = 0  # some padding
    if multi_label:
        return x, (rng.random((n, LABELS)) < 0.4).astype("float32")
    return x, np.eye(LABELS, dtype="float32")[rng.integers(0, LABELS, n)]


@pytest.mark.parametrize(
    "values",
    [
        dict(units=6, chop_size=4, chop_overlap=2, num_regions=3, pooling="average", gates="full"),
        dict(units=4, chop_size=0, num_regions=1, pooling="max", gates="no_io"),
    ],
)
def test_trial_values_reach_the_region_lstm(values):
    hp = fixed(**values, dropout=0.25, learning_rate=0.004)
    model = hypermodel().build(hp)
    assert isinstance(model, LabelClassifier) and model.preprocessor is None and not model.multi_label
    assert model.name == "oh_2lstmp" and model.label_names == ["label_0", "label_1", "label_2"]
    region = model.encoder.get_layer("region_lstm")
    assert region.units == values["units"]
    assert region.chop_size == (values["chop_size"] or None)  # 0: no chopping
    assert region.chop_overlap == values.get("chop_overlap", 0)
    assert region.num_regions == values["num_regions"]
    assert region.pooling == values["pooling"]
    assert region.gates == values["gates"]
    assert region.num_gates == (4 if values["gates"] == "full" else 2)
    # k regions x 2 directions x units per direction.
    assert tuple(region.output.shape) == (None, values["num_regions"] * 2 * values["units"])
    assert model.encoder.get_layer("dropout").rate == pytest.approx(0.25)
    assert isinstance(model.head, LinearHead) and model.head.num_labels == LABELS
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model.head.bias), -np.log(LABELS))
    assert float(model.optimizer.learning_rate) == pytest.approx(0.004)
    assert isinstance(model.loss, keras.losses.CategoricalCrossentropy) and model.loss.from_logits
    assert model.optimizer.built  # built before the first fit: one trace of the training step
    assert tuple(model(np.ones((2, TOKENS), "int32")).shape) == (2, LABELS)  # logits
    scores = model.predict(np.ones((2, TOKENS), "int32"))  # softmax: one label per document
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, rtol=1e-5)


def test_chop_overlap_is_active_only_when_chopping():
    model = hypermodel()
    unchopped = fixed(chop_size=0)
    model.build(unchopped)
    assert not unchopped.is_active("chop_overlap")
    assert sorted(unchopped.values) == [
        "chop_size",
        "dropout",
        "gates",
        "learning_rate",
        "num_regions",
        "pooling",
        "units",
    ]
    chopped = fixed(chop_size=4)
    model.build(chopped)
    assert chopped.is_active("chop_overlap") and "chop_overlap" in chopped.values
    conditions = {hp.name: [(c.name, c.values) for c in hp.conditions] for hp in chopped.space}
    assert conditions["chop_overlap"] == [("chop_size", [4])]
    assert all(not c for name, c in conditions.items() if name != "chop_overlap")


def test_chop_overlap_is_unconditional_without_a_no_chop_choice_and_absent_without_chopping():
    hp = keras_tuner.HyperParameters()
    hypermodel(chop_sizes=(4, 6)).build(hp)
    assert [p.conditions for p in hp.space if p.name == "chop_overlap"] == [[]]
    hp = keras_tuner.HyperParameters()
    model = hypermodel(chop_sizes=0, chop_overlaps=0).build(hp)
    assert "chop_overlap" not in {p.name for p in hp.space}
    assert model.encoder.get_layer("region_lstm").chop_size is None


def test_default_search_space_and_single_values_fix_hyperparameters():
    hp = keras_tuner.HyperParameters()
    RegionLSTMHyperModel(VOCAB, LABELS).declare_hyperparameters(hp)
    space = {p.name: p for p in hp.space}
    assert set(space["units"].values) == {100, 150, 300}
    assert set(space["chop_size"].values) == {25, 50, 100}
    assert set(space["pooling"].values) == {"max", "average"} and set(space["gates"].values) == {"no_io", "full"}
    draws = np.array([space["learning_rate"].random_sample(seed) for seed in range(1000)])
    assert draws.min() >= 1e-3 and draws.max() <= 1e-2 and abs(np.mean(draws < 10**-2.5) - 0.5) < 0.06

    hp = keras_tuner.HyperParameters()
    built = hypermodel(
        units=5,
        chop_sizes=3,
        chop_overlaps=1,
        num_regions=2,
        poolings="max",
        gates="full",
        dropout=0.1,
        learning_rate=2e-3,
    ).build(hp)
    assert all(isinstance(p, keras_tuner.engine.hyperparameters.Fixed) for p in hp.space)
    assert hp.values == {
        "units": 5,
        "chop_size": 3,
        "chop_overlap": 1,
        "num_regions": 2,
        "pooling": "max",
        "gates": "full",
        "dropout": 0.1,
        "learning_rate": 2e-3,
    }
    assert built.encoder.get_layer("region_lstm").chop_overlap == 1


def test_multi_label_compiles_binary_cross_entropy_and_the_fixed_arguments_reach_the_layers():
    names = ["atheism", "graphics", "hockey"]
    model = hypermodel(multi_label=True, direction="forward", label_names=names, name="hm").build(
        fixed(units=4, chop_size=4)
    )
    assert model.multi_label and model.label_names == names
    assert isinstance(model.loss, keras.losses.BinaryCrossentropy) and model.loss.from_logits
    assert [m.name for m in model.metrics if m.name not in ("loss", "dropped_positives")] in ([], ["compile_metrics"])
    assert model.encoder.get_layer("region_lstm").direction == "forward"
    assert model.name == "oh_lstmp"  # one direction
    assert tuple(model.encoder.input_shape) == (None, TOKENS)
    single = hypermodel().build(fixed(units=4))
    single.evaluate(*data(4, 0), verbose=0)
    assert "accuracy" in single.get_metrics_result()
    any_length = hypermodel(max_tokens=None).build(fixed(units=4, chop_size=4))
    assert any_length.predict(np.ones((2, 7), "int32")).shape == (2, LABELS)


def test_a_subclass_replaces_the_linear_head_by_overriding_build_head():
    class Cosine(RegionLSTMHyperModel):
        def build_head(self, hp, document_width):
            return CosineHead(keras.layers.Embedding(VOCAB, 5, mask_zero=True), label_ids=np.array([[2], [3], [4]]))

    model = hypermodel(Cosine).build(fixed(units=4, chop_size=0, num_regions=3))
    assert isinstance(model.head, CosineHead) and tuple(model.head.kernel.shape) == (2 * 4 * 3, 5)  # k x 2 x units
    assert model.predict(data(2, 0)[0]).shape == (2, LABELS)


@pytest.mark.slow  # ~5 s on one core: two trials
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_tiny_random_search_on_validation_accuracy(tmp_path):
    x, y = data(24, seed=0)
    x_val, y_val = data(12, seed=1)
    tuner = keras_tuner.RandomSearch(
        hypermodel(),
        objective=keras_tuner.Objective("val_accuracy", "max"),
        max_trials=2,
        seed=3,
        directory=str(tmp_path),
        project_name="tiny",
    )
    tuner.search(x, y, validation_data=(x_val, y_val), epochs=1, batch_size=12, verbose=0)
    trials = list(tuner.oracle.trials.values())
    assert len(trials) == 2 and all(t.status == "COMPLETED" for t in trials)
    for trial in trials:
        values = trial.hyperparameters.values
        assert ("chop_overlap" in values) == (values["chop_size"] > 0)

    best_hp = tuner.get_best_hyperparameters()[0]
    best = tuner.get_best_models()[0]
    assert isinstance(best, LabelClassifier)
    region = best.encoder.get_layer("region_lstm")
    assert region.units == best_hp["units"] and region.num_regions == best_hp["num_regions"]
    scores = best.predict(x_val)
    assert scores.shape == (12, LABELS) and np.isfinite(scores).all()
    accuracy = float(np.mean(scores.argmax(-1) == y_val.argmax(-1)))
    assert accuracy == pytest.approx(tuner.oracle.get_best_trials(1)[0].score, abs=1e-6)
    names = best.predict_labels(x_val)  # ids in, one label name per document out
    assert names == [f"label_{i}" for i in scores.argmax(-1)]


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_multi_label_search_on_micro_f1(tmp_path):
    x, y = data(16, seed=2, multi_label=True)
    tuner = keras_tuner.RandomSearch(
        hypermodel(multi_label=True, metrics=[MicroF1(from_logits=True)], units=4, chop_sizes=4, num_regions=2),
        objective=keras_tuner.Objective("val_micro_f1", "max"),
        max_trials=1,
        seed=0,
        directory=str(tmp_path),
        project_name="multi",
    )
    tuner.search(x[:12], y[:12], validation_data=(x[12:], y[12:]), epochs=1, verbose=0)
    best = tuner.get_best_models()[0]
    assert isinstance(best, LabelClassifier) and best.multi_label
    assert best.predict(x).shape == (16, LABELS)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(units=()), r"units=\(\)"),
        (dict(units=(0, 4)), r"units=\(0, 4\)"),
        (dict(units=(4, 4)), "must not repeat"),
        (dict(units=4.0), "units=4.0"),
        (dict(chop_sizes=(-1, 4)), r"chop_sizes=\(-1, 4\)"),
        (dict(chop_sizes=True), "chop_sizes=True"),
        (dict(chop_overlaps=(-2,)), r"chop_overlaps=\(-2,\)"),
        (dict(chop_sizes=0, chop_overlaps=(0, 2)), r"chop_overlaps=\(0, 2\)"),
        (dict(num_regions=(0,)), r"num_regions=\(0,\)"),
        (dict(poolings="min"), "poolings='min'"),
        (dict(gates=("no_io", "lstm")), r"gates=\('no_io', 'lstm'\)"),
        (dict(dropout=1.0), "dropout=1.0"),
        (dict(dropout=(0.4, 0.2)), r"dropout=\(0.4, 0.2\)"),
        (dict(learning_rate=-1e-3), "learning_rate=-0.001"),
        (dict(learning_rate=(1e-2, 1e-3)), r"learning_rate=\(0.01, 0.001\)"),
        (dict(multi_label="yes"), "multi_label='yes'"),
        (dict(metrics=[MicroF1()]), "from_logits=False"),
        (dict(metrics="accuracy"), "metrics='accuracy'"),
        (dict(jit_compile="xla"), "jit_compile='xla'"),
        (dict(chop_size=50), "pass `chop_sizes=`.*chop_size=50"),
        (dict(pooling="max"), "pass `poolings=`.*pooling='max'"),
        (dict(chop_overlap=2), "pass `chop_overlaps=`.*chop_overlap=2"),
        (dict(embedding_dim=8), "one-hot.*embedding_dim=8"),
        (dict(max_tokens=0), "max_tokens=0"),
        (dict(head="gile"), "override `build_head`.*head='gile'"),
        (dict(label_ids=np.ones((3, 2))), "override `build_head`.*label_ids="),
        (dict(units_per_direction=4), "`units_per_direction` is not an argument of RegionLSTMHyperModel"),
        (dict(direction="both"), "direction='both'"),
        (dict(side_encoders="tv"), "side_encoders='tv'"),
        (dict(train_side_encoders=1), "train_side_encoders=1"),
        (dict(label_names=["a", "b"]), r"3 distinct.*label_names=\['a', 'b'\]"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hypermodel(**kwargs)


def test_bad_vocabulary_and_label_count():
    with pytest.raises(ValueError, match="vocabulary_size=1"):
        RegionLSTMHyperModel(1, LABELS)
    with pytest.raises(ValueError, match="num_labels=None"):
        RegionLSTMHyperModel(VOCAB, None)
    with pytest.raises(ValueError, match="num_labels=0"):
        RegionLSTMHyperModel(VOCAB, 0)
