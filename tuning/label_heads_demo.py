"""KerasTuner search over the label-aware heads on the embedded demo dataset.

`LabelHeadHyperModel` builds GILE-HAN or DRILL-HAN (a `LabelClassifier` fed token ids) and
searches the head (`gile` or `drill`), GILE's joint-space dimension `d_j`, DRILL's
label-network depth `k`, the encoder dropout and Adam's learning rate. A KerasTuner
(`--tuner`: random search by default, Bayesian optimisation or Hyperband) runs a few
short trials, selecting on validation micro-F1 at the best threshold
(`BestValidationF1` logs it as `val_micro_f1` after every epoch from the task's
probabilities; a compiled
`MicroF1(from_logits=True)` metric would give it at a fixed threshold instead, which
stays at 0 for the first epochs while no probability has reached 0.5 yet). The best
model is then evaluated on the test documents of the seen labels at the threshold
chosen on the validation split.

Run time on 2 CPU cores: about 70 seconds with the defaults (6 trials x 4
epochs; 106 s while another benchmark shared the cores); `--quick` (2 trials x
2 epochs) under a minute (47 s on the shared cores). The tuner's files go
to `--tuner-dir`; the best configuration and the trial table to `--output`
(`tuning/results/label_heads_demo.json` and `.md`).

    python -m tuning.label_heads_demo
    python -m tuning.label_heads_demo --quick --output /tmp/label_heads_demo.json   # a check of the script
"""

import time
import warnings

import keras
import keras_tuner
import tensorflow as tf

from benchmarks.report import write_report
from benchmarks.search_budget import search_budget
from benchmarks.tables import markdown_table
from keras_labelemb.datasets import load_demo, remove_unseen_from_train, restrict_labels
from keras_labelemb.evaluation import choose_threshold, classification_report
from keras_labelemb.text import TextVectorizer
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors
from keras_labelemb.tuning import LabelHeadHyperModel
from tuning.search_report import trial_table
from tuning.tuners import SearchArguments, make_tuner

SENTENCES, WORDS, LABEL_WORDS, DIM = 12, 24, 16, 64


def parse_args(argv=None):
    p = SearchArguments("label_heads_demo", __doc__, epochs=4, quick={"trials": 2, "epochs": 2})
    p.add_argument("--tuner-dir", default="artifacts/tune_label_head", help="KerasTuner's working files")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    tf.get_logger().setLevel("ERROR")  # every trial retraces predict for its new model: expected, not a problem
    keras.utils.set_random_seed(0)
    data, unseen = load_demo()
    seen = [j for j in range(data.num_labels) if j not in unseen]
    train = restrict_labels(remove_unseen_from_train(data, unseen), seen).validation_split(0.15, seed=0)
    print(
        f"Demo dataset: {len(train.train_texts)} train / {len(train.val_texts)} validation documents "
        f"on {len(seen)} seen labels"
    )

    vectorizer = TextVectorizer(flat=False, max_sentences=SENTENCES, max_sentence_length=WORDS)
    vectorizer.adapt(train.train_texts + data.label_descriptions, min_count=2)

    def encode(texts):
        return vectorizer(tf.constant(texts, dtype=tf.string)).numpy()

    label_ids = vectorizer.encode_labels(data.label_descriptions, LABEL_WORDS)
    x_train, y_train = encode(train.train_texts), train.multi_hot("train")
    x_val, y_val = encode(train.val_texts), train.multi_hot("val")
    vectors = pretrain_word_vectors(x_train, vectorizer.vocabulary_size, dim=DIM)

    hypermodel = LabelHeadHyperModel(
        vectorizer.vocabulary_size,
        label_ids[seen],
        label_names=[data.label_names[j] for j in seen],
        heads=("gile", "drill"),
        joint_dims=(32, 64, 128, 256),  # d_j; the paper's range (100-1000) is for 300-d vectors and many labels
        depths=(1, 2, 3),
        dropout=(0.0, 0.4),
        learning_rate=(5e-4, 5e-3),
        # Fixed in every trial:
        max_sentences=SENTENCES,
        max_sentence_length=WORDS,
        word_vectors=vectors,
        encoder="dense",
        units=DIM,
    )
    tuner = make_tuner(
        args, hypermodel, keras_tuner.Objective("val_micro_f1", direction="max"), "search", directory=args.tuner_dir
    )
    tuner.search_space_summary()
    search_start = time.time()
    tuner.search(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        epochs=args.epochs,
        batch_size=32,
        verbose=0,
        callbacks=[BestValidationF1(x_val, y_val, from_logits=False)],  # the task's predict: probabilities
    )
    search_time = time.time() - search_start
    tuner.results_summary(num_trials=len(tuner.oracle.trials))

    best_hp = tuner.get_best_hyperparameters()[0]
    best_trial = tuner.oracle.get_best_trials()[0]
    with warnings.catch_warnings():  # the rebuilt model has no optimizer state to load: harmless
        warnings.filterwarnings("ignore", message="Skipping variable loading for optimizer")
        model = tuner.get_best_models()[0]  # a LabelClassifier: the weights of the best epoch of the best trial
    print(f"\nSearch ({search_budget(vars(args))}) in {search_time:.0f} s")
    print("Best hyperparameters: " + ", ".join(f"{k}={_fmt(v)}" for k, v in best_hp.values.items()))
    print(f"Best validation micro-F1 (at the best threshold): {best_trial.score:.3f}")

    # Threshold on the validation split, then the seen-label test documents.
    threshold, val_f1 = choose_threshold(y_val, model.predict(x_val))
    seen_test = restrict_labels(data, seen, drop_empty=True)
    scores = model.predict(encode(seen_test.test_texts))
    report = classification_report(seen_test.multi_hot("test"), scores, threshold)
    print(
        f"Best model on the {len(seen_test.test_texts)} test documents with a seen label "
        f"(threshold {threshold:.3f}, validation micro-F1 {val_f1:.3f} at it):"
    )
    print(
        f"  micro-F1 {report['micro_f1']:.3f}   P@1 {report['precision_at_1']:.3f}   P@5 {report['precision_at_5']:.3f}"
    )
    trials = trial_table(tuner, "val_micro_f1")
    rows = [
        [
            rank,
            t["hyperparameters"]["head"],
            t["hyperparameters"].get("joint_dim", t["hyperparameters"].get("depth")),
            f"{t['hyperparameters']['dropout']:.3f}",
            f"{t['hyperparameters']['learning_rate']:.2e}",
            f"{t['val_micro_f1']:.4f}",
        ]
        for rank, t in enumerate(trials, start=1)
    ]
    lines = [markdown_table(["trial", "head", "d_j / depth", "dropout", "learning rate", "val micro-F1"], rows)]
    lines += [
        "",
        f"Best model on the seen-label test documents: micro-F1 {report['micro_f1']:.4f}, "
        f"P@1 {report['precision_at_1']:.4f} (threshold {threshold:.3f} from validation).",
    ]
    results = {
        "trials": trials,
        "best": best_hp.values,
        "test": {k: float(v) for k, v in report.items()},
        "threshold": float(threshold),
        "search_seconds": round(search_time, 1),
    }
    summary = {"best": best_hp.values, "val_micro_f1": best_trial.score, "test_micro_f1": float(report["micro_f1"])}
    write_report(
        args.output,
        "demo dataset, label-head search (GILE d_j / DRILL depth)",
        "tuning.label_heads_demo",
        args,
        argv,
        results,
        summary,
        "\n".join(lines),
        start,
    )
    print(f"\nDone in {time.time() - start:.0f} s. Results: {args.output}")


def _fmt(value):
    return f"{value:.3g}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    main()
