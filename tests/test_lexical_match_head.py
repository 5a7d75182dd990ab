"""LexicalMatchHead: scikit-learn's tf-idf cosine, adapt, masks, call-time labels, subsets, gradients, bad input.

The shared layer contract (config, save/load, fit step, mixed precision) runs
through tests/layer_cases.py (`lexical_match_head`).
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops
from sklearn.feature_extraction.text import TfidfVectorizer

from keras_labelemb.document_frequency import document_frequencies, smoothed_idf
from keras_labelemb.layers import LexicalMatchHead

VOCAB, T = 30, 8
UNSEEN = 29  # never occurs in TRAIN: no idf, as a vectorizer fitted on TRAIN has no column for it


def make_documents(rng, n, length=T, high=12):
    """Documents over a small vocabulary (so words repeat), with padding, unknown words (1) and an empty row."""
    ids = rng.integers(1, high, size=(n, length)).astype("int32")
    for row, stop in enumerate(rng.integers(2, length + 1, size=n)):
        ids[row, stop:] = 0
    return ids


RNG = np.random.default_rng(7)
TRAIN = make_documents(RNG, 12)
TRAIN[3] = 0  # an empty training document still counts in n, as in scikit-learn
DOCS = make_documents(RNG, 6)
DOCS[2] = 0  # all padding
DOCS[4] = [1, 1, 0, 0, 0, 0, 0, 0]  # only unknown words
DOCS[5, :4] = [5, 5, 5, 7]  # repeated words
LABELS = np.array(
    [
        [5, 5, 7, 0],  # a repeated word
        [3, 0, 0, 0],
        [UNSEEN, 0, 0, 0],  # its only word has no idf: scores 0
        [2, 1, 9, 11],  # an unknown word, ignored
        [4, 6, 4, 4],
    ],
    "int32",
)


def as_words(ids):
    """One document's ids as scikit-learn text: 'w12 w3 ...', padding (0) and the unknown word (1) dropped."""
    return " ".join(f"w{i}" for i in np.ravel(ids) if i > 1)


def sklearn_cosine(train, docs, labels, sublinear_tf):
    vectorizer = TfidfVectorizer(sublinear_tf=sublinear_tf, token_pattern=r"\S+")
    vectorizer.fit([as_words(row) for row in train])
    x = vectorizer.transform([as_words(row) for row in docs])
    e = vectorizer.transform([as_words(row) for row in labels])
    return (x @ e.T).toarray(), vectorizer


def make_head(sublinear_tf=True, labels=LABELS, adapt=TRAIN, **kwargs):
    head = LexicalMatchHead(vocabulary_size=VOCAB, label_ids=labels, sublinear_tf=sublinear_tf, **kwargs)
    head.build({"token_ids": (None, T)})
    if adapt is not None:
        head.adapt(adapt)
    return head


def logits(head, ids, **kwargs):
    return ops.convert_to_numpy(head({"token_ids": ids}, **kwargs))


# ---------------------------------------------------------------------------
# Equal to scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sublinear_tf", [True, False])
def test_untrained_logits_equal_sklearn_tfidf_cosine(sublinear_tf):
    head = make_head(sublinear_tf)
    expected, _ = sklearn_cosine(TRAIN, DOCS, LABELS, sublinear_tf)
    got = logits(head, DOCS)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    # The cases the data was built for actually occur: not every score is 0, empty rows and unseen words are.
    assert np.count_nonzero(expected) >= 8
    np.testing.assert_array_equal(got[2], 0.0)  # all-padding document
    np.testing.assert_array_equal(got[4], 0.0)  # unknown words only
    np.testing.assert_array_equal(got[:, 2], 0.0)  # a description without idf
    assert got[5, 0] > 0.3  # "w5 w5 w5 w7" against "w5 w5 w7"


def test_sublinear_tf_changes_the_scores():
    # Repeated words in DOCS[5] and LABELS[0]: the two tf modes must disagree there.
    assert abs(logits(make_head(True), DOCS)[5, 0] - logits(make_head(False), DOCS)[5, 0]) > 1e-3


def test_sentence_shaped_token_ids_read_as_one_sequence():
    head = make_head()
    expected, _ = sklearn_cosine(TRAIN, DOCS, LABELS, True)
    sentences = DOCS.reshape(len(DOCS), 2, T // 2)  # (B, K, T)
    np.testing.assert_allclose(logits(head, sentences), expected, atol=1e-6)


def test_untrained_logits_equal_sklearn_on_random_documents():
    rng = np.random.default_rng(11)
    train, docs = make_documents(rng, 20, high=VOCAB), make_documents(rng, 7, high=VOCAB)
    labels = make_documents(rng, 9, length=4, high=VOCAB)
    labels[:, 0] = rng.integers(2, VOCAB, size=9)  # no empty description
    head = make_head(labels=labels, adapt=train)
    expected, _ = sklearn_cosine(train, docs, labels, True)
    np.testing.assert_allclose(logits(head, docs), expected, atol=1e-6)


# ---------------------------------------------------------------------------
# idf: adapt
# ---------------------------------------------------------------------------


def numpy_idf(train, ignored=(1,)):
    n = len(train)
    df = np.zeros(VOCAB, "int64")
    for row in train:
        for word in set(np.ravel(row).tolist()):
            df[word] += 1
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    idf[df == 0] = 0.0
    idf[[0, *ignored]] = 0.0
    return df, idf


def test_document_frequencies_and_smoothed_idf_match_a_numpy_loop():
    df_loop, idf_loop = numpy_idf(TRAIN)
    df, n = document_frequencies(TRAIN, VOCAB)
    assert n == len(TRAIN)
    df_loop[0] = 0  # padding is never counted
    np.testing.assert_array_equal(df, df_loop)
    np.testing.assert_allclose(smoothed_idf(df, n, (1,)), idf_loop, rtol=1e-6)
    # (N, K, T) documents count each id once per document, across sentences.
    df3, n3 = document_frequencies(TRAIN.reshape(len(TRAIN), 2, T // 2), VOCAB)
    np.testing.assert_array_equal(df3, df_loop)
    assert n3 == n


def test_adapt_from_array_and_dataset_give_sklearn_idf():
    _, idf_loop = numpy_idf(TRAIN)
    from_array = make_head()
    targets = np.zeros((len(TRAIN), len(LABELS)), "float32")
    dataset = tf.data.Dataset.from_tensor_slices((TRAIN, targets)).batch(5)  # 3 batches, the last short
    from_dataset = make_head(adapt=dataset)
    idf = ops.convert_to_numpy(from_array.idf)
    np.testing.assert_allclose(idf, idf_loop, rtol=1e-6)
    np.testing.assert_array_equal(ops.convert_to_numpy(from_dataset.idf), idf)
    _, vectorizer = sklearn_cosine(TRAIN, DOCS, LABELS, True)
    for word, column in vectorizer.vocabulary_.items():
        np.testing.assert_allclose(idf[int(word[1:])], vectorizer.idf_[column], rtol=1e-6)
    assert idf[UNSEEN] == 0.0 and idf[1] == 0.0 and idf[0] == 0.0


def test_idf_starts_at_one_and_adapt_changes_the_scores():
    unadapted = make_head(adapt=None)
    idf = ops.convert_to_numpy(unadapted.idf)
    assert idf[0] == idf[1] == 0.0 and np.all(idf[2:] == 1.0)
    assert not np.allclose(logits(unadapted, DOCS), logits(make_head(), DOCS), atol=1e-3)


def test_adapt_before_build_raises():
    head = LexicalMatchHead(vocabulary_size=VOCAB, label_ids=LABELS)
    with pytest.raises(ValueError, match="Build LexicalMatchHead"):
        head.adapt(TRAIN)


# ---------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------


def test_token_mask_masks_tokens():
    head = make_head()
    mask = np.ones(DOCS.shape, bool)
    mask[:, 1::3] = False
    mask[5, 0] = False
    changed = DOCS.copy()
    changed[~mask] = RNG.integers(2, 12, size=(~mask).sum())
    masked = ops.convert_to_numpy(head({"token_ids": DOCS, "token_mask": mask}))
    np.testing.assert_array_equal(ops.convert_to_numpy(head({"token_ids": changed, "token_mask": mask})), masked)
    # Masked tokens are padding: the same scores as the ids with those positions set to 0 ...
    np.testing.assert_allclose(masked, logits(head, np.where(mask, DOCS, 0)), atol=1e-7)
    # ... which differ from the unmasked ones (the mask did something).
    assert not np.allclose(masked, logits(head, DOCS), atol=1e-3)


# ---------------------------------------------------------------------------
# Call-time labels, subsets
# ---------------------------------------------------------------------------


def test_call_time_labels_and_label_embeddings_agree():
    head = make_head()
    other = np.array([[3, 5, 0], [7, 7, 8], [11, 0, 0]], "int32")
    by_ids = logits(head, DOCS, label_ids=other)
    by_embeddings = logits(head, DOCS, label_embeddings=head.embed_labels(other))
    np.testing.assert_allclose(by_embeddings, by_ids, atol=1e-7)
    expected, _ = sklearn_cosine(TRAIN, DOCS, other, True)
    np.testing.assert_allclose(by_ids, expected, atol=1e-6)
    assert by_ids.shape == (len(DOCS), 3)
    np.testing.assert_array_equal(head.label_ids, LABELS)  # the stored set is untouched


def test_score_subset_equals_columns_of_the_full_call():
    head = make_head()
    head.scale.assign(1.7)
    head.bias.assign(-0.4)
    full = logits(head, DOCS)
    subset = ops.convert_to_numpy(head.score_subset({"token_ids": DOCS}, np.array([2, 0])))
    np.testing.assert_allclose(subset, full[:, [2, 0]], atol=1e-7)


# ---------------------------------------------------------------------------
# Training: scale and bias
# ---------------------------------------------------------------------------


def test_logits_are_scale_times_cosine_plus_bias_and_gradients_reach_both():
    head = make_head()
    cosine, _ = sklearn_cosine(TRAIN, DOCS, LABELS, True)
    head.scale.assign(2.5)
    head.bias.assign(-0.3)
    weights = RNG.normal(size=cosine.shape).astype("float32")
    with tf.GradientTape() as tape:
        out = head({"token_ids": DOCS})
        loss = ops.sum(out * weights)
    np.testing.assert_allclose(ops.convert_to_numpy(out), 2.5 * cosine - 0.3, atol=1e-5)
    assert [v.name for v in head.trainable_variables] == ["bias", "scale"]
    grads = dict(zip([v.name for v in head.trainable_variables], tape.gradient(loss, head.trainable_variables)))
    np.testing.assert_allclose(ops.convert_to_numpy(grads["scale"]), (cosine * weights).sum(), rtol=1e-4)
    np.testing.assert_allclose(ops.convert_to_numpy(grads["bias"]), weights.sum(), rtol=1e-4)


def test_a_training_step_moves_scale_and_bias_not_idf():
    head = make_head()
    idf = ops.convert_to_numpy(head.idf).copy()
    optimizer = keras.optimizers.SGD(0.1)
    targets = (RNG.random((len(DOCS), len(LABELS))) < 0.3).astype("float32")
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(targets, head({"token_ids": DOCS}))
    optimizer.apply(tape.gradient(loss, head.trainable_variables), head.trainable_variables)
    assert float(ops.convert_to_numpy(head.scale)) != 1.0
    assert float(ops.convert_to_numpy(head.bias)) != 0.0
    np.testing.assert_array_equal(ops.convert_to_numpy(head.idf), idf)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_out_of_range_token_ids_raise():
    head = make_head()
    bad = DOCS.copy()
    bad[0, 0] = VOCAB
    with pytest.raises(ValueError, match="token_ids"):
        head({"token_ids": bad})


@pytest.mark.parametrize("built", [False, True])
def test_a_tensor_instead_of_the_document_dict_raises(built):
    head = make_head() if built else LexicalMatchHead(vocabulary_size=VOCAB, label_ids=LABELS)
    with pytest.raises(ValueError, match=r"(?s)dict.*token_ids"):
        head(ops.convert_to_tensor(DOCS))
    with pytest.raises(ValueError, match=r"(?s)dict.*token_ids"):  # in a functional model too
        head(keras.Input((T,), dtype="int32"))


def test_call_time_empty_description_raises():
    head = make_head()
    with pytest.raises(ValueError, match="empty label descriptions"):
        head({"token_ids": DOCS}, label_ids=np.array([[3, 0], [0, 0]], "int32"))


@pytest.mark.parametrize("ignored", [(VOCAB,), (0,), (1, -2)])
def test_ignored_ids_out_of_range_raise(ignored):
    with pytest.raises(ValueError, match="ignored_ids"):
        LexicalMatchHead(vocabulary_size=VOCAB, ignored_ids=ignored)


def test_other_ignored_ids_never_match():
    # With 5 ignored (instead of the unknown word), "w5" no longer matches but the unknown word does.
    head = make_head(ignored_ids=(5,))
    assert ops.convert_to_numpy(head.idf)[5] == 0.0
    docs = np.array([[5, 5, 0, 0, 0, 0, 0, 0], [1, 3, 0, 0, 0, 0, 0, 0]], "int32")
    labels = np.array([[5, 0], [1, 0]], "int32")
    got = logits(head, docs, label_ids=labels)
    assert got[0, 0] == 0.0
    assert got[1, 1] > 0.0


def bm25s_scores(docs, labels, k1, b):
    """`bm25s` (method "lucene") indexing `docs`, each label's description its query: `(N, L)`."""
    import bm25s

    def text(row):  # unknown words (1) are tokens of the document, never of a query
        return " ".join("unk" if i == 1 else f"w{i}" for i in np.ravel(row) if i > 0)

    retriever = bm25s.BM25(method="lucene", k1=k1, b=b)
    retriever.index(
        bm25s.tokenize([text(row) for row in docs], stopwords=None, show_progress=False), show_progress=False
    )
    return np.stack([retriever.get_scores([f"w{i}" for i in row if i > 1]) for row in labels], axis=1)


@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (2.0, 0.3)])
def test_bm25_equals_bm25s_lucene(k1, b):
    docs = make_documents(np.random.default_rng(3), 20)
    labels = LABELS[[0, 1, 3, 4]]  # a repeated query word counts twice, as in bm25s
    head = LexicalMatchHead(vocabulary_size=VOCAB, label_ids=labels, weighting="bm25", k1=k1, b=b)
    head.build({"token_ids": (None, T)})
    head.adapt(docs)
    np.testing.assert_allclose(np.asarray(head({"token_ids": docs})), bm25s_scores(docs, labels, k1, b), atol=1e-5)


def test_bm25_scores_empty_documents_zero_and_round_trips_its_statistics():
    head = LexicalMatchHead(vocabulary_size=VOCAB, label_ids=LABELS, weighting="bm25")
    head.build({"token_ids": (None, T)})
    head.adapt(TRAIN)
    logits = np.asarray(head({"token_ids": DOCS}))
    assert np.isfinite(logits).all() and (logits[2] == 0).all() and (logits[4] == 0).all()
    assert (logits[:, 2] == 0).all()  # a description whose only word has no idf
    clone = LexicalMatchHead.from_config(head.get_config())
    clone.build({"token_ids": (None, T)})
    clone.set_weights(head.get_weights())
    clone.set_labels(LABELS)
    np.testing.assert_array_equal(np.asarray(clone({"token_ids": DOCS})), logits)
    assert clone.weighting == "bm25" and float(clone.average_length) == pytest.approx((TRAIN > 0).sum() / len(TRAIN))


def test_bm25_needs_the_average_length_and_valid_parameters():
    head = LexicalMatchHead(vocabulary_size=VOCAB, label_ids=LABELS, weighting="bm25")
    head.build({"token_ids": (None, T)})
    with pytest.raises(ValueError, match="average_length"):
        head.set_idf(*document_frequencies(TRAIN, VOCAB))
    with pytest.raises(ValueError, match="weighting"):
        LexicalMatchHead(vocabulary_size=VOCAB, weighting="bm26")
    with pytest.raises(ValueError, match="`b`"):
        LexicalMatchHead(vocabulary_size=VOCAB, weighting="bm25", b=1.5)
    with pytest.raises(ValueError, match="k1"):
        LexicalMatchHead(vocabulary_size=VOCAB, weighting="bm25", k1=0)
