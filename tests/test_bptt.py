"""Truncated-BPTT batches of a token stream (`keras_labelemb.datasets.bptt`)."""

import numpy as np
import pytest

from keras_labelemb.datasets import bptt_dataset
from keras_labelemb.datasets.bptt import bptt_arrays, num_bptt_batches


def test_bptt_batches_continue_each_row_and_shift_targets():
    stream = np.arange(1, 104)  # 103 tokens: 4 rows of 25 (3 dropped)
    x, y = bptt_arrays(stream, batch_size=4, bptt=5)
    assert x.shape == y.shape == (4, 4, 5) == (num_bptt_batches(103, 4, 5), 4, 5)
    rows = stream[:100].reshape(4, 25)
    np.testing.assert_array_equal(np.concatenate(list(x), axis=1), rows[:, :20])  # row b continues across batches
    np.testing.assert_array_equal(np.concatenate(list(y), axis=1), rows[:, 1:21])  # next tokens
    with pytest.raises(ValueError, match="too short"):
        bptt_arrays(np.arange(10), batch_size=4, bptt=5)
    with pytest.raises(ValueError, match="bptt"):
        bptt_arrays(stream, batch_size=4, bptt=0)


def test_bptt_dataset_has_fixed_shapes_in_stream_order():
    stream = np.arange(1, 104)
    dataset = bptt_dataset(stream, batch_size=4, bptt=5)
    assert tuple(dataset.element_spec[0].shape) == (4, 5)
    batches = [x for x, _ in dataset.as_numpy_iterator()]
    np.testing.assert_array_equal(np.stack(batches), bptt_arrays(stream, 4, 5)[0])
