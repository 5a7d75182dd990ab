"""Top-k prediction and ranking evaluation over huge label sets, in label chunks.

`predict_top_k` scores every label for every document without ever holding a
dense `(documents, labels)` score matrix: the model is split at its output
head, each batch of documents is encoded once, and the head scores the label
set one chunk at a time while a running top-k is merged with `keras.ops.top_k`.
`top_k_metrics` computes P@k, nDCG@k and PSP@k from those top-k lists against
dense, sparse or per-document label-index targets, and `evaluate_in_chunks`
does both.
"""

import inspect
import math
import numbers
import weakref

import keras
import numpy as np
from keras import ops

from keras_labelemb.layers.gile_head import GileHead
from keras_labelemb.metrics.propensity_precision_at_k import check_propensities

DEFAULT_LABEL_CHUNK_SIZE = 4096
DEFAULT_BATCH_SIZE = 256

# model -> {id(head): encoder}: repeated calls reuse one encoder and its
# compiled predict function instead of tracing a new one every time.
_ENCODERS = weakref.WeakKeyDictionary()


# ----------------------------------------------------------------------------
# argument checks
# ----------------------------------------------------------------------------


def _check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be an integer >= 1. Received: {name}={value!r}")
    return int(value)


def _check_ks(k):
    """`k` as a sorted tuple of distinct ints >= 1 (an int or a sequence of ints)."""
    values = (k,) if not isinstance(k, (list, tuple)) else tuple(k)
    if not values:
        raise ValueError(f"`k` must be an integer >= 1 or a non-empty list of them. Received: k={k!r}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"`k` must be an integer >= 1 or a list of them. Received: k={k!r}")
    return tuple(sorted({int(value) for value in values}))


def _accepts(layer, argument):
    try:
        return argument in inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------
# the model split at its head, and a head that scores one label chunk
# ----------------------------------------------------------------------------


def _is_label_head(layer):
    return isinstance(layer, GileHead) or hasattr(layer, "encode_labels") or _accepts(layer, "label_ids")


def split_at_head(model, head=None):
    """Splits `model` into `(encoder, head)`: model inputs -> the head's input, and the head.

    The head is the last layer of `model` that is a `GileHead` or that scores
    label sets (has `encode_labels` or a `call(..., label_ids=...)`); pass
    `head` to choose another. It must be called once in `model`'s graph and
    produce the model's only output: scores taken between the head and the
    output (an activation, say) would not be those `model.predict` returns.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> model = gile_wan(30, np.array([[2, 3], [4, 0]]), max_tokens=6, encoder_units=4, joint_dim=4)
    >>> encoder, head = split_at_head(model)
    >>> head.name, encoder.output.shape
    ('gile_head', (None, 4))
    """
    if not isinstance(model, keras.Model):
        raise ValueError(f"`model` must be a keras.Model. Received: model={model!r}")
    if head is None:
        heads = [layer for layer in model._flatten_layers(include_self=False) if _is_label_head(layer)]
        if not heads:
            raise ValueError(
                "`model` has no output head that scores label sets (a GileHead, or a layer with "
                f"`encode_labels` or `call(..., label_ids=...)`). Received: model={model.name!r}"
            )
        head = heads[-1]
    if getattr(head, "num_languages", 1) > 1:
        raise ValueError(
            "Chunked scoring supports single-language heads; score each language's model separately. "
            f"Received: head={head.name!r} with num_languages={head.num_languages}"
        )
    try:
        head_input, head_output = head.input, head.output
        outputs = model.outputs
        if len(outputs) != 1 or outputs[0] is not head_output:
            raise ValueError(
                f"the head's output is not the model's only output ({len(outputs)} outputs)"
            )
        cached = _ENCODERS.setdefault(model, {})
        if id(head) not in cached:
            cached[id(head)] = keras.Model(model.inputs, head_input, name=f"{model.name}_document_encoder")
        encoder = cached[id(head)]
    except (AttributeError, ValueError, TypeError, KeyError) as error:
        raise ValueError(
            "The label head must be called exactly once in `model`'s graph (a built functional or "
            "Sequential model) and give the model's only output. "
            f"Received: head={head.name!r} ({error})"
        ) from None
    return encoder, head


def _check_label_ids(label_ids):
    ids = np.asarray(label_ids)
    if ids.ndim != 2 or ids.shape[0] == 0 or ids.shape[1] == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(
            "`label_ids` must be a non-empty integer (num_labels, description_length) array of "
            f"label-description token ids. Received: label_ids with shape {ids.shape} and dtype {ids.dtype}"
        )
    return ids.astype("int32")


class _ChunkScorer:
    """Scores the label columns [start, stop) of a label set with a head.

    Three ways, chosen once:
      "embeddings": label embeddings of each chunk are computed once
          (`head.encode_labels`) and reused for every document batch
          (`head(h, label_embeddings=E_chunk)`);
      "ids": the head re-reads the chunk's descriptions on every call
          (`head(h, label_ids=ids_chunk)`);
      "subset": the head scores the chunk's columns of its own label set
          (`head.score_subset(h, indices)`, the protocol sampled training
          uses), which also covers per-label weights or biases (a linear
          head).
    The first two serve a label set given at call time, and a joint
    `GileHead`'s own label set (its bias is one scalar, so any label chunk
    can be scored as a label set of its own).
    """

    def __init__(self, head, label_ids, cache_label_embeddings):
        self.head = head
        gile_joint = isinstance(head, GileHead) and head.variant != "linear"
        if label_ids is not None:
            if isinstance(head, GileHead) and not gile_joint:
                raise ValueError(
                    "`label_ids` needs a head that scores labels from their descriptions; a "
                    "variant='linear' GileHead has one weight vector per label. "
                    f"Received: label_ids with shape {np.shape(label_ids)}"
                )
            self.label_ids = _check_label_ids(label_ids)
        elif gile_joint and head.label_ids is not None:
            self.label_ids = _check_label_ids(head.label_ids)
        elif hasattr(head, "score_subset") and getattr(head, "num_labels", None):
            self.label_ids, self.mode, self.num_labels = None, "subset", int(head.num_labels)
        elif getattr(head, "label_ids", None) is not None:
            self.label_ids = _check_label_ids(head.label_ids)
        else:
            raise ValueError(
                f"The head {head.name!r} has no label set to score: pass `label_ids`. Received: label_ids=None"
            )
        if self.label_ids is not None:
            self.num_labels = self.label_ids.shape[0]
            if cache_label_embeddings and hasattr(head, "encode_labels") and _accepts(head, "label_embeddings"):
                self.mode = "embeddings"
            elif _accepts(head, "label_ids"):
                self.mode = "ids"
            else:
                raise ValueError(
                    f"The head {head.name!r} cannot score a label set in chunks: it needs "
                    "`call(..., label_ids=...)` or `encode_labels` with `call(..., label_embeddings=...)`. "
                    f"Received: cache_label_embeddings={cache_label_embeddings!r}"
                )
        self._embeddings = {}

    def __call__(self, h, start, stop):
        if self.mode == "subset":
            return self.head.score_subset(h, ops.arange(start, stop, dtype="int32"))
        ids = self.label_ids[start:stop]
        if self.mode == "ids":
            return self.head(h, label_ids=ids)
        if start not in self._embeddings:
            self._embeddings[start] = self.head.encode_labels(ids)
        return self.head(h, label_embeddings=self._embeddings[start])


def _merge_top_k(top_scores, top_indices, chunk_scores, offset, k):
    """Running top-k of the labels seen so far merged with a chunk of scores.

    `chunk_scores` (B, C) hold the labels [offset, offset + C). The running
    top-k (B, <= k) comes first in the concatenation and holds only lower
    label indices, so among equal scores the lower label index wins, exactly
    as `ops.top_k` over the full score matrix.
    """
    dtype = "float64" if ops.dtype(chunk_scores) == "float64" else "float32"
    chunk_scores = ops.cast(chunk_scores, dtype)
    width = chunk_scores.shape[-1]
    indices = ops.arange(offset, offset + width, dtype="int32")
    chunk_indices = ops.broadcast_to(ops.expand_dims(indices, 0), ops.shape(chunk_scores))
    if top_scores is not None:
        chunk_scores = ops.concatenate([ops.cast(top_scores, dtype), chunk_scores], axis=-1)
        chunk_indices = ops.concatenate([top_indices, chunk_indices], axis=-1)
    values, positions = ops.top_k(chunk_scores, k=min(k, chunk_scores.shape[-1]), sorted=True)
    return values, ops.take_along_axis(chunk_indices, positions, axis=-1)


# ----------------------------------------------------------------------------
# document batches
# ----------------------------------------------------------------------------


def _document_batches(inputs, batch_size):
    """(number of batches or None, iterator of model-input batches as NumPy)."""
    leaves = keras.tree.flatten(inputs)
    if leaves and all(hasattr(leaf, "shape") and len(leaf.shape) >= 1 for leaf in leaves):
        sizes = {int(leaf.shape[0]) for leaf in leaves}
        if len(sizes) != 1:
            raise ValueError(
                "Every input array must hold the same number of documents. "
                f"Received: inputs with first dimensions {sorted(sizes)}"
            )
        num_documents = sizes.pop()

        def sliced():
            for start in range(0, num_documents, batch_size):
                yield keras.tree.map_structure(
                    lambda leaf: np.asarray(leaf[start : start + batch_size]), inputs
                )

        return math.ceil(num_documents / batch_size), sliced()
    # An iterable of batches (tf.data.Dataset, generator); in a tuple the
    # first element is the model input, as in `model.predict`.
    try:
        num_batches = len(inputs)
    except TypeError:
        num_batches = None
    if num_batches is not None and num_batches < 0:
        num_batches = None

    def iterated():
        for batch in inputs:
            x = batch[0] if isinstance(batch, tuple) else batch
            yield keras.tree.map_structure(np.asarray, x)

    try:
        iter(inputs)
    except TypeError:
        raise ValueError(
            "`inputs` must be an array (or a list/dict of arrays) of documents, or an iterable of "
            f"batches such as a tf.data.Dataset. Received: inputs={type(inputs).__name__}"
        ) from None
    return num_batches, iterated()


def _pad_batch(x, padded_size):
    """Pads a short batch to the first batch's size by repeating its last document.

    The encoder's compiled predict function then sees one input shape (the
    last, short batch would otherwise trace and compile it again). Returns
    `(x, number of real documents, padded size)`.
    """
    size = int(keras.tree.flatten(x)[0].shape[0])
    if padded_size is None or size >= padded_size or size == 0:
        return x, size, max(size, padded_size or 0)
    repeat = np.minimum(np.arange(padded_size), size - 1)
    return keras.tree.map_structure(lambda leaf: np.take(leaf, repeat, axis=0), x), size, padded_size


# ----------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------


def predict_top_k(
    model,
    inputs,
    k,
    label_ids=None,
    label_chunk_size=DEFAULT_LABEL_CHUNK_SIZE,
    batch_size=DEFAULT_BATCH_SIZE,
    head=None,
    cache_label_embeddings=True,
    verbose=1,
):
    """The k top-scored labels of every document, scoring the label set in chunks.

    Equivalent to `ops.top_k(model.predict(inputs), k)` (same indices, same
    order, ties to the lower label index) without the dense
    `(documents, labels)` score matrix. The model is split at its label head
    (`split_at_head`); for each batch of `batch_size` documents the encoder
    runs once (`predict_on_batch`), then the head scores `label_chunk_size`
    labels at a time and a running top-k is merged with `keras.ops.top_k`.
    Peak memory is about `batch_size * (label_chunk_size + k)` scores, plus
    the label embeddings of the whole label set `(L, d)` when
    `cache_label_embeddings` (they are computed once, not once per batch).
    A `keras.utils.Progbar` over document batches shows progress.

    Args:
        model: a built Keras model whose output layer scores label sets (a
            `GileHead`, or a head with `encode_labels` / `call(..., label_ids=)`,
            or `score_subset` for a linear head).
        inputs: the model input as an array (or list/dict of arrays) of
            documents, or an iterable of batches (e.g. a `tf.data.Dataset`;
            in a tuple batch the first element is the input).
        k: int, 1 <= k <= number of labels.
        label_ids: optional `(L, Lw)` token ids of another label set to score
            (e.g. unseen labels, or a huge label set the model was not built
            with); default the head's own label set. Needs a joint head.
        label_chunk_size: int >= 1, default 4096. Labels scored per head call.
        batch_size: int >= 1, default 256. Documents per batch (for array
            inputs; an iterable's batches are used as they come).
        head: the output layer, when the model has several candidates.
        cache_label_embeddings: bool, default True. Encode each label chunk's
            descriptions once and reuse them for every document batch; False
            re-encodes them per batch (memory independent of L).
        verbose: 0 silent, 1 progress bar, 2 one line at the end.

    Returns:
        `(indices, scores)`: NumPy arrays `(N, k)`, int32 label indices (rows
        of `label_ids`, or of the head's label set) and their scores as the
        head outputs them (logits for `GileHead`), best first.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> labels = np.arange(2, 42).reshape(20, 2)     # 20 label descriptions
    >>> model = gile_wan(50, labels, max_tokens=8, encoder_units=8, joint_dim=8)
    >>> x = np.random.randint(1, 50, (10, 8))
    >>> indices, scores = predict_top_k(model, x, k=3, label_chunk_size=7, verbose=0)
    >>> indices.shape, scores.shape
    ((10, 3), (10, 3))
    >>> full = model.predict(x, verbose=0)                   # the dense (N, L) scores
    >>> bool(np.allclose(np.sort(full, axis=1)[:, ::-1][:, :3], scores, atol=1e-6))
    True
    """
    indices, scores, _ = _predict_top_k(
        model, inputs, k, label_ids, label_chunk_size, batch_size, head, cache_label_embeddings, verbose
    )
    return indices, scores


def _predict_top_k(model, inputs, k, label_ids, label_chunk_size, batch_size, head, cache_label_embeddings, verbose):
    """`predict_top_k`, also returning the number of labels scored."""
    k = _check_positive_int("k", k)
    label_chunk_size = _check_positive_int("label_chunk_size", label_chunk_size)
    batch_size = _check_positive_int("batch_size", batch_size)
    if verbose not in (0, 1, 2, "auto"):
        raise ValueError(f"`verbose` must be 0, 1, 2 or 'auto'. Received: verbose={verbose!r}")
    verbose = 1 if verbose == "auto" else verbose
    encoder, head = split_at_head(model, head)
    scorer = _ChunkScorer(head, label_ids, bool(cache_label_embeddings))
    num_labels = scorer.num_labels
    if k > num_labels:
        raise ValueError(f"`k` must be at most the number of labels ({num_labels}). Received: k={k}")
    num_batches, batches = _document_batches(inputs, batch_size)
    progbar = keras.utils.Progbar(num_batches, verbose=verbose, unit_name="batch") if verbose else None
    all_indices, all_scores = [], []
    step = 0
    padded_size = None
    for step, x in enumerate(batches, start=1):
        x, size, padded_size = _pad_batch(x, padded_size)
        h = ops.convert_to_tensor(encoder.predict_on_batch(x)[:size])
        top_scores = top_indices = None
        for start in range(0, num_labels, label_chunk_size):
            stop = min(start + label_chunk_size, num_labels)
            top_scores, top_indices = _merge_top_k(top_scores, top_indices, scorer(h, start, stop), start, k)
        all_indices.append(ops.convert_to_numpy(top_indices).astype("int32"))
        all_scores.append(ops.convert_to_numpy(top_scores))
        if progbar is not None:
            progbar.update(step)
    if progbar is not None and num_batches is None:
        progbar.update(step, finalize=True)
    if not all_indices:
        return np.zeros((0, k), "int32"), np.zeros((0, k), "float32"), num_labels
    return np.concatenate(all_indices), np.concatenate(all_scores), num_labels


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
        if targets.ndim != 2 or targets.shape[0] != num_documents or (
            num_labels is not None and targets.shape[1] != num_labels
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
        raise ValueError(
            f"`k` must be at most the number of retrieved labels ({top.shape[1]}). Received: k={k!r}"
        )
    inverse = None
    if propensities is not None:
        propensities = check_propensities(propensities)
        inverse = 1.0 / propensities
        if num_labels is not None and num_labels != propensities.shape[0]:
            raise ValueError(
                f"`propensities` has {propensities.shape[0]} labels. Received: num_labels={num_labels}"
            )
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
    >>> model = gile_wan(50, labels, max_tokens=8, encoder_units=8, joint_dim=8)
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
