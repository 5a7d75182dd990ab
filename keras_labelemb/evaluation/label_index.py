"""`LabelIndex`: top-k labels by maximum inner product search (faiss) over a head's label vectors."""

import hashlib
import json
import math
import os

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int
from keras_labelemb.evaluation.top_k_prediction import as_classifier, encoded_batches

KINDS = ("flat", "ivf", "ivf_pq", "hnsw")
COARSE_QUANTIZERS = ("flat", "hnsw")
# Kinds that search distances over the transformed label vectors (see `LabelIndex`).
EUCLIDEAN_KINDS = ("ivf", "ivf_pq")
INDEX_FILE = "labels.faiss"
META_FILE = "label_index.json"
# What `save` writes beside the faiss index: the constructor's settings and what the index was built for.
SAVED_SETTINGS = (
    "kind",
    "nlist",
    "nprobe",
    "refine_factor",
    "coarse",
    "hnsw_neighbors",
    "ef_search",
    "ef_construction",
    "label_chunk_size",
    "fingerprint",
    "max_norm",
)


def _faiss():
    try:
        import faiss
    except ImportError:
        raise ImportError(
            "LabelIndex searches with faiss: `pip install faiss-cpu` (or `pip install keras_labelemb[index]`)."
        ) from None
    return faiss


def label_set_fingerprint(head):
    """A digest of the head's label set (descriptions, or the per-label weights' shape): `search` checks it."""
    ids = head.label_ids if head.label_ids is not None else np.array([head.num_labels])
    return hashlib.sha1(np.ascontiguousarray(ids, "int64").tobytes()).hexdigest()


class LabelIndex:
    """Finds each document's top-k labels with a maximum-inner-product index over the label vectors.

    For a head whose logits are inner products (`head.scores_are_inner_products`:
    `GileHead`, `DrillHead`, `LinearHead`), `logits = q(h) · k(label)` with
    `q = head.query_vectors(h)` and `k = head.label_vectors()` (biases folded
    in as one more coordinate). The label vectors are computed once per
    label set, `label_chunk_size` labels at a time, and added to a faiss
    index; a search encodes a batch of documents (the classifier's
    `document_encoder`), computes their query vectors and asks the index for
    the k largest inner products. The scores returned are the head's logits.

    - `kind="flat"`: exact search (faiss `IndexFlatIP`), the reference;
    - `kind="ivf"`: inverted lists (`IndexIVFFlat`): the label vectors are
      clustered into `nlist` lists (default `4 * sqrt(L)`) and a query scans
      the `nprobe` lists nearest to it;
    - `kind="ivf_pq"`: the same lists, scanned over 4-bit product-quantised
      codes (`IndexIVFPQFastScan`, two dimensions per code), then the best
      `refine_factor * k` candidates re-scored exactly (`IndexRefineFlat`):
      scanning a list costs a fraction of `ivf`'s, so more lists can be
      scanned for the same time;
    - `kind="hnsw"`: a proximity graph (`IndexHNSWFlat`), `hnsw_neighbors`
      links per vector, `ef_search` candidates per query.

    IVF clusters the label vectors by distance, which favours long vectors
    under inner products: its inner products are turned into distances first
    (one more coordinate on each side, Bachrach et al. 2014, "Speeding up
    the Xbox recommender system using a Euclidean transformation for
    inner-product spaces"), and the scores returned are inner products
    again. HNSW searches inner products directly (with the transform, its
    recall on GILE's label vectors fell to 0.87 at 10^4 labels).

    The index belongs to the label set it was built for: after
    `set_labels`, `search` raises until `build()` is called again. A head
    whose scores are not inner products raises a `ValueError` here.
    `save(path)` / `LabelIndex.load(path, model)` keep the faiss index
    beside its settings; `keras_labelemb.export.IndexedTextClassifier`
    serves top-k from raw text with an exported model and a saved index.

    Args:
        model: a `LabelClassifier` (`classifier.build_label_index(kind)` builds one for its `predict_top_k`),
            or a built model whose output layer is the head (`LabelClassifier.from_model`).
        kind: `"flat"`, `"ivf"` (default), `"ivf_pq"` or `"hnsw"`.
        head: the label head, when the model has several.
        nlist: IVF lists (default `4 * sqrt(L)`).
        nprobe: IVF lists scanned per query (default 32).
        refine_factor: `ivf_pq` re-scores `refine_factor * k` candidates
            exactly (default 10).
        coarse: how `ivf` finds a query's nearest lists: `"flat"` (default;
            every list centroid compared) or `"hnsw"` (a graph over the
            centroids, for many lists, where comparing a query with every
            centroid costs as much as scanning the lists).
        hnsw_neighbors: HNSW graph neighbours per node (default 32).
        ef_search: HNSW candidates kept per query (default 128).
        ef_construction: HNSW candidates kept while building (default 80).
        label_chunk_size: labels whose vectors are computed per head call.
        verbose: 1 shows a progress bar while the index is built, 0 none.

    Example:

    >>> from keras_labelemb.models import gile_wan
    >>> labels = np.arange(2, 42).reshape(20, 2)
    >>> model = gile_wan(50, labels, max_tokens=8, units=8, joint_dim=8)
    >>> index = LabelIndex(model, kind="flat", verbose=0)
    >>> x = np.random.default_rng(0).integers(1, 50, (4, 8))
    >>> indices, scores = index.search(x, k=3)
    >>> bool(np.allclose(scores, np.sort(model.predict(x, verbose=0), axis=1)[:, ::-1][:, :3], atol=1e-5))
    True
    """

    def __init__(
        self,
        model,
        kind="ivf",
        head=None,
        nlist=None,
        nprobe=32,
        refine_factor=10,
        coarse="flat",
        hnsw_neighbors=32,
        ef_search=128,
        ef_construction=80,
        label_chunk_size=65536,
        verbose=1,
    ):
        self._attach(model, head)
        self.kind = check_choice("kind", kind, KINDS)
        self.nlist = None if nlist is None else check_positive_int("nlist", nlist)
        self.nprobe = check_positive_int("nprobe", nprobe)
        self.refine_factor = check_positive_int("refine_factor", refine_factor)
        self.coarse = check_choice("coarse", coarse, COARSE_QUANTIZERS)
        self.hnsw_neighbors = check_positive_int("hnsw_neighbors", hnsw_neighbors)
        self.ef_search = check_positive_int("ef_search", ef_search)
        self.ef_construction = check_positive_int("ef_construction", ef_construction)
        self.label_chunk_size = check_positive_int("label_chunk_size", label_chunk_size)
        self.verbose = verbose
        self.index = None
        self.build()

    def _attach(self, model, head):
        classifier = as_classifier(model, head)  # a model you built goes through the task once
        self.encoder, self.head = classifier.document_encoder, classifier.head
        self.head._require_inner_products()
        if getattr(self.head, "num_languages", 1) > 1:
            raise ValueError(f"LabelIndex serves single-language heads. Received: head={self.head.name!r}")

    @property
    def num_labels(self):
        return int(self.index.ntotal) if self.index is not None else 0

    def label_vectors(self):
        """The label side `(L, D)` float32 of the head's label set, computed in chunks (one progress bar)."""
        return chunked_label_vectors(self.head, self.label_chunk_size, self.verbose)

    def build(self):
        """(Re)builds the index over the head's current label set (after `set_labels`, say)."""
        faiss = _faiss()
        vectors = self.label_vectors()
        count, width = vectors.shape
        if self.kind == "flat":
            index = faiss.IndexFlatIP(width)
        elif self.kind == "hnsw":
            index = faiss.IndexHNSWFlat(width, self.hnsw_neighbors, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = self.ef_construction
        else:
            # k-means lists follow distances: with k' = [k, sqrt(M^2 - |k|^2)] and q' = [q, 0],
            # |q' - k'|^2 = |q|^2 + M^2 - 2 q.k, so the nearest k' have the largest q.k (Bachrach et al. 2014).
            norms = np.einsum("ij,ij->i", vectors, vectors)
            self.max_norm = float(norms.max())
            extra = [np.sqrt(np.maximum(self.max_norm - norms, 0.0))[:, None]]
            if self.kind == "ivf_pq" and (width + 1) % 2:  # two dimensions per code: pad with a zero column
                extra.append(np.zeros((count, 1)))
            vectors = np.hstack([vectors, *extra]).astype("float32")
            width = vectors.shape[1]
            nlist = min(self.nlist or max(1, int(4 * math.sqrt(count))), count)
            if self.kind == "ivf":
                index = faiss.IndexIVFFlat(self._coarse_quantizer(faiss, width), width, nlist)
            else:
                codes = faiss.IndexIVFPQFastScan(faiss.IndexFlatL2(width), width, nlist, width // 2, 4)
                index = faiss.IndexRefineFlat(codes)
                index.k_factor = float(self.refine_factor)
            index.train(vectors)
        index.add(vectors)
        self._configure(index)
        self.index, self.fingerprint = index, label_set_fingerprint(self.head)
        return self

    def _coarse_quantizer(self, faiss, width):
        if self.coarse == "hnsw":
            return faiss.IndexHNSWFlat(width, 32)
        return faiss.IndexFlatL2(width)

    def _configure(self, index):
        configure(index, self.kind, self.nprobe, self.ef_search)

    def query_vectors(self, h):
        """The document side `(B, D)` float32 of encoded documents (`h`, or a token-reading head's dict)."""
        return np.ascontiguousarray(ops.convert_to_numpy(ops.cast(self.head.query_vectors(h), "float32")))

    def search_vectors(self, queries, k):
        """`(indices, scores)` `(B, k)` of query vectors: the labels with the k largest inner products."""
        k = check_positive_int("k", k)
        if k > self.num_labels:
            raise ValueError(f"`k` must be at most the number of labels ({self.num_labels}). Received: k={k}")
        if label_set_fingerprint(self.head) != self.fingerprint:
            raise ValueError(
                "The head's label set changed since this index was built: call `index.build()` first. "
                f"Received: head={self.head.name!r} with {self.head.num_labels} labels"
            )
        return search_index(self.index, self.kind, getattr(self, "max_norm", None), queries, k)

    def search(self, inputs, k, batch_size=256):
        """The k top labels of every document (model inputs, as `predict_top_k` takes them): `(indices, scores)`."""
        batch_size = check_positive_int("batch_size", batch_size)
        _, batches = encoded_batches(self.encoder, inputs, batch_size)
        indices, scores = [], []
        for h in batches:
            batch_indices, batch_scores = self.search_vectors(self.query_vectors(h), k)
            indices.append(batch_indices)
            scores.append(batch_scores)
        if not indices:
            return np.zeros((0, k), "int32"), np.zeros((0, k), "float32")
        return np.concatenate(indices), np.concatenate(scores)

    def save(self, path):
        """Writes the faiss index and its settings into the folder `path`."""
        os.makedirs(path, exist_ok=True)
        _faiss().write_index(self.index, os.path.join(path, INDEX_FILE))
        settings = {key: getattr(self, key, None) for key in SAVED_SETTINGS}
        with open(os.path.join(path, META_FILE), "w") as stream:
            json.dump(settings, stream)

    @classmethod
    def load(cls, path, model, head=None):
        """The index saved at `path`, for `model` (its head's label set must be the one it was built for)."""
        with open(os.path.join(path, META_FILE)) as stream:
            settings = json.load(stream)
        index = cls.__new__(cls)
        index._attach(model, head)
        for key in SAVED_SETTINGS:  # every setting, so that `build()` after `set_labels` works as before saving
            setattr(index, key, settings.get(key))
        index.verbose = 0
        index.index = read_index(path, settings)
        return index


def chunked_label_vectors(head, chunk_size, verbose=0):
    """`head.label_vectors()` `(L, D)` float32, `chunk_size` labels at a time: the peak memory of computing them
    (a GILE head's word vectors of every description, say) is a chunk's, not the whole label set's."""
    total = int(head.num_labels)
    chunks = []
    progbar = keras.utils.Progbar(total, unit_name="label") if verbose else None
    for start in range(0, total, chunk_size):
        stop = min(start + chunk_size, total)
        rows = ops.arange(start, stop, dtype="int32")
        chunks.append(ops.convert_to_numpy(ops.cast(head.label_vectors(label_indices=rows), "float32")))
        if progbar is not None:
            progbar.update(stop)
    return np.ascontiguousarray(np.concatenate(chunks))


def configure(index, kind, nprobe, ef_search):
    """Sets the search-time settings of a faiss index of `kind`."""
    if kind in EUCLIDEAN_KINDS:
        ivf = _faiss().extract_index_ivf(index)
        ivf.nprobe = nprobe
        quantizer = _faiss().downcast_index(ivf.quantizer)
        if hasattr(quantizer, "hnsw"):  # a graph over the centroids: look at more of them than the lists kept
            quantizer.hnsw.efSearch = max(2 * nprobe, 64)
    elif kind == "hnsw":
        index.hnsw.efSearch = ef_search
    return index


def read_index(path, settings):
    """The faiss index of a saved `LabelIndex` folder, with its search settings."""
    index = _faiss().read_index(os.path.join(path, INDEX_FILE))
    return configure(index, settings["kind"], settings["nprobe"], settings["ef_search"])


def search_index(index, kind, max_norm, queries, k):
    """`(indices, scores)` of the k largest inner products of `queries` in a faiss index a `LabelIndex` built.

    An IVF index holds the transformed label vectors (padded with zero columns for `ivf_pq`): the queries get
    zeros there, and the distances found are turned back into inner products, `(|q|^2 + M^2 - d) / 2`; flat and
    HNSW indexes search inner products.

    An approximate index can find fewer than k labels (the IVF lists probed, or HNSW's `efSearch` below k, hold
    fewer); faiss marks those slots -1. The rows that have one are searched again with 4 times the lists (up to all
    of them) or an `efSearch` of at least 2k, until every slot holds a label; a slot still empty after an
    exhaustive search stays -1 with the score `-inf` (the search settings are restored after).
    """
    queries = np.ascontiguousarray(queries, "float32")
    indices, scores = _search(index, kind, max_norm, queries, k)
    missing = (indices < 0).any(axis=1)
    if not missing.any():
        return indices, scores
    if kind in EUCLIDEAN_KINDS:
        settings, name = _faiss().extract_index_ivf(index), "nprobe"
        widths = lambda width: min(4 * width, settings.nlist)  # noqa: E731
        widest = settings.nlist
    elif kind == "hnsw":
        settings, name = index.hnsw, "efSearch"
        widths = lambda width: max(2 * k, 4 * width)  # noqa: E731
        widest = 16 * max(2 * k, settings.efSearch)
    else:  # a flat index scans every label
        return indices, np.where(indices < 0, -np.inf, scores).astype("float32")
    saved = getattr(settings, name)
    try:
        while missing.any() and getattr(settings, name) < widest:
            setattr(settings, name, min(widths(getattr(settings, name)), widest))
            rows = np.flatnonzero(missing)
            indices[rows], scores[rows] = _search(index, kind, max_norm, queries[rows], k)
            missing = (indices < 0).any(axis=1)
    finally:
        setattr(settings, name, saved)
    return indices, np.where(indices < 0, -np.inf, scores).astype("float32")


def _search(index, kind, max_norm, queries, k):
    if kind not in EUCLIDEAN_KINDS:
        scores, indices = index.search(queries, k)
        return indices.astype("int32"), scores.astype("float32")
    padding = np.zeros((len(queries), index.d - queries.shape[1]), "float32")
    distances, indices = index.search(np.ascontiguousarray(np.hstack([queries, padding])), k)
    squared = np.einsum("ij,ij->i", queries, queries)[:, None]
    return indices.astype("int32"), ((squared + max_norm - distances) / 2.0).astype("float32")
