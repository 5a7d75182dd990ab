"""Tests of `label_sequences`."""

import numpy as np
import pytest
import tensorflow as tf
from adaptive_label_decoder_helpers import decoder_with_encoder, randomized, text

from keras_labelemb.losses.label_sequence_loss import LabelSequenceLoss
from keras_labelemb.losses.label_sequences import frequency_order, label_sequences, label_sequences_to_multi_hot

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 2, 0]], "int32")


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
