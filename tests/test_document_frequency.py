"""Document frequencies and smoothed idf of token ids, against a loop and scikit-learn."""

import numpy as np
import pytest
import tensorflow as tf
from sklearn.feature_extraction.text import TfidfVectorizer

from keras_labelemb.document_frequency import document_frequencies, smoothed_idf


def documents():
    ids = np.random.default_rng(0).integers(0, 12, size=(20, 3, 4)).astype("int32")
    ids[0] = 0  # an all-padding document counts as a document
    return ids


def test_document_frequencies_count_each_id_once_per_document():
    ids = documents()
    expected = np.zeros(12, "int64")
    for row in ids.reshape(len(ids), -1):
        for i in set(row.tolist()) - {0}:
            expected[i] += 1
    df, n = document_frequencies(ids, 12)
    np.testing.assert_array_equal(df, expected)
    assert n == 20


def test_a_dataset_of_batches_gives_the_same_counts():
    ids = documents()
    dataset = tf.data.Dataset.from_tensor_slices((ids, np.zeros((20, 2)))).batch(7)
    df, n = document_frequencies(dataset, 12)
    np.testing.assert_array_equal(df, document_frequencies(ids, 12)[0])
    assert n == 20


def test_smoothed_idf_equals_scikit_learn_on_the_same_tokens():
    ids = documents().reshape(20, -1)
    texts = [" ".join(f"w{i}" for i in row if i > 0) for row in ids]
    vectorizer = TfidfVectorizer(token_pattern=r"\S+").fit(texts)
    idf = smoothed_idf(*document_frequencies(ids, 12))
    for word, column in vectorizer.vocabulary_.items():
        assert idf[int(word[1:])] == pytest.approx(vectorizer.idf_[column], abs=1e-6)
    absent = [i for i in range(1, 12) if f"w{i}" not in vectorizer.vocabulary_]
    assert idf[0] == 0 and all(idf[i] == 0 for i in absent)


def test_ignored_ids_get_no_idf():
    df, n = document_frequencies(documents(), 12)
    assert smoothed_idf(df, n, ignored_ids=(1, 5))[[1, 5]].tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "bad,match",
    [(np.array([1, 2]), "token_ids"), (np.array([[1.5, 2.0]]), "integer"), (np.array([[3, 40]]), "token_ids")],
)
def test_bad_documents_raise(bad, match):
    with pytest.raises(ValueError, match=match):
        document_frequencies(bad, 12)
