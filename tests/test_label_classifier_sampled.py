"""A `LabelClassifier` compiled with `SampledSigmoidLoss` trains on sampled labels and scores all of them.

Raw strings (a preset) and models you built (`LabelClassifier.from_model`), fed token ids: multi-hot targets,
positive label indices (`SampledSigmoidLoss(targets="label_indices")`) or label names.
"""

import keras
import numpy as np
import pytest
from task_helpers import LABELS, NEW_LABELS, texts_and_targets

from keras_labelemb.layers import LinearHead
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.losses.sampled_sigmoid_loss import checked_indices, multi_hot_from_indices
from keras_labelemb.models import gile_wan, wan
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.tasks.sampled_step import positive_label_indices
from keras_labelemb.testing.dtype_policy import dtype_policy

SMALL = {"embedding_dim": 8, "max_tokens": 16, "description_length": 4}
NUM_LABELS = 12
NAMES = [f"topic_{i}" for i in range(NUM_LABELS)]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _wan_data(num_labels=NUM_LABELS, seed=0, documents=32):
    rng = np.random.default_rng(seed)
    labels = np.stack([np.arange(2, 2 + num_labels), np.arange(2 + num_labels, 2 + 2 * num_labels)], 1)
    ids = rng.integers(2, 2 + 2 * num_labels, size=(documents, 10)).astype("int32")
    y = np.zeros((documents, num_labels), "float32")
    for row, tokens in enumerate(ids):  # a label is on when its first word occurs: learnable
        y[row, np.unique(tokens[tokens < 2 + num_labels]) - 2] = 1.0
    return labels.astype("int32"), ids, y


def _small_gile_wan(labels, **kwargs):
    return gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6, **kwargs)


# -- raw strings -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_sampled_training_logs_its_loss_and_the_step_matches_the_classifier_fed_ids():
    texts, targets = texts_and_targets(32)
    classifier = LabelClassifier.from_preset("gile_wan", labels=LABELS, **SMALL)
    classifier.adapt(texts)
    classifier.compile(keras.optimizers.SGD(0.0), loss=SampledSigmoidLoss(num_negatives=2, max_positives=4, seed=3))
    history = classifier.fit(texts, targets, epochs=1, batch_size=32, shuffle=False, verbose=0)
    assert set(history.history) == {"loss", "dropped_positives"}
    # The same step on the same encoder and head, fed the preprocessor's ids: a model you built, cut at its head.
    ids = keras.ops.convert_to_numpy(classifier.preprocessor(texts))
    model = keras.Sequential([keras.Input(ids.shape[1:], dtype="int32"), classifier.encoder, classifier.head])
    fed_ids = LabelClassifier.from_model(model, labels=list(LABELS))
    fed_ids.compile(keras.optimizers.SGD(0.0), loss=SampledSigmoidLoss(num_negatives=2, max_positives=4, seed=3))
    fed = fed_ids.fit(ids, targets, epochs=1, batch_size=32, shuffle=False, verbose=0).history
    np.testing.assert_allclose(history.history["loss"][0], fed["loss"][0], rtol=1e-4)  # float32 sums in another order
    assert fed["dropped_positives"] == history.history["dropped_positives"]


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


@pytest.mark.slow
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_relabelled_after_compile_the_classifier_trains_on_the_new_label_set():
    """`set_labels` after `compile(loss=SampledSigmoidLoss(...))`: the sampled step scores the new labels."""
    texts, targets = texts_and_targets(16)
    classifier = LabelClassifier.from_preset("gile_wan", labels=LABELS, **SMALL)
    classifier.adapt(texts)
    classifier.compile(keras.optimizers.Adam(1e-2), loss=SampledSigmoidLoss(num_negatives=1, max_positives=4, seed=0))
    classifier.fit(texts, targets, epochs=1, batch_size=8, verbose=0)
    assert classifier.predict(texts).shape == (16, len(LABELS))
    classifier.set_labels(NEW_LABELS)
    assert classifier.predict(texts).shape == (16, len(NEW_LABELS)) and classifier.head.num_labels == 3
    new_targets = [["grain"] if "grain" in names else ["gold", "jobs"] for names in targets]
    before = [w.copy() for w in classifier.get_weights()]
    history = classifier.fit(texts, new_targets, epochs=1, batch_size=8, verbose=0).history
    assert np.isfinite(history["loss"]).all() and history["dropped_positives"] == [0.0]
    assert any(not np.array_equal(a, b) for a, b in zip(before, classifier.get_weights()))
    assert set(classifier.evaluate(texts, new_targets, return_dict=True, verbose=0)) >= {"loss", "micro_f1"}
    with pytest.raises(ValueError, match="names a label the classifier does not have"):
        classifier.fit(texts, targets, epochs=1, verbose=0)  # "interest" is gone


# -- a model you built, fed token ids ----------------------------------------------------------------------


def test_more_negatives_than_labels_and_targets_of_another_width_raise_clear_errors():
    labels, ids, y = _wan_data()
    too_many = LabelClassifier.from_model(_small_gile_wan(labels))
    too_many.compile("adam", loss=SampledSigmoidLoss(num_negatives=NUM_LABELS + 1))
    with pytest.raises(ValueError, match="num_negatives"):
        too_many.fit(ids, y, epochs=1, verbose=0)
    classifier = LabelClassifier.from_model(_small_gile_wan(labels))
    classifier.compile("adam", loss=SampledSigmoidLoss(num_negatives=3))
    with pytest.raises(ValueError, match=rf"one column per label \({NUM_LABELS}\).*\(32, 5\)"):
        classifier.fit(ids, y[:, :5], epochs=1, verbose=0)


@pytest.mark.slow  # 6-7 s per head on 2 cores: XLA-compiled sampled fit
@pytest.mark.parametrize("head", ["gile", "linear"])
def test_sampled_fit_under_xla_learns_and_evaluates_every_label(head):
    labels, ids, y = _wan_data()
    keras.utils.set_random_seed(0)
    prior = float(np.log(y.mean() / (1 - y.mean())))  # these documents carry ~40% of the labels, not ~1
    if head == "linear":
        model = wan(40, NUM_LABELS, max_tokens=10, units=16, bias_initializer=keras.initializers.Constant(prior))
    else:
        model = gile_wan(
            40, labels, max_tokens=10, units=16, joint_dim=16, bias_initializer=keras.initializers.Constant(prior)
        )
    classifier = LabelClassifier.from_model(model)
    classifier.compile(
        keras.optimizers.Adam(0.02),
        loss=SampledSigmoidLoss(num_negatives=4, max_positives=12, seed=0),
        # num_labels: built now, not inside the first traced step (TensorFlow traces a step that creates variables
        # twice, and under XLA compiles both).
        metrics=[keras.metrics.AUC(from_logits=True, multi_label=True, num_labels=NUM_LABELS, name="auc")],
        jit_compile=True,
    )
    before = float(classifier.evaluate(ids, y, verbose=0, return_dict=True)["loss"])
    history = classifier.fit(ids, y, batch_size=16, epochs=15, verbose=0).history
    assert set(history) == {"loss", "dropped_positives"}
    assert max(history["dropped_positives"]) == 0
    after = classifier.evaluate(ids, y, verbose=0, return_dict=True)
    assert after["loss"] < 0.8 * before, (before, after)
    assert after["auc"] > 0.8
    # XLA vs graph: the classifier's probabilities are the sigmoid of the model's logits (one set of weights).
    np.testing.assert_allclose(classifier.predict(ids), sigmoid(model.predict(ids, verbose=0)), atol=1e-5)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_dropped_positives_are_reported_when_the_candidate_budget_is_too_small():
    labels, ids, y = _wan_data()
    classifier = LabelClassifier.from_model(_small_gile_wan(labels))
    classifier.compile("adam", loss=SampledSigmoidLoss(num_negatives=1, max_positives=1, seed=0))
    history = classifier.fit(ids, y, batch_size=32, epochs=1, verbose=0).history
    assert history["dropped_positives"][0] == np.count_nonzero(y.max(axis=0)) - 1  # one positive slot


def test_mixed_precision_sampled_fit_is_finite():
    labels, ids, y = _wan_data()
    with dtype_policy("mixed_float16"):
        classifier = LabelClassifier.from_model(_small_gile_wan(labels))
        classifier.compile("adam", loss=SampledSigmoidLoss(negative_rate=0.3, seed=0), jit_compile=True)
        loss = classifier.fit(ids, y, batch_size=16, epochs=1, verbose=0).history["loss"][0]
    assert np.isfinite(loss)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_the_classifier_and_its_model_save_and_reload_with_identical_predictions(tmp_path):
    labels, ids, y = _wan_data()
    model = _small_gile_wan(labels)
    classifier = LabelClassifier.from_model(model, labels=NAMES)
    loss = SampledSigmoidLoss(num_negatives=3, sampler="log_uniform", seed=4, targets="label_indices")
    classifier.compile("adam", loss=loss)
    before = [w.copy() for w in model.get_weights()]
    classifier.fit(ids, y, epochs=1, verbose=0)
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))  # the model's own weights
    model.save(tmp_path / "model.keras")
    np.testing.assert_array_equal(
        keras.saving.load_model(tmp_path / "model.keras").predict(ids, verbose=0), model.predict(ids, verbose=0)
    )
    classifier.save(tmp_path / "classifier.keras")
    restored = keras.saving.load_model(tmp_path / "classifier.keras")
    assert isinstance(restored, LabelClassifier) and restored.label_names == NAMES
    # The compile config is not saved (the task's `compile` is its own): the loss round-trips through its config.
    assert SampledSigmoidLoss.from_config(loss.get_config()).get_config() == loss.get_config()
    assert loss.get_config()["targets"] == "label_indices"
    np.testing.assert_array_equal(restored.predict(ids), classifier.predict(ids))
    np.testing.assert_allclose(restored.predict(ids), sigmoid(model.predict(ids, verbose=0)), atol=1e-6)


@pytest.mark.parametrize("weighting", ["mean", "unbiased"])
def test_label_indices_train_and_evaluate_exactly_as_multi_hot_targets(weighting):
    labels, ids, y = _wan_data()
    y[3] = 0.0  # a document without positives
    results = {}
    for targets, data in (("multi_hot", y), ("label_indices", positive_label_indices(y))):
        keras.utils.set_random_seed(0)
        model = _small_gile_wan(labels, dropout=0.0)
        classifier = LabelClassifier.from_model(model)
        loss = SampledSigmoidLoss(num_negatives=3, max_positives=8, seed=1, weighting=weighting, targets=targets)
        classifier.compile(
            keras.optimizers.SGD(0.5), loss=loss, metrics=[keras.metrics.AUC(from_logits=True, name="auc")]
        )
        history = classifier.fit(ids, data, batch_size=16, epochs=2, shuffle=False, verbose=0).history
        results[targets] = history, classifier.evaluate(ids, data, verbose=0, return_dict=True), model.get_weights()
    (dense_history, dense_eval, dense_weights), (history, evaluation, weights) = results.values()
    assert history == dense_history and max(history["dropped_positives"]) > 0  # 8 slots, more positives
    assert set(evaluation) == {"loss", "auc"}
    assert evaluation == pytest.approx(dense_eval, abs=1e-6)
    for dense, indexed in zip(dense_weights, weights):
        np.testing.assert_allclose(indexed, dense, atol=1e-6)


def _trained(labels, ids, targets, loss_targets, **fit_options):
    """History and weights of a small GILE-WAN cut at its head, trained on `targets` with the sampled loss."""
    keras.utils.set_random_seed(0)
    model = _small_gile_wan(labels, dropout=0.0)
    classifier = LabelClassifier.from_model(model, labels=NAMES)
    loss = SampledSigmoidLoss(num_negatives=3, max_positives=8, seed=1, targets=loss_targets)
    classifier.compile(keras.optimizers.SGD(0.5), loss=loss, metrics=[])
    history = classifier.fit(ids, targets, shuffle=False, verbose=0, **fit_options).history
    return history, model.get_weights()


def test_label_names_as_targets_train_exactly_as_multi_hot_rows():
    labels, ids, y = _wan_data()
    y[5] = 0.0  # a document without labels: an empty list
    names = [[NAMES[i] for i in np.flatnonzero(row)] for row in y]
    names[0] = NAMES[int(np.flatnonzero(y[0])[0])]  # one name alone, not in a list
    y[0] = 0.0
    y[0, NAMES.index(names[0])] = 1.0
    expected_history, expected_weights = _trained(labels, ids, y, "multi_hot", batch_size=16, epochs=2)
    for given, loss_targets in ((names, "label_indices"), (y, "label_indices"), (names, "multi_hot")):
        history, weights = _trained(labels, ids, given, loss_targets, batch_size=16, epochs=2)
        assert history == expected_history, loss_targets
        for expected, got in zip(expected_weights, weights):
            np.testing.assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("jit_compile", [False, True], ids=["graph", "xla"])
def test_a_partial_last_batch_trains_on_label_indices_as_on_multi_hot_rows(jit_compile):
    """20 documents in batches of 8: the last step's batch (4) is not the traced one's, and the step still runs."""
    labels, ids, y = _wan_data(documents=20)
    runs = {}
    for loss_targets, targets in (("multi_hot", y), ("label_indices", positive_label_indices(y))):
        keras.utils.set_random_seed(0)
        model = _small_gile_wan(labels, dropout=0.0)
        classifier = LabelClassifier.from_model(model)
        loss = SampledSigmoidLoss(num_negatives=3, max_positives=12, seed=1, targets=loss_targets)
        classifier.compile(keras.optimizers.SGD(0.5), loss=loss, metrics=[], jit_compile=jit_compile)
        history = classifier.fit(ids, targets, batch_size=8, epochs=2, shuffle=False, verbose=0).history
        runs[loss_targets] = history, model.get_weights()
    (dense_history, dense_weights), (history, weights) = runs.values()
    assert np.isfinite(history["loss"]).all() and history["dropped_positives"] == [0.0, 0.0]
    np.testing.assert_allclose(history["loss"], dense_history["loss"], rtol=1e-6)
    for dense, indexed in zip(dense_weights, weights):
        np.testing.assert_allclose(indexed, dense, atol=1e-6)


def test_label_indices_are_checked():
    labels, ids, y = _wan_data()
    with pytest.raises(ValueError, match="targets"):
        SampledSigmoidLoss(num_negatives=3, targets="ids")
    with pytest.raises(ValueError, match="hard"):
        SampledSigmoidLoss(num_negatives=3, sampler="hard", targets="label_indices")
    classifier = LabelClassifier.from_model(_small_gile_wan(labels))
    classifier.compile("adam", loss=SampledSigmoidLoss(num_negatives=3, targets="label_indices"), run_eagerly=True)
    indices = positive_label_indices(y)
    indices[0, 0] = NUM_LABELS
    with pytest.raises(ValueError, match=rf"\[0, {NUM_LABELS}\).*max {NUM_LABELS}"):
        classifier.fit(ids, indices, epochs=1, verbose=0)
    indices[0, 0] = -2
    with pytest.raises(ValueError, match=r"\[0, 12\).*min -2"):
        classifier.evaluate(ids, indices, verbose=0)
    with pytest.raises(ValueError, match="positives"):
        classifier.fit(ids, indices[:, :, None], epochs=1, verbose=0)
    with pytest.raises(ValueError, match="one target per text"):
        classifier.fit(ids, positive_label_indices(y)[:5], epochs=1, verbose=0)
    with pytest.raises(ValueError, match="names a label the classifier does not have"):
        classifier.fit(ids, [["label_0"]] * 31 + [["gold"]], epochs=1, verbose=0)
    restored = SampledSigmoidLoss.from_config(classifier.sampled_loss.get_config())
    assert restored.targets == "label_indices"


def test_the_index_helpers_check_and_convert_like_the_step():
    y = (np.random.default_rng(5).random((6, 9)) < 0.4).astype("float32")
    indices = positive_label_indices(y)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(multi_hot_from_indices(indices, 9)), y)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(checked_indices(indices, 9)), indices)
    with pytest.raises(ValueError, match=r"\[0, 9\).*max 9"):
        checked_indices(np.array([[0, 9]], "int32"), 9)
    with pytest.raises(ValueError, match="batch, positives"):
        checked_indices(np.array([0, 1], "int32"), 9)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_every_label_sampled_trains_exactly_as_full_bce_with_sample_weights_and_a_regulariser():
    """All labels sampled is full BCE: same loss history and weights as a plain `fit`, sample weights and the
    model's regularisation losses included."""
    _, ids, y = _wan_data()
    weights = np.linspace(0.2, 2.0, len(ids)).astype("float32")
    results = []
    for sampled in (False, True):
        keras.utils.set_random_seed(0)
        inputs = keras.Input((10,), dtype="int32")
        words = keras.layers.Embedding(40, 6, embeddings_regularizer=keras.regularizers.L2(0.01))(inputs)
        head = LinearHead(NUM_LABELS, kernel_regularizer=keras.regularizers.L2(0.01))
        model = keras.Model(inputs, head(keras.layers.GlobalAveragePooling1D()(words)))
        if sampled:
            trainer = LabelClassifier.from_model(model)
            trainer.compile(keras.optimizers.SGD(0.3), loss=SampledSigmoidLoss(num_negatives=NUM_LABELS, seed=0))
        else:
            trainer = model
            trainer.compile(keras.optimizers.SGD(0.3), keras.losses.BinaryCrossentropy(from_logits=True))
        history = trainer.fit(ids, y, sample_weight=weights, batch_size=16, epochs=2, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    (full_loss, full_weights), (sampled_loss, sampled_weights) = results
    np.testing.assert_allclose(sampled_loss, full_loss, rtol=1e-5)
    for full, sampled in zip(full_weights, sampled_weights):
        np.testing.assert_allclose(sampled, full, atol=1e-5)
