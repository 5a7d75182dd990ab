import numpy as np
from keras import ops

from keras_labelemb.layers import LabelEncoder

RNG = np.random.default_rng(1)


def test_masked_mean_matches_numpy():
    words = RNG.normal(size=(4, 6, 3)).astype("float32")
    mask = RNG.random((4, 6)) > 0.4
    mask[2] = False
    expected = np.stack([words[i][mask[i]].mean(0) if mask[i].any() else np.zeros(3) for i in range(4)])
    np.testing.assert_allclose(ops.convert_to_numpy(LabelEncoder()(words, mask=mask)), expected, atol=1e-6)


def test_without_mask_is_plain_mean():
    words = RNG.normal(size=(2, 5, 3)).astype("float32")
    np.testing.assert_allclose(ops.convert_to_numpy(LabelEncoder()(words)), words.mean(1), atol=1e-6)


def test_inputs_of_another_rank_name_the_argument_and_shape():
    import pytest

    with pytest.raises(ValueError, match=r"`inputs` must have rank 3.*\(4, 3\)"):
        LabelEncoder()(np.zeros((4, 3), "float32"))
    with pytest.raises(ValueError, match=r"`inputs` must have rank 3.*\(3,\)"):
        LabelEncoder()(np.zeros((3,), "float32"))
