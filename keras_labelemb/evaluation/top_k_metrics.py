"""Ranking metrics from top-k label lists (P@k, nDCG@k, PSP@k), and chunked evaluation over huge label sets.

`top_k_metrics` never builds a `(documents, labels)` matrix: relevance of the
retrieved labels is looked up in each document's positive label list.
`evaluate_in_chunks` runs `predict_top_k` and then `top_k_metrics`.
"""

import numbers

import numpy as np

from keras_labelemb.evaluation.top_k_prediction import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_LABEL_CHUNK_SIZE,
    _predict_top_k,
)
from keras_labelemb.metrics.propensity_precision_at_k import check_propensities


def _check_ks(k):
    """`k` as a sorted tuple of distinct ints >= 1 (an int or a sequence of ints)."""
    values = (k,) if not isinstance(k, (list, tuple)) else tuple(k)
    if not values:
        raise ValueError(f"`k` must be an integer >= 1 or a non-empty list of them. Received: k={k!r}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"`k` must be an integer >= 1 or a list of them. Received: k={k!r}")
    return tuple(sorted({int(value) for value in values}))


def _positive_lists(targets, num_documents, num_labels):
    """Relevant labels per document as CSR arrays `(indptr (N+1,), indices)`, deduplicated."""
    if hasattr(targets, "tocsr"):  # scipy.sparse
        csr = targets.tocsr()
        if csr.shape[0] != num_documents or (num_labels is not None and csr.shape[1] != num_labels):
            raise ValueError(
                f"Sparse `targets` must have shape ({num_documents}, {num_labels}). "
                f"Received: targets with shape {csr.shape}"
            )
        coo = csr.tocoo()
        keep = np.asarray(coo.data) > 0.5
        rows, labels = np.asarray(coo.row)[keep], np.asarray(coo.col)[keep]
    elif isinstance(targets, np.ndarray) and targets.dtype != object:
        if (
            targets.ndim != 2
            or targets.shape[0] != num_documents
            or (num_labels is not None and targets.shape[1] != num_labels)
        ):
            raise ValueError(
                f"Dense `targets` must be multi-hot of shape ({num_documents}, {num_labels}). "
                f"Received: targets with shape {targets.shape}"
            )
        row_parts, label_parts = [], []
        for start in range(0, num_documents, 1024):  # bounded temporaries
            r, c = np.nonzero(targets[start : start + 1024] > 0.5)
            row_parts.append(r + start)
            label_parts.append(c)
        rows = np.concatenate(row_parts) if row_parts else np.zeros(0, "int64")
        labels = np.concatenate(label_parts) if label_parts else np.zeros(0, "int64")
    else:  # one sequence of label indices per document
        try:
            lists = [np.asarray(doc, dtype="int64").reshape(-1) for doc in targets]
        except (TypeError, ValueError):
            raise ValueError(
                "`targets` must be a multi-hot NumPy array (N, L), a scipy.sparse matrix, or one "
                f"sequence of label indices per document. Received: targets={type(targets).__name__}"
            ) from None
        if len(lists) != num_documents:
            raise ValueError(
                f"`targets` must list the labels of all {num_documents} documents. "
                f"Received: targets for {len(lists)} documents"
            )
        rows = np.repeat(np.arange(num_documents), [len(doc) for doc in lists])
        labels = np.concatenate(lists) if lists else np.zeros(0, "int64")
    rows, labels = rows.astype("int64"), labels.astype("int64")
    if labels.size and (labels.min() < 0 or (num_labels is not None and labels.max() >= num_labels)):
        raise ValueError(
            f"`targets` hold label indices outside [0, {num_labels}). "
            f"Received: targets with label indices from {labels.min()} to {labels.max()}"
        )
    width = int(labels.max()) + 1 if labels.size else 1
    keys = np.unique(rows * width + labels)
    rows, labels = keys // width, keys % width
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=num_documents))])
    return indptr, labels


def top_k_metrics(top_indices, targets, k=(1, 3, 5), propensities=None, num_labels=None):
    """P@k, nDCG@k and (with `propensities`) PSP@k from top-k label lists.

    Never builds a `(documents, labels)` matrix: relevance of the retrieved
    labels is looked up in the documents' positive label lists. The values
    follow the streaming metrics of `keras_labelemb.metrics`:

    - `precision_at_{k}`: hits in the top k / k, averaged over all documents
      (documents with no relevant label count as 0), as `PrecisionAtK`.
    - `ndcg_at_{k}`: binary-relevance nDCG with `1 / log2(rank + 2)`,
      documents with no relevant label count as 0, as `NDCGAtK`. Ties are
      resolved by the order of `top_indices` (lower label index first from
      `predict_top_k`), whereas `NDCGAtK` averages the discount over tied
      scores: the two differ only when scores tie.
    - `psp_at_{k}`: the normalised propensity-scored precision of
      `PropensityPrecisionAtK` (XMC repository convention: summed PSP@k over
      summed best achievable PSP@k; documents with no relevant label add
      nothing).

    Args:
        top_indices: `(N, K)` int label indices, best first (as returned by
            `predict_top_k`); every k must be <= K.
        targets: relevant labels, as a multi-hot NumPy array `(N, L)`
            (values > 0.5 are relevant), a `scipy.sparse` matrix `(N, L)`
            (stored values > 0.5), or one sequence of label indices per
            document (a list of lists; a Python list is always read this way).
        k: int or list of ints, default (1, 3, 5).
        propensities: optional `(L,)` label propensities (`label_propensities`).
        num_labels: the label count L, when neither dense/sparse targets nor
            `propensities` give it (used to check indices).

    Returns:
        dict of floats keyed `precision_at_{k}`, `ndcg_at_{k}`, `psp_at_{k}`,
        plus `documents` (N).

    Example:

    >>> top = np.array([[2, 0], [1, 2]])
    >>> top_k_metrics(top, [[0, 2], []], k=[1, 2])
    {'precision_at_1': 0.5, 'ndcg_at_1': 0.5, 'precision_at_2': 0.5, 'ndcg_at_2': 0.5, 'documents': 2}
    """
    ks = _check_ks(k)
    top = np.asarray(top_indices)
    if top.ndim != 2 or not np.issubdtype(top.dtype, np.integer):
        raise ValueError(
            "`top_indices` must be an integer (num_documents, k) array. "
            f"Received: top_indices with shape {top.shape} and dtype {top.dtype}"
        )
    if ks[-1] > top.shape[1]:
        raise ValueError(f"`k` must be at most the number of retrieved labels ({top.shape[1]}). Received: k={k!r}")
    inverse = None
    if propensities is not None:
        propensities = check_propensities(propensities)
        inverse = 1.0 / propensities
        if num_labels is not None and num_labels != propensities.shape[0]:
            raise ValueError(f"`propensities` has {propensities.shape[0]} labels. Received: num_labels={num_labels}")
        num_labels = propensities.shape[0]
    dense = isinstance(targets, np.ndarray) and targets.ndim == 2 and targets.dtype != object
    if num_labels is None and (hasattr(targets, "tocsr") or dense):
        num_labels = int(targets.shape[1])
    num_documents = top.shape[0]
    if top.size and (top.min() < 0 or (num_labels is not None and top.max() >= num_labels)):
        raise ValueError(
            f"`top_indices` hold label indices outside [0, {num_labels}). "
            f"Received: top_indices from {top.min()} to {top.max()}"
        )
    indptr, labels = _positive_lists(targets, num_documents, num_labels)
    num_relevant = np.diff(indptr)
    rows = np.repeat(np.arange(num_documents), num_relevant)
    width = max(
        num_labels or 1,
        int(top.max()) + 1 if top.size else 1,
        int(labels.max()) + 1 if labels.size else 1,
    )
    keys = rows * width + labels  # sorted: documents in order, labels sorted within
    top = top[:, : ks[-1]].astype("int64")
    hits = np.isin(np.arange(num_documents)[:, None] * width + top, keys)
    discount = 1.0 / np.log2(np.arange(ks[-1]) + 2.0)
    if inverse is not None:
        if labels.size:
            order = np.lexsort((-inverse[labels], rows))  # per document, largest 1/p first
            rank = np.arange(labels.size) - indptr[rows]
            sorted_inverse = inverse[labels][order]
        retrieved_gain = hits * inverse[top]
    results = {}
    for value in ks:
        if num_documents == 0:
            results[f"precision_at_{value}"] = results[f"ndcg_at_{value}"] = 0.0
            if inverse is not None:
                results[f"psp_at_{value}"] = 0.0
            continue
        top_hits = hits[:, :value]
        results[f"precision_at_{value}"] = float(np.mean(top_hits.sum(axis=1) / value))
        dcg = (top_hits * discount[:value]).sum(axis=1)
        ideal_table = np.concatenate([[0.0], np.cumsum(discount[:value])])
        ideal = ideal_table[np.minimum(num_relevant, value)]
        ndcg = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
        results[f"ndcg_at_{value}"] = float(np.mean(ndcg))
        if inverse is not None:
            retrieved = retrieved_gain[:, :value].sum()
            best = sorted_inverse[rank < value].sum() if labels.size else 0.0
            results[f"psp_at_{value}"] = float(retrieved / best) if best > 0 else 0.0
    results["documents"] = int(num_documents)
    return results


def evaluate_in_chunks(
    model,
    inputs,
    targets,
    k=(1, 3, 5),
    propensities=None,
    label_ids=None,
    label_chunk_size=DEFAULT_LABEL_CHUNK_SIZE,
    batch_size=DEFAULT_BATCH_SIZE,
    head=None,
    cache_label_embeddings=True,
    verbose=1,
):
    """P@k, nDCG@k and PSP@k of `model` over a huge label set, in label chunks.

    `predict_top_k` with the largest k, then `top_k_metrics` against
    `targets`: neither step builds a `(documents, labels)` matrix. See those
    two functions for the arguments, the target formats and the conventions.

    Returns:
        dict of floats keyed `precision_at_{k}`, `ndcg_at_{k}` and, with
        `propensities`, `psp_at_{k}`, plus `documents`.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> labels = np.arange(2, 42).reshape(20, 2)
    >>> model = gile_wan(50, labels, max_tokens=8, units=8, joint_dim=8)
    >>> x = np.random.randint(1, 50, (10, 8))
    >>> y = [[i % 20, (3 * i) % 20] for i in range(10)]    # label indices per document
    >>> report = evaluate_in_chunks(model, x, y, k=[1, 5], label_chunk_size=6, verbose=0)
    >>> sorted(report)
    ['documents', 'ndcg_at_1', 'ndcg_at_5', 'precision_at_1', 'precision_at_5']
    """
    ks = _check_ks(k)
    indices, _, num_labels = _predict_top_k(
        model, inputs, ks[-1], label_ids, label_chunk_size, batch_size, head, cache_label_embeddings, verbose
    )
    return top_k_metrics(indices, targets, k=ks, propensities=propensities, num_labels=num_labels)
