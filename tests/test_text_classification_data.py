"""Tests of `text_classification_data`."""

import numpy as np
import pytest
from datasets_helpers import _small_data


def test_validation_split_is_deterministic_and_disjoint():
    data = _small_data()
    a = data.validation_split(3, seed=0)
    assert a == data.validation_split(3, seed=0)
    assert len(a.val_texts) == 3 and len(a.train_texts) == 7
    assert sorted(a.train_ids + a.val_ids) == sorted(data.train_ids)
    assert not set(a.train_ids) & set(a.val_ids)
    for texts, labels, ids in ((a.train_texts, a.train_labels, a.train_ids), (a.val_texts, a.val_labels, a.val_ids)):
        for text, doc_labels, doc_id in zip(texts, labels, ids):
            i = data.train_ids.index(doc_id)
            assert (data.train_texts[i], data.train_labels[i]) == (text, doc_labels)
    assert a.val_ids == sorted(a.val_ids, key=data.train_ids.index)
    assert len(data.validation_split(0.2, seed=0).val_texts) == 2
    assert data.validation_split(3, seed=1).val_ids != a.val_ids
    assert a.test_texts == data.test_texts
    with pytest.raises(ValueError, match="already has a validation split"):
        a.validation_split(1)
    for bad in (0, 10, 1.5, 0.0, "3", True):
        with pytest.raises(ValueError):
            data.validation_split(bad)


def test_multi_hot_counts_and_checks():
    data = _small_data()
    y = data.multi_hot("test")
    assert y.dtype == np.float32 and y.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert data.label_counts("train").tolist() == [4, 3, 4]
    assert data.multi_hot("val").shape == (0, 3)
    assert "train=10" in repr(data)
    with pytest.raises(ValueError, match="split"):
        data.multi_hot("dev")
    with pytest.raises(ValueError, match="out of range"):
        data.replace(test_labels=[[0], [3], [1]])
    with pytest.raises(ValueError, match="label_descriptions"):
        data.replace(label_descriptions=["a"])
    with pytest.raises(ValueError, match="as many"):
        data.replace(test_ids=["x"])
