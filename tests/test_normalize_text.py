"""Tests of `normalize_text`."""

import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.text.normalize_text import NUM_TOKEN, normalize_text


def _strs(tensor):
    return np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(tensor.numpy()).tolist()


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
