"""A new label head is one file and its test: this file defines one, registers it, and runs it through the
layer contract (`run_layer_test`) and the task (`run_task_test`: fit on strings, save, export served in a fresh
process, relabel), touching nothing else in the library."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.layers import HierarchicalAttention, LabelHead
from keras_labelemb.layers.label_head import head_class, register_head
from keras_labelemb.tasks import LabelClassifier, LabelClassifierPreprocessor
from keras_labelemb.testing import run_layer_test, run_task_test
from keras_labelemb.text import TextVectorizer


@register_head("projected_dot")
@keras.saving.register_keras_serializable(package="test_a_head_in_one_file")
class ProjectedDotHead(LabelHead):
    """`logits = (h W) E^T + b`: the document projected into the word-vector space, dotted with each label's
    mean description vector (`E`, the base's label encoder); no per-label parameters, so it scores new labels."""

    encodes_descriptions = True  # E: the label encoder over each description's word vectors
    scores_are_inner_products = True

    def build(self, input_shape):
        self.build_label_side()
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.embedding.output_dim))
        self.bias = self.add_weight(name="bias", shape=(), initializer="zeros")

    def compute_logits(self, inputs, label_embeddings, label_indices=None, training=None):
        projected = ops.matmul(ops.cast(inputs, self.compute_dtype), ops.cast(self.kernel, self.compute_dtype))
        labels = ops.cast(label_embeddings, self.compute_dtype)
        return ops.matmul(projected, ops.transpose(labels)) + ops.cast(self.bias, self.compute_dtype)

    def query_vectors(self, inputs):
        projected = ops.matmul(ops.cast(inputs, "float32"), ops.cast(self.kernel, "float32"))
        return ops.concatenate([projected, ops.ones_like(projected[:, :1])], axis=-1)

    def label_vectors_of(self, label_embeddings, label_indices=None):
        vectors = ops.cast(label_embeddings, "float32")
        return ops.concatenate([vectors, ops.ones_like(vectors[:, :1]) * ops.cast(self.bias, "float32")], axis=-1)


LABELS = {"grain": "wheat grain harvest", "rates": "bank interest rates", "gold": "gold silver mining"}
TEXTS = ["wheat prices rose", "the bank cut rates", "gold mines closed", "grain harvest up", "rates rise again"]
TARGETS = [["grain"], ["rates"], ["gold"], ["grain"], ["rates"]]


def test_the_registry_finds_it_and_the_layer_contract_holds():
    assert head_class("projected_dot") is ProjectedDotHead
    run_layer_test(
        ProjectedDotHead,
        lambda: {"embedding": keras.layers.Embedding(30, 6, mask_zero=True), "label_ids": np.array([[2, 3], [4, 0]])},
        np.random.default_rng(0).normal(size=(3, 5)).astype("float32"),
        (3, 2),
        frozen_weights=("embeddings",),  # rows of words in no description get no gradient
    )


def test_the_task_trains_saves_serves_and_relabels_it():
    keras.utils.set_random_seed(0)
    vectorizer = TextVectorizer(max_tokens=8)
    vectorizer.adapt(TEXTS + list(LABELS.values()) + ["silver coins"])
    table = keras.layers.Embedding(vectorizer.vocabulary_size, 8, mask_zero=True)
    encoder = keras.Sequential([keras.Input((8,), dtype="int32"), table, HierarchicalAttention("dense", 8, flat=True)])
    classifier = LabelClassifier(
        encoder, ProjectedDotHead(table), preprocessor=LabelClassifierPreprocessor(vectorizer), labels=LABELS
    )
    run_task_test(classifier, LABELS, TEXTS, TARGETS, new_labels={"silver": "silver coins"})
