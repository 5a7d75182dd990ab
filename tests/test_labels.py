"""Tests of `labels`: label sets from dicts or names, targets from names or multi-hot arrays."""

import numpy as np
import pytest

from keras_labelemb.tasks.labels import check_labels, multi_hot_targets

NAMES = ["grain", "oil", "ship"]


def test_a_list_of_names_describes_each_label_by_its_name():
    assert check_labels(["grain", "oil"]) == (["grain", "oil"], ["grain", "oil"])
    assert check_labels({"grain": "wheat"}) == (["grain"], ["wheat"])


def test_names_and_multi_hot_give_the_same_targets():
    by_name = multi_hot_targets([["grain", "ship"], "oil", []], NAMES, 3)
    np.testing.assert_array_equal(by_name, [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(multi_hot_targets([[1, 0, 1], [0, 1, 0], [0, 0, 0]], NAMES, 3), by_name)


@pytest.mark.parametrize(
    "y, message",
    [
        ([["wheat"]], "'wheat'"),
        ([[0.5, 0, 1]], "0 and 1"),
        ([[np.nan, 0, 1]], r"\[0, 1\].*not finite"),
        ([[1.5, 0, 1]], r"lie in \[0, 1\].*max 1.5"),
        (np.ones((1, 2)), "one column per label"),
        ([3], "a label name or a list"),
        (None, "targets"),
    ],
)
def test_targets_that_do_not_fit_are_refused(y, message):
    with pytest.raises(ValueError, match=message):
        multi_hot_targets(y, NAMES, 1)


def test_single_label_targets_hold_one_label_each():
    with pytest.raises(ValueError, match=r"y\[1\] summing to 0"):
        multi_hot_targets(["grain", []], NAMES, 2, multi_label=False)


def test_soft_targets_are_taken_only_where_asked():
    shares = [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]
    np.testing.assert_array_equal(multi_hot_targets(shares, NAMES, 2, soft=True), shares)
    np.testing.assert_array_equal(multi_hot_targets(shares, NAMES, 2, multi_label=False, soft=True), shares)
    with pytest.raises(ValueError, match=r"y\[0\] summing to 1.5"):
        multi_hot_targets([[0.5, 0.5, 0.5]], NAMES, 1, multi_label=False, soft=True)
    with pytest.raises(ValueError, match="lie in"):
        multi_hot_targets([[-0.1, 0.5, 0.5]], NAMES, 1, soft=True)
