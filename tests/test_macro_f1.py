"""MacroF1: streaming values against sklearn.metrics.f1_score(average="macro")."""

import math

import keras
import numpy as np
import pytest
from sklearn import metrics as skm

from keras_labelemb import metrics as klm


def make_data(seed, n, num_labels):
    """Random multi-hot targets and probabilities, with a label that is never
    relevant nor predicted, one never relevant but predicted, one relevant but
    never predicted, and a document with no relevant label."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, num_labels)) < 0.3).astype("float32")
    probs = rng.random((n, num_labels)).astype("float32")
    y_true[:, 0] = 0.0
    probs[:, 0] = 0.1  # label 0: no positive, no prediction
    y_true[:, 1] = 0.0
    probs[0, 1] = 0.9  # label 1: a false positive only
    probs[:, 2] = 0.2
    y_true[0, 2] = 1.0  # label 2: a false negative only
    y_true[3] = 0.0
    return y_true, probs


def stream(metric, y_true, y_pred, sample_weight=None, cuts=(0.3, 0.75)):
    n = len(y_true)
    bounds = [0] + [int(c * n) for c in cuts] + [n]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sw = None if sample_weight is None else sample_weight[lo:hi]
        metric.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    return float(keras.ops.convert_to_numpy(metric.result()))


def sklearn_macro(y_true, probs, threshold=0.5, zero_division=0, sample_weight=None):
    return skm.f1_score(
        y_true.astype(int),
        (probs > threshold).astype(int),
        average="macro",
        zero_division=zero_division,
        sample_weight=sample_weight,
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(31, 6), (50, 17)])
def test_matches_sklearn_over_batches(seed, shape):
    y_true, probs = make_data(seed, *shape)
    for threshold in (0.5, 0.3, 0.8):
        got = stream(klm.MacroF1(threshold=threshold), y_true, probs)
        assert got == pytest.approx(sklearn_macro(y_true, probs, threshold), abs=1e-6)


@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_logits_give_the_decisions_of_probabilities(threshold):
    y_true, probs = make_data(3, 40, 8)
    probs64 = np.clip(probs.astype("float64"), 1e-6, 1 - 1e-6)
    logits = (np.log(probs64) - np.log1p(-probs64)).astype("float32")
    keep = (np.abs(probs64 - threshold) > 1e-4).all(axis=1)  # no float32 round-off at the cut
    got = stream(klm.MacroF1(threshold=threshold, from_logits=True), y_true[keep], logits[keep])
    assert got == pytest.approx(sklearn_macro(y_true[keep], probs[keep], threshold), abs=1e-6)


def test_threshold_is_strict():
    y = np.array([[1, 0], [0, 1]], "float32")
    at_cut = np.full((2, 2), 0.5, "float32")
    assert stream(klm.MacroF1(), y, at_cut) == 0.0  # nothing predicted
    assert sklearn_macro(y, at_cut) == 0.0


@pytest.mark.parametrize("zero_division", [0.0, 1.0, float("nan")])
def test_zero_division_matches_sklearn(zero_division):
    y_true, probs = make_data(4, 30, 7)  # label 0 has no positive and no prediction
    want = sklearn_macro(y_true, probs, zero_division=np.nan if math.isnan(zero_division) else zero_division)
    got = stream(klm.MacroF1(zero_division=zero_division), y_true, probs)
    assert got == pytest.approx(want, abs=1e-6)
    metric = klm.MacroF1(zero_division=zero_division)
    stream(metric, y_true, probs)
    per_label = keras.ops.convert_to_numpy(metric.per_label_f1())
    want_per_label = skm.f1_score(
        y_true.astype(int),
        (probs > 0.5).astype(int),
        average=None,
        zero_division=np.nan if math.isnan(zero_division) else zero_division,
    )
    np.testing.assert_allclose(per_label, want_per_label, atol=1e-6)


def test_labels_without_positives_or_predictions_count_as_zero_by_default():
    y = np.array([[1, 0, 0], [1, 0, 0]], "float32")
    p = np.array([[0.9, 0.1, 0.1], [0.9, 0.1, 0.1]], "float32")
    assert stream(klm.MacroF1(), y, p) == pytest.approx(1 / 3)  # (1 + 0 + 0) / 3
    assert stream(klm.MacroF1(zero_division=1.0), y, p) == pytest.approx(1.0)
    assert stream(klm.MacroF1(zero_division=float("nan")), y, p) == pytest.approx(1.0)
    # nothing to score at all: 0 in every mode (sklearn's NaN mode gives NaN)
    empty = np.zeros((2, 3), "float32")
    assert stream(klm.MacroF1(), empty, empty) == 0.0
    assert stream(klm.MacroF1(zero_division=float("nan")), empty, empty) == 0.0
    assert stream(klm.MacroF1(zero_division=1.0), empty, empty) == 1.0


def test_sample_weight_matches_sklearn():
    y_true, probs = make_data(5, 33, 9)
    w = np.random.default_rng(5).random(len(y_true)).astype("float32") + 0.1
    got = stream(klm.MacroF1(), y_true, probs, sample_weight=w)
    assert got == pytest.approx(sklearn_macro(y_true, probs, sample_weight=w), abs=1e-5)
    got = stream(klm.MacroF1(), y_true, probs, sample_weight=w[:, None] * np.ones_like(probs))
    assert got == pytest.approx(sklearn_macro(y_true, probs, sample_weight=w), abs=1e-5)


def test_num_labels_given_or_read_from_the_first_batch():
    y_true, probs = make_data(6, 20, 5)
    lazy, eager = klm.MacroF1(), klm.MacroF1(num_labels=5)
    assert float(lazy.result()) == 0.0 and lazy.num_labels is None
    assert len(eager.variables) == 3
    assert stream(lazy, y_true, probs) == pytest.approx(stream(eager, y_true, probs))
    assert lazy.num_labels == 5
    with pytest.raises(ValueError, match="5 labels.*6 labels"):
        eager.update_state(np.zeros((2, 6)), np.zeros((2, 6)))
    with pytest.raises(ValueError, match="no batch yet"):
        klm.MacroF1().per_label_f1()


def test_reset_state():
    y_true, probs = make_data(7, 20, 5)
    metric = klm.MacroF1()
    first = stream(metric, y_true, probs)
    metric.reset_state()
    assert float(metric.result()) == 0.0
    assert stream(metric, y_true, probs) == pytest.approx(first)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.0}, "threshold"),
        ({"threshold": "0.5"}, "threshold"),
        ({"num_labels": 0}, "num_labels"),
        ({"num_labels": 2.5}, "num_labels"),
        ({"zero_division": 0.5}, "zero_division"),
        ({"zero_division": "warn"}, "zero_division"),
    ],
)
def test_invalid_arguments(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`.*Received: {name}="):
        klm.MacroF1(**kwargs)


def test_config_round_trip_and_registration():
    metric = klm.MacroF1(num_labels=4, threshold=0.3, from_logits=True, zero_division=1.0, name="mf1")
    config = metric.get_config()
    assert config["num_labels"] == 4 and config["zero_division"] == 1.0
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(metric))
    assert type(restored) is klm.MacroF1 and restored.get_config() == config
    assert keras.saving.get_registered_name(klm.MacroF1) == "keras_labelemb>MacroF1"
    nan_metric = klm.MacroF1(zero_division=float("nan"))
    assert math.isnan(klm.MacroF1.from_config(nan_metric.get_config()).zero_division)


def test_compiled_evaluate_matches_sklearn():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)).astype("float32")
    y = (rng.random((40, 6)) < 0.4).astype("float32")
    y[:, 0] = 0.0
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(6)])
    model.compile(
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[klm.MacroF1(from_logits=True)],  # state created on the first (symbolic) batch
        jit_compile=True,
    )
    got = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)["macro_f1"]
    logits = keras.ops.convert_to_numpy(model(x))
    want = skm.f1_score(y.astype(int), (logits > 0).astype(int), average="macro", zero_division=0)
    assert got == pytest.approx(want, abs=1e-5)
