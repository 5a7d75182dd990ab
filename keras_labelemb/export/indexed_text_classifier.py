"""`IndexedTextClassifier`: top-k labels from raw text, an exported model's query vectors searched in a label index."""

import json
import os

import tensorflow as tf

from keras_labelemb.argument_checks import check_positive_int
from keras_labelemb.evaluation.label_index import META_FILE, read_index, search_index
from keras_labelemb.export.text_classifier_export import load_text_classifier
from keras_labelemb.tasks.label_classifier_preprocessor import check_texts


class IndexedTextClassifier:
    """Serves the top-k labels of raw texts: a SavedModel's `query_vectors` searched in a saved `LabelIndex`.

    A faiss index cannot live inside a SavedModel, so serving takes two
    files: the model exported by `export_text_classifier` (its
    `query_vectors(texts)` signature tokenises in the graph and returns the
    document side of an inner-product head) and the folder written by
    `LabelIndex.save`. `top_k` returns the label indices and their logits,
    best first; with `label_names`, the names too.

    Args:
        model_path: the SavedModel folder (`export_text_classifier`).
        index_path: the `LabelIndex.save` folder of the same model's label set.
        label_names: optional list of the label set's names, by index.

    Example:

    >>> served = IndexedTextClassifier("served", "served_index")  # doctest: +SKIP
    >>> indices, scores = served.top_k(["wheat prices rose"], k=5)  # doctest: +SKIP
    """

    def __init__(self, model_path, index_path, label_names=None):
        self.model = load_text_classifier(model_path)
        if not hasattr(self.model, "query_vectors"):
            raise ValueError(
                "The SavedModel has no `query_vectors` signature: export a model whose head scores labels by inner "
                f"products (GileHead, DrillHead, LinearHead). Received: model_path={model_path!r}"
            )
        with open(os.path.join(index_path, META_FILE)) as stream:
            self.settings = json.load(stream)
        self.index = read_index(index_path, self.settings)
        self.label_names = None if label_names is None else list(label_names)
        if self.label_names is not None and len(self.label_names) != self.index.ntotal:
            raise ValueError(
                f"`label_names` must name the index's {self.index.ntotal} labels. Received: {len(self.label_names)}"
            )

    def top_k(self, texts, k=5):
        """`(indices (B, k) int32, scores (B, k) float32)`, or `(names, scores)` with `label_names`.

        `texts` is a list of strings (one string is refused: it would be read as one text per character). Slots an
        approximate index could not fill even when searched exhaustively (`search_index`) hold -1, `-inf` and,
        with names, None.
        """
        texts = check_texts(texts)
        k = check_positive_int("k", k)
        if k > self.index.ntotal:
            raise ValueError(f"`k` must be at most the number of labels ({self.index.ntotal}). Received: k={k}")
        queries = self.model.query_vectors(tf.constant(texts, tf.string))["query_vectors"].numpy()
        indices, scores = search_index(self.index, self.settings["kind"], self.settings["max_norm"], queries, k)
        if self.label_names is not None:
            return [[self.label_names[i] if i >= 0 else None for i in row] for row in indices], scores
        return indices, scores
