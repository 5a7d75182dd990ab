"""SampledSigmoidLoss and SampledLabelModel: sampled training equals full BCE in the limit,
keeps every positive, is unbiased when asked, compiles under XLA and is seeded."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.layers import GileHead, LinearHead
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models import gile_wan, wan
from keras_labelemb.training import SampledLabelModel

NUM_LABELS = 12


def _head(variant="gile", num_labels=NUM_LABELS, seed=0):
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    labels = rng.integers(1, 30, size=(num_labels, 3)).astype("int32")
    labels[:, 2] = 0
    embedding = keras.layers.Embedding(30, 5, mask_zero=True)
    if variant == "linear":
        head = LinearHead(num_labels)
    else:
        head = GileHead(embedding=embedding, label_ids=labels, joint_dim=6, variant=variant)
    head.build((None, 4))
    return head


def _targets(rng, batch=6, num_labels=NUM_LABELS, rate=0.2):
    y = (rng.random((batch, num_labels)) < rate).astype("float32")
    y[0] = 0.0  # a document without positives
    return y


def _full_bce(y, logits):
    logits = np.asarray(logits, "float64")
    return np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))


@pytest.mark.parametrize("variant", ["gile", "bilinear", "only_label", "linear"])
def test_score_subset_equals_the_matching_columns_of_the_full_scores(variant):
    head = _head(variant)
    h = np.random.default_rng(1).normal(size=(3, 4)).astype("float32")
    indices = np.array([7, 0, 11, 3])
    np.testing.assert_allclose(head.score_subset(h, indices), np.asarray(head(h))[:, indices], rtol=1e-5, atol=1e-6)


def test_score_subset_rejects_out_of_range_label_indices():
    head = _head()
    with pytest.raises(ValueError, match="label_indices"):
        head.score_subset(np.zeros((2, 4), "float32"), np.array([0, NUM_LABELS]))


@pytest.mark.parametrize("weighting", ["mean", "unbiased"])
def test_sampling_every_negative_gives_full_bce_and_its_gradients(weighting):
    head = _head()
    rng = np.random.default_rng(2)
    y = _targets(rng)
    h = tf.Variable(rng.normal(size=(6, 4)).astype("float32"))
    loss = SampledSigmoidLoss(num_negatives=NUM_LABELS, weighting=weighting, max_positives=4, seed=3)

    with tf.GradientTape(persistent=True) as tape:
        full = loss(y, head(h))
        candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, NUM_LABELS)
        sampled = loss.sampled_loss(y, head.score_subset(h, candidates), candidates, keep, num_positive, NUM_LABELS)
    assert sorted(np.asarray(candidates).tolist()) == list(range(NUM_LABELS))
    assert np.asarray(keep).all()
    np.testing.assert_allclose(float(sampled), float(full), rtol=1e-6)
    np.testing.assert_allclose(float(full), _full_bce(y, head(h)), rtol=1e-5)
    variables = [h] + head.trainable_variables
    for full_grad, sampled_grad in zip(tape.gradient(full, variables), tape.gradient(sampled, variables)):
        full_grad, sampled_grad = tf.convert_to_tensor(full_grad), tf.convert_to_tensor(sampled_grad)
        assert float(tf.reduce_max(tf.abs(full_grad))) > 0, "no gradient reached a weight"
        np.testing.assert_allclose(sampled_grad, full_grad, rtol=1e-4, atol=1e-7)


def test_every_positive_is_a_candidate_and_the_negatives_are_distinct_draws():
    rng = np.random.default_rng(4)
    loss = SampledSigmoidLoss(num_negatives=5, max_positives=40, seed=0)
    counted, expected = [], []
    for _ in range(50):
        y = _targets(rng, batch=8, num_labels=60, rate=0.05)
        candidates, keep, num_positive = (np.asarray(t) for t in loss.label_sampler.sample_candidates(y, 60))
        assert candidates.shape == keep.shape == (40 + 5,)  # fixed shapes
        positives = set(np.flatnonzero(y.max(axis=0)))
        kept = candidates[keep].tolist()
        assert positives <= set(kept)
        assert int(num_positive) == len(positives)
        negatives = [j for j in kept if j not in positives]
        assert len(negatives) == len(set(negatives)) <= 5  # a set: no label counts twice
        assert len(kept) == len(positives) + len(negatives)
        counted.append(len(negatives))
        expected.append((60 - len(positives)) * (1 - (59 / 60) ** 5))  # distinct non-positive labels among 5 draws
    assert abs(np.mean(counted) - np.mean(expected)) < 0.4, (np.mean(counted), np.mean(expected))


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform"])
def test_unbiased_weighting_estimates_the_full_loss(sampler):
    rng = np.random.default_rng(5)
    num_labels, batch = 50, 4
    y = _targets(rng, batch=batch, num_labels=num_labels, rate=0.1)
    logits = rng.normal(scale=2.0, size=(batch, num_labels)).astype("float32")
    loss = SampledSigmoidLoss(num_negatives=6, weighting="unbiased", sampler=sampler, max_positives=20, seed=7)
    draws = []
    for _ in range(1500):
        candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, num_labels)
        draws.append(
            float(loss.sampled_loss(y, np.take(logits, candidates, axis=1), candidates, keep, num_positive, num_labels))
        )
    draws = np.array(draws)
    full = _full_bce(y, logits)
    standard_error = draws.std() / np.sqrt(len(draws))
    assert draws.std() > 0  # the estimate does vary with the draw
    assert abs(draws.mean() - full) < 4 * standard_error, (draws.mean(), full, standard_error)
    # The plain mean over candidates is not: with confident positives it is off by many standard errors.
    confident = np.where(y > 0, 6.0, logits).astype("float32")
    mean_loss = SampledSigmoidLoss(num_negatives=6, max_positives=20, seed=7)
    biased = [
        float(mean_loss.sampled_loss(y, np.take(confident, c, axis=1), c, k, p, num_labels))
        for c, k, p in (mean_loss.label_sampler.sample_candidates(y, num_labels) for _ in range(200))
    ]
    assert abs(np.mean(biased) - _full_bce(y, confident)) > 6 * np.std(biased) / np.sqrt(len(biased))


def test_same_seed_same_negatives_and_different_seed_different_negatives():
    y = np.zeros((2, 100), "float32")
    y[0, 3] = 1

    def draws(seed):
        loss = SampledSigmoidLoss(num_negatives=10, max_positives=4, seed=seed)
        return [np.asarray(loss.label_sampler.sample_candidates(y, 100)[0]).tolist() for _ in range(3)]

    first, again, other = draws(11), draws(11), draws(12)
    assert first == again
    assert first != other
    assert first[0] != first[1]  # the generator advances between steps


def test_frequency_sampler_prefers_frequent_labels_and_hard_sampler_takes_top_scores():
    y = np.zeros((1, 20), "float32")
    counts = np.ones(20)
    counts[:3] = 200.0
    loss = SampledSigmoidLoss(num_negatives=3, sampler="frequency", label_frequencies=counts, max_positives=1, seed=0)
    hits = np.zeros(20)
    for _ in range(200):
        candidates, keep, _ = loss.label_sampler.sample_candidates(y, 20)
        hits[np.asarray(candidates)[np.asarray(keep)]] += 1
    assert hits[:3].mean() > 5 * hits[3:].mean()

    scores = np.arange(20, dtype="float32")[None, :].repeat(2, axis=0)
    y = np.zeros((2, 20), "float32")
    y[0, 19] = 1.0  # the top-scoring label is a positive: the hardest negatives come next
    hard = SampledSigmoidLoss(num_negatives=3, sampler="hard", max_positives=2)
    candidates, keep, _ = hard.label_sampler.sample_candidates(y, 20, scores=scores)
    assert np.asarray(candidates)[np.asarray(keep)].tolist() == [19, 18, 17, 16]


def test_log_q_correction_shifts_sampled_negative_logits_by_log_expected_count():
    y = np.zeros((1, 8), "float32")
    y[0, 0] = 1
    counts = np.arange(1, 9, dtype="float64")
    kwargs = dict(num_negatives=7, sampler="frequency", label_frequencies=counts, max_positives=1, seed=0)
    plain, corrected = SampledSigmoidLoss(**kwargs), SampledSigmoidLoss(log_q_correction=True, **kwargs)
    candidates, keep, num_positive = plain.label_sampler.sample_candidates(y, 8)
    logits = np.zeros((1, 8), "float32")
    q = counts / counts.sum()
    order = np.asarray(candidates)
    shift = np.where(order == 0, 0.0, np.log(7 * q[order]))
    expected = SampledSigmoidLoss(num_negatives=7).sampled_loss(
        y, (logits[:, order] - shift).astype("float32"), candidates, keep, num_positive, 8
    )
    got = corrected.sampled_loss(y, logits[:, order], candidates, keep, num_positive, 8)
    np.testing.assert_allclose(float(got), float(expected), rtol=1e-6)


def test_documents_without_positives_give_finite_loss():
    head = _head()
    y = np.zeros((3, NUM_LABELS), "float32")
    loss = SampledSigmoidLoss(num_negatives=4, max_positives=2, seed=0)
    candidates, keep, num_positive = loss.label_sampler.sample_candidates(y, NUM_LABELS)
    value = loss.sampled_loss(
        y, head.score_subset(np.ones((3, 4), "float32"), candidates), candidates, keep, num_positive, NUM_LABELS
    )
    assert np.isfinite(float(value)) and int(num_positive) == 0 and 1 <= np.asarray(keep).sum() <= 4


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(), "exactly one of"),
        (dict(num_negatives=3, negative_rate=0.1), "exactly one of"),
        (dict(num_negatives=0), "num_negatives"),
        (dict(negative_rate=1.5), "negative_rate"),
        (dict(num_negatives=3, sampler="zipf"), "sampler"),
        (dict(num_negatives=3, sampler="frequency"), "label_frequencies"),
        (dict(num_negatives=3, sampler="hard", weighting="unbiased"), "unbiased"),
        (dict(num_negatives=3, sampler="hard", log_q_correction=True), "log_q_correction"),
        (dict(num_negatives=3, max_positives=0), "max_positives"),
    ],
)
def test_bad_arguments_raise_naming_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SampledSigmoidLoss(**kwargs)


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
    model = gile_wan(40, labels, max_tokens=10, encoder_units=6, head={"joint_dim": 6})
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


@pytest.mark.parametrize("head", ["gile", "linear"])
def test_sampled_fit_under_xla_learns_and_evaluates_every_label(head):
    labels, ids, y = _wan_data()
    keras.utils.set_random_seed(0)
    prior = float(np.log(y.mean() / (1 - y.mean())))  # these documents carry ~40% of the labels, not ~1
    if head == "linear":
        model = wan(40, num_labels=NUM_LABELS, max_tokens=10, encoder_units=16, prior_logit=prior)
    else:
        model = gile_wan(40, labels, max_tokens=10, encoder_units=16, head={"joint_dim": 16}, prior_logit=prior)
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=4, max_positives=12, seed=0))
    trainer.compile(
        keras.optimizers.Adam(0.02),
        metrics=[keras.metrics.AUC(from_logits=True, multi_label=True, name="auc")],
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


def test_dropped_positives_are_reported_when_the_candidate_budget_is_too_small():
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, encoder_units=6, head={"joint_dim": 6})
    trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=1, max_positives=1, seed=0))
    trainer.compile("adam")
    history = trainer.fit(ids, y, batch_size=32, epochs=1, verbose=0).history
    assert history["dropped_positives"][0] == np.count_nonzero(y.max(axis=0)) - 1  # one positive slot


def test_mixed_precision_sampled_fit_is_finite():
    labels, ids, y = _wan_data()
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = gile_wan(40, labels, max_tokens=10, encoder_units=6, head={"joint_dim": 6})
        trainer = SampledLabelModel(model, SampledSigmoidLoss(negative_rate=0.3, seed=0))
        trainer.compile("adam", jit_compile=True)
        loss = trainer.fit(ids, y, batch_size=16, epochs=1, verbose=0).history["loss"][0]
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert np.isfinite(loss)


def test_trainer_and_trained_model_save_and_reload_with_identical_predictions(tmp_path):
    labels, ids, y = _wan_data()
    model = gile_wan(40, labels, max_tokens=10, encoder_units=6, head={"joint_dim": 6})
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


def test_targets_and_scores_of_another_width_name_both_shapes():
    loss = SampledSigmoidLoss(num_negatives=2, seed=0)
    with pytest.raises(ValueError, match=r"`y_true` and `y_pred`.*\(2, 4\).*\(2, 5\)"):
        loss(np.zeros((2, 4), "float32"), np.zeros((2, 5), "float32"))
    with pytest.raises(ValueError, match=r"`y_true` must be multi-hot over the 5 labels.*\(2, 4\)"):
        loss.label_sampler.sample_candidates(np.zeros((2, 4), "float32"), 5)
    hard = SampledSigmoidLoss(num_negatives=2, sampler="hard")
    with pytest.raises(ValueError, match=r"`y_true` and `scores`"):
        hard.label_sampler.sample_candidates(np.zeros((2, 5), "float32"), 5, scores=np.zeros((2, 6), "float32"))


def test_full_loss_equals_keras_binary_crossentropy_from_logits():
    rng = np.random.default_rng(4)
    y = (rng.random((3, 6)) < 0.4).astype("float32")
    logits = rng.normal(scale=30, size=(3, 6)).astype("float32")  # large logits: the stable form matters
    expected = keras.losses.BinaryCrossentropy(from_logits=True)(y, logits)
    np.testing.assert_allclose(float(SampledSigmoidLoss(num_negatives=2)(y, logits)), float(expected), rtol=1e-5)
