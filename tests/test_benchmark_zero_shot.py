"""Pieces of the zero-shot benchmarks: the inner held-out draw, listwise targets."""

import numpy as np

from benchmarks.zero_shot import inner_held_out
from benchmarks.zero_shot_episodic import listwise_targets


def test_inner_held_out_draws_trained_labels_outside_the_most_frequent():
    targets = np.zeros((40, 8))
    for j, count in enumerate([20, 15, 9, 6, 4, 3, 0, 2]):
        targets[:count, j] = 1
    drawn = {tuple(inner_held_out(targets, 2, exclude_top=2, seed=s)) for s in range(20)}
    assert all(len(d) == 2 and not {0, 1, 6} & set(d) for d in drawn)  # no top-2, no label without a document
    assert len(drawn) > 1 and inner_held_out(targets, 2, 2, seed=3) == inner_held_out(targets, 2, 2, seed=3)


def test_listwise_targets_share_each_document_among_its_positives():
    targets = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(listwise_targets(targets), [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])
