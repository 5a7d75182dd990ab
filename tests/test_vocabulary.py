"""Tests of `vocabulary`."""

import collections

import pytest
import tensorflow as tf

from keras_labelemb.text.vocabulary import (
    PAD_TOKEN,
    UNK_TOKEN,
    build_vocabulary,
    count_tokens,
    load_vocabulary,
    save_vocabulary,
    vocabulary_from_counts,
)

DOCS = ["b a a c", "c b a. D!", "a e"]


def test_count_tokens_normalises_and_counts():
    assert count_tokens(DOCS) == collections.Counter({"a": 4, "b": 2, "c": 2, "d": 1, "e": 1})


def test_vocabulary_order_reserved_then_count_desc_token_asc():
    vocab = build_vocabulary(DOCS)
    assert vocab == [PAD_TOKEN, UNK_TOKEN, "a", "b", "c", "d", "e"]
    assert vocab[:2] == ["<pad>", "<unk>"]


def test_vocabulary_min_count_and_max_size():
    assert build_vocabulary(DOCS, min_count=2) == ["<pad>", "<unk>", "a", "b", "c"]
    assert build_vocabulary(DOCS, max_size=4) == ["<pad>", "<unk>", "a", "b"]
    assert build_vocabulary(DOCS, max_size=2) == ["<pad>", "<unk>"]


def test_vocabulary_from_dataset_equals_from_list():
    scalars = tf.data.Dataset.from_tensor_slices(DOCS)
    batches = scalars.batch(2)
    pairs = tf.data.Dataset.from_tensor_slices((DOCS, [0, 1, 2]))
    expected = build_vocabulary(DOCS)
    assert build_vocabulary(scalars) == expected
    assert build_vocabulary(batches, batch_size=1) == expected
    assert build_vocabulary(pairs) == expected
    assert build_vocabulary([]) == ["<pad>", "<unk>"]


def test_vocabulary_is_deterministic_under_input_order():
    assert build_vocabulary(DOCS[::-1]) == build_vocabulary(DOCS)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"max_size": 1}, "max_size"), ({"min_count": 0}, "min_count"), ({"batch_size": 0}, "batch_size")],
)
def test_vocabulary_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=f"{name}="):
        build_vocabulary(DOCS, **kwargs)


def test_vocabulary_rejects_single_string_and_non_string_dataset():
    with pytest.raises(ValueError, match="data"):
        build_vocabulary("a b c")
    with pytest.raises(ValueError, match="data"):
        build_vocabulary(tf.data.Dataset.from_tensor_slices([1, 2]))


def test_vocabulary_from_counts_ignores_reserved_tokens():
    assert vocabulary_from_counts({"<unk>": 9, "x": 1}) == ["<pad>", "<unk>", "x"]


def test_save_load_vocabulary_round_trip(tmp_path):
    vocab = ["<pad>", "<unk>", "a", "ünï", "中", "<num>"]
    path = tmp_path / "vocab.txt"
    save_vocabulary(vocab, path)
    assert path.read_text(encoding="utf-8") == "\n".join(vocab) + "\n"
    assert load_vocabulary(path) == vocab
    with pytest.raises(ValueError, match="vocabulary"):
        save_vocabulary(["a\nb"], tmp_path / "bad.txt")
