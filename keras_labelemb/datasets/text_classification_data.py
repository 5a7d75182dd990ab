"""`TextClassificationData`: a multi-label text dataset with label descriptions."""

import dataclasses
from dataclasses import dataclass, field

import numpy as np

SPLITS = ("train", "val", "test")


@dataclass(repr=False)
class TextClassificationData:
    """A multi-label text classification dataset whose labels come with descriptions.

    Every loader in `keras_labelemb.datasets` returns one. Labels are integer
    indices into `label_names`; each document carries a sorted list of them
    (one or more). `label_descriptions[j]` is the text a label-embedding model
    reads for label `j` ("name: description").

    The validation split is empty until `validation_split()` carves one from
    the training documents.

    Attributes:
        train_texts, test_texts, val_texts: lists of document strings.
        train_labels, test_labels, val_labels: lists (one per document) of
            sorted lists of label indices.
        train_ids, test_ids, val_ids: lists of document identifiers (str).
        label_names: list of label codes, e.g. `"money-fx"`.
        label_descriptions: list of str aligned with `label_names`.

    Example:

    >>> data = TextClassificationData(
    ...     train_texts=["goal in the last minute", "rates rise again"],
    ...     train_labels=[[0], [1]],
    ...     test_texts=["penalty saved"], test_labels=[[0]],
    ...     label_names=["football", "interest"],
    ...     label_descriptions=["football: goals and matches", "interest: interest rates"],
    ...     train_ids=["a", "b"], test_ids=["c"])
    >>> data.multi_hot("train").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    train_texts: list
    train_labels: list
    test_texts: list
    test_labels: list
    label_names: list
    label_descriptions: list
    train_ids: list
    test_ids: list
    val_texts: list = field(default_factory=list)
    val_labels: list = field(default_factory=list)
    val_ids: list = field(default_factory=list)

    def __post_init__(self):
        num_labels = len(self.label_names)
        if len(self.label_descriptions) != num_labels:
            raise ValueError(
                "`label_descriptions` must have one entry per label name. Received: "
                f"{len(self.label_descriptions)} descriptions for {num_labels} labels."
            )
        if len(set(self.label_names)) != num_labels:
            raise ValueError(f"`label_names` must be unique. Received: {self.label_names}")
        for split in SPLITS:
            texts, labels, ids = self._split(split)
            if not len(texts) == len(labels) == len(ids):
                raise ValueError(
                    f"The {split} split must have as many texts, label lists and ids. "
                    f"Received: {len(texts)} texts, {len(labels)} label lists, {len(ids)} ids."
                )
            for doc_labels in labels:
                for j in doc_labels:
                    if not 0 <= j < num_labels:
                        raise ValueError(
                            f"Label index {j} in the {split} split is out of range for {num_labels} labels."
                        )

    @classmethod
    def from_splits(cls, train, test, label_names, label_descriptions):
        """A dataset from `(texts, labels, ids)` triples of the training and test documents (what loaders read).

        >>> data = TextClassificationData.from_splits(
        ...     (["rates rise"], [[0]], ["a"]), (["rates fall"], [[0]], ["b"]), ["interest"], ["interest rates"])
        >>> data.test_texts, data.num_labels
        (['rates fall'], 1)
        """
        (train_texts, train_labels, train_ids), (test_texts, test_labels, test_ids) = train, test
        return cls(
            train_texts=train_texts,
            train_labels=train_labels,
            test_texts=test_texts,
            test_labels=test_labels,
            label_names=label_names,
            label_descriptions=label_descriptions,
            train_ids=train_ids,
            test_ids=test_ids,
        )

    def __repr__(self):
        return (
            f"TextClassificationData(train={len(self.train_texts)}, "
            f"val={len(self.val_texts)}, test={len(self.test_texts)}, "
            f"labels={self.num_labels})"
        )

    @property
    def num_labels(self):
        """The number of labels."""
        return len(self.label_names)

    def _split(self, split):
        if split not in SPLITS:
            raise ValueError(f"`split` must be one of {SPLITS}. Received: split={split!r}")
        return (
            getattr(self, f"{split}_texts"),
            getattr(self, f"{split}_labels"),
            getattr(self, f"{split}_ids"),
        )

    def multi_hot(self, split="train", dtype="float32"):
        """The labels of one split as a `(num_docs, num_labels)` 0/1 array.

        Args:
            split: `"train"`, `"val"` or `"test"`.
            dtype: numpy dtype of the result. Defaults to `"float32"`.
        """
        _, labels, _ = self._split(split)
        out = np.zeros((len(labels), self.num_labels), dtype=dtype)
        for i, doc_labels in enumerate(labels):
            out[i, list(doc_labels)] = 1
        return out

    def label_counts(self, split="train"):
        """How many documents of `split` carry each label, as an int64 array."""
        _, labels, _ = self._split(split)
        counts = np.zeros(self.num_labels, dtype=np.int64)
        for doc_labels in labels:
            counts[list(doc_labels)] += 1
        return counts

    def replace(self, **changes):
        """A copy with some fields replaced (`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def validation_split(self, size, seed=0):
        """Carves a validation split out of the training documents, deterministically.

        The chosen documents move from train to val; both keep the original
        document order. Calling it on data that already has a validation
        split raises `ValueError`.

        Args:
            size: a float in (0, 1) (fraction of the training documents) or an
                int >= 1 (number of documents).
            seed: seed of the numpy `RandomState` that picks the documents.
                Defaults to 0.

        Returns:
            A new `TextClassificationData`.
        """
        if self.val_texts:
            raise ValueError("This data already has a validation split.")
        n_train = len(self.train_texts)
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, float, np.integer, np.floating)):
            raise ValueError(f"`size` must be a fraction or a count. Received: size={size!r}")
        if isinstance(size, (float, np.floating)):
            if not 0.0 < size < 1.0:
                raise ValueError(f"A fractional `size` must be in (0, 1). Received: size={size}")
            count = int(round(size * n_train))
        else:
            count = int(size)
        if not 1 <= count < n_train:
            raise ValueError(
                f"`size` must select between 1 and {n_train - 1} of the {n_train} training "
                f"documents. Received: size={size!r}"
            )
        order = np.random.RandomState(seed).permutation(n_train)
        is_val = np.zeros(n_train, dtype=bool)
        is_val[order[:count]] = True
        keep = np.flatnonzero(~is_val)
        val = np.flatnonzero(is_val)
        return self.replace(
            train_texts=[self.train_texts[i] for i in keep],
            train_labels=[self.train_labels[i] for i in keep],
            train_ids=[self.train_ids[i] for i in keep],
            val_texts=[self.train_texts[i] for i in val],
            val_labels=[self.train_labels[i] for i in val],
            val_ids=[self.train_ids[i] for i in val],
        )
