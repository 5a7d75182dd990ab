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

from keras_labelemb.datasets.text_classification_data import SPLITS


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
