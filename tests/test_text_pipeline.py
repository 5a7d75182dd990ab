"""Normalisation, tokenisation, sentence splitting, vocabulary and multi_hot."""

import collections

import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.text import (
    NUM_TOKEN,
    PAD_TOKEN,
    UNK_TOKEN,
    build_vocabulary,
    count_tokens,
    load_vocabulary,
    multi_hot,
    normalize_text,
    save_vocabulary,
    split_sentences,
    tokenize,
    vocabulary_from_counts,
)


def _strs(tensor):
    return np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(tensor.numpy()).tolist()


# ---------------------------------------------------------------- normalize_text
def test_normalize_lowercases_unicode():
    assert _strs(normalize_text(["Hello ÄÖÜ WORLD"])) == ["hello äöü world"]


def test_normalize_nfkc_full_width_and_ligature():
    out = normalize_text(["ＡＢＣ１２ ﬁne"], replace_numbers=False)
    assert _strs(out) == ["abc12 fine"]


def test_normalize_replaces_numbers_with_num_token():
    assert NUM_TOKEN == "<num>"
    out = normalize_text(["Price 1,250.50 or ３ items, in 2019. Then"])
    assert _strs(out) == ["price <num> or <num> items, in <num>. then"]


def test_normalize_options_off_keep_text():
    out = normalize_text(["ＡＢ 12"], lowercase=False, unicode_form=None, replace_numbers=False)
    assert _strs(out) == ["ＡＢ 12"]


def test_normalize_keeps_any_shape():
    x = tf.constant([["A 1", "B"], ["C", ""]])
    out = normalize_text(x)
    assert out.shape == (2, 2)
    assert _strs(out) == [["a <num>", "b"], ["c", ""]]
    ragged = normalize_text(tf.ragged.constant([["X"], ["Y", "Z 7"]]))
    assert ragged.to_list() == [[b"x"], [b"y", b"z <num>"]]


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"unicode_form": "NFX"}, "unicode_form"),
        ({"lowercase": 1}, "lowercase"),
        ({"replace_numbers": "yes"}, "replace_numbers"),
    ],
)
def test_normalize_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        normalize_text(["a"], **kwargs)


# ---------------------------------------------------------------- tokenize
def test_tokenize_drops_punctuation_and_keeps_num_token():
    out = tokenize(normalize_text(["Hello, world!! It's <b>bold</b> (3.5%) covid19 _x_"]))
    assert out.to_list() == [[b"hello", b"world", b"it", b"s", b"b", b"bold", b"b", b"<num>", b"covid", b"<num>", b"x"]]


def test_tokenize_num_token_after_space_and_cjk_characters():
    out = tokenize(["a <num> 中文abc"]).to_list()[0]
    assert [t.decode() for t in out] == ["a", "<num>", "中", "文", "abc"]


def test_tokenize_empty_and_punctuation_only_give_no_tokens():
    assert tokenize(["", "...!!! ---", "   "]).to_list() == [[], [], []]


def test_tokenize_adds_a_ragged_dimension():
    out = tokenize(tf.constant([["a b", "c"], ["", "d,e"]]))
    assert out.to_list() == [[[b"a", b"b"], [b"c"]], [[], [b"d", b"e"]]]


def test_scalar_input_gives_1d_tensor():
    assert tokenize("A, b").numpy().tolist() == [b"A", b"b"]
    assert split_sentences("A. B").numpy().tolist() == [b"A", b"B"]


def test_tokenize_runs_inside_tf_function():
    fn = tf.function(
        lambda s: tokenize(normalize_text(s)).to_tensor(), input_signature=[tf.TensorSpec([None], tf.string)]
    )
    assert fn(tf.constant(["A b"])).numpy().tolist() == [[b"a", b"b"]]


# ---------------------------------------------------------------- split_sentences
def test_split_sentences_on_punctuation_space_and_newlines():
    out = split_sentences(["One. Two!  Three?\nFour\n\n five.", "Pi is 3.14 ok", "", "\n \n"])
    assert out.to_list() == [
        [b"One", b"Two", b"Three", b"Four", b"five."],
        [b"Pi is 3.14 ok"],
        [],
        [],
    ]


def test_split_sentences_ideographic_full_stop():
    out = split_sentences(["第一。第二"]).to_list()[0]
    assert [s.decode() for s in out] == ["第一", "第二"]


# ---------------------------------------------------------------- vocabulary
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


# ---------------------------------------------------------------- multi_hot
def test_multi_hot_values_dtype_and_shape():
    out = multi_hot([[0, 2], [], [1, 1], np.array([3])], num_labels=4)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])


@pytest.mark.parametrize("bad", [[[0, 4]], [[-1]], [[1.5]], [3]])
def test_multi_hot_rejects_bad_label_ids(bad):
    with pytest.raises(ValueError, match="label_lists") as info:
        multi_hot(bad, num_labels=4)
    value = bad[0] if isinstance(bad[0], int) else bad[0][-1]
    assert str(value) in str(info.value)


def test_multi_hot_rejects_bad_num_labels():
    with pytest.raises(ValueError, match="num_labels=0"):
        multi_hot([[0]], num_labels=0)
