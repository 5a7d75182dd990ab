"""`LabelClassifier.build_label_index`: `predict_top_k` through a `LabelIndex` gives what scoring every label gives."""

import numpy as np
import pytest
from task_helpers import LABELS, NEW_LABELS, texts_and_targets

from keras_labelemb.tasks import LabelClassifier

pytest.importorskip("faiss")
SMALL = {"embedding_dim": 8, "max_tokens": 16, "description_length": 4}


@pytest.fixture(scope="module")
def classifier():
    texts, targets = texts_and_targets(24)
    classifier = LabelClassifier.from_preset("gile_wan", labels=LABELS, **SMALL)
    classifier.fit(texts, targets, epochs=1, batch_size=8, verbose=0)
    return classifier, texts


def _names_and_scores(top_k):
    return [[name for name, _ in row] for row in top_k], np.array([[score for _, score in row] for row in top_k])


@pytest.mark.slow
def test_top_k_through_an_exact_index_equals_scoring_every_label(classifier):
    classifier, texts = classifier
    expected = classifier.predict_top_k(texts, k=3)
    classifier.build_label_index("flat")
    try:
        found = classifier.predict_top_k(texts, k=3)
        assert _names_and_scores(found)[0] == _names_and_scores(expected)[0]
        np.testing.assert_allclose(_names_and_scores(found)[1], _names_and_scores(expected)[1], atol=1e-5)
        assert classifier.predict_top_k([], k=2) == []
        # A relabel rebuilds the index over the new set: the new names come back.
        classifier.set_labels(NEW_LABELS)
        relabelled = classifier.predict_top_k(texts, k=2)
        classifier.label_index = None  # every label scored
        exact = classifier.predict_top_k(texts, k=2)
        assert _names_and_scores(relabelled)[0] == _names_and_scores(exact)[0]
    finally:
        classifier.label_index = None
        classifier.set_labels(LABELS)


def test_an_index_is_refused_for_a_single_label_classifier():
    texts, targets = texts_and_targets(16)
    single = LabelClassifier.from_preset("wan", labels=LABELS, multi_label=False, **SMALL)
    single.fit(texts, [t[:1] for t in targets], epochs=1, verbose=0)
    with pytest.raises(ValueError, match="single-label"):
        single.build_label_index()
