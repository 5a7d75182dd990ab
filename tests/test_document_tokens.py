"""document_tokens: token ids of one document back to its tokens, aligned with the id positions."""

import numpy as np
import pytest

from keras_labelemb.text import TextVectorizer, document_tokens

VOCABULARY = ["<pad>", "<unk>", "the", "cat", "sat", "on", "mat", "it", "purred", "loudly"]


def test_flat_and_hierarchical_ids_drop_trailing_padding():
    ids = np.array([[2, 3, 4, 5, 2], [6, 0, 0, 0, 0], [7, 8, 9, 1, 0], [0, 0, 0, 0, 0]])
    assert document_tokens(VOCABULARY, ids) == [
        ["the", "cat", "sat", "on", "the"],
        ["mat"],
        ["it", "purred", "loudly", "<unk>"],
    ]
    assert document_tokens(VOCABULARY, [2, 3, 0, 0]) == ["the", "cat"]
    assert document_tokens(VOCABULARY, np.zeros(3, int)) == []
    assert document_tokens([b"<pad>", b"caf\xc3\xa9"], [1]) == ["caf\u00e9"]  # bytes vocabularies are decoded


def test_document_tokens_with_a_text_vectorizer():
    vectorizer = TextVectorizer(flat=False, max_sentences=3, max_sentence_length=4)
    vectorizer.adapt(["The cat sat. It purred loudly!"])
    ids = np.asarray(vectorizer(np.array(["The cat sat on it. It purred!"])))[0]
    assert document_tokens(vectorizer, ids) == [["the", "cat", "sat", "<unk>"], ["it", "purred"]]
    flat = TextVectorizer(max_tokens=6, vocabulary=vectorizer.get_vocabulary())
    assert document_tokens(flat, np.asarray(flat(np.array(["the cat"])))[0]) == ["the", "cat"]


def test_document_tokens_keeps_positions_of_inner_padding():
    assert document_tokens(VOCABULARY, np.array([[2, 0, 3], [0, 0, 0], [4, 0, 0]])) == [["the", "", "cat"], [], ["sat"]]


@pytest.mark.parametrize(
    "vectorizer, ids, match",
    [
        (VOCABULARY, np.zeros((1, 2, 3), int), r"`ids` must be \(T,\) or \(K, T\)"),
        (VOCABULARY, np.array([1, 10]), r"`ids` must lie in \[0, 10\)"),
        (VOCABULARY, np.array([1.5, 2.0]), r"`ids` must be integer"),
        ([], np.array([1]), r"`vectorizer` has an empty vocabulary"),
        (42, np.array([1]), r"`vectorizer` must have a `get_vocabulary\(\)`"),
    ],
)
def test_document_tokens_bad_inputs(vectorizer, ids, match):
    with pytest.raises(ValueError, match=match):
        document_tokens(vectorizer, ids)
