"""The label sampler's search over a batch's positive label indices (`contains`, `sample_candidates_from_indices`)."""

import numpy as np

from keras_labelemb.losses import LabelSampler
from keras_labelemb.losses.label_sampler import contains


def test_contains_is_numpys_isin():
    rng = np.random.default_rng(0)
    values = np.sort(np.concatenate([[-1, -1], rng.integers(0, 50, 30)])).astype("int32")
    queries = rng.integers(-2, 60, 40).astype("int32")
    np.testing.assert_array_equal(np.asarray(contains(values, queries)), np.isin(queries, values))


def test_candidates_from_indices_are_those_of_the_multi_hot_batch():
    rng = np.random.default_rng(1)
    num_labels = 1000
    y = np.zeros((6, num_labels), "float32")
    indices = -np.ones((6, 4), "int32")
    for row in range(5):  # the last document has no positive label
        positive = rng.choice(20, 4, replace=False)  # shared labels: repeats across documents
        y[row, positive] = 1.0
        indices[row] = positive
    dense = LabelSampler(num_negatives=30, max_positives=16, seed=3).sample_candidates(y, num_labels)
    *sparse, batch_positives = LabelSampler(num_negatives=30, max_positives=16, seed=3).sample_candidates_from_indices(
        indices, num_labels
    )
    dense_candidates, dense_keep, dense_count = (np.asarray(t) for t in dense)
    candidates, keep, count = (np.asarray(t) for t in sparse)
    assert count == dense_count == np.count_nonzero(y.max(axis=0))
    np.testing.assert_array_equal(candidates[keep], dense_candidates[dense_keep])  # same kept labels, same order
    np.testing.assert_array_equal(np.asarray(batch_positives), np.sort(indices.ravel()))


def test_negative_rate_rounds_up_and_frequency_power_shapes_the_distribution():
    assert LabelSampler(negative_rate=0.003).negatives_for(1001) == 4  # ceil(3.003): rounding down gives 3
    assert LabelSampler(negative_rate=0.003).negatives_for(10) == 1  # at least one
    counts = np.array([1.0, 4.0, 9.0, 16.0])
    for power in (1.0, 0.5, 0.0):
        sampler = LabelSampler(num_negatives=2, sampler="frequency", label_frequencies=counts, frequency_power=power)
        expected = counts**power / (counts**power).sum()
        np.testing.assert_allclose(np.exp(sampler.log_probabilities(4)), expected, rtol=1e-5)
