"""`LabelSet`: the token ids of a head's label descriptions, checked when set and saved as one of its assets."""

import os

import keras
import numpy as np

from keras_labelemb.argument_checks import check_token_ids


def validate_label_ids(label_ids, vocabulary_size=None, name="label_ids"):
    """Checks a `(L, Lw)` array of label-description token ids; returns it as int32 NumPy.

    Every row needs at least one non-padding token (an empty description has
    nothing to score the label from), and every id must lie in the vocabulary.
    """
    array = np.asarray(label_ids)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(
            f"`{name}` must be a non-empty (num_labels, description_length) array of token ids. "
            f"Received: {name} with shape {array.shape}"
        )
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"`{name}` must hold integer token ids. Received: {name} with dtype {array.dtype}")
    if array.min() < 0:
        raise ValueError(f"`{name}` holds negative token ids. Received: {name} with min {array.min()}")
    check_token_ids(array, vocabulary_size, name=name)
    empty = np.flatnonzero((array != 0).sum(axis=1) == 0)
    if empty.size:
        raise ValueError(
            f"`{name}` has empty label descriptions (all padding) in rows {empty[:10].tolist()}: "
            "every label needs at least one known word. Received: "
            f"{name} with {empty.size} empty rows of {array.shape[0]}"
        )
    return array.astype("int32")


class LabelSet:
    """One label set of a head: `(L, Lw)` description token ids, checked, counted and saved.

    Every `LabelHead` holds one for the labels it scores (`head.label_set`);
    a `HybridHead` holds a second for the labels its per-label components
    were built for, a multilingual `GileHead` one per language. The head
    lists them in `held_label_sets()`; `save_assets` writes each as
    `file_name` and `load_assets` gives each back to the head's own setter
    (`restore`), in that order, so the head's checks run again. The ids are
    data, never config: a config stays a few KB at any label count.

    Args:
        name: the argument name that errors report (e.g. `"seen_label_ids"`).
        file_name: the asset file (default `"<name>.npy"`).
        restore: the head's setter `restore(ids)` that `load_assets` calls
            (default: `set` here, without the head's checks).
    """

    def __init__(self, name="label_ids", file_name=None, restore=None):
        self.name = name
        self.file_name = file_name or f"{name}.npy"
        self.restore = restore or self.set
        self.ids = None
        self._tensor = None

    @property
    def count(self):
        """The number of labels (None when no set is held)."""
        return None if self.ids is None else int(self.ids.shape[0])

    def set(self, label_ids, vocabulary_size=None, check=None):
        """Checks `label_ids` (`validate_label_ids`, then the head's `check(ids)`, which raises to refuse them)
        and holds them; returns them as int32."""
        ids = validate_label_ids(label_ids, vocabulary_size, name=self.name)
        if check is not None:
            check(ids)
        self.ids, self._tensor = ids, None
        if keras.backend.backend() == "tensorflow":
            _ = self.tensor  # made now, where sets are made: a compiled step's first use would be traced
        return ids

    @property
    def tensor(self):
        """The ids as a backend tensor; under TensorFlow made once per set, eagerly, and reused.

        A compiled TensorFlow step then captures that tensor as an input instead of embedding the NumPy
        array as a constant of its graph, which compiling copies at each stage: at 10^6 labels (140 MB of
        ids) a sampled step's first compile added 2.4 GB, 0.6 GB with the captured tensor. Other backends
        convert at each use, as before (under JAX a jitted function closes over either as a constant).
        """
        if self._tensor is not None:
            return self._tensor
        tensor = keras.ops.convert_to_tensor(self.ids, dtype="int32")
        if keras.backend.backend() == "tensorflow" and _executing_eagerly():
            self._tensor = tensor
        return tensor

    def save(self, dir_path):
        if self.ids is not None:
            np.save(os.path.join(dir_path, self.file_name), self.ids)

    def load(self, dir_path):
        """Gives the saved ids, if any, to `restore`."""
        path = os.path.join(dir_path, self.file_name)
        if os.path.exists(path):
            self.restore(np.load(path))


def _executing_eagerly():
    import tensorflow as tf

    return tf.executing_eagerly()
