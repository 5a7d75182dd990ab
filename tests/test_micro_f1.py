"""Tests of `micro_f1`."""

import pathlib

import keras
import numpy as np
import pytest
from metrics_helpers import (
    make_data,
    one_error_reference,
    precision_at_k_reference,
    result_of,
    sklearn_reference,
    stream,
)
from sklearn import metrics as skm

from keras_labelemb import metrics as klm

REPO = pathlib.Path(__file__).resolve().parents[1]

SEEDS = [0, 1, 2]

SHAPES = [(23, 2), (31, 7), (17, 40)]


def all_metrics():
    return [
        klm.MicroF1(),
        klm.MicroF1(from_logits=True),
        klm.PrecisionAtK(k=3),
        klm.NDCGAtK(k=5),
        klm.RankingLoss(),
        klm.LabelRankingAveragePrecision(),
        klm.OneError(),
    ]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_micro_f1_matches_sklearn(seed, shape):
    y_true, probs = make_data(seed, *shape, ties=False)
    probs[4] = 0.5  # exactly at the threshold: not predicted (strict >)
    for threshold in (0.5, 0.3, 0.9):
        want = sklearn_reference("micro_f1", y_true, probs, threshold=threshold)
        got = stream(klm.MicroF1(threshold=threshold), y_true, probs)
        assert got == pytest.approx(want, abs=1e-5)
        probs64 = np.clip(probs.astype("float64"), 1e-6, 1 - 1e-6)
        logits = (np.log(probs64) - np.log1p(-probs64)).astype("float32")
        keep = np.abs(probs64 - threshold) > 1e-4  # avoid float32 round-off at the cut
        got = stream(
            klm.MicroF1(threshold=threshold, from_logits=True),
            y_true[keep.all(axis=1)],
            logits[keep.all(axis=1)],
        )
        want = sklearn_reference(
            "micro_f1",
            y_true[keep.all(axis=1)],
            probs[keep.all(axis=1)],
            threshold=threshold,
        )
        assert got == pytest.approx(want, abs=1e-5)


def test_sample_weight_matches_sklearn():
    y_true, scores = make_data(7, 29, 9)
    rng = np.random.default_rng(7)
    w = rng.random(len(y_true)).astype("float32") + 0.1
    f1 = stream(klm.MicroF1(), y_true, scores, sample_weight=w)
    assert f1 == pytest.approx(sklearn_reference("micro_f1", y_true, scores, sample_weight=w), abs=1e-5)
    assert stream(klm.NDCGAtK(k=3), y_true, scores, sample_weight=w) == pytest.approx(
        sklearn_reference("ndcg", y_true, scores, sample_weight=w, k=3), abs=1e-5
    )
    assert stream(klm.RankingLoss(), y_true, scores, sample_weight=w) == pytest.approx(
        sklearn_reference("ranking_loss", y_true, scores, sample_weight=w), abs=1e-5
    )
    assert stream(klm.LabelRankingAveragePrecision(), y_true, scores, sample_weight=w[:, None]) == pytest.approx(
        sklearn_reference("lrap", y_true, scores, sample_weight=w), abs=1e-5
    )
    assert stream(klm.PrecisionAtK(k=2), y_true, scores, sample_weight=w) == pytest.approx(
        precision_at_k_reference(y_true, scores, 2, sample_weight=w), abs=1e-5
    )
    assert stream(klm.OneError(), y_true, scores, sample_weight=w) == pytest.approx(
        one_error_reference(y_true, scores, sample_weight=w), abs=1e-5
    )


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_degenerate_shapes_are_finite(dtype):
    cases = [
        (np.zeros((3, 5)), np.zeros((3, 5))),  # all-zero rows and tied scores
        (np.ones((3, 5)), np.zeros((3, 5))),  # all-one rows
        (np.array([[0, 1, 0]]), np.array([[0.2, 0.7, 0.1]])),  # B = 1
        (np.array([[1], [0], [1]]), np.array([[3.0], [-2.0], [0.1]])),  # L = 1
        (np.array([[0, 1, 1]]), np.array([[-60000.0, 60000.0, 0.0]])),  # extremes
    ]
    for y_true, y_pred in cases:
        for metric in all_metrics():
            value = result_of(metric, y_true.astype(dtype), y_pred.astype(dtype))
            assert np.isfinite(value), (metric.name, y_true, y_pred)
            assert 0.0 <= value <= 1.0 + 1e-6, (metric.name, value)


def test_reset_state():
    y_true, scores = make_data(0, 10, 5)
    for metric in all_metrics():
        first = stream(metric, y_true, scores)
        metric.reset_state()
        assert float(keras.ops.convert_to_numpy(metric.result())) == 0.0
        assert stream(metric, y_true, scores) == pytest.approx(first)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.1, 1.5, "0.5"])
def test_invalid_threshold(threshold):
    with pytest.raises(ValueError, match="`threshold`"):
        klm.MicroF1(threshold=threshold)


@pytest.mark.parametrize(
    "metric",
    [
        klm.MicroF1(threshold=0.3, from_logits=True, name="f1"),
        klm.PrecisionAtK(k=3),
        klm.NDCGAtK(k=2, dtype="float64"),
        klm.RankingLoss(name="rl"),
        klm.LabelRankingAveragePrecision(),
        klm.OneError(),
    ],
    ids=lambda m: m.name,
)
def test_config_round_trip(metric):
    config = metric.get_config()
    clone = type(metric).from_config(config)
    assert clone.get_config() == config
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(metric))
    assert type(restored) is type(metric)
    assert restored.get_config() == config
    y_true, scores = make_data(1, 12, 6)
    assert stream(restored, y_true, scores) == pytest.approx(stream(metric, y_true, scores))


def test_registered_names():
    for cls in (
        klm.MicroF1,
        klm.PrecisionAtK,
        klm.NDCGAtK,
        klm.RankingLoss,
        klm.LabelRankingAveragePrecision,
        klm.OneError,
    ):
        name = keras.saving.get_registered_name(cls)
        assert name == f"keras_labelemb>{cls.__name__}"
        assert keras.saving.get_registered_object(name) is cls


def test_compiled_evaluate_matches_sklearn():
    num_labels = 6
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)).astype("float32")
    y = (rng.random((40, num_labels)) < 0.4).astype("float32")
    y[0] = 0.0
    y[1] = 1.0
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(num_labels)])
    model.compile(
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[
            klm.MicroF1(from_logits=True),
            klm.PrecisionAtK(k=2),
            klm.NDCGAtK(k=3),
            klm.RankingLoss(),
            klm.LabelRankingAveragePrecision(),
            klm.OneError(),
        ],
        jit_compile=True,
    )
    # two batches of one shape: streamed over batches, compiled once
    got = model.evaluate(x, y, batch_size=20, verbose=0, return_dict=True)
    logits = keras.ops.convert_to_numpy(model(x))
    assert got["micro_f1"] == pytest.approx(
        skm.f1_score(y.astype(int), (logits > 0).astype(int), average="micro"), abs=1e-5
    )
    assert got["precision_at_2"] == pytest.approx(precision_at_k_reference(y, logits, 2), abs=1e-5)
    assert got["ndcg_at_3"] == pytest.approx(skm.ndcg_score(y, logits, k=3), abs=1e-5)
    assert got["ranking_loss"] == pytest.approx(skm.label_ranking_loss(y, logits), abs=1e-5)
    assert got["label_ranking_average_precision"] == pytest.approx(
        skm.label_ranking_average_precision_score(y, logits), abs=1e-5
    )
    assert got["one_error"] == pytest.approx(one_error_reference(y, logits), abs=1e-5)
