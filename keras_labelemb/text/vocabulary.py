"""Vocabulary building (from strings or a `tf.data.Dataset`), saving and loading."""

import collections
import numbers
import os

import numpy as np
import tensorflow as tf

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.text.normalize_text import normalize_text
from keras_labelemb.text.tokenize import tokenize

PAD_TOKEN = "<pad>"
"""The token at index 0 (padding). The tokenizer never produces it."""

UNK_TOKEN = "<unk>"
"""The token at index 1 (out-of-vocabulary words)."""

RESERVED_TOKENS = (PAD_TOKEN, UNK_TOKEN)


def _default_tokenizer(strings):
    return tokenize(normalize_text(strings))


def _as_string_dataset(data, batch_size):
    """A dataset of 1-D string batches from a list, array, tensor or dataset."""
    if isinstance(data, tf.data.Dataset):
        spec = data.element_spec
        if isinstance(spec, (tuple, list)):
            # (text, target, ...) elements: count the first component.
            data = data.map(lambda *parts: parts[0])
            spec = data.element_spec
        if not isinstance(spec, tf.TensorSpec) or spec.dtype != tf.string:
            raise ValueError(
                "`data` must be a dataset of strings (or of tuples whose first "
                f"component is strings). Received: data.element_spec={spec!r}"
            )
        if spec.shape.rank == 0:
            return data.batch(batch_size)
        return data.map(lambda s: tf.reshape(s, [-1]))
    if isinstance(data, (str, bytes)):
        raise ValueError(f"`data` must be a collection of strings, not a single string. Received: data={data!r:.80}")
    if isinstance(data, tf.Tensor):
        strings = tf.reshape(data, [-1])
    else:
        strings = np.asarray(list(data), dtype=object).reshape([-1])
        strings = tf.constant(strings.tolist() if strings.size else [], dtype=tf.string)
    return tf.data.Dataset.from_tensor_slices(strings).batch(batch_size)


def count_tokens(data, tokenizer=None, batch_size=1024):
    """Count tokens in `data`; returns a `collections.Counter` of `str` tokens.

    Args:
        data: a list / tuple / NumPy array / string tensor of documents, or a
            `tf.data.Dataset` whose elements are strings (scalars or batches),
            or tuples whose first component is strings.
        tokenizer: a function from a 1-D string tensor to a `tf.RaggedTensor`
            of tokens; default `tokenize(normalize_text(x))` with the default
            normalisation.
        batch_size: how many documents are tokenised per TensorFlow call.
    """
    check_positive_int("batch_size", batch_size)
    tokenizer = tokenizer or _default_tokenizer
    dataset = _as_string_dataset(data, batch_size)

    def batch_counts(strings):
        # Count inside TensorFlow so Python only sees each batch's distinct tokens.
        unique, _, count = tf.unique_with_counts(tokenizer(strings).flat_values)
        return unique, count

    dataset = dataset.map(batch_counts, num_parallel_calls=tf.data.AUTOTUNE)
    counts = collections.Counter()
    for unique, count in dataset.as_numpy_iterator():
        for token, n in zip(unique.tolist(), count.tolist()):
            counts[token] += n
    return collections.Counter({t.decode("utf-8"): c for t, c in counts.items()})


def vocabulary_from_counts(counts, max_size=None, min_count=1):
    """Order counted tokens into a vocabulary list.

    Tokens seen fewer than `min_count` times are dropped; the rest are ordered
    by count (descending), ties by token (ascending code points), and the list
    is cut so that it holds at most `max_size` entries *including* the two
    reserved ones: index 0 is `PAD_TOKEN`, index 1 is `UNK_TOKEN`.
    """
    if max_size is not None and (
        isinstance(max_size, bool) or not isinstance(max_size, numbers.Integral) or max_size < 2
    ):
        raise ValueError(
            "`max_size` must be None or an integer >= 2 (it counts the padding and "
            f"unknown entries). Received: max_size={max_size!r}"
        )
    check_positive_int("min_count", min_count)
    kept = [(t, c) for t, c in counts.items() if c >= min_count and t not in RESERVED_TOKENS]
    kept.sort(key=lambda item: (-item[1], item[0]))
    tokens = [t for t, _ in kept]
    if max_size is not None:
        tokens = tokens[: max_size - len(RESERVED_TOKENS)]
    return list(RESERVED_TOKENS) + tokens


def build_vocabulary(data, max_size=None, min_count=1, tokenizer=None, batch_size=1024):
    """Build a vocabulary list from documents.

    Args:
        data: a list / tuple / NumPy array / string tensor of documents, or a
            `tf.data.Dataset` of strings (scalars or batches, or tuples whose
            first component is strings).
        max_size: `None` (no limit) or the largest vocabulary size, counting
            the two reserved entries.
        min_count: keep tokens seen at least this many times (default 1).
        tokenizer: function from a 1-D string tensor to ragged tokens; default
            `tokenize(normalize_text(x))`.
        batch_size: documents tokenised per TensorFlow call (default 1024).

    Returns:
        A list of `str`: `["<pad>", "<unk>", most frequent token, ...]`, ordered
        by count descending then token ascending (deterministic).

    Example:

    >>> build_vocabulary(["b a a", "c b a"])
    ['<pad>', '<unk>', 'a', 'b', 'c']
    """
    counts = count_tokens(data, tokenizer=tokenizer, batch_size=batch_size)
    return vocabulary_from_counts(counts, max_size=max_size, min_count=min_count)


def save_vocabulary(vocabulary, path):
    """Write a vocabulary list to a UTF-8 text file, one token per line, in index order."""
    vocabulary = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in vocabulary]
    for index, token in enumerate(vocabulary):
        if token == "" or any(ch in token for ch in "\r\n"):
            raise ValueError(
                "Vocabulary tokens must be non-empty and contain no line breaks. "
                f"Received: vocabulary[{index}]={token!r}"
            )
    with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(token + "\n" for token in vocabulary))


def load_vocabulary(path):
    """Read a vocabulary file written by `save_vocabulary`; returns a list of `str`."""
    with open(os.fspath(path), "r", encoding="utf-8", newline="\n") as f:
        return [line[:-1] if line.endswith("\n") else line for line in f if line != "\n"]
