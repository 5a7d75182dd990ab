"""Binary cross-entropy over every positive label plus sampled negative labels (GILE eq. 17)."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, check_positive_int

SAMPLERS = ("uniform", "frequency", "log_uniform", "hard")
WEIGHTINGS = ("mean", "unbiased")
_POSITIVE_KEY = 1e9  # larger than any score, so every positive label is a hard-sampling candidate


def _check_same_width(y_true, y_pred, what="y_pred"):
    """Targets and scores must cover the same labels (as Keras' BinaryCrossentropy requires)."""
    true_width, pred_width = y_true.shape[-1], y_pred.shape[-1]
    if true_width is not None and pred_width is not None and true_width != pred_width:
        raise ValueError(
            f"`y_true` and `{what}` must have the same number of labels. Received: y_true with shape "
            f"{tuple(y_true.shape)} and {what} with shape {tuple(y_pred.shape)}"
        )


@keras.saving.register_keras_serializable(package="keras_labelemb")
class SampledSigmoidLoss(keras.losses.Loss):
    """Binary cross-entropy over all positive labels and a sample of negative labels.

    GILE (eq. 17) trains on each document's positive labels plus `k*` negative
    labels drawn from the rest, so a training step costs `O(k*)` label
    encodings instead of `O(L)`. Here one candidate set is drawn per batch
    (fixed size `C`, so the step compiles under XLA):

    1. every label that is positive for some document of the batch (never dropped
       while the batch has at most `max_positives` distinct positive labels);
    2. `num_negatives` draws from `sampler`'s distribution; the distinct drawn
       labels that are not batch positives are the negatives (a set, without
       repeats). Draws are with replacement and repeats are discarded rather
       than redrawn, so fixed shapes hold and only `num_negatives` random
       numbers are made per step (with `num_negatives << L` repeats are rare:
       about `n^2 / 2L` per step for the uniform sampler).

    Each document is scored on all `C` candidates (`head.score_subset`): its own
    positives are targets 1, every other candidate (including other documents'
    positives, "in-batch negatives") is a target-0 negative. With every negative
    sampled, the loss and its gradients equal full binary cross-entropy.

    Training through this loss needs the document vectors and the output head,
    not the `(B, L)` logits that `compile(loss=...)` would hand a loss: use
    `keras_labelemb.training.SampledLabelModel(model, SampledSigmoidLoss(...))`,
    a one-line wrapper that shares all weights with `model`. Called as a
    plain Keras loss on `(y_true, logits)` it is the full mean binary
    cross-entropy (what `evaluate` reports).

    Args:
        num_negatives: negatives per batch (int), or `None` with `negative_rate`.
        negative_rate: fraction of the label set sampled as negatives per batch
            (GILE's BioASQ setting: 0.003); rounded up to at least one label.
        sampler: `"uniform"` (the paper's), `"frequency"` (proportional to
            `label_frequencies ** frequency_power`), `"log_uniform"` (Zipfian:
            label ids assumed sorted by decreasing frequency, as TensorFlow's
            candidate sampler), or `"hard"` (the `num_negatives` highest-scoring
            negatives of the batch, scored with gradients stopped: one full
            forward pass over the labels, but a backward pass over `C` labels only).
        label_frequencies: `(L,)` label counts for `sampler="frequency"`.
        frequency_power: exponent applied to the counts (0.75 as word2vec).
        weighting: `"mean"` (default; each document's loss is the mean over its
            candidates, as GILE) or `"unbiased"` (each sampled negative weighs
            `1 / P(drawn) = 1 / (1 - (1 - q_j)^n)`, exact for `n` draws with
            replacement, and the sum is divided by `L`, so the expected loss
            equals the full mean binary cross-entropy).
        log_q_correction: subtract `log(num_negatives * q_j)` from sampled
            negatives' logits (q the sampler's probability), correcting the bias
            of non-uniform samplers (Bengio & Senecal 2008; Yi et al. 2019).
            Not available for `"hard"`.
        max_positives: candidate slots for positive labels: the most distinct
            positive labels one batch may hold (`batch_size x` the most labels a
            document has is always enough). `C = min(L, max_positives) +
            num_negatives`. Positives beyond the slots are dropped for that step
            and counted in `SampledLabelModel`'s `dropped_positives` log.
        seed: seed of the `keras.random.SeedGenerator` drawing the negatives.

    Documented behaviour: a document without positives is trained on its
    negatives only (finite loss); soft targets in `[0, 1]` are used as given.

    Example:

    >>> import numpy as np
    >>> loss = SampledSigmoidLoss(num_negatives=2, seed=0)
    >>> y = np.array([[1., 0., 0., 1.]])
    >>> float(loss(y, np.zeros((1, 4)))) > 0  # full BCE on (y, logits)
    True
    """

    def __init__(
        self,
        num_negatives=None,
        negative_rate=None,
        sampler="uniform",
        label_frequencies=None,
        frequency_power=1.0,
        weighting="mean",
        log_q_correction=False,
        max_positives=512,
        seed=None,
        name="sampled_sigmoid_loss",
        reduction="sum_over_batch_size",
        dtype=None,
    ):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
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
        self.weighting = check_choice("weighting", weighting, WEIGHTINGS)
        if self.weighting == "unbiased" and self.sampler == "hard":
            raise ValueError(
                "weighting='unbiased' needs known inclusion probabilities, which the hard sampler does not have. "
                f"Received: sampler={sampler!r}"
            )
        if log_q_correction and self.sampler == "hard":
            raise ValueError("`log_q_correction` needs a sampling distribution. Received: sampler='hard'")
        self.log_q_correction = bool(log_q_correction)
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

    # -- sizes ------------------------------------------------------------------
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

    def _log_probabilities(self, num_labels):
        if self.sampler == "frequency":
            weights = self.label_frequencies**self.frequency_power + 1e-12
        elif self.sampler == "log_uniform":
            ranks = np.arange(num_labels, dtype="float64")
            weights = np.log((ranks + 2.0) / (ranks + 1.0))
        else:
            weights = np.ones(num_labels)
        return np.log(weights / weights.sum()).astype("float32")

    # -- the sampled loss -----------------------------------------------------
    def call(self, y_true, y_pred):
        """Full binary cross-entropy, mean over labels: the loss `evaluate` reports."""
        _check_same_width(y_true, y_pred)
        bce = ops.binary_crossentropy(ops.cast(y_true, "float32"), ops.cast(y_pred, "float32"), from_logits=True)
        return ops.mean(bce, axis=-1)

    def sample_candidates(self, y_true, num_labels, scores=None):
        """Draws the batch's candidate labels.

        Args:
            y_true: `(B, L)` multi-hot targets.
            num_labels: `L` (a Python int).
            scores: `(B, L)` logits, needed by `sampler="hard"` only.

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
            _check_same_width(y_true, scores, "scores")
        y = ops.cast(y_true, "float32")
        positive = ops.max(y, axis=0) > 0
        num_positive = ops.sum(ops.cast(positive, "int32"))
        if num_negatives >= num_labels:  # every label: exactly full binary cross-entropy
            return ops.arange(num_labels, dtype="int32"), ops.ones((num_labels,), "bool"), num_positive
        if self.sampler == "hard":
            if scores is None:
                raise ValueError("sampler='hard' needs the scores of every label. Received: scores=None")
            scores = ops.stop_gradient(ops.cast(scores, "float32"))
            keys = ops.where(positive, _POSITIVE_KEY, ops.max(ops.where(y > 0, -_POSITIVE_KEY, scores), axis=0))
            size = self.num_candidates(num_labels)
            _, candidates = ops.top_k(keys, size)
            keep = ops.arange(size, dtype="int32") < num_positive + ops.minimum(num_negatives, num_labels - num_positive)
            return ops.cast(candidates, "int32"), keep, num_positive
        # Positives: the top of (is positive, then a fixed order); slots beyond them do not count.
        slots = min(num_labels, self.max_positives)
        order = ops.arange(num_labels, dtype="float32") / float(num_labels)
        _, positive_slots = ops.top_k(ops.cast(positive, "float32") * 2.0 - order, slots)
        positive_slots = ops.cast(positive_slots, "int32")
        # Negatives: `num_negatives` draws with replacement (only these few random numbers:
        # XLA's CPU generator costs ~0.4 us per number, so keys over all L labels would dominate
        # the step), sorted so repeats are adjacent; repeats and batch positives do not count.
        draws = ops.sort(self._draw(num_labels, num_negatives))
        repeated = ops.concatenate([ops.zeros((1,), "bool"), ops.equal(draws[1:], draws[:-1])])
        negative_keep = ops.logical_and(ops.logical_not(ops.take(positive, draws, axis=0)), ops.logical_not(repeated))
        candidates = ops.concatenate([positive_slots, draws])
        keep = ops.concatenate([ops.take(positive, positive_slots, axis=0), negative_keep])
        return candidates, keep, num_positive

    def _draw(self, num_labels, count):
        """`count` label ids drawn with replacement from the sampler's distribution."""
        if self.sampler == "uniform":
            return ops.cast(keras.random.randint((count,), 0, num_labels, seed=self.seed_generator), "int32")
        cumulative = np.cumsum(np.exp(self._log_probabilities(num_labels).astype("float64")))
        cumulative = (cumulative / cumulative[-1]).astype("float32")
        uniform = keras.random.uniform((count,), seed=self.seed_generator)
        ids = ops.searchsorted(ops.convert_to_tensor(cumulative), uniform, side="right")
        return ops.minimum(ops.cast(ids, "int32"), num_labels - 1)

    def inclusion_log_probabilities(self, num_labels):
        """`log P(label j is among the draws)` `(L,)`: `1 - (1 - q_j)^n` for `n` draws with replacement."""
        q = np.exp(self._log_probabilities(num_labels).astype("float64"))
        draws = self.negatives_for(num_labels)
        return np.log(-np.expm1(draws * np.log1p(-np.minimum(q, 1 - 1e-12)))).astype("float32")

    def sampled_loss(self, y_true, candidate_logits, candidates, keep, num_positive, num_labels, sample_weight=None):
        """The loss of one batch from the candidates' logits `(B, C)`; see the class docstring."""
        y = ops.cast(y_true, "float32")
        targets = ops.take(y, candidates, axis=1)
        logits = ops.cast(candidate_logits, "float32")
        batch_positive = ops.take(ops.max(y, axis=0) > 0, candidates, axis=0)
        keep = ops.cast(keep, "float32")
        all_labels = self.negatives_for(num_labels) >= num_labels
        if self.log_q_correction and not all_labels:
            log_q = ops.take(ops.convert_to_tensor(self._log_probabilities(num_labels)), candidates, axis=0)
            negatives = float(self.negatives_for(num_labels))
            correction = ops.where(batch_positive, 0.0, ops.log(negatives) + log_q)
            logits = logits - correction
        losses = ops.binary_crossentropy(targets, logits, from_logits=True)
        if self.weighting == "unbiased":
            # Horvitz-Thompson: a sampled negative stands for 1 / P(drawn) negatives.
            if all_labels:
                inverse_inclusion = ops.ones_like(losses[0])
            else:
                log_inclusion = ops.convert_to_tensor(self.inclusion_log_probabilities(num_labels))
                inverse_inclusion = ops.exp(-ops.take(log_inclusion, candidates, axis=0))
            weights = ops.where(batch_positive, 1.0, inverse_inclusion) * keep
            per_document = ops.sum(losses * weights, axis=-1) / float(num_labels)
        else:
            per_document = ops.sum(losses * keep, axis=-1) / ops.maximum(ops.sum(keep), 1.0)
        if sample_weight is not None:
            weights = ops.reshape(ops.cast(sample_weight, "float32"), (-1,))
            return ops.sum(per_document * weights) / ops.maximum(ops.cast(ops.shape(per_document)[0], "float32"), 1.0)
        return ops.mean(per_document)

    def get_config(self):
        config = super().get_config()
        config.update(
            num_negatives=self.num_negatives,
            negative_rate=self.negative_rate,
            sampler=self.sampler,
            label_frequencies=None if self.label_frequencies is None else self.label_frequencies.tolist(),
            frequency_power=self.frequency_power,
            weighting=self.weighting,
            log_q_correction=self.log_q_correction,
            max_positives=self.max_positives,
            seed=self.seed,
        )
        return config
