"""Training-step cost of a GILE head as the label set grows: full BCE vs sampled labels.

Synthetic BioASQ-like setting (GILE section 4.2): batch 64, documents of 300
token ids, 100-d word vectors, a dense word-attention encoder (WAN, 100
units), label descriptions of 35 words, joint space d_j = 500, 11 positive
labels per document drawn from a Zipfian label distribution. For each label
count L (1k, 10k, 26,104, 100k) three training modes of the same model:

- `full`: binary cross-entropy over all L labels (`model.compile(loss=BCE)`);
- `sampled_0.3%`: `SampledLabelModel` with every positive of the batch plus
  0.3% of the labels as uniform negatives (GILE's BioASQ rate);
- `sampled_256`: every positive plus a fixed 256 negatives.

`max_positives` is 704 = 64 documents x 11 labels, so no positive can ever be
dropped. Step times are medians over timed `train_on_batch` calls after
compilation, all modes of one L interleaved in this one process (ratios, not
absolute times, are the result on a shared CPU). Peak memory is measured
separately: each (L, mode) runs a few steps in a fresh subprocess and reports
its peak resident set size (`ru_maxrss`), which includes the TensorFlow
runtime (~1 GB); the `baseline` row is that process doing everything but the
training step.

    python benchmarks/label_scaling.py                 # about 15 minutes on 2 CPU cores
    python benchmarks/label_scaling.py --quick         # tiny label sets, to check the script
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import RESULTS, write_report  # noqa: E402

from keras_labelemb.losses import SampledSigmoidLoss  # noqa: E402
from keras_labelemb.models import gile_wan  # noqa: E402
from keras_labelemb.training import SampledLabelModel  # noqa: E402

MODES = ("full", "sampled_0.3%", "sampled_256")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--labels", default="1000,10000,26104,100000")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--tokens", type=int, default=300)
    p.add_argument("--label-words", type=int, default=35)
    p.add_argument("--labels-per-document", type=int, default=11)
    p.add_argument("--vocabulary", type=int, default=30000)
    p.add_argument("--embedding-dim", type=int, default=100)
    p.add_argument("--units", type=int, default=100)
    p.add_argument("--joint-dim", type=int, default=500)
    p.add_argument("--steps", type=int, default=7, help="timed steps per mode (after 2 warm-up steps)")
    p.add_argument("--no-jit", action="store_true", help="graph mode instead of jit_compile=True")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", default=str(RESULTS / "label_scaling.json"))
    p.add_argument("--memory-probe", nargs=2, metavar=("LABELS", "MODE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.labels, args.steps, args.vocabulary = "300,2000", 2, 3000
    return args


def synthetic_batch(args, num_labels):
    rng = np.random.default_rng(args.seed)
    label_ids = rng.integers(2, args.vocabulary, size=(num_labels, args.label_words)).astype("int32")
    ids = rng.integers(2, args.vocabulary, size=(args.batch_size, args.tokens)).astype("int32")
    zipf = 1.0 / np.arange(1, num_labels + 1)
    y = np.zeros((args.batch_size, num_labels), "float32")
    for row in range(args.batch_size):
        y[row, rng.choice(num_labels, args.labels_per_document, replace=False, p=zipf / zipf.sum())] = 1.0
    return label_ids, ids, y


def build(args, mode, label_ids):
    keras.utils.set_random_seed(args.seed)
    model = gile_wan(args.vocabulary, label_ids, max_tokens=args.tokens, embedding_dim=args.embedding_dim,
                     encoder="dense", encoder_units=args.units, joint_dim=args.joint_dim, dropout=0.0)
    if mode == "full":
        trainer = model
        loss = keras.losses.BinaryCrossentropy(from_logits=True)
    else:
        negatives = dict(negative_rate=0.003) if mode == "sampled_0.3%" else dict(num_negatives=256)
        sampled = SampledSigmoidLoss(max_positives=args.batch_size * args.labels_per_document, seed=args.seed,
                                     **negatives)
        trainer, loss = SampledLabelModel(model, sampled), None
    kwargs = {} if loss is None else {"loss": loss}
    trainer.compile(keras.optimizers.Adam(1e-3), jit_compile=not args.no_jit, **kwargs)
    return trainer


def step_times(trainer, x, y, steps):
    trainer.train_on_batch(x, y)  # traces and compiles
    trainer.train_on_batch(x, y)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        loss = trainer.train_on_batch(x, y)
        times.append(time.perf_counter() - start)
        if not np.isfinite(np.asarray(loss)).all():
            raise FloatingPointError(f"non-finite loss {loss}")
    return times


def memory_probe(args, num_labels, mode):
    """Runs in a subprocess: peak RSS of a few steps of one (L, mode)."""
    import tensorflow as tf

    label_ids, ids, y = synthetic_batch(args, num_labels)
    x, y = tf.constant(ids), tf.constant(y)
    if mode != "baseline":
        trainer = build(args, mode, label_ids)
        for _ in range(3):
            trainer.train_on_batch(x, y)
    print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def measure_memory(args, argv, num_labels, mode):
    command = [sys.executable, os.path.abspath(__file__), "--memory-probe", str(num_labels), mode]
    command += [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--quick"]
    if args.quick:
        command += ["--quick"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        return {"error": out.stderr[-500:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(results):
    rows = {int(k): v for k, v in results.get("step", {}).items()}
    out = {}
    if 26104 in rows:
        out["speedup_at_26104"] = rows[26104]["speedup"]["sampled_0.3%"]
    if 1000 in rows and 100000 in rows:
        out["sampled_growth_1k_to_100k"] = round(
            rows[100000]["median_seconds"]["sampled_0.3%"] / rows[1000]["median_seconds"]["sampled_0.3%"], 3)
        out["full_growth_1k_to_100k"] = round(
            rows[100000]["median_seconds"]["full"] / rows[1000]["median_seconds"]["full"], 3)
    return out


def table(results):
    lines = ["| labels | candidates 0.3% / 256 | full step | sampled 0.3% | sampled 256 | speed-up 0.3% | speed-up 256 "
             "| peak RSS MB full / 0.3% / 256 |", "|---|---|---|---|---|---|---|---|"]
    for labels, r in sorted(results.get("step", {}).items(), key=lambda kv: int(kv[0])):
        t, s, m = r["median_seconds"], r["speedup"], r.get("peak_rss_mb", {})
        memory = " / ".join(f"{m[k]:.0f}" if isinstance(m.get(k), (int, float)) else "-" for k in MODES)
        lines.append(f"| {int(labels):,} | {r['candidates']['sampled_0.3%']} / {r['candidates']['sampled_256']} "
                     f"| {t['full']:.3f} s | {t['sampled_0.3%']:.3f} s | {t['sampled_256']:.3f} s "
                     f"| {s['sampled_0.3%']:.1f}x | {s['sampled_256']:.1f}x | {memory} |")
    if "baseline_rss_mb" in results:
        lines.append(f"\nBaseline process (TensorFlow, data, no model): {results['baseline_rss_mb']:.0f} MB peak RSS.")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    if args.memory_probe:
        return memory_probe(args, int(args.memory_probe[0]), args.memory_probe[1])
    import tensorflow as tf

    start = time.time()
    results = {"step": {}, "mode": "XLA (jit_compile=True)" if not args.no_jit else "graph (jit_compile=False)"}
    report = lambda: write_report(args.output, "label_scaling (synthetic, BioASQ-like)", "label_scaling.py", args, argv,  # noqa: E731
                                  results, summary(results), table(results), start)
    for num_labels in [int(v) for v in args.labels.split(",")]:
        print(f"\n== L = {num_labels:,} ==", flush=True)
        label_ids, ids, y = synthetic_batch(args, num_labels)
        x, y = tf.constant(ids), tf.constant(y)
        trainers = {mode: build(args, mode, label_ids) for mode in MODES}
        times = {mode: [] for mode in MODES}
        for mode in MODES:  # compile all first, then interleave the timed steps
            trainers[mode].train_on_batch(x, y)
        for _ in range(2):
            for mode in MODES:
                times[mode] += step_times(trainers[mode], x, y, max(1, args.steps // 2))
        median = {mode: float(np.median(v)) for mode, v in times.items()}
        loss = {mode: trainers[mode].sampled_loss for mode in MODES if mode != "full"}
        row = {
            "median_seconds": {k: round(v, 4) for k, v in median.items()},
            "all_seconds": {k: [round(t, 4) for t in v] for k, v in times.items()},
            "speedup": {k: round(median["full"] / median[k], 2) for k in MODES if k != "full"},
            "candidates": {k: loss[k].num_candidates(num_labels) for k in loss},
            "negatives": {k: loss[k].negatives_for(num_labels) for k in loss},
            "distinct_positives_in_batch": int(np.count_nonzero(np.asarray(y).max(axis=0))),
        }
        results["step"][str(num_labels)] = row
        print(json.dumps({k: row[k] for k in ("median_seconds", "speedup", "candidates")}), flush=True)
        del trainers
        keras.backend.clear_session()
        report()
    if not args.no_memory:
        print("\n== peak memory (one subprocess per configuration) ==", flush=True)
        results["baseline_rss_mb"] = measure_memory(args, argv, 1000, "baseline").get("peak_rss_mb")
        for labels, row in results["step"].items():
            row["peak_rss_mb"] = {mode: measure_memory(args, argv, int(labels), mode).get("peak_rss_mb", "error")
                                  for mode in MODES}
            print(labels, row["peak_rss_mb"], flush=True)
            report()
    report()
    print("\n" + table(results) + f"\n\n{json.dumps(summary(results))}\nResults: {args.output}")


if __name__ == "__main__":
    main()
