"""Tests of `split_sentences`."""

from keras_labelemb.text.split_sentences import split_sentences


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
