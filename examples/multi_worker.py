"""Multi-worker training on one machine: two worker processes train one GILE model together.

The script launches two local worker processes on the CPU. Each one reads a
`TF_CONFIG` naming both workers (on localhost ports) and its own index,
builds a `tf.distribute.MultiWorkerMirroredStrategy`, and trains a small
GILE-WAN with sampled labels (`SampledLabelModel`) on the same random data
for a few steps. The global batch of 16 documents is split between the
workers, the gradients are summed over them (gRPC collectives), and the
candidate labels of each step are drawn from the whole global batch, so both
workers keep identical weights and report the same loss. The launcher prints
each worker's per-epoch losses and exits 1 if they differ.

On a real cluster each machine runs the worker part with its own `TF_CONFIG`
(the same `cluster`, its own `task.index`); nothing else changes.

    python examples/multi_worker.py            # about 20 s on 2 CPU cores

Options: `--loss full` trains with full binary cross-entropy instead;
`--epochs N`. `--worker` is how the launcher starts each worker.
"""

import argparse
import json
import os
import socket
import subprocess
import sys

NUM_WORKERS = 2
GLOBAL_BATCH = 16
RESULT = "WORKER RESULT "


def free_ports(count):
    """`count` free localhost TCP ports (held open together so that they differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def launch(args):
    """Starts the workers and a one-process run, prints their losses; 0 if the workers agree with each other."""
    ports = free_ports(NUM_WORKERS)
    cluster = {"worker": [f"localhost:{port}" for port in ports]}
    base = [sys.executable, __file__, "--loss", args.loss, "--epochs", str(args.epochs)]
    env = dict(os.environ, KERAS_BACKEND="tensorflow", CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    runs = {}
    for index in range(NUM_WORKERS):
        task = {"cluster": cluster, "task": {"type": "worker", "index": index}}
        runs[f"worker {index}"] = (base + ["--worker"], dict(env, TF_CONFIG=json.dumps(task)))
    runs["one process"] = (base + ["--single"], env)
    processes = {
        name: subprocess.Popen(command, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, (command, run_env) in runs.items()
    }
    results = {}
    for name, process in processes.items():
        try:
            stdout, stderr = process.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            for other in processes.values():
                other.kill()
            sys.exit(f"{name} ran past {args.timeout} s")
        lines = [line for line in stdout.splitlines() if line.startswith(RESULT)]
        if process.returncode != 0 or not lines:
            sys.exit(f"{name} failed (exit code {process.returncode}):\n{stderr[-3000:]}")
        results[name] = json.loads(lines[-1][len(RESULT) :])
    for name, result in results.items():
        losses = ", ".join(f"{loss:.6f}" for loss in result["loss"])
        replicas = f"{result['replicas']} replica{'s' if result['replicas'] > 1 else ''} in sync"
        print(f"{name} ({replicas}): loss per epoch {losses}")
    workers = [result["loss"] for name, result in results.items() if name.startswith("worker")]
    same = all(losses == workers[0] for losses in workers)
    print("both workers report the same loss" if same else "the workers' losses differ")
    return 0 if same else 1


def train(args):
    """One process: the strategy first (before any other TensorFlow op), the model in its scope, then steps.

    A worker (with `TF_CONFIG`) runs `MultiWorkerMirroredStrategy`; `--single` runs the same steps in one
    process under the default strategy, for comparison.
    """
    import tensorflow as tf

    strategy = tf.distribute.get_strategy() if args.single else tf.distribute.MultiWorkerMirroredStrategy()
    import keras
    import numpy as np

    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.models import gile_wan
    from keras_labelemb.training import SampledLabelModel

    rng = np.random.default_rng(0)  # the same data in every process; each worker trains on its part of a batch
    labels = rng.integers(2, 50, (20, 2)).astype("int32")
    x = rng.integers(1, 50, (64, 8)).astype("int32")
    topics = rng.integers(0, 20, 64)
    x[:, :2] = labels[topics]  # each document mentions its label's description words
    y = np.eye(20, dtype="float32")[topics]
    keras.utils.set_random_seed(0)
    with strategy.scope():
        model = gile_wan(
            50,
            labels,
            max_tokens=8,
            encoder_units=8,
            head={"joint_dim": 8},
            dropout=0.0,
            embeddings_initializer=keras.initializers.RandomNormal(stddev=0.5),  # learns in a few SGD steps
        )
        if args.loss == "sampled":
            trainer = SampledLabelModel(model, SampledSigmoidLoss(num_negatives=4, max_positives=16, seed=1))
            trainer.compile(keras.optimizers.SGD(2.0))
        else:
            trainer = model
            trainer.compile(keras.optimizers.SGD(2.0), keras.losses.BinaryCrossentropy(from_logits=True))
        trainer.optimizer.build(trainer.trainable_variables)

    # The global batch of 16 documents is split between the workers: 8 each.
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH).with_options(options)
    batches = strategy.experimental_distribute_dataset(dataset)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = trainer.compute_loss(x=x, y=y, y_pred=trainer(x, training=True))
        gradients = tape.gradient(loss, trainer.trainable_variables)
        trainer.optimizer.apply_gradients(zip(gradients, trainer.trainable_variables))  # summed over replicas
        return loss

    @tf.function
    def step(x, y):
        # Each replica's loss is its share of the global batch's mean loss: their sum is that mean.
        return strategy.reduce("SUM", strategy.run(replica_step, args=(x, y)), axis=None)

    losses = [float(np.mean([float(step(bx, by)) for bx, by in batches])) for _ in range(args.epochs)]
    result = {"replicas": strategy.num_replicas_in_sync, "loss": losses}
    print(RESULT + json.dumps(result), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loss", choices=("sampled", "full"), default="sampled")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=300, help="seconds a worker may take")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker or args.single:
        return train(args)
    return launch(args)


if __name__ == "__main__":
    sys.exit(main())
