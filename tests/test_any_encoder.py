"""A keras-hub backbone (a tiny randomly initialised BertBackbone) feeds the token-reading heads like the
library's encoders: its pooled and token outputs, ids and padding mask go into the document dict, and the model
trains, is cut at its head, scores top-k in chunks, relabels and round-trips a .keras file."""

import keras
import numpy as np
import pytest

from keras_labelemb.evaluation import predict_top_k
from keras_labelemb.layers import GileHead, HybridHead, LexicalMatchHead, WordInteractionHead
from keras_labelemb.models import set_labels
from keras_labelemb.tasks import LabelClassifier

keras_hub = pytest.importorskip("keras_hub")

V, T = 40, 10
LABELS = np.array([[5, 6], [7, 0], [8, 9]])
KEYS = ("token_ids", "segment_ids", "padding_mask")


def bert_hybrid():
    keras.utils.set_random_seed(0)
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=V, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=T
    )
    # The head reads words through its own table over the backbone's vocabulary: a layer nested in a keras-hub
    # backbone, shared with a head outside it, is not restored as one object by Keras 3.15's `.keras` loading.
    words = keras.layers.Embedding(V, 8, mask_zero=True, name="head_words")
    head = HybridHead(
        [GileHead(words, joint_dim=4, name="gile"), LexicalMatchHead(words, name="lexical"),
         WordInteractionHead(words, name="interaction")],
        label_ids=LABELS,
    )  # fmt: skip
    inputs = {key: keras.Input((T,), dtype="int32", name=key) for key in KEYS}
    outputs = backbone(inputs)
    document = {
        "pooled": outputs["pooled_output"],
        "token_states": outputs["sequence_output"],
        "token_ids": inputs["token_ids"],
        "token_mask": inputs["padding_mask"],
    }
    return keras.Model(inputs, head(document))


def batch():
    rng = np.random.default_rng(0)
    ids = rng.integers(2, V, size=(6, T)).astype("int32")
    ids[1, 4:] = 0
    return {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": (ids != 0).astype("int32")}


def test_a_keras_hub_backbone_feeds_the_token_heads(tmp_path):
    model, x = bert_hybrid(), batch()
    model.layers[-1].adapt(x["token_ids"])
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True), run_eagerly=True)  # no graph to trace
    history = model.fit(x, np.eye(3)[[0, 1, 2, 0, 1, 2]], epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])

    classifier = LabelClassifier.from_model(model)
    encoder = classifier.encoder
    assert classifier.head is model.layers[-1]
    assert sorted(encoder.output) == ["pooled", "token_ids", "token_mask", "token_states"]
    full = model.predict(x, verbose=0)
    indices, scores = predict_top_k(model, x, k=2, label_chunk_size=2, verbose=0)
    np.testing.assert_array_equal(indices, np.argsort(-full, axis=1, kind="stable")[:, :2])
    np.testing.assert_allclose(scores, np.sort(full, axis=1)[:, ::-1][:, :2], atol=1e-6)

    model.save(tmp_path / "bert.keras")
    loaded = keras.models.load_model(tmp_path / "bert.keras")
    np.testing.assert_allclose(loaded(x), full, atol=1e-6)
    set_labels(loaded, np.array([[10, 11], [12, 0]]))  # zero-shot labels through the same heads
    assert loaded(x).shape == (6, 2)
