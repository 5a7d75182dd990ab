"""Relabelling a classifier fed token ids from description token ids (no TensorFlow: the GPU runs import it)."""


def relabel(classifier, label_ids):
    """Makes `classifier` (a `LabelClassifier` fed token ids) score the labels whose description token ids are the
    rows of `label_ids` `(L, Lw)`, named `label_0`, `label_1`, ... (`set_labels(names, label_ids=...)`)."""
    classifier.set_labels([f"label_{i}" for i in range(len(label_ids))], label_ids=label_ids)
