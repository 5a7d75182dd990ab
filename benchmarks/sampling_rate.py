"""Accuracy and training time vs label-sampling rate (GILE Fig. 2) on Reuters-21578 and 20 Newsgroups.

For each dataset, one process, same data, encoder, epochs and seed for every row:

- GILE-WAN trained with `SampledSigmoidLoss` (through `LabelClassifier.from_model`) on every positive label of the
  batch plus 10%, 25% or 50% of the labels as uniform negatives;
- GILE-WAN trained with full binary cross-entropy (100%: plain `compile`);
- WAN with the linear head, full binary cross-entropy;
- a tf-idf LinearSVC with C and n-gram range chosen on validation (the simple
  baseline; one-vs-rest with a validation threshold on Reuters, multi-class on
  20 Newsgroups).

Every configuration is trained once per seed (`--seeds`, default 3); the
table shows the mean ± sample standard deviation. Micro-F1 on the test set at
one threshold chosen on a validation split carved from train (the epoch with
the best validation micro-F1 is kept), and accuracy (top-scoring label).
Training time is measured after training, all configurations taking turns on
one batch (`benchmarks.timing.round_robin`: 5 rounds x 20 steps each, rotating
order, median, wall and CPU time; epoch times of `fit` are recorded too but
drift with the machine's load); speed-up = the full-BCE GILE model's step time
/ the row's. `jit_compile` follows Keras' "auto" (off on a CPU-only machine).
Candidates per batch = `batch_size` slots for the batch's distinct positive
labels + the sampled negatives (capped at the label count); `dropped positives
/ step` counts positives that did not fit. Word vectors (`--word-vectors`, as in
`benchmarks.reuters`): PPMI + SVD on the training text (default), or GloVe 6B
50-d (`glove50`, the `glove` extra), with `--fine-tune-word-vectors documents`
to keep the label side frozen. 20 Newsgroups messages are read
without their header lines (see `load_newsgroups`).

Run time on 2 CPU cores: about 30 minutes with the defaults (the last full runs,
before the tuned SVM and the round-robin timing: 11 minutes on Reuters, 12 on 20
Newsgroups); `--quick` about 3 minutes (195 s measured while another benchmark
shared the cores).

    python -m benchmarks.sampling_rate            # both datasets, 3 seeds
    python -m benchmarks.sampling_rate --quick    # a check of the script
    python -m benchmarks.sampling_rate --word-vectors glove50 --fine-tune-word-vectors documents \
        --output benchmarks/results/sampling_rate_glove.json
"""

import json
import os
import time

import keras
import numpy as np
import tensorflow as tf

from benchmarks.baselines import svm_on
from benchmarks.benchmark import Arguments, seed_range
from benchmarks.datasets import load_reuters
from benchmarks.report import write_report
from benchmarks.seeds import seed_summary
from benchmarks.tables import markdown_table, mean_pm_std
from benchmarks.timing import EpochTimer, round_robin, speed_ratio, train_steps
from benchmarks.training_loop import fit_best_epoch
from benchmarks.word_vectors import add_word_vector_arguments, fine_tune_mode, glove50, vectors_line
from keras_labelemb.evaluation import classification_report
from keras_labelemb.layers import GileHead, HierarchicalAttention, LinearHead
from keras_labelemb.losses import SampledSigmoidLoss
from keras_labelemb.models.document_classifier import build_encoder, document_classifier, prior_bias
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.text import TextVectorizer
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors

RATES = ("0.1", "0.25", "0.5", "1.0")


def parse_args(argv=None):
    p = Arguments("sampling_rate", __doc__, seeds=3, epochs=8, batch_size=32)
    p.add_argument("--datasets", default="reuters,newsgroups")
    p.add_argument("--rates", default=",".join(RATES))
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--max-tokens", type=int, default=200)
    p.add_argument("--label-words", type=int, default=12)
    p.add_argument("--embedding-dim", type=int, default=100)
    p.add_argument("--units", type=int, default=100)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--joint-dim", type=int, default=500)
    add_word_vector_arguments(p)
    p.add_argument("--validation-fraction", type=float, default=0.1)
    p.add_argument("--max-train", type=int, default=None, help="use at most this many training documents")
    p.add_argument("--merge", action="store_true", help="keep the other datasets' results already in --output")
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.max_train, args.seeds = 1, 600, 1
    if args.word_vectors == "glove50":
        args.embedding_dim = 50
    return args


def load(name, args):
    if name == "reuters":
        data = load_reuters()
    else:
        from benchmarks.datasets import load_newsgroups

        data = load_newsgroups()
    data = data.validation_split(args.validation_fraction, seed=args.seed)
    if args.max_train:
        # A seeded random subset: the loaders list documents grouped by label.
        keep = np.sort(np.random.default_rng(args.seed).permutation(len(data.train_texts))[: args.max_train])
        data = data.replace(
            **{field: [getattr(data, field)[i] for i in keep] for field in ("train_texts", "train_labels", "train_ids")}
        )
    return data


class Setup:
    def __init__(self, name, args):
        self.name, self.args = name, args
        self.data = load(name, args)
        self.vectorizer = TextVectorizer(max_tokens=args.max_tokens)
        self.vectorizer.adapt(self.data.train_texts, min_count=2)
        self.label_ids = self.vectorizer.encode_labels(self.data.label_descriptions, args.label_words)
        self.ids = {
            split: self.vectorizer(tf.constant(getattr(self.data, f"{split}_texts"))).numpy()
            for split in ("train", "val", "test")
        }
        self.vectors, self.coverage = None, None
        if args.word_vectors == "glove50":
            self.vectors, self.coverage = glove50(self.vectorizer, self.label_ids)
        elif args.word_vectors == "ppmi":
            train_and_val = np.concatenate([self.ids["train"], self.ids["val"]])
            self.vectors = pretrain_word_vectors(train_and_val, self.vectorizer.vocabulary_size, args.embedding_dim)


def train(setup, head, rate, seed):
    a, data = setup.args, setup.data
    keras.utils.set_random_seed(seed)
    vocabulary = setup.vectorizer.vocabulary_size
    fine_tune = fine_tune_mode(a.fine_tune_word_vectors, head) if setup.vectors is not None else "all"
    embedding, label_embedding = word_embeddings(vocabulary, a.embedding_dim, setup.vectors, fine_tune)
    encoder = HierarchicalAttention("dense", a.units, flat=True, dropout=a.dropout, name="document_encoder")
    build_encoder(embedding, encoder, (a.max_tokens,))  # before the head: the recorded runs' draw order
    prior = prior_bias(data.num_labels)
    if head == "linear":
        layer = LinearHead(data.num_labels, bias_initializer=prior, name="linear_head")
    else:
        table = embedding if label_embedding is None else label_embedding
        layer = GileHead(table, setup.label_ids, joint_dim=a.joint_dim, bias_initializer=prior, name="gile_head")
    model = document_classifier(encoder, layer, embedding=embedding, max_tokens=a.max_tokens)
    optimizer = keras.optimizers.Adam(a.learning_rate)
    trainer = LabelClassifier.from_model(model)  # fed token ids; trains the model's own weights
    if rate < 1.0:
        # One candidate slot per document of the batch for its positives (most documents have one or two
        # labels); batches with more distinct positives drop the excess, counted in `dropped_positives`.
        loss = SampledSigmoidLoss(negative_rate=rate, max_positives=a.batch_size, seed=seed)
        trainer.compile(optimizer, loss=loss, metrics=[])
    else:
        trainer.compile(optimizer, keras.losses.BinaryCrossentropy(from_logits=True), metrics=[])
    best = BestValidationF1(setup.ids["val"], data.multi_hot("val"))
    timer = EpochTimer()
    history, fitted = fit_best_epoch(
        trainer,
        setup.ids["train"],
        data.multi_hot("train"),
        best=best,
        epochs=a.epochs,
        callbacks=[timer],
        batch_size=a.batch_size,
    )
    scores = trainer.predict(setup.ids["test"], batch_size=256)
    y_test = data.multi_hot("test")
    result = classification_report(y_test, scores, best.threshold)
    result.update(
        train_seconds=round(sum(timer.seconds), 2),  # the epochs alone, without the validation scoring
        epoch_seconds=[round(s, 2) for s in timer.seconds],
        seconds_per_epoch=round(timer.steady_seconds(), 3),  # the first epoch also traces and compiles
        best_epoch=fitted["best_epoch"],
        val_micro_f1=best.best_f1,
        threshold=best.threshold,
        accuracy=float(np.mean(y_test[np.arange(len(y_test)), scores.argmax(axis=1)] > 0)),
    )
    if rate < 1.0:
        result["negatives_per_batch"] = loss.label_sampler.negatives_for(data.num_labels)
        result["candidates_per_batch"] = loss.label_sampler.num_candidates(data.num_labels)
        result["dropped_positives_per_step"] = float(np.mean(history["dropped_positives"]))
    return result, trainer


SEED_METRICS = ("micro_f1", "accuracy", "precision_at_1", "precision_at_5", "seconds_per_epoch")


def train_seeds(setup, head, rate):
    """Trains one configuration once per seed; returns (mean ± sample std with every seed's run, seed 0's trainer)."""
    runs, trainers = [], []
    for seed in seed_range(setup.args):
        result, trainer = train(setup, head, rate, seed)
        runs.append(result)
        trainers.append(trainer)
    keys = SEED_METRICS + (("dropped_positives_per_step",) if rate < 1.0 else ())
    return seed_summary(runs, keys), trainers[0]


def run_svm(setup):
    """The tuned tf-idf LinearSVC on the same split: multi-label with a threshold, or multi-class."""
    data = setup.data
    y_test = data.multi_hot("test")
    multi_label = setup.name == "reuters"
    decision, report = svm_on(data, multi_label)
    top = decision(data.test_texts).argmax(axis=1)
    report["accuracy"] = float(np.mean(y_test[np.arange(len(y_test)), top] > 0))
    report["precision_at_1"] = report["accuracy"]
    if setup.name != "reuters":
        report["micro_f1"] = report["accuracy"]  # one label per document: micro-F1 of the top label is accuracy
    return report


def summary(results):
    out = {}
    for name, r in results.items():
        if isinstance(r, dict) and "gile" in r:
            out[name] = {
                "micro_f1": {rate: g["micro_f1"] for rate, g in r["gile"].items()},
                "micro_f1_std": {rate: g.get("micro_f1_std") for rate, g in r["gile"].items()},
                "linear_micro_f1": r.get("linear", {}).get("micro_f1"),
                "svm_micro_f1": r.get("svm", {}).get("micro_f1"),
                "speedup": {rate: g["speedup"] for rate, g in r["gile"].items() if "speedup" in g},
            }
    return out


def table(results):
    out = [vectors_line(results.get("word_vectors")), ""]
    for name, r in results.items():
        if not isinstance(r, dict) or "gile" not in r:
            continue
        rows = [(f"GILE, {float(rate):.0%}", g) for rate, g in sorted(r["gile"].items(), key=lambda kv: float(kv[0]))]
        rows += [("linear (full BCE)", r["linear"])] if "linear" in r else []
        lines = []
        for label, g in rows:
            sampled = (
                f"{g['negatives_per_batch']} / {g['candidates_per_batch']}" if "negatives_per_batch" in g else "all"
            )
            speed = f"{g['speedup']['ratio']:.2f}× ({g['speedup']['clock'].split()[0]})" if "speedup" in g else "-"
            dropped = f"{g['dropped_positives_per_step']:.3f}" if "dropped_positives_per_step" in g else "-"
            step = f"{1000 * g['step_seconds']:.1f}" if "step_seconds" in g else "-"
            lines.append(
                [
                    label,
                    sampled,
                    mean_pm_std(g["micro_f1"], g.get("micro_f1_std")),
                    mean_pm_std(g["accuracy"], g.get("accuracy_std")),
                    f"{g['seconds_per_epoch']:.1f}",
                    step,
                    speed,
                    dropped,
                ]
            )
        if "svm" in r:
            v = r["svm"]
            ngrams = "-".join(str(n) for n in sorted(set(v["ngram_range"])))
            label = f"tf-idf {ngrams}-gram LinearSVC, C={v['C']:g} (tuned on validation)"
            lines.append([label, "-", f"{v['micro_f1']:.4f}", f"{v['accuracy']:.4f}", "-", "-", "-", "-"])
        header = [
            "output layer",
            "negatives / candidates per batch",
            "micro-F1",
            "accuracy",
            "s/epoch (fit)",
            "ms/step (round-robin, wall)",
            "speed-up vs full (clock)",
            "dropped positives / step",
        ]
        seeds = len(r["gile"][next(iter(r["gile"]))].get("seeds", [0]))
        out += [
            f"{name}: {r['labels']} labels, {r['train_documents']} training documents; networks: mean ± sample std "
            f"over {seeds} seed(s)",
            "",
            markdown_table(header, lines),
            "",
        ]
    return "\n".join(out)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n, r in results.items() if isinstance(r, dict) and "gile" in r]
    if not names:
        return
    fig, axes = plt.subplots(2, len(names), figsize=(5 * len(names), 6), squeeze=False, sharex=True)
    for col, name in enumerate(names):
        r = results[name]
        rates = sorted(r["gile"], key=float)
        x = [100 * float(k) for k in rates]
        axes[0, col].errorbar(
            x,
            [100 * r["gile"][k]["micro_f1"] for k in rates],
            yerr=[100 * r["gile"][k].get("micro_f1_std", 0.0) for k in rates],
            fmt="o-",
            capsize=3,
            label="GILE-WAN (mean ± std over seeds)",
        )
        if "linear" in r:
            axes[0, col].axhline(100 * r["linear"]["micro_f1"], color="gray", ls="--", label="WAN, linear head")
        axes[0, col].set_title(f"{name} ({r['labels']} labels)")
        axes[0, col].set_ylabel("test micro-F1 (%)")
        axes[0, col].legend()
        full = r["gile"].get("1.0", {}).get("step_seconds")
        if full and all("step_seconds" in r["gile"][k] for k in rates):
            axes[1, col].plot(x, [full / r["gile"][k]["step_seconds"] for k in rates], "o-")
        axes[1, col].set_ylabel("training speed-up vs 100%")
        axes[1, col].set_xlabel("negative labels sampled (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    results = {}
    if args.merge and os.path.exists(args.output):
        with open(args.output) as previous:
            results = json.load(previous)["results"]
    png = os.path.splitext(args.output)[0] + ".png"

    def report():
        write_report(
            args.output,
            "label sampling rate (GILE Fig. 2)",
            "benchmarks.sampling_rate",
            args,
            argv,
            results,
            summary(results),
            table(results) + f"\n![sampling rate]({os.path.basename(png)})",
            start,
        )
        plot(results, png)

    for name in args.datasets.split(","):
        print(f"\n==== {name} ====", flush=True)
        setup = Setup(name, args)
        coverage = results.get("word_vectors", {}).get("coverage", {})
        if setup.coverage:
            coverage[name] = setup.coverage
        results["word_vectors"] = {"source": args.word_vectors, "fine_tune": args.fine_tune_word_vectors}
        results["word_vectors"].update({"coverage": coverage} if coverage else {})
        results[name] = {"labels": setup.data.num_labels, "train_documents": len(setup.data.train_texts), "gile": {}}
        trainers = {}
        for rate in args.rates.split(","):
            print(f"\n== {name}: GILE, {float(rate):.0%} of negatives ==", flush=True)
            results[name]["gile"][rate], trainers[("gile", rate)] = train_seeds(setup, "gile", float(rate))
            print(
                json.dumps({k: results[name]["gile"][rate][k] for k in ("micro_f1", "accuracy", "train_seconds")}),
                flush=True,
            )
            report()
        print(f"\n== {name}: linear head ==", flush=True)
        results[name]["linear"], trainers[("linear", None)] = train_seeds(setup, "linear", 1.0)
        print(f"\n== {name}: tf-idf LinearSVC, C and n-grams tuned on validation ==", flush=True)
        results[name]["svm"] = run_svm(setup)
        batch = slice(0, args.batch_size)
        x, y = setup.ids["train"][batch], setup.data.multi_hot("train")[batch]
        print(f"\n== {name}: step times, round-robin ==", flush=True)
        for trainer in trainers.values():
            trainer.train_on_batch(x, y)  # compiled outside the clock
        names = {key: f"{key[0]}_{key[1]}" for key in trainers}
        times = round_robin({names[k]: train_steps(t, x, y, steps=20) for k, t in trainers.items()}, rounds=5)
        for (head, rate), label in names.items():
            row = results[name]["gile"][rate] if head == "gile" else results[name]["linear"]
            row["step_seconds"] = round(times["wall"][label] / 20, 5)
            row["step_cpu_seconds"] = round(times["cpu"][label] / 20, 5)
            row["speedup"] = speed_ratio(times, "gile_1.0", label)
        report()
    print("\n" + table(results) + f"\n{json.dumps(summary(results))}\nWall time {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
