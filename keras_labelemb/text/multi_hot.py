"""Multi-hot target matrices from lists of label indices."""

import numbers

import numpy as np

from keras_labelemb.argument_checks import check_positive_int


def multi_hot(label_lists, num_labels):
    """Turn lists of label indices into a `(N, num_labels)` float32 multi-hot matrix.

    Args:
        label_lists: a sequence of `N` iterables of integer label ids in
            `[0, num_labels)`; an empty iterable gives an all-zero row and a
            repeated id counts once.
        num_labels: the number of labels `L`.

    Returns:
        A NumPy float32 array of shape `(N, L)` with 1.0 where a label applies.

    Raises:
        ValueError: naming `label_lists` and the offending value when an id is
            not an integer or is out of range, or naming `num_labels` when it
            is not a positive integer.

    Example:

    >>> multi_hot([[0, 2], []], num_labels=3).tolist()
    [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    num_labels = check_positive_int("num_labels", num_labels)
    if isinstance(label_lists, (str, bytes)):
        raise ValueError(
            f"`label_lists` must be a sequence of lists of label ids. Received: label_lists={label_lists!r}"
        )
    label_lists = list(label_lists)
    out = np.zeros((len(label_lists), num_labels), dtype=np.float32)
    for row, labels in enumerate(label_lists):
        if isinstance(labels, (numbers.Integral, str, bytes)):
            raise ValueError(
                f"`label_lists` must hold one list of label ids per example. Received: label_lists[{row}]={labels!r}"
            )
        for label in labels:
            if isinstance(label, bool) or not isinstance(label, numbers.Integral):
                raise ValueError(
                    f"`label_lists` must contain integer label ids. Received: label_lists[{row}] contains {label!r}"
                )
            if not 0 <= label < num_labels:
                raise ValueError(
                    f"`label_lists` ids must be in [0, num_labels={num_labels}). "
                    f"Received: label_lists[{row}] contains {int(label)}"
                )
            out[row, int(label)] = 1.0
    return out
