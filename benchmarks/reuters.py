"""Reuters-21578 ModApte-90 benchmark: seen labels, zero-shot labels, XLA speed ratio.

One process, same data and budget for every model:

- Seen labels (all 90): GILE-HAN vs HAN with the linear head (same encoder,
  same epochs, same early-stopping rule) vs a tf-idf 1-3-gram LinearSVC
  one-vs-rest (scikit-learn). Micro-F1 with one global threshold chosen on a
  validation split carved from train (every method, the SVM included, gets
  the same rule: labels above the threshold, at least the top label), P@1, P@5.
- Zero-shot: ~20% of the labels (seeded choice among labels outside the 10 most
  frequent) are held out; every training document carrying one is removed;
  models train on the seen labels, then score the held-out labels from their
  descriptions alone. Ranking loss, average precision (LRAP) and one-error
  over the held-out labels on the test documents that carry at least one of
  them, for GILE, both bilinear forms, only-label, only-input and random.
- DrillHead over the label descriptions (`drill_han`, `drill`; DRILL's deep
  residual label network in place of GILE's joint space, `--activation`,
  shared bias), in the seen-label and zero-shot parts next to GileHead.
- Train-time ratio of GILE-HAN with `jit_compile=True` vs `False` (one epoch
  each after a warm-up epoch, same process).

Word vectors are pretrained on the training text itself (PPMI + SVD,
`pretrain_word_vectors`): on all training documents for the seen-label models,
on the filtered training documents for the zero-shot models.

    python benchmarks/reuters.py            # full run, about an hour on 2 CPU cores
    python benchmarks/reuters.py --quick    # a few epochs, to check the script
    python benchmarks/reuters.py --parts seen,zeroshot --seen-models gile_han,drill_han \
        --zero-shot-heads gile,drill --output benchmarks/results/reuters_drill.json
"""

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import RESULTS, write_report  # noqa: E402

from keras_labelemb.datasets import load_reuters, remove_unseen_from_train, restrict_labels, zero_shot_split  # noqa: E402
from keras_labelemb.evaluation import (  # noqa: E402
    choose_threshold,
    classification_report,
    ranking_report,
    sigmoid,
)
from keras_labelemb.models import document_classifier, set_labels  # noqa: E402
from keras_labelemb.text import TextVectorizer  # noqa: E402
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors  # noqa: E402

# The spine's zero-shot heads (the keys of `summary.zeroshot_avgpr`), then DrillHead beside them.
SPINE_ZERO_SHOT_HEADS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input")
ZERO_SHOT_HEADS = SPINE_ZERO_SHOT_HEADS + ("drill",)
SEEN_MODELS = {"gile_han": "gile", "han_linear": "linear", "drill_han": "drill"}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default=None, help="Reuters folder (default: $KERAS_LABELEMB_DATA/reuters21578)")
    p.add_argument("--parts", default="svm,seen,zeroshot,jit", help="comma-separated parts to run")
    p.add_argument("--seen-models", default=",".join(SEEN_MODELS), help=f"from {','.join(SEEN_MODELS)}")
    p.add_argument("--zero-shot-heads", default=",".join(ZERO_SHOT_HEADS), help=f"from {','.join(ZERO_SHOT_HEADS)}")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--sentences", type=int, default=15)
    p.add_argument("--words", type=int, default=30)
    p.add_argument("--label-words", type=int, default=12)
    p.add_argument("--embedding-dim", type=int, default=100)
    p.add_argument("--encoder", default="dense")
    p.add_argument("--units", type=int, default=100)
    p.add_argument("--dropout", type=float, default=0.3)
    p.add_argument("--joint-dim", type=int, default=500)
    p.add_argument("--bilinear-dim", type=int, default=100, help="d_j of bilinear_yh15 (GILE Table 2: 100)")
    p.add_argument("--activation", default="tanh", help="sigma of the GileHead variants")
    p.add_argument("--drill-depth", type=int, default=2, help="k of the DrillHead label network (DRILL default 2)")
    p.add_argument("--drill-dropout", type=float, default=0.0, help="variational dropout between DrillHead layers")
    p.add_argument("--freeze-embeddings", action="store_true", help="keep the pretrained word vectors fixed")
    p.add_argument("--no-pretrained", action="store_true", help="random word vectors instead of PPMI-SVD")
    p.add_argument("--validation-fraction", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0, help="data splits, SVM, and the networks' first seed")
    p.add_argument(
        "--seen-seeds",
        type=int,
        default=1,
        help="seen-label networks: train each with this many initialisation seeds (seed, seed+1, ...) "
        "on the same split; micro-F1 is then reported as mean and standard deviation",
    )
    p.add_argument("--quick", action="store_true", help="2 epochs, to check the script end to end")
    p.add_argument("--output", default=str(RESULTS / "reuters.json"))
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.patience = 2, 2
    for option, given, known in (
        ("--seen-models", args.seen_models, SEEN_MODELS),
        ("--zero-shot-heads", args.zero_shot_heads, ZERO_SHOT_HEADS),
    ):
        unknown = sorted(set(given.split(",")) - set(known))
        if unknown:
            p.error(f"{option}: unknown {unknown}; choose from {','.join(known)}")
    return args


class Setup:
    """Data, vocabulary and token ids shared by every model of the run."""

    def __init__(self, args):
        self.args = args
        self.data = load_reuters(args.data_dir)
        self.vectorizer = TextVectorizer(flat=False, max_sentences=args.sentences, max_sentence_length=args.words)
        self.vectorizer.adapt(self.data.train_texts, min_count=2)
        self.label_ids = self.vectorizer.encode_labels(self.data.label_descriptions, args.label_words)
        self._ids = {}

    def ids(self, texts):
        # Keyed by the list's identity; the list is kept with its ids so the key cannot be reused.
        key = id(texts)
        if key not in self._ids:
            self._ids[key] = (texts, self.vectorizer(tf.constant(texts, dtype=tf.string)).numpy())
        return self._ids[key][1]

    def word_vectors(self, texts):
        if self.args.no_pretrained:
            return None
        return pretrain_word_vectors(self.ids(texts), self.vectorizer.vocabulary_size, self.args.embedding_dim)


def head_of(setup, head, joint_dim=None):
    """The `document_classifier` head spec of a head name, from this benchmark's flags."""
    a = setup.args
    if head == "linear":
        return "linear"
    if head == "drill":
        return {"type": "drill", "depth": a.drill_depth, "dropout": a.drill_dropout, "activation": a.activation}
    return {"type": "gile", "variant": head, "joint_dim": joint_dim or a.joint_dim, "activation": a.activation}


def build(setup, head, label_ids, num_labels, vectors, joint_dim=None):
    a = setup.args
    return document_classifier(
        setup.vectorizer.vocabulary_size,
        label_ids=label_ids if head != "linear" else None,
        num_labels=num_labels,
        max_sentences=a.sentences,
        max_sentence_length=a.words,
        embedding_dim=a.embedding_dim,
        embeddings_initializer=keras.initializers.Constant(vectors) if vectors is not None else "uniform",
        train_embeddings=not a.freeze_embeddings,
        encoder=a.encoder,
        encoder_units=a.units,
        dropout=a.dropout,
        head=head_of(setup, head, joint_dim),
    )


def train(setup, data, head, label_ids, vectors, jit_compile=True, joint_dim=None, seed=None):
    """Trains on `data.train`, keeps the epoch with the best validation micro-F1."""
    a = setup.args
    keras.utils.set_random_seed(a.seed if seed is None else seed)
    model = build(setup, head, label_ids, data.num_labels, vectors, joint_dim)
    model.compile(
        keras.optimizers.Adam(a.learning_rate),
        keras.losses.BinaryCrossentropy(from_logits=True),
        jit_compile=jit_compile,
    )
    best = BestValidationF1(setup.ids(data.val_texts), data.multi_hot("val"), patience=a.patience)
    start = time.time()
    history = model.fit(
        setup.ids(data.train_texts),
        data.multi_hot("train"),
        batch_size=a.batch_size,
        epochs=a.epochs,
        callbacks=[best],
        verbose=2,
    )
    info = {
        "train_seconds": round(time.time() - start, 1),
        "epochs_run": len(history.history["loss"]),
        "best_epoch": best.best_epoch + 1,
        "val_micro_f1": best.best_f1,
        "threshold": best.threshold,
        "val_micro_f1_curve": [round(v, 4) for v in history.history["val_micro_f1"]],
        "parameters": int(model.count_params()),
    }
    return model, info


def run_svm(setup, data):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    start = time.time()
    tfidf = TfidfVectorizer(ngram_range=(1, 3), min_df=2, sublinear_tf=True)
    x_train = tfidf.fit_transform(data.train_texts)
    y_train = data.multi_hot("train")
    svm = OneVsRestClassifier(LinearSVC(C=1.0), n_jobs=2).fit(x_train, y_train)
    # scikit-learn answers a label with no training positive with a constant decision of 0.0,
    # which outranks every real (mostly negative) score; such a label gets the lowest score.
    untrained = y_train.sum(axis=0) == 0

    def decision(texts):
        scores = svm.decision_function(tfidf.transform(texts))
        scores[:, untrained] = scores.min() - 1.0
        return scores

    threshold, val_f1 = choose_threshold(data.multi_hot("val"), decision(data.val_texts), np.arange(-1.0, 0.51, 0.05))
    test_scores = decision(data.test_texts)
    report = classification_report(data.multi_hot("test"), test_scores, threshold)
    report.update(
        val_micro_f1=val_f1,
        train_seconds=round(time.time() - start, 1),
        features=int(x_train.shape[1]),
        labels_without_training_documents=int(untrained.sum()),
    )
    report["micro_f1_threshold_0"] = float(
        classification_report(data.multi_hot("test"), test_scores, 0.0, at_least_one=False)["micro_f1"]
    )
    return report


def run_seen(setup, results):
    a = setup.args
    data = setup.data.validation_split(a.validation_fraction, seed=a.seed)
    vectors = setup.word_vectors(data.train_texts + data.val_texts)
    for name in a.seen_models.split(","):
        head = SEEN_MODELS[name]
        runs = []
        for seed in range(a.seed, a.seed + a.seen_seeds):
            print(f"\n== seen labels: {name}, seed {seed} ==", flush=True)
            model, info = train(setup, data, head, setup.label_ids, vectors, seed=seed)
            scores = sigmoid(model.predict(setup.ids(data.test_texts), verbose=0, batch_size=256))
            info.update(classification_report(data.multi_hot("test"), scores, info["threshold"]), seed=seed)
            runs.append(info)
            print({k: v for k, v in info.items() if k != "val_micro_f1_curve"}, flush=True)
        results["seen"][name] = seed_summary(runs)


def seed_summary(runs):
    """The first seed's report, with every seed's report and the mean/std of the test metrics when several ran."""
    out = dict(runs[0])
    if len(runs) > 1:
        out["seeds"] = runs
        for key in ("micro_f1", "precision_at_1", "precision_at_5", "val_micro_f1"):
            values = np.array([r[key] for r in runs], dtype="float64")
            out[key] = float(values.mean())  # the headline number is the mean over seeds
            out[f"{key}_std"] = float(values.std(ddof=1))
        out["train_seconds"] = float(np.mean([r["train_seconds"] for r in runs]))
    return out


def run_zero_shot(setup, results):
    data = setup.data
    seen, unseen = zero_shot_split(data, unseen_fraction=0.2, exclude_top=10, seed=setup.args.seed)
    train_data = restrict_labels(remove_unseen_from_train(data, unseen), seen)
    train_data = train_data.validation_split(setup.args.validation_fraction, seed=setup.args.seed)
    unseen_test = restrict_labels(data, unseen).multi_hot("test")
    results["zero_shot"]["split"] = {
        "unseen_labels": [data.label_names[j] for j in unseen],
        "unseen_descriptions": [data.label_descriptions[j] for j in unseen],
        "seed": setup.args.seed,
        "train_documents": len(train_data.train_texts),
        "validation_documents": len(train_data.val_texts),
    }
    vectors = setup.word_vectors(train_data.train_texts + train_data.val_texts)
    test_ids = setup.ids(data.test_texts)
    dims = {"gile": setup.args.joint_dim, "bilinear_yh15": setup.args.bilinear_dim}
    for head in setup.args.zero_shot_heads.split(","):
        print(f"\n== zero-shot: {head} ==", flush=True)
        model, info = train(setup, train_data, head, setup.label_ids[seen], vectors, joint_dim=dims.get(head))
        info["seen_test"] = classification_report(
            restrict_labels(data, seen).multi_hot("test"),
            sigmoid(model.predict(test_ids, verbose=0, batch_size=256)),
            info["threshold"],
        )
        set_labels(model, setup.label_ids[unseen])
        info.update(ranking_report(unseen_test, model.predict(test_ids, verbose=0, batch_size=256)))
        results["zero_shot"][head] = info
        print({k: v for k, v in info.items() if k not in ("val_micro_f1_curve", "seen_test")}, flush=True)
    random_scores = np.random.default_rng(setup.args.seed).random(unseen_test.shape)
    results["zero_shot"]["random"] = ranking_report(unseen_test, random_scores)


def run_jit_ratio(setup, results):
    """Seconds per training epoch of GILE-HAN, XLA on and off, each after a warm-up epoch."""
    data = setup.data
    x, y = setup.ids(data.train_texts), data.multi_hot("train")
    # Full batches only: a smaller last batch is a new shape, and XLA would compile it
    # inside the timed epoch (the warm-up epoch has the same batch shape as the timed one).
    full = len(x) - len(x) % setup.args.batch_size
    x, y = x[:full], y[:full]
    timings = {}
    for jit in (True, False):
        keras.utils.set_random_seed(setup.args.seed)
        model = build(setup, "gile", setup.label_ids, data.num_labels, None)
        model.compile(keras.optimizers.Adam(1e-3), keras.losses.BinaryCrossentropy(from_logits=True), jit_compile=jit)
        model.fit(x[:512], y[:512], batch_size=setup.args.batch_size, epochs=1, verbose=0)  # compile / trace
        start = time.time()
        model.fit(x, y, batch_size=setup.args.batch_size, epochs=1, verbose=0)
        timings["jit" if jit else "no_jit"] = time.time() - start
    results["jit"] = {
        "seconds_per_epoch_jit": round(timings["jit"], 2),
        "seconds_per_epoch_no_jit": round(timings["no_jit"], 2),
        "speedup": round(timings["no_jit"] / timings["jit"], 3),
        "note": "CPU, TensorFlow backend, same process; ratio no_jit/jit (>1 means XLA is faster)",
    }
    print(results["jit"], flush=True)


def summary(results):
    seen, zs = results.get("seen", {}), results.get("zero_shot", {})
    out = {}
    for name in ("gile_han", "han_linear"):
        if name in seen:
            out[f"{name}_micro_f1"] = seen[name]["micro_f1"]
    if "svm" in results:
        out["svm_micro_f1"] = results["svm"]["micro_f1"]
    if "random" in zs:
        out["zeroshot_avgpr"] = {
            k: zs[k]["label_ranking_average_precision"] for k in SPINE_ZERO_SHOT_HEADS + ("random",) if k in zs
        }
    if "jit" in results:
        out["jit_speedup"] = results["jit"]["speedup"]
    # DrillHead is not part of the spine's summary keys; its numbers sit beside them.
    if "drill_han" in seen:
        out["drill_han_micro_f1"] = seen["drill_han"]["micro_f1"]
    if "drill" in zs:
        out["zeroshot_avgpr_drill"] = zs["drill"]["label_ranking_average_precision"]
    return out


def table(results):
    seeds = max((len(r.get("seeds", [0])) for r in results.get("seen", {}).values()), default=1)
    lines = [
        "Seen labels (90), test documents: 3,019"
        + (f"; networks: mean ± std over {seeds} initialisation seeds (same split)" if seeds > 1 else ""),
        "",
        "| model | micro-F1 | P@1 | P@5 | epochs (best) | train s |",
        "|---|---|---|---|---|---|",
    ]
    rows = [
        ("GILE-HAN", results.get("seen", {}).get("gile_han")),
        ("HAN, linear head", results.get("seen", {}).get("han_linear")),
        ("DRILL-HAN (DrillHead over descriptions)", results.get("seen", {}).get("drill_han")),
        ("tf-idf 1-3-gram LinearSVC", results.get("svm")),
    ]
    for name, r in rows:
        if r:
            epochs = f"{r['epochs_run']} ({r['best_epoch']})" if "epochs_run" in r else "-"
            if "seeds" in r:
                epochs = ", ".join(f"{s['epochs_run']} ({s['best_epoch']})" for s in r["seeds"])
            cells = [
                f"{r[k]:.4f}" + (f" ± {r[k + '_std']:.4f}" if k + "_std" in r else "")
                for k in ("micro_f1", "precision_at_1", "precision_at_5")
            ]
            lines.append(f"| {name} | {' | '.join(cells)} | {epochs} | {r['train_seconds']:.0f} |")
    zs = results.get("zero_shot", {})
    if "random" in zs:
        n = zs["random"]["documents"]
        lines += [
            "",
            f"Zero-shot, {len(zs['split']['unseen_labels'])} held-out labels, {n} test documents carrying one "
            "(lower is better for ranking loss and one-error)",
            "",
            "| output layer | ranking loss | avg precision | one-error | seen-label micro-F1 |",
            "|---|---|---|---|---|",
        ]
        for k in ZERO_SHOT_HEADS + ("random",):
            if k in zs:
                r = zs[k]
                seen_f1 = f"{r['seen_test']['micro_f1']:.4f}" if "seen_test" in r else "-"
                lines.append(
                    f"| {k} | {r['ranking_loss']:.4f} | {r['label_ranking_average_precision']:.4f} "
                    f"| {r['one_error']:.4f} | {seen_f1} |"
                )
    if "jit" in results:
        j = results["jit"]
        lines += [
            "",
            f"GILE-HAN train epoch: {j['seconds_per_epoch_jit']} s with `jit_compile=True`, "
            f"{j['seconds_per_epoch_no_jit']} s without: ratio {j['speedup']:.2f} (CPU, same process).",
        ]
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    setup = Setup(args)
    parts = set(args.parts.split(","))
    results = {"seen": {}, "zero_shot": {}}
    if "svm" in parts:
        print("\n== tf-idf 1-3-gram LinearSVC ==", flush=True)
        results["svm"] = run_svm(setup, setup.data.validation_split(args.validation_fraction, seed=args.seed))
        print(results["svm"], flush=True)

    # The report is rewritten after each part, so an interrupted run keeps what it measured.
    def save():
        return write_report(
            args.output,
            "reuters21578 ModApte-90",
            "reuters.py",
            args,
            argv,
            results,
            summary(results),
            table(results),
            start,
        )

    for part, run in (("seen", run_seen), ("zeroshot", run_zero_shot), ("jit", run_jit_ratio)):
        save()
        if part in parts:
            run(setup, results)
    report = save()
    print("\n" + table(results) + f"\n\nWall time {report['wall_seconds']:.0f} s. Results: {args.output}")


if __name__ == "__main__":
    main()
