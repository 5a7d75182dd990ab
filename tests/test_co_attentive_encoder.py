"""CoAttentiveEncoder (CNLE section 3.2) on its own: the wiring of eqs. 3 and 6-9, masks, ablations.

CoAttention itself is checked against NumPy in test_co_attention.py; here the encoder's outputs are
recomputed from its own sublayers, so a wrong connection (a second BiLSTM for the labels, states not
taken from the final text BiLSTM, padding read) fails. The decoder around it: test_adaptive_label_decoder.py.
"""

import keras
import numpy as np
import pytest
from keras import ops

from keras_labelemb.layers import CoAttentiveEncoder

RNG = np.random.default_rng(21)
WORDS = RNG.normal(size=(2, 5, 6)).astype("float32")
LABELS = RNG.normal(size=(3, 7)).astype("float32")  # label vectors may be wider than the word vectors


def encoder(**kwargs):
    keras.utils.set_random_seed(0)
    return CoAttentiveEncoder(model_dim=8, num_heads=2, **kwargs)


def numpy_of(tensors):
    return [ops.convert_to_numpy(t) for t in tensors]


def test_outputs_follow_eqs_3_and_6_to_9_through_its_own_sublayers():
    layer = encoder()
    x_fin, l_fin, h, c = numpy_of(layer(WORDS, labels=LABELS))
    # X_enc, L_enc: one shared BiLSTM over both projections (eq. 3).
    x_enc = layer.shared_bilstm(layer.text_projection(WORDS))
    l_enc = layer.shared_bilstm(layer.label_projection(LABELS[None]))[0]
    x_fuse, l_fuse, _, _ = layer.co_attention(x_enc, labels=l_enc)
    want_l_fin = ops.convert_to_numpy(layer.label_bilstm(l_fuse))
    want_x_fin, h_f, c_f, h_b, c_b = numpy_of(layer.text_bilstm(x_fuse))
    np.testing.assert_allclose(x_fin, want_x_fin, atol=1e-5)
    np.testing.assert_allclose(l_fin, want_l_fin, atol=1e-5)
    # The decoder's initial state: the final text BiLSTM's forward and backward states, concatenated.
    np.testing.assert_allclose(h, np.concatenate([h_f, h_b], -1), atol=1e-5)
    np.testing.assert_allclose(c, np.concatenate([c_f, c_b], -1), atol=1e-5)
    assert x_fin.shape == (2, 5, 8) and l_fin.shape == (2, 3, 8) and h.shape == c.shape == (2, 8)


def test_one_label_sequence_shared_by_the_batch_equals_it_repeated_per_text():
    layer = encoder()
    shared = numpy_of(layer(WORDS, labels=LABELS))
    repeated = numpy_of(layer(WORDS, labels=np.broadcast_to(LABELS, (2, 3, 7)).copy()))
    for got, want in zip(shared, repeated):
        np.testing.assert_allclose(got, want, atol=1e-5)


def test_padded_words_and_labels_change_nothing_and_come_out_zero():
    layer = encoder()
    mask = np.ones((2, 5), bool)
    mask[0, 3:] = False
    labels_mask = np.array([True, True, False])
    noisy = WORDS.copy()
    noisy[0, 3:] = 100.0  # padding content must not be read
    x_fin, l_fin, h, c = numpy_of(layer(noisy, labels=LABELS, mask=mask, labels_mask=labels_mask))
    alone = numpy_of(layer(WORDS[:1, :3], labels=LABELS[:2]))  # the same text and labels without padding
    np.testing.assert_allclose(x_fin[0, :3], alone[0][0], atol=1e-5)
    np.testing.assert_allclose(l_fin[0, :2], alone[1][0], atol=1e-5)
    np.testing.assert_allclose(h[0], alone[2][0], atol=1e-5)
    np.testing.assert_allclose(c[0], alone[3][0], atol=1e-5)
    assert not x_fin[0, 3:].any() and not l_fin[:, 2].any()


def test_without_label_embedding_it_reads_no_labels():
    layer = encoder(use_label_embedding=False)
    x_fin, h, c = numpy_of(layer(WORDS))
    x_fuse = layer.co_attention(layer.shared_bilstm(layer.text_projection(WORDS)))
    want_x_fin, h_f, c_f, h_b, c_b = numpy_of(layer.text_bilstm(x_fuse))
    np.testing.assert_allclose(x_fin, want_x_fin, atol=1e-5)
    np.testing.assert_allclose(h, np.concatenate([h_f, h_b], -1), atol=1e-5)
    with pytest.raises(ValueError, match="reads no labels"):
        layer(WORDS, labels=LABELS)
    with pytest.raises(ValueError, match="`labels`.*required"):
        encoder()(WORDS)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"model_dim": 7}, "model_dim=7"), ({"model_dim": 0}, "model_dim"), ({"dropout": 1.5}, "dropout")],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CoAttentiveEncoder(**kwargs)
