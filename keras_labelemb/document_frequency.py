"""Document frequencies of token ids and the smoothed idf scikit-learn's `TfidfVectorizer` computes from them."""

import numpy as np

from keras_labelemb.argument_checks import check_positive_int, check_token_ids


def _id_batches(token_ids):
    """NumPy `(B, ...)` id batches of an array or of an iterable of batches (tuples: the first element)."""
    if hasattr(token_ids, "shape") and not hasattr(token_ids, "element_spec"):
        yield np.asarray(token_ids)
        return
    for batch in token_ids:
        yield np.asarray(batch[0] if isinstance(batch, tuple) else batch)


def document_frequencies(token_ids, vocabulary_size):
    """`(df, n)`: in how many documents each id occurs `(vocabulary_size,)`, and the document count.

    `token_ids` are documents of token ids `(N, T)` or `(N, K, T)` (0 =
    padding, never counted), as an array or an iterable of batches (a
    `tf.data.Dataset` of ids or of `(ids, targets)` pairs).

    >>> df, n = document_frequencies(np.array([[2, 2, 3, 0], [3, 4, 0, 0]]), 6)
    >>> df.tolist(), n
    ([0, 0, 1, 2, 1, 0], 2)
    """
    df, n, _ = document_statistics(token_ids, vocabulary_size)
    return df, n


def document_statistics(token_ids, vocabulary_size):
    """`(df, n, average_length)`: `document_frequencies` and the mean count of non-padding tokens (BM25's avgdl).

    >>> df, n, average_length = document_statistics(np.array([[2, 2, 3, 0], [3, 4, 0, 0]]), 6)
    >>> n, average_length
    (2, 2.5)
    """
    vocabulary_size = check_positive_int("vocabulary_size", vocabulary_size)
    df = np.zeros(vocabulary_size, "int64")
    n = tokens = 0
    for batch in _id_batches(token_ids):
        if batch.ndim < 2 or not np.issubdtype(batch.dtype, np.integer):
            raise ValueError(
                "`token_ids` must be integer documents of shape (N, T) or (N, K, T). "
                f"Received: token_ids with shape {batch.shape} and dtype {batch.dtype}"
            )
        check_token_ids(batch, vocabulary_size)
        rows = np.sort(batch.reshape(len(batch), -1), axis=1)
        first = np.ones(rows.shape, bool)
        first[:, 1:] = rows[:, 1:] != rows[:, :-1]  # each distinct id once per document
        df += np.bincount(rows[first & (rows > 0)], minlength=vocabulary_size)
        n += len(batch)
        tokens += int((rows > 0).sum())
    return df, n, tokens / max(n, 1)


def smoothed_idf(df, n, ignored_ids=()):
    """`log((1 + n) / (1 + df)) + 1` where `df > 0`, as `TfidfVectorizer(smooth_idf=True)`; 0 elsewhere.

    Ids that occur in no document get 0, as a vectorizer fitted on the same
    documents has no column for them; so do `ignored_ids` (e.g. the unknown
    word's id) and id 0 (padding).

    >>> smoothed_idf(np.array([0, 3, 1]), 3).astype("float64").round(3).tolist()
    [0.0, 1.0, 1.693]
    """
    df = np.asarray(df, "float64")
    return _matchable_only(np.log((1.0 + n) / (1.0 + df)) + 1.0, df, ignored_ids)


def bm25_idf(df, n, ignored_ids=()):
    """BM25's idf as Lucene (and `bm25s`, method "lucene") compute it: `log(1 + (n - df + 0.5) / (df + 0.5))`.

    Positive for every df. Ids in no document, `ignored_ids` and padding get
    0, as in `smoothed_idf`.

    >>> bm25_idf(np.array([0, 3, 1]), 3).astype("float64").round(3).tolist()
    [0.0, 0.134, 0.981]
    """
    df = np.asarray(df, "float64")
    return _matchable_only(np.log1p((n - df + 0.5) / (df + 0.5)), df, ignored_ids)


def _matchable_only(idf, df, ignored_ids):
    """`idf` as float32, 0 for ids in no document, for `ignored_ids` and for padding (id 0)."""
    idf = np.where(df > 0, idf, 0.0)
    idf[0] = 0.0
    idf[list(ignored_ids)] = 0.0
    return idf.astype("float32")
