"""What the sentence-layer tests share: a tiny random BERT as the encoder, a word-piece vocabulary, NumPy pooling."""

import keras
import numpy as np
import pytest

keras_hub = pytest.importorskip("keras_hub")
from layer_cases import tiny_bert  # noqa: E402  (after the skip: it imports keras_hub)

from keras_labelemb.layers import SentenceEncoder  # noqa: E402

V, T = 16, 6
LABELS = np.array([[2, 5, 7, 3], [2, 9, 3, 0], [2, 3, 0, 0]])  # [CLS] words [SEP]; the last, an empty text
DOCUMENTS = np.array([[2, 5, 7, 3, 0, 0], [2, 9, 9, 4, 3, 0], [0, 0, 0, 0, 0, 0]])  # one is all padding
PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "wheat", "corn", "oil", "price", "rose", "fell", "bank"]
PIECES += ["rate", "##s", "grain", "crude"]


def encoder():
    keras.utils.set_random_seed(0)
    return SentenceEncoder(tiny_bert(V, 8, T))


def unit_means(backbone, ids):
    """sentence-transformers' pooling: mean of the token states that are not padding, then unit length."""
    inputs = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": ids != 0}
    states = np.asarray(backbone(inputs)["sequence_output"])
    out = np.zeros((len(ids), states.shape[-1]))
    for i, row in enumerate(ids):
        if (row != 0).any():
            mean = states[i, row != 0].mean(axis=0)
            out[i] = mean / np.linalg.norm(mean)
    return out


def vectorizer(length=T):
    from keras_labelemb.text import WordPieceVectorizer

    return WordPieceVectorizer(keras_hub.models.BertTokenizer(PIECES, lowercase=True), length)


def gradient_tape():
    import tensorflow as tf

    return tf.GradientTape()
