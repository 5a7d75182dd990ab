"""The sampled training step of a `LabelClassifier` (tasks/sampled_step.py): its losses from multi-hot rows and
from positive label indices, its logs, and `positive_label_indices`."""

import keras
import numpy as np
import pytest

from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models import gile_wan
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.tasks.sampled_step import (
    positive_label_indices,
    sampled_indices_loss,
    sampled_multi_hot_loss,
    sampled_step_metrics,
)

NUM_LABELS = 10


def _classifier(model, **loss_options):
    classifier = LabelClassifier.from_model(model)
    classifier.compile("sgd", loss=SampledSigmoidLoss(num_negatives=3, max_positives=6, seed=2, **loss_options))
    return classifier


def test_one_step_gives_the_same_loss_and_dropped_positives_from_rows_and_from_indices():
    rng = np.random.default_rng(0)
    labels = rng.integers(2, 30, (NUM_LABELS, 2)).astype("int32")
    model = gile_wan(30, labels, max_tokens=6, units=4, joint_dim=4)
    ids = rng.integers(1, 30, (8, 6)).astype("int32")
    y = (rng.random((8, NUM_LABELS)) < 0.3).astype("float32")
    rows, indexed = _classifier(model), _classifier(model, targets="label_indices")
    assert rows.head is indexed.head  # one model, two tasks over it, each with its own sampler
    features = rows.encoder(ids)
    from_rows = sampled_multi_hot_loss(rows, keras.ops.convert_to_tensor(y), features)
    from_indices = sampled_indices_loss(indexed, keras.ops.convert_to_tensor(positive_label_indices(y)), features)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(from_indices), keras.ops.convert_to_numpy(from_rows), 1e-6)
    dropped = [float(c.dropped_positives.result()) for c in (rows, indexed)]
    assert dropped[0] == dropped[1] == max(0, np.count_nonzero(y.max(axis=0)) - 6)  # 6 positive slots
    logs = sampled_step_metrics(rows, NUM_LABELS)
    assert set(logs) == {"loss", "dropped_positives"} and float(logs["dropped_positives"]) == dropped[0]
    with pytest.raises(ValueError, match=rf"multi-hot over the head's {NUM_LABELS} labels.*\(8, 4\)"):
        sampled_multi_hot_loss(rows, keras.ops.convert_to_tensor(y[:, :4]), features)
    with pytest.raises(ValueError, match=rf"\[0, {NUM_LABELS}\).*max {NUM_LABELS}"):
        sampled_indices_loss(indexed, keras.ops.convert_to_tensor(np.full((8, 1), NUM_LABELS, "int32")), features)


def test_positive_label_indices_lists_each_rows_positives_in_label_order():
    y = (np.random.default_rng(3).random((9, 7)) < 0.3).astype("float32")
    y[4] = 0.0
    got = positive_label_indices(y)
    assert got.shape == (9, int(y.sum(axis=1).max())) and got.dtype == np.int32
    for row, labels in zip(got, y):
        assert (
            row[row >= 0].tolist() == np.flatnonzero(labels).tolist()
            and (row[len(np.flatnonzero(labels)) :] == -1).all()
        )
    assert positive_label_indices(np.zeros((2, 3))).tolist() == [[-1], [-1]]
    with pytest.raises(ValueError, match="multi_hot"):
        positive_label_indices(np.zeros(3))
