"""KerasTuner search of the DRILL output layer of a word-level LSTM language model on Penn Treebank.

`python -m benchmarks.language_model` trains DRILL at depths 1-4 with one head
dropout (0.3, variational) and residuals to E, plus two ablations (residuals between
layers, standard dropout). This searches `DrillLanguageModelHyperModel`'s space
jointly with KerasTuner (`--tuner`: random search by default, Bayesian optimisation
or Hyperband): the label network's depth `k`, the dropout between its layers and its
kind (variational / standard), the residual form (to E, between layers, both) and
SGD's learning rate, on the benchmark's encoder and recipe (1-layer LSTM of 128
units, tied 128-d embedding, dropout 0.3, truncated BPTT of 35 steps with batch 32,
state carried across batches and reset every epoch, SGD with the global gradient
norm clipped at 0.25, cosine decay to 10%, XLA). Trials are selected on validation
perplexity only (the stream at batch 32, state carried); the best configuration is
then retrained once from a fixed seed for `--final-epochs` and scored once on test,
as the benchmark scores (a stateful copy at batch 10, state carried over the whole
stream), beside its validation perplexity measured the same way. The bar is the best
DRILL validation / test perplexity in `benchmarks/results/language_model.json`, read
from there when present.

Run time on 2 CPU cores: the recorded search (`--tuner bayesian --trials 4 --epochs 1
--final-epochs 2`) took 732 s, its epochs 100 s each; the defaults (6 trials x 2 epochs
plus 2 final epochs of 829 steps) about 30-40 minutes (standard dropout and depth 4
are the slow end, up to 190 s an epoch in the benchmark's table); `--quick` (32 units, 8 steps per
epoch, 2 trials x 1 epoch) under a minute (22 s measured while other jobs shared
the cores).

    python -m tuning.drill_lm_ptb
    python -m tuning.drill_lm_ptb --quick --output /tmp/drill_lm_ptb.json   # a check of the script

Writes tuning/results/drill_lm_ptb.json and .md.
"""

import json
import time

import keras
import keras_tuner
import tensorflow as tf

from benchmarks.datasets import load_ptb
from benchmarks.report import RESULTS
from benchmarks.search_budget import search_budget
from benchmarks.tables import claim, markdown_table, met
from keras_labelemb.training import ResetStates
from keras_labelemb.tuning import DrillLanguageModelHyperModel
from tuning.search_arguments import floats, ints
from tuning.search_report import hyperparameters_text, report_search, trial_table
from tuning.tuners import SearchArguments, make_tuner


def parse_args(argv=None):
    p = SearchArguments("drill_lm_ptb", __doc__, epochs=2, final_epochs=2, batch_size=32)
    p.add_argument("--depths", default="1,2,3,4", help="DRILL depths k, choices")
    p.add_argument("--head-dropout", default="0.1,0.6", help="min,max (or one value)")
    p.add_argument("--dropout-types", default="variational,standard")
    p.add_argument("--residuals", default="embedding,previous,both")
    p.add_argument("--learning-rate", default="10,40", help="SGD, min,max log-uniform (or one value)")
    p.add_argument("--units", type=int, default=128)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--dropout", type=float, default=0.3, help="on word vectors and LSTM outputs")
    p.add_argument("--bptt", type=int, default=35)
    p.add_argument("--eval-batch-size", type=int, default=10, help="rows of the final validation / test streams")
    p.add_argument("--max-steps", type=int, default=None, help="cap on training batches per epoch")
    p.add_argument("--max-eval-batches", type=int, default=None, help="cap on evaluation batches per split")
    p.add_argument("--no-jit", dest="jit", action="store_false", help="graph mode instead of XLA")
    args = p.parse_args(argv)
    if args.quick:
        args.trials, args.epochs, args.final_epochs, args.jit = 2, 1, 1, False
        args.units, args.batch_size, args.eval_batch_size = 32, 16, 16
        args.max_steps, args.max_eval_batches = args.max_steps or 8, args.max_eval_batches or 4
    return args


def stream(data, split, batch_size, args, max_batches=None):
    """Rows of `bptt`-token windows in stream order (row b of batch i+1 continues row b of batch i)."""
    x, y = data.bptt_arrays(split, batch_size, args.bptt)
    if max_batches:
        x, y = x[:max_batches], y[:max_batches]
    return x.reshape(-1, args.bptt), y.reshape(-1, args.bptt)


def benchmark_bar():
    """The best DRILL configuration on validation in benchmarks/results/language_model.json, or None."""
    path = RESULTS / "language_model.json"
    if not path.is_file():
        return None
    ptb = json.loads(path.read_text()).get("results", {}).get("ptb", {})
    drill = {name: r for name, r in ptb.items() if name.startswith("drill") and isinstance(r, dict) and "val_ppl" in r}
    if not drill:
        return None
    name = min(drill, key=lambda n: drill[n]["val_ppl"])
    return {
        "configuration": name,
        "val_ppl": drill[name]["val_ppl"],
        "test_ppl": drill[name].get("test_ppl"),
        "source": "benchmarks/results/language_model.json",
    }


def hypermodel_for(args, vocabulary_size, batch_size, decay_steps):
    return DrillLanguageModelHyperModel(
        vocabulary_size,
        depths=ints(args.depths),
        head_dropout=floats(args.head_dropout),
        dropout_types=args.dropout_types.split(","),
        residuals=args.residuals.split(","),
        learning_rate=floats(args.learning_rate),
        optimizer="sgd",
        clipnorm=0.25,
        decay_steps=decay_steps,
        stateful=True,
        batch_size=batch_size,
        jit_compile=args.jit,
        head_activation="sigmoid",
        bptt=args.bptt,
        units=args.units,
        num_layers=args.layers,
        dropout=args.dropout,
    )


def perplexity(model, x, y, batch_size):
    result = model.evaluate(x, y, batch_size=batch_size, callbacks=[ResetStates()], verbose=0, return_dict=True)
    return float(result["perplexity"])


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    tf.get_logger().setLevel("ERROR")
    data = load_ptb()
    print(data, flush=True)
    x_train, y_train = stream(data, "train", args.batch_size, args, args.max_steps)
    x_val, y_val = stream(data, "val", args.batch_size, args, args.max_eval_batches)
    steps = len(x_train) // args.batch_size
    hypermodel = hypermodel_for(args, data.vocabulary_size, args.batch_size, args.epochs * steps)
    keras.utils.set_random_seed(args.seed)
    tuner = make_tuner(args, hypermodel, keras_tuner.Objective("val_perplexity", direction="min"), "drill_lm_ptb")
    search_start = time.time()
    # The hypermodel's fit passes batch_size, shuffle=False and ResetStates (stateful truncated BPTT).
    tuner.search(x_train, y_train, validation_data=(x_val, y_val), epochs=args.epochs, verbose=2)
    search_seconds = time.time() - search_start
    trials = trial_table(tuner, "val_perplexity")
    best_hp = tuner.get_best_hyperparameters()[0]

    # The best configuration, retrained once, then both streams scored as the benchmark scores them.
    keras.utils.set_random_seed(args.seed)
    final = hypermodel_for(args, data.vocabulary_size, args.batch_size, args.final_epochs * steps)
    model = final.build(best_hp)
    final_start = time.time()
    history = final.fit(best_hp, model, x_train, y_train, epochs=args.final_epochs, verbose=2).history
    final_seconds = time.time() - final_start
    evaluator = hypermodel_for(args, data.vocabulary_size, args.eval_batch_size, None).build(best_hp)
    evaluator.set_weights(model.get_weights())
    val_ppl = perplexity(
        evaluator, *stream(data, "val", args.eval_batch_size, args, args.max_eval_batches), args.eval_batch_size
    )
    test_ppl = perplexity(
        evaluator, *stream(data, "test", args.eval_batch_size, args, args.max_eval_batches), args.eval_batch_size
    )
    bar = benchmark_bar()
    results = {
        "trials": trials,
        "best": {
            "hyperparameters": best_hp.values,
            "search_val_perplexity": trials[0]["val_perplexity"],
            "final_train_perplexity": [round(v, 3) for v in history["perplexity"]],
            "val_ppl": round(val_ppl, 3),
            "test_ppl": round(test_ppl, 3),
        },
        "benchmark_best_drill": bar,
        "steps_per_epoch": steps,
        "search_seconds": round(search_seconds, 1),
        "final_seconds": round(final_seconds, 1),
    }
    rows = [
        [
            rank,
            t["hyperparameters"]["depth"],
            t["hyperparameters"].get("residual", "-"),
            t["hyperparameters"].get("dropout_type", "-"),
            f"{t['hyperparameters']['head_dropout']:.3f}" if "head_dropout" in t["hyperparameters"] else "-",
            f"{t['hyperparameters']['learning_rate']:.3g}",
            f"{t['val_perplexity']:.2f}",
        ]
        for rank, t in enumerate(trials, start=1)
    ]
    lines = [
        f"DRILL output-layer search on PTB ({search_budget(vars(args))}, epochs of {steps} steps; "
        f"validation perplexity at batch {args.batch_size}, state carried)",
        "",
        markdown_table(
            ["trial", "depth k", "residual", "dropout type", "head dropout", "learning rate", "val ppl"], rows
        ),
        "",
        f"Best configuration retrained for {args.final_epochs} epochs: validation perplexity {val_ppl:.2f}, "
        f"test perplexity {test_ppl:.2f} (batch {args.eval_batch_size}, state carried).",
    ]
    if bar:
        lines.append(
            f"Best DRILL of the benchmark ({bar['configuration']}, {bar['source']}): validation {bar['val_ppl']:.2f}, "
            f"test {bar['test_ppl']:.2f}."
        )
    summary = {
        "best": best_hp.values,
        "val_ppl": round(val_ppl, 3),
        "test_ppl": round(test_ppl, 3),
        "benchmark_best_drill_val_ppl": (bar or {}).get("val_ppl"),
    }
    report_search(
        args,
        argv,
        "Penn Treebank, DRILL output-layer search",
        "tuning.drill_lm_ptb",
        results,
        summary,
        lines,
        start,
        rows,
    )


def rows(report):
    """The search's DRILL layer beside the benchmark's hand-picked DRILL, on validation."""
    s, config = report["summary"], report["config"]
    bar = s.get("benchmark_best_drill_val_ppl")
    bar_test = (report["results"].get("benchmark_best_drill") or {}).get("test_ppl")
    return [
        claim(
            f"Penn Treebank: DRILL layer found by KerasTuner ({search_budget(config)} on validation, "
            f"then {config['final_epochs']} epochs; one seed)",
            f"test {s['test_ppl']:.1f}, validation {s['val_ppl']:.1f} ({hyperparameters_text(s['best'])})",
            f"hand-picked DRILL of the benchmark (mean over its seeds): validation {bar:.1f}, test {bar_test:.1f}"
            if bar
            else "-",
            "-",
            "search at least as good on validation as the hand-picked layer: "
            + (met(s["val_ppl"] <= bar) if bar else "no benchmark result"),
            "[tuning](../tuning/results/drill_lm_ptb.md)",
        )
    ]


if __name__ == "__main__":
    main()
