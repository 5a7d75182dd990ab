"""Per-device memory of a label head's label side on 1 vs 2 devices: model parallelism over the labels (JAX).

At a few hundred thousand labels the label side of an output layer outgrows
one device. `keras_labelemb.distribution.label_sharding_layout_map` gives
`keras.distribution.ModelParallel` a `LayoutMap` that splits it along the
label axis; this benchmark measures what each device then holds, for two
heads over synthetic document vectors `(B, d_h)` (the head alone, as in
`benchmarks.label_scaling`, so that the label side is all there is to see):

- `gile`: a `GileHead` scoring every label from a 16-word description read
  through a 64-d word table of 30k words, joint space 256. It has no
  per-label weight: its label side is computation, the description word
  vectors `(L, Lw, d)`, `E` `(L, d)`, `g_out(E)` `(L, d_j)` and the logits
  `(B, L)`, which the layouts split;
- `linear`: a `LinearHead`, one weight vector per label: its label side is
  the `(d_h, L)` kernel and `(L,)` bias, which the layouts shard.

For each head and label count, on one device (no distribution) and on two
host CPU devices (XLA's `--xla_force_host_platform_device_count`, mesh
`(batch 1, model 2)`):

- bytes of the model's variables held by the first device (its addressable
  shards), all of them and the label-side ones (`label_axis_variables`);
- XLA's compiled memory analysis (`jit(...).lower(...).compile().memory_analysis()`,
  per device) of a scoring step (the forward pass: logits of all labels) and
  of a full-BCE training step (forward and gradients of all weights): the
  temporary buffers, and the output (logits) bytes;
- that the two-device logits equal the one-device logits (maximum absolute
  difference of one forward pass).

Memory figures are what XLA plans for each device's program, not a
process's resident memory: on host devices both programs share one process.
No timing: two host devices share the same CPU cores.

Run time on 2 CPU cores: about 20 s with the defaults (compiling 16
programs and running 8 forward passes at 100,000 and 200,000 labels; peak
resident memory 2.3 GB; measured while two other benchmarks shared the
cores); `--quick` about 10 s.

    python -m benchmarks.label_sharding           # 100k and 200k labels, GILE and linear heads
    python -m benchmarks.label_sharding --quick   # 2,000 labels, to check the script
"""

import json
import os
import sys
import time

from benchmarks.benchmark import Arguments
from benchmarks.report import write_report
from benchmarks.tables import markdown_table

HEADS = ("gile", "linear")
MB = 2**20


def parse_args(argv=None):
    p = Arguments("label_sharding", __doc__, batch_size=64)
    p.add_argument("--labels", default="100000,200000")
    p.add_argument("--heads", default=",".join(HEADS))
    p.add_argument("--devices", type=int, default=2, help="devices of the sharded run (host CPU devices)")
    p.add_argument("--input-dim", type=int, default=128, help="d_h of the document vectors")
    p.add_argument("--vocabulary", type=int, default=30000)
    p.add_argument("--embedding-dim", type=int, default=64)
    p.add_argument("--label-words", type=int, default=16)
    p.add_argument("--joint-dim", type=int, default=256)
    args = p.parse_args(argv)
    if args.quick:
        args.labels, args.vocabulary = "2000", 3000
    return args


def select_backend(devices):
    """JAX on `devices` host CPU devices: must run before keras (or jax) is first imported."""
    if "keras" in sys.modules or "jax" in sys.modules:
        import keras

        if keras.backend.backend() != "jax":
            sys.exit("run this benchmark in a fresh process: it needs KERAS_BACKEND=jax set before keras is imported")
        return
    os.environ["KERAS_BACKEND"] = "jax"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={devices}".strip()


def build(args, kind, label_ids):
    """The head alone on document vectors, with fixed layer names (the layout map's keys are their paths)."""
    import keras

    from keras_labelemb.layers import GileHead, LinearHead

    keras.utils.set_random_seed(args.seed)
    if kind == "gile":
        embedding = keras.layers.Embedding(args.vocabulary, args.embedding_dim, mask_zero=True, name="word_embedding")
        head = GileHead(embedding=embedding, label_ids=label_ids, joint_dim=args.joint_dim, name="gile_head")
    else:
        head = LinearHead(len(label_ids), name="linear_head")
    return keras.Sequential([keras.Input((args.input_dim,)), head], name=f"{kind}_head_model")


def first_device_bytes(variables, device):
    """Bytes of `variables` stored on `device` (the shards it holds)."""
    total = 0
    for variable in variables:
        for shard in variable.value.addressable_shards:
            if shard.device == device:
                total += shard.data.nbytes
    return total


def measure(args, kind, label_ids, x, y, devices):
    """Memory per device of one head on `devices` (1: no distribution); returns (row, logits)."""
    import jax
    import keras
    from keras import ops

    from keras_labelemb.distribution import label_sharding_layout_map

    distribution = None
    if devices > 1:
        mesh = keras.distribution.DeviceMesh(
            (1, devices), ("batch", "model"), keras.distribution.list_devices()[:devices]
        )
        layout_map = label_sharding_layout_map(build(args, kind, label_ids), mesh)
        distribution = keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    keras.distribution.set_distribution(distribution)
    try:
        model = build(args, kind, label_ids)
        head = model.layers[-1]  # the builders' output layer is the head
        trainable = [v.value for v in model.trainable_variables]
        non_trainable = [v.value for v in model.non_trainable_variables]
        if distribution is not None:
            x = jax.device_put(x, distribution.get_data_layout(x.shape).backend_layout)
            y = jax.device_put(y, distribution.get_data_layout(y.shape).backend_layout)

        def forward(trainable, non_trainable, x):
            return model.stateless_call(trainable, non_trainable, x)[0]

        def loss(trainable, non_trainable, x, y):
            logits = forward(trainable, non_trainable, x)
            return ops.mean(ops.binary_crossentropy(y, logits, from_logits=True))

        scoring = jax.jit(forward).lower(trainable, non_trainable, x).compile()
        training = jax.jit(jax.value_and_grad(loss)).lower(trainable, non_trainable, x, y).compile()
        logits = scoring(trainable, non_trainable, x)
        scoring_memory, training_memory = scoring.memory_analysis(), training.memory_analysis()
        device = jax.devices()[0]
        row = {
            "params_mb": round(first_device_bytes(model.variables, device) / MB, 2),
            "label_params_mb": round(first_device_bytes([v for v, _ in head.label_axis_variables()], device) / MB, 2),
            "scoring_temp_mb": round(scoring_memory.temp_size_in_bytes / MB, 2),
            "scoring_output_mb": round(scoring_memory.output_size_in_bytes / MB, 2),
            "training_temp_mb": round(training_memory.temp_size_in_bytes / MB, 2),
            "logits_sharding": str(logits.sharding.spec) if distribution is not None else "one device",
        }
        return row, jax.device_get(logits)
    finally:
        keras.distribution.set_distribution(None)


def ratio(row_two, row_one, key):
    return round(row_two[key] / row_one[key], 3) if row_one[key] else None


def summary(results, devices):
    out = {}
    for kind, by_labels in results.items():
        for labels, rows in by_labels.items():
            one, two = rows["1"], rows[str(devices)]
            for key in ("params_mb", "scoring_temp_mb", "training_temp_mb"):
                out[f"{kind}_{labels}_{key}_ratio"] = ratio(two, one, key)
            out[f"{kind}_{labels}_max_abs_difference"] = rows["max_abs_difference"]
    return out


def table(results, devices):
    header = [
        "head",
        "labels",
        "devices",
        "params / device (MB)",
        "label-side params / device (MB)",
        "scoring step: temp / device (MB)",
        "scoring step: logits / device (MB)",
        "training step: temp / device (MB)",
        "logits layout",
    ]
    rows = []
    for kind, by_labels in results.items():
        for labels, entry in by_labels.items():
            for count in ("1", str(devices)):
                r = entry[count]
                rows.append(
                    [
                        kind,
                        f"{int(labels):,}",
                        count,
                        f"{r['params_mb']:,.2f}",
                        f"{r['label_params_mb']:,.2f}",
                        f"{r['scoring_temp_mb']:,.1f}",
                        f"{r['scoring_output_mb']:,.1f}",
                        f"{r['training_temp_mb']:,.1f}",
                        f"`{r['logits_sharding']}`",
                    ]
                )
    lines = [markdown_table(header, rows), ""]
    differences = "; ".join(
        f"{kind} {int(labels):,}: {entry['max_abs_difference']:.1e}"
        for kind, by_labels in results.items()
        for labels, entry in by_labels.items()
    )
    lines.append(f"Largest absolute difference between the {devices}-device and 1-device logits: {differences}.")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    select_backend(args.devices)
    start = time.time()
    import jax
    import numpy as np

    if len(jax.devices()) < args.devices:
        sys.exit(f"needs {args.devices} devices, found {jax.devices()} (set XLA_FLAGS before importing jax)")
    rng = np.random.default_rng(args.seed)
    x = rng.normal(size=(args.batch_size, args.input_dim)).astype("float32")
    results = {}
    for kind in args.heads.split(","):
        results[kind] = {}
        for labels in [int(v) for v in args.labels.split(",")]:
            label_ids = rng.integers(2, args.vocabulary, size=(labels, args.label_words)).astype("int32")
            y = (rng.random((args.batch_size, labels)) < 5 / labels).astype("float32")
            entry = {}
            logits = {}
            for devices in (1, args.devices):
                entry[str(devices)], logits[devices] = measure(args, kind, label_ids, x, y, devices)
                print(kind, labels, devices, json.dumps(entry[str(devices)]), flush=True)
            entry["max_abs_difference"] = float(np.max(np.abs(logits[args.devices] - logits[1])))
            results[kind][str(labels)] = entry
    report = write_report(
        args.output,
        "label sharding (model parallelism over labels)",
        "benchmarks.label_sharding",
        args,
        argv,
        results,
        summary(results, args.devices),
        table(results, args.devices),
        start,
    )
    print("\n" + table(results, args.devices) + f"\n\n{json.dumps(report['summary'])}\nResults: {args.output}")


if __name__ == "__main__":
    main()
