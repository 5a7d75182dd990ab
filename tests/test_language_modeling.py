"""Tests of `language_modeling`."""

import numpy as np
import pytest
from conftest import skip_missing_data

from keras_labelemb.datasets import LanguageModelingData, bptt_dataset, load_ptb, load_wikitext2
from keras_labelemb.datasets.language_modeling import bptt_arrays, num_bptt_batches, tokenize_lines


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


def test_bptt_batches_continue_each_row_and_shift_targets():
    stream = np.arange(1, 104)  # 103 tokens: 4 rows of 25 (3 dropped)
    x, y = bptt_arrays(stream, batch_size=4, bptt=5)
    assert x.shape == y.shape == (4, 4, 5) == (num_bptt_batches(103, 4, 5), 4, 5)
    rows = stream[:100].reshape(4, 25)
    np.testing.assert_array_equal(np.concatenate(list(x), axis=1), rows[:, :20])  # row b continues across batches
    np.testing.assert_array_equal(np.concatenate(list(y), axis=1), rows[:, 1:21])  # next tokens
    with pytest.raises(ValueError, match="too short"):
        bptt_arrays(np.arange(10), batch_size=4, bptt=5)
    with pytest.raises(ValueError, match="bptt"):
        bptt_arrays(stream, batch_size=4, bptt=0)


def test_bptt_dataset_has_fixed_shapes_in_stream_order():
    stream = np.arange(1, 104)
    dataset = bptt_dataset(stream, batch_size=4, bptt=5)
    assert tuple(dataset.element_spec[0].shape) == (4, 5)
    batches = [x for x, _ in dataset.as_numpy_iterator()]
    np.testing.assert_array_equal(np.stack(batches), bptt_arrays(stream, 4, 5)[0])
