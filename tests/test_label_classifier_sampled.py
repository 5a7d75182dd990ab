"""A `LabelClassifier` compiled with `SampledSigmoidLoss` trains on sampled labels and scores all of them."""

import keras
import numpy as np
import pytest
from task_helpers import LABELS, texts_and_targets

from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.tasks import LabelClassifier

SMALL = {"embedding_dim": 8, "max_tokens": 16, "description_length": 4}


@pytest.mark.slow
def test_sampled_training_logs_its_loss_and_the_step_matches_the_sampled_label_model():
    from keras_labelemb.training.sampled_label_model import SampledLabelModel  # the wrapper it replaces

    texts, targets = texts_and_targets(32)
    classifier = LabelClassifier.from_preset("gile_wan", labels=LABELS, **SMALL)
    classifier.adapt(texts)
    classifier.compile(keras.optimizers.SGD(0.0), loss=SampledSigmoidLoss(num_negatives=2, max_positives=4, seed=3))
    history = classifier.fit(texts, targets, epochs=1, batch_size=32, shuffle=False, verbose=0)
    assert set(history.history) == {"loss", "dropped_positives"}
    # The same step through the wrapper on the same encoder and head: one function computes both losses.
    ids = classifier.preprocessor(texts).numpy()
    model = keras.Sequential([keras.Input(ids.shape[1:], dtype="int32"), classifier.encoder, classifier.head])
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=2, max_positives=4, seed=3))
    trainer.compile(keras.optimizers.SGD(0.0))
    y = classifier._targets(targets, len(texts))
    wrapped = trainer.fit(ids, y, epochs=1, batch_size=32, shuffle=False, verbose=0).history["loss"][0]
    np.testing.assert_allclose(history.history["loss"][0], wrapped, rtol=1e-4)  # float32 sums in another order


@pytest.mark.slow
def test_sampled_training_moves_the_weights_and_evaluate_scores_every_label():
    texts, targets = texts_and_targets(32)
    classifier = LabelClassifier.from_preset("gile_wan", labels=LABELS, **SMALL)
    classifier.adapt(texts)
    classifier.compile(keras.optimizers.Adam(1e-2), loss=SampledSigmoidLoss(num_negatives=1, seed=0))
    before = [w.copy() for w in classifier.get_weights()]
    classifier.fit(texts, targets, epochs=2, batch_size=8, verbose=0)
    assert any(not np.array_equal(a, b) for a, b in zip(before, classifier.get_weights()))
    logs = classifier.evaluate(texts, targets, return_dict=True, verbose=0)
    assert {"loss", "micro_f1"} <= set(logs) and np.isfinite(logs["loss"])
    assert classifier.predict(texts).shape == (32, len(LABELS))


def test_a_single_label_classifier_refuses_the_sampled_loss():
    classifier = LabelClassifier.from_preset("wan", labels=LABELS, multi_label=False, **SMALL)
    with pytest.raises(ValueError, match="single-label"):
        classifier.compile(loss=SampledSigmoidLoss(num_negatives=2))
