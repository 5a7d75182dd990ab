"""Helpers shared by the tests split out of test_datasets.py."""

from keras_labelemb.datasets import TextClassificationData


def _small_data():
    return TextClassificationData(
        train_texts=[f"doc {i}" for i in range(10)],
        train_labels=[[i % 3] for i in range(9)] + [[0, 2]],
        test_texts=["t0", "t1", "t2"],
        test_labels=[[0], [1, 2], [2]],
        label_names=["a", "b", "c"],
        label_descriptions=["a: first", "b: second", "c: third"],
        train_ids=[f"train/{i}" for i in range(10)],
        test_ids=["test/0", "test/1", "test/2"],
    )
