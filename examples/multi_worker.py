"""Multi-worker training on one machine: two worker processes train one GILE model together.

The script launches two local worker processes on the CPU, and for comparison
the same training in one process. Every process trains a small GILE-WAN with
sampled labels (a `LabelClassifier` compiled with `SampledSigmoidLoss`) on the same random data for a few epochs,
with a global batch of 16 documents: each worker trains on its 8 of them, the
gradients are summed over the workers, and the candidate labels of a step are
drawn from the whole global batch, so both workers keep identical weights and
report the same loss as each other (and as the one process, up to the order of
float sums). The launcher prints each process's per-epoch losses and exits 1 if
the workers' differ.

- `--backend tensorflow` (default): each worker reads a `TF_CONFIG` naming both
  workers (localhost ports) and its own index and builds a
  `tf.distribute.MultiWorkerMirroredStrategy` (gRPC collectives). Training is a
  short custom loop (`strategy.run` over the trainer's `compute_loss`): with
  Keras 3.15 and TensorFlow 2.21, `fit` under this strategy fails before its
  first step (it reduces the first input batch across workers in
  `_maybe_symbolic_build`; reproduced here, not yet traced to a Keras issue).
- `--backend jax`: each worker calls `keras.distribution.initialize` with the
  coordinator's address, the process count and its own id, then trains with
  `fit` under `keras.distribution.DataParallel` over the devices of both
  processes (JAX's CPU collectives), fed its own half of the data
  (`auto_shard_dataset=False`). It needs no TensorFlow (its test runs it with
  TensorFlow blocked).

On a real cluster each machine runs the worker part with its own `TF_CONFIG`
(or process id); nothing else changes.

    python examples/multi_worker.py                  # TensorFlow, about 20 s on 2 CPU cores
    python examples/multi_worker.py --backend jax    # JAX, about 20 s

Options: `--loss full` trains with full binary cross-entropy instead;
`--epochs N`. `--worker` and `--single` are how the launcher starts the processes.
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
    base = [sys.executable, __file__, "--backend", args.backend, "--loss", args.loss, "--epochs", str(args.epochs)]
    env = dict(os.environ, KERAS_BACKEND=args.backend, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    if args.backend == "jax":
        env.update(JAX_PLATFORMS="cpu")
        # One device a process: a forced host device count goes; the other XLA flags stay (the tests' `-O0`).
        flags = [
            f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_force_host_platform_device_count")
        ]
        env["XLA_FLAGS"] = " ".join(flags)
    runs = {}
    for index in range(NUM_WORKERS):
        if args.backend == "tensorflow":
            cluster = {"worker": [f"localhost:{port}" for port in ports]}
            task = {"cluster": cluster, "task": {"type": "worker", "index": index}}
            runs[f"worker {index}"] = (base + ["--worker", str(index)], dict(env, TF_CONFIG=json.dumps(task)))
        else:
            coordinator = ["--coordinator", f"localhost:{ports[0]}"]
            runs[f"worker {index}"] = (base + ["--worker", str(index)] + coordinator, env)
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
        print(f"{name} ({args.backend}, {replicas}): loss per epoch {losses}")
    workers = [result["loss"] for name, result in results.items() if name.startswith("worker")]
    same = all(losses == workers[0] for losses in workers)
    print("both workers report the same loss" if same else "the workers' losses differ")
    return 0 if same else 1


def data():
    """The same documents in every process: 64 documents of 8 words over 20 labels described in 2 words."""
    import numpy as np

    rng = np.random.default_rng(0)
    labels = rng.integers(2, 50, (20, 2)).astype("int32")
    x = rng.integers(1, 50, (64, 8)).astype("int32")
    topics = rng.integers(0, 20, 64)
    x[:, :2] = labels[topics]  # each document mentions its label's description words
    return labels, x, np.eye(20, dtype="float32")[topics]


def build_trainer(args, labels):
    """The model (call in the strategy's scope under TensorFlow) and what trains it, compiled."""
    import keras

    from keras_labelemb.layers import GileHead, HierarchicalAttention
    from keras_labelemb.losses import SampledSigmoidLoss
    from keras_labelemb.models import document_classifier
    from keras_labelemb.models.document_classifier import prior_bias
    from keras_labelemb.tasks import LabelClassifier

    keras.utils.set_random_seed(0)
    # Word vectors drawn wide (stddev 0.5): the model learns in a few SGD steps.
    embedding = keras.layers.Embedding(
        50, 100, mask_zero=True, embeddings_initializer=keras.initializers.RandomNormal(stddev=0.5)
    )
    model = document_classifier(
        HierarchicalAttention("dense", 8, flat=True),
        GileHead(embedding, labels, joint_dim=8, bias_initializer=prior_bias(len(labels))),
        max_tokens=8,
    )
    trainer = LabelClassifier.from_model(model)  # fed token ids; trains the model's weights
    if args.loss == "sampled":
        loss = SampledSigmoidLoss(num_negatives=4, max_positives=16, seed=1)
    else:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)
    trainer.compile(keras.optimizers.SGD(2.0), loss=loss, metrics=None)
    return trainer


def train_tensorflow(args):
    """One TensorFlow process: the strategy first (before any other TensorFlow op), the model in its scope."""
    import tensorflow as tf

    strategy = tf.distribute.get_strategy() if args.single else tf.distribute.MultiWorkerMirroredStrategy()
    import numpy as np

    labels, x, y = data()
    with strategy.scope():
        trainer = build_trainer(args, labels)
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
    return {"replicas": strategy.num_replicas_in_sync, "loss": losses}


def train_jax(args):
    """One JAX process: join the others first, then `fit` under a data-parallel distribution over all of them."""
    import keras

    labels, x, y = data()
    batch_size, replicas = GLOBAL_BATCH, 1
    if not args.single:
        keras.distribution.initialize(args.coordinator, num_processes=NUM_WORKERS, process_id=args.worker)
        # Each process feeds its own 8 documents of every global batch of 16 (documents i, i + 2, ...).
        keras.distribution.set_distribution(keras.distribution.DataParallel(auto_shard_dataset=False))
        x, y = x[args.worker :: NUM_WORKERS], y[args.worker :: NUM_WORKERS]
        batch_size, replicas = GLOBAL_BATCH // NUM_WORKERS, len(keras.distribution.list_devices())
    trainer = build_trainer(args, labels)
    history = trainer.fit(x, y, batch_size=batch_size, epochs=args.epochs, shuffle=False, verbose=0).history
    return {"replicas": replicas, "loss": history["loss"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("tensorflow", "jax"), default="tensorflow")
    parser.add_argument("--loss", choices=("sampled", "full"), default="sampled")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=300, help="seconds a process may take")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--coordinator", help=argparse.SUPPRESS)
    parser.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is None and not args.single:
        return launch(args)
    result = train_jax(args) if args.backend == "jax" else train_tensorflow(args)
    print(RESULT + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
