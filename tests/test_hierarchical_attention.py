import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_labelemb.layers import HierarchicalAttention

RNG = np.random.default_rng(2)


def document_mask(batch=3, sentences=4, words=5):
    mask = np.ones((batch, sentences, words), bool)
    mask[0, 2:] = False  # two padding sentences
    mask[0, 1, 3:] = False  # a short sentence
    mask[2] = False  # an all-padding document
    return mask


def test_scores_of_padding_are_zero_and_rows_sum_to_one():
    x = RNG.normal(size=(3, 4, 5, 6)).astype("float32")
    mask = document_mask()
    layer = HierarchicalAttention("dense", 4, "dense", 4, return_attention_scores=True)
    doc, word_scores, sentence_scores = (ops.convert_to_numpy(t) for t in layer(x, mask=mask))
    assert np.all(word_scores[~mask] == 0)
    assert np.all(sentence_scores[~mask.any(-1)] == 0)
    np.testing.assert_allclose(sentence_scores.sum(-1), [1, 1, 0], atol=1e-6)
    np.testing.assert_allclose(word_scores.sum(-1)[mask.any(-1)], 1, atol=1e-6)
    assert np.all(doc[2] == 0)  # attention over no sentence pools to zeros


def test_dense_han_matches_numpy_reference():
    """Word level eq. 1-2 then sentence level, written out in NumPy."""
    x = RNG.normal(size=(2, 3, 4, 5)).astype("float32")
    mask = np.ones((2, 3, 4), bool)
    mask[1, 1:] = False
    layer = HierarchicalAttention("dense", 4, "dense", 3)
    out = ops.convert_to_numpy(layer(x, mask=mask))

    def weights(layer_):
        return [ops.convert_to_numpy(w) for w in layer_.weights]

    def pool(att, h, m):
        W, b, u = weights(att.projection) + [ops.convert_to_numpy(att.context)]
        s = np.tanh(h @ W + b) @ u
        s = np.where(m, s, -np.inf)
        a = np.exp(s - s.max(-1, keepdims=True))
        a = np.where(m, a, 0)
        a = a / np.maximum(a.sum(-1, keepdims=True), 1e-30)
        return (a[..., None] * h).sum(-2)

    Ww, bw = weights(layer.word_encoder_layer)
    Ws, bs = weights(layer.sentence_encoder_layer)
    sentences = pool(layer.word_attention, np.maximum(x @ Ww + bw, 0), mask)
    expected = pool(layer.sentence_attention, np.maximum(sentences @ Ws + bs, 0), mask.any(-1))
    np.testing.assert_allclose(out, expected, atol=1e-5)


def test_mask_from_embedding_is_used():
    ids = RNG.integers(1, 30, size=(2, 3, 5))
    padded = ids.copy()
    padded[:, 2] = 0
    emb = keras.layers.Embedding(30, 8, mask_zero=True)
    han = HierarchicalAttention("dense", 4, "dense", 4)
    # Padding sentences contribute nothing: same output as a document with only two sentences.
    full = ops.convert_to_numpy(han(emb(padded), mask=emb.compute_mask(padded)))
    short = ops.convert_to_numpy(han(emb(padded[:, :2]), mask=emb.compute_mask(padded[:, :2])))
    np.testing.assert_allclose(full, short, atol=1e-5)
    model = keras.Sequential([keras.Input((3, 5)), emb, han])
    np.testing.assert_allclose(ops.convert_to_numpy(model(padded)), full, atol=1e-5)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"word_encoder": "cnn"}, "word_encoder='cnn'"),
        ({"word_units": 0}, "word_units=0"),
        ({"dropout": 1.5}, "dropout=1.5"),
        ({"attention_units": -2}, "attention_units=-2"),
    ],
)
def test_invalid_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        HierarchicalAttention(**kwargs)


def test_wrong_input_rank_is_a_clear_error():
    with pytest.raises(ValueError, match="inputs"):
        HierarchicalAttention()(np.zeros((2, 5, 6), "float32"))
    with pytest.raises(ValueError, match="flat=True"):
        HierarchicalAttention(flat=True)(np.zeros((2, 3, 5, 6), "float32"))


def test_token_ids_without_embedding_get_a_hint():
    with pytest.raises(ValueError, match="Embedding"):
        HierarchicalAttention()(np.ones((2, 3, 5), "int32"))


def test_attention_scores_on_request_from_a_built_layer():
    """The call argument returns the scores without touching the layer (as keras.layers.MultiHeadAttention)."""
    layer = HierarchicalAttention("dense", 4, "dense", 4)
    x = RNG.normal(size=(3, 3, 5, 6)).astype("float32")
    mask = document_mask(3, 3, 5)
    doc = layer(x, mask=mask)
    same, word_scores, sentence_scores = layer(x, mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(ops.convert_to_numpy(same), ops.convert_to_numpy(doc), atol=1e-6)
    assert word_scores.shape == (3, 3, 5) and sentence_scores.shape == (3, 3)
    np.testing.assert_allclose(ops.convert_to_numpy(sentence_scores).sum(-1)[mask.any((1, 2))], 1.0, atol=1e-5)
    assert layer.return_attention_scores is False  # the layer itself is unchanged
    symbolic = layer(keras.Input((3, 5, 6)), return_attention_scores=True)
    assert [tuple(t.shape) for t in symbolic] == [(None, 4), (None, 3, 5), (None, 3)]
    flat = HierarchicalAttention("gru", 4, flat=True)
    _, flat_scores = flat(x[:, 0], mask=mask[:, 0], return_attention_scores=True)
    assert flat_scores.shape == (3, 5)


@pytest.mark.parametrize("share", ["encoders", "attention", "both"])
def test_mhan_sharing_modes_share_exactly_what_they_say(share):
    mhan = HierarchicalAttention("gru", 4, "dense", 3, num_languages=2, share=share)
    x = np.random.default_rng(4).normal(size=(2, 3, 5, 6)).astype("float32")
    mhan(x, language=0)
    for level in ("word", "sentence"):
        for part in ("encoder", "attention"):
            shared = share in (part + "s" if part == "encoder" else part, "both")
            assert (
                mhan._sublayers(level, 0)[part == "attention"] is mhan._sublayers(level, 1)[part == "attention"]
            ) == shared
    # The German loss reaches the shared weights, and only its own unshared ones.
    with tf.GradientTape() as tape:
        loss_de = tf.reduce_sum(mhan(x, language=1) ** 2)
    english_only = {
        id(w) for level in ("word", "sentence") for layer in mhan._sublayers(level, 0) for w in layer.trainable_weights
    } - {
        id(w) for level in ("word", "sentence") for layer in mhan._sublayers(level, 1) for w in layer.trainable_weights
    }
    grads = tape.gradient(loss_de, mhan.trainable_weights)
    for weight, grad in zip(mhan.trainable_weights, grads):
        reached = grad is not None and float(tf.reduce_max(tf.abs(tf.convert_to_tensor(grad)))) > 0
        assert reached == (id(weight) not in english_only), weight.path
    # Different languages give different encodings unless everything is shared.
    differs = not np.allclose(mhan(x, language=0), mhan(x, language=1))
    assert differs == (share != "both")


def test_token_states_are_the_word_encoders_states_zero_at_padding():
    """The document structure of a head that reads tokens: the pooled vector and every word's encoder state."""
    x = RNG.normal(size=(3, 4, 5, 6)).astype("float32")
    mask = document_mask()
    layer = HierarchicalAttention("dense", 4, "dense", 3)
    document = layer(x, mask=mask, return_token_states=True)
    assert sorted(document) == ["pooled", "token_states"]
    np.testing.assert_allclose(ops.convert_to_numpy(document["pooled"]), ops.convert_to_numpy(layer(x, mask=mask)))
    kernel, bias = (ops.convert_to_numpy(w) for w in layer.word_encoder_layer.weights)
    expected = np.where(mask[..., None], np.maximum(x @ kernel + bias, 0), 0.0)
    np.testing.assert_allclose(ops.convert_to_numpy(document["token_states"]), expected, atol=1e-6)
    flat = HierarchicalAttention("bigru", 2, flat=True, return_token_states=True)
    symbolic = flat(keras.Input((5, 6)))
    assert tuple(symbolic["token_states"].shape) == (None, 5, 4) and tuple(symbolic["pooled"].shape) == (None, 4)
    states = ops.convert_to_numpy(flat(x[:, 0], mask=mask[:, 0])["token_states"])
    assert np.all(states[~mask[:, 0]] == 0) and np.all(np.abs(states[mask[:, 0]]).sum(-1) > 0)


def test_token_states_and_attention_scores_are_asked_for_one_at_a_time():
    with pytest.raises(ValueError, match="return_attention_scores=True, return_token_states=True"):
        HierarchicalAttention(return_attention_scores=True, return_token_states=True)
    layer = HierarchicalAttention("dense", 4, "dense", 4, return_token_states=True)
    with pytest.raises(ValueError, match="return_token_states"):
        layer(RNG.normal(size=(1, 2, 3, 4)).astype("float32"), return_attention_scores=True)
