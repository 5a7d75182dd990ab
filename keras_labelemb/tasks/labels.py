"""A classifier's labels as data: names with descriptions, and targets given by name or as multi-hot arrays."""

import collections

import numpy as np


def check_labels(labels):
    """`(names, descriptions)` from `{name: description}` or a list of names (each its own description)."""
    if isinstance(labels, dict):
        pairs = list(labels.items())
    elif isinstance(labels, (list, tuple)) and not isinstance(labels, str):
        pairs = [(name, name) for name in labels]
        counts = collections.Counter(name for name in labels if isinstance(name, str))
        duplicates = sorted(name for name, count in counts.items() if count > 1)
        if duplicates:
            raise ValueError(f"`labels` names each label once. Received: repeated names {duplicates}")
    else:
        raise ValueError(
            "`labels` must be a dict {name: description} or a list of names. "
            f"Received: labels of type {type(labels).__name__}"
        )
    if not pairs:
        raise ValueError("`labels` must name at least one label. Received: labels with no entries")
    for name, description in pairs:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"A label name is a non-empty string. Received: name {name!r}")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(
                f"A label description is a non-empty string (the words the label is read from). "
                f"Received: labels[{name!r}]={description!r}"
            )
    return [name for name, _ in pairs], [description for _, description in pairs]


def multi_hot_targets(y, names, count, multi_label=True, soft=False):
    """`(count, L)` float32 targets from a multi-hot array or, per document, label names (a list, or one name).

    `soft=True` also takes values in [0, 1] (e.g. each document's positives sharing 1, as a listwise loss
    reads them); otherwise 0 and 1 only (what thresholds and F1 are chosen on).
    """
    if y is None:
        raise ValueError("`y` (the targets) is needed here. Received: y=None")
    width = len(names)
    if isinstance(y, np.ndarray) and y.dtype.kind in "biuf" or _is_numeric_rows(y):
        targets = np.asarray(y, "float32")
        if targets.ndim != 2 or targets.shape[1] != width:
            raise ValueError(
                f"Multi-hot targets have one column per label ({width}). Received: y with shape {targets.shape}"
            )
        if not np.isfinite(targets).all() or (targets < 0).any() or (targets > 1).any():
            raise ValueError(
                "Targets lie in [0, 1]. Received: y with values outside it"
                + (" or not finite" if not np.isfinite(targets).all() else "")
                + f" (min {np.nanmin(targets) if targets.size else 0}, max {np.nanmax(targets) if targets.size else 0})"
            )
        if not soft and ((targets != 0) & (targets != 1)).any():
            raise ValueError(
                "Multi-hot targets hold 0 and 1 only here (thresholds and F1 are chosen on them); soft targets in "
                "[0, 1] are taken by `fit`'s `y` only. Received: other values in y"
            )
    else:
        position = {name: i for i, name in enumerate(names)}
        rows = list(y)
        targets = np.zeros((len(rows), width), "float32")
        for row, given in enumerate(rows):
            given = [given] if isinstance(given, str) else given
            if not isinstance(given, (list, tuple, np.ndarray)):
                raise ValueError(f"y[{row}] must be a label name or a list of names. Received: {given!r:.100}")
            for name in given:
                if name not in position:
                    raise ValueError(
                        f"y[{row}] names a label the classifier does not have. Received: {name!r}; "
                        f"the labels are {names[:20]}{' ...' if width > 20 else ''}"
                    )
                targets[row, position[name]] = 1.0
    if len(targets) != count:
        raise ValueError(f"Give one target per text. Received: {len(targets)} targets for {count} texts")
    wrong = ~np.isclose(targets.sum(axis=1), 1.0, atol=1e-5)
    if not multi_label and wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise ValueError(
            f"A single-label classifier takes exactly one label per text (soft targets: a row summing to 1). "
            f"Received: y[{row}] summing to {float(targets[row].sum()):g}"
        )
    return targets


def _is_numeric_rows(y):
    if not isinstance(y, (list, tuple)) or not y:
        return False
    first = y[0]
    return (
        isinstance(first, (list, tuple, np.ndarray))
        and len(first) > 0
        and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in first)
    )


def label_index_targets(y, names, count):
    """`(count, P)` int32 positive label indices padded with -1 (`SampledSigmoidLoss(targets="label_indices")`).

    From such an int array (checked), float multi-hot rows `(N, L)`, or, per document, label names (a list, or
    one name): from names no `(N, L)` array is made, whatever the label count.
    """
    if y is None:
        raise ValueError("`y` (the targets) is needed here. Received: y=None")
    width = len(names)
    if isinstance(y, np.ndarray) and y.dtype.kind == "f":  # multi-hot rows, as the full loss takes
        from keras_labelemb.tasks.sampled_step import positive_label_indices

        targets = positive_label_indices(multi_hot_targets(y, names, count))
    elif isinstance(y, np.ndarray) and y.dtype.kind in "biu" or _is_numeric_rows(y):
        targets = np.asarray(y)
        if targets.ndim != 2 or targets.dtype.kind not in "biu":
            raise ValueError(
                "Label-index targets are (documents, positives) ints padded with -1. "
                f"Received: y with shape {targets.shape} and dtype {targets.dtype}"
            )
        if targets.size and (targets.min() < -1 or targets.max() >= width):
            raise ValueError(
                f"Label indices lie in [0, {width}) or are -1 (padding). "
                f"Received: y with min {targets.min()} and max {targets.max()}"
            )
        targets = targets.astype("int32")
    else:
        position = {name: i for i, name in enumerate(names)}
        rows = []
        for row, given in enumerate(list(y)):
            given = [given] if isinstance(given, str) else given
            if not isinstance(given, (list, tuple, np.ndarray)):
                raise ValueError(f"y[{row}] must be a label name or a list of names. Received: {given!r:.100}")
            unknown = [name for name in given if name not in position]
            if unknown:
                raise ValueError(f"y[{row}] names a label the classifier does not have. Received: {unknown[0]!r}")
            rows.append(sorted({position[name] for name in given}))
        targets = -np.ones((len(rows), max([1, *map(len, rows)])), "int32")
        for row, positions in enumerate(rows):
            targets[row, : len(positions)] = positions
    if len(targets) != count:
        raise ValueError(f"Give one target per text. Received: {len(targets)} targets for {count} texts")
    return targets
