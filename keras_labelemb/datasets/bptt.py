"""Truncated-BPTT batches of a token stream, for stateful language models (DRILL's `drill_lm`)."""

import numpy as np

from keras_labelemb.argument_checks import check_positive_int


def num_bptt_batches(num_tokens, batch_size, bptt):
    """Windows of `bptt` steps in `batch_size` rows of a `num_tokens` stream (the last target needs one more token).

    >>> num_bptt_batches(929_589, batch_size=20, bptt=35)
    1327
    """
    check_positive_int("batch_size", batch_size)
    check_positive_int("bptt", bptt)
    return max(0, (num_tokens // batch_size - 1) // bptt)


def bptt_arrays(ids, batch_size, bptt):
    """Cuts a token stream into truncated-BPTT batches.

    The stream is cut into `batch_size` rows of `n = len(ids) // batch_size`
    tokens (the tail is dropped); batch `i` is columns `[i*bptt, (i+1)*bptt)`
    (inputs) and the same columns shifted by one (targets). Windows that would
    be shorter than `bptt` are dropped, so every batch has the same shape and
    row `b` of batch `i + 1` continues row `b` of batch `i`.

    Args:
        ids: 1-D int array, the token stream.
        batch_size: rows (parallel streams) per batch.
        bptt: time steps per window.

    Returns:
        `(x, y)`, int32 arrays of shape `(num_batches, batch_size, bptt)`.

    >>> x, y = bptt_arrays(np.arange(20), batch_size=2, bptt=3)
    >>> x.shape, x[1].tolist(), y[1].tolist()   # rows 0..9 and 10..19
    ((3, 2, 3), [[3, 4, 5], [13, 14, 15]], [[4, 5, 6], [14, 15, 16]])
    """
    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise ValueError(f"`ids` must be a 1-D token stream. Received: ids with shape {ids.shape}")
    count = num_bptt_batches(len(ids), batch_size, bptt)
    if count == 0:
        raise ValueError(
            f"The stream is too short for one ({batch_size}, {bptt}) batch: it needs at least "
            f"{batch_size * (bptt + 1)} tokens. Received: {len(ids)} tokens"
        )
    rows = ids[: (len(ids) // batch_size) * batch_size].reshape(batch_size, -1).astype(np.int32)
    x = rows[:, : count * bptt].reshape(batch_size, count, bptt).transpose(1, 0, 2)
    y = rows[:, 1 : count * bptt + 1].reshape(batch_size, count, bptt).transpose(1, 0, 2)
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def bptt_dataset(ids, batch_size, bptt, repeat=False):
    """A `tf.data.Dataset` of truncated-BPTT batches `(x, y)`, each `(batch_size, bptt)` int32.

    Batches come in stream order (never shuffle them: the state carried by a
    stateful LSTM joins consecutive batches) with static shapes, so a compiled
    training step is traced once. `repeat=True` cycles over the epochs.
    """
    import tensorflow as tf

    x, y = bptt_arrays(ids, batch_size, bptt)
    dataset = tf.data.Dataset.from_tensor_slices((x, y))
    if repeat:
        dataset = dataset.repeat()
    return dataset.prefetch(tf.data.AUTOTUNE)
