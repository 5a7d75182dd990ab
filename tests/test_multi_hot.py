"""Tests of `multi_hot`."""

import numpy as np
import pytest

from keras_labelemb.text.multi_hot import multi_hot


def test_multi_hot_values_dtype_and_shape():
    out = multi_hot([[0, 2], [], [1, 1], np.array([3])], num_labels=4)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])


@pytest.mark.parametrize("bad", [[[0, 4]], [[-1]], [[1.5]], [3]])
def test_multi_hot_rejects_bad_label_ids(bad):
    with pytest.raises(ValueError, match="label_lists") as info:
        multi_hot(bad, num_labels=4)
    value = bad[0] if isinstance(bad[0], int) else bad[0][-1]
    assert str(value) in str(info.value)


def test_multi_hot_rejects_bad_num_labels():
    with pytest.raises(ValueError, match="num_labels=0"):
        multi_hot([[0]], num_labels=0)
