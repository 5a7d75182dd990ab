"""RegionLSTM against NumPy references (Johnson & Zhang 2016).

The shared contract checks (config, save/load, XLA fit step, mixed precision,
mask invariance) run through `run_layer_test` in tests/test_layer_contracts.py
and tests/test_backends.py (cases in tests/layer_cases.py)."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from region_lstm_helpers import numpy_region_pooling

from keras_labelemb.layers import RegionLSTM

VOCAB = 20


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_direction(ids, mask, table, recurrent, bias, gates, backward, side=None):
    """One direction of the one-hot LSTM, step by step: (B, T) ids -> (B, T, q) outputs (zeros at padding)."""
    batch, length = ids.shape
    q = recurrent.shape[0]
    h, c = np.zeros((batch, q)), np.zeros((batch, q))
    out = np.zeros((batch, length, q))
    for t in reversed(range(length)) if backward else range(length):
        z = table[ids[:, t]] + h @ recurrent + bias
        if side is not None:
            z = z + side[:, t]
        if gates == "no_io":  # eqs. 2-3
            f, u = sigmoid(z[:, :q]), np.tanh(z[:, q:])
            c_new = u + f * c
            h_new = np.tanh(c_new)
        else:
            i, f, o, u = (
                sigmoid(z[:, :q]),
                sigmoid(z[:, q : 2 * q]),
                sigmoid(z[:, 2 * q : 3 * q]),
                np.tanh(z[:, 3 * q :]),
            )
            c_new = i * u + f * c
            h_new = o * np.tanh(c_new)
        m = mask[:, t : t + 1]
        c = np.where(m, c_new, c)
        h = np.where(m, h_new, h)
        out[:, t] = np.where(m, h_new, 0.0)
    return out


def numpy_region_lstm(layer, ids, mask=None, side_inputs=None):
    """The layer's per-step outputs `(B, T, D*q)`, recomputed in NumPy from its weights."""
    mask = (ids != 0) if mask is None else (mask & (ids != 0))
    width = layer.num_gates * layer.units
    side = None
    if side_inputs is not None:
        side = side_inputs @ np.asarray(layer.side_kernel)
    outs = []
    for d, name in enumerate(layer.directions):
        outs.append(
            numpy_direction(
                ids,
                mask,
                np.asarray(layer.kernels[name]),
                np.asarray(layer.recurrent_kernel)[d],
                np.asarray(layer.bias)[d],
                layer.gates,
                name == "backward",
                None if side is None else side[..., d * width : (d + 1) * width],
            )
        )
    return np.concatenate(outs, axis=-1)


def random_ids(rng, shape=(4, 9)):
    ids = rng.integers(1, VOCAB, size=shape).astype("int32")
    ids[0, 6:] = 0  # right padding
    ids[1, :3] = 0  # left padding
    ids[2, 4] = 0  # a padding id inside the document
    ids[3] = 0  # an all-padding document
    return ids


def built(layer, ids, **call_kwargs):
    layer(ids, **call_kwargs)
    # Random (not tiny) tables and biases so that every gate matters in the comparisons.
    rng = np.random.default_rng(1)
    layer.set_weights([rng.normal(scale=0.7, size=w.shape).astype("float32") for w in layer.get_weights()])
    return layer


@pytest.mark.parametrize("direction", ["forward", "backward", "bidirectional"])
def test_no_gate_cell_matches_numpy_equations_2_3(direction):
    rng = np.random.default_rng(0)
    ids = random_ids(rng)
    layer = built(RegionLSTM(5, VOCAB, gates="no_io", direction=direction, pooling=None), ids)
    np.testing.assert_allclose(np.asarray(layer(ids)), numpy_region_lstm(layer, ids), atol=1e-5)


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_full_lstm_matches_numpy(direction):
    rng = np.random.default_rng(1)
    ids = random_ids(rng)
    layer = built(RegionLSTM(4, VOCAB, gates="full", direction=direction, pooling=None), ids)
    np.testing.assert_allclose(np.asarray(layer(ids)), numpy_region_lstm(layer, ids), atol=1e-5)


def test_explicit_mask_is_merged_with_padding_ids():
    rng = np.random.default_rng(2)
    ids = random_ids(rng)
    mask = np.ones(ids.shape, bool)
    mask[0, 1] = False
    layer = built(RegionLSTM(3, VOCAB, pooling=None), ids)
    np.testing.assert_allclose(np.asarray(layer(ids, mask=mask)), numpy_region_lstm(layer, ids, mask), atol=1e-5)
    np.testing.assert_array_equal(np.asarray(layer.compute_mask(ids, mask)), mask & (ids != 0))


def test_weight_shapes_are_one_lookup_table_per_direction():
    layer = RegionLSTM(6, VOCAB, gates="no_io", direction="bidirectional")
    layer.build((None, 9))
    shapes = {w.path.split("/")[-1]: tuple(w.shape) for w in layer.trainable_weights}
    assert shapes == {
        "forward_kernel": (VOCAB, 12),
        "backward_kernel": (VOCAB, 12),
        "recurrent_kernel": (2, 6, 12),
        "bias": (2, 12),
    }
    full = RegionLSTM(6, VOCAB, gates="full", direction="forward")
    full.build((None, 9))
    assert tuple(full.kernels["forward"].shape) == (VOCAB, 24)
    # unit_forget_bias: the forget gate starts at 1 ([f, u] and [i, f, o, u] orders).
    np.testing.assert_array_equal(np.asarray(layer.bias)[:, :6], 1.0)
    np.testing.assert_array_equal(np.asarray(full.bias)[:, 6:12], 1.0)


def test_bidirectional_is_time_aligned_concat_of_both_directions():
    rng = np.random.default_rng(3)
    ids = random_ids(rng)
    bi = built(RegionLSTM(4, VOCAB, pooling=None), ids)
    forward = RegionLSTM(4, VOCAB, direction="forward", pooling=None)
    backward = RegionLSTM(4, VOCAB, direction="backward", pooling=None)
    forward(ids), backward(ids)
    u, b = np.asarray(bi.recurrent_kernel), np.asarray(bi.bias)
    forward.set_weights([np.asarray(bi.kernels["forward"]), u[:1], b[:1]])
    backward.set_weights([np.asarray(bi.kernels["backward"]), u[1:], b[1:]])
    out = np.asarray(bi(ids))
    np.testing.assert_allclose(out[..., :4], np.asarray(forward(ids)), atol=1e-6)
    np.testing.assert_allclose(out[..., 4:], np.asarray(backward(ids)), atol=1e-6)
    # Step t of the backward half has read words t..T: it does not see earlier words.
    changed = ids.copy()
    changed[0, 0] = ids[0, 0] % (VOCAB - 1) + 1
    after = np.asarray(bi(changed))
    np.testing.assert_allclose(after[0, 1:, 4:], out[0, 1:, 4:], atol=1e-6)
    assert not np.allclose(after[0, 1:, :4], out[0, 1:, :4])


def test_backward_equals_forward_on_reversed_documents():
    rng = np.random.default_rng(4)
    ids = rng.integers(1, VOCAB, size=(3, 8)).astype("int32")
    backward = built(RegionLSTM(3, VOCAB, direction="backward", pooling=None), ids)
    forward = RegionLSTM(3, VOCAB, direction="forward", pooling=None)
    forward(ids)
    forward.set_weights(backward.get_weights())
    np.testing.assert_allclose(np.asarray(backward(ids)), np.asarray(forward(ids[:, ::-1]))[:, ::-1], atol=1e-6)


@pytest.mark.parametrize("chop_size,overlap", [(9, 0), (12, 0), (9, 3), (20, 5)])
def test_chop_size_at_least_length_equals_unchopped(chop_size, overlap):
    rng = np.random.default_rng(5)
    ids = random_ids(rng)
    chopped = built(RegionLSTM(4, VOCAB, num_regions=3, chop_size=chop_size, chop_overlap=overlap), ids)
    whole = RegionLSTM(4, VOCAB, num_regions=3)
    whole(ids)
    whole.set_weights(chopped.get_weights())
    np.testing.assert_allclose(
        np.asarray(chopped(ids, training=True)), np.asarray(whole(ids, training=False)), atol=1e-6
    )


def test_chopping_runs_each_segment_as_its_own_sequence():
    rng = np.random.default_rng(6)
    ids = random_ids(rng, (4, 10))
    layer = built(RegionLSTM(3, VOCAB, pooling=None, chop_size=4), ids)
    expected = np.concatenate([numpy_region_lstm(layer, ids[:, s : s + 4]) for s in (0, 4, 8)], axis=1)
    np.testing.assert_allclose(np.asarray(layer(ids, training=True)), expected, atol=1e-5)
    # Not chopped at inference, unless asked.
    np.testing.assert_allclose(np.asarray(layer(ids)), numpy_region_lstm(layer, ids), atol=1e-5)
    always = RegionLSTM(3, VOCAB, pooling=None, chop_size=4, chop_at_inference=True)
    always(ids)
    always.set_weights(layer.get_weights())
    np.testing.assert_allclose(np.asarray(always(ids)), expected, atol=1e-5)


def test_chop_overlap_reads_context_before_forward_and_after_backward_segments():
    rng = np.random.default_rng(7)
    ids = rng.integers(1, VOCAB, size=(2, 9)).astype("int32")
    chop, overlap = 3, 2
    layer = built(RegionLSTM(3, VOCAB, pooling=None, chop_size=chop, chop_overlap=overlap), ids)
    out = np.asarray(layer(ids, training=True))
    for start in range(0, 9, chop):
        left = max(0, start - overlap)
        forward = numpy_region_lstm(layer, ids[:, left : start + chop])[..., :3]
        np.testing.assert_allclose(out[:, start : start + chop, :3], forward[:, start - left :], atol=1e-5)
        right = min(9, start + chop + overlap)
        backward = numpy_region_lstm(layer, ids[:, start:right])[..., 3:]
        np.testing.assert_allclose(out[:, start : start + chop, 3:], backward[:, :chop], atol=1e-5)


def test_chopping_pads_length_to_a_multiple_and_pools_the_whole_document():
    rng = np.random.default_rng(8)
    ids = random_ids(rng, (4, 11))  # 11 = 2 * 5 + 1: the last segment is mostly padding
    layer = built(RegionLSTM(3, VOCAB, num_regions=2, chop_size=5), ids)
    sequence = RegionLSTM(3, VOCAB, pooling=None, chop_size=5)
    sequence(ids)
    sequence.set_weights(layer.get_weights())
    steps = np.asarray(sequence(ids, training=True))
    assert steps.shape == (4, 11, 6)
    expected = numpy_region_pooling(steps, ids != 0, 2, "max")
    np.testing.assert_allclose(np.asarray(layer(ids, training=True)), expected, atol=1e-6)


@pytest.mark.parametrize("pooling,k", [("max", 1), ("max", 3), ("average", 4)])
@pytest.mark.parametrize("chop_size", [None, 3])
def test_extra_padding_never_changes_the_pooled_output(pooling, k, chop_size):
    rng = np.random.default_rng(9)
    doc = rng.integers(1, VOCAB, size=7).astype("int32")
    plain = doc[None, :]
    padded = np.zeros((3, 15), "int32")
    padded[0, :7] = doc  # right padding
    padded[1, 8:] = doc  # left padding
    padded[2, 3:10] = doc  # both
    layer = built(RegionLSTM(4, VOCAB, pooling=pooling, num_regions=k), plain)
    reference = np.asarray(layer(plain))
    np.testing.assert_allclose(np.asarray(layer(padded)), np.repeat(reference, 3, axis=0), atol=1e-6)
    if chop_size:  # chopped training sees different segments, but padding still changes nothing
        chopped = RegionLSTM(4, VOCAB, pooling=pooling, num_regions=k, chop_size=chop_size)
        chopped(plain)
        chopped.set_weights(layer.get_weights())
        out = np.asarray(chopped(padded[:1], training=True))
        np.testing.assert_allclose(out, np.asarray(chopped(plain, training=True)), atol=1e-6)


def test_all_padding_document_pools_to_zeros():
    ids = np.zeros((2, 6), "int32")
    ids[0, :2] = [3, 4]
    for pooling in ("max", "average"):
        out = np.asarray(RegionLSTM(3, VOCAB, pooling=pooling, num_regions=4)(ids, training=True))
        assert np.all(np.isfinite(out))
        np.testing.assert_array_equal(out[1], 0.0)
        # Two words, four regions: regions 1 and 3 are empty.
        np.testing.assert_array_equal(out[0].reshape(4, 6)[[1, 3]], 0.0)


def test_side_inputs_enter_every_gate_pre_activation():
    rng = np.random.default_rng(11)
    ids = random_ids(rng)
    side = rng.normal(size=ids.shape + (5,)).astype("float32")
    layer = RegionLSTM(3, VOCAB, pooling=None, side_input_dim=5)
    layer(ids, side_inputs=side)
    weights = [rng.normal(scale=0.7, size=w.shape).astype("float32") for w in layer.get_weights()]
    layer.set_weights(weights)
    expected = numpy_region_lstm(layer, ids, side_inputs=side)
    np.testing.assert_allclose(np.asarray(layer(ids, side_inputs=side)), expected, atol=1e-5)
    # A list of side inputs is the same as their concatenation (sum_j W~(j) x~(j)).
    np.testing.assert_allclose(np.asarray(layer(ids, side_inputs=[side[..., :2], side[..., 2:]])), expected, atol=1e-5)
    # Chopped: each segment reads the side inputs at its own positions.
    chopped = RegionLSTM(3, VOCAB, pooling=None, side_input_dim=5, chop_size=9)
    chopped(ids, side_inputs=side)
    chopped.set_weights(weights)
    np.testing.assert_allclose(np.asarray(chopped(ids, side_inputs=side, training=True)), expected, atol=1e-5)


def test_side_inputs_in_a_functional_model():
    ids = keras.Input((6,), dtype="int32")
    side = keras.Input((6, 4))
    pooled = RegionLSTM(3, VOCAB, side_input_dim=4, num_regions=2)(ids, side_inputs=side)
    model = keras.Model([ids, side], keras.layers.Dense(2)(pooled))
    rng = np.random.default_rng(12)
    x = [rng.integers(0, VOCAB, size=(4, 6)).astype("int32"), rng.normal(size=(4, 6, 4)).astype("float32")]
    predicted = model.predict(x, verbose=0)
    assert predicted.shape == (4, 2)
    np.testing.assert_allclose(predicted, keras.ops.convert_to_numpy(model(x)), atol=1e-5)
    other_side = model.predict([x[0], x[1] + 1.0], verbose=0)
    assert np.abs(other_side - predicted).max() > 1e-4  # the side inputs reach the output


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_side_encoders_are_frozen_by_default_and_feed_the_gates():
    rng = np.random.default_rng(13)
    ids = random_ids(rng)
    encoder = RegionLSTM(4, VOCAB, gates="full", direction="forward", pooling=None)
    layer = RegionLSTM(3, VOCAB, num_regions=2, side_encoders=[encoder])
    layer(ids)
    assert not encoder.trainable and len(layer.non_trainable_weights) == 3
    assert [w.path.split("/")[-1] for w in layer.trainable_weights].count("side_kernel") == 1
    # Same as passing the encoder's outputs as side inputs.
    direct = RegionLSTM(3, VOCAB, num_regions=2, side_input_dim=4)
    direct(ids, side_inputs=encoder(ids))
    direct.set_weights([np.asarray(w) for w in layer.trainable_weights])
    np.testing.assert_allclose(np.asarray(layer(ids)), np.asarray(direct(ids, side_inputs=encoder(ids))), atol=1e-6)
    # Training changes the main layer, never the frozen encoder.
    model = keras.Sequential([keras.Input((9,), dtype="int32"), layer, keras.layers.Dense(2)])
    model.compile("adam", "mse")
    before = [np.asarray(w).copy() for w in encoder.weights]
    model.fit(ids, rng.normal(size=(4, 2)).astype("float32"), verbose=0)
    for old, new in zip(before, encoder.weights):
        np.testing.assert_array_equal(old, np.asarray(new))
    trainable = RegionLSTM(3, VOCAB, side_encoders=[RegionLSTM(2, VOCAB, pooling=None)], train_side_encoders=True)
    trainable(ids)
    assert len(trainable.trainable_weights) == 5 + 4 and not trainable.non_trainable_weights


@pytest.mark.parametrize("gates", ["no_io", "full"])
def test_gradients_reach_every_weight(gates):
    rng = np.random.default_rng(14)
    ids = random_ids(rng, (4, 12))
    layer = RegionLSTM(4, VOCAB, gates=gates, num_regions=2, chop_size=5, chop_overlap=1)
    layer(ids)
    for training in (True, False):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(layer(ids, training=training)))
        grads = tape.gradient(loss, layer.trainable_weights)
        for w, g in zip(layer.trainable_weights, grads):
            g = tf.convert_to_tensor(g).numpy()
            assert np.all(np.isfinite(g)) and np.abs(g).sum() > 0, w.path
    # Table rows of words that never occur (and of padding) get no gradient.
    table_grad = tf.convert_to_tensor(grads[0]).numpy()
    unused = sorted(set(range(VOCAB)) - set(ids.ravel().tolist()) | {0})
    np.testing.assert_array_equal(table_grad[unused], 0.0)


def test_trains_under_xla_with_chopping():
    rng = np.random.default_rng(15)
    ids = rng.integers(0, VOCAB, size=(16, 12)).astype("int32")
    y = np.eye(3, dtype="float32")[ids[:, 0] % 3]
    model = keras.Sequential(
        [
            keras.Input((12,), dtype="int32"),
            RegionLSTM(8, VOCAB, num_regions=2, chop_size=4),
            keras.layers.Dense(3),
        ]
    )
    model.compile(keras.optimizers.Adam(0.05), keras.losses.CategoricalCrossentropy(from_logits=True), jit_compile=True)
    losses = model.fit(ids, y, batch_size=8, epochs=8, verbose=0).history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]


@pytest.mark.parametrize(
    "kwargs,argument",
    [
        ({"units": 0}, "units"),
        ({"units": 2.5}, "units"),
        ({"vocabulary_size": 1}, "vocabulary_size"),
        ({"gates": "gru"}, "gates"),
        ({"direction": "both"}, "direction"),
        ({"pooling": "sum"}, "pooling"),
        ({"num_regions": 0}, "num_regions"),
        ({"chop_size": 0}, "chop_size"),
        ({"chop_size": 5, "chop_overlap": -1}, "chop_overlap"),
        ({"chop_overlap": 2}, "chop_overlap"),
        ({"chop_at_inference": True}, "chop_at_inference"),
        ({"side_encoders": [3]}, "side_encoders"),
        ({"side_input_dim": 0}, "side_input_dim"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(kwargs, argument):
    arguments = {"units": 4, "vocabulary_size": VOCAB, **kwargs}
    with pytest.raises(ValueError, match=argument):
        RegionLSTM(**arguments)


def test_bad_inputs_raise_value_errors():
    with pytest.raises(ValueError, match="inputs"):
        RegionLSTM(3, VOCAB).build((2, 5, 4))  # embedded words instead of ids
    ids = np.ones((2, 5), "int32")
    with pytest.raises(ValueError, match="side_input_dim"):
        RegionLSTM(3, VOCAB)(ids, side_inputs=np.ones((2, 5, 2), "float32"))
    with pytest.raises(ValueError, match="side_input_dim"):
        RegionLSTM(3, VOCAB, side_input_dim=3)(ids, side_inputs=np.ones((2, 5, 2), "float32"))
    with pytest.raises(ValueError, match="side_inputs"):
        RegionLSTM(3, VOCAB, side_input_dim=3)(ids)
    with pytest.raises(ValueError, match="side encoder"):
        RegionLSTM(3, VOCAB, side_encoders=[RegionLSTM(2, VOCAB)])(ids)  # pooled, not per step


def test_config_round_trip_keeps_side_encoders():
    encoder = RegionLSTM(2, VOCAB, gates="full", direction="backward", pooling=None, name="tv")
    layer = RegionLSTM(3, VOCAB, num_regions=2, chop_size=4, chop_overlap=1, side_encoders=[encoder])
    clone = RegionLSTM.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    assert clone.side_encoders[0].gates == "full" and clone.side_encoders[0].direction == "backward"


def test_token_ids_outside_the_vocabulary():
    """Eagerly a ValueError naming `inputs`; inside a compiled function they are read as padding."""
    import keras
    import pytest

    from keras_labelemb.layers import RegionLSTM

    layer = RegionLSTM(units=3, vocabulary_size=12, num_regions=2)
    ids = np.array([[3, 5, 7, 2, 0, 0]], "int32")
    for bad in (12, -1):
        wrong = ids.copy()
        wrong[0, 1] = bad
        with pytest.raises(ValueError, match=r"`inputs` holds token ids outside \[0, 12\)"):
            layer(wrong)
    model = keras.Sequential([keras.Input((6,), dtype="int32"), layer])
    model.compile(jit_compile=True)
    wrong = ids.copy()
    wrong[0, 1] = 40
    as_padding = ids.copy()
    as_padding[0, 1] = 0
    np.testing.assert_allclose(model.predict(wrong, verbose=0), model.predict(as_padding, verbose=0), atol=1e-6)


def test_build_builds_the_recurrence_and_the_pooling():
    """An unbuilt sublayer makes Keras' JAX `predict` run the whole model eagerly first."""
    layer = RegionLSTM(4, 20, chop_size=3)
    layer.build((2, 6))
    assert layer.recurrence.built and layer.region_pooling.built
