"""LabelClassifier.from_model: a Keras model built from layers, as the task (cut once at its head)."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, LexicalMatchHead, WideHead
from keras_labelemb.models import document_classifier, gile_wan, wan
from keras_labelemb.tasks import LabelClassifier

LABEL_IDS = np.array([[2, 3], [4, 0], [5, 6]], "int32")
IDS = np.random.default_rng(0).integers(1, 30, (6, 6)).astype("int32")
TARGETS = np.eye(3, dtype="float32")[[0, 1, 2, 0, 1, 2]]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_the_task_scores_as_the_model_trains_its_weights_and_round_trips(tmp_path):
    keras.utils.set_random_seed(0)
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    classifier = LabelClassifier.from_model(model, labels=["grain", "rates", "gold"])
    np.testing.assert_allclose(classifier.predict(IDS), sigmoid(model.predict(IDS, verbose=0)), atol=1e-6)
    before = keras.ops.convert_to_numpy(model.weights[0]).copy()
    classifier.fit(IDS, TARGETS, validation_data=(IDS, TARGETS), epochs=2, verbose=0)
    assert not np.array_equal(keras.ops.convert_to_numpy(model.weights[0]), before)  # the model's own weights
    np.testing.assert_allclose(classifier.predict(IDS), sigmoid(model.predict(IDS, verbose=0)), atol=1e-6)
    assert classifier.threshold_mode in ("per_label", "global")
    assert all(set(names) <= {"grain", "rates", "gold"} for names in classifier.predict_labels(IDS))
    classifier.save(tmp_path / "cut.keras")
    loaded = keras.saving.load_model(tmp_path / "cut.keras")
    assert loaded.cut_from_model and loaded.label_names == ["grain", "rates", "gold"]
    np.testing.assert_allclose(loaded.predict(IDS), classifier.predict(IDS), atol=1e-6)
    np.testing.assert_array_equal(loaded.thresholds, classifier.thresholds)


def test_a_wide_and_deep_model_reads_its_dict_of_inputs_and_a_linear_one_is_named():
    embedding = keras.layers.Embedding(30, 8, mask_zero=True)
    head = HybridHead([GileHead(embedding, joint_dim=3), LexicalMatchHead(embedding), WideHead(3)], LABEL_IDS)
    model = document_classifier(HierarchicalAttention("dense", 4, flat=True), head, max_tokens=6, num_features=5)
    classifier = LabelClassifier.from_model(model)
    x = {"token_ids": IDS, "features": np.random.default_rng(1).random((6, 5)).astype("float32")}
    np.testing.assert_allclose(classifier.predict(x), sigmoid(model.predict(x, verbose=0)), atol=1e-6)
    assert classifier.label_names == ["label_0", "label_1", "label_2"]
    linear = LabelClassifier.from_model(wan(30, 4, max_tokens=6, units=4), multi_label=False)
    assert np.allclose(linear.predict(IDS).sum(axis=1), 1.0, atol=1e-5)  # softmax


def test_what_cannot_be_cut_says_why():
    with pytest.raises(ValueError, match="has no label head"):
        LabelClassifier.from_model(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]))
    with pytest.raises(ValueError, match="must be a keras.Model"):
        LabelClassifier.from_model("gile_wan")
    model = gile_wan(30, LABEL_IDS, max_tokens=6, units=4, joint_dim=4)
    with pytest.raises(ValueError, match="as many `labels` names"):
        LabelClassifier.from_model(model, labels=["grain", "rates"])
    with pytest.raises(ValueError, match="only output"):
        two = keras.Model(model.inputs, [model.output, model.output])
        LabelClassifier.from_model(two)


def test_with_a_preprocessor_it_reads_raw_strings_and_relabels_from_descriptions():
    from keras_labelemb.tasks import LabelClassifierPreprocessor
    from keras_labelemb.text import TextVectorizer

    texts = ["wheat prices rose", "the bank cut rates", "gold mines closed"]
    vectorizer = TextVectorizer(max_tokens=6)
    vectorizer.adapt(texts + ["grain harvest", "interest"])
    labels = {"grain": "wheat grain harvest", "rates": "bank interest rates"}
    model = gile_wan(vectorizer.vocabulary_size, vectorizer.encode_labels(list(labels.values()), 4), max_tokens=6)
    classifier = LabelClassifier.from_model(model, LabelClassifierPreprocessor(vectorizer), labels=labels)
    ids = vectorizer(np.array(texts)).numpy()
    np.testing.assert_allclose(classifier.predict(texts), sigmoid(model.predict(ids, verbose=0)), atol=1e-6)
    classifier.set_labels({"gold": "gold mines"})  # zero-shot, from the string
    assert classifier.predict(texts).shape == (3, 1)


def test_a_cnle_model_as_the_task_trains_by_teacher_forcing_and_predicts_decoded_sets():
    from keras_labelemb.models import cnle

    keras.utils.set_random_seed(0)
    model = cnle(30, LABEL_IDS, max_tokens=6, max_steps=3, model_dim=8, num_heads=2, attention_dim=4)
    classifier = LabelClassifier.from_model(model, labels=["grain", "rates", "gold"])
    history = classifier.fit(IDS, TARGETS, validation_data=(IDS, TARGETS), epochs=2, verbose=0)
    assert "val_decoded_micro_f1" in history.history and np.isfinite(history.history["loss"]).all()
    sets = classifier.predict(IDS)
    assert set(np.unique(sets)) <= {0.0, 1.0}  # decoded sets, not scores
    np.testing.assert_array_equal(sets, model.predict(IDS, verbose=0))
    names = classifier.predict_labels(IDS)
    assert names == [[n for n, on in zip(classifier.label_names, row) if on] for row in sets]
    with pytest.raises(ValueError, match="no thresholds to tune"):
        classifier.tune_thresholds(IDS, TARGETS)
