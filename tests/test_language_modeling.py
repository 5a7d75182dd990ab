"""Tests of `language_modeling`."""

import numpy as np
import pytest
from conftest import skip_missing_data

from benchmarks.datasets import LanguageModelingData, load_ptb, load_wikitext2
from benchmarks.datasets.language_modeling import tokenize_lines


def test_ptb_counts(data_dir):
    if not (data_dir / "ptb").is_dir():
        skip_missing_data("PTB", data_dir / "ptb")
    data = load_ptb(data_dir / "ptb", download=False)
    assert data.vocabulary_size == 10_000
    assert (len(data.train), len(data.val), len(data.test)) == (929_589, 73_760, 82_430)
    assert data.vocabulary[0] == "the" and "<eos>" in data.vocabulary and "<unk>" in data.vocabulary
    counts = data.train_counts()
    assert counts.sum() == 929_589 and (np.diff(counts) <= 0).all()  # ids sorted by frequency


def test_wikitext2_counts(data_dir):
    if not (data_dir / "wikitext2").is_dir():
        skip_missing_data("WikiText-2", data_dir / "wikitext2")
    data = load_wikitext2(data_dir / "wikitext2", download=False)
    assert data.vocabulary_size == 33_278
    assert (len(data.train), len(data.val), len(data.test)) == (2_088_628, 217_646, 245_569)


def test_missing_corpus_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="ptb.train.txt"):
        load_ptb(tmp_path, download=False)


def test_unknown_tokens_map_to_unk_or_raise():
    data = LanguageModelingData.from_token_lists("t", tokenize_lines(["a <unk> b"]), ["a", "zzz"], ["b"])
    assert data.val.tolist() == [data.vocabulary.index("a"), data.vocabulary.index("<unk>")]
    with pytest.raises(ValueError, match="zzz"):
        LanguageModelingData.from_token_lists("t", tokenize_lines(["a b"]), ["zzz"], ["a"])
