"""Tests of `label_sampler`."""

import numpy as np
import pytest
from sampled_sigmoid_loss_helpers import _targets

from keras_labelemb.losses import LabelSampler, SampledSigmoidLoss

NUM_LABELS = 12


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


def test_targets_and_scores_of_another_width_name_both_shapes():
    loss = SampledSigmoidLoss(num_negatives=2, seed=0)
    with pytest.raises(ValueError, match=r"`y_true` must be multi-hot over the 5 labels.*\(2, 4\)"):
        loss.label_sampler.sample_candidates(np.zeros((2, 4), "float32"), 5)
    hard = SampledSigmoidLoss(num_negatives=2, sampler="hard")
    with pytest.raises(ValueError, match=r"`y_true` and `scores`"):
        hard.label_sampler.sample_candidates(np.zeros((2, 5), "float32"), 5, scores=np.zeros((2, 6), "float32"))


@pytest.mark.parametrize("sampler", ["uniform", "hard"])
def test_per_label_summaries_of_the_batch_draw_the_same_candidates(sampler):
    """What a sampled training step passes (tasks/sampled_step.py, combined over replicas): one row per label summary,
    not the batch."""
    from keras_labelemb.losses.label_sampler import POSITIVE_KEY, LabelSampler

    rng = np.random.default_rng(7)
    y = _targets(rng, batch=8, num_labels=30, rate=0.08)
    scores = rng.normal(size=y.shape).astype("float32")
    whole, summary = (LabelSampler(num_negatives=6, max_positives=12, sampler=sampler, seed=3) for _ in range(2))
    hard = sampler == "hard"
    from_batch = whole.sample_candidates(y, 30, scores if hard else None)
    negative_scores = np.where(y > 0, -POSITIVE_KEY, scores).max(axis=0, keepdims=True)
    from_rows = summary.sample_candidates(y.max(axis=0, keepdims=True), 30, negative_scores if hard else None)
    for a, b in zip(from_batch, from_rows):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_batch_summaries_of_two_slices_combine_by_maximum_into_the_whole_batchs():
    rng = np.random.default_rng(3)
    y = (rng.random((6, 9)) < 0.3).astype("float32")
    scores = rng.normal(size=(6, 9)).astype("float32")
    whole = LabelSampler.batch_summaries(y, scores)
    halves = [LabelSampler.batch_summaries(y[rows], scores[rows]) for rows in (slice(0, 3), slice(3, 6))]
    for i in range(2):
        np.testing.assert_array_equal(np.maximum(*(np.asarray(h[i]) for h in halves)), np.asarray(whole[i]))
    np.testing.assert_array_equal(np.asarray(whole[0])[0], y.max(axis=0))
    negative = np.where(y > 0, -np.inf, scores).max(axis=0)
    np.testing.assert_allclose(np.asarray(whole[1])[0][np.isfinite(negative)], negative[np.isfinite(negative)])
    assert LabelSampler.batch_summaries(y)[1] is None
