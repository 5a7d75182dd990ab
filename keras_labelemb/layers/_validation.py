"""Argument checks shared by the layers: each error names the argument and the value received."""

import numpy as np


def check_positive_int(name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value!r}")
    return value


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {sorted(choices)}. Received: {name}={value!r}")
    return value


def check_rate(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value < 1.0:
        raise ValueError(f"`{name}` must be a float in [0, 1). Received: {name}={value!r}")
    return float(value)


def check_rank(name, shape, ranks):
    if len(shape) not in ranks:
        expected = " or ".join(str(r) for r in ranks)
        raise ValueError(
            f"`{name}` must have rank {expected}. Received: {name} with shape {tuple(shape)}"
        )


def check_label_indices(indices, num_labels):
    """Raises for out-of-range label indices when their values are known (eager calls)."""
    try:
        values = np.asarray(indices)
    except Exception:  # a symbolic tensor inside a traced function: `take` clips instead
        return
    if values.ndim != 1:
        raise ValueError(f"`label_indices` must be a 1-D array of label indices. Received: shape {values.shape}")
    if values.size and (values.min() < 0 or values.max() >= num_labels):
        raise ValueError(
            f"`label_indices` must lie in [0, {num_labels}) (the current label set). "
            f"Received: label_indices with min {values.min()} and max {values.max()}"
        )
