"""Helpers shared by the tests split out of test_region_lstm.py."""

import numpy as np


def numpy_region_pooling(h, mask, k, mode):
    batch, _, dim = h.shape
    out = np.zeros((batch, k, dim))
    for b in range(batch):
        positions = np.flatnonzero(mask[b])
        n = len(positions)
        for j in range(k):
            members = [p for r, p in enumerate(positions) if (r * k) // n == j]
            if members:
                values = h[b, members]
                out[b, j] = values.max(axis=0) if mode == "max" else values.mean(axis=0)
    return out.reshape(batch, k * dim)
