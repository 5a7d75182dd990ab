"""Argument checks shared by the layers: each error names the argument and the value received."""


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
