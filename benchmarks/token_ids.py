"""Token ids of many texts, vectorized in slices so that one huge string tensor is never built."""

import numpy as np
import tensorflow as tf


def token_ids(vectorizer, texts, batch=2048):
    """`(N, ...)` int32 ids of `texts` (a list of str) from a `TextVectorizer`, `batch` texts at a time."""
    parts = [
        vectorizer(tf.constant(texts[i : i + batch], dtype=tf.string)).numpy() for i in range(0, len(texts), batch)
    ]
    return np.concatenate(parts).astype("int32")
