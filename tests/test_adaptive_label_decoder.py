"""AdaptiveLabelDecoder (CNLE eqs. 10-13): NumPy reference, greedy decoding rules, XLA = eager, gradients.

The shared contract checks run through `run_layer_test` (tests/layer_cases.py: adaptive_label_decoder_*).
"""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder
from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.text.label_sequences import frequency_order, label_sequences, label_sequences_to_multi_hot
from keras_labelemb.training.warmup_schedule import WarmupSchedule

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 2, 0]], "int32")


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax_masked(x, mask):
    e = np.where(mask, np.exp(x - np.where(mask, x, -1e30).max(-1, keepdims=True)), 0.0)
    total = e.sum(-1, keepdims=True)
    return e / np.where(total > 0, total, 1)


def numpy_teacher_forced(decoder, x, mask, sequence):
    """Eqs. 10-13 step by step from the decoder's weights (no encoder: X_fin = x, L_fin = E, zero states)."""
    E = np.asarray(decoder.encode_labels())
    kernel, recurrent, bias = (np.asarray(w) for w in decoder.cell.weights)
    W1, W2, W3 = (
        np.asarray(decoder.attention_kernel),
        np.asarray(decoder.context_kernel),
        np.asarray(decoder.label_kernel),
    )
    rows = np.concatenate([E, np.asarray(decoder.end_embedding)[None]], 0)
    batch, units = x.shape[0], W1.shape[1]
    h, c, r, e = (
        np.zeros((batch, units)),
        np.zeros((batch, units)),
        np.zeros((batch, units)),
        np.zeros((batch, E.shape[1])),
    )
    out = []
    for t in range(sequence.shape[1]):
        z = np.concatenate([e, r], -1) @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        a = softmax_masked(np.einsum("bmd,du,bu->bm", x, W1, h), mask)
        r = np.tanh(np.concatenate([np.einsum("bm,bmd->bd", a, x), h], -1) @ W2)
        out.append(np.einsum("kd,du,bu->bk", rows, W3, h))
        chosen = sequence[:, t]
        e = np.where(((chosen >= 0) & (chosen < len(E)))[:, None], E[np.clip(chosen, 0, len(E) - 1)], 0.0)
    return np.stack(out, 1)


def randomized(layer, *args, **kwargs):
    layer(*args, **kwargs)
    rng = np.random.default_rng(7)
    layer.set_weights([rng.normal(scale=0.6, size=w.shape).astype("float32") for w in layer.get_weights()])
    return layer


def text(seed=0, batch=4, length=6, width=6):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, length, width)).astype("float32")
    mask = np.ones((batch, length), bool)
    mask[0, 4:] = False
    mask[3] = False
    return x, mask


def decoder_with_encoder(max_steps=4, **kwargs):
    embedding = keras.layers.Embedding(12, 6, mask_zero=True)
    return AdaptiveLabelDecoder(
        embedding,
        LABELS,
        encoder=CoAttentiveEncoder(model_dim=6, num_heads=2, **kwargs),
        max_steps=max_steps,
        output_mode="sequence",
    )


def test_teacher_forcing_matches_numpy_equations():
    x, mask = text()
    sequence = np.array([[0, 2, 4, -1], [1, 4, -1, -1], [3, 0, 1, 4], [4, -1, -1, -1]], "int32")
    decoder = AdaptiveLabelDecoder(keras.layers.Embedding(12, 6, mask_zero=True), LABELS, units=5, max_steps=4)
    randomized(decoder, x, label_sequence=sequence, mask=mask)
    got = np.asarray(decoder(x, label_sequence=sequence, mask=mask))
    np.testing.assert_allclose(got, numpy_teacher_forced(decoder, x, mask, sequence), atol=1e-4)


def test_greedy_decoding_never_repeats_and_pads_after_the_end():
    x, mask = text(batch=8)
    decoder = randomized(decoder_with_encoder(max_steps=7), x, mask=mask)
    longest = 0
    for seed in range(3):
        decoder.set_weights([w * (1 + seed) for w in decoder.get_weights()])
        sequences = np.asarray(decoder(x, mask=mask))
        for row in sequences:
            labels = [p for p in row if 0 <= p < 4]
            assert len(labels) == len(set(labels)), row
            longest = max(longest, len(labels))
            if 4 in row.tolist():
                end = row.tolist().index(4)
                assert all(p == -1 for p in row[end + 1 :]), row
                assert all(0 <= p < 4 for p in row[:end]), row
        # The multi-hot output is the decoded set of each sequence.
        decoder.output_mode = "multi_hot"
        np.testing.assert_array_equal(np.asarray(decoder(x, mask=mask)), label_sequences_to_multi_hot(sequences, 4))
        decoder.output_mode = "sequence"
    assert longest >= 2  # the check saw sequences of several labels


def test_greedy_choices_follow_the_step_logits():
    x, mask = text()
    decoder = randomized(decoder_with_encoder(max_steps=3), x, mask=mask)
    sequences = np.asarray(decoder(x, mask=mask))
    decoder.output_mode = "logits"
    logits = np.asarray(decoder(x, mask=mask))
    np.testing.assert_array_equal(sequences[:, 0], logits[:, 0].argmax(-1))
    # Feeding the decoded labels back as teacher forcing gives the same step logits.
    forced = np.asarray(decoder(x, label_sequence=np.where(sequences < 0, 4, sequences), mask=mask))
    for b, row in enumerate(sequences):
        steps = (row.tolist() + [4]).index(4) + 1
        np.testing.assert_allclose(forced[b, :steps], logits[b, :steps], atol=1e-5)


def test_xla_decoding_equals_eager_decoding():
    x, mask = text()
    decoder = randomized(decoder_with_encoder(max_steps=4), x, mask=mask)
    eager = np.asarray(decoder(x, mask=mask))
    inputs = keras.Input((6, 6))
    mask_input = keras.Input((6,), dtype="bool")
    model = keras.Model([inputs, mask_input], decoder(inputs, mask=mask_input))
    model.compile(jit_compile=True)
    np.testing.assert_array_equal(model.predict([x, mask], verbose=0), eager)


def test_gradients_reach_every_weight_in_teacher_forced_training():
    x, mask = text()
    sequence = label_sequences(np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]]), max_steps=4)
    for kwargs in ({}, {"use_text_to_label_attention": False}):
        decoder = decoder_with_encoder(**kwargs)
        decoder(x, mask=mask)
        with tf.GradientTape() as tape:
            loss = LabelSequenceLoss()(sequence, decoder(x, label_sequence=sequence, mask=mask))
        grads = tape.gradient(loss, decoder.trainable_weights)
        missing = [
            w.path for w, g in zip(decoder.trainable_weights, grads) if g is None or not np.any(tf.convert_to_tensor(g))
        ]
        assert not missing, missing


def test_mixed_precision_forward_and_gradients_are_finite():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_float16")
    try:
        x, mask = text()
        decoder = decoder_with_encoder()
        sequence = np.array([[0, 4, -1, -1]] * 4, "int32")
        with tf.GradientTape() as tape:
            logits = decoder(x, label_sequence=sequence, mask=mask)
            loss = LabelSequenceLoss()(sequence, logits)
        assert logits.dtype == "float16"
        grads = tape.gradient(loss, decoder.trainable_weights)
        assert all(np.all(np.isfinite(np.asarray(tf.convert_to_tensor(g)))) for g in grads if g is not None)
        assert np.all(np.asarray(decoder(x, mask=mask)) >= -1)
    finally:
        keras.config.set_dtype_policy(previous)


def test_fully_padded_text_decodes_finitely():
    x, _ = text()
    decoder = decoder_with_encoder()
    decoder.output_mode = "logits"
    assert np.all(np.isfinite(np.asarray(decoder(x, mask=np.zeros((4, 6), bool)))))


def test_label_set_swaps_and_call_time_labels():
    x, mask = text()
    decoder = randomized(decoder_with_encoder(), x, mask=mask)
    decoder.output_mode = "multi_hot"
    assert tuple(decoder(x, mask=mask).shape) == (4, 4)
    other = np.array([[2, 3, 0], [10, 11, 0]], "int32")
    assert tuple(decoder(x, mask=mask, label_ids=other).shape) == (4, 2)
    decoder.set_labels(other)
    assert decoder.num_labels == 2 and tuple(decoder(x, mask=mask).shape) == (4, 2)
    with pytest.raises(ValueError, match="subset"):
        decoder.score_subset(x, np.array([0]))


def test_without_label_embedding_has_per_label_weights():
    x, mask = text()
    decoder = AdaptiveLabelDecoder(
        encoder=CoAttentiveEncoder(model_dim=6, num_heads=2, use_label_embedding=False), num_labels=4, max_steps=3
    )
    assert tuple(decoder(x, mask=mask).shape) == (4, 4)
    assert decoder.has_per_label_parameters and not decoder.scores_label_sets
    names = {w.path.split("/")[-1] for w in decoder.trainable_weights}
    assert {"label_input_embeddings", "output_kernel", "output_bias"} <= names and "label_kernel" not in names
    with pytest.raises(ValueError, match="reads no labels"):
        decoder(x, mask=mask, label_ids=LABELS)
    with pytest.raises(ValueError, match="num_labels"):
        AdaptiveLabelDecoder(encoder=CoAttentiveEncoder(model_dim=6, use_label_embedding=False), max_steps=3)


def test_multi_class_is_one_step_over_the_labels():
    x, mask = text()
    decoder = AdaptiveLabelDecoder(
        keras.layers.Embedding(12, 6, mask_zero=True),
        LABELS,
        encoder=CoAttentiveEncoder(model_dim=6, num_heads=2),
        multi_label=False,
        output_mode="multi_hot",
    )
    decoded = np.asarray(decoder(x, mask=mask))
    np.testing.assert_array_equal(decoded.sum(-1), 1.0)
    assert tuple(decoder(x, label_sequence=np.zeros((4, 1), "int32"), mask=mask).shape) == (4, 1, 4)
    with pytest.raises(ValueError, match="one step"):
        AdaptiveLabelDecoder(keras.layers.Embedding(12, 6), LABELS, multi_label=False, max_steps=3)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"max_steps": None}, "max_steps"),
        ({"max_steps": 3, "output_mode": "probabilities"}, "output_mode"),
        ({"max_steps": 3, "encoder": "lstm"}, "encoder"),
        ({"max_steps": 3, "units": 5, "encoder": CoAttentiveEncoder(model_dim=6)}, "units"),
    ],
)
def test_arguments_are_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        AdaptiveLabelDecoder(keras.layers.Embedding(12, 6), LABELS, **kwargs)


# ---------------------------------------------------------------- label sequences, loss, schedule


def test_label_sequences_round_trip_in_a_fixed_order():
    targets = np.array([[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]])
    sequences = label_sequences(targets, max_steps=5)
    assert sequences.tolist() == [[1, 2, 4, -1, -1], [0, 3, 4, -1, -1], [4, -1, -1, -1, -1], [0, 1, 2, 3, 4]]
    np.testing.assert_array_equal(label_sequences_to_multi_hot(sequences, 4), targets)
    order = frequency_order(targets)
    assert order.tolist() == [0, 1, 2, 3]  # ties keep the label-set order
    assert label_sequences(targets, max_steps=3, order=[3, 2, 1, 0]).tolist()[3] == [3, 2, 4]  # truncated, ended
    assert label_sequences(np.eye(4)[[2, 0]], multi_label=False).tolist() == [[2], [0]]
    with pytest.raises(ValueError, match="exactly one label"):
        label_sequences(targets, multi_label=False)
    with pytest.raises(ValueError, match="permutation"):
        label_sequences(targets, order=[0, 0, 1, 2])


def test_loss_is_masked_after_the_end_symbol():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 3, 5)).astype("float32")
    y = np.array([[1, 4, -1], [4, -1, -1]])
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = (-(log_p[0, 0, 1] + log_p[0, 1, 4]) - log_p[1, 0, 4]) / 2
    np.testing.assert_allclose(float(LabelSequenceLoss()(y, logits)), expected, rtol=1e-5)
    changed = logits.copy()
    changed[0, 2] = 100.0  # a padded step
    np.testing.assert_allclose(float(LabelSequenceLoss()(y, changed)), expected, rtol=1e-5)


def test_warmup_schedule_rises_then_decays_and_serializes():
    schedule = WarmupSchedule(model_dim=256, warmup_steps=800)
    rates = [float(schedule(step)) for step in (0, 399, 799, 3199)]
    assert rates[0] < rates[1] < rates[2] and rates[3] < rates[2]
    np.testing.assert_allclose(rates[2], 256**-0.5 * 800**-0.5, rtol=1e-5)
    np.testing.assert_allclose(rates[3], rates[2] / 2, rtol=1e-4)
    clone = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(schedule))
    assert float(clone(100)) == float(schedule(100))
    with pytest.raises(ValueError, match="warmup_steps"):
        WarmupSchedule(warmup_steps=0)
