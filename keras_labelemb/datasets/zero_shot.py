"""Seen/unseen label splits for zero-shot evaluation.

The usual recipe (as in GILE, Pappas & Henderson 2019): hold out some labels,
train only on documents that carry none of them and only on the seen labels,
then score the held-out labels from their descriptions alone.

>>> from keras_labelemb.datasets import load_demo
>>> data, unseen = load_demo()
>>> seen = [j for j in range(data.num_labels) if j not in unseen]
>>> train_data = restrict_labels(remove_unseen_from_train(data, unseen), seen)
>>> unseen_eval = restrict_labels(data, unseen, drop_empty=True)
>>> train_data.num_labels, unseen_eval.num_labels
(12, 4)
"""

import warnings

import numpy as np

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.datasets.text_classification_data import SPLITS


def zero_shot_split(data, unseen_fraction=0.2, exclude_top=10, seed=0, num_unseen=None, min_test_documents=1):
    """Chooses held-out ("unseen") labels, deterministically.

    `round(unseen_fraction * num_labels)` labels (or `num_unseen`) are drawn
    (numpy `RandomState(seed)`) among the candidates: every label except the
    `exclude_top` most frequent ones by training count (ties broken by
    index), and except labels that fewer than `min_test_documents` test
    documents carry (by default: none; they could not be evaluated).

    Args:
        data: a `TextClassificationData`.
        unseen_fraction: fraction of all labels to hold out, in (0, 1).
            Defaults to 0.2.
        exclude_top: how many of the most frequent labels always stay seen.
            Defaults to 10.
        seed: random seed. Defaults to 0.
        num_unseen: how many labels to hold out, instead of
            `unseen_fraction` (which is then ignored). Defaults to None.
        min_test_documents: the fewest test documents a held-out label must
            have. Defaults to 1.

    Returns:
        `(seen, unseen)`: two sorted lists of label indices that partition
        `range(data.num_labels)`.
    """
    if num_unseen is None and not 0.0 < unseen_fraction < 1.0:
        raise ValueError(f"`unseen_fraction` must be in (0, 1). Received: unseen_fraction={unseen_fraction}")
    if int(exclude_top) != exclude_top or exclude_top < 0:
        raise ValueError(f"`exclude_top` must be a non-negative integer. Received: exclude_top={exclude_top}")
    check_positive_int("num_unseen", num_unseen, allow_none=True)
    check_positive_int("min_test_documents", min_test_documents)
    num_labels = data.num_labels
    train_counts = data.label_counts("train")
    test_counts = data.label_counts("test")
    by_frequency = sorted(range(num_labels), key=lambda j: (-train_counts[j], j))
    top = set(by_frequency[: int(exclude_top)])
    candidates = [j for j in range(num_labels) if j not in top and test_counts[j] >= min_test_documents]
    if num_unseen is None:
        count = max(1, int(round(unseen_fraction * num_labels)))
    else:
        count = int(num_unseen)
    if count > len(candidates):
        in_test = "occur in the test split" if min_test_documents == 1 else f"have {min_test_documents}+ test documents"
        raise ValueError(
            f"Cannot hold out {count} labels: only {len(candidates)} labels are outside the "
            f"top {exclude_top} and {in_test}."
        )
    chosen = np.random.RandomState(seed).choice(len(candidates), size=count, replace=False)
    unseen = sorted(candidates[i] for i in chosen)
    unseen_set = set(unseen)
    seen = [j for j in range(num_labels) if j not in unseen_set]
    return seen, unseen


def labels_without_training_documents(data):
    """Indices of the labels that no training document carries.

    Such a label is trained as always-negative through its description, and drags down every
    unseen label whose description is nearly the same (an alias: "soy-oil" next to "soybean").
    Drop them before training: `restrict_labels(data, [j for j in range(data.num_labels) if j not in
    labels_without_training_documents(data)])`.
    """
    counts = data.label_counts("train")
    return [j for j in range(data.num_labels) if counts[j] == 0]


def _warn_untrained_labels(data, function, ignore=()):
    # Only where something trains: an evaluation set restricted to held-out labels has no training text.
    untrained = [j for j in labels_without_training_documents(data) if j not in ignore]
    if data.train_texts and untrained:
        names = [data.label_names[j] for j in untrained]
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        warnings.warn(
            f"{function}: {len(names)} kept label(s) have no training document: {shown}. A model trains "
            "them as always-negative through their descriptions, which pulls down unseen labels with "
            "similar descriptions. Drop them: restrict_labels(data, [j for j in range(data.num_labels) "
            "if j not in labels_without_training_documents(data)]).",
            UserWarning,
            stacklevel=3,
        )


def _filter_split(data, split, keep):
    texts, labels, ids = data._split(split)
    index = [i for i, doc_labels in enumerate(labels) if keep(doc_labels)]
    return {
        f"{split}_texts": [texts[i] for i in index],
        f"{split}_labels": [labels[i] for i in index],
        f"{split}_ids": [ids[i] for i in index],
    }


def remove_unseen_from_train(data, unseen):
    """Drops every training (and validation) document that carries an unseen label.

    The label set is unchanged; the test split is untouched. Validation
    documents are filtered too, because they come from the training data and
    are used while training.

    Args:
        data: a `TextClassificationData`.
        unseen: iterable of label indices to hold out.

    Returns:
        A new `TextClassificationData`. Warns (`UserWarning`) when a label that stays has no
        training document left (see `labels_without_training_documents`).
    """
    unseen = set(int(j) for j in unseen)

    def keep(doc_labels):
        return not unseen.intersection(doc_labels)

    changes = {}
    for split in ("train", "val"):
        changes.update(_filter_split(data, split, keep))
    result = data.replace(**changes)
    _warn_untrained_labels(result, "remove_unseen_from_train", ignore=unseen)
    return result


def restrict_labels(data, label_indices, drop_empty=False):
    """Restricts the label set to `label_indices` (in that order) in every split.

    Label lists are re-indexed into the new label set; labels outside it are
    removed. Use it to train on the seen labels only (so the unseen labels are
    not learned as always-negative) and to evaluate on the unseen labels only.

    Args:
        data: a `TextClassificationData`.
        label_indices: label indices to keep, in the order of the new label set.
        drop_empty: if True, documents left without any label are dropped.
            Defaults to False.

    Returns:
        A new `TextClassificationData`. Warns (`UserWarning`) when a kept label has no training
        document while the result still has training text (see `labels_without_training_documents`).
    """
    label_indices = [int(j) for j in label_indices]
    if len(set(label_indices)) != len(label_indices):
        raise ValueError(f"`label_indices` must be unique. Received: {label_indices}")
    for j in label_indices:
        if not 0 <= j < data.num_labels:
            raise ValueError(f"Label index {j} is out of range for {data.num_labels} labels.")
    new_index = {old: new for new, old in enumerate(label_indices)}
    changes = {
        "label_names": [data.label_names[j] for j in label_indices],
        "label_descriptions": [data.label_descriptions[j] for j in label_indices],
    }
    for split in SPLITS:
        texts, labels, ids = data._split(split)
        new_labels = [sorted(new_index[j] for j in doc if j in new_index) for doc in labels]
        index = [i for i, doc in enumerate(new_labels) if doc or not drop_empty]
        changes[f"{split}_texts"] = [texts[i] for i in index]
        changes[f"{split}_labels"] = [new_labels[i] for i in index]
        changes[f"{split}_ids"] = [ids[i] for i in index]
    result = data.replace(**changes)
    _warn_untrained_labels(result, "restrict_labels")
    return result
