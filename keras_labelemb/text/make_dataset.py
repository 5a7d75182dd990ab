"""`make_dataset`: a batched, shuffled, prefetched `tf.data` pipeline of token ids."""

import numpy as np
import tensorflow as tf

from keras_labelemb.argument_checks import check_bool, check_positive_int

# Documents vectorised per TensorFlow call when vectorising once before caching.
_VECTORIZE_CHUNK = 1024


def _as_text_tensor(texts):
    if isinstance(texts, (str, bytes)):
        raise ValueError(f"`texts` must be a sequence of strings. Received: texts={texts!r:.80}")
    if isinstance(texts, tf.Tensor):
        strings = texts
    else:
        array = np.asarray(list(texts), dtype=object)
        strings = tf.constant(array.tolist() if array.size else [], dtype=tf.string)
    if strings.dtype != tf.string or strings.shape.rank != 1:
        raise ValueError(
            "`texts` must be a 1-D sequence of strings. "
            f"Received: texts with dtype={strings.dtype.name}, shape={tuple(strings.shape)}"
        )
    return strings


def _as_target_array(targets, num_texts):
    array = np.asarray(targets)
    if array.ndim == 0 or array.shape[0] != num_texts:
        raise ValueError(
            f"`targets` must have one row per text ({num_texts}). Received: targets with shape={array.shape}"
        )
    if array.dtype == bool or np.issubdtype(array.dtype, np.floating):
        return array.astype(np.float32)
    if np.issubdtype(array.dtype, np.integer):
        return array.astype(np.int32)
    raise ValueError(f"`targets` must be numeric. Received: targets with dtype={array.dtype}")


def make_dataset(
    texts,
    targets,
    vectorizer,
    batch_size,
    shuffle=True,
    seed=0,
    drop_remainder=False,
    cache=True,
):
    """Build a `tf.data.Dataset` of `(ids, targets)` batches from raw documents.

    Vectorisation runs in `Dataset.map` on whole batches of strings
    (`num_parallel_calls=tf.data.AUTOTUNE`) with `vectorizer.vectorize`, which
    is pure TensorFlow, so the pipeline works under every Keras backend.

    - `cache=True` (default): documents are vectorised once (in chunks of 1024),
      the ids are cached in memory, then shuffled per example and batched each
      epoch: later epochs do no string work.
    - `cache=False`: raw strings are shuffled, batched, then vectorised every
      epoch.

    Shuffling uses a buffer holding the whole dataset and `seed`, reshuffling
    each epoch (deterministic for a given seed). Every shape in `element_spec`
    is static except the batch dimension when `drop_remainder=False` (then the
    last batch may be smaller, which costs one extra XLA trace); set
    `drop_remainder=True` for fully static shapes.

    Args:
        texts: a 1-D sequence (list, NumPy array, string tensor) of `N` documents.
        targets: an array-like with `N` rows (e.g. `multi_hot(...)`, cast to
            float32; integer class ids are cast to int32), or `None` for a
            dataset of ids only (prediction).
        vectorizer: a `TextVectorizer` with a vocabulary.
        batch_size: examples per batch.
        shuffle: shuffle examples each epoch (default `True`).
        seed: shuffle seed (default 0).
        drop_remainder: drop the last incomplete batch (default `False`).
        cache: vectorise once and cache the ids in memory (default `True`).

    Returns:
        A prefetched `tf.data.Dataset` of `(ids, targets)` (or `ids` when
        `targets is None`), `ids` int32 of shape `(B, T)` or `(B, K, T)`.

    Example:

    >>> from keras_labelemb.text import TextVectorizer
    >>> vec = TextVectorizer(vocabulary=["good", "bad"], max_tokens=4)
    >>> ds = make_dataset(["good film", "bad"], [[1.0], [0.0]], vec, batch_size=2,
    ...                   drop_remainder=True)
    >>> ds.element_spec[0].shape
    TensorShape([2, 4])
    """
    batch_size = check_positive_int("batch_size", batch_size)
    shuffle = check_bool("shuffle", shuffle)
    drop_remainder = check_bool("drop_remainder", drop_remainder)
    cache = check_bool("cache", cache)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"`seed` must be an integer. Received: seed={seed!r}")
    if not callable(getattr(vectorizer, "vectorize", None)) or not hasattr(vectorizer, "get_vocabulary"):
        raise ValueError(f"`vectorizer` must be a TextVectorizer. Received: vectorizer={vectorizer!r}")
    if not vectorizer.get_vocabulary():
        raise ValueError(
            "`vectorizer` has no vocabulary: call `vectorizer.adapt(texts)` or pass "
            f"`vocabulary=`. Received: vectorizer={vectorizer!r}"
        )

    strings = _as_text_tensor(texts)
    num_examples = int(strings.shape[0])
    has_targets = targets is not None
    if has_targets:
        target_array = _as_target_array(targets, num_examples)
        dataset = tf.data.Dataset.from_tensor_slices((strings, target_array))
    else:
        dataset = tf.data.Dataset.from_tensor_slices(strings)

    batch_dim = batch_size if drop_remainder else None
    ids_tail = tuple(vectorizer.compute_output_shape((None,))[1:])

    def vectorize(*element):
        ids = vectorizer.vectorize(element[0])
        return (ids,) + tuple(element[1:]) if has_targets else ids

    def fix_shapes(*element):
        ids = tf.ensure_shape(element[0], (batch_dim,) + ids_tail)
        if not has_targets:
            return ids
        target = tf.ensure_shape(element[1], (batch_dim,) + target_array.shape[1:])
        return ids, target

    if cache:
        dataset = dataset.batch(_VECTORIZE_CHUNK)
        dataset = dataset.map(vectorize, num_parallel_calls=tf.data.AUTOTUNE)
        dataset = dataset.unbatch()
        # unbatch() forgets the size; restoring it lets Keras count steps per epoch.
        dataset = dataset.apply(tf.data.experimental.assert_cardinality(num_examples))
        dataset = dataset.cache()
    if shuffle and num_examples > 1:
        dataset = dataset.shuffle(max(num_examples, 1), seed=int(seed), reshuffle_each_iteration=True)
    dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    if not cache:
        dataset = dataset.map(vectorize, num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.map(fix_shapes)
    return dataset.prefetch(tf.data.AUTOTUNE)
