"""Top-k prediction over huge label sets, scoring the label set in chunks.

`predict_top_k` scores every label for every document without ever holding a
dense `(documents, labels)` score matrix: the model goes through the task
(`LabelClassifier.from_model`, cut once at its label head), each batch of documents is encoded once, and the head scores
the label set one chunk at a time while a running top-k is merged with
`keras.ops.top_k`.
"""

import math

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.layers.label_head import validate_label_ids

DEFAULT_LABEL_CHUNK_SIZE = 4096
DEFAULT_BATCH_SIZE = 256


class _ChunkScorer:
    """Scores the label columns [start, stop) of a label set with a `LabelHead`.

    Three ways, chosen once:
      "embeddings": label embeddings of each chunk are computed once
          (`head.embed_labels`) and reused for every document batch
          (`head(h, label_embeddings=E_chunk)`);
      "ids": the head re-reads the chunk's descriptions on every call
          (`head(h, label_ids=ids_chunk)`);
      "subset": the head scores the chunk's positions of its own label set
          (`head.score_subset(h, indices)`, the protocol sampled training
          uses), which also covers per-label weights or biases.
    The first two serve a label set given at call time, and the stored label
    set of a head without per-label parameters (any chunk of it is a label
    set of its own). A head whose logits are inner products
    (`head.scores_are_inner_products`) with `cache_label_embeddings` caches
    the label side itself instead (`head.label_vectors`, e.g. GILE's
    `g_out(E)`, computed once per label set): each chunk then costs one
    matrix product with the batch's query vectors (`begin_batch`).
    """

    def __init__(self, head, label_ids, cache_label_embeddings, label_vectors=None):
        self.head = head
        if label_ids is not None:
            if not head.scores_label_sets:
                raise ValueError(
                    f"`label_ids` needs a head that scores label sets from their descriptions; {head.name!r} has "
                    f"per-label parameters. Received: label_ids with shape {np.shape(label_ids)}"
                )
            self.label_ids = validate_label_ids(label_ids, head.vocabulary_size)
        elif head.scores_label_sets and head.label_ids is not None:
            self.label_ids = head.label_ids
        else:
            self.label_ids = None
        if self.label_ids is None:
            if not head.num_labels:
                raise ValueError(
                    f"The head {head.name!r} has no label set to score: pass `label_ids`. Received: label_ids=None"
                )
            self.mode, self.num_labels = "subset", int(head.num_labels)
        else:
            self.mode = "embeddings" if cache_label_embeddings else "ids"
            self.num_labels = int(self.label_ids.shape[0])
        self._embeddings = {}
        self.inner_products = bool(cache_label_embeddings) and head.scores_are_inner_products
        self._queries = None
        self._kept_vectors = None
        if label_vectors is not None:  # the caller's cache of the whole label side
            head._require_inner_products()
            if tuple(label_vectors.shape)[:1] != (self.num_labels,):
                raise ValueError(
                    f"`label_vectors` must hold one row per label ({self.num_labels}). "
                    f"Received: label_vectors with shape {tuple(label_vectors.shape)}"
                )
            self.inner_products, self._kept_vectors = True, ops.convert_to_tensor(label_vectors)

    def begin_batch(self, h):
        """Called once per document batch: an inner-product head's query vectors are computed here, once."""
        if self.inner_products:
            self._queries = self.head.query_vectors(h)

    def _label_vectors(self, start, stop):
        if self._kept_vectors is not None:
            return self._kept_vectors[start:stop]
        if start not in self._embeddings:
            if self.mode == "subset":
                vectors = self.head.label_vectors(label_indices=ops.arange(start, stop, dtype="int32"))
            else:
                vectors = self.head.label_vectors(label_ids=self.label_ids[start:stop])
            self._embeddings[start] = vectors
        return self._embeddings[start]

    def __call__(self, h, start, stop):
        if self.inner_products:
            return ops.matmul(self._queries, ops.transpose(self._label_vectors(start, stop)))
        if self.mode == "subset":
            return self.head.score_subset(h, ops.arange(start, stop, dtype="int32"))
        ids = self.label_ids[start:stop]
        if self.mode == "ids":
            return self.head(h, label_ids=ids)
        if start not in self._embeddings:
            self._embeddings[start] = self.head.embed_labels(ids)
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
                yield keras.tree.map_structure(lambda leaf: np.asarray(leaf[start : start + batch_size]), inputs)

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


def encoded_batches(encoder, inputs, batch_size):
    """`(number of batches or None, iterator of encoded batches)`: the head's input of each batch of documents.

    Each batch runs through `encoder.predict_on_batch` once (short last batches padded to the first batch's
    size, so one compiled function serves all); the result is `h`, or the document dict of a head that
    reads tokens, as tensors.
    """
    num_batches, batches = _document_batches(inputs, batch_size)

    def encoded():
        padded_size = None
        for x in batches:
            x, size, padded_size = _pad_batch(x, padded_size)
            yield keras.tree.map_structure(lambda part: ops.convert_to_tensor(part[:size]), encoder.predict_on_batch(x))

    return num_batches, encoded()


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
    `(documents, labels)` score matrix. The model goes through the task
    (`LabelClassifier.from_model`: its document encoder and head); for each batch of `batch_size` documents the encoder
    runs once (`predict_on_batch`), then the head scores `label_chunk_size`
    labels at a time and a running top-k is merged with `keras.ops.top_k`.
    Peak memory is about `batch_size * (label_chunk_size + k)` scores, plus
    the label embeddings of the whole label set `(L, d)` when
    `cache_label_embeddings` (they are computed once, not once per batch).
    A `keras.utils.Progbar` over document batches shows progress.

    Under JAX on an NVIDIA GPU, matrix products default to TF32, whose
    rounding reorders near-tied scores: for the exact float32 top-k set
    `jax.config.update("jax_default_matmul_precision", "highest")` (on an
    H200 over 10^6 labels it was not slower; `benchmarks/README.md`).

    Args:
        model: a `LabelClassifier` fed token ids, or a built Keras model whose
            output layer is a `LabelHead` (`LabelClassifier.from_model`).
        inputs: the model input as an array (or list/dict of arrays) of
            documents, or an iterable of batches (e.g. a `tf.data.Dataset`;
            in a tuple batch the first element is the input).
        k: int, 1 <= k <= number of labels.
        label_ids: optional `(L, Lw)` token ids of another label set to score
            (e.g. unseen labels, or a huge label set the model was not built
            with); default the head's own label set. Needs a head without
            per-label parameters.
        label_chunk_size: int >= 1, default 4096. Labels scored per head call
            (all of them at once for a head whose scores depend on the label
            set scored with them: `head.scores_depend_on_label_set`).
        batch_size: int >= 1, default 256. Documents per batch (for array
            inputs; an iterable's batches are used as they come).
        head: the label head, when the model has several.
        cache_label_embeddings: bool, default True. Encode each label chunk's
            descriptions once and reuse them for every document batch (for a
            head whose logits are inner products, its whole label side:
            `head.label_vectors`); False re-encodes them per batch (memory
            independent of L).
        verbose: 0 silent, 1 progress bar, 2 one line at the end.

    Returns:
        `(indices, scores)`: NumPy arrays `(N, k)`, int32 label indices (rows
        of `label_ids`, or of the head's label set) and their scores as the
        head outputs them (logits for `GileHead`), best first.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> labels = np.arange(2, 42).reshape(20, 2)     # 20 label descriptions
    >>> model = gile_wan(50, labels, max_tokens=8, units=8, joint_dim=8)
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


def as_classifier(model, head=None):
    """`model` if it is a `LabelClassifier`, else the task over it (`LabelClassifier.from_model`, fed token ids)."""
    from keras_labelemb.tasks.label_classifier import LabelClassifier

    if isinstance(model, LabelClassifier) and head is None:
        return model
    return LabelClassifier.from_model(model, head=head)


def _predict_top_k(model, inputs, k, label_ids, label_chunk_size, batch_size, head, cache_label_embeddings, verbose):
    """`predict_top_k`, also returning the number of labels scored."""
    batch_size = check_positive_int("batch_size", batch_size)
    classifier = as_classifier(model, head)
    num_batches, batches = encoded_batches(classifier.document_encoder, inputs, batch_size)
    head = classifier.head
    return _top_k_of_batches(
        head, num_batches, batches, k, label_ids, label_chunk_size, cache_label_embeddings, verbose
    )


def predict_top_k_encoded(
    head,
    encoded,
    k,
    label_ids=None,
    label_chunk_size=DEFAULT_LABEL_CHUNK_SIZE,
    batch_size=DEFAULT_BATCH_SIZE,
    cache_label_embeddings=True,
    label_vectors=None,
    verbose=0,
):
    """`predict_top_k` of documents already encoded: `encoded` is the head's input (`h` `(N, d)`).

    For a caller that keeps encoded documents, or the label side itself: an
    inner-product head's `label_vectors` `(L, D)` (`head.label_vectors()`,
    computed once per label set and kept) make every call one matrix product
    per chunk. Keep them as a backend tensor (`keras.ops.convert_to_tensor`):
    a NumPy array is converted at every call, a copy of the whole label side
    (0.5 GB at 10^6 labels x 129 values). Otherwise the same arguments and
    result as `predict_top_k`, with the head instead of the model.
    """
    batch_size = check_positive_int("batch_size", batch_size)
    num_batches, batches = _document_batches(encoded, batch_size)
    tensors = (keras.tree.map_structure(ops.convert_to_tensor, batch) for batch in batches)
    indices, scores, _ = _top_k_of_batches(
        head, num_batches, tensors, k, label_ids, label_chunk_size, cache_label_embeddings, verbose, label_vectors
    )
    return indices, scores


def _top_k_of_batches(
    head, num_batches, batches, k, label_ids, label_chunk_size, cache_label_embeddings, verbose, label_vectors=None
):
    """The running chunked top-k over batches of encoded documents (the head's inputs)."""
    k = check_positive_int("k", k)
    label_chunk_size = check_positive_int("label_chunk_size", label_chunk_size)
    if verbose not in (0, 1, 2, "auto"):
        raise ValueError(f"`verbose` must be 0, 1, 2 or 'auto'. Received: verbose={verbose!r}")
    verbose = 1 if verbose == "auto" else verbose
    if getattr(head, "num_languages", 1) > 1:
        raise ValueError(
            "Chunked scoring supports single-language heads; score each language's model separately. "
            f"Received: head={head.name!r} with num_languages={head.num_languages}"
        )
    scorer = _ChunkScorer(head, label_ids, bool(cache_label_embeddings), label_vectors)
    num_labels = scorer.num_labels
    if head.scores_depend_on_label_set:  # chunks would be scored apart: one chunk of every label
        label_chunk_size = num_labels
    if k > num_labels:
        raise ValueError(f"`k` must be at most the number of labels ({num_labels}). Received: k={k}")
    progbar = keras.utils.Progbar(num_batches, verbose=verbose, unit_name="batch") if verbose else None
    all_indices, all_scores = [], []
    step = 0
    for step, h in enumerate(batches, start=1):
        scorer.begin_batch(h)
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
