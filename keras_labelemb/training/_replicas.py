"""The replicas of a `tf.distribute` training step, seen from inside it (TensorFlow backend only).

Under `MirroredStrategy` / `MultiWorkerMirroredStrategy` every replica runs the
train step on its slice of the global batch and the gradients are summed over
replicas, so a loss must be the replica's share of the global mean: Keras' own
losses divide by the number of replicas in sync, and a model that computes its
loss itself must do the same. A quantity of the whole batch (which labels are
positive somewhere in it, for sampled training) is combined over the replicas.
Under JAX (`keras.distribution`) a step sees the global batch and both are
no-ops, as they are outside a multi-replica step.
"""

import keras


def _replica_context():
    """The `tf.distribute` replica context of a step with more than one replica, else None."""
    if keras.backend.backend() != "tensorflow":
        return None
    import tensorflow as tf

    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return None
    return context


def num_replicas_in_sync():
    """How many replicas compute one step together (1 outside a multi-replica `tf.distribute` step)."""
    context = _replica_context()
    return 1 if context is None else context.num_replicas_in_sync


def cross_replica_max(value):
    """The elementwise maximum of `value` over the replicas of the step (`value` itself outside one).

    Every replica passes a value of the same shape (a per-label summary of
    its documents, whatever its batch size). Built on `all_reduce` (a sum of
    one row per replica), which every strategy supports in a compiled step;
    `all_gather` needs the tensors' devices, which MultiWorkerMirroredStrategy
    leaves unset on CPU.
    """
    context = _replica_context()
    if context is None:
        return value
    import tensorflow as tf

    replicas = context.num_replicas_in_sync
    row = tf.one_hot(context.replica_id_in_sync_group, replicas, dtype=value.dtype)
    rows = tf.reshape(row, [replicas] + [1] * len(value.shape)) * value[None]
    return tf.reduce_max(context.all_reduce(tf.distribute.ReduceOp.SUM, rows), axis=0)
