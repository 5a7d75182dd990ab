"""Tests of `sampled_label_model`."""

import keras
import numpy as np
import pytest

from keras_labelemb.layers import LinearHead
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models import find_label_head, gile_wan, set_labels, wan
from keras_labelemb.testing import dtype_policy
from keras_labelemb.training import SampledLabelModel, positive_label_indices

NUM_LABELS = 12


def _wan_data(num_labels=NUM_LABELS, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.stack([np.arange(2, 2 + num_labels), np.arange(2 + num_labels, 2 + 2 * num_labels)], 1)
    ids = rng.integers(2, 2 + 2 * num_labels, size=(32, 10)).astype("int32")
    y = np.zeros((32, num_labels), "float32")
    for row, tokens in enumerate(ids):  # a label is on when its first word occurs: learnable
        y[row, np.unique(tokens[tokens < 2 + num_labels]) - 2] = 1.0
    return labels.astype("int32"), ids, y


def test_more_negatives_than_labels_and_wrong_targets_raise_clear_errors():
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
    with pytest.raises(ValueError, match="num_negatives"):
        SampledLabelModel(model, SampledSigmoidLoss(num_negatives=NUM_LABELS + 1)).compile("adam")
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=3))
    with pytest.raises(ValueError, match="loss"):
        trainer.compile("adam", loss="mse")
    trainer.compile("adam")
    with pytest.raises(ValueError, match="multi-hot"):
        trainer.fit(ids, y[:, :5], epochs=1, verbose=0)
    with pytest.raises(ValueError, match="model"):
        SampledLabelModel(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]))


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
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=4, max_positives=12, seed=0))
    trainer.compile(
        keras.optimizers.Adam(0.02),
        # num_labels: built now, not inside the first traced step (TensorFlow traces a step that creates variables
        # twice, and under XLA compiles both).
        metrics=[keras.metrics.AUC(from_logits=True, multi_label=True, num_labels=NUM_LABELS, name="auc")],
        jit_compile=True,
    )
    before = float(trainer.evaluate(ids, y, verbose=0, return_dict=True)["loss"])
    history = trainer.fit(ids, y, batch_size=16, epochs=15, verbose=0).history
    assert set(history) == {"loss", "dropped_positives"}
    assert max(history["dropped_positives"]) == 0
    after = trainer.evaluate(ids, y, verbose=0, return_dict=True)
    assert after["loss"] < 0.8 * before, (before, after)
    assert after["auc"] > 0.8
    np.testing.assert_allclose(
        trainer.predict(ids, verbose=0), model.predict(ids, verbose=0), atol=1e-5
    )  # XLA vs graph


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_dropped_positives_are_reported_when_the_candidate_budget_is_too_small():
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=1, max_positives=1, seed=0))
    trainer.compile("adam")
    history = trainer.fit(ids, y, batch_size=32, epochs=1, verbose=0).history
    assert history["dropped_positives"][0] == np.count_nonzero(y.max(axis=0)) - 1  # one positive slot


def test_mixed_precision_sampled_fit_is_finite():
    labels, ids, y = _wan_data()
    with dtype_policy("mixed_float16"):
        model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
        trainer = SampledLabelModel(model, SampledSigmoidLoss(negative_rate=0.3, seed=0))
        trainer.compile("adam", jit_compile=True)
        loss = trainer.fit(ids, y, batch_size=16, epochs=1, verbose=0).history["loss"][0]
    assert np.isfinite(loss)


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_trainer_and_trained_model_save_and_reload_with_identical_predictions(tmp_path):
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=3, sampler="log_uniform", seed=4))
    trainer.compile("adam")
    trainer.fit(ids, y, epochs=1, verbose=0)
    model.save(tmp_path / "model.keras")
    np.testing.assert_array_equal(
        keras.models.load_model(tmp_path / "model.keras").predict(ids, verbose=0), model.predict(ids, verbose=0)
    )
    trainer.save(tmp_path / "trainer.keras")
    restored = keras.models.load_model(tmp_path / "trainer.keras")
    assert restored.sampled_loss.get_config() == trainer.sampled_loss.get_config()
    np.testing.assert_array_equal(restored.predict(ids, verbose=0), model.predict(ids, verbose=0))


@pytest.mark.parametrize("weighting", ["mean", "unbiased"])
def test_label_indices_train_and_evaluate_exactly_as_multi_hot_targets(weighting):
    labels, ids, y = _wan_data()
    y[3] = 0.0  # a document without positives
    results = {}
    for targets, data in (("multi_hot", y), ("label_indices", positive_label_indices(y))):
        keras.utils.set_random_seed(0)
        model = gile_wan(40, labels, max_tokens=10, units=6, dropout=0.0, joint_dim=6)
        loss = SampledSigmoidLoss(num_negatives=3, max_positives=8, seed=1, weighting=weighting)
        trainer = SampledLabelModel(model, loss, targets=targets)
        trainer.compile(keras.optimizers.SGD(0.5), metrics=[keras.metrics.AUC(from_logits=True, name="auc")])
        history = trainer.fit(ids, data, batch_size=16, epochs=2, shuffle=False, verbose=0).history
        results[targets] = history, trainer.evaluate(ids, data, verbose=0, return_dict=True), model.get_weights()
    (dense_history, dense_eval, dense_weights), (history, evaluation, weights) = results.values()
    assert history == dense_history and max(history["dropped_positives"]) > 0  # 8 slots, more positives
    assert evaluation == pytest.approx(dense_eval, abs=1e-6)
    for dense, indexed in zip(dense_weights, weights):
        np.testing.assert_allclose(indexed, dense, atol=1e-6)


def test_label_indices_are_checked():
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
    with pytest.raises(ValueError, match="targets"):
        SampledLabelModel(model, targets="ids")
    with pytest.raises(ValueError, match="hard"):
        SampledLabelModel(model, SampledSigmoidLoss(num_negatives=3, sampler="hard"), targets="label_indices")
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=3), targets="label_indices")
    trainer.compile("adam", run_eagerly=True)
    indices = positive_label_indices(y)
    indices[0, 0] = NUM_LABELS
    with pytest.raises(ValueError, match=f"\\[0, {NUM_LABELS}\\).*max {NUM_LABELS}"):
        trainer.fit(ids, indices, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="batch, positives"):
        trainer.fit(ids, indices[:, :, None], epochs=1, verbose=0)
    restored = SampledLabelModel.from_config(trainer.get_config())
    assert restored.targets == "label_indices"


def test_set_labels_through_the_trainer_or_its_model_relabels_both():
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, units=6, joint_dim=6)
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=3))
    trainer.compile("adam")
    assert find_label_head(trainer) is find_label_head(model)  # reached twice, one head
    assert trainer.predict(ids, verbose=0).shape == (32, NUM_LABELS)  # compiled with the first label set
    set_labels(model, labels[:5])
    np.testing.assert_allclose(trainer.predict(ids, verbose=0), model.predict(ids, verbose=0), atol=1e-6)
    assert trainer.predict(ids, verbose=0).shape == (32, 5)
    set_labels(trainer, labels[:7])
    assert trainer.predict(ids, verbose=0).shape == model.predict(ids, verbose=0).shape == (32, 7)
    history = trainer.fit(ids, y[:, :7], epochs=1, verbose=0).history
    assert np.isfinite(history["loss"]).all()


@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_every_label_sampled_trains_exactly_as_full_bce_with_sample_weights_and_a_regulariser():
    """All labels sampled is full BCE: same loss history and weights as a plain `fit`, sample weights and the
    wrapped model's regularisation losses included."""
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
            trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=NUM_LABELS, seed=0))
            trainer.compile(keras.optimizers.SGD(0.3))
        else:
            trainer = model
            trainer.compile(keras.optimizers.SGD(0.3), keras.losses.BinaryCrossentropy(from_logits=True))
        history = trainer.fit(ids, y, sample_weight=weights, batch_size=16, epochs=2, shuffle=False, verbose=0)
        results.append((history.history["loss"], model.get_weights()))
    (full_loss, full_weights), (sampled_loss, sampled_weights) = results
    np.testing.assert_allclose(sampled_loss, full_loss, rtol=1e-5)
    for full, sampled in zip(full_weights, sampled_weights):
        np.testing.assert_allclose(sampled, full, atol=1e-5)


def test_positive_label_indices_lists_each_rows_positives_in_label_order():
    y = (np.random.default_rng(3).random((9, 7)) < 0.3).astype("float32")
    y[4] = 0.0
    got = positive_label_indices(y)
    assert got.shape == (9, int(y.sum(axis=1).max())) and got.dtype == np.int32
    for row, labels in zip(got, y):
        assert (
            row[row >= 0].tolist() == np.flatnonzero(labels).tolist()
            and (row[len(np.flatnonzero(labels)) :] == -1).all()
        )
    assert positive_label_indices(np.zeros((2, 3))).tolist() == [[-1], [-1]]
    with pytest.raises(ValueError, match="multi_hot"):
        positive_label_indices(np.zeros(3))
