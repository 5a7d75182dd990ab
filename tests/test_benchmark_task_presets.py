"""Tests of benchmarks/task_presets.py: the split it trains on and how it scores, on a small dataset."""

import numpy as np

from benchmarks import task_presets
from keras_labelemb.datasets import TextClassificationData


def small_data(count=60):
    texts = [f"document {i} about {'wheat' if i % 2 else 'rates'}" for i in range(count)]
    return TextClassificationData(
        train_texts=texts,
        train_labels=[[i % 2] for i in range(count)],
        test_texts=texts[:10],
        test_labels=[[i % 2] for i in range(10)],
        label_names=["rates", "grain"],
        label_descriptions=["interest rates", "wheat and grain"],
        train_ids=[str(i) for i in range(count)],
        test_ids=[str(i) for i in range(10)],
    )


def test_the_split_subsamples_training_documents_apart_from_validation_and_repeats_by_seed():
    parts = task_presets.split(small_data(), seed=3, train_size=20, quick=False)
    train, val = parts["train"][0], parts["val"][0]
    assert len(train) == 20 and len(val) == 6 and not set(train) & set(val)
    assert task_presets.split(small_data(), seed=3, train_size=20, quick=False)["train"][0] == train
    assert task_presets.split(small_data(), seed=4, train_size=20, quick=False)["train"][0] != train


def test_multi_hot_marks_each_documents_labels():
    np.testing.assert_array_equal(task_presets.multi_hot([[0, 2], [], [1]], 3), [[1, 0, 1], [0, 0, 0], [0, 1, 0]])
