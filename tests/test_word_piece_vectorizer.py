"""WordPieceVectorizer: [CLS] pieces [SEP] packing, truncation, a (B, 1) column, its vocabulary as an asset."""

import keras
import numpy as np
import pytest
from sentence_helpers import vectorizer


def test_word_piece_vectorizer_packs_and_round_trips(tmp_path):
    layer = vectorizer()
    ids = layer(["Wheat prices rose", "", "crude oil bank rate fell sharply"]).numpy()
    np.testing.assert_array_equal(ids[0], [2, 5, 8, 13, 9, 3])  # [CLS] wheat price ##s rose [SEP]
    np.testing.assert_array_equal(ids[1], [2, 3, 0, 0, 0, 0])  # an empty text: no pieces, padding after
    assert ids[2, -1] == 3 and ids.dtype == np.int32  # truncated, still ends with [SEP]
    assert layer.special_ids == (1, 2, 3)
    np.testing.assert_array_equal(layer.encode_labels(["grain", "crude oil"], 4), [[2, 14, 3, 0], [2, 15, 7, 3]])
    copy = type(layer).from_config(layer.get_config())  # the vocabulary is an asset of the tokenizer, not config
    with pytest.raises(ValueError, match="vocabulary"):
        copy(["Wheat prices rose"])
    layer.save_assets(str(tmp_path))
    copy.load_assets(str(tmp_path))
    np.testing.assert_array_equal(copy(["Wheat prices rose"]), ids[:1])
    with pytest.raises(ValueError, match="tokenizer"):
        type(layer)(keras.layers.Dense(2), 6)
    with pytest.raises(ValueError, match="sequence_length"):
        vectorizer(length=2)
    with pytest.raises(ValueError, match="description_length"):  # [CLS] [SEP] only: every label the same
        layer.encode_labels(["grain"], 2)
    column = layer(np.array([["Wheat prices rose"], [""]], dtype=object)).numpy()  # keras.Input((1,), "string")
    np.testing.assert_array_equal(column, ids[:2])
