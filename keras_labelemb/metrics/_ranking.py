"""Shared, backend-agnostic helpers for the multi-label metrics (private).

Everything here uses `keras.ops` only, keeps shapes static for a static
number of labels, and has no Python branching on tensor values, so it runs
under the TensorFlow and JAX backends and inside `jit_compile=True`.
"""

from keras import ops

from keras_labelemb.argument_checks import check_positive_int


def validate_k(k):
    """Returns `k` as a Python int, or raises a ValueError naming `k`."""
    return check_positive_int("k", k)


def score_dtype(y_pred):
    """Scores are compared in float32, or float64 when they come as float64.

    Up-casting float16/bfloat16 (or integer) scores to float32 is exact, so
    orders and ties are those of the input.
    """
    return "float64" if ops.dtype(y_pred) == "float64" else "float32"


def prepare(y_true, y_pred, dtype):
    """Validates shapes; returns (relevance, scores, num_labels).

    `relevance` is `y_true > 0.5` as `dtype` (1.0 / 0.0), `scores` is `y_pred`
    in `score_dtype`, `num_labels` is the static label count.
    """
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.convert_to_tensor(y_true)
    if len(y_pred.shape) != 2 or len(y_true.shape) != 2:
        raise ValueError(
            "`y_true` and `y_pred` must both have shape (batch, num_labels). "
            f"Received: y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )
    num_labels = y_pred.shape[-1]
    if num_labels is None:
        raise ValueError(
            f"The number of labels (last axis of `y_pred`) must be static. Received: y_pred.shape={y_pred.shape}"
        )
    if y_true.shape[-1] is not None and y_true.shape[-1] != num_labels:
        raise ValueError(
            "`y_true` and `y_pred` must have the same number of labels. "
            f"Received: y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )
    scores = ops.cast(y_pred, score_dtype(y_pred))
    relevance = ops.cast(ops.greater(ops.cast(y_true, "float32"), 0.5), dtype)
    return relevance, scores, num_labels


def document_weights(sample_weight, relevance, dtype):
    """Per-document weights of shape (batch,); ones when `sample_weight` is None."""
    ones = ops.ones_like(relevance[:, 0], dtype=dtype)
    if sample_weight is None:
        return ones
    weight = ops.cast(ops.convert_to_tensor(sample_weight), dtype)
    if len(weight.shape) == 2 and weight.shape[-1] == 1:
        weight = ops.squeeze(weight, axis=-1)
    if len(weight.shape) > 1:
        raise ValueError(
            "`sample_weight` must hold one weight per document, shape (batch,) "
            f"or (batch, 1). Received: sample_weight.shape={weight.shape}"
        )
    return weight * ones


def _cumulative_max(x):
    """Running maximum along the last axis of a non-negative int tensor.

    Hillis-Steele doubling: ceil(log2(L)) shifted maxima, static shapes.
    `keras.ops.associative_scan(ops.maximum, x, axis=-1)` computes the same and
    works eagerly (TensorFlow, JAX) and under `jax.jit`, but its TensorFlow
    implementation does not compile with XLA (Keras 3.15, TF 2.21, `tf.function(
    jit_compile=True)`: "Cannot concatenate arrays that differ in dimensions"
    from a `tf.cond` whose branches have different shapes), and the metrics
    must run inside `jit_compile=True`; neither keras.ops nor TensorFlow has a
    cumulative maximum.
    """
    num = x.shape[-1]
    shift = 1
    while shift < num:
        shifted = ops.pad(x[:, :-shift], [[0, 0], [shift, 0]])
        x = ops.maximum(x, shifted)
        shift *= 2
    return x


def _group_start(values):
    """For a row-sorted tensor, the index of the first element equal to each."""
    num = values.shape[-1]
    index = ops.arange(num, dtype="int32")
    starts = ops.logical_or(
        ops.not_equal(values, ops.roll(values, 1, axis=-1)),
        ops.equal(index, 0),
    )
    return _cumulative_max(ops.where(starts, index, ops.zeros_like(index)))


def rank_statistics(relevance, scores):
    """Sorts each row by descending score and locates every tie group.

    Returns `(gain, above, at_or_above)`, all of shape (batch, L) in sorted
    order: `gain` is the relevance of the label at each sorted position,
    `above` the number of labels of the row with a strictly higher score
    (int32), `at_or_above` the number with a score >= (int32, >= 1). The tie
    group of position p occupies sorted positions [above_p, at_or_above_p).
    Cost O(L log L) per row: one sort and two log-depth scans.
    """
    num = scores.shape[-1]
    values, order = ops.top_k(scores, k=num, sorted=True)
    gain = ops.take_along_axis(relevance, order, axis=-1)
    above = _group_start(values)
    reversed_start = _group_start(ops.flip(values, axis=-1))
    at_or_above = num - ops.flip(reversed_start, axis=-1)
    return gain, above, at_or_above


def positives_at_or_above(gain, at_or_above):
    """Number of relevant labels scored >= each sorted position's score."""
    cumulative = ops.cumsum(gain, axis=-1)
    return ops.take_along_axis(cumulative, at_or_above - 1, axis=-1)
