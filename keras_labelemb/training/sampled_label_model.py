"""Trains an existing label-scoring model with sampled labels; predicts with all labels."""

import keras
import numpy as np
from keras import ops

from keras_labelemb.argument_checks import check_choice, known_values
from keras_labelemb.layers.label_head_access import split_at_head
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.losses.label_sampler import contains
from keras_labelemb.training._replicas import cross_replica_max, num_replicas_in_sync
from keras_labelemb.training.optimizer_build import build_optimizer

_FEATURES = "document_vectors"
TARGETS = ("multi_hot", "label_indices")


def positive_label_indices(multi_hot):
    """Each row's positive labels as positions in the label set, padded with -1: `(B, P)` int32 NumPy.

    The targets `SampledLabelModel(..., targets="label_indices")` takes, from `(B, L)` multi-hot rows
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


@keras.saving.register_keras_serializable(package="keras_labelemb")
class SampledLabelModel(keras.Model):
    """Wraps a trained-or-untrained label classifier to train with `SampledSigmoidLoss`.

    The one-line switch from full binary cross-entropy to sampled training:

        trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=256))

    `trainer` shares every weight with `model`. In `fit`, it runs `model` up to
    the input of its output head (the document vectors `h`), draws the batch's
    candidate labels from the targets and scores only those
    (`head.score_subset`), so a step's cost does not grow with the label count.
    `evaluate` and `predict` run `model` itself: all labels are scored and
    `evaluate` reports full binary cross-entropy plus the compiled metrics.
    Keep using (and saving) `model` after training.

    Why a wrapper rather than `model.compile(loss=SampledSigmoidLoss(...))`: a
    Keras loss receives `(y_true, y_pred)` after the forward pass, when the
    `(B, L)` logits, the cost sampling exists to avoid, are already computed;
    and the candidates depend on `y_true`, which `call` never sees. Overriding
    `compute_loss`, Keras' documented hook for custom losses, works the same
    under the TensorFlow, JAX and PyTorch trainers and with `jit_compile=True`.

    Distributed training: under JAX's `keras.distribution.DataParallel` the
    step sees the global batch; under `tf.distribute.MirroredStrategy` (and
    `MultiWorkerMirroredStrategy`; build and compile `model` and the trainer
    in `strategy.scope()`) the replicas combine which labels are positive in
    their slices of the batch (and, for hard negatives, each label's top
    score), so all of them score their documents on the candidate set one
    device would draw, and each returns its share of the global mean loss.
    Either way a step trains as it would on one device with the same global
    batch (`tests/test_distributed_training.py`).

    Training logs hold `loss` (sampled) and `dropped_positives` (the mean number
    of positive labels per step that did not fit in the candidate set: 0 unless
    a batch has more distinct positive labels than
    `loss.label_sampler.max_positives`). Compiled metrics are computed in
    `evaluate` only, where all labels are scored.

    Targets: `targets="multi_hot"` (default) takes `(B, L)` multi-hot rows,
    as `model.fit` would. With very many labels a batch of them is the
    largest tensor of the step (64 documents x 10^6 labels: 256 MB), so
    `targets="label_indices"` takes each document's positive labels as a
    `(B, P)` int array of positions in the label set, padded with `-1`;
    then nothing in a training step grows with `L` (`benchmarks/label_scaling.py`).
    `evaluate` builds the multi-hot rows from them for the full loss and
    the metrics. Label indices are for one device or JAX's
    `keras.distribution` (not a multi-replica `tf.distribute` step), and
    not for the `"hard"` sampler, which scores every label anyway.

    Args:
        model: a Keras model whose output layer is a `LabelHead` (GileHead,
            DrillHead, LinearHead) called once in the model's graph.
        loss: a `SampledSigmoidLoss`. Default: 256 uniform negatives.
        head: the label head, when `model` has several (see `split_at_head`).
        targets: `"multi_hot"` or `"label_indices"` (see above).

    Example:

    >>> import numpy as np
    >>> from keras_labelemb.models import gile_wan
    >>> from keras_labelemb.losses import SampledSigmoidLoss
    >>> labels = np.arange(2, 42).reshape(20, 2)          # 20 label descriptions
    >>> model = gile_wan(50, labels, max_tokens=8, units=8, joint_dim=8)
    >>> trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=5, max_positives=8, seed=1))
    >>> trainer.compile(optimizer="adam")
    >>> x = np.random.randint(1, 50, (16, 8)); y = np.eye(20)[np.random.randint(0, 20, 16)]
    >>> history = trainer.fit(x, y, epochs=1, verbose=0)
    >>> model.predict(x, verbose=0).shape                  # every label is scored
    (16, 20)
    """

    def __init__(self, model, loss=None, head=None, targets="multi_hot", **kwargs):
        super().__init__(**kwargs)
        self.targets = check_choice("targets", targets, TARGETS)
        if not isinstance(model, keras.Model):
            raise ValueError(f"`model` must be a keras.Model. Received: model={model!r}")
        if loss is None:
            loss = SampledSigmoidLoss(num_negatives=256)
        if not isinstance(loss, SampledSigmoidLoss):
            raise ValueError(f"`loss` must be a SampledSigmoidLoss. Received: loss={loss!r}")
        self.model = model
        self.sampled_loss = loss
        self.encoder, self.head = split_at_head(model, head)
        self.sampler = loss.label_sampler
        if self.targets == "label_indices" and self.sampler.sampler == "hard":
            raise ValueError(
                "targets='label_indices' needs a sampler that does not score every label; sampler='hard' does. "
                "Received: targets='label_indices' with sampler='hard'"
            )
        self.sampler_seed = self.sampler.seed_generator  # tracked, so its state advances under every backend
        self.dropped_positives = keras.metrics.Mean(name="dropped_positives")

    @property
    def num_labels(self):
        return self.head.num_labels

    # The compiled functions capture the head's label set: after `set_labels` on the wrapped model (or on this
    # trainer), each is rebuilt the next time Keras asks for it.
    def _stale(self, kind):
        versions = self.__dict__.setdefault("_compiled_label_sets", {})
        stale = versions.get(kind, self.head.label_set_version) != self.head.label_set_version
        versions[kind] = self.head.label_set_version
        return stale

    def make_train_function(self, force=False):
        return super().make_train_function(force=self._stale("train") or force)

    def make_test_function(self, force=False):
        return super().make_test_function(force=self._stale("test") or force)

    def make_predict_function(self, force=False):
        return super().make_predict_function(force=self._stale("predict") or force)

    def call(self, inputs, training=False):
        if training:
            return {_FEATURES: self.encoder(inputs, training=True)}
        return self.model(inputs, training=False)

    def compile(self, optimizer="rmsprop", loss=None, **kwargs):
        """`keras.Model.compile` without `loss`: training uses the `SampledSigmoidLoss`."""
        if loss is not None:
            raise ValueError(
                "SampledLabelModel trains with the SampledSigmoidLoss given to its constructor and evaluates with "
                f"its full binary cross-entropy; do not pass `loss` to compile. Received: loss={loss!r}"
            )
        self.sampler.check_label_count(self.num_labels)
        super().compile(optimizer=optimizer, loss=self.sampled_loss, **kwargs)
        build_optimizer(self)  # one trace of the first training step, not two

    def get_compile_config(self):
        config = super().get_compile_config()
        if config is not None:
            config.pop("loss", None)  # always the constructor's SampledSigmoidLoss
        return config

    def compile_from_config(self, config):
        """Recompiles a loaded trainer (optimizer and metrics; the loss comes from the config)."""
        config = keras.saving.deserialize_keras_object(config)
        config.pop("loss", None)
        self.compile(**config)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if not isinstance(y_pred, dict):  # evaluate: full logits, full BCE
            y = self._multi_hot(y)
            return super().compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=training)
        if self.targets == "label_indices":
            loss = self._label_indices_loss(y, y_pred[_FEATURES], sample_weight)
            return self._with_regularisers(loss)
        loss = sampled_multi_hot_loss(self, y, y_pred[_FEATURES], sample_weight)
        # The replica's share of the global mean (gradients are summed over replicas), as Keras' losses do.
        return self._with_regularisers(loss) / float(num_replicas_in_sync())

    def _with_regularisers(self, loss):
        for extra in self.losses:  # regularisers of the wrapped model's layers
            loss = loss + ops.cast(ops.sum(extra), loss.dtype)
        return loss

    def _checked_indices(self, y):
        """`(B, P)` int32 positive label indices; known out-of-range values raise (traced ones count as padding)."""
        if len(y.shape) != 2:
            raise ValueError(
                "With targets='label_indices', targets must be (batch, positives) label indices padded with -1. "
                f"Received: y with shape {tuple(y.shape)}"
            )
        values = known_values(y)
        if values is not None and values.size and (values.min() < -1 or values.max() >= self.num_labels):
            raise ValueError(
                f"Label indices must lie in [0, {self.num_labels}) or be -1 (padding). "
                f"Received: y with min {values.min()} and max {values.max()}"
            )
        return ops.cast(y, "int32")

    def _label_indices_loss(self, y, features, sample_weight):
        if num_replicas_in_sync() > 1:
            raise ValueError(
                "targets='label_indices' cannot combine the replicas' positives in a tf.distribute step; use "
                "targets='multi_hot' there, or JAX's keras.distribution. Received: "
                f"{num_replicas_in_sync()} replicas"
            )
        num_labels = self.num_labels
        indices = self._checked_indices(y)
        candidates, keep, num_positive, batch_positives = self.sampler.sample_candidates_from_indices(
            indices, num_labels
        )
        logits = self.head.score_subset(features, candidates, training=True)
        # (B, P, C) comparisons: P positives per document, C candidates, nothing of size L.
        targets = ops.any(ops.equal(indices[:, :, None], candidates[None, None, :]), axis=1)
        batch_positive = contains(batch_positives, candidates)
        loss = self.sampled_loss.candidate_loss(
            targets, logits, candidates, keep, batch_positive, num_labels, sample_weight
        )
        kept = ops.sum(ops.cast(ops.logical_and(keep, batch_positive), "int32"))
        self.dropped_positives.update_state(ops.cast(num_positive - kept, "float32"))
        return loss

    def _multi_hot(self, y):
        """Multi-hot `(B, L)` targets for `evaluate` (the label indices scattered when given so)."""
        if self.targets == "multi_hot" or y is None:
            return y
        indices = self._checked_indices(y)
        rows = ops.broadcast_to(ops.arange(ops.shape(indices)[0], dtype="int32")[:, None], ops.shape(indices))
        valid = indices >= 0
        positions = ops.stack([ops.reshape(rows, (-1,)), ops.reshape(ops.where(valid, indices, 0), (-1,))], axis=1)
        counts = ops.scatter(
            positions, ops.reshape(ops.cast(valid, "float32"), (-1,)), (ops.shape(indices)[0], self.num_labels)
        )
        return ops.minimum(counts, 1.0)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        if isinstance(y_pred, dict):  # training step: scores of all labels were never computed
            return sampled_step_metrics(self, self.num_labels)
        results = super().compute_metrics(x, self._multi_hot(y), y_pred, sample_weight)
        results.pop("dropped_positives", None)
        return results

    def get_config(self):
        return {
            "name": self.name,
            "model": keras.saving.serialize_keras_object(self.model),
            "loss": keras.saving.serialize_keras_object(self.sampled_loss),
            "targets": self.targets,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        model = keras.saving.deserialize_keras_object(config.pop("model"))
        loss = keras.saving.deserialize_keras_object(config.pop("loss"))
        return cls(model, loss, **config)


def sampled_multi_hot_loss(trainer, y, features, sample_weight=None):
    """The sampled loss of one training step from multi-hot targets `y` `(B, L)` and the head's input `features`.

    `trainer` holds `head`, `sampler`, `sampled_loss` and the `dropped_positives` metric: a `SampledLabelModel`,
    or a `LabelClassifier` compiled with a `SampledSigmoidLoss` (one step, two models that train with it).
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


def sampled_step_metrics(trainer, num_labels):
    """The logs of a sampled training step: its loss and dropped positives (no metric sees all labels there)."""
    if trainer._compile_metrics is not None and not trainer._compile_metrics.built:
        # Built from shapes, as evaluate would: fit's logs read every compiled metric (TensorFlow
        # builds them while tracing the train step, which never updates them here).
        scores = keras.KerasTensor((None, num_labels), "float32")
        trainer._compile_metrics.build(scores, scores)
    return {"loss": trainer.metrics[0].result(), "dropped_positives": trainer.dropped_positives.result()}
