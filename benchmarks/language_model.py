"""Output layers for word-level language modelling on Penn Treebank and WikiText-2 (DRILL Table 4, Fig. 3).

One process, the same encoder, data order, number of steps, learning-rate
schedule and seed for every output layer (`drill_lm`, heads from `DrillHead`):

- PTB ablation (DRILL Table 4): full softmax, weight tying [PW17], bilinear
  [G18], dual nonlinear [PH18], DRILL k = 1, 2, 3, 4, DRILL k=4 with residuals
  between layers, DRILL k=4 with standard instead of variational dropout.
  Validation and test perplexity.
- Timing: seconds per training step of every configuration, timed
  round-robin on one fixed batch (3 rounds x 10 steps, median; the machine is
  shared, so turns expose every configuration to the same load), as a ratio to
  tied; seconds per epoch as `fit` measured them are recorded too.
- Frequency bands (DRILL Fig. 3): test tokens grouped by how often the target
  word occurs in the PTB training text; per band, the mean cross-entropy of the
  best DRILL (validation) and each baseline, and the relative difference
  `100 * (CE_baseline - CE_drill) / CE_baseline` (positive: DRILL better),
  plotted to `language_model_bands.png`.
- WikiText-2: tied vs DRILL (the DRILL configuration with the best PTB validation
  perplexity of this run, else depth 4), same encoder, as many steps as one PTB
  epoch (829 at batch 32, 0.44 of a WikiText-2 epoch; `--wikitext-epochs`).

Default configuration, sized so that all ten PTB output layers plus WikiText-2
train on 2 CPU cores (the encoder is far smaller than the paper's AWD-LSTM, and
trains for 2 epochs instead of hundreds): 1-layer LSTM of 128 units, 128-d tied
embedding (uniform +-0.1), dropout 0.3 on the word vectors and on the LSTM
output, truncated BPTT of 35 steps with batch 32 (state carried across batches,
reset every epoch), 2 epochs on PTB (1,658 steps), SGD with learning rate 20
decayed along a cosine to 2, global gradient norm clipped at 0.25 (the recipe of
PyTorch's word-language-model example); DRILL: sigmoid, residual to E,
variational dropout 0.3 between layers (the paper: 0.6 over a much longer
training); `jit_compile=True` (XLA was faster than graph mode for this model on
CPU; `--no-jit`). Adam (`--optimizer adam`) trained worse with this encoder, and
at 3e-3 drove some evaluation streams into a stuck LSTM state. Perplexity is
computed over the full validation/test streams cut into 10 rows (batch 10, as
Zaremba et al.), state carried, the remainder that does not fill a 35-step
window dropped (<0.2% of the tokens). `--seeds N` trains every configuration
with N initialisation seeds and reports mean ± sample std (frequency bands from
the per-token cross-entropy averaged over the seeds).

Run time on 2 CPU cores: about 60 minutes with the defaults (one seed, ten
configurations, WikiText-2); about 8 minutes per configuration and seed;
`--quick` under 2 minutes (83 s measured while another benchmark shared the cores).

    python -m benchmarks.language_model                 # the whole ablation, one seed
    python -m benchmarks.language_model --quick         # a check of the script
    python -m benchmarks.language_model --configs tied,bilinear,drill_k4_residual_prev --seeds 3   # the README table
"""

import json
import os
import time

import keras
import numpy as np
import tensorflow as tf

from benchmarks.benchmark import Arguments, seed_range
from benchmarks.datasets import load_ptb, load_wikitext2
from benchmarks.noise_rule import paired_comparison
from benchmarks.report import write_report
from benchmarks.seeds import seed_summary
from benchmarks.tables import claim, mean_pm_std, met
from benchmarks.timing import EpochTimer, round_robin, speed_ratio, train_steps
from benchmarks.training_loop import fit_best_epoch
from keras_labelemb.datasets.bptt import num_bptt_batches
from keras_labelemb.metrics import Perplexity
from keras_labelemb.models import drill_lm
from keras_labelemb.training import ResetStates
from keras_labelemb.training.reset_states import reset_states

# name -> (head, head options of drill_lm): DRILL Table 4, in its order.
CONFIGS = {
    "full": ("full", {}),
    "tied": ("tied", {}),
    "bilinear": ("bilinear", {}),
    "dual": ("dual", {}),
    **{f"drill_k{k}": ("drill", {"depth": k}) for k in (1, 2, 3, 4)},
    "drill_k4_residual_prev": ("drill", {"depth": 4, "residual_to_previous": True}),
    "drill_k4_standard_dropout": ("drill", {"depth": 4, "head_dropout_type": "standard"}),
}
LABELS = {
    "full": "Full softmax",
    "tied": "Weight tying [PW17]",
    "bilinear": "Bilinear map. [G18]",
    "dual": "Dual nonlinear map. [PH18]",
    "drill_k1": "DRILL 1-layer",
    "drill_k2": "DRILL 2-layers",
    "drill_k3": "DRILL 3-layers",
    "drill_k4": "DRILL 4-layers",
    "drill_k4_residual_prev": "+ residuals between layers",
    "drill_k4_standard_dropout": "- no variational dropout",
}
BASELINES = ("full", "tied", "bilinear", "dual")
PTB_TRAIN_TOKENS = 929_589
BANDS = ((1, 10), (11, 100), (101, 1000), (1001, 10000), (10001, None))


def parse_args(argv=None):
    p = Arguments("language_model", __doc__, seeds=1, epochs=2, batch_size=32)
    p.add_argument("--parts", default="ptb,timing,bands,wikitext2", help="comma-separated parts to run")
    p.add_argument("--configs", default=",".join(CONFIGS), help="PTB output layers to train")
    p.add_argument("--units", type=int, default=128, help="LSTM units per layer")
    p.add_argument("--layers", type=int, default=1, help="LSTM layers")
    p.add_argument("--embedding-dim", type=int, default=None, help="default: --units")
    p.add_argument("--bptt", type=int, default=35)
    p.add_argument("--eval-batch-size", type=int, default=10)
    p.add_argument("--dropout", type=float, default=0.3, help="on word vectors and LSTM outputs")
    p.add_argument("--head-dropout", type=float, default=0.3, help="between DRILL layers")
    p.add_argument("--head-activation", default="sigmoid")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    p.add_argument("--learning-rate", type=float, default=None, help="default: 20 (sgd), 2e-3 (adam)")
    p.add_argument("--clipnorm", type=float, default=0.25, help="global gradient-norm clipping")
    p.add_argument("--no-jit", dest="jit", action="store_false", help="TensorFlow graph mode instead of XLA")
    p.add_argument(
        "--wikitext-epochs",
        type=float,
        default=None,
        help="WikiText-2 training length in epochs (< 1: that fraction of one epoch); "
        "default: as many steps as one PTB epoch",
    )
    p.add_argument(
        "--wikitext-depth",
        type=int,
        default=None,
        help="DRILL depth on WikiText-2; default: the best DRILL configuration on PTB validation, else 4",
    )
    p.add_argument("--max-steps", type=int, default=None, help="cap on training steps per epoch")
    p.add_argument("--max-eval-batches", type=int, default=None, help="cap on evaluation batches per split")
    p.add_argument("--timing-rounds", type=int, default=3)
    p.add_argument("--timing-steps", type=int, default=10)
    args = p.parse_args(argv)
    p.check_choices(args, configs=CONFIGS)
    if args.quick:
        args.units, args.batch_size, args.eval_batch_size = 32, 16, 16
        args.max_steps, args.max_eval_batches, args.epochs = 8, 4, 1
        args.timing_rounds, args.timing_steps, args.jit = 2, 2, False
    if args.learning_rate is None:
        args.learning_rate = 20.0 if args.optimizer == "sgd" else 2e-3
    return args


def build(args, vocabulary_size, name, batch_size, seed=None):
    head, options = CONFIGS[name]
    if head == "drill":  # the baselines keep their plain form
        options = {"head_dropout": args.head_dropout, "head_activation": args.head_activation, **options}
    keras.utils.set_random_seed(args.seed if seed is None else seed)  # the same initial encoder for every layer
    return drill_lm(
        vocabulary_size,
        batch_size=batch_size,
        bptt=args.bptt,
        units=args.units,
        num_layers=args.layers,
        embedding_dim=args.embedding_dim,
        dropout=args.dropout,
        head=head,
        name=name,
        **options,
    )


def compile_model(model, args, total_steps):
    schedule = keras.optimizers.schedules.CosineDecay(args.learning_rate, decay_steps=max(1, total_steps), alpha=0.1)
    optimizer = keras.optimizers.SGD if args.optimizer == "sgd" else keras.optimizers.Adam
    model.compile(
        optimizer(schedule, global_clipnorm=args.clipnorm),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[Perplexity()],
        jit_compile=args.jit,
    )


def head_parameters(model):
    head = model.layers[-1]  # `drill_lm`'s output layer is its head
    own = [w for w in head.trainable_weights if "embeddings" not in w.path]
    return int(sum(np.prod(w.shape) for w in own))


def token_cross_entropy(model, data, split, args):
    """Per-token cross-entropy and targets over a split, state carried (batch `--eval-batch-size`)."""
    x, y = data.bptt_arrays(split, args.eval_batch_size, args.bptt)
    if args.max_eval_batches:
        x, y = x[: args.max_eval_batches], y[: args.max_eval_batches]

    @tf.function(jit_compile=args.jit)
    def step(inputs, targets):
        logits = model(inputs, training=False)
        return keras.ops.sparse_categorical_crossentropy(targets, logits, from_logits=True)

    reset_states(model)
    ce = np.stack([step(tf.constant(xb), tf.constant(yb)).numpy() for xb, yb in zip(x, y)])
    return ce.reshape(-1), y.reshape(-1)


def train(args, data, name, epochs, steps_per_epoch, seed=None):
    """Trains one configuration; returns its result, the trained model and the test per-token cross-entropy."""
    model = build(args, data.vocabulary_size, name, args.batch_size, seed)
    compile_model(model, args, epochs * steps_per_epoch)
    dataset = data.bptt_dataset("train", args.batch_size, args.bptt).take(steps_per_epoch)
    timer = EpochTimer()
    history, fitted = fit_best_epoch(
        model, dataset, best=None, epochs=epochs, callbacks=[ResetStates(), timer], shuffle=False
    )
    evaluator = build(args, data.vocabulary_size, name, args.eval_batch_size)
    evaluator.set_weights(model.get_weights())
    val_ce, _ = token_cross_entropy(evaluator, data, "val", args)
    test_ce, test_targets = token_cross_entropy(evaluator, data, "test", args)
    result = {
        "val_ppl": round(float(np.exp(val_ce.mean())), 3),
        "test_ppl": round(float(np.exp(test_ce.mean())), 3),
        "train_ppl_last_epoch": round(float(history["perplexity"][-1]), 3),
        "parameters": fitted["parameters"],
        "head_parameters": head_parameters(model),
        "train_seconds": fitted["train_seconds"],
        "epoch_seconds": [round(s, 1) for s in timer.seconds],
        "first_batch_seconds": round(timer.first_batch or 0.0, 1),
        "seconds_per_epoch": round(timer.steady_seconds(), 1),
        "steps": epochs * steps_per_epoch,
        "val_tokens": int(val_ce.size),
        "test_tokens": int(test_ce.size),
    }
    return result, model, (test_ce, test_targets)


def steps_per_epoch(args, data, fraction=1.0):
    steps = max(1, int(data.num_batches("train", args.batch_size, args.bptt) * fraction))
    return min(steps, args.max_steps) if args.max_steps else steps


def run_ptb(args, data, results, state, report):
    steps = steps_per_epoch(args, data)
    results["ptb"] = results.get("ptb", {})
    for name in args.configs.split(","):
        runs, test_ce = [], []
        for seed in seed_range(args):
            print(f"\n== PTB: {LABELS[name]} ({name}), seed {seed} ==", flush=True)
            result, model, test = train(args, data, name, args.epochs, steps, seed)
            runs.append({**result, "seed": seed})
            test_ce.append(test[0])
        result = seed_summary(runs, ("val_ppl", "test_ppl", "seconds_per_epoch"))
        results["ptb"][name] = result
        # Bands read the per-token cross-entropy averaged over the seeds.
        state["models"][name], state["test_ce"][name] = model, (np.mean(test_ce, axis=0), test[1])
        print(
            json.dumps({k: result[k] for k in ("val_ppl", "test_ppl", "seconds_per_epoch", "head_parameters")}),
            flush=True,
        )
        report()


def run_timing(args, data, results, state):
    """Seconds per training step of each configuration, round-robin on one fixed batch, compilation excluded."""
    x, y = data.bptt_arrays("train", args.batch_size, args.bptt)
    x, y = x[0], y[0]
    turns = {}
    for name in args.configs.split(","):
        model = state["models"].get(name)
        if model is None:  # the timing part alone: untrained models cost the same per step
            model = build(args, data.vocabulary_size, name, args.batch_size)
            compile_model(model, args, 1000)
        model.train_on_batch(x, y)  # trace and compile outside the clock
        turns[name] = train_steps(model, x, y, args.timing_steps)
    times = round_robin(turns, args.timing_rounds)
    timing = {
        "step_seconds": {k: round(v / args.timing_steps, 5) for k, v in times["wall"].items()},
        "step_cpu_seconds": {k: round(v / args.timing_steps, 5) for k, v in times["cpu"].items()},
        "mode": "jit_compile=True (XLA)" if args.jit else "TensorFlow graph mode (no XLA)",
        "note": f"CPU, {args.timing_rounds} round-robin rounds (rotating order) x {args.timing_steps} steps on one "
        "batch, median; every configuration runs the same steps per epoch, so the step-time ratio is the "
        "epoch-time ratio",
    }
    if "tied" in turns:
        ratios = {k: speed_ratio(times, k, "tied") for k in turns}
        timing["ratio_to_tied"] = {k: r["ratio"] for k, r in ratios.items()}
        timing["ratio_clock"] = {k: r["clock"] for k, r in ratios.items()}
    results["timing"] = timing
    print(json.dumps(timing), flush=True)


def best_drill(ptb):
    """The DRILL configuration (any depth or variant) with the lowest validation perplexity, else None."""
    drills = [name for name in ptb if CONFIGS.get(name, ("",))[0] == "drill"]
    return min(drills, key=lambda name: ptb[name]["val_ppl"]) if drills else None


def frequency_bands(args, data, results, state):
    counts = data.train_counts()
    best = best_drill(results.get("ptb", {}))
    if best is None or not state["test_ce"]:
        print("bands: needs the PTB part with a DRILL configuration in this run; skipped", flush=True)
        return
    targets = state["test_ce"][best][1]
    target_counts = counts[targets]
    bands = []
    for low, high in BANDS:
        in_band = (target_counts >= low) & (True if high is None else target_counts <= high)
        types = int(((counts >= low) & (True if high is None else counts <= high)).sum())
        band = {
            "band": f"{low}-{high}" if high else f">{low - 1}",
            "word_types": types,
            "test_tokens": int(in_band.sum()),
            "mean_ce": {},
            "relative_difference_pct": {},
        }
        for name, (ce, _) in state["test_ce"].items():
            if in_band.any():
                band["mean_ce"][name] = round(float(ce[in_band].mean()), 4)
        for name in BASELINES:
            if name in band["mean_ce"] and best in band["mean_ce"]:
                b, d = band["mean_ce"][name], band["mean_ce"][best]
                band["relative_difference_pct"][name] = round(100.0 * (b - d) / b, 2)
        bands.append(band)
    results["bands"] = {
        "drill": best,
        "bands": bands,
        "note": "bands of training-set counts of the target word; difference = "
        "100 * (CE_baseline - CE_drill) / CE_baseline over the test tokens of the band",
    }
    print(json.dumps(results["bands"]), flush=True)


def plot_bands(results, path):
    if "bands" not in results:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bands = results["bands"]["bands"]
    names = [n for n in BASELINES if any(n in b["relative_difference_pct"] for b in bands)]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(bands))]
        ax.bar(xs, [b["relative_difference_pct"].get(name, 0.0) for b in bands], width, label=LABELS[name])
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(bands)))
    ax.set_xticklabels([f"{b['band']}\n({b['word_types']} types)" for b in bands])
    ax.set_xlabel("training-set frequency of the target word")
    ax.set_ylabel("cross-entropy difference (%)\n(B - DRILL) / B")
    ax.set_title(f"PTB test: {LABELS[results['bands']['drill']]} vs baselines B")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_wikitext2(args, results, report):
    data = load_wikitext2()
    per_epoch = data.num_batches("train", args.batch_size, args.bptt)
    fraction = args.wikitext_epochs
    if fraction is None:  # the steps of one PTB epoch
        fraction = num_bptt_batches(PTB_TRAIN_TOKENS, args.batch_size, args.bptt) / per_epoch
    epochs, part = (1, fraction) if fraction < 1 else (int(round(fraction)), 1.0)
    steps = steps_per_epoch(args, data, part)
    if args.wikitext_depth is not None:
        drill = f"drill_k{args.wikitext_depth}"
    else:
        drill = best_drill(results.get("ptb", {})) or "drill_k4"
    results["wikitext2"] = {
        "vocabulary_size": data.vocabulary_size,
        "train_tokens": int(len(data.train)),
        "epochs": round(epochs * steps / per_epoch, 3),
        "steps": epochs * steps,
        "drill": drill,
    }
    for name in ("tied", drill):
        print(f"\n== WikiText-2: {name} ==", flush=True)
        result, _, _ = train(args, data, name, epochs, steps)
        results["wikitext2"][name] = result
        print(json.dumps({k: result[k] for k in ("val_ppl", "test_ppl", "seconds_per_epoch")}), flush=True)
        report()


def summary(results):
    ptb = results.get("ptb", {})
    out = {}
    if ptb:
        out["test_ppl"] = {name: ptb[name]["test_ppl"] for name in CONFIGS if name in ptb}
        out["test_ppl_std"] = {name: ptb[name].get("test_ppl_std") for name in CONFIGS if name in ptb}
    ratio = results.get("timing", {}).get("ratio_to_tied", {})
    best = best_drill(ptb)
    if best in ratio:
        out["drill"] = best
        out["epoch_time_ratio_drill_vs_tied"] = ratio[best]
    return out


def table(args, results):
    lines = [
        f"Encoder: {args.layers}-layer LSTM, {args.units} units, embedding {args.embedding_dim or args.units}, "
        f"batch {args.batch_size} x bptt {args.bptt}, dropout {args.dropout}, {args.epochs} epoch(s) on PTB, "
        f"{args.optimizer.upper()} {args.learning_rate:g} cosine to 10%, clipnorm {args.clipnorm:g}; "
        f"DRILL: {args.head_activation}, residual to E, "
        f"dropout {args.head_dropout} between layers.",
        "",
    ]
    ptb, ratio = results.get("ptb", {}), results.get("timing", {}).get("ratio_to_tied", {})
    if ptb:
        lines += [
            "Penn Treebank (DRILL Table 4 layout)"
            + (f"; mean ± sample std over {args.seeds} seeds" if args.seeds > 1 else "; one seed"),
            "",
            "| output layer | #param (all) | #param (head) | validation ppl | test ppl | s/epoch (fit) "
            "| step time / tied |",
            "|---|---|---|---|---|---|---|",
        ]
        for name in CONFIGS:
            if name in ptb:
                r = ptb[name]
                rt = _ratio_cell(results["timing"], name) if name in ratio else "-"
                val, test = (mean_pm_std(r[k], r.get(f"{k}_std"), digits=2) for k in ("val_ppl", "test_ppl"))
                lines.append(
                    f"| {LABELS[name]} | {r['parameters']:,} | {r['head_parameters']:,} | {val} "
                    f"| {test} | {r['seconds_per_epoch']:.0f} | {rt} |"
                )
    elif ratio:  # a timing-only run: the step times alone
        lines += ["| output layer | s / step | step time / tied |", "|---|---|---|"]
        for name in CONFIGS:
            if name in ratio:
                seconds = results["timing"]["step_seconds"][name]
                lines.append(f"| {LABELS[name]} | {seconds:.3f} | {_ratio_cell(results['timing'], name)} |")
    if "timing" in results:
        lines += ["", f"Step times: {results['timing']['note']}; {results['timing']['mode']}."]
        if any(_ratio_cell(results["timing"], name).endswith("(CPU)") for name in ratio):
            lines[-1] += " (CPU): the ratio of CPU times, where wall time was throttled."
    if "bands" in results:
        b = results["bands"]
        baselines = [n for n in BASELINES if any(n in band["relative_difference_pct"] for band in b["bands"])]
        lines += [
            "",
            f"Frequency bands (PTB test; DRILL = {LABELS[b['drill']]}, the best DRILL configuration on validation): "
            "relative cross-entropy difference (%) = 100 (CE_B - CE_DRILL) / CE_B, positive when DRILL is better",
            "",
            "| band (training count) | word types | test tokens | " + " | ".join(LABELS[n] for n in baselines) + " |",
            "|---|---|---|" + "---|" * len(baselines),
        ]
        for band in b["bands"]:
            diffs = " | ".join(
                f"{band['relative_difference_pct'][n]:+.2f}" if n in band["relative_difference_pct"] else "-"
                for n in baselines
            )
            lines.append(f"| {band['band']} | {band['word_types']:,} | {band['test_tokens']:,} | {diffs} |")
    wt = results.get("wikitext2")
    if wt:
        lines += [
            "",
            f"WikiText-2 ({wt['vocabulary_size']:,} words), {wt['steps']} steps ({wt['epochs']} epochs), same encoder",
            "",
            "| output layer | validation ppl | test ppl | s/epoch (fit) |",
            "|---|---|---|---|",
        ]
        for name in ("tied", wt["drill"]):
            if name in wt:
                r = wt[name]
                lines.append(
                    f"| {LABELS[name]} | {r['val_ppl']:.2f} | {r['test_ppl']:.2f} | {r['seconds_per_epoch']:.0f} |"
                )
    return "\n".join(lines)


def _ratio_cell(timing, name):
    clock = timing.get("ratio_clock", {}).get(name, "wall")  # results written before the harness: wall only
    return f"{timing['ratio_to_tied'][name]:.2f}" + (" (CPU)" if clock.startswith("cpu") else "")


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    parts = set(args.parts.split(","))
    results = {"config_note": "DRILL Table 4 ablation with a small encoder; see the script's docstring"}
    state = {"models": {}, "test_ce": {}}
    png = os.path.splitext(args.output)[0] + "_bands.png"

    def report():
        write_report(
            args.output,
            "language modelling output layers (DRILL Table 4, Fig. 3)",
            "benchmarks.language_model",
            args,
            argv,
            results,
            summary(results),
            table(args, results) + (f"\n\n![frequency bands]({os.path.basename(png)})" if "bands" in results else ""),
            start,
            rows=rows,
        )

    ptb = load_ptb() if parts & {"ptb", "timing", "bands"} else None
    if ptb is not None:
        results["ptb_data"] = {
            "vocabulary_size": ptb.vocabulary_size,
            "train_tokens": int(len(ptb.train)),
            "steps_per_epoch": steps_per_epoch(args, ptb),
        }
    if "ptb" in parts:
        run_ptb(args, ptb, results, state, report)
    if "timing" in parts:
        print("\n== step times, round-robin ==", flush=True)
        run_timing(args, ptb, results, state)
        report()
    if "bands" in parts:
        frequency_bands(args, ptb, results, state)
        plot_bands(results, png)
        report()
    state["models"].clear()
    if "wikitext2" in parts:
        run_wikitext2(args, results, report)
    report()
    print(
        "\n" + table(args, results) + f"\n\n{json.dumps(summary(results))}\nWall time {time.time() - start:.0f} s. "
        f"Results: {args.output}",
        flush=True,
    )


DRILL_NAMES = {f"drill_k{k}": f"DRILL k={k}" for k in (1, 2, 3, 4)} | {
    "drill_k4_residual_prev": "DRILL k=4, residuals between layers",
    "drill_k4_standard_dropout": "DRILL k=4, standard dropout",
}


def rows(report):
    """The best DRILL layer on validation against weight tying and the bilinear map, by the noise rule over seeds."""
    s, seeds = report["summary"], report["config"].get("seeds") or 1
    if not {"tied", "bilinear"} <= set(s.get("test_ppl", {})):
        return []
    runs = report["results"]["ptb"]
    ppl, std = s["test_ppl"], s.get("test_ppl_std") or {}
    drill = s.get("drill") or "drill_k1"  # the best DRILL configuration on validation in this run

    def cell(name):
        return mean_pm_std(ppl[name], std.get(name), digits=1)

    def below(name):
        """The noise rule over seeds (lower perplexity is better); one seed: a plain comparison."""
        per_seed = [{r["seed"]: r["test_ppl"] for r in runs.get(n, {}).get("seeds", [])} for n in (drill, name)]
        common = sorted(set(per_seed[0]) & set(per_seed[1]))
        if len(common) < 2:
            return met(ppl[name] > ppl[drill])
        rule = paired_comparison([-per_seed[0][k] for k in common], [-per_seed[1][k] for k in common])
        return met(rule["met"]) + f" (p {rule['p_value']:.2g})"

    batch = report["config"]["batch_size"]
    return [
        claim(
            f"Penn Treebank: test perplexity of the output layer (small LSTM, {report['config']['epochs']} epochs, "
            f"batch {batch}, " + (f"mean ± std over {seeds} seeds)" if seeds > 1 else "one seed)"),
            f"{DRILL_NAMES.get(drill, drill)} {cell(drill)}",
            f"weight tying {cell('tied')}; bilinear [G18] {cell('bilinear')}",
            "DRILL 1.3 below tying and below bilinear (AWD-LSTM; DRILL Table 4)",
            "below tying (noise rule over seeds): " + below("tied") + "; below bilinear: " + below("bilinear"),
            "[language modelling](pages/language-model.md)",
            f"Penn Treebank: test perplexity, DRILL output layer (batch {batch})",
        )
    ]


if __name__ == "__main__":
    main()
