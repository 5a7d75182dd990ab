"""Candidate labels for one training batch: every batch positive plus sampled negatives (GILE eq. 17)."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int

SAMPLERS = ("uniform", "frequency", "log_uniform", "hard")
POSITIVE_KEY = 1e9  # larger than any score, so every positive label is a hard-sampling candidate


def check_same_width(y_true, y_pred, what="y_pred"):
    """Targets and scores must cover the same labels (as Keras' BinaryCrossentropy requires)."""
    true_width, pred_width = y_true.shape[-1], y_pred.shape[-1]
    if true_width is not None and pred_width is not None and true_width != pred_width:
        raise ValueError(
            f"`y_true` and `{what}` must have the same number of labels. Received: y_true with shape "
            f"{tuple(y_true.shape)} and {what} with shape {tuple(y_pred.shape)}"
        )


def contains(sorted_values, queries):
    """`(Q,)` bool: which `queries` occur in the 1-D ascending `sorted_values` (a binary search each)."""
    sorted_values = ops.cast(sorted_values, "int32")
    queries = ops.cast(queries, "int32")
    position = ops.searchsorted(sorted_values, queries, side="left")
    position = ops.minimum(position, ops.cast(ops.shape(sorted_values)[0], "int32") - 1)
    return ops.equal(ops.take(sorted_values, position, axis=0), queries)


@keras.saving.register_keras_serializable(package="keras_labelemb")
class LabelSampler:
    """Draws the candidate labels of one batch for sampled training.

    One candidate set per batch, of fixed size `C` (so the step compiles
    under XLA):

    1. every label that is positive for some document of the batch (never dropped
       while the batch has at most `max_positives` distinct positive labels);
    2. `num_negatives` draws from `sampler`'s distribution; the distinct drawn
       labels that are not batch positives are the negatives (a set, without
       repeats). Draws are with replacement and repeats are discarded rather
       than redrawn, so fixed shapes hold and only `num_negatives` random
       numbers are made per step (with `num_negatives << L` repeats are rare:
       about `n^2 / 2L` per step for the uniform sampler).

    `SampledSigmoidLoss` holds one (built from its sampler arguments) and
    weighs the candidates' losses; the training step of a `LabelClassifier`
    compiled with it asks it for the candidates of each batch.

    Args:
        num_negatives: negatives per batch (int), or `None` with `negative_rate`.
        negative_rate: fraction of the label set sampled as negatives per batch
            (GILE's BioASQ setting: 0.003); rounded up to at least one label.
        sampler: `"uniform"` (the paper's), `"frequency"` (proportional to
            `label_frequencies ** frequency_power`), `"log_uniform"` (Zipfian:
            label ids assumed sorted by decreasing frequency, as TensorFlow's
            candidate sampler), or `"hard"` (the `num_negatives` highest-scoring
            negatives of the batch, scored with gradients stopped).
        label_frequencies: `(L,)` label counts for `sampler="frequency"`.
        frequency_power: exponent applied to the counts (0.75 as word2vec).
        max_positives: candidate slots for positive labels: the most distinct
            positive labels one batch may hold (`batch_size x` the most labels a
            document has is always enough). `C = min(L, max_positives) +
            num_negatives`. Positives beyond the slots are dropped for that step
            and counted in the training step's `dropped_positives` log.
        seed: seed of the `keras.random.SeedGenerator` drawing the negatives.

    Example:

    >>> sampler = LabelSampler(num_negatives=3, max_positives=2, seed=0)
    >>> candidates, keep, num_positive = sampler.sample_candidates(np.array([[0., 1., 0., 0., 0., 0.]]), 6)
    >>> tuple(candidates.shape), int(num_positive), int(candidates[0])   # the positive comes first
    ((5,), 1, 1)
    """

    def __init__(
        self,
        num_negatives=None,
        negative_rate=None,
        sampler="uniform",
        label_frequencies=None,
        frequency_power=1.0,
        max_positives=512,
        seed=None,
    ):
        if (num_negatives is None) == (negative_rate is None):
            raise ValueError(
                "Pass exactly one of `num_negatives` and `negative_rate`. "
                f"Received: num_negatives={num_negatives!r}, negative_rate={negative_rate!r}"
            )
        self.num_negatives = check_positive_int("num_negatives", num_negatives, allow_none=True)
        if negative_rate is not None and (
            isinstance(negative_rate, bool) or not isinstance(negative_rate, (int, float)) or not 0 < negative_rate <= 1
        ):
            raise ValueError(f"`negative_rate` must be a fraction in (0, 1]. Received: negative_rate={negative_rate!r}")
        self.negative_rate = None if negative_rate is None else float(negative_rate)
        self.sampler = check_choice("sampler", sampler, SAMPLERS)
        self.frequency_power = float(frequency_power)
        self.label_frequencies = None
        if label_frequencies is not None:
            frequencies = np.asarray(label_frequencies, "float64")
            if frequencies.ndim != 1 or frequencies.size == 0 or (frequencies < 0).any() or frequencies.sum() <= 0:
                raise ValueError(
                    "`label_frequencies` must be a non-empty 1-D array of non-negative counts with a positive sum. "
                    f"Received: label_frequencies with shape {frequencies.shape}"
                )
            self.label_frequencies = frequencies
        if self.sampler == "frequency" and self.label_frequencies is None:
            raise ValueError("sampler='frequency' needs `label_frequencies`. Received: label_frequencies=None")
        self.max_positives = check_positive_int("max_positives", max_positives)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)

    def negatives_for(self, num_labels):
        """Negatives drawn per batch for a label set of `num_labels` labels (checked)."""
        if self.num_negatives is not None:
            if self.num_negatives > num_labels:
                raise ValueError(
                    f"`num_negatives` cannot exceed the label count ({num_labels}). "
                    f"Received: num_negatives={self.num_negatives}"
                )
            return self.num_negatives
        return max(1, int(np.ceil(self.negative_rate * num_labels)))

    def num_candidates(self, num_labels):
        """Labels scored per training step: `min(L, max_positives) + negatives` (`L` when every label is)."""
        negatives = self.negatives_for(num_labels)
        if negatives >= num_labels:
            return num_labels
        if self.sampler == "hard":
            return min(num_labels, self.max_positives + negatives)
        return min(num_labels, self.max_positives) + negatives

    def check_label_count(self, num_labels):
        """Validates the sampler settings against a label set of `num_labels` labels."""
        self.negatives_for(num_labels)
        if self.label_frequencies is not None and self.label_frequencies.shape[0] != num_labels:
            raise ValueError(
                f"`label_frequencies` must have one count per label ({num_labels}). "
                f"Received: label_frequencies with {self.label_frequencies.shape[0]} entries"
            )

    def log_probabilities(self, num_labels):
        """`log q_j` `(L,)`: the sampler's distribution over the labels."""
        if self.sampler == "frequency":
            weights = self.label_frequencies**self.frequency_power + 1e-12
        elif self.sampler == "log_uniform":
            ranks = np.arange(num_labels, dtype="float64")
            weights = np.log((ranks + 2.0) / (ranks + 1.0))
        else:
            weights = np.ones(num_labels)
        return np.log(weights / weights.sum()).astype("float32")

    @staticmethod
    def batch_summaries(y_true, scores=None):
        """The `(1, L)` per-label summaries of a batch that decide its candidates (see `sample_candidates`).

        Returns `(targets, negative_scores)`: each label's largest target in
        the batch, and (when `scores` is given) each label's highest score
        among the documents it is negative for (`-POSITIVE_KEY` if none);
        `None` without `scores`. Summaries of slices of a batch combine by an
        element-wise maximum.
        """
        y = ops.cast(y_true, "float32")
        targets = ops.max(y, axis=0, keepdims=True)
        if scores is None:
            return targets, None
        scores = ops.stop_gradient(ops.cast(scores, "float32"))
        return targets, ops.max(ops.where(y > 0, -POSITIVE_KEY, scores), axis=0, keepdims=True)

    def sample_candidates(self, y_true, num_labels, scores=None):
        """Draws the batch's candidate labels.

        Args:
            y_true: `(B, L)` multi-hot targets.
            num_labels: `L` (a Python int).
            scores: `(B, L)` logits, needed by `sampler="hard"` only.

        Only per-label summaries of the batch decide the candidates: which
        labels are positive for some document, and (hard) each label's
        highest score among the documents it is negative for. So `(1, L)`
        rows of them (the batch's largest target per label; the scores
        masked to `-POSITIVE_KEY` where `y_true > 0`, maximised over the
        batch) draw the same candidates; the sampled training step passes those,
        combined over the replicas of a distributed step.

        Returns:
            `(candidates, keep, num_positive)`: `(C,)` label indices (the
            batch's positive labels first), a `(C,)` boolean mask of the
            candidates that count (the positives and the distinct sampled
            negatives), and the number of distinct positive labels.
        """
        num_negatives = self.negatives_for(num_labels)
        if y_true.shape[-1] is not None and y_true.shape[-1] != num_labels:
            raise ValueError(
                f"`y_true` must be multi-hot over the {num_labels} labels. Received: y_true with shape "
                f"{tuple(y_true.shape)}"
            )
        if scores is not None:
            check_same_width(y_true, scores, "scores")
        y = ops.cast(y_true, "float32")
        positive = ops.max(y, axis=0) > 0
        num_positive = ops.sum(ops.cast(positive, "int32"))
        if num_negatives >= num_labels:  # every label: exactly full binary cross-entropy
            return ops.arange(num_labels, dtype="int32"), ops.ones((num_labels,), "bool"), num_positive
        if self.sampler == "hard":
            if scores is None:
                raise ValueError("sampler='hard' needs the scores of every label. Received: scores=None")
            _, negative_scores = self.batch_summaries(y, scores)
            keys = ops.where(positive, POSITIVE_KEY, negative_scores[0])
            size = self.num_candidates(num_labels)
            _, candidates = ops.top_k(keys, size)
            counted = num_positive + ops.minimum(num_negatives, num_labels - num_positive)
            keep = ops.arange(size, dtype="int32") < counted
            return ops.cast(candidates, "int32"), keep, num_positive
        # Positives: the top of (is positive, then a fixed order); slots beyond them do not count.
        slots = min(num_labels, self.max_positives)
        order = ops.arange(num_labels, dtype="float32") / float(num_labels)
        _, positive_slots = ops.top_k(ops.cast(positive, "float32") * 2.0 - order, slots)
        positive_slots = ops.cast(positive_slots, "int32")
        # Negatives: `num_negatives` draws with replacement (only these few random numbers:
        # XLA's CPU generator costs ~0.4 us per number, so keys over all L labels would dominate
        # the step), sorted so repeats are adjacent; repeats and batch positives do not count.
        draws, negative_keep = self._negatives(num_labels, num_negatives, lambda d: ops.take(positive, d, axis=0))
        candidates = ops.concatenate([positive_slots, draws])
        keep = ops.concatenate([ops.take(positive, positive_slots, axis=0), negative_keep])
        return candidates, keep, num_positive

    def sample_candidates_from_indices(self, positive_indices, num_labels):
        """Draws the batch's candidates from its positive label indices, without a `(B, L)` array.

        Args:
            positive_indices: `(B, P)` int positions in the label set of each
                document's positive labels, `-1` for padding (positions outside
                `[0, num_labels)` count as padding in a compiled step).
            num_labels: `L` (a Python int).

        Returns:
            `(candidates, keep, num_positive, batch_positives)`: as
            `sample_candidates` (the same candidates for the same batch and
            seed, up to the order of the positives), plus the batch's sorted
            positive indices (with `-1` pads) for `contains`. The cost grows
            with `B x P` and the candidate count, not with `L`. Not for the
            `"hard"` sampler, which scores every label anyway.
        """
        if self.sampler == "hard":
            raise ValueError(
                "sampler='hard' scores every label; give it multi-hot targets. Received: positive label indices"
            )
        num_negatives = self.negatives_for(num_labels)
        indices = ops.cast(positive_indices, "int32")
        indices = ops.where(ops.logical_and(indices >= 0, indices < num_labels), indices, -1)
        flat = ops.sort(ops.reshape(indices, (-1,)))
        first = ops.concatenate([ops.ones((1,), "bool"), ops.not_equal(flat[1:], flat[:-1])])
        distinct = ops.logical_and(first, flat >= 0)
        num_positive = ops.sum(ops.cast(distinct, "int32"))
        if num_negatives >= num_labels:  # every label: exactly full binary cross-entropy
            return ops.arange(num_labels, dtype="int32"), ops.ones((num_labels,), "bool"), num_positive, flat
        # Positives: the distinct indices first (top of "is distinct, then position"); pads fill the other slots.
        # `slots` pads (key -1, below every entry of `flat`) keep top_k defined when B x P < slots, and the
        # step compiles when the batch size is not known until run time (a last, partial batch).
        slots = min(num_labels, self.max_positives)
        size = ops.cast(ops.shape(flat)[0], "float32")
        position = ops.cast(ops.cumsum(ops.ones_like(flat), axis=0) - 1, "float32")
        keys = ops.concatenate([ops.cast(distinct, "float32") * 2.0 - position / size, ops.full((slots,), -1.0)])
        flat_padded = ops.concatenate([flat, ops.full((slots,), -1, dtype="int32")])
        _, order = ops.top_k(keys, slots)
        positive_slots = ops.take(flat_padded, order, axis=0)
        slot_keep = ops.take(ops.concatenate([distinct, ops.zeros((slots,), "bool")]), order, axis=0)
        positive_slots = ops.where(slot_keep, positive_slots, 0)
        draws, negative_keep = self._negatives(num_labels, num_negatives, lambda d: contains(flat, d))
        candidates = ops.concatenate([positive_slots, draws])
        return candidates, ops.concatenate([slot_keep, negative_keep]), num_positive, flat

    def _negatives(self, num_labels, count, is_positive):
        """`(draws, keep)`: `count` sorted draws and which count as negatives (not a batch positive, not a repeat).

        `is_positive(draws)` says which draws are positive for some document of the batch.
        """
        draws = ops.sort(self._draw(num_labels, count))
        repeated = ops.concatenate([ops.zeros((1,), "bool"), ops.equal(draws[1:], draws[:-1])])
        return draws, ops.logical_and(ops.logical_not(is_positive(draws)), ops.logical_not(repeated))

    def _draw(self, num_labels, count):
        """`count` label ids drawn with replacement from the sampler's distribution."""
        if self.sampler == "uniform":
            return ops.cast(keras.random.randint((count,), 0, num_labels, seed=self.seed_generator), "int32")
        cumulative = np.cumsum(np.exp(self.log_probabilities(num_labels).astype("float64")))
        cumulative = (cumulative / cumulative[-1]).astype("float32")
        uniform = keras.random.uniform((count,), seed=self.seed_generator)
        ids = ops.searchsorted(ops.convert_to_tensor(cumulative), uniform, side="right")
        return ops.minimum(ops.cast(ids, "int32"), num_labels - 1)

    def inclusion_log_probabilities(self, num_labels):
        """`log P(label j is among the draws)` `(L,)`: `1 - (1 - q_j)^n` for `n` draws with replacement."""
        q = np.exp(self.log_probabilities(num_labels).astype("float64"))
        draws = self.negatives_for(num_labels)
        return np.log(-np.expm1(draws * np.log1p(-np.minimum(q, 1 - 1e-12)))).astype("float32")

    def get_config(self):
        return dict(
            num_negatives=self.num_negatives,
            negative_rate=self.negative_rate,
            sampler=self.sampler,
            label_frequencies=None if self.label_frequencies is None else self.label_frequencies.tolist(),
            frequency_power=self.frequency_power,
            max_positives=self.max_positives,
            seed=self.seed,
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)
