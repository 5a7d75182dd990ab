"""sentence_classifier: the builder's model scores as its layers applied by hand, refuses heads that read labels
with another encoder, and each error names what to use."""

import keras
import numpy as np
import pytest
from sentence_helpers import DOCUMENTS, LABELS, T, encoder, unit_means

from keras_labelemb.layers import GileHead, HybridHead, LexicalMatchHead, SentenceMatchHead
from keras_labelemb.models import sentence_classifier
from keras_labelemb.tasks import LabelClassifier


def test_sentence_head_scores_numpy_cosines():
    layer = encoder()
    model = sentence_classifier(layer, LABELS, sequence_length=T)
    expected = unit_means(layer.backbone, DOCUMENTS) @ unit_means(layer.backbone, LABELS).T
    np.testing.assert_allclose(model.predict(DOCUMENTS, verbose=0), expected, atol=1e-5)
    assert (
        isinstance(LabelClassifier.from_model(model).head, SentenceMatchHead) and not layer.trainable_weights
    )  # frozen


def fusion(layer):
    return HybridHead(
        [LexicalMatchHead(layer, ignored_ids=(1, 2, 3), name="words"), SentenceMatchHead(layer)],
        label_ids=LABELS,
        standardize=True,
    )


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_the_model_scores_as_its_head_over_the_encoder_and_saves(tmp_path):
    layer = encoder()
    model = sentence_classifier(layer, head=fusion(layer))
    head = LabelClassifier.from_model(model).head
    head.adapt(DOCUMENTS)
    by_hand = fusion(layer)
    by_hand(layer(DOCUMENTS))  # builds it
    by_hand.adapt(DOCUMENTS)
    expected = by_hand(layer(DOCUMENTS))
    np.testing.assert_allclose(model.predict(DOCUMENTS, verbose=0), expected, atol=1e-5)
    assert sorted(w.name for w in model.trainable_weights) == ["bias", "component_weights"]  # the blend alone
    model.save(tmp_path / "fusion.keras")
    loaded = keras.models.load_model(tmp_path / "fusion.keras")
    np.testing.assert_allclose(loaded.predict(DOCUMENTS, verbose=0), expected, atol=1e-5)


def test_heads_that_need_word_vectors_are_refused_by_name():
    layer = encoder()
    with pytest.raises(ValueError, match="`encoder` must be a SentenceEncoder"):
        sentence_classifier(keras.layers.Embedding(16, 8), LABELS)
    with pytest.raises(ValueError, match="`head` must be None or a LabelHead layer. Received: head='sentence'"):
        sentence_classifier(layer, head="sentence")
    with pytest.raises(ValueError, match="pass `label_ids`"):
        sentence_classifier(layer)
    hybrid = HybridHead([GileHead(layer, name="gile"), SentenceMatchHead(layer)], LABELS)
    with pytest.raises(ValueError, match=r"sentence vectors, not word vectors.*need word vectors \['gile'\]"):
        sentence_classifier(layer, head=hybrid)


def test_a_head_layer_brings_its_labels_and_reads_with_the_models_encoder():
    layer = encoder()
    own = SentenceMatchHead(layer, label_ids=LABELS[:2])
    model = sentence_classifier(layer, head=own, sequence_length=T)
    assert model.predict(DOCUMENTS, verbose=0).shape == (len(DOCUMENTS), 2)
    with pytest.raises(ValueError, match=r"brings its own label set.*Received: label_ids with head="):
        sentence_classifier(layer, LABELS, head=SentenceMatchHead(layer, label_ids=LABELS[:2]))
    with pytest.raises(ValueError, match=r"model's own `encoder`.*\['stranger'\]"):
        sentence_classifier(layer, head=SentenceMatchHead(encoder(), label_ids=LABELS, name="stranger"))
    hybrid = HybridHead(
        [LexicalMatchHead(layer, name="words"), SentenceMatchHead(encoder(), name="other")], label_ids=LABELS
    )
    with pytest.raises(ValueError, match=r"\['other'\]"):
        sentence_classifier(layer, head=hybrid)
