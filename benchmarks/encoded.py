"""A frozen sentence encoder's outputs for every text of a dataset, computed once and kept on disk.

MiniLM reads Reuters' 10,788 documents in about 15 minutes on 2 CPU cores; a frozen encoder gives the same
vectors on every split, so the benchmarks that freeze it read them from `~/.cache/keras_labelemb/encoded`
(keyed by the texts, the word-piece length and the weights' file names), and write them there the first time.
"""

import hashlib
import os

import keras
import numpy as np

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "keras_labelemb", "encoded")


class Encoded:
    """The frozen `encoder`'s pooled vectors and the `vectorizer`'s word-piece ids of `texts` (duplicates read
    once); `documents(texts)` returns `{"pooled": (N, D), "token_ids": (N, T)}` rows for any of them."""

    def __init__(self, encoder, vectorizer, texts, batch_size=64, key="minilm", cache=True):
        unique = list(dict.fromkeys(texts))
        self.rows = {text: i for i, text in enumerate(unique)}
        digest = hashlib.sha256("\x00".join(unique).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        path = os.path.join(CACHE, f"{key}-{vectorizer.sequence_length}-{digest}.npz")
        if cache and os.path.exists(path):
            stored = np.load(path)
            self.ids, self.pooled = stored["ids"], stored["pooled"]
            return
        self.ids = np.concatenate([vectorizer(unique[i : i + 1024]).numpy() for i in range(0, len(unique), 1024)])
        ids = keras.Input((self.ids.shape[1],), dtype="int32")
        pooled = keras.Model(ids, encoder(ids)["pooled"])
        pooled.jit_compile = True  # XLA: half the encoder's CPU time
        self.pooled = pooled.predict(self.ids, batch_size=batch_size, verbose=2)
        if cache:
            os.makedirs(CACHE, exist_ok=True)
            np.savez(path + ".tmp.npz", ids=self.ids, pooled=self.pooled)
            os.replace(path + ".tmp.npz", path)

    def documents(self, texts):
        rows = [self.rows[text] for text in texts]
        return {"pooled": self.pooled[rows], "token_ids": self.ids[rows]}
