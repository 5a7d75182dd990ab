"""PSP@k and label propensities (Jain et al. 2016) against NumPy references."""

import pathlib

import keras
import numpy as np
import pytest

from keras_labelemb import metrics as klm

REPO = pathlib.Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------


def propensity_reference(counts, n, a=0.55, b=1.5):
    """p_l = 1 / (1 + C exp(-A log(N_l + B))), C = (log N - 1)(B + 1)^A, one label at a time."""
    c = (np.log(n) - 1.0) * (b + 1.0) ** a
    return np.array([1.0 / (1.0 + c * np.exp(-a * np.log(count + b))) for count in counts])


def psp_reference(y_true, scores, propensities, k, sample_weight=None):
    """(raw, normalised) PSP@k with explicit per-document loops.

    Top k by descending score, ties to the lower index (as ops.top_k);
    normalised = sum_i w_i PSP_i / sum_i w_i best_i (XMC repository convention).
    """
    n = len(y_true)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, "float64")
    raw, best = np.zeros(n), np.zeros(n)
    for i in range(n):
        order = sorted(range(y_true.shape[1]), key=lambda j: (-float(scores[i, j]), j))[:k]
        raw[i] = sum(1.0 / propensities[j] for j in order if y_true[i, j] > 0.5) / k
        gains = sorted((1.0 / propensities[j] for j in range(y_true.shape[1]) if y_true[i, j] > 0.5), reverse=True)
        best[i] = sum(gains[:k]) / k
    mean_raw = np.sum(w * raw) / np.sum(w)
    normalised = np.sum(w * raw) / np.sum(w * best) if np.sum(w * best) > 0 else 0.0
    return mean_raw, normalised


def make_data(seed, n, num_labels, ties=False):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, num_labels)) < 0.3).astype("float32")
    y_true[0] = 0.0  # documents with no positive
    y_true[5] = 0.0
    y_true[1] = 1.0
    if ties:
        scores = (rng.integers(0, 4, size=(n, num_labels)) / 4.0).astype("float32")
    else:
        scores = rng.random((n, num_labels)).astype("float32")
    counts = rng.integers(0, 500, size=num_labels)
    return y_true, scores, klm.label_propensities(counts, num_documents=1000)


def stream(metric, y_true, y_pred, sample_weight=None, cuts=(0.3, 0.75)):
    n = len(y_true)
    bounds = [0] + [int(c * n) for c in cuts] + [n]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sw = None if sample_weight is None else sample_weight[lo:hi]
        metric.update_state(y_true[lo:hi], y_pred[lo:hi], sample_weight=sw)
    return float(keras.ops.convert_to_numpy(metric.result()))


# ----------------------------------------------------------------------------
# label_propensities
# ----------------------------------------------------------------------------


def test_label_propensities_match_the_formula():
    counts = np.array([0, 1, 2, 10, 100, 5000, 40000])
    for a, b, n in ((0.55, 1.5, 40000), (0.5, 0.4, 1e6), (0.6, 2.6, 123456)):
        got = klm.label_propensities(counts, n, a=a, b=b)
        np.testing.assert_allclose(got, propensity_reference(counts, n, a, b), rtol=1e-12)
    got = klm.label_propensities(counts, 40000)
    assert np.all(np.diff(got) > 0) and np.all((got > 0) & (got < 1))  # rarer labels: lower propensity
    assert got.dtype == np.float64


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"label_counts": [[1, 2]], "num_documents": 10}, "`label_counts`.*shape"),
        ({"label_counts": [], "num_documents": 10}, "`label_counts`"),
        ({"label_counts": [1, -2], "num_documents": 10}, "`label_counts`.*min -2"),
        ({"label_counts": [1, 20], "num_documents": 10}, "`num_documents`.*Received: num_documents=10"),
        ({"label_counts": [1, 2], "num_documents": 0}, "`num_documents`"),
        ({"label_counts": [1, 2], "num_documents": 10, "a": 0}, "`a`.*Received: a=0"),
        ({"label_counts": [1, 2], "num_documents": 10, "b": -1.0}, "`b`.*Received: b=-1.0"),
        ({"label_counts": [0, 1], "num_documents": 1}, "non-positive.*num_documents=1"),
    ],
)
def test_label_propensities_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        klm.label_propensities(**kwargs)


# ----------------------------------------------------------------------------
# PSP@k values
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", [(23, 4), (40, 13)])
@pytest.mark.parametrize("ties", [False, True])
def test_psp_matches_numpy_reference(seed, shape, ties):
    y_true, scores, propensities = make_data(seed, *shape, ties=ties)
    for k in (1, 3, 5, 20):  # 20 > L for the small shape
        raw, normalised = psp_reference(y_true, scores, propensities, k)
        got = stream(klm.PropensityPrecisionAtK(propensities, k=k), y_true, scores)
        assert got == pytest.approx(normalised, rel=1e-5, abs=1e-6), k
        got = stream(klm.PropensityPrecisionAtK(propensities, k=k, normalize=False), y_true, scores)
        assert got == pytest.approx(raw, rel=1e-5, abs=1e-6), k


def test_sample_weight_matches_reference():
    y_true, scores, propensities = make_data(3, 30, 8)
    w = np.random.default_rng(3).random(30).astype("float32") + 0.1
    raw, normalised = psp_reference(y_true, scores, propensities, 3, sample_weight=w)
    assert stream(klm.PropensityPrecisionAtK(propensities, k=3), y_true, scores, w) == pytest.approx(
        normalised, rel=1e-5
    )
    got = stream(klm.PropensityPrecisionAtK(propensities, k=3, normalize=False), y_true, scores, w[:, None])
    assert got == pytest.approx(raw, rel=1e-5)


def test_documents_without_positives():
    propensities = np.array([0.5, 0.25, 1.0, 0.8])
    y = np.array([[1, 1, 0, 0], [0, 0, 1, 0]], "float32")
    s = np.array([[0.9, 0.5, 0.1, 0.0], [0.3, 0.2, 0.8, 0.0]], "float32")
    none = np.zeros((3, 4), "float32")
    s_none = np.random.default_rng(0).random((3, 4)).astype("float32")
    both_y, both_s = np.concatenate([y, none]), np.concatenate([s, s_none])
    # normalised: they add nothing to either sum, so the value does not move
    alone = stream(klm.PropensityPrecisionAtK(propensities, k=2), y, s)
    assert stream(klm.PropensityPrecisionAtK(propensities, k=2), both_y, both_s) == pytest.approx(alone)
    # raw: they count as 0 in the mean over documents
    raw = stream(klm.PropensityPrecisionAtK(propensities, k=2, normalize=False), y, s)
    raw_all = stream(klm.PropensityPrecisionAtK(propensities, k=2, normalize=False), both_y, both_s)
    assert raw_all == pytest.approx(raw * 2 / 5)
    # no positive anywhere: 0, never NaN
    for normalize in (True, False):
        metric = klm.PropensityPrecisionAtK(propensities, k=2, normalize=normalize)
        assert stream(metric, none, s_none) == 0.0


def test_best_ranking_scores_one_and_unit_propensities_give_precision():
    y_true, _, propensities = make_data(4, 25, 10)
    best_scores = (y_true / propensities).astype("float32")  # rank positives by 1/p
    assert stream(klm.PropensityPrecisionAtK(propensities, k=3), y_true, best_scores) == pytest.approx(1.0)
    _, scores, _ = make_data(5, 25, 10)
    ones = np.ones(10)
    assert stream(klm.PropensityPrecisionAtK(ones, k=3, normalize=False), y_true, scores) == pytest.approx(
        stream(klm.PrecisionAtK(k=3), y_true, scores), abs=1e-6
    )


def test_logits_and_probabilities_give_the_same_value():
    y_true, scores, propensities = make_data(6, 20, 6)
    logits = (scores - 0.5) * 8.0
    probs = keras.ops.convert_to_numpy(keras.ops.sigmoid(logits))
    assert stream(klm.PropensityPrecisionAtK(propensities, k=2), y_true, logits) == pytest.approx(
        stream(klm.PropensityPrecisionAtK(propensities, k=2), y_true, probs), abs=1e-6
    )


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dtypes_are_finite(dtype):
    y_true, scores, propensities = make_data(7, 12, 5)
    metric = klm.PropensityPrecisionAtK(propensities, k=2, dtype=dtype)
    value = stream(metric, y_true.astype(dtype), scores.astype(dtype))
    reference = stream(klm.PropensityPrecisionAtK(propensities, k=2, dtype="float64"), y_true, scores)
    assert np.isfinite(value) and value == pytest.approx(reference, rel=2e-3 if dtype == "float16" else 1e-6)


def test_reset_state():
    y_true, scores, propensities = make_data(8, 20, 5)
    metric = klm.PropensityPrecisionAtK(propensities, k=2)
    first = stream(metric, y_true, scores)
    metric.reset_state()
    assert float(metric.result()) == 0.0
    assert stream(metric, y_true, scores) == pytest.approx(first)
    np.testing.assert_array_equal(metric.propensities, propensities)  # not state: survives reset


# ----------------------------------------------------------------------------
# arguments, config, compiled use
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "propensities, match",
    [
        (np.ones((2, 3)), "shape"),
        (np.array([]), "shape"),
        (np.array([0.5, 0.0]), "> 0"),
        (np.array([0.5, -1.0]), "> 0"),
        (np.array([0.5, np.nan]), "finite"),
        ("abc", "Received: propensities="),
    ],
)
def test_invalid_propensities(propensities, match):
    with pytest.raises(ValueError, match=r"`propensities`.*" + match):
        klm.PropensityPrecisionAtK(propensities, k=1)


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_invalid_k(k):
    with pytest.raises(ValueError, match=f"`k`.*Received: k={k!r}"):
        klm.PropensityPrecisionAtK(np.ones(3), k=k)


def test_label_count_mismatch():
    metric = klm.PropensityPrecisionAtK(np.ones(3), k=1)
    with pytest.raises(ValueError, match="3 labels but `y_pred` has 4"):
        metric.update_state(np.zeros((2, 4)), np.zeros((2, 4)))


def test_config_round_trip_and_registration():
    # The default names (psp_at_3, raw_psp_at_3) are checked where they matter: as the keys that
    # test_compiled_evaluate_matches_reference reads from model.evaluate.
    p = np.array([0.2, 0.5, 0.9])
    metric = klm.PropensityPrecisionAtK(p, k=2, normalize=False, name="psp2")
    config = metric.get_config()
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(metric))
    assert type(restored) is klm.PropensityPrecisionAtK and restored.get_config() == config
    np.testing.assert_array_equal(restored.propensities, p)
    assert keras.saving.get_registered_name(klm.PropensityPrecisionAtK) == "keras_labelemb>PropensityPrecisionAtK"


def test_compiled_evaluate_matches_reference():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)).astype("float32")
    y = (rng.random((40, 7)) < 0.4).astype("float32")
    y[0] = 0.0
    propensities = klm.label_propensities(y.sum(axis=0), len(y))
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(7)])
    model.compile(
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[
            klm.PropensityPrecisionAtK(propensities, k=3),
            klm.PropensityPrecisionAtK(propensities, k=3, normalize=False),
        ],
        jit_compile=True,
    )
    got = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    raw, normalised = psp_reference(y, keras.ops.convert_to_numpy(model(x)), propensities, 3)
    assert got["psp_at_3"] == pytest.approx(normalised, rel=1e-5)
    assert got["raw_psp_at_3"] == pytest.approx(raw, rel=1e-5)
