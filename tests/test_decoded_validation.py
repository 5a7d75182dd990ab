"""DecodedValidation: the decoded label sets' validation score in the logs, Keras' EarlyStopping on it."""

import keras
import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from keras_labelemb.models import cnle
from keras_labelemb.training import DecodedValidation
from keras_labelemb.training.decoded_validation import decoded_set_scores

LABEL_WORDS = np.array([[2, 3], [4, 0], [5, 6]])


def test_decoded_set_scores_equal_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = (rng.random((40, 5)) < 0.3).astype("float32")
    decoded = (rng.random((40, 5)) < 0.3).astype("float32")
    scores = decoded_set_scores(y_true, decoded)
    assert scores["micro_f1"] == pytest.approx(f1_score(y_true, decoded, average="micro"))
    assert scores["accuracy"] == pytest.approx(accuracy_score(y_true, decoded))  # subset accuracy
    # One label per document: accuracy is the ordinary one.
    classes, predicted = rng.integers(0, 4, 30), rng.integers(0, 4, 30)
    one_hot = decoded_set_scores(np.eye(4)[classes], np.eye(4)[predicted])
    assert one_hot["accuracy"] == pytest.approx(np.mean(classes == predicted))


def test_decoded_set_scores_edge_cases_and_errors():
    assert decoded_set_scores(np.zeros((3, 2)), np.zeros((3, 2))) == {"micro_f1": 0.0, "accuracy": 1.0}
    assert decoded_set_scores(np.zeros((0, 2)), np.zeros((0, 2))) == {"micro_f1": 0.0, "accuracy": 0.0}
    with pytest.raises(ValueError, match=r"\(3, 2\) and \(3, 3\)"):
        decoded_set_scores(np.zeros((3, 2)), np.zeros((3, 3)))


def small_task():
    rng = np.random.default_rng(1)
    ids = rng.integers(1, 20, (24, 6)).astype("int32")
    targets = np.eye(3, dtype="float32")[ids[:, 0] % 3]
    return ids, targets


def thresholded_model(seed=0):
    """`(scorer, decoder)`: a trainable linear scorer and a model sharing it that predicts multi-hot sets."""
    keras.utils.set_random_seed(seed)
    scorer = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
    scorer.compile(keras.optimizers.Adam(0.05), keras.losses.BinaryCrossentropy(from_logits=True))
    sets = keras.layers.Lambda(lambda t: keras.ops.cast(t > 0, "float32"))(scorer.outputs[0])
    return scorer, keras.Model(scorer.inputs, sets)


def test_decoded_validation_logs_the_decoded_score_and_restores_the_best_epoch():
    x = np.random.default_rng(0).normal(size=(64, 5)).astype("float32")
    y = (x[:, :3] > 0.3).astype("float32")
    scorer, decoder = thresholded_model()
    callback = DecodedValidation(decoder, x, y, patience=None)
    history = scorer.fit(x, y, epochs=6, verbose=0, callbacks=[callback])
    curve = history.history["val_decoded_micro_f1"]
    assert len(history.history["val_decoded_accuracy"]) == 6
    assert callback.best_score == pytest.approx(max(curve))
    assert callback.best_epoch == int(np.argmax(curve))
    # The trained model holds the best epoch's weights: the decoder, sharing them, gives the best score now.
    now = decoded_set_scores(y, decoder.predict(x, verbose=0))["micro_f1"]
    assert now == pytest.approx(callback.best_score)


def test_decoded_validation_checks_its_arguments():
    ids, targets = small_task()
    model = cnle(
        20,
        LABEL_WORDS,
        max_tokens=6,
        max_steps=2,
        model_dim=8,
        num_heads=2,
        attention_dim=4,
        embedding_dim=6,
    )
    with pytest.raises(ValueError, match="metric='f1'"):
        DecodedValidation(model, ids, targets, metric="f1")
    with pytest.raises(ValueError, match="patience"):
        DecodedValidation(model, ids, targets, patience=-1)
    with pytest.raises(ValueError, match="model="):
        DecodedValidation("model", ids, targets)
    assert DecodedValidation(model, ids, targets, metric="accuracy").monitor == "val_decoded_accuracy"
