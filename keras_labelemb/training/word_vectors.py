"""Word vectors learned from unlabeled text: truncated SVD of a PPMI co-occurrence matrix.

Uses scipy and scikit-learn (dependencies of the package).
"""

import numpy as np


def _require_scipy_and_sklearn():
    try:
        from scipy import sparse
        from sklearn.decomposition import TruncatedSVD
    except ImportError as error:
        raise ImportError(
            "pretrain_word_vectors needs scipy and scikit-learn: `pip install scipy scikit-learn`."
        ) from error
    return sparse, TruncatedSVD


def pretrain_word_vectors(token_ids, vocabulary_size, dim=100, window=5, scale=0.05, seed=0):
    """Word vectors from co-occurrence counts in `token_ids` (Levy & Goldberg 2014 style).

    Counts word pairs within `window` positions (weighted 1/distance), turns the
    counts into positive pointwise mutual information (PPMI, context
    distribution smoothed with exponent 0.75) and keeps the top `dim` singular
    directions (scikit-learn's `TruncatedSVD`): `vectors = U * sqrt(S)`. Rows
    are rescaled to a mean norm of `scale * sqrt(dim)` so they can initialise a
    `keras.layers.Embedding` trained further. Padding (id 0) gets the zero vector;
    words never seen get small random vectors.

    Use it on the training text only (never on test documents) to keep
    evaluation honest; for zero-shot evaluation, on the training text left after
    removing documents of held-out labels.

    Args:
        token_ids: int array `(N, ..., T)` of token ids (0 = padding), e.g. the
            output of `TextVectorizer`; the last axis is read as running text.
        vocabulary_size: number of rows of the result.
        dim: vector size.
        window: context window on each side.

    Returns:
        float32 array `(vocabulary_size, dim)`, e.g. for
        `keras.initializers.Constant(vectors)`.

    Raises:
        ImportError: when scipy or scikit-learn is missing (the `vectors` extra).

    Example:

    >>> ids = np.array([[2, 3, 4, 2, 3, 5], [4, 5, 2, 3, 0, 0]])
    >>> pretrain_word_vectors(ids, vocabulary_size=6, dim=2).shape
    (6, 2)
    """
    sparse, TruncatedSVD = _require_scipy_and_sklearn()
    ids = np.asarray(token_ids)
    if ids.ndim < 2 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(
            f"`token_ids` must be an integer array of rank >= 2. Received: token_ids with shape {ids.shape}"
        )
    if dim >= vocabulary_size:
        raise ValueError(f"`dim` must be smaller than `vocabulary_size` ({vocabulary_size}). Received: dim={dim}")
    sequences = ids.reshape(-1, ids.shape[-1])
    rows, cols, weights = [], [], []
    for distance in range(1, window + 1):
        left, right = sequences[:, :-distance].ravel(), sequences[:, distance:].ravel()
        keep = (left > 0) & (right > 0)
        rows += [left[keep], right[keep]]
        cols += [right[keep], left[keep]]
        weights.append(np.full(2 * keep.sum(), 1.0 / distance, "float32"))
    counts = sparse.coo_matrix(
        (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
        shape=(vocabulary_size, vocabulary_size),
    ).tocsr()
    total = counts.sum()
    word_totals = np.asarray(counts.sum(axis=1)).ravel()
    context = np.asarray(counts.sum(axis=0)).ravel() ** 0.75
    context /= max(context.sum(), 1e-12)
    coo = counts.tocoo()
    pmi = np.log(coo.data * 1.0 / (word_totals[coo.row] / total) / np.maximum(context[coo.col], 1e-12) / total)
    positive = pmi > 0
    ppmi = sparse.csr_matrix((pmi[positive], (coo.row[positive], coo.col[positive])), shape=counts.shape)
    svd = TruncatedSVD(n_components=dim, random_state=seed)
    vectors = svd.fit_transform(ppmi) / np.sqrt(np.maximum(svd.singular_values_, 1e-12))  # U * sqrt(S)
    seen = word_totals > 0
    norms = np.linalg.norm(vectors[seen], axis=1)
    vectors *= scale * np.sqrt(dim) / max(norms.mean(), 1e-12)
    rng = np.random.default_rng(seed)
    vectors[~seen] = rng.uniform(-scale, scale, size=(int((~seen).sum()), dim))
    vectors[0] = 0.0
    return vectors.astype("float32")
