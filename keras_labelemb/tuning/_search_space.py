"""Argument checks and hyperparameter helpers shared by the hypermodels of `keras_labelemb.tuning`."""

import numbers

import keras

JIT_COMPILE = (True, False, "auto")


def _is_sequence(value):
    return isinstance(value, (list, tuple, range))


def _choices(name, value, check):
    """A non-empty tuple of distinct values, each passing `check`; a scalar gives a 1-tuple."""
    values = tuple(value) if _is_sequence(value) else (value,)
    if not values:
        raise ValueError(f"`{name}` must be one value or a non-empty list of choices. Received: {name}={value!r}")
    for v in values:
        if not check(v):
            raise ValueError(f"`{name}` has an invalid choice {v!r}. Received: {name}={value!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"`{name}` must not repeat a choice. Received: {name}={value!r}")
    return values


def _real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _range(name, value, low, high, low_inclusive, description):
    """`(min, max)` with low <(=) min < max < high, or one value in that interval (fixed)."""

    def inside(v):
        return _real(v) and (low <= v if low_inclusive else low < v) and v < high

    if _is_sequence(value):
        if len(value) != 2 or not all(inside(v) for v in value) or not value[0] < value[1]:
            raise ValueError(
                f"`{name}` must be one {description} or a `(min, max)` pair of them with min < max. "
                f"Received: {name}={value!r}"
            )
        return float(value[0]), float(value[1])
    if not inside(value):
        raise ValueError(
            f"`{name}` must be one {description} or a `(min, max)` pair of them. Received: {name}={value!r}"
        )
    return float(value)


def _int_at_least(minimum):
    return lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= minimum


def _int_choices(name, value, minimum):
    return tuple(int(v) for v in _choices(name, value, _int_at_least(minimum)))


def _str_choices(name, value, allowed):
    return _choices(name, value, lambda v: isinstance(v, str) and v in allowed)


def _rate_range(name, value):
    return _range(name, value, 0.0, 1.0, True, "float in [0, 1)")


def _positive_range(name, value):
    return _range(name, value, 0.0, float("inf"), False, "positive float")


def _check_jit_compile(jit_compile):
    if jit_compile not in JIT_COMPILE or isinstance(jit_compile, int) and not isinstance(jit_compile, bool):
        raise ValueError(f"`jit_compile` must be True, False or 'auto'. Received: jit_compile={jit_compile!r}")
    return jit_compile


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"`{name}` must be True or False. Received: {name}={value!r}")
    return value


def _check_logit_metrics(metrics):
    """A list of metrics of a model that outputs logits (a `from_logits` metric must have it True)."""
    if metrics is None:
        return []
    if not _is_sequence(metrics):
        raise ValueError(f"`metrics` must be a list of metrics or None. Received: metrics={metrics!r}")
    for metric in metrics:
        if getattr(metric, "from_logits", None) is False:
            raise ValueError(
                "The model outputs logits: a metric with a `from_logits` argument needs from_logits=True. "
                f"Received: metrics={metrics!r} with {getattr(metric, 'name', metric)!r}.from_logits=False"
            )
    return list(metrics)


def _check_builder_kwargs(kwargs, searched, allowed, builder):
    """Fixed builder arguments: none of the searched ones (`searched`: builder argument -> hypermodel argument)."""
    for key in kwargs:
        if key in searched:
            raise ValueError(
                f"`{key}` is set by the hypermodel: pass `{searched[key]}=` (one value fixes it). "
                f"Received: {key}={kwargs[key]!r}"
            )
        if key not in allowed:
            raise ValueError(f"`{key}` is not an argument of {builder}. Received: {key}={kwargs[key]!r}")
    return dict(kwargs)


def _refuse_arguments(owner, arguments, searched, hints, default=None):
    """A `ValueError` for the first keyword argument a hypermodel does not take, saying what to pass instead.

    `searched` maps a hyperparameter's name to the argument that searches (or fixes) it; `hints` maps other
    names to what to do instead, `default` any other name.
    """
    for key, value in arguments.items():
        if key in searched:
            reason = f"`{key}` is set by the hypermodel: pass `{searched[key]}=` (one value fixes it)"
        elif key in hints or default is not None:
            reason = f"`{key}` is not an argument of {owner}: {hints.get(key, default)}"
        else:
            reason = f"`{key}` is not an argument of {owner}"
        raise ValueError(f"{reason}. Received: {key}={value!r:.200}")


def _check_label_names(label_names, count):
    """The `count` label names of a hypermodel's classifiers: `label_names`, or `label_0`, ... when None."""
    if label_names is None:
        return [f"label_{i}" for i in range(count)]
    names = list(label_names) if _is_sequence(label_names) else None
    if (
        names is None
        or len(names) != count
        or any(not isinstance(name, str) or not name.strip() for name in names)
        or len(set(names)) != count
    ):
        raise ValueError(
            f"`label_names` must be a list of {count} distinct non-empty strings (one per label). "
            f"Received: label_names={label_names!r:.200}"
        )
    return names


def _width(encoder, token_shape):
    """The last axis of what `encoder` gives for a batch of `token_shape` int32 token ids."""
    return encoder.compute_output_spec(keras.KerasTensor((None, *token_shape), dtype="int32")).shape[-1]


def _choice(hp, name, values):
    """`hp.Choice` over `values`, or `hp.Fixed` when there is one value (reported, not searched)."""
    return hp.Fixed(name, values[0]) if len(values) == 1 else hp.Choice(name, list(values))


def _float(hp, name, value, log=False):
    """`hp.Float` over a `(min, max)` range (log-uniform when `log`), or `hp.Fixed` for one value."""
    if isinstance(value, tuple):
        return hp.Float(name, *value, sampling="log" if log else "linear")
    return hp.Fixed(name, value)


def _copy_metric(metric):
    """A fresh metric object per model: a metric's state variables must not be shared between trials."""
    if isinstance(metric, keras.metrics.Metric):
        return metric.__class__.from_config(metric.get_config())
    return metric
