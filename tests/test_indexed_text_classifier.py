import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.evaluation import LabelIndex, predict_top_k
from keras_labelemb.export import IndexedTextClassifier, export_text_classifier
from keras_labelemb.models import gile_wan
from keras_labelemb.text import TextVectorizer

TEXTS = ["wheat prices rose", "oil exports fell sharply", "the bank raised rates", "gold and silver", ""]
LABELS = ["wheat grain", "crude oil", "interest rates", "gold metal", "silver coins", "bank loans", "trade deficit"]


@pytest.fixture(scope="module")
def vectorizer():
    layer = TextVectorizer(max_tokens=6)
    layer.adapt(TEXTS + LABELS)
    return layer


def test_top_k_from_raw_text_equals_the_model_s_exact_top_k(vectorizer, tmp_path):
    label_ids = vectorizer.encode_labels(LABELS, 3)
    model = gile_wan(vectorizer.vocabulary_size, label_ids, max_tokens=6, units=8, joint_dim=8)
    export_text_classifier(model, vectorizer, str(tmp_path / "model"))
    LabelIndex(model, kind="hnsw", verbose=0).save(str(tmp_path / "index"))
    served = IndexedTextClassifier(str(tmp_path / "model"), str(tmp_path / "index"), label_names=LABELS)
    names, scores = served.top_k(TEXTS, k=3)
    exact_indices, exact_scores = predict_top_k(model, vectorizer(tf.constant(TEXTS)), 3, verbose=0)
    np.testing.assert_allclose(scores, exact_scores, rtol=1e-4, atol=1e-4)
    assert names[0] == [LABELS[i] for i in exact_indices[0]]
    with pytest.raises(ValueError, match="at most"):
        served.top_k(TEXTS, k=8)
    with pytest.raises(ValueError, match="not one string"):
        served.top_k("wheat", k=3)
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        served.top_k(["wheat", 3], k=3)
    all_names, _ = served.top_k(["wheat"], k=len(LABELS))  # every label: no empty slot, no name repeated
    assert sorted(all_names[0]) == sorted(LABELS)
    assert served.top_k([], k=3)[0] == []


def test_a_saved_model_without_query_vectors_is_refused(monkeypatch, tmp_path):
    """A head whose scores are not inner products exports no `query_vectors` signature (export test)."""
    from keras_labelemb.export import indexed_text_classifier

    monkeypatch.setattr(indexed_text_classifier, "load_text_classifier", lambda path: object())
    with pytest.raises(ValueError, match="query_vectors"):
        IndexedTextClassifier(str(tmp_path / "lexical"), str(tmp_path / "missing"))
