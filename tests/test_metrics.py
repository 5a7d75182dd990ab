"""Tests for keras_labelemb.metrics: streaming values against scikit-learn / NumPy."""

import os
import pathlib
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
from sklearn import metrics as skm

from keras_labelemb import metrics as klm

REPO = pathlib.Path(__file__).resolve().parents[1]
SEEDS = [0, 1, 2]
SHAPES = [(23, 2), (31, 7), (17, 40)]


# ----------------------------------------------------------------------------
# data and references
# ----------------------------------------------------------------------------


def make_data(seed, n, num_labels, ties=True):
    """Multi-hot targets with an all-zero, an all-one and a single-positive row,
    scores with many ties (a few distinct values) or continuous."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, num_labels)) < 0.35).astype("float32")
    y_true[0] = 0.0
    y_true[1] = 1.0
    y_true[2] = 0.0
    y_true[2, rng.integers(num_labels)] = 1.0
    if ties:
        scores = rng.integers(0, 4, size=(n, num_labels)).astype("float32") / 4.0
        # a block of continuous rows too
        scores[n // 2 :] = rng.random((n - n // 2, num_labels)).astype("float32")
        scores[3] = 0.5  # a row that is one big tie
    else:
        scores = rng.random((n, num_labels)).astype("float32")
    return y_true, scores


def stream(metric, y_true, y_pred, sample_weight=None, cuts=(0.3, 0.75)):
    """Feeds the data in three uneven batches; returns the result as a float."""
    n = len(y_true)
    bounds = [0] + [max(1, int(c * n)) for c in cuts] + [n]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi <= lo:
            continue
        sw = None if sample_weight is None else sample_weight[lo:hi]
        metric.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    return float(keras.ops.convert_to_numpy(metric.result()))


def top_k_reference(scores, k):
    """Indices of the k top scores per row, ties to the lower index (as top_k)."""
    order = np.argsort(-scores.astype("float64"), axis=1, kind="stable")
    return order[:, :k]


def precision_at_k_reference(y_true, scores, k, sample_weight=None):
    top = top_k_reference(scores, min(k, scores.shape[1]))
    hits = np.take_along_axis(y_true > 0.5, top, axis=1).sum(axis=1)
    return np.average(hits / k, weights=sample_weight)


def one_error_reference(y_true, scores, sample_weight=None):
    top = top_k_reference(scores, 1)[:, 0]
    has_positive = (y_true > 0.5).any(axis=1)
    wrong = ~(y_true[np.arange(len(y_true)), top] > 0.5)
    w = np.ones(len(y_true)) if sample_weight is None else sample_weight
    denominator = np.sum(w * has_positive)
    return 0.0 if denominator == 0 else np.sum(w * has_positive * wrong) / denominator


def sklearn_reference(name, y_true, scores, sample_weight=None, **kw):
    s = scores.astype("float64")
    y = y_true.astype(int)
    if name == "micro_f1":
        threshold = kw.get("threshold", 0.5)
        return skm.f1_score(
            y,
            (s > threshold).astype(int),
            average="micro",
            sample_weight=sample_weight,
            zero_division=0,
        )
    if name == "ndcg":
        return skm.ndcg_score(y, s, k=kw["k"], sample_weight=sample_weight)
    if name == "ranking_loss":
        return skm.label_ranking_loss(y, s, sample_weight=sample_weight)
    if name == "lrap":
        return skm.label_ranking_average_precision_score(y, s, sample_weight=sample_weight)
    raise KeyError(name)


# ----------------------------------------------------------------------------
# values against scikit-learn / NumPy, streamed over batches
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_ranking_metrics_match_sklearn(seed, shape):
    y_true, scores = make_data(seed, *shape)
    for k in (1, 3, 5, 50):
        got = stream(klm.NDCGAtK(k=k), y_true, scores)
        want = sklearn_reference("ndcg", y_true, scores, k=k)
        assert got == pytest.approx(want, abs=1e-5), ("ndcg", k)
    got = stream(klm.RankingLoss(), y_true, scores)
    assert got == pytest.approx(sklearn_reference("ranking_loss", y_true, scores), abs=1e-5)
    got = stream(klm.LabelRankingAveragePrecision(), y_true, scores)
    assert got == pytest.approx(sklearn_reference("lrap", y_true, scores), abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_topk_metrics_match_numpy(seed, shape):
    y_true, scores = make_data(seed, *shape)
    for k in (1, 2, 5, 50):
        got = stream(klm.PrecisionAtK(k=k), y_true, scores)
        assert got == pytest.approx(precision_at_k_reference(y_true, scores, k), abs=1e-5)
    got = stream(klm.OneError(), y_true, scores)
    assert got == pytest.approx(one_error_reference(y_true, scores), abs=1e-5)


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


def test_large_label_set_sort_based():
    y_true, scores = make_data(3, 12, 300)
    assert stream(klm.LabelRankingAveragePrecision(), y_true, scores) == pytest.approx(
        sklearn_reference("lrap", y_true, scores), abs=1e-5
    )
    assert stream(klm.RankingLoss(), y_true, scores) == pytest.approx(
        sklearn_reference("ranking_loss", y_true, scores), abs=1e-5
    )
    assert stream(klm.NDCGAtK(k=10), y_true, scores) == pytest.approx(
        sklearn_reference("ndcg", y_true, scores, k=10), abs=1e-5
    )


def test_ranking_metrics_ignore_logits_vs_probabilities():
    y_true, scores = make_data(4, 20, 6, ties=False)
    logits = (scores - 0.5) * 8.0
    probs = keras.ops.convert_to_numpy(keras.ops.sigmoid(logits))
    for make in (
        lambda: klm.PrecisionAtK(k=2),
        lambda: klm.NDCGAtK(k=3),
        klm.RankingLoss,
        klm.LabelRankingAveragePrecision,
        klm.OneError,
    ):
        assert stream(make(), y_true, logits) == pytest.approx(stream(make(), y_true, probs), abs=1e-6)


# ----------------------------------------------------------------------------
# conventions for degenerate documents, numerical safety
# ----------------------------------------------------------------------------


def result_of(metric, y_true, y_pred):
    metric.update_state(y_true, y_pred)
    return float(keras.ops.convert_to_numpy(metric.result()))


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


def test_documents_without_or_with_all_positives():
    zeros = np.zeros((2, 4), "float32")
    ones = np.ones((2, 4), "float32")
    scores = np.array([[0.1, 0.9, 0.3, 0.3], [0.2, 0.2, 0.2, 0.2]], "float32")
    # no positive: nDCG 0 (sklearn), LRAP 1, ranking loss 0, excluded from one-error
    assert result_of(klm.NDCGAtK(k=2), zeros, scores) == 0.0
    assert result_of(klm.LabelRankingAveragePrecision(), zeros, scores) == 1.0
    assert result_of(klm.RankingLoss(), zeros, scores) == 0.0
    assert result_of(klm.OneError(), zeros, scores) == 0.0
    assert result_of(klm.PrecisionAtK(k=2), zeros, scores) == 0.0
    assert result_of(klm.MicroF1(), zeros, np.zeros_like(scores)) == 0.0
    # all positive
    assert result_of(klm.NDCGAtK(k=2), ones, scores) == pytest.approx(1.0)
    assert result_of(klm.LabelRankingAveragePrecision(), ones, scores) == 1.0
    assert result_of(klm.RankingLoss(), ones, scores) == 0.0
    assert result_of(klm.OneError(), ones, scores) == 0.0
    assert result_of(klm.PrecisionAtK(k=2), ones, scores) == 1.0
    # one-error excludes documents without positives from the denominator
    y = np.array([[0, 1, 0], [0, 0, 0], [1, 0, 0]], "float32")
    s = np.array([[0.9, 0.1, 0.0], [0.3, 0.2, 0.1], [0.9, 0.1, 0.0]], "float32")
    assert result_of(klm.OneError(), y, s) == pytest.approx(0.5)


def test_ties_conventions():
    y = np.array([[0, 1, 1, 0]], "float32")
    tied = np.full((1, 4), 0.5, "float32")
    # sklearn: every label tied at rank 4 -> LRAP 2/4, all 4 pairs wrong
    assert result_of(klm.LabelRankingAveragePrecision(), y, tied) == pytest.approx(0.5)
    assert result_of(klm.RankingLoss(), y, tied) == pytest.approx(1.0)
    assert result_of(klm.NDCGAtK(k=4), y, tied) == pytest.approx(
        skm.ndcg_score(y, tied.astype("float64"), k=4), abs=1e-6
    )
    # top_k prefers the lower index: label 0 (irrelevant) is the top label
    assert result_of(klm.OneError(), y, tied) == 1.0
    assert result_of(klm.PrecisionAtK(k=2), y, tied) == pytest.approx(0.5)


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


def test_single_label():
    y = np.array([[1], [0], [1]], "float32")
    s = np.array([[0.9], [0.8], [0.1]], "float32")
    assert result_of(klm.NDCGAtK(k=5), y, s) == pytest.approx(2 / 3)
    assert result_of(klm.PrecisionAtK(k=1), y, s) == pytest.approx(2 / 3)
    assert result_of(klm.PrecisionAtK(k=3), y, s) == pytest.approx(2 / 9)
    assert result_of(klm.LabelRankingAveragePrecision(), y, s) == 1.0
    assert result_of(klm.RankingLoss(), y, s) == 0.0
    assert result_of(klm.OneError(), y, s) == 0.0
    # TP = 1, FP = 1, FN = 1 (sklearn reads an (n, 1) array as binary targets
    # and micro-averages both classes, so it is not the reference here)
    assert result_of(klm.MicroF1(), y, s) == pytest.approx(0.5)


def test_float16_scores_match_sklearn():
    y_true, scores = make_data(5, 19, 8, ties=False)
    s16 = (scores * 4.0 - 2.0).astype("float16")
    s = s16.astype("float64")
    assert stream(klm.NDCGAtK(k=3), y_true, s16) == pytest.approx(skm.ndcg_score(y_true, s, k=3), abs=1e-5)
    assert stream(klm.LabelRankingAveragePrecision(), y_true, s16) == pytest.approx(
        skm.label_ranking_average_precision_score(y_true, s), abs=1e-5
    )
    assert stream(klm.RankingLoss(), y_true, s16) == pytest.approx(skm.label_ranking_loss(y_true, s), abs=1e-5)
    assert stream(klm.MicroF1(from_logits=True), y_true, s16) == pytest.approx(
        skm.f1_score(y_true.astype(int), (s > 0).astype(int), average="micro"), abs=1e-5
    )


def test_reset_state():
    y_true, scores = make_data(0, 10, 5)
    for metric in all_metrics():
        first = stream(metric, y_true, scores)
        metric.reset_state()
        assert float(keras.ops.convert_to_numpy(metric.result())) == 0.0
        assert stream(metric, y_true, scores) == pytest.approx(first)


# ----------------------------------------------------------------------------
# arguments, config, serialization
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [klm.PrecisionAtK, klm.NDCGAtK])
@pytest.mark.parametrize("k", [0, -3, 1.5, True, "2"])
def test_invalid_k(cls, k):
    with pytest.raises(ValueError, match=r"`k`.*" + str(k).replace(".", r"\.")):
        cls(k=k)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.1, 1.5, "0.5"])
def test_invalid_threshold(threshold):
    with pytest.raises(ValueError, match="`threshold`"):
        klm.MicroF1(threshold=threshold)


def test_default_names():
    assert klm.PrecisionAtK(k=3).name == "precision_at_3"
    assert klm.NDCGAtK().name == "ndcg_at_5"
    assert klm.PrecisionAtK(k=3, name="p3").name == "p3"
    assert klm.AveragePrecision is klm.LabelRankingAveragePrecision


@pytest.mark.parametrize(
    "metric",
    [
        klm.MicroF1(threshold=0.3, from_logits=True, name="f1"),
        klm.PrecisionAtK(k=3),
        klm.NDCGAtK(k=2, dtype="float64"),
        klm.RankingLoss(name="rl"),
        klm.AveragePrecision(),
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


# ----------------------------------------------------------------------------
# inside a compiled model; other backend; no TensorFlow; docstring examples
# ----------------------------------------------------------------------------


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
            klm.AveragePrecision(),
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


JAX_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import keras
    assert keras.backend.backend() == "jax", keras.backend.backend()
    from keras_labelemb import metrics as klm
    assert "tensorflow" not in sys.modules, "tensorflow was imported"
    from sklearn import metrics as skm

    rng = np.random.default_rng(0)
    y = (rng.random((30, 7)) < 0.35).astype("float32")
    y[0] = 0.0
    y[1] = 1.0
    s = (rng.integers(0, 4, size=(30, 7)) / 4.0).astype("float32")  # ties
    s[15:] = rng.random((15, 7))

    # the scores themselves are the model output: a jitted JAX evaluate,
    # streamed over three batches
    model = keras.Sequential([keras.Input((7,)), keras.layers.Identity()])
    model.compile(
        loss="mse",
        metrics=[
            klm.MicroF1(), klm.PrecisionAtK(k=2), klm.NDCGAtK(k=3),
            klm.RankingLoss(), klm.AveragePrecision(), klm.OneError(),
        ],
        jit_compile=True,
    )
    res = model.evaluate(s, y, batch_size=10, verbose=0, return_dict=True)

    s64 = s.astype("float64")
    top = np.argsort(-s64, axis=1, kind="stable")
    has = y.max(1) > 0
    wrong = 1 - y[np.arange(30), top[:, 0]]
    want = {
        "micro_f1": skm.f1_score(y, s > 0.5, average="micro"),
        "precision_at_2": (np.take_along_axis(y, top[:, :2], axis=1).sum(1) / 2).mean(),
        "ndcg_at_3": skm.ndcg_score(y, s64, k=3),
        "ranking_loss": skm.label_ranking_loss(y, s64),
        "label_ranking_average_precision": (
            skm.label_ranking_average_precision_score(y, s64)
        ),
        "one_error": (wrong * has).sum() / has.sum(),
    }
    bad = {k: (res[k], v) for k, v in want.items() if abs(res[k] - v) > 1e-5}
    assert not bad, bad
    print("JAX_OK")
    """
)


def test_jax_backend_subprocess():
    pytest.importorskip("jax")
    env = dict(os.environ, KERAS_BACKEND="jax", TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run(
        [sys.executable, "-c", JAX_SCRIPT],
        env=env,
        cwd=str(REPO),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "JAX_OK" in proc.stdout, proc.stdout + proc.stderr
