"""Tests of `tokenize`."""

import tensorflow as tf

from keras_labelemb.text.normalize_text import normalize_text
from keras_labelemb.text.split_sentences import split_sentences
from keras_labelemb.text.tokenize import tokenize


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
