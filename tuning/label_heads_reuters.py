"""KerasTuner search of the label head of a HAN on Reuters-21578 seen labels: GILE or DRILL, and how big.

`python -m benchmarks.reuters` trains GILE-HAN at one setting (d_j = 500, dropout
0.3, Adam 2e-3) beside the same HAN with a linear head and a tuned tf-idf SVM. This
searches the head (`--heads`: GILE and DRILL by default), GILE's joint-space
dimension `d_j` or DRILL's depth `k`, the encoder dropout and Adam's learning rate
with KerasTuner (`--tuner`: random search by default, Bayesian optimisation or
Hyperband) over `LabelHeadHyperModel` (the encoder, word vectors, split and batch
size of `benchmarks.reuters`, from its own `Setup`), selecting on validation
micro-F1 at the best threshold (`BestValidationF1`). The best trial's model (its
best epoch) is then scored on the test documents once, at the threshold chosen on
validation. The bars are the linear head's validation micro-F1 and the tuned SVM's
test micro-F1 in `benchmarks/results/reuters.json` (means over its seeds), read from
there when present.

Run time on 2 CPU cores: the stored run (`--tuner hyperband --epochs 9`: 23 trials,
from 1 to 9 epochs each) took 22 minutes while another search shared the cores;
random search with the defaults (6 trials x at most 12 epochs) about 15 minutes (an
estimate from about 10 s per epoch); `--quick` (2 trials x 2 epochs) under 2 minutes
(83 s while another benchmark shared the cores).

    python -m tuning.label_heads_reuters --tuner hyperband --epochs 9   # the stored run
    python -m tuning.label_heads_reuters --quick --output /tmp/label_heads_reuters.json   # a check of the script

Writes tuning/results/label_heads_reuters.json and .md.
"""

import json
import time
import warnings

import keras
import keras_tuner

from benchmarks import reuters
from benchmarks.report import RESULTS
from benchmarks.search_budget import search_budget
from benchmarks.tables import claim, markdown_table, met
from keras_labelemb.evaluation import choose_threshold, classification_report
from keras_labelemb.training import BestValidationF1
from keras_labelemb.tuning import LabelHeadHyperModel
from tuning.search_arguments import ints
from tuning.search_report import hyperparameters_text, report_search, trial_table
from tuning.tuners import SearchArguments, make_tuner


def parse_args(argv=None):
    p = SearchArguments("label_heads_reuters", __doc__, epochs=12, quick={"trials": 2, "epochs": 2})
    p.add_argument("--patience", type=int, default=4)
    p.add_argument("--heads", default="gile,drill", help="label heads to choose from")
    p.add_argument("--joint-dims", default="250,500,1000", help="GILE's d_j, choices")
    p.add_argument("--depths", default="1,2,3", help="DRILL's depth k, choices")
    p.add_argument("--dropout", default="0.1,0.5", help="min,max")
    p.add_argument("--learning-rate", default="5e-4,5e-3", help="min,max (log-uniform)")
    return p.parse_args(argv)


def benchmark_bars():
    """The linear head (validation and test micro-F1) and the tuned SVM (test) in reuters.json, or None."""
    path = RESULTS / "reuters.json"
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    seen = report["results"]["seen"].get("han_linear")
    if seen is None:
        return None
    return {
        "val_micro_f1": seen["val_micro_f1"],
        "test_micro_f1": seen["micro_f1"],
        "svm_test_micro_f1": report["summary"].get("svm_micro_f1"),
        "source": "benchmarks/results/reuters.json, means over seeds",
    }


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    base = reuters.parse_args(["--seed", str(args.seed)])  # benchmarks.reuters' encoder, vectors and split
    setup = reuters.Setup(base)
    data = setup.data.validation_split(base.validation_fraction, seed=base.seed)
    x_train, y_train = setup.ids(data.train_texts), data.multi_hot("train")
    x_val, y_val = setup.ids(data.val_texts), data.multi_hot("val")
    vectors = setup.word_vectors(data.train_texts + data.val_texts)
    keras.utils.set_random_seed(args.seed)
    hypermodel = LabelHeadHyperModel(
        setup.vectorizer.vocabulary_size,
        setup.label_ids,
        label_names=data.label_names,
        heads=tuple(args.heads.split(",")),
        joint_dims=ints(args.joint_dims),
        depths=ints(args.depths),
        dropout=tuple(float(v) for v in args.dropout.split(",")),
        learning_rate=tuple(float(v) for v in args.learning_rate.split(",")),
        max_sentences=base.sentences,
        max_sentence_length=base.words,
        embedding_dim=base.embedding_dim,
        word_vectors=vectors,
        encoder=base.encoder,
        units=base.units,
        # GILE's activation is its default, tanh, as benchmarks.reuters' (`--activation`).
    )
    tuner = make_tuner(args, hypermodel, keras_tuner.Objective("val_micro_f1", direction="max"), "reuters_gile")
    tuner.search(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=args.epochs,
        batch_size=base.batch_size,
        verbose=2,
        # The task's predict gives probabilities.
        callbacks=[BestValidationF1(x_val, y_val, from_logits=False, patience=args.patience)],
    )
    trials = trial_table(tuner, "val_micro_f1")
    with warnings.catch_warnings():  # the rebuilt model has no optimizer state to load: harmless
        warnings.filterwarnings("ignore", message="Skipping variable loading for optimizer")
        model = tuner.get_best_models()[0]  # a LabelClassifier: the weights of the best epoch of the best trial
    threshold, val_f1 = choose_threshold(y_val, model.predict(x_val, batch_size=256))
    test = classification_report(
        data.multi_hot("test"), model.predict(setup.ids(data.test_texts), batch_size=256), threshold
    )
    results = {
        "trials": trials,
        "best": {
            "hyperparameters": trials[0]["hyperparameters"],
            "threshold": threshold,
            "val_micro_f1": val_f1,
            "test": test,
        },
        "linear_head": benchmark_bars(),
    }
    rows = [
        [
            t["hyperparameters"]["head"],
            t["hyperparameters"].get("joint_dim", "-"),
            t["hyperparameters"].get("depth", "-"),
            f"{t['hyperparameters']['dropout']:.3f}",
            f"{t['hyperparameters']['learning_rate']:.2e}",
            t["hyperparameters"].get("tuner/epochs", args.epochs),
            f"{t['val_micro_f1']:.4f}",
        ]
        for t in trials
    ]
    lines = [
        f"HAN label-head search on Reuters seen labels ({search_budget(vars(args))}; "
        "validation micro-F1 at the best threshold, best epoch)",
        "",
        markdown_table(["head", "d_j", "depth", "dropout", "learning rate", "epochs", "val micro-F1"], rows),
    ]
    lines += [
        "",
        f"Best trial on test: micro-F1 {test['micro_f1']:.4f}, P@1 {test['precision_at_1']:.4f} "
        f"(threshold {threshold:.3f} from validation).",
    ]
    if results["linear_head"]:
        bar = results["linear_head"]
        lines.append(
            f"Linear head (same encoder; {bar['source']}): validation {bar['val_micro_f1']:.4f}, "
            f"test {bar['test_micro_f1']:.4f}; tuned tf-idf SVM test {bar['svm_test_micro_f1']:.4f}."
        )
    summary = {
        "best": trials[0]["hyperparameters"],
        "best_val_micro_f1": val_f1,
        "best_test_micro_f1": test["micro_f1"],
        "linear_head_val_micro_f1": (results["linear_head"] or {}).get("val_micro_f1"),
        "linear_head_test_micro_f1": (results["linear_head"] or {}).get("test_micro_f1"),
        "svm_test_micro_f1": (results["linear_head"] or {}).get("svm_test_micro_f1"),
    }
    report_search(
        args,
        argv,
        "reuters21578 ModApte-90, HAN label-head search",
        "tuning.label_heads_reuters",
        results,
        summary,
        lines,
        start,
        rows,
    )


def rows(report):
    """The search's label head beside the linear head and the tuned SVM of the same run."""
    s, config = report["summary"], report["config"]
    bars = []
    if s.get("linear_head_val_micro_f1"):
        bars.append(
            f"linear head of the benchmark: validation {s['linear_head_val_micro_f1']:.4f}, "
            f"test {s['linear_head_test_micro_f1']:.4f}"
        )
    if s.get("svm_test_micro_f1"):
        bars.append(f"tuned tf-idf SVM {s['svm_test_micro_f1']:.4f}")
    reached = (
        met(
            s["best_val_micro_f1"] >= s["linear_head_val_micro_f1"] - 0.005
            and s["best_test_micro_f1"] > s["svm_test_micro_f1"]
        )
        if s.get("linear_head_val_micro_f1") and s.get("svm_test_micro_f1")
        else "no benchmark result"
    )
    return [
        claim(
            f"Reuters-21578, 90 labels: HAN label head found by KerasTuner ({config['heads']}; "
            f"{search_budget(config)} on validation; one seed)",
            f"test micro-F1 {s['best_test_micro_f1']:.4f}, validation {s['best_val_micro_f1']:.4f} "
            f"({hyperparameters_text(s['best'])})",
            "; ".join(bars) or "-",
            "-",
            "level with the linear head on validation (within 0.005) and above the SVM on test: " + reached,
            "[tuning](../tuning/results/label_heads_reuters.md)",
        )
    ]


if __name__ == "__main__":
    main()
