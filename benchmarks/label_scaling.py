"""Training-step cost of a GILE head as the label set grows: full BCE vs sampled labels.

Synthetic BioASQ-like setting (GILE section 4.2): batch 64, 100-d word
vectors, label descriptions of 35 words, joint space d_j = 500, 11 positive
labels per document drawn from a Zipfian label distribution. Two models:

- `head` (the summary): the output layer alone, `GileHead` on synthetic
  100-d document vectors, label words looked up in a trained embedding of
  30k words: the cost the label count controls;
- `wan`: the same head under a document encoder, token ids of 300 words ->
  embedding -> dense word-attention encoder (WAN, 100 units): end to end,
  where the encoder's fixed cost bounds the possible speed-up.

For each label count L (1k, 10k, 26,104, 100k) three training modes of the same model:

- `full`: binary cross-entropy over all L labels (`model.compile(loss=BCE)`);
- `sampled_0.3%`: `SampledLabelModel` with every positive of the batch plus
  0.3% of the labels as uniform negatives (GILE's BioASQ rate);
- `sampled_256`: every positive plus a fixed 256 negatives.

`max_positives` is 704 = 64 documents x 11 labels, so no positive can ever be
dropped. Step times are medians over timed `train_on_batch` calls after
compilation, all modes of one L taking turns in a rotating order in this one
process (`benchmarks.timing.round_robin`; wall and CPU time; ratios, not
absolute times, are the result on a shared CPU). Peak memory is measured
separately: each (L, mode) runs a few steps in a fresh subprocess and reports
the resident memory that building, compiling and 3 training steps add to it
(sampled every 2 ms), for the head-only model.

Run time on 2 CPU cores: about 3 minutes with the defaults; `--quick` under 4 minutes
(3.7 measured while another benchmark shared the cores).

    python -m benchmarks.label_scaling                 # 1k to 100k labels, head and WAN
    python -m benchmarks.label_scaling --quick         # tiny label sets, to check the script
"""

import argparse
import json
import subprocess
import sys
import time

import keras
import numpy as np

from benchmarks.memory import peak_memory
from benchmarks.report import REPO, RESULTS, write_report
from benchmarks.tables import markdown_table
from benchmarks.timing import round_robin, speed_ratio, train_steps
from keras_labelemb.layers import GileHead
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models import gile_wan
from keras_labelemb.training import SampledLabelModel

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
    p.add_argument("--models", default="head,wan", help="head (output layer alone) and/or wan (with encoder)")
    p.add_argument(
        "--steps", type=int, default=7, help="round-robin rounds of one timed step per mode (after 2 warm-up steps)"
    )
    p.add_argument("--no-jit", action="store_true", help="graph mode instead of jit_compile=True")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory subprocesses")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", default=str(RESULTS / "label_scaling.json"))
    p.add_argument("--memory-probe", nargs=3, metavar=("MODEL", "LABELS", "MODE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.labels, args.steps, args.vocabulary = "300,2000", 2, 3000
    return args


def synthetic_batch(args, kind, num_labels):
    rng = np.random.default_rng(args.seed)
    label_ids = rng.integers(2, args.vocabulary, size=(num_labels, args.label_words)).astype("int32")
    if kind == "head":
        ids = rng.normal(size=(args.batch_size, args.units)).astype("float32")
    else:
        ids = rng.integers(2, args.vocabulary, size=(args.batch_size, args.tokens)).astype("int32")
    zipf = 1.0 / np.arange(1, num_labels + 1)
    y = np.zeros((args.batch_size, num_labels), "float32")
    for row in range(args.batch_size):
        y[row, rng.choice(num_labels, args.labels_per_document, replace=False, p=zipf / zipf.sum())] = 1.0
    return label_ids, ids, y


def build(args, kind, mode, label_ids):
    keras.utils.set_random_seed(args.seed)
    if kind == "head":
        embedding = keras.layers.Embedding(args.vocabulary, args.embedding_dim, mask_zero=True)
        model = keras.Sequential(
            [keras.Input((args.units,)), GileHead(embedding=embedding, label_ids=label_ids, joint_dim=args.joint_dim)]
        )
    else:
        model = gile_wan(
            args.vocabulary,
            label_ids,
            max_tokens=args.tokens,
            embedding_dim=args.embedding_dim,
            encoder="dense",
            encoder_units=args.units,
            head={"joint_dim": args.joint_dim},
            dropout=0.0,
        )
    if mode == "full":
        trainer = model
        loss = keras.losses.BinaryCrossentropy(from_logits=True)
    else:
        negatives = dict(negative_rate=0.003) if mode == "sampled_0.3%" else dict(num_negatives=256)
        sampled = SampledSigmoidLoss(
            max_positives=args.batch_size * args.labels_per_document, seed=args.seed, **negatives
        )
        trainer, loss = SampledLabelModel(model, sampled), None
    kwargs = {} if loss is None else {"loss": loss}
    trainer.compile(keras.optimizers.Adam(1e-3), jit_compile=not args.no_jit, **kwargs)
    return trainer


def memory_probe(args, kind, num_labels, mode):
    """Runs in a subprocess: resident memory of building and running a few steps of one (model, L, mode).

    The peak while building, compiling and training, minus the size just before (`benchmarks.memory`).
    """
    import tensorflow as tf

    label_ids, ids, y = synthetic_batch(args, kind, num_labels)
    x, y = tf.constant(ids), tf.constant(y)

    def run():
        trainer = build(args, kind, mode, label_ids)
        for _ in range(3):
            trainer.train_on_batch(x, y)

    print(json.dumps({"peak_rss_mb": peak_memory(run)[2]}))


def measure_memory(args, argv, kind, num_labels, mode):
    command = [sys.executable, "-m", "benchmarks.label_scaling", "--memory-probe", kind, str(num_labels), mode]
    command += [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--quick"]
    if args.quick:
        command += ["--quick"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=REPO)
    if out.returncode != 0:
        return {"error": out.stderr[-500:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def summary(results):
    """Head-only numbers under the issue's keys; the end-to-end ones with a `_with_encoder` suffix."""
    out = {}
    for kind, suffix in (("head", ""), ("wan", "_with_encoder")):
        rows = {int(k): v for k, v in results.get(kind, {}).items()}
        if 26104 in rows:
            out["speedup_at_26104" + suffix] = rows[26104]["speedup"]["sampled_0.3%"]
        if 1000 in rows and 100000 in rows:
            out["sampled_growth_1k_to_100k" + suffix] = round(
                rows[100000]["median_seconds"]["sampled_0.3%"] / rows[1000]["median_seconds"]["sampled_0.3%"], 3
            )
            out["full_growth_1k_to_100k" + suffix] = round(
                rows[100000]["median_seconds"]["full"] / rows[1000]["median_seconds"]["full"], 3
            )
    return out


TITLES = {
    "head": "Output layer alone (GileHead on synthetic document vectors)",
    "wan": "End to end (300-token documents, WAN encoder, same head)",
}


def table(results):
    return "\n\n".join(
        f"{TITLES[kind]}, {results['mode']}:\n\n" + kind_table(results, kind) for kind in TITLES if results.get(kind)
    )


def kind_table(results, kind):
    header = [
        "labels",
        "candidates 0.3% / 256",
        "full step",
        "sampled 0.3%",
        "sampled 256",
        "speed-up 0.3%",
        "speed-up 256",
        "added peak RSS MB full / 0.3% / 256",
    ]
    rows = []
    for labels, r in sorted(results.get(kind, {}).items(), key=lambda kv: int(kv[0])):
        t, m = r["median_seconds"], r.get("peak_rss_mb", {})
        memory = " / ".join(f"{m[k]:.0f}" if isinstance(m.get(k), (int, float)) else "-" for k in MODES)
        rows.append(
            [
                f"{int(labels):,}",
                f"{r['candidates']['sampled_0.3%']} / {r['candidates']['sampled_256']}",
                *(f"{t[k]:.3f} s" for k in MODES),
                *(_speedup_cell(r, k) for k in MODES[1:]),
                memory,
            ]
        )
    lines = [markdown_table(header, rows)]
    if any(r.get("speedup_clock", {}).get(k, "").startswith("cpu") for r in results[kind].values() for k in MODES):
        lines.append("\n(CPU): the ratio of CPU times, where wall time was throttled; step times are wall time.")
    if any("peak_rss_mb" in r for r in results.get(kind, {}).values()):
        lines.append(
            "\nPeak RSS: resident memory added by building, compiling and running 3 training steps "
            "(fresh process per cell, sampled every 2 ms)."
        )
    return "\n".join(lines)


def _speedup_cell(row, mode):
    clock = row.get("speedup_clock", {}).get(mode, "wall")  # results written before the harness: wall only
    return f"{row['speedup'][mode]:.1f}x" + (" (CPU)" if clock.startswith("cpu") else "")


def main(argv=None):
    args = parse_args(argv)
    if args.memory_probe:
        kind, labels, mode = args.memory_probe
        return memory_probe(args, kind, int(labels), mode)
    import tensorflow as tf

    start = time.time()
    kinds = args.models.split(",")
    results = {"mode": "XLA (jit_compile=True)" if not args.no_jit else "graph (jit_compile=False)"}

    def report():
        return write_report(
            args.output,
            "label_scaling (synthetic, BioASQ-like)",
            "benchmarks.label_scaling",
            args,
            argv,
            results,
            summary(results),
            table(results),
            start,
        )

    for kind in kinds:
        results[kind] = {}
        for num_labels in [int(v) for v in args.labels.split(",")]:
            print(f"\n== {kind}: L = {num_labels:,} ==", flush=True)
            label_ids, ids, y = synthetic_batch(args, kind, num_labels)
            x, y = tf.constant(ids), tf.constant(y)
            trainers = {mode: build(args, kind, mode, label_ids) for mode in MODES}
            for mode in MODES:  # compile all first (twice: the first call also builds the optimizer)
                trainers[mode].train_on_batch(x, y)
                trainers[mode].train_on_batch(x, y)
            times = round_robin({mode: train_steps(trainers[mode], x, y, 1) for mode in MODES}, args.steps)
            ratios = {k: speed_ratio(times, "full", k) for k in MODES if k != "full"}
            sampler = {mode: trainers[mode].sampled_loss.label_sampler for mode in MODES if mode != "full"}
            row = {
                "median_seconds": {k: round(v, 4) for k, v in times["wall"].items()},
                "median_cpu_seconds": {k: round(v, 4) for k, v in times["cpu"].items()},
                "speedup": {k: round(r["ratio"], 2) for k, r in ratios.items()},
                "speedup_clock": {k: r["clock"] for k, r in ratios.items()},
                "candidates": {k: sampler[k].num_candidates(num_labels) for k in sampler},
                "negatives": {k: sampler[k].negatives_for(num_labels) for k in sampler},
                "distinct_positives_in_batch": int(np.count_nonzero(np.asarray(y).max(axis=0))),
            }
            results[kind][str(num_labels)] = row
            print(json.dumps({k: row[k] for k in ("median_seconds", "speedup", "candidates")}), flush=True)
            del trainers
            keras.backend.clear_session()
            report()
    if not args.no_memory:
        kind = kinds[0]
        print(f"\n== peak memory, {kind} (one subprocess per configuration) ==", flush=True)
        for labels, row in results[kind].items():
            row["peak_rss_mb"] = {
                mode: measure_memory(args, argv, kind, int(labels), mode).get("peak_rss_mb", "error") for mode in MODES
            }
            print(labels, row["peak_rss_mb"], flush=True)
            report()
    report()
    print("\n" + table(results) + f"\n\n{json.dumps(summary(results))}\nResults: {args.output}")


if __name__ == "__main__":
    main()
