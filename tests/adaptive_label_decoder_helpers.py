"""Helpers shared by the tests split out of test_adaptive_label_decoder.py."""

import keras
import numpy as np

from keras_labelemb.layers import AdaptiveLabelDecoder, CoAttentiveEncoder

LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8], [9, 2, 0]], "int32")


def randomized(layer, *args, **kwargs):
    layer(*args, **kwargs)
    rng = np.random.default_rng(7)
    layer.set_weights([rng.normal(scale=0.6, size=w.shape).astype("float32") for w in layer.get_weights()])
    return layer


def text(seed=0, batch=4, length=6, width=6):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, length, width)).astype("float32")
    mask = np.ones((batch, length), bool)
    mask[0, 4:] = False
    mask[3] = False
    return x, mask


def decoder_with_encoder(max_steps=4, **kwargs):
    embedding = keras.layers.Embedding(12, 6, mask_zero=True)
    return AdaptiveLabelDecoder(
        embedding,
        LABELS,
        encoder=CoAttentiveEncoder(model_dim=6, num_heads=2, **kwargs),
        max_steps=max_steps,
        output_mode="sequence",
    )
