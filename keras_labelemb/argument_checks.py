"""The package's one set of argument checks: each error names the argument and the value received."""

import numbers

import numpy as np


def check_positive_int(name, value, allow_none=False):
    """`value` as an int >= 1 (bools rejected); None passes when `allow_none`."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


def check_positive_float(name, value, allow_none=False):
    """`value` as a float > 0 (bools and non-finite values rejected); None passes when `allow_none`."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < float("inf"):
        raise ValueError(f"`{name}` must be a positive number. Received: {name}={value!r}")
    return float(value)


def check_non_negative_int(name, value, allow_none=False):
    """`value` as an int >= 0 (bools rejected); None passes when `allow_none`."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"`{name}` must be a non-negative integer. Received: {name}={value!r}")
    return int(value)


def check_bool(name, value, allow_none=False):
    """`value` as a bool (NumPy bools accepted); None passes when `allow_none`."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"`{name}` must be True or False. Received: {name}={value!r}")
    return bool(value)


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {sorted(choices)}. Received: {name}={value!r}")
    return value


def check_rate(name, value):
    """A dropout-like rate in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"`{name}` must be a float in [0, 1). Received: {name}={value!r}")
    return float(value)


def check_rank(name, shape, ranks):
    if len(shape) not in ranks:
        expected = " or ".join(str(r) for r in ranks)
        raise ValueError(f"`{name}` must have rank {expected}. Received: {name} with shape {tuple(shape)}")


def known_values(tensor):
    """The values of `tensor` as a NumPy array, or None inside a traced (symbolic) function."""
    try:
        return np.asarray(tensor)
    except Exception:  # a symbolic tensor: its values are not known yet
        return None


def check_label_indices(indices, num_labels, name="label_indices"):
    """Raises for out-of-range positions in the label set when their values are known (eager calls).

    Inside a compiled function the values are unknown; `ops.take` then clips
    (TensorFlow) or fills (JAX) out-of-range positions instead of raising.
    """
    values = known_values(indices)
    if values is None:
        return
    if values.ndim != 1:
        raise ValueError(f"`{name}` must be a 1-D array of positions in the label set. Received: shape {values.shape}")
    if values.size and (values.min() < 0 or values.max() >= num_labels):
        raise ValueError(
            f"`{name}` must lie in [0, {num_labels}) (the current label set). "
            f"Received: {name} with min {values.min()} and max {values.max()}"
        )


def check_token_ids(token_ids, vocabulary_size, name="token_ids"):
    """Raises for token ids outside `[0, vocabulary_size)` when their values are known (eager calls).

    Inside a compiled function the values are unknown and nothing is checked:
    the embedding lookup then clips (TensorFlow) or returns NaN (JAX) for
    such ids, which is why the library checks them wherever it reads them eagerly.
    """
    values = known_values(token_ids)
    if values is None or values.size == 0 or vocabulary_size is None:
        return
    if not np.issubdtype(values.dtype, np.integer):
        raise ValueError(f"`{name}` must hold integer token ids. Received: {name} with dtype {values.dtype}")
    if values.min() < 0 or values.max() >= vocabulary_size:
        raise ValueError(
            f"`{name}` holds token ids outside [0, {vocabulary_size}) (the vocabulary). "
            f"Received: {name} with min {values.min()} and max {values.max()}"
        )
