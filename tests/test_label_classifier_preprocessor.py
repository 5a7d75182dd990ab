"""Tests of `label_classifier_preprocessor`: texts checked, vocabulary kept for descriptions, a config round trip."""

import keras
import numpy as np
import pytest

from keras_labelemb.tasks import LabelClassifierPreprocessor
from keras_labelemb.tasks.label_classifier_preprocessor import check_texts
from keras_labelemb.text import TextVectorizer


def test_every_description_word_enters_the_vocabulary_whatever_min_count_says():
    preprocessor = LabelClassifierPreprocessor(TextVectorizer(max_tokens=4), description_length=3, min_count=2)
    preprocessor.adapt(["wheat wheat rose", "rates rates fell"], ["barley grain"])
    vocabulary = preprocessor.vectorizer.get_vocabulary()
    assert {"wheat", "rates", "barley", "grain"} <= set(vocabulary) and "rose" not in vocabulary
    assert (preprocessor.encode_labels(["barley grain"]) > 1).sum() == 2  # no <unk>


def test_a_config_round_trip_keeps_the_vocabulary_and_the_ids():
    preprocessor = LabelClassifierPreprocessor(TextVectorizer(flat=False, max_sentences=2, max_sentence_length=3))
    preprocessor.adapt(["Wheat rose. Rates fell.", "Oil up."])
    again = LabelClassifierPreprocessor.from_config(preprocessor.get_config())
    np.testing.assert_array_equal(again(["Oil rose. Wheat."]), preprocessor(["Oil rose. Wheat."]))
    assert preprocessor(["a"]).shape == (1, 2, 3)
    assert keras.saving.serialize_keras_object(again)["registered_name"] == "keras_labelemb>LabelClassifierPreprocessor"


def test_an_unadapted_preprocessor_says_what_to_do():
    with pytest.raises(ValueError, match="adapt"):
        LabelClassifierPreprocessor()(["wheat"])
    with pytest.raises(ValueError, match="at least one"):
        LabelClassifierPreprocessor().adapt([])
    with pytest.raises(ValueError, match="TextVectorizer"):
        LabelClassifierPreprocessor(vectorizer="words")


def test_check_texts_reads_arrays_columns_and_utf8_bytes():
    assert check_texts(np.array([["a"], ["b"]])) == ["a", "b"]
    assert check_texts(("é", "x".encode())) == ["é", "x"]
    with pytest.raises(ValueError, match="type int"):
        check_texts(3)
