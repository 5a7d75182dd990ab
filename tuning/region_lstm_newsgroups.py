"""KerasTuner search of oh-2LSTMp (one-hot LSTM region embeddings) on 20 Newsgroups bydate.

`python -m benchmarks.newsgroups` trains oh-2LSTMp with the paper's settings (150
units per direction here, chop 50, max pooling over 10 regions, no i/o gates,
dropout 0.5, Adam 5e-3) and leaves it behind the tf-idf SVMs. This searches
`RegionLSTMHyperModel`'s space (each trial an oh-2LSTMp `LabelClassifier` fed token
ids) with KerasTuner (`--tuner`: random search by default, Bayesian optimisation or
Hyperband): units per direction, chop size, pooling regions
and kind (max / average), gates (`no_io` / `full`), dropout on the pooled vector and
Adam's learning rate. Data and preprocessing are the benchmark's own
(`benchmarks.newsgroups.Setup`: headers removed, the 30K most frequent training
words, the first 400 tokens, 10% of the training set held out for validation).
Trials are selected on validation accuracy only (each trial's best epoch); the best
configuration is then retrained once from a fixed seed for `--final-epochs` (the
epoch with the best validation accuracy kept) and scored once on the test set. The
bar is oh-2LSTMp's test error in `benchmarks/results/newsgroups.json`, read from
there when present.

Run time on 2 CPU cores: the recorded Hyperband search (`--tuner hyperband --epochs 6
--final-epochs 8 --units 100,150`: 10 trials, 36 epochs, then the 8-epoch retrain) took
7,035 s of wall time, about 30 minutes of it paused while other jobs used the cores;
an epoch takes 70 s (100 units) to 145 s (150 units, chop 100) alone, longer with 300
units or no chopping. The default random search (6 trials x 3 epochs, 6 final epochs)
is about 24 epochs: 35-60 minutes. `--quick` (400 training documents, 100 tokens,
tiny models, 2 trials x 1 epoch) under a minute (16 s measured while other jobs shared
the cores).

    python -m tuning.region_lstm_newsgroups --tuner hyperband --epochs 6 --final-epochs 8 --units 100,150
    python -m tuning.region_lstm_newsgroups --quick --output /tmp/region_lstm_newsgroups.json   # a check of the script

Writes tuning/results/region_lstm_newsgroups.json and .md.
"""

import json
import time

import keras
import keras_tuner
import numpy as np
import tensorflow as tf

from benchmarks import newsgroups
from benchmarks.report import RESULTS
from benchmarks.search_budget import search_budget
from benchmarks.tables import claim, markdown_table, met
from keras_labelemb.tuning import RegionLSTMHyperModel
from tuning.search_arguments import floats, ints
from tuning.search_report import benchmark_summary, hyperparameters_text, report_search, trial_table
from tuning.tuners import SearchArguments, make_tuner


def parse_args(argv=None):
    p = SearchArguments("region_lstm_newsgroups", __doc__, epochs=3, final_epochs=6, batch_size=50)
    p.add_argument("--units", default="100,150,300", help="LSTM units per direction, choices")
    p.add_argument("--chop-sizes", default="25,50,100", help="segment lengths, choices (0: no chopping)")
    p.add_argument("--num-regions", default="5,10", help="pooling regions, choices")
    p.add_argument("--poolings", default="max,average")
    p.add_argument("--gates", default="no_io,full")
    p.add_argument("--dropout", default="0.2,0.6", help="min,max (or one value)")
    p.add_argument("--learning-rate", default="1e-3,1e-2", help="min,max, log-uniform (or one value)")
    p.add_argument("--max-length", type=int, default=400, help="tokens per document")
    p.add_argument("--max-train", type=int, default=None, help="use only this many training documents")
    p.add_argument("--max-test", type=int, default=None, help="use only this many test documents")
    p.add_argument("--no-jit", dest="jit", action="store_false", help="graph mode instead of XLA")
    args = p.parse_args(argv)
    if args.quick:
        args.trials, args.epochs, args.final_epochs, args.jit = 2, 1, 1, False
        args.units, args.chop_sizes, args.num_regions, args.max_length = "8,16", "0,25", "2,5", 100
        args.max_train, args.max_test = args.max_train or 400, args.max_test or 200
    return args


def benchmark_bar():
    """oh-2LSTMp's test error in benchmarks/results/newsgroups.json, or None."""
    path = RESULTS / "newsgroups.json"
    if not path.is_file():
        return None
    error = json.loads(path.read_text()).get("summary", {}).get("error", {}).get("oh_2lstmp")
    return None if error is None else {"test_error": error, "source": "benchmarks/results/newsgroups.json"}


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    tf.get_logger().setLevel("ERROR")
    base = ["--max-length", str(args.max_length), "--seed", str(args.seed)]
    base += ["--max-train", str(args.max_train)] if args.max_train else []
    base += ["--max-test", str(args.max_test)] if args.max_test else []
    setup = newsgroups.Setup(newsgroups.parse_args(base))  # the benchmark's split, vocabulary and token ids
    x_train, y_train = setup.ids["train"], setup.y["train"]
    x_val, y_val = setup.ids["val"], setup.y["val"]
    hypermodel = RegionLSTMHyperModel(
        setup.vectorizer.vocabulary_size,
        setup.data.num_labels,
        label_names=setup.data.label_names,
        units=ints(args.units),
        chop_sizes=ints(args.chop_sizes),
        num_regions=ints(args.num_regions),
        poolings=args.poolings.split(","),
        gates=args.gates.split(","),
        dropout=floats(args.dropout),
        learning_rate=floats(args.learning_rate),
        jit_compile=args.jit,
        max_tokens=args.max_length,
    )
    keras.utils.set_random_seed(args.seed)
    tuner = make_tuner(
        args, hypermodel, keras_tuner.Objective("val_accuracy", direction="max"), "region_lstm_newsgroups"
    )
    search_start = time.time()
    tuner.search(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=args.epochs,
        batch_size=args.batch_size,
        verbose=2,
    )
    search_seconds = time.time() - search_start
    trials = trial_table(tuner, "val_accuracy")
    best_hp = tuner.get_best_hyperparameters()[0]

    # The best configuration, retrained once; its best validation epoch is scored on test once.
    keras.utils.set_random_seed(args.seed)
    model = hypermodel.build(best_hp)
    keep_best = keras.callbacks.EarlyStopping(
        monitor="val_accuracy", mode="max", patience=args.final_epochs, restore_best_weights=True
    )
    final_start = time.time()
    history = model.fit(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=args.final_epochs,
        batch_size=args.batch_size,
        callbacks=[keep_best],
        verbose=2,
    ).history
    final_seconds = time.time() - final_start
    val_accuracy = history["val_accuracy"]
    scores = model.predict(setup.ids["test"], batch_size=250)  # softmax probabilities
    test_error = float(np.mean(scores.argmax(-1) != setup.y["test"].argmax(-1)))
    bar = benchmark_bar()
    results = {
        "data": setup.info,
        "trials": trials,
        "best": {
            "hyperparameters": best_hp.values,
            "search_val_accuracy": trials[0]["val_accuracy"],
            "final_val_accuracy_curve": [round(v, 4) for v in val_accuracy],
            "final_best_epoch": int(np.argmax(val_accuracy)) + 1,
            "test_error": test_error,
        },
        "benchmark_oh_2lstmp": bar,
        "search_seconds": round(search_seconds, 1),
        "final_seconds": round(final_seconds, 1),
    }
    rows = [
        [
            rank,
            t["hyperparameters"]["units"],
            t["hyperparameters"]["chop_size"] or "none",
            t["hyperparameters"]["num_regions"],
            t["hyperparameters"]["pooling"],
            t["hyperparameters"]["gates"],
            f"{t['hyperparameters']['dropout']:.3f}",
            f"{t['hyperparameters']['learning_rate']:.2e}",
            f"{t['val_accuracy']:.4f}",
        ]
        for rank, t in enumerate(trials, start=1)
    ]
    lines = [
        f"oh-2LSTMp search on 20 Newsgroups bydate ({search_budget(vars(args))}, "
        f"validation accuracy of each trial's best epoch)",
        "",
        markdown_table(
            ["trial", "units", "chop", "regions", "pooling", "gates", "dropout", "learning rate", "val accuracy"], rows
        ),
        "",
        f"Best configuration retrained for {args.final_epochs} epochs (best validation epoch "
        f"{results['best']['final_best_epoch']}, validation accuracy {max(val_accuracy):.4f}): "
        f"test error {100 * test_error:.2f}%.",
    ]
    if bar:
        lines.append(f"oh-2LSTMp of the benchmark ({bar['source']}): test error {100 * bar['test_error']:.2f}%.")
    summary = {
        "best": best_hp.values,
        "val_accuracy": max(val_accuracy),
        "test_error": test_error,
        "benchmark_test_error": (bar or {}).get("test_error"),
    }
    report_search(
        args,
        argv,
        "20 Newsgroups bydate, oh-2LSTMp search",
        "tuning.region_lstm_newsgroups",
        results,
        summary,
        lines,
        start,
        rows,
    )


def rows(report):
    """The search's oh-2LSTMp beside the benchmark's network and its tuned SVM (benchmarks/results/newsgroups)."""
    s, config = report["summary"], report["config"]
    newsgroups = benchmark_summary("newsgroups")
    svm = min(newsgroups["error"]["svm_bow"], newsgroups["error"]["svm_123gram"])
    bar = s.get("benchmark_test_error")
    return [
        claim(
            f"20 Newsgroups: oh-2LSTMp found by KerasTuner ({search_budget(config)} on validation, "
            f"then {config['final_epochs']} epochs; one seed)",
            f"test error {100 * s['test_error']:.2f}% ({hyperparameters_text(s['best'])})",
            (f"oh-2LSTMp of the benchmark {100 * bar:.2f}%; " if bar else "") + f"tuned tf-idf SVM {100 * svm:.2f}%",
            "-",
            "below the SVM: " + met(s["test_error"] < svm),
            "[tuning](../tuning/results/region_lstm_newsgroups.md)",
        )
    ]


if __name__ == "__main__":
    main()
