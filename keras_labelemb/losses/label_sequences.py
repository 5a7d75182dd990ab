"""Multi-hot targets <-> label sequences for a label-sequence decoder (CNLE's `AdaptiveLabelDecoder`): the targets of
`LabelSequenceLoss`, in NumPy (no TensorFlow: a task fed ids trains CNLE under any backend)."""

import numpy as np

from keras_labelemb.argument_checks import check_positive_int

PADDING = -1


def frequency_order(multi_hot):
    """Label positions by descending frequency in `multi_hot` `(N, c)` (ties: lower position first).

    SGM's order (Yang et al. 2018); pass it as `label_sequences(..., order=...)`.

    >>> frequency_order(np.array([[0, 1, 1], [0, 1, 0]])).tolist()
    [1, 2, 0]
    """
    counts = np.asarray(multi_hot).sum(axis=0)
    return np.argsort(-counts, kind="stable").astype("int32")


def _check_order(order, num_labels):
    if order is None:
        return np.arange(num_labels)
    order = np.asarray(order)
    if order.shape != (num_labels,) or not np.array_equal(np.sort(order), np.arange(num_labels)):
        raise ValueError(
            f"`order` must be a permutation of the {num_labels} label positions. Received: order with shape "
            f"{order.shape}"
        )
    return order


def label_sequences(multi_hot, max_steps=None, order=None, multi_label=True):
    """Turns multi-hot targets `(N, c)` into decoder targets `(N, max_steps)` int32.

    Each row lists the document's label positions in one fixed order, then
    the end symbol (position `c`), then padding (-1). The order is the label
    set's own order by default: the order of the label sequence the encoder
    reads (`label_ids` rows), which is how CNLE uses one fixed order for both
    (the paper draws that order at random once; reorder the label set to get
    a random one). `order` (a permutation of the positions, e.g.
    `frequency_order(train_targets)`) lists labels in another fixed priority.

    A document with more labels than `max_steps - 1` keeps the first ones in
    the order and still ends with the end symbol. `multi_label=False`: one
    step, the single label, no end symbol (rows must have exactly one label).

    Args:
        multi_hot: `(N, c)` 0/1 targets.
        max_steps: decoding steps (the end symbol's included). Default:
            the most labels of a row, plus one.
        order: optional permutation of `range(c)`.
        multi_label: False for multi-class targets.

    >>> label_sequences(np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0]]), max_steps=3).tolist()
    [[1, 2, 3], [0, 3, -1], [3, -1, -1]]
    """
    targets = np.asarray(multi_hot)
    if targets.ndim != 2:
        raise ValueError(f"`multi_hot` must be (N, num_labels). Received: multi_hot with shape {targets.shape}")
    num_docs, num_labels = targets.shape
    order = _check_order(order, num_labels)
    positive = targets > 0.5
    if not multi_label:
        counts = positive.sum(axis=1)
        if np.any(counts != 1):
            raise ValueError(
                "Multi-class targets need exactly one label per row. Received: rows with "
                f"{sorted(set(counts.tolist()))} labels"
            )
        if max_steps not in (None, 1):
            raise ValueError(f"Multi-class label sequences have one step. Received: max_steps={max_steps!r}")
        return positive.argmax(axis=1).astype("int32")[:, None]
    if max_steps is None:
        max_steps = int(positive.sum(axis=1).max(initial=0)) + 1
    max_steps = check_positive_int("max_steps", max_steps)
    sequences = np.full((num_docs, max_steps), PADDING, "int32")
    ordered = positive[:, order]
    for row in range(num_docs):
        labels = order[np.flatnonzero(ordered[row])][: max_steps - 1]
        sequences[row, : len(labels)] = labels
        sequences[row, len(labels)] = num_labels
    return sequences


def label_sequences_to_multi_hot(sequences, num_labels):
    """Decoded or target sequences `(N, T)` back to multi-hot `(N, c)` float32.

    Positions in `[0, c)` up to the first end symbol (`c`) count; the end
    symbol, padding (-1) and anything after the end symbol do not.

    >>> label_sequences_to_multi_hot(np.array([[1, 2, 3], [0, 3, 1], [3, -1, -1]]), 3).tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    sequences = np.asarray(sequences)
    num_labels = check_positive_int("num_labels", num_labels)
    if sequences.ndim != 2:
        raise ValueError(f"`sequences` must be (N, T). Received: sequences with shape {sequences.shape}")
    ended = np.cumsum(sequences == num_labels, axis=1) > 0
    keep = (sequences >= 0) & (sequences < num_labels) & ~ended
    multi_hot = np.zeros((sequences.shape[0], num_labels), "float32")
    rows, steps = np.nonzero(keep)
    multi_hot[rows, sequences[rows, steps]] = 1.0
    return multi_hot
