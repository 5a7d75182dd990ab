"""The one set of argument checks: each error names the argument and the value received."""

import numpy as np
import pytest

from keras_labelemb.argument_checks import (
    check_bool,
    check_choice,
    check_label_indices,
    check_non_negative_int,
    check_positive_int,
    check_rank,
    check_rate,
    check_token_ids,
    known_values,
)


@pytest.mark.parametrize(
    "check, good, bad",
    [
        (check_positive_int, [1, np.int64(7)], [0, -1, 2.0, True, "3"]),
        (check_non_negative_int, [0, 5], [-1, 1.5, False]),
        (check_bool, [True, np.bool_(False)], [1, "yes", None]),
        (check_rate, [0.0, 0.5], [1.0, -0.1, True, "0.2"]),
    ],
)
def test_accepts_good_values_and_names_the_argument_for_bad_ones(check, good, bad):
    for value in good:
        assert check("units", value) == value
    for value in bad:
        with pytest.raises(ValueError, match=rf"`units` .* Received: units={value!r}"):
            check("units", value)


def test_none_passes_only_when_allowed():
    assert check_positive_int("depth", None, allow_none=True) is None
    with pytest.raises(ValueError, match="depth"):
        check_positive_int("depth", None)


def test_choice_and_rank():
    assert check_choice("pooling", "max", {"max", "average"}) == "max"
    with pytest.raises(ValueError, match=r"one of \['average', 'max'\]. Received: pooling='sum'"):
        check_choice("pooling", "sum", {"max", "average"})
    check_rank("inputs", (2, 3), (2, 3))
    with pytest.raises(ValueError, match=r"rank 2 or 3. Received: inputs with shape \(2,\)"):
        check_rank("inputs", (2,), (2, 3))


def test_label_indices_and_token_ids_are_checked_when_known():
    check_label_indices(np.array([0, 4]), num_labels=5)
    with pytest.raises(ValueError, match=r"\[0, 5\).*max 5"):
        check_label_indices(np.array([0, 5]), num_labels=5)
    with pytest.raises(ValueError, match="1-D"):
        check_label_indices(np.zeros((2, 2), "int32"), num_labels=5)
    check_token_ids(np.array([[0, 9]]), vocabulary_size=10)
    with pytest.raises(ValueError, match=r"outside \[0, 10\).*min -1"):
        check_token_ids(np.array([[-1, 3]]), vocabulary_size=10)
    with pytest.raises(ValueError, match="integer token ids"):
        check_token_ids(np.array([[0.5]]), vocabulary_size=10)


def test_symbolic_values_are_unknown_and_skip_the_checks():
    import keras

    symbolic = keras.KerasTensor((None, 3), dtype="int32")
    assert known_values(symbolic) is None
    check_token_ids(symbolic, vocabulary_size=2)  # nothing to check while tracing
    np.testing.assert_array_equal(known_values([1, 2]), [1, 2])


def test_check_positive_float():
    from keras_labelemb.argument_checks import check_positive_float

    assert check_positive_float("clipnorm", 2) == 2.0
    assert check_positive_float("clipnorm", None, allow_none=True) is None
    for bad in (0, -1.0, float("inf"), float("nan"), True, "1", None):
        with pytest.raises(ValueError, match="clipnorm"):
            check_positive_float("clipnorm", bad)
