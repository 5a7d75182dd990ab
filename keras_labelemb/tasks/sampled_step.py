"""The training step of a `LabelClassifier` compiled with `SampledSigmoidLoss`: sampled labels, not all `L`.

Fed multi-hot rows `(B, L)` or, for very many labels, each document's positive labels as indices `(B, P)`
padded with -1 (`SampledSigmoidLoss(targets="label_indices")`), where nothing in a step grows with `L`.
Backend-neutral (keras.ops): the step runs under TensorFlow, JAX and PyTorch, and under `tf.distribute`.
"""

import keras
import numpy as np
from keras import ops

from keras_labelemb.losses.label_sampler import contains
from keras_labelemb.losses.sampled_sigmoid_loss import checked_indices
from keras_labelemb.training._replicas import cross_replica_max, num_replicas_in_sync


def positive_label_indices(multi_hot):
    """Each row's positive labels as positions in the label set, padded with -1: `(B, P)` int32 NumPy.

    The targets of `SampledSigmoidLoss(targets="label_indices")`, from `(B, L)` multi-hot rows
    (`P` is the most positives a row has, at least 1).

    >>> positive_label_indices(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]])).tolist()
    [[1, 2], [-1, -1], [0, -1]]
    """
    multi_hot = np.asarray(multi_hot)
    if multi_hot.ndim != 2:
        raise ValueError(f"`multi_hot` must be (batch, labels). Received: shape {multi_hot.shape}")
    positive = multi_hot > 0
    counts = positive.sum(axis=1)
    out = -np.ones((len(multi_hot), max(1, int(counts.max(initial=0)))), "int32")
    rows, columns = np.nonzero(positive)  # row-major: each row's positives in label order
    slots = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    out[rows, slots] = columns
    return out


def sampled_multi_hot_loss(trainer, y, features, sample_weight=None):
    """The sampled loss of one training step from multi-hot targets `y` `(B, L)` and the head's input `features`.

    `trainer` (a `LabelClassifier` compiled with a `SampledSigmoidLoss`) holds `head`, `sampler`, `sampled_loss`
    and the `dropped_positives` metric.
    """
    head = trainer.head
    num_labels = head.num_labels
    if y.shape[-1] is not None and y.shape[-1] != num_labels:
        raise ValueError(
            f"Targets must be multi-hot over the head's {num_labels} labels. Received: y with shape {tuple(y.shape)}"
        )
    sampler = trainer.sampler
    # One candidate set per step, drawn from per-label summaries of the whole global batch: under
    # tf.distribute the replicas combine them, so each scores its documents on the candidates one device
    # would draw. `batch_targets` (1, L): each label's largest target in the batch; for hard negatives,
    # `scores` (1, L): each label's highest score among the documents it is negative for.
    batch_targets, scores = sampler.batch_summaries(y, head(features) if sampler.sampler == "hard" else None)
    batch_targets = cross_replica_max(batch_targets)
    if scores is not None:
        scores = cross_replica_max(scores)
    candidates, keep, num_positive = sampler.sample_candidates(batch_targets, num_labels, scores)
    logits = head.score_subset(features, candidates, training=True)
    loss = trainer.sampled_loss.sampled_loss(
        y, logits, candidates, keep, num_positive, num_labels, sample_weight, batch_targets=batch_targets
    )
    batch_positive = batch_targets[0] > 0
    kept = ops.logical_and(keep, ops.take(batch_positive, candidates, axis=0))
    trainer.dropped_positives.update_state(ops.cast(num_positive - ops.sum(ops.cast(kept, "int32")), "float32"))
    return loss


def sampled_indices_loss(trainer, y, features, sample_weight=None):
    """As `sampled_multi_hot_loss`, from positive label indices `y` `(B, P)` padded with -1: nothing of size `L`."""
    if num_replicas_in_sync() > 1:
        raise ValueError(
            "targets='label_indices' cannot combine the replicas' positives in a tf.distribute step; use "
            "targets='multi_hot' there, or JAX's keras.distribution. Received: "
            f"{num_replicas_in_sync()} replicas"
        )
    num_labels = trainer.head.num_labels
    indices = checked_indices(y, num_labels)
    candidates, keep, num_positive, batch_positives = trainer.sampler.sample_candidates_from_indices(
        indices, num_labels
    )
    logits = trainer.head.score_subset(features, candidates, training=True)
    # (B, P, C) comparisons: P positives per document, C candidates.
    targets = ops.any(ops.equal(indices[:, :, None], candidates[None, None, :]), axis=1)
    batch_positive = contains(batch_positives, candidates)
    loss = trainer.sampled_loss.candidate_loss(
        targets, logits, candidates, keep, batch_positive, num_labels, sample_weight
    )
    kept = ops.sum(ops.cast(ops.logical_and(keep, batch_positive), "int32"))
    trainer.dropped_positives.update_state(ops.cast(num_positive - kept, "float32"))
    return loss


def sampled_step_metrics(trainer, num_labels):
    """The logs of a sampled training step: its loss and dropped positives (no metric sees all labels there)."""
    if trainer._compile_metrics is not None and not trainer._compile_metrics.built:
        # Built from shapes, as evaluate would: fit's logs read every compiled metric (TensorFlow
        # builds them while tracing the train step, which never updates them here).
        scores = keras.KerasTensor((None, num_labels), "float32")
        trainer._compile_metrics.build(scores, scores)
    return {"loss": trainer.metrics[0].result(), "dropped_positives": trainer.dropped_positives.result()}
