import numpy as np
from keras import ops

from keras_labelemb.layers import LabelEncoder
from keras_labelemb.testing import run_layer_test

RNG = np.random.default_rng(1)


def test_layer_contract():
    mask = np.ones((4, 6), bool)
    mask[1, 2:] = False
    mask[3] = False  # empty description
    run_layer_test(
        LabelEncoder,
        {},
        RNG.normal(size=(4, 6, 3)).astype("float32"),
        expected_output_shape=(4, 3),
        mask=mask,
        expected_num_trainable_weights=0,
        run_training=False,  # no weights to train
    )


def test_masked_mean_matches_numpy():
    words = RNG.normal(size=(4, 6, 3)).astype("float32")
    mask = RNG.random((4, 6)) > 0.4
    mask[2] = False
    expected = np.stack([words[i][mask[i]].mean(0) if mask[i].any() else np.zeros(3) for i in range(4)])
    np.testing.assert_allclose(ops.convert_to_numpy(LabelEncoder()(words, mask=mask)), expected, atol=1e-6)


def test_without_mask_is_plain_mean():
    words = RNG.normal(size=(2, 5, 3)).astype("float32")
    np.testing.assert_allclose(ops.convert_to_numpy(LabelEncoder()(words)), words.mean(1), atol=1e-6)
