"""LSTM tv-embeddings (J&Z 2016 section 3): the objective vs NumPy,
a few training steps on tiny data, and the trained encoder as frozen RegionLSTM side input."""

import os
import tempfile

import keras
import numpy as np
import pytest

from keras_labelemb.layers import RegionLSTM
from keras_labelemb.models import oh_2lstmp
from keras_labelemb.text.target_vocabulary import target_vocabulary
from keras_labelemb.training import train_tv_embeddings
from keras_labelemb.training.tv_embedding import TvEmbedding, window_target_counts

VOCAB = 30


def tiny_ids(seed=0, shape=(16, 12)):
    ids = np.random.default_rng(seed).integers(1, VOCAB, size=shape).astype("int32")
    ids[0, 8:] = 0
    ids[1, :5] = 0
    return ids


def tokens():
    return ["<pad>", "<unk>", "the", "<num>", "of"] + [f"w{i}" for i in range(VOCAB - 5)]


def numpy_objective(ids, sequences, model, negatives):
    units, k = model.units, model.window
    total, positions = 0.0, (ids != 0).sum()
    for d, name in enumerate(model.directions):
        kernel = np.asarray(model.output_kernels[d])
        bias = np.asarray(model.output_biases[d])
        for b in range(ids.shape[0]):
            for t in range(ids.shape[1]):
                if ids[b, t] == 0:
                    continue
                h = sequences[b, t, d * units : (d + 1) * units]
                window = range(t + 1, t + k + 1) if name == "forward" else range(t - 1, t - k - 1, -1)
                bag = {model.target_ids[ids[b, s]] for s in window if 0 <= s < ids.shape[1]} - {-1}
                for j in bag:
                    total += (1.0 - (kernel[j] @ h + bias[j])) ** 2
                for j in negatives:
                    if j not in bag:
                        total += model.negative_weight * (kernel[j] @ h + bias[j]) ** 2
    return total / positions


@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
def test_objective_matches_numpy(direction):
    ids = tiny_ids(1, (4, 9))
    ids[2, 3] = ids[2, 4] = ids[2, 5]  # a word repeated inside a window counts once
    targets = target_vocabulary(tokens(), max_targets=12)
    model = TvEmbedding(VOCAB, targets, units=3, direction=direction, window=3, num_negatives=4, negative_weight=0.5)
    sequences = np.asarray(model(ids))
    rng = np.random.default_rng(2)
    for w in model.output_kernels + model.output_biases:
        w.assign(rng.normal(size=w.shape).astype("float32"))
    present = sorted({int(targets[i]) for i in ids.ravel()} - {-1})
    negatives = np.array([present[0], present[1], 11, 7], "int32")  # two collide with positives somewhere
    actual = float(model.objective(ids, sequences, negatives))
    np.testing.assert_allclose(actual, numpy_objective(ids, sequences, model, negatives), rtol=1e-5)


@pytest.mark.parametrize("jit_compile", [False, pytest.param(True, marks=pytest.mark.slow)])  # XLA: ~9 s on 2 cores
def test_trains_a_few_steps_on_tiny_data(jit_compile):
    ids = tiny_ids()
    keras.utils.set_random_seed(0)
    model = TvEmbedding(VOCAB, target_vocabulary(tokens(), 20), units=6, window=2, num_negatives=8, chop_size=5, seed=1)
    model.compile(keras.optimizers.Adam(1e-2), jit_compile=jit_compile)
    model(ids)
    before = [np.asarray(w).copy() for w in model.trainable_weights]
    losses = model.fit(ids, batch_size=8, epochs=6, verbose=0).history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0], losses
    changed = [not np.array_equal(b, np.asarray(w)) for b, w in zip(before, model.trainable_weights)]
    assert all(changed), [w.path for w, c in zip(model.trainable_weights, changed) if not c]
    assert model.predict(ids, verbose=0).shape == (16, 12, 12)  # both directions' h_t


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="a TensorFlow trainer's retrace")
def test_train_tv_embeddings_traces_its_step_once(monkeypatch, keras_as_users_run_it):
    """Built before `fit`: Keras' own trainer (the suite's pre-build switched off) traces the first step once."""
    traces = []
    train_step = TvEmbedding.train_step

    def counted(self, data):
        traces.append(1)
        return train_step(self, data)

    monkeypatch.setattr(TvEmbedding, "train_step", counted)
    train_tv_embeddings(tiny_ids(), tokens(), units=4, window=2, max_targets=20, num_negatives=8, chop_size=5)
    assert len(traces) == 1, len(traces)


def test_negatives_are_redrawn_every_batch():
    model = TvEmbedding(VOCAB, target_vocabulary(tokens(), 20), units=2, num_negatives=6, seed=3)
    draws = [np.asarray(keras.random.randint((6,), 0, 20, seed=model.seed_generator)) for _ in range(2)]
    assert not np.array_equal(*draws)


@pytest.mark.slow  # ~5 s on 2 cores (eager): trains the tv-embedding, then the region LSTM on it
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_trained_encoder_plugs_into_region_lstm_as_frozen_side_input():
    ids = tiny_ids()
    tv = train_tv_embeddings(
        ids,
        tokens(),
        units=4,
        window=2,
        max_targets=20,
        num_negatives=8,
        chop_size=4,
        epochs=1,
        batch_size=8,
        verbose=0,
    )
    assert len(tv.history.history["loss"]) == 1
    assert tuple(tv.encoder(ids).shape) == (16, 12, 8)
    model = oh_2lstmp(
        VOCAB, num_labels=3, max_tokens=12, units=5, num_regions=2, chop_size=4, side_encoders=[tv.encoder]
    )
    region = model.get_layer("region_lstm")
    assert not tv.encoder.trainable
    assert region.total_side_dim == 8 and tuple(region.side_kernel.shape) == (8, 2 * 2 * 5)
    frozen = [np.asarray(w).copy() for w in tv.encoder.weights]
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.CategoricalCrossentropy(from_logits=True))
    y = np.eye(3, dtype="float32")[ids[:, 0] % 3]
    model.fit(ids, y, batch_size=8, epochs=2, verbose=0)
    for old, new in zip(frozen, tv.encoder.weights):
        np.testing.assert_array_equal(old, np.asarray(new))
    # The side encoder is saved inside the model.
    before = model.predict(ids, verbose=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.keras")
        model.save(path)
        loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), before, atol=1e-6)
    assert not loaded.get_layer("region_lstm").side_encoders[0].trainable


def test_side_input_changes_the_supervised_model():
    ids = tiny_ids()
    tv = TvEmbedding(VOCAB, target_vocabulary(tokens(), 20), units=3, direction="forward")
    tv(ids)
    with_side = RegionLSTM(4, VOCAB, num_regions=2, side_encoders=[tv.encoder])
    with_side(ids)
    without = RegionLSTM(4, VOCAB, num_regions=2)
    without(ids)
    without.set_weights([np.asarray(w) for w in with_side.trainable_weights[:4]])
    assert not np.allclose(np.asarray(with_side(ids)), np.asarray(without(ids)))
    with_side.side_kernel.assign(np.zeros(with_side.side_kernel.shape, "float32"))
    np.testing.assert_allclose(np.asarray(with_side(ids)), np.asarray(without(ids)), atol=1e-6)


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"target_ids": np.zeros(5, "int32")}, "target_ids"),
        ({"target_ids": np.full(VOCAB, -1, "int32")}, "target_ids"),
        ({"units": 0}, "units"),
        ({"direction": "sideways"}, "direction"),
        ({"window": 0}, "window"),
        ({"num_negatives": -1}, "num_negatives"),
        ({"negative_weight": -0.5}, "negative_weight"),
    ],
)
def test_bad_arguments(kwargs, argument):
    arguments = {"vocabulary_size": VOCAB, "target_ids": target_vocabulary(tokens(), 20), **kwargs}
    with pytest.raises(ValueError, match=argument):
        TvEmbedding(**arguments)


@pytest.mark.parametrize("backward", [False, True])
def test_window_target_counts_match_a_loop(backward):
    ids = tiny_ids(seed=4)
    ids[2, :6] = [7, 7, 8, 7, 9, 7]  # repeats inside a window count once
    targets = target_vocabulary(tokens(), max_targets=15)
    counts, positions = window_target_counts(ids, targets, window=3, backward=backward)
    expected = np.zeros(targets.max() + 1)
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1]):
            if ids[b, t] == 0:
                continue
            window = range(t - 1, t - 4, -1) if backward else range(t + 1, t + 4)
            for j in {targets[ids[b, s]] for s in window if 0 <= s < ids.shape[1]} - {-1}:
                expected[j] += 1
    np.testing.assert_array_equal(counts, expected)
    assert positions == (ids != 0).sum()


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_output_biases_start_at_the_context_free_optimum_and_lower_the_first_loss():
    ids = tiny_ids(seed=5, shape=(32, 12))
    targets = target_vocabulary(tokens(), max_targets=20)

    def first_loss(initialize):
        keras.utils.set_random_seed(0)
        tv = TvEmbedding(VOCAB, targets, units=3, window=2, num_negatives=6, negative_weight=0.5, seed=1)
        tv(ids[:2])
        if initialize:
            tv.initialize_output_biases(ids)
        tv.compile(keras.optimizers.Adam(1e-3))
        return tv, tv.evaluate(ids, batch_size=32, verbose=0)

    tv, initialized = first_loss(True)
    _, zero = first_loss(False)
    for d, name in enumerate(tv.directions):
        counts, n = window_target_counts(ids, targets, 2, backward=name == "backward")
        np.testing.assert_allclose(np.asarray(tv.output_biases[d]), counts / (counts + n * 0.5 * 6 / 20), rtol=1e-6)
    assert initialized < zero


def test_context_free_scores_minimise_the_expected_loss():
    ids = tiny_ids(seed=6, shape=(24, 12))
    tv = TvEmbedding(
        VOCAB, target_vocabulary(tokens(), max_targets=20), units=2, window=3, num_negatives=5, negative_weight=2.0
    )
    biases, loss = tv.context_free_scores(ids)
    rate = 2.0 * 5 / tv.num_targets

    def expected_loss(scale):
        total = 0.0
        for b, name in zip(biases, tv.directions):
            counts, n = window_target_counts(ids, tv.target_ids, 3, backward=name == "backward")
            total += (np.sum(counts * (1 - scale * b) ** 2) + n * rate * np.sum((scale * b) ** 2)) / n
        return total

    assert loss == pytest.approx(expected_loss(1.0))
    assert loss < expected_loss(0.9) and loss < expected_loss(1.1)
    nothing = (
        sum(window_target_counts(ids, tv.target_ids, 3, backward=d == "backward")[0].sum() for d in tv.directions)
        / (ids != 0).sum()
    )
    assert expected_loss(0.0) == pytest.approx(nothing) and loss < nothing
