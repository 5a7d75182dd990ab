"""Private argument checks shared by the text pipeline."""

import numbers


def check_positive_int(name, value):
    """Raise ValueError naming `name` unless `value` is an int >= 1 (bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value!r}")
    return int(value)


def check_bool(name, value):
    """Raise ValueError naming `name` unless `value` is a bool."""
    if not isinstance(value, bool):
        raise ValueError(f"`{name}` must be True or False. Received: {name}={value!r}")
    return value
