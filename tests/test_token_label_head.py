"""TokenLabelHead, the base of the heads that read tokens: its input, its ids, its idf."""

import numpy as np
import pytest

from keras_labelemb.layers import LexicalMatchHead
from keras_labelemb.layers.label_head import document_parts

LABELS = np.array([[2, 3], [4, 0]])


def head(**kwargs):
    layer = LexicalMatchHead(vocabulary_size=10, label_ids=LABELS, **kwargs)
    layer.build({"token_ids": (None, 4)})
    return layer


def test_the_input_must_be_a_document_dict_with_token_ids():
    layer = head()
    with pytest.raises(ValueError, match="token_ids"):
        layer(np.ones((2, 4), "float32"))
    with pytest.raises(ValueError, match="keys"):
        layer({"token_ids": np.ones((2, 4), "int32"), "words": np.ones((2, 4))})
    with pytest.raises(ValueError, match="dict with `token_ids`"):
        LexicalMatchHead(vocabulary_size=10, label_ids=LABELS).build((None, 4))


def test_document_parts_default_the_mask_to_nonzero_ids():
    parts = document_parts({"token_ids": np.array([[3, 0, 5]])})
    assert np.asarray(parts["token_mask"]).tolist() == [[True, False, True]]
    assert parts["pooled"] is None and parts["token_states"] is None


def test_padding_ignored_out_of_mask_ids_never_match():
    layer = head(ignored_ids=(1, 7))
    ids, keep = layer.document_ids({"token_ids": np.array([[1, 7, 2, 0]]), "token_mask": np.array([[1, 1, 1, 0]])})
    assert np.asarray(ids).tolist() == [[0, 0, 2, 0]] and np.asarray(keep).tolist() == [[False, False, True, False]]


def test_out_of_range_ids_and_arguments_raise():
    layer = head()
    with pytest.raises(ValueError, match="token_ids"):
        layer({"token_ids": np.array([[2, 12]])})
    with pytest.raises(ValueError, match="ignored_ids"):
        LexicalMatchHead(vocabulary_size=10, ignored_ids=(10,))
    with pytest.raises(ValueError, match="vocabulary_size"):
        LexicalMatchHead()
    with pytest.raises(ValueError, match="before `adapt`"):
        LexicalMatchHead(vocabulary_size=10).adapt(np.array([[2, 3]]))
    with pytest.raises(ValueError, match="at least one document"):
        layer.set_idf(np.zeros(10), 0)
