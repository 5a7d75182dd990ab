"""WordInteractionHead: the K-NRM equation against NumPy, masks, ignored words, gradients, bad arguments.

The shared layer contract (config, save/load, fit step, mixed precision) runs
through tests/layer_cases.py (`word_interaction_head`).
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_labelemb.layers import WordInteractionHead

RNG = np.random.default_rng(13)
VOCAB, DIM, T = 25, 6, 7
LABELS = np.array(
    [
        [3, 4, 0],
        [5, 1, 0],  # an unknown word, ignored
        [6, 7, 6],  # a repeated word
        [9, 3, 12],
    ],
    "int32",
)
DOCS = np.array(
    [
        [3, 4, 4, 9, 0, 0, 0],
        [1, 5, 1, 8, 11, 2, 0],  # unknown words (1)
        [0, 0, 0, 0, 0, 0, 0],  # all padding: scores the bias
        [6, 6, 13, 14, 7, 20, 24],
        [1, 1, 0, 0, 0, 0, 0],  # unknown words only: scores the bias too
    ],
    "int32",
)
TRAIN = RNG.integers(0, 15, size=(10, T)).astype("int32")


def make_head(weighting="plain", trainable=True, **kwargs):
    embedding = keras.layers.Embedding(VOCAB, DIM, mask_zero=True, trainable=trainable)
    head = WordInteractionHead(embedding, label_ids=LABELS, description_weighting=weighting, **kwargs)
    head.build({"token_ids": (None, T)})
    embedding.embeddings.assign(RNG.normal(size=(VOCAB, DIM)).astype("float32"))
    head.kernel_weights.assign(RNG.normal(size=head.kernel_weights.shape).astype("float32"))
    head.bias.assign(0.37)
    if weighting == "idf":
        head.adapt(TRAIN)
    return head


def numpy_logits(head, ids, labels=LABELS, mask=None):
    """K-NRM (Xiong et al. 2017) written out in float64, dropping padding and the unknown word on both sides."""
    table = ops.convert_to_numpy(head.embedding.embeddings).astype("float64")
    unit = table / np.linalg.norm(table, axis=-1, keepdims=True)
    keep_doc = (ids > 1) if mask is None else (ids > 1) & mask
    keep_label = labels > 1
    a = keep_label.astype("float64")
    if head.description_weighting == "idf":
        a = a * ops.convert_to_numpy(head.idf).astype("float64")[labels]
    total = a.sum(-1, keepdims=True)
    a = np.divide(a, total, out=np.zeros_like(a), where=total > 0)
    s = np.einsum("btd,lwd->blwt", unit[ids], unit[labels])  # (B, L, Lw, T)
    phi = []
    for mu, sigma in zip(head.kernel_centres, head.kernel_widths):
        kernel = np.exp(-((s - mu) ** 2) / (2 * sigma**2)) * keep_doc[:, None, None, :]
        phi.append((a * np.log1p(kernel.sum(-1))).sum(-1))  # (B, L)
    phi = np.stack(phi, -1)
    v = ops.convert_to_numpy(head.kernel_weights).astype("float64")
    return phi @ v + float(ops.convert_to_numpy(head.bias))


def logits(head, ids, **kwargs):
    return ops.convert_to_numpy(head({"token_ids": ids}, **kwargs))


def test_kernel_widths_follow_the_centres():
    head = WordInteractionHead(
        keras.layers.Embedding(VOCAB, DIM), kernel_centres=(1.0, 0.5, -0.2), kernel_width=0.2, exact_match_width=0.01
    )
    assert head.kernel_widths == (0.01, 0.2, 0.2)
    assert WordInteractionHead(keras.layers.Embedding(VOCAB, DIM)).kernel_widths[:2] == (1e-3, 0.1)


@pytest.mark.parametrize("weighting", ["plain", "idf"])
def test_logits_match_numpy(weighting):
    head = make_head(weighting)
    got = logits(head, DOCS)
    expected = numpy_logits(head, DOCS)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(got[[2, 4]], 0.37, atol=1e-6)  # no matching word: the bias alone
    assert np.ptp(got[[0, 1, 3]]) > 0.1  # the others are not all the bias


def test_idf_weighting_uses_the_adapted_idf():
    plain, idf = make_head("plain"), make_head("idf")
    idf.embedding.embeddings.assign(plain.embedding.embeddings)
    idf.kernel_weights.assign(plain.kernel_weights)
    # Labels with several words weigh them by idf; label 1 has one word: the weighting cannot change it.
    diff = np.abs(logits(plain, DOCS) - logits(idf, DOCS))
    assert diff[:, [0, 2, 3]].max() > 1e-3
    np.testing.assert_allclose(diff[:, 1], 0.0, atol=1e-6)


def test_custom_kernels_match_numpy():
    head = make_head(kernel_centres=(1.0, 0.6, 0.0, -1.0), kernel_width=0.3, exact_match_width=0.05)
    np.testing.assert_allclose(logits(head, DOCS), numpy_logits(head, DOCS), atol=1e-5)


def test_the_unknown_word_is_ignored_on_both_sides():
    head = make_head()
    without_unknown = np.where(DOCS == 1, 0, DOCS)
    np.testing.assert_allclose(logits(head, DOCS), logits(head, without_unknown), atol=1e-6)
    # A description "w5 <unk>" scores like "w5".
    labels = np.array([[5, 1], [5, 0]], "int32")
    both = logits(head, DOCS, label_ids=labels)
    np.testing.assert_allclose(both[:, 0], both[:, 1], atol=1e-6)
    # Not ignored when it is not in `ignored_ids`: then two unknown words are an exact match.
    counted = make_head(ignored_ids=(2,))
    counted.embedding.embeddings.assign(head.embedding.embeddings)
    counted.kernel_weights.assign(head.kernel_weights)
    assert not np.allclose(logits(counted, DOCS)[4], 0.37, atol=1e-3)


def test_masked_tokens_change_nothing():
    head = make_head("idf")
    mask = DOCS > 0
    mask[0, 1] = mask[3, 2:5] = False
    changed = DOCS.copy()
    changed[~mask] = RNG.integers(2, VOCAB, size=(~mask).sum())
    masked = ops.convert_to_numpy(head({"token_ids": DOCS, "token_mask": mask}))
    np.testing.assert_allclose(
        ops.convert_to_numpy(head({"token_ids": changed, "token_mask": mask})), masked, atol=1e-6
    )
    np.testing.assert_allclose(masked, numpy_logits(head, DOCS, mask=mask), atol=1e-5)
    assert not np.allclose(masked, logits(head, DOCS), atol=1e-4)


def test_call_time_labels_match_numpy_and_label_embeddings():
    head = make_head()
    other = np.array([[8, 11, 0, 0], [24, 0, 0, 0], [13, 14, 3, 1]], "int32")
    by_ids = logits(head, DOCS, label_ids=other)
    np.testing.assert_allclose(by_ids, numpy_logits(head, DOCS, labels=other), atol=1e-5)
    np.testing.assert_allclose(logits(head, DOCS, label_embeddings=head.embed_labels(other)), by_ids, atol=1e-6)
    subset = ops.convert_to_numpy(head.score_subset({"token_ids": DOCS}, np.array([3, 1])))
    np.testing.assert_allclose(subset, logits(head, DOCS)[:, [3, 1]], atol=1e-6)


def gradients(head):
    targets = (RNG.random((len(DOCS), len(LABELS))) < 0.4).astype("float32")
    with tf.GradientTape() as tape:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)(targets, head({"token_ids": DOCS}))
    grads = tape.gradient(loss, head.trainable_variables)
    return {v.name: ops.convert_to_numpy(tf.convert_to_tensor(g)) for v, g in zip(head.trainable_variables, grads)}


def test_gradient_reaches_the_trainable_embedding_but_not_ignored_rows():
    grads = gradients(make_head())
    assert sorted(grads) == ["bias", "embeddings", "kernel_weights"]
    assert np.abs(grads["kernel_weights"]).min() > 0
    rows = np.abs(grads["embeddings"]).sum(-1)
    used = np.unique(np.concatenate([DOCS.ravel(), LABELS.ravel()]))
    assert np.all(rows[used[used > 1]] > 0)
    assert rows[0] == rows[1] == 0.0  # padding and the unknown word take no part
    assert np.all(rows[np.setdiff1d(np.arange(VOCAB), used)] == 0.0)


def test_a_frozen_embedding_stays_put_while_kernel_weights_train():
    head = make_head(trainable=False)
    table = ops.convert_to_numpy(head.embedding.embeddings).copy()
    kernel_weights = ops.convert_to_numpy(head.kernel_weights).copy()
    assert sorted(v.name for v in head.trainable_variables) == ["bias", "kernel_weights"]
    grads = gradients(head)
    assert np.abs(grads["kernel_weights"]).min() > 0
    optimizer = keras.optimizers.SGD(0.5)
    optimizer.apply([grads[v.name] for v in head.trainable_variables], head.trainable_variables)
    np.testing.assert_array_equal(ops.convert_to_numpy(head.embedding.embeddings), table)
    assert np.abs(ops.convert_to_numpy(head.kernel_weights) - kernel_weights).min() > 0


def test_states_mode_matches_numpy():
    """`document_vectors="states"`: a document token is its projected encoder state, matched like a word vector."""
    head = WordInteractionHead(
        keras.layers.Embedding(VOCAB, DIM, mask_zero=True), label_ids=LABELS, document_vectors="states"
    )
    states = RNG.normal(size=DOCS.shape + (4,)).astype("float32")
    got = ops.convert_to_numpy(head({"token_ids": DOCS, "token_states": states}))
    table = ops.convert_to_numpy(head.embedding.embeddings).astype("float64")
    projected = states.astype("float64") @ ops.convert_to_numpy(head.state_projection.kernel).astype("float64")
    unit = lambda v: v / np.linalg.norm(v, axis=-1, keepdims=True)  # noqa: E731
    keep_doc, keep_label = DOCS > 1, LABELS > 1
    a = keep_label / np.maximum(keep_label.sum(-1, keepdims=True), 1)
    s = np.einsum("btd,lwd->blwt", unit(projected), unit(table[LABELS]))
    phi = np.stack(
        [
            (a * np.log1p((np.exp(-((s - mu) ** 2) / (2 * sigma**2)) * keep_doc[:, None, None, :]).sum(-1))).sum(-1)
            for mu, sigma in zip(head.kernel_centres, head.kernel_widths)
        ],
        -1,
    )
    np.testing.assert_allclose(got, phi @ np.asarray(head.kernel_centres), atol=1e-5)
    with pytest.raises(ValueError, match="token_states"):
        WordInteractionHead(keras.layers.Embedding(VOCAB, DIM), document_vectors="states").build(
            {"token_ids": (None, T)}
        )


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"document_vectors": "tokens"}, "document_vectors"),
        ({"kernel_centres": (1.0, 1.5)}, "kernel_centres"),
        ({"kernel_centres": (-1.2,)}, "kernel_centres"),
        ({"kernel_centres": ()}, "kernel_centres"),
        ({"kernel_width": 0.0}, "kernel_width"),
        ({"kernel_width": -0.1}, "kernel_width"),
        ({"kernel_width": True}, "kernel_width"),
        ({"exact_match_width": 0}, "exact_match_width"),
        ({"description_weighting": "tfidf"}, "description_weighting"),
        ({"ignored_ids": (VOCAB,)}, "ignored_ids"),
    ],
)
def test_bad_arguments_raise_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        WordInteractionHead(keras.layers.Embedding(VOCAB, DIM), **kwargs)


def test_no_embedding_raises():
    with pytest.raises(ValueError, match="embedding"):
        WordInteractionHead(label_ids=LABELS)
    with pytest.raises(ValueError, match="embedding"):
        WordInteractionHead(None, vocabulary_size=VOCAB)
