"""Binary cross-entropy over every positive label plus sampled negative labels (GILE eq. 17)."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_choice, known_values
from keras_labelemb.losses.label_sampler import LabelSampler, check_same_width

WEIGHTINGS = ("mean", "unbiased")
TARGETS = ("multi_hot", "label_indices")


@keras.saving.register_keras_serializable(package="keras_labelemb")
class SampledSigmoidLoss(keras.losses.Loss):
    """Binary cross-entropy over all positive labels and a sample of negative labels.

    GILE (eq. 17) trains on each document's positive labels plus `k*` negative
    labels drawn from the rest, so a training step costs `O(k*)` label
    encodings instead of `O(L)`. The candidates of a batch (every
    batch positive plus sampled negatives, fixed size `C` so the step
    compiles under XLA) come from the loss's `label_sampler`, a
    `LabelSampler` built from the sampling arguments below (see it for how
    they are drawn).

    Each document is scored on all `C` candidates (`head.score_subset`): its own
    positives are targets 1, every other candidate (including other documents'
    positives, "in-batch negatives") is a target-0 negative. With every negative
    sampled, the loss and its gradients equal full binary cross-entropy.

    Training through this loss needs the document vectors and the output head,
    not the `(B, L)` logits a plain model would hand a loss: compile a
    `LabelClassifier` with it (`classifier.compile(loss=SampledSigmoidLoss(...))`;
    `LabelClassifier.from_model(model)` for a model you built), whose
    training step scores only the candidates. Called as a plain Keras loss on
    `(y_true, logits)` it is the full mean binary cross-entropy (what
    `evaluate` reports).

    Args:
        num_negatives: negatives drawn per step (the `LabelSampler` that draws the candidates).
        negative_rate: or negatives as a fraction of the labels (`LabelSampler`).
        sampler: how negatives are drawn (`LabelSampler`). `sampler="hard"`
            scores every label forward (gradients stopped) but back-propagates
            through `C` only.
        label_frequencies: label counts for frequency-weighted drawing (`LabelSampler`).
        frequency_power: the power of those counts (`LabelSampler`).
        max_positives: positives kept per batch (`LabelSampler`).
        seed: the sampler's seed (`LabelSampler`).
        weighting: `"mean"` (default; each document's loss is the mean over its
            candidates, as GILE) or `"unbiased"` (each sampled negative weighs
            `1 / P(drawn) = 1 / (1 - (1 - q_j)^n)`, exact for `n` draws with
            replacement, and the sum is divided by `L`, so the expected loss
            equals the full mean binary cross-entropy).
        log_q_correction: subtract `log(num_negatives * q_j)` from sampled
            negatives' logits (q the sampler's probability), correcting the bias
            of non-uniform samplers (Bengio & Senecal 2008; Yi et al. 2019).
            Not available for `"hard"`.
        targets: `"multi_hot"` (default): `(B, L)` rows; `"label_indices"`:
            each document's positive labels as a `(B, P)` int array of
            positions in the label set, padded with -1 (a classifier's `fit`
            makes them from label names), so nothing in a training step grows
            with `L` (64 documents x 10^6 labels of multi-hot rows are 256 MB;
            `benchmarks/label_scaling.py`). One device or JAX's
            `keras.distribution`, not a multi-replica `tf.distribute` step;
            not with `sampler="hard"`, which scores every label anyway.

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
        targets="multi_hot",
        name="sampled_sigmoid_loss",
        reduction="sum_over_batch_size",
        dtype=None,
    ):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        # The candidates come from a LabelSampler; the loss keeps only how their losses are weighed.
        self.label_sampler = LabelSampler(
            num_negatives=num_negatives,
            negative_rate=negative_rate,
            sampler=sampler,
            label_frequencies=label_frequencies,
            frequency_power=frequency_power,
            max_positives=max_positives,
            seed=seed,
        )
        self.weighting = check_choice("weighting", weighting, WEIGHTINGS)
        if self.weighting == "unbiased" and sampler == "hard":
            raise ValueError(
                "weighting='unbiased' needs known inclusion probabilities, which the hard sampler does not have. "
                f"Received: sampler={sampler!r}"
            )
        if log_q_correction and sampler == "hard":
            raise ValueError("`log_q_correction` needs a sampling distribution. Received: sampler='hard'")
        self.log_q_correction = bool(log_q_correction)
        self.targets = check_choice("targets", targets, TARGETS)
        if self.targets == "label_indices" and sampler == "hard":
            raise ValueError(
                "targets='label_indices' needs a sampler that does not score every label; sampler='hard' does. "
                "Received: targets='label_indices' with sampler='hard'"
            )

    # -- the sampled loss -----------------------------------------------------
    def call(self, y_true, y_pred):
        """Full binary cross-entropy, mean over labels: the loss `evaluate` reports."""
        if self.targets == "label_indices":
            y_true = multi_hot_from_indices(y_true, y_pred.shape[-1])
        check_same_width(y_true, y_pred)
        bce = ops.binary_crossentropy(ops.cast(y_true, "float32"), ops.cast(y_pred, "float32"), from_logits=True)
        return ops.mean(bce, axis=-1)

    def sampled_loss(
        self,
        y_true,
        candidate_logits,
        candidates,
        keep,
        num_positive,
        num_labels,
        sample_weight=None,
        batch_targets=None,
    ):
        """The loss of one batch from the candidates' logits `(B, C)`; see the class docstring.

        `batch_targets`: `(B', L)` targets (or a `(1, L)` row of each label's
        largest target) of the batch the candidates were drawn from, when it
        is more than `y_true`: under `tf.distribute`, the global batch of
        which `y_true` is one replica's slice. They say which candidates are
        batch positives (default: those of `y_true`).
        """
        y = ops.cast(y_true, "float32")
        batch_y = y if batch_targets is None else ops.cast(batch_targets, "float32")
        batch_positive = ops.take(ops.max(batch_y, axis=0) > 0, candidates, axis=0)
        return self.candidate_loss(
            ops.take(y, candidates, axis=1),
            candidate_logits,
            candidates,
            keep,
            batch_positive,
            num_labels,
            sample_weight,
        )

    def candidate_loss(
        self, targets, candidate_logits, candidates, keep, batch_positive, num_labels, sample_weight=None
    ):
        """The loss of one batch from the candidates' targets `(B, C)`, logits `(B, C)` and masks `(C,)`.

        `sampled_loss` reads the targets and `batch_positive` (which candidates
        are positive for some document of the batch) off multi-hot targets;
        with `targets="label_indices"` the training step computes them from
        the documents' positive label indices without a `(B, L)` array.
        """
        sampler = self.label_sampler
        targets = ops.cast(targets, "float32")
        logits = ops.cast(candidate_logits, "float32")
        keep = ops.cast(keep, "float32")
        all_labels = sampler.negatives_for(num_labels) >= num_labels
        if self.log_q_correction and not all_labels:
            log_q = ops.take(ops.convert_to_tensor(sampler.log_probabilities(num_labels)), candidates, axis=0)
            negatives = float(sampler.negatives_for(num_labels))
            correction = ops.where(batch_positive, 0.0, ops.log(negatives) + log_q)
            logits = logits - correction
        losses = ops.binary_crossentropy(targets, logits, from_logits=True)
        if self.weighting == "unbiased":
            # Horvitz-Thompson: a sampled negative stands for 1 / P(drawn) negatives.
            if all_labels:
                inverse_inclusion = ops.ones_like(losses[0])
            else:
                log_inclusion = ops.convert_to_tensor(sampler.inclusion_log_probabilities(num_labels))
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
            **self.label_sampler.get_config(),
            weighting=self.weighting,
            log_q_correction=self.log_q_correction,
            targets=self.targets,
        )
        return config


def checked_indices(y, num_labels):
    """`(B, P)` int32 positive label indices; known out-of-range values raise (traced ones count as padding)."""
    if len(y.shape) != 2:
        raise ValueError(
            "With targets='label_indices', targets must be (batch, positives) label indices padded with -1. "
            f"Received: y with shape {tuple(y.shape)}"
        )
    values = known_values(y)
    if values is not None and values.size and (values.min() < -1 or values.max() >= num_labels):
        raise ValueError(
            f"Label indices must lie in [0, {num_labels}) or be -1 (padding). "
            f"Received: y with min {values.min()} and max {values.max()}"
        )
    return ops.cast(y, "int32")


def multi_hot_from_indices(y, num_labels):
    """Multi-hot `(B, L)` targets from positive label indices `(B, P)`: what `evaluate`'s full loss and metrics read."""
    indices = checked_indices(y, num_labels)
    rows = ops.broadcast_to(ops.arange(ops.shape(indices)[0], dtype="int32")[:, None], ops.shape(indices))
    valid = indices >= 0
    positions = ops.stack([ops.reshape(rows, (-1,)), ops.reshape(ops.where(valid, indices, 0), (-1,))], axis=1)
    counts = ops.scatter(positions, ops.reshape(ops.cast(valid, "float32"), (-1,)), (ops.shape(indices)[0], num_labels))
    return ops.minimum(counts, 1.0)
