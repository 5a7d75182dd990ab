"""Vocabulary control for tv-embeddings (J&Z 2016 section 3.2): which token ids become targets."""

import numpy as np
import pytest

from keras_labelemb.text.target_vocabulary import STOP_WORDS, target_vocabulary

VOCAB = 30


def tokens():
    return ["<pad>", "<unk>", "the", "<num>", "of"] + [f"w{i}" for i in range(VOCAB - 5)]


def test_target_vocabulary_drops_function_words_reserved_tokens_and_rare_words():
    mapping = target_vocabulary(tokens(), max_targets=10)
    assert mapping.shape == (VOCAB,) and mapping.dtype == np.int32
    assert (mapping[:5] == -1).all()  # <pad>, <unk>, "the", <num>, "of"
    np.testing.assert_array_equal(mapping[5:15], np.arange(10))
    assert (mapping[15:] == -1).all()  # beyond the 10 most frequent content words
    everything = target_vocabulary(tokens(), max_targets=1000, stop_words=())
    assert everything[2] == 0 and everything[4] == 1 and everything.max() == VOCAB - 4


def test_default_stop_words_and_custom_ones():
    # Function words get no target by default (lower-cased), content words do.
    assert target_vocabulary(["<pad>", "and", "And", "w0", "of"]).tolist() == [-1, -1, -1, 0, -1]
    np.testing.assert_array_equal(target_vocabulary(tokens()), target_vocabulary(tokens(), stop_words=STOP_WORDS))
    custom = target_vocabulary(["<pad>", "The", "w0", "w1"], stop_words=["W0"])  # compared lower-cased
    assert custom.tolist() == [-1, 0, -1, 1]


def test_bad_max_targets():
    with pytest.raises(ValueError, match="max_targets"):
        target_vocabulary(tokens(), max_targets=0)
