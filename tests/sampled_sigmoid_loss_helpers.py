"""Helpers shared by the tests split out of test_sampled_sigmoid_loss.py."""

import keras
import numpy as np

from keras_labelemb.layers import GileHead, LinearHead

NUM_LABELS = 12


def _head(variant="gile", num_labels=NUM_LABELS, seed=0):
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    labels = rng.integers(1, 30, size=(num_labels, 3)).astype("int32")
    labels[:, 2] = 0
    embedding = keras.layers.Embedding(30, 5, mask_zero=True)
    if variant == "linear":
        head = LinearHead(num_labels)
    else:
        head = GileHead(embedding=embedding, label_ids=labels, joint_dim=6, variant=variant)
    head.build((None, 4))
    return head


def _targets(rng, batch=6, num_labels=NUM_LABELS, rate=0.2):
    y = (rng.random((batch, num_labels)) < rate).astype("float32")
    y[0] = 0.0  # a document without positives
    return y
