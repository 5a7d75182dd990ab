"""AdaptiveLabelDecoder (CNLE eqs. 10-13): NumPy reference, greedy decoding rules, XLA = eager, gradients.

The shared contract checks run through `run_layer_test` (tests/layer_cases.py: adaptive_label_decoder_*)."""

import keras
import numpy as np
import pytest
from adaptive_label_decoder_helpers import decoder_with_encoder, randomized, text

from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 2, 0]], "int32")


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softmax_masked(x, mask):
    e = np.where(mask, np.exp(x - np.where(mask, x, -1e30).max(-1, keepdims=True)), 0.0)
    total = e.sum(-1, keepdims=True)
    return e / np.where(total > 0, total, 1)


def numpy_teacher_forced(decoder, x, mask, sequence):
    """Eqs. 10-13 step by step from the decoder's weights (no encoder: X_fin = x, L_fin = E, zero states)."""
    E = np.asarray(decoder.embed_labels())
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


def test_teacher_forcing_matches_numpy_equations():
    x, mask = text()
    sequence = np.array([[0, 2, 4, -1], [1, 4, -1, -1], [3, 0, 1, 4], [4, -1, -1, -1]], "int32")
    decoder = AdaptiveLabelDecoder(keras.layers.Embedding(12, 6, mask_zero=True), LABELS, units=5, max_steps=4)
    randomized(decoder, x, label_sequence=sequence, mask=mask)
    got = np.asarray(decoder(x, label_sequence=sequence, mask=mask))
    np.testing.assert_allclose(got, numpy_teacher_forced(decoder, x, mask, sequence), atol=1e-4)


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


@pytest.mark.slow  # ~6 s on 2 cores: XLA compiles the unrolled greedy decoder
def test_xla_decoding_equals_eager_decoding():
    x, mask = text()
    decoder = randomized(decoder_with_encoder(max_steps=4), x, mask=mask)
    eager = np.asarray(decoder(x, mask=mask))
    inputs = keras.Input((6, 6))
    mask_input = keras.Input((6,), dtype="bool")
    model = keras.Model([inputs, mask_input], decoder(inputs, mask=mask_input))
    model.compile(jit_compile=True)
    np.testing.assert_array_equal(model.predict([x, mask], verbose=0), eager)


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
