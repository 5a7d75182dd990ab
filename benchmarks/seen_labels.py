"""Seen labels: the wide path, the regularised BiLSTM and wide + deep models against the tuned SVM, same run.

For each seed (`--seed`, `--seed + 1`, ...), one validation split (10% of the
training documents, drawn with that seed) serves every model of that seed, so
the comparison with the SVM is paired over seeds:

- `svm`: tf-idf LinearSVC, C and n-gram range (1, 1-2, 1-3) chosen on
  validation (`benchmarks.baselines.tuned_linear_svc`; the C grid is widened
  until the choice is interior; the run says when it is not);
- `wide`: the library's wide path alone, `WideHead` over the in-model
  `TfidfVectorizer` features, trained with `model.fit` on the SVM's own
  objective (squared hinge, L2 penalty `1 / (2 C n L)` on the weights, the
  sum over labels of LinearSVC's) with the C and n-gram range the seed's
  tuned SVM chose on validation (min_df 2, sublinear tf, as the SVM's
  features); best epoch on validation;
- `bilstm_linear`, `bilstm_gile`: `MaxPoolEncoder` (BiLSTM + max pooling over
  time, whole-word dropout; Adam with weight averaging, `use_ema`, read
  through `keras.callbacks.SwapEMAWeights`) with the linear or the GILE head,
  binary (or softmax) cross-entropy;
- `wide_bilstm_linear`, `wide_bilstm_gile`: the same with the wide path
  (`HybridHead([deep, WideHead])` over `num_features` tf-idf features), trained on the wide path's
  objective (squared hinge, the same L2 on the wide weights), the wide path
  started from the seed's trained `wide` model (its weights; the hybrid's
  bias at 0, as the wide bias holds the prior);
- `late_fusion` (a baseline): the tuned SVM's decision scores and `bilstm_linear`'s logits, each divided by
  its spread, mixed by the weight that scores best on validation (`tasks.wide_path.choose_mix`, the wide +
  deep rule), the threshold chosen on validation at that mix: what a user builds from scikit-learn and any
  network;
- `fine_tuned_minilm` (a baseline): what a user tries first today, all-MiniLM-L6-v2 fine-tuned end to end
  under a per-label linear layer, the `minilm_fine_tuned` preset of `LabelClassifier` trained by `fit` on
  the raw strings, in Keras' transfer-learning recipe: the head first trained alone on the frozen encoder's
  vectors (`linear_probe`, its own row: what needs no fine-tuning), then everything fine-tuned
  (`--minilm-tokens` word pieces, AdamW with weight decay 0.01, batch 32, mixed bfloat16 on CPU, at most
  `--minilm-epochs`, stopping after `--minilm-patience` epochs without a better validation score). The
  learning rate is chosen on the first seed's validation split from `--minilm-learning-rates`, widened by
  3x while the choice sits at an edge (later seeds reuse it; on 2 CPU cores a grid per seed does not fit),
  the epoch on each seed's validation.

- `late_fusion_minilm` (a baseline): the tuned SVM's decision scores and `fine_tuned_minilm`'s logits mixed
  as `late_fusion` mixes the BiLSTM's (its logits are kept in `~/.cache/keras_labelemb/seen_labels/`).

The summary's `best_model` is the library model (not a baseline) with the best mean validation score; a
model whose runs lack a validation score cannot be chosen.

Reuters (multi-label): micro-F1 at one threshold chosen on validation (the SVM
too). 20 Newsgroups (single-label, headers removed): test error of the
argmax, best epoch on validation accuracy. Beside accuracy: seconds to the
best epoch, and serving throughput from raw strings (documents per second of
the exported SavedModel of the last seed's best library model against the
scikit-learn pipeline's decision function on the same test texts, measured
one after the other in this process).

    python -m benchmarks.seen_labels --dataset reuters      # about 110 minutes on 2 CPU cores
    python -m benchmarks.seen_labels --dataset newsgroups
    python -m benchmarks.seen_labels --quick                # 1 seed, 1 epoch, small grids: checks the script
    python -m benchmarks.seen_labels --dataset newsgroups --epochs 15 --resume   # the seeds a stopped run lacks

Writes `benchmarks/results/seen_labels.json`: `results[dataset]` and `summary[dataset]`
(`svm`, `wide`, `deep`, `wide_deep`, `best`, `best_model`, `best_vs_svm`); a
run of one dataset keeps the other dataset's entries of an earlier run, with
that run's command and code version beside them. `--resume` keeps the seeds an
earlier run of the same dataset and settings recorded (a run stopped part-way)
and runs the others; the results say which run gave which seeds. Each seed
records the process's peak resident memory so far (`peak_rss_mb`).
"""

import json
import os
import pathlib
import resource
import tempfile
import time
import types

import keras
import numpy as np
import tensorflow as tf

from benchmarks.baselines import tuned_svm
from benchmarks.benchmark import Arguments, seed_range
from benchmarks.datasets import load_newsgroups, load_reuters
from benchmarks.noise_rule import paired_comparison
from benchmarks.report import VERSION_AT_START, command_line, recorded_config, results_header, write_report
from benchmarks.tables import claim, markdown_table, mean_pm_std, met
from benchmarks.training_loop import fit_best_epoch
from benchmarks.word_vectors import glove50
from keras_labelemb.evaluation import choose_threshold, classification_report
from keras_labelemb.evaluation.reports import sigmoid
from keras_labelemb.export import export_text_classifier, load_text_classifier
from keras_labelemb.layers import GileHead, HybridHead, LinearHead, MaxPoolEncoder, WideHead
from keras_labelemb.models.document_classifier import build_encoder, document_classifier, prior_bias
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.tasks.wide_path import choose_mix, sparse_rows
from keras_labelemb.text import TextVectorizer, TfidfVectorizer
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors
from keras_labelemb.training.best_epoch_stopping import BestEpochStopping

MODELS = (
    "wide",
    "bilstm_linear",
    "bilstm_gile",
    "blend_bilstm_linear",
    "blend_bilstm_gile",
    "late_fusion",
    "fine_tuned_minilm",
    "late_fusion_minilm",
)
JOINT = ("wide_bilstm_linear", "wide_bilstm_gile")  # trained together; by --models
DEEP = ("bilstm_linear", "bilstm_gile")
WIDE_DEEP = ("blend_bilstm_linear", "blend_bilstm_gile") + JOINT
BASELINES = ("late_fusion", "fine_tuned_minilm", "late_fusion_minilm")  # what a user builds without the library
STANDALONE = {"fine_tuned_minilm"}  # models that need neither the SVM nor the wide features
LOGITS = os.path.join(os.path.expanduser("~"), ".cache", "keras_labelemb", "seen_labels")  # for later blends
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
NGRAM_GRID = ((1, 1), (1, 2), (1, 3))


def parse_args(argv=None):
    p = Arguments(
        "seen_labels", __doc__, seeds=3, epochs=10, batch_size=32, data_dir="reuters21578 or 20newsgroups_bydate"
    )
    p.add_argument("--dataset", default="reuters", choices=("reuters", "newsgroups"))
    p.add_argument("--models", default=",".join(MODELS), help=f"from {','.join(MODELS + JOINT)}")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--label-words", type=int, default=12)
    p.add_argument("--word-vectors", default="glove50", choices=("glove50", "ppmi"))
    p.add_argument("--units", type=int, default=128, help="BiLSTM units per direction")
    p.add_argument("--word-dropout", type=float, default=0.1)
    p.add_argument("--recurrent-dropout", type=float, default=0.0)
    p.add_argument("--joint-dim", type=int, default=500)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--ema-momentum", type=float, default=0.99)
    p.add_argument("--wide-epochs", type=int, default=60)
    p.add_argument("--wide-learning-rate", type=float, default=0.01)
    p.add_argument("--wide-patience", type=int, default=5)
    p.add_argument("--minilm-tokens", type=int, default=128, help="word pieces fine-tuned MiniLM reads")
    p.add_argument("--minilm-epochs", type=int, default=8, help="at most; stops after --minilm-patience worse")
    p.add_argument("--minilm-patience", type=int, default=1)
    p.add_argument(
        "--minilm-learning-rates", default="3e-5,1e-4,3e-4", help="the first seed's grid (widened at an edge)"
    )
    p.add_argument("--minilm-precision", default="mixed_bfloat16", help="the dtype policy fine-tuning runs under")
    p.add_argument("--resume", action="store_true", help="keep the seeds --output holds for this dataset and settings")
    p.add_argument("--resummarize", action="store_true", help="rebuild --output's summaries from its runs, no training")
    args = p.parse_args(argv)
    p.check_choices(args, models=MODELS + JOINT)
    args.c_grid, args.ngram_grid = C_GRID, NGRAM_GRID
    args.minilm_grid = tuple(float(v) for v in args.minilm_learning_rates.split(","))
    if args.quick:
        args.seeds, args.epochs, args.wide_epochs, args.c_grid, args.ngram_grid = 1, 1, 2, (1.0,), ((1, 1),)
        args.minilm_epochs, args.minilm_grid = 1, args.minilm_grid[:1]
    args.minilm_train_limit = 64 if args.quick else None  # --quick checks the path, not the model
    args.minilm_probe_epochs = 3 if args.quick else 200
    return args


class Task:
    """The dataset, its vectorizers and targets; multi-label (Reuters) or single-label (20 Newsgroups)."""

    def __init__(self, args):
        self.args = args
        self.multi_label = args.dataset == "reuters"
        self.data = load_reuters(args.data_dir) if self.multi_label else load_newsgroups(args.data_dir)
        self.label_names, self.label_descriptions = self.data.label_names, self.data.label_descriptions
        self.minilm_learning_rate = None  # chosen on the first seed run

    def split(self, seed):
        """Per seed: validation split, vectorizers fitted on its training part, ids, features, targets."""
        a = self.args
        data = self.data.validation_split(0.1, seed=seed)
        self.tokens = TextVectorizer(max_tokens=a.max_tokens)
        self.tokens.adapt(data.train_texts, min_count=2)
        self.label_ids = self.tokens.encode_labels(data.label_descriptions, a.label_words)
        self.texts = {s: getattr(data, f"{s}_texts") for s in ("train", "val", "test")}
        self.ids = {s: self.tokens(tf.constant(t)).numpy() for s, t in self.texts.items()}
        if self.multi_label:
            self.y = {s: data.multi_hot(s) for s in self.texts}
        else:
            self.y = {s: np.array([labels[0] for labels in getattr(data, f"{s}_labels")]) for s in self.texts}
        self.num_labels = data.num_labels
        if a.word_vectors == "glove50":
            self.vectors, self.coverage = glove50(self.tokens, self.label_ids)
        else:
            self.vectors = pretrain_word_vectors(self.ids["train"], self.tokens.vocabulary_size, 100)
            self.coverage = None

    def fit_wide_features(self, ngrams, c):
        """The wide path's features and L2 from the seed's SVM choice: its n-gram range and its C."""
        self.features = TfidfVectorizer(ngrams=ngrams, min_df=2)
        self.features.adapt(self.texts["train"])
        self.x_wide = {s: sparse_features(self.features, t) for s, t in self.texts.items()}
        # LinearSVC minimises sum_l (|w_l|^2 / 2 + C sum_n sqhinge); Keras' loss is the mean over n and l.
        self.wide_l2 = 1.0 / (2.0 * c * len(self.texts["train"]) * self.num_labels)

    def inputs(self, split, wide, deep):
        if wide and deep:
            return {"token_ids": self.ids[split], "features": self.x_wide[split]}
        return self.x_wide[split] if wide else self.ids[split]

    def targets(self, split):
        if self.multi_label:
            return self.y[split]
        return keras.utils.to_categorical(self.y[split], self.num_labels)

    def score(self, logits, threshold, split="test"):
        if self.multi_label:
            return classification_report(self.y[split], sigmoid(logits), threshold)["micro_f1"]
        return float((np.argmax(logits, axis=1) != self.y[split]).mean())


def sparse_features(vectorizer, texts, batch_size=512):
    """The tf-idf features of `texts` as one SciPy CSR matrix, `batch_size` documents at a time (the task's own)."""
    return sparse_rows(vectorizer, texts, batch_size)


def metric_name(task):
    return "micro_f1" if task.multi_label else "error"


def build(task, name):
    """The model `name` stands for: `wide`, `linear`/`gile` (a BiLSTM with max pooling under that head), or
    `wide_<deep>` (the deep head and the wide path in one HybridHead)."""
    a = task.args
    regularizer = keras.regularizers.L2(task.wide_l2)
    if name == "wide":
        features = keras.Input((task.features.num_features,), sparse=True, name="features")
        head = WideHead(task.num_labels, kernel_regularizer=regularizer, name="wide_head")
        return keras.Model(features, head(features), name="wide")
    embedding, _ = word_embeddings(task.tokens.vocabulary_size, vectors=task.vectors)
    encoder = MaxPoolEncoder(
        units=a.units, word_dropout=a.word_dropout, recurrent_dropout=a.recurrent_dropout, name="document_encoder"
    )
    build_encoder(embedding, encoder, (a.max_tokens,))  # before the head: the recorded runs' draw order
    prior = prior_bias(task.num_labels)
    linear, wide = name.endswith("linear"), name.startswith("wide_")
    # A head alone starts its bias at the prior; in a hybrid the components' start at 0 (the hybrid's holds it).
    bias = {} if wide else {"bias_initializer": prior}
    if linear:
        head = LinearHead(task.num_labels, name="linear_head", **bias)
    else:
        head = GileHead(embedding, task.label_ids if not wide else None, joint_dim=a.joint_dim, activation="tanh",
                        name="gile_head", **bias)  # fmt: skip
    num_features = None
    if wide:
        head = HybridHead(
            [head, WideHead(task.num_labels, kernel_regularizer=regularizer, name="wide_head")],
            label_ids=None if linear else task.label_ids,
            num_labels=task.num_labels,
            bias_initializer=prior,
            name="hybrid_head",
        )
        num_features = task.features.num_features
    return document_classifier(
        encoder, head, embedding=embedding, max_tokens=a.max_tokens, num_features=num_features, name=name
    )


def train(task, name, seed, wide_model=None):
    """Trains `name` on the seed's split; keeps the best validation epoch; returns the model and its report."""
    a = task.args
    keras.utils.set_random_seed(seed)
    model = build(task, name)
    wide, deep = name.startswith("wide"), name != "wide"
    if wide and deep:  # the wide path starts where the wide model ended; its bias holds the prior
        hybrid = model.layers[-1]
        hybrid.components[-1].set_weights(wide_model.get_layer("wide_head").get_weights())
        hybrid.bias.assign(0.0)
    if deep:
        optimizer = keras.optimizers.Adam(a.learning_rate, use_ema=True, ema_momentum=a.ema_momentum)
        callbacks = [keras.callbacks.SwapEMAWeights(swap_on_epoch=True)]
        epochs = a.epochs
    else:
        optimizer, callbacks, epochs = keras.optimizers.Adam(a.wide_learning_rate), [], a.wide_epochs
    patience = a.patience if deep else a.wide_patience
    x_val = task.inputs("val", wide, deep)
    if wide:  # the SVM's objective (one-vs-rest squared hinge; the L2 is the wide head's regularizer)
        loss = keras.losses.SquaredHinge()
    elif task.multi_label:
        loss = keras.losses.BinaryCrossentropy(from_logits=True)
    else:
        loss = keras.losses.CategoricalCrossentropy(from_logits=True)
    if task.multi_label:
        best, metrics = BestValidationF1(x_val, task.y["val"], patience=patience), []
    else:
        best = BestEpochStopping("val_accuracy", patience)
        metrics = [keras.metrics.CategoricalAccuracy(name="accuracy")]
    # Every model trains and scores through the task (a wide path reads SciPy sparse tf-idf rows).
    trainer = LabelClassifier.from_model(model, multi_label=task.multi_label)
    trainer.compile(optimizer, loss, metrics=metrics)
    _, fitted = fit_best_epoch(
        trainer,
        task.inputs("train", wide, deep),
        task.targets("train"),
        best=best,
        epochs=epochs,
        callbacks=callbacks,
        batch_size=a.batch_size,
        validation_data=None if task.multi_label else (x_val, task.targets("val")),
    )
    logits = trainer.predict_logits(task.inputs("test", wide, deep), batch_size=256)
    threshold = getattr(best, "threshold", None)
    report = {metric_name(task): task.score(logits, threshold), **fitted, "seed": seed}
    report["val_score"] = float(best.best_value)
    if threshold is not None:
        report["threshold"] = float(threshold)
    print(name, report, flush=True)
    return model, report


def minilm_classifier(task):
    """The `minilm_fine_tuned` preset for `task`'s labels, built under `--minilm-precision`."""
    a = task.args
    policy = keras.mixed_precision.global_policy()
    keras.mixed_precision.set_global_policy(a.minilm_precision)  # the layers take it when built
    try:
        classifier = LabelClassifier.from_preset(
            "minilm_fine_tuned",
            labels=dict(zip(task.label_names, task.label_descriptions)),
            multi_label=task.multi_label,
            max_tokens=a.minilm_tokens,
        )
        classifier.predict_logits(task.texts["val"][:2])  # builds the head, under the policy
    finally:
        keras.mixed_precision.set_global_policy(policy)
    return classifier


def linear_probe(task, classifier, limit):
    """The first step of Keras' transfer-learning recipe, `LabelClassifier.fit_head`: the head alone trained
    on the frozen encoder's vectors, computed once, so that fine-tuning starts from a converged head. Without
    it, a linear head over unit-length sentence vectors at a fine-tuning learning rate was still far from
    converged after 3 epochs (`benchmarks/research_log.md`). Adam(1e-3), batch 32, the epoch chosen on
    validation (patience 5, at most 200 epochs). Returns the head's weights and a report: the frozen encoder +
    trained head scored on test (a row that needs no fine-tuning)."""
    start = time.time()
    history = classifier.fit_head(
        task.texts["train"][limit],
        task.targets("train")[limit],
        validation_data=(task.texts["val"], task.y["val"] if task.multi_label else task.targets("val")),
        epochs=task.args.minilm_probe_epochs,
    ).history
    scores = history["val_micro_f1" if task.multi_label else "val_accuracy"]
    logits = {
        s: np.asarray(classifier.predict_logits(task.texts[s], batch_size=64), "float32") for s in ("val", "test")
    }
    threshold = choose_threshold(task.y["val"], sigmoid(logits["val"]))[0] if task.multi_label else None
    report = {metric_name(task): task.score(logits["test"], threshold), "val_score": float(max(scores))}
    report.update(best_epoch=int(np.argmax(scores)) + 1, epochs_run=len(scores), seconds=round(time.time() - start, 1))
    print("linear probe (frozen MiniLM + trained linear head)", report, flush=True)
    return classifier.head.get_weights(), report


PARTS = ("train", "val", "test")
WIDENINGS = 2  # learning rates added past an edge of the grid, a factor of 3 each


def widened(grid, tried):
    """The learning rates of `grid`, then, while the best of `tried` (rate -> report) sits at an edge of the
    rates tried, the next rate beyond that edge (x3 or /3), at most `WIDENINGS` of them. A one-rate grid (a
    later seed reusing the first seed's choice) is not widened."""
    yield from grid
    for _ in range(WIDENINGS if len(grid) > 1 else 0):
        rates = sorted(float(r) for r in tried)
        best = max(tried, key=lambda r: tried[r]["val_score"])
        if float(best) == rates[-1]:
            yield float(f"{rates[-1] * 3:.3g}")
        elif float(best) == rates[0]:
            yield float(f"{rates[0] / 3:.3g}")
        else:
            return


def train_fine_tuned(task, seed, learning_rates):
    """`fine_tuned_minilm`: the `minilm_fine_tuned` preset trained by `fit` on the seed's raw strings, its
    head first trained alone on the frozen encoder (`linear_probe`), then everything fine-tuned once per
    learning rate in `learning_rates` (the best on validation kept); returns the classifier and its report."""
    a, tried, best_run = task.args, {}, None
    kept = kept_fine_tuned(task, seed, learning_rates)
    if kept:
        return None, kept
    limit = slice(0, a.minilm_train_limit)
    x_val, y_val = task.texts["val"], task.y["val"]
    keras.utils.set_random_seed(seed)
    head_weights, probe_report = linear_probe(task, minilm_classifier(task), limit)
    grid = list(learning_rates)
    for learning_rate in widened(grid, tried):
        keras.utils.set_random_seed(seed)
        classifier = minilm_classifier(task)
        classifier.head.set_weights(head_weights)
        classifier.head_first = False  # the head was trained first, once for every rate
        optimizer = keras.optimizers.AdamW(learning_rate, weight_decay=0.01)
        if task.multi_label:
            best, validation = BestValidationF1(x_val, y_val, batch_size=64, patience=a.minilm_patience), None
            classifier.compile(optimizer, metrics=[])
        else:
            best, validation = BestEpochStopping("val_accuracy", a.minilm_patience), (x_val, task.targets("val"))
            classifier.compile(optimizer, metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")])
        _, fitted = fit_best_epoch(
            classifier,
            task.texts["train"][limit],
            task.targets("train")[limit],
            best=best,
            epochs=a.minilm_epochs,
            batch_size=32,
            validation_data=validation,
        )
        val_score = float(best.best_value)
        tried[str(learning_rate)] = {"val_score": val_score, "best_epoch": fitted["best_epoch"]}
        print(f"fine_tuned_minilm lr {learning_rate}: validation {val_score:.4f}", flush=True)
        if best_run is None or val_score > best_run[2]:
            best_run = (classifier, learning_rate, val_score, fitted, getattr(best, "threshold", None))
    classifier, learning_rate, val_score, fitted, threshold = best_run
    task.minilm_logits = {
        s: np.asarray(classifier.predict_logits(task.texts[s], batch_size=64), "float32") for s in ("val", "test")
    }
    logits = task.minilm_logits["test"]
    report = {metric_name(task): task.score(logits, threshold), **fitted, "seed": seed, "val_score": val_score}
    report.update(learning_rate=learning_rate, learning_rates_tried=tried, word_pieces=a.minilm_tokens)
    report["linear_probe"] = probe_report
    report["best_epoch_is_last"] = fitted["best_epoch"] == a.minilm_epochs
    rates = [float(r) for r in tried]
    report["learning_rate_at_grid_edge"] = len(tried) > 1 and learning_rate in (min(rates), max(rates))
    if threshold is not None:
        report["threshold"] = float(threshold)
    print("fine_tuned_minilm", report, flush=True)
    if a.minilm_train_limit is None:  # kept outside the repository: a later blend or a crashed run reuses it
        os.makedirs(LOGITS, exist_ok=True)
        stored = {"report": report, "settings": fine_tuning_settings(task, learning_rates)}
        np.savez(fine_tuned_path(task, seed), **task.minilm_logits, stored=json.dumps(stored))
    return classifier, report


def fine_tuned_path(task, seed):
    return os.path.join(LOGITS, f"{task.args.dataset}-fine_tuned_minilm-seed{seed}.npz")


def fine_tuning_settings(task, learning_rates):
    """What a kept fine-tuned run must share with this one to stand for it."""
    a = task.args
    skip = ("minilm_grid", "minilm_learning_rates")  # the rates this seed tries stand for them
    minilm = {k: v for k, v in vars(a).items() if k.startswith("minilm") and k not in skip}
    return {**minilm, "learning_rates": [float(r) for r in learning_rates]}


def kept_fine_tuned(task, seed, learning_rates):
    """The report of this seed's fine-tuned run kept in `LOGITS` under the same settings (its logits put in
    `task.minilm_logits`), else None. Fine-tuning takes about half an hour a seed on 2 cores."""
    path = fine_tuned_path(task, seed)
    if task.args.minilm_train_limit is not None or not os.path.exists(path):
        return None
    with np.load(path) as kept:
        stored = json.loads(str(kept["stored"])) if "stored" in kept else None
        if stored is None or stored["settings"] != fine_tuning_settings(task, learning_rates):
            return None
        task.minilm_logits = {s: kept[s] for s in ("val", "test")}
    print(f"fine_tuned_minilm: seed {seed} kept from {path}", stored["report"], flush=True)
    return stored["report"]


def late_fusion(task, seed, deep_logits, svm_decision, deep_report, svm_report, name="late_fusion"):
    """`late_fusion` (`late_fusion_minilm`): the SVM's decision scores and the BiLSTM's (fine-tuned MiniLM's)
    logits `deep_logits` (`{"val", "test"}`) mixed by a weight chosen on validation."""
    x = ("val", "test")
    parts = {s: [np.asarray(deep_logits[s], "float32"), svm_decision(task.texts[s])] for s in x}
    choice = choose_mix(parts["val"], task.targets("val"), task.multi_label)
    mixed = {s: choice["weights"][0] * parts[s][0] + choice["weights"][1] * parts[s][1] for s in x}
    threshold = choose_threshold(task.y["val"], sigmoid(mixed["val"]))[0] if task.multi_label else None
    seconds = deep_report["seconds_to_best_epoch"] + svm_report["seconds"]
    report = {
        metric_name(task): task.score(mixed["test"], threshold),
        "mix": choice["mix"],
        "val_score": choice["val_score"],
        "seconds_to_best_epoch": round(seconds, 1),
        "seed": seed,
    }
    if threshold is not None:
        report["threshold"] = float(threshold)
    print(name, report, flush=True)
    return None, report


def blend(task, name, seed, models, reports):
    """This seed's deep model and wide path, trained apart, in one wide + deep model; mix chosen on validation."""
    deep_name = name.removeprefix("blend_")
    model = build(task, f"wide_{deep_name}")
    deep, hybrid = models[deep_name], model.get_layer("hybrid_head")
    for layer in deep.layers:
        if layer is deep.layers[-1]:  # the deep model's head
            hybrid.components[0].set_weights(layer.get_weights())
        elif layer.weights:
            model.get_layer(layer.name).set_weights(layer.get_weights())
    hybrid.components[1].set_weights(models["wide"].get_layer("wide_head").get_weights())
    choice = mix_on_validation(task, model)
    logits = model.predict(task.inputs("test", True, True), batch_size=256, verbose=0)
    seconds = reports[deep_name]["seconds_to_best_epoch"] + reports["wide"]["seconds_to_best_epoch"]
    report = {
        metric_name(task): task.score(logits, choice["threshold"]),
        "mix": choice["mix"],
        "val_score": choice["val_score"],
        "seconds_to_best_epoch": round(seconds, 1),
        "parameters": int(model.count_params()),
        "seed": seed,
    }
    print(name, report, flush=True)
    return model, report


def mix_on_validation(task, model):
    """Sets the wide + deep model's mix to the one that scores best on validation (the task's own rule,
    `tasks.wide_path.choose_mix`: each component's logits scaled by their spread, the hybrid's bias 0);
    returns `{"mix", "val_score", "threshold"}` (the threshold at that mix, multi-label)."""
    hybrid, x_val = model.get_layer("hybrid_head"), task.inputs("val", True, True)
    hybrid.bias.assign(np.zeros(hybrid.bias.shape, hybrid.bias.dtype))
    parts = []
    for index in range(2):  # each component's logits, through the model as it serves
        hybrid.weights_by_component.assign(np.eye(2, dtype=hybrid.weights_by_component.dtype)[index])
        parts.append(model.predict(x_val, batch_size=256, verbose=0))
    choice = choose_mix(parts, task.targets("val"), task.multi_label)
    hybrid.weights_by_component.assign(np.asarray(choice["weights"], hybrid.weights_by_component.dtype))
    threshold = None
    if task.multi_label:
        threshold = choose_threshold(task.y["val"], sigmoid(model.predict(x_val, batch_size=256, verbose=0)))[0]
    return {"mix": choice["mix"], "val_score": choice["val_score"], "threshold": threshold}


def run_svm(task, seed):
    decision, scored = tuned_svm(
        task.texts["train"],
        task.y["train"],
        task.texts["val"],
        task.y["val"],
        task.texts["test"],
        task.y["test"],
        multi_label=task.multi_label,
        c_grid=task.args.c_grid,
        ngram_grid=task.args.ngram_grid,
    )
    value = scored["micro_f1" if task.multi_label else "error"]
    chosen = scored["C"]
    selection = ("C", "ngram_range", "val_score", "selected_on", "features", "seconds", "threshold")
    report = {metric_name(task): value, "seed": seed, **{k: scored[k] for k in selection if k in scored}}
    if task.multi_label:
        report["labels_without_training_documents"] = scored["labels_without_training_documents"]
    report["c_at_grid_edge"] = chosen in (min(task.args.c_grid), max(task.args.c_grid)) and len(task.args.c_grid) > 1
    print("svm", report, flush=True)
    return decision, report


def serving_throughput(task, model, name, svm_decision):
    """Documents per second from raw strings: the exported SavedModel against the scikit-learn pipeline."""
    texts = task.texts["test"]
    with tempfile.TemporaryDirectory() as folder:
        if name == "wide":
            raise ValueError("The wide model alone is not a serving model of the library's text classifiers.")
        wide_deep = isinstance(model.input, dict)
        vectorizer = {"token_ids": task.tokens, "features": task.features} if wide_deep else task.tokens
        export_text_classifier(model, vectorizer, folder)
        served = load_text_classifier(folder)
        batches = [tf.constant(texts[i : i + 256]) for i in range(0, len(texts), 256)]
        served.serve(batches[0])  # warm-up
        start = time.time()
        for batch in batches:
            served.serve(batch)
        saved_model = len(texts) / (time.time() - start)
    svm_decision(texts[:256])
    start = time.time()
    for i in range(0, len(texts), 256):
        svm_decision(texts[i : i + 256])
    sklearn = len(texts) / (time.time() - start)
    return {
        "model": name,
        "saved_model_docs_per_second": round(saved_model, 1),
        "sklearn_docs_per_second": round(sklearn, 1),
        "ratio": round(saved_model / sklearn, 3),
    }


def own_deep_of(wide_deep):
    """The deep path a wide + deep model holds (`blend_bilstm_gile` -> `bilstm_gile`), None for None."""
    return wide_deep and wide_deep.removeprefix("blend_").removeprefix("wide_")


def verdict_of(comparison):
    """The noise rule's verdict over seeds, as the summary keeps it."""
    kept = {k: comparison[k] for k in ("mean_gain", "p_value", "met")}
    return {**kept, "positive_seeds": comparison["positive_splits"]}


def summarize(task, runs, svm_runs):
    key = metric_name(task)
    sign = 1.0 if task.multi_label else -1.0  # a gain is a higher F1 or a lower error

    def values(name):
        return [r[key] for r in runs[name]]

    runs = {name: reports for name, reports in runs.items() if reports}
    means = {name: float(np.mean(values(name))) for name in runs}
    svm = [r[key] for r in svm_runs]

    def by_seed(reports):  # seed -> signed score; reports without a seed are numbered in order
        return {r.get("seed", i): sign * r[key] for i, r in enumerate(reports)}

    seeds = sorted(by_seed(svm_runs))

    def paired(name, other):  # the seeds both hold (a run saved between seeds may hold fewer of one)
        a, b = by_seed(runs[name]), by_seed(svm_runs if other == "svm" else runs[other])
        common = sorted(set(a) & set(b))
        return paired_comparison([a[s] for s in common], [b[s] for s in common]) if len(common) >= 2 else None

    def validation(name):  # the mean validation score (higher is better), None where a run lacks one
        scores = [r.get("val_score") for r in runs[name]]
        return None if None in scores else float(np.mean(scores))

    def best_of(names):  # among the models every seed holds
        names = [n for n in names if n in runs and validation(n) is not None]
        names = [n for n in names if sorted(by_seed(runs[n])) == seeds]
        return max(names, key=validation) if names else None

    best = best_of([n for n in runs if n not in BASELINES])
    wd = best_of(WIDE_DEEP)
    own_deep = own_deep_of(wd)
    deep = best_of(DEEP) or (own_deep if own_deep in runs else None)  # older runs: deep paths without val_score
    summary = {
        "metric": key,
        "seeds": len(svm),
        "svm": float(np.mean(svm)),
        "wide": means.get("wide"),
        "deep": means.get(deep) if deep else None,
        "deep_model": deep,
        "wide_deep": means.get(wd) if wd else None,
        "wide_deep_model": wd,
        "best": means.get(best),
        "best_model": best,
        "best_chosen_on": "mean validation score",
    }
    for name in BASELINES:
        if name in runs:
            summary[name] = means[name]
            c = paired(best, name) if best else None
            if c:
                summary[f"best_vs_{'fine_tuned' if name == 'fine_tuned_minilm' else name}"] = verdict_of(c)
    c = paired(best, "svm") if best else None
    if c:
        summary["best_vs_svm"] = verdict_of(c)
    for other in ("wide", own_deep) if wd else ():
        c = paired(wd, other) if other in runs else None
        if c:
            summary[f"wide_deep_vs_{other}"] = {k: c[k] for k in ("mean_gain", "p_value", "met")}
    return summary


def table(dataset, summary, runs, svm_runs, command=None, code_version=None, resumed_from=None):
    """One dataset's Markdown table, under the command and code version of that dataset's run."""
    key = summary["metric"]
    rows = [["svm (tuned, same split)", f"{summary['svm']:.4f}", " ".join(f"{r[key]:.4f}" for r in svm_runs), ""]]
    for name, reports in runs.items():
        rows.append(
            [
                name,
                f"{np.mean([r[key] for r in reports]):.4f}",
                " ".join(f"{r[key]:.4f}" for r in reports),
                f"{np.mean([r['seconds_to_best_epoch'] for r in reports]):.0f}",
            ]
        )
    run = f"Run: `{command}` (code version {code_version})" if command else ""
    while resumed_from:  # a resumed run: the seeds it kept, and the run that gave them
        seeds = ", ".join(str(s) for s in resumed_from["seeds"])
        run += f"; seeds {seeds} kept from `{resumed_from['command']}` (code version {resumed_from['code_version']})"
        resumed_from = resumed_from.get("resumed_from")
    run = run + "\n\n" if run else ""
    return f"### {dataset}\n\n{run}" + markdown_table(["model", f"mean {key}", "per seed", "s to best epoch"], rows)


def tables(results, summaries):
    """Every dataset's table, each under its own run's command (the file keeps the datasets of several runs)."""
    return "\n\n".join(
        table(
            name, summaries[name], r["runs"], r["svm"], r.get("command"), r.get("code_version"), r.get("resumed_from")
        )
        for name, r in sorted(results.items())
    )


def kept_learning_rate(runs):
    """The learning rate fine-tuned MiniLM's first seed chose, which the seeds a resumed run adds reuse (None
    before any seed ran: the first seed searches the grid)."""
    first = min(runs.get("fine_tuned_minilm") or [{"seed": None}], key=lambda r: r["seed"] or 0)
    return first.get("learning_rate")


def resummarize(output):
    """Rebuilds `output`'s summaries, rows and tables from the runs it stores, with this code's `summarize`
    (no training): for a file written before the summary's rules changed. Each summary keeps its serving
    measurement and says which code rebuilt it."""
    output = pathlib.Path(output)
    report = json.loads(output.read_text())
    for dataset, result in report["results"].items():
        task = types.SimpleNamespace(multi_label=dataset == "reuters")
        old = report["summary"][dataset]
        summary = summarize(task, result["runs"], result["svm"])
        summary.update({k: old[k] for k in ("serving", "complete") if k in old})
        summary["summarized_by"] = VERSION_AT_START
        report["summary"][dataset] = summary
    report["rows"] = rows(report)
    output.write_text(json.dumps(report, indent=2) + "\n")
    output.with_suffix(".md").write_text(
        results_header(report) + f"\n\n{tables(report['results'], report['summary'])}\n"
    )
    print(f"{output}: summaries rebuilt by {VERSION_AT_START}", flush=True)


def main(argv=None):
    args = parse_args(argv)
    if args.resummarize:
        return resummarize(args.output)
    start = time.time()
    task = Task(args)
    names = args.models.split(",")
    runs, svm_runs = {name: [] for name in names}, []
    earlier = resumed(args) if args.resume else None
    if earlier:
        runs, svm_runs = earlier["runs"], earlier["svm"]
    for name in names:
        runs.setdefault(name, [])  # a model the resumed run did not train: trained on its kept seeds too
    task.minilm_learning_rate = kept_learning_rate(runs)
    kept_svm = {r["seed"]: r for r in svm_runs}
    decision = None
    for seed in seed_range(args):
        missing = [name for name in names if seed not in {r["seed"] for r in runs[name]}]
        if seed in kept_svm and not missing:
            print(f"\n== {args.dataset}, seed {seed}: kept from {earlier['command']} ==", flush=True)
            continue
        keras.backend.clear_session()  # the seed before's graphs and tables (a 1-3-gram vocabulary is large)
        print(
            f"\n== {args.dataset}, seed {seed}" + (f": adding {', '.join(missing)} ==" if seed in kept_svm else " ==")
        )
        task.split(seed)
        if seed in kept_svm and set(missing) <= STANDALONE:  # needs no SVM: the kept one stands
            svm_report = kept_svm[seed]
        else:
            decision, svm_report = run_svm(task, seed)
            if seed in kept_svm:
                svm_runs[svm_runs.index(kept_svm[seed])] = svm_report  # the same split and grid: the same SVM
            else:
                svm_runs.append(svm_report)
            task.fit_wide_features(svm_report["ngram_range"][1], svm_report["C"])
        models, reports = {}, {}

        def fitted(name, seed=seed, models=models, reports=reports, decision=decision, svm_report=svm_report):
            """The model `name` of this seed, trained (or blended) once, with what it needs first."""
            if name not in models:
                if name == "late_fusion":
                    deep = fitted("bilstm_linear")
                    x = {s: task.inputs(s, False, True) for s in ("val", "test")}
                    logits = {s: deep.predict(x[s], batch_size=256, verbose=0) for s in x}
                    models[name], reports[name] = late_fusion(
                        task, seed, logits, decision, reports["bilstm_linear"], svm_report
                    )
                elif name == "late_fusion_minilm":
                    fitted("fine_tuned_minilm")
                    models[name], reports[name] = late_fusion(
                        task, seed, task.minilm_logits, decision, reports["fine_tuned_minilm"], svm_report, name
                    )
                elif name == "fine_tuned_minilm":
                    grid = task.args.minilm_grid if task.minilm_learning_rate is None else (task.minilm_learning_rate,)
                    models[name], reports[name] = train_fine_tuned(task, seed, grid)
                    task.minilm_learning_rate = reports[name]["learning_rate"]  # the first seed's choice
                elif name.startswith("blend_"):
                    fitted(name.removeprefix("blend_"))
                    fitted("wide")
                    models[name], reports[name] = blend(task, name, seed, models, reports)
                else:
                    wide = fitted("wide") if name in JOINT else None  # the joint model's wide start
                    models[name], reports[name] = train(task, name, seed, wide_model=wide)
            return models[name]

        for name in missing:
            fitted(name)
            runs[name].append(reports[name])
            runs[name].sort(key=lambda r: r["seed"])
        svm_report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        last = seed == args.seed + args.seeds - 1
        save(args, argv, task, runs, svm_runs, start, models if last else None, decision, earlier)


# The settings a resumed run must share with the run whose seeds it keeps.
NOT_SETTINGS = ("seed", "seeds", "output", "quick", "resume", "resummarize", "data_dir")


def settings(config):
    return {k: v for k, v in config.items() if k not in NOT_SETTINGS}


def resumed(args):
    """The earlier run of `args.dataset` in `args.output`, when its settings are this run's (else an error)."""
    output = pathlib.Path(args.output)
    previous = json.loads(output.read_text()) if output.exists() else {}
    earlier = previous.get("results", {}).get(args.dataset)
    if not earlier:
        raise SystemExit(f"--resume: {output} holds no run of {args.dataset}")
    config = earlier.get("config") or previous["config"]  # older files keep the last run's config only
    mine, theirs = settings(recorded_config(args)), settings(config)
    trained = {name for name, reports in earlier["runs"].items() if reports}
    added = set(args.models.split(",")) - trained
    if not set(theirs.get("models", "").split(",")) <= set(args.models.split(",")):
        raise SystemExit(f"--resume: --models must hold the earlier run's models: {theirs.get('models')}")
    free = {"models"} | ({k for k in mine if k.startswith("minilm")} if "fine_tuned_minilm" in added else set())
    changed = sorted(k for k in mine if k not in free and theirs.get(k) != mine[k])
    if config.get("dataset") != args.dataset or changed:  # a model added may bring its own settings
        raise SystemExit(f"--resume: the earlier {args.dataset} run had other settings: {changed}")
    earlier = dict(earlier, config=config, kept_seeds=[r["seed"] for r in earlier["svm"]])
    print(f"--resume: keeping seeds {[r['seed'] for r in earlier['svm']]} of {earlier['command']}", flush=True)
    return earlier


def save(args, argv, task, runs, svm_runs, start, models, decision, earlier=None):
    """Writes the results so far (every seed); the serving measurement after the last seed (`models` given)."""
    summary = summarize(task, runs, svm_runs)
    summary["complete"] = models is not None
    deep_best = summary["best_model"] if summary["best_model"] != "wide" else summary["wide_deep_model"]
    output = pathlib.Path(args.output)
    previous = json.loads(output.read_text()) if output.exists() and not args.quick else {}
    if models is not None and deep_best in models:
        summary["serving"] = serving_throughput(task, models[deep_best], deep_best, decision)
    elif earlier and "serving" in previous.get("summary", {}).get(args.dataset, {}):  # kept with its model
        kept = previous["summary"][args.dataset]["serving"]
        if kept.get("model") == deep_best:
            summary["serving"] = kept
    print(summary, flush=True)
    results = dict(previous.get("results", {}))
    all_summary = dict(previous.get("summary", {}))
    results[args.dataset] = {
        "runs": runs,
        "svm": svm_runs,
        "command": command_line("benchmarks.seen_labels", argv),
        "code_version": VERSION_AT_START,
        "config": recorded_config(args),
        "word_vector_coverage": task.coverage,
    }
    if earlier:  # which run gave which seeds
        results[args.dataset]["resumed_from"] = {
            "command": earlier["command"],
            "code_version": earlier["code_version"],
            "seeds": earlier["kept_seeds"],  # read before this run added its own
            **({"resumed_from": earlier["resumed_from"]} if "resumed_from" in earlier else {}),
        }
    all_summary[args.dataset] = summary
    write_report(
        output,
        "seen labels: wide, deep, wide + deep vs SVM",
        "benchmarks.seen_labels",
        args,
        argv,
        results,
        all_summary,
        tables(results, all_summary),
        start,
        rows=rows,
    )


TASKS = {
    "reuters": ("Reuters-21578, 90 seen labels: micro-F1", "LSTM_reg 0.870 (Adhikari et al. 2019); CNLE 0.899"),
    "newsgroups": ("20 Newsgroups (headers removed): test error", "oh-2LSTMp 13.32% (J&Z Table 3)"),
}
MODEL_NAMES = {
    "wide": "wide path alone",
    "bilstm_linear": "BiLSTM + linear head",
    "bilstm_gile": "BiLSTM + GILE head",
    "wide_bilstm_linear": "wide + BiLSTM + linear head, trained together",
    "wide_bilstm_gile": "wide + BiLSTM + GILE head, trained together",
    "blend_bilstm_linear": "wide + deep (BiLSTM + linear head), mix chosen on validation",
    "blend_bilstm_gile": "wide + deep (BiLSTM + GILE head), mix chosen on validation",
    "late_fusion": "SVM + BiLSTM late fusion",
    "fine_tuned_minilm": "fine-tuned MiniLM",
    "late_fusion_minilm": "SVM + fine-tuned MiniLM late fusion",
}


def rows(report):
    """One row per dataset: the best library model (chosen on validation) against the tuned SVM, fine-tuned
    MiniLM and the late fusion of the same seeds, with the wide and deep paths alone beside it."""
    out = []
    for dataset, s in report["summary"].items():
        if s.get("best_model") is None:  # a run of baselines alone
            continue
        runs = report["results"][dataset]["runs"]
        key, error = s["metric"], s["metric"] == "error"

        def cell(name):
            values = [r[key] for r in runs[name]]
            std = float(np.std(values, ddof=1)) if len(values) > 1 else None
            if error:
                return mean_pm_std(100 * np.mean(values), None if std is None else 100 * std, 2) + "%"
            return mean_pm_std(float(np.mean(values)), std)

        svm = [r[key] for r in report["results"][dataset]["svm"]]
        svm_cell = f"{100 * np.mean(svm):.2f}%" if error else f"{np.mean(svm):.4f}"
        names = (*BASELINES, "wide", s.get("deep_model"))
        others = [f"{MODEL_NAMES[n]} {cell(n)}" for n in names if n and n in runs]

        def above(what, rule):
            verdict = met(rule["met"]) + f" ({rule['mean_gain']:+.4f}, p {rule['p_value']:.2g})" if rule else None
            return f"above {what} (noise rule over seeds): {verdict or 'one seed, no rule'}"

        verdict = above("the SVM", s.get("best_vs_svm"))
        for name, what in (
            ("fine_tuned", "fine-tuned MiniLM"),
            ("late_fusion", "the late fusion"),
            ("late_fusion_minilm", "the SVM + MiniLM fusion"),
        ):
            if f"best_vs_{name}" in s:
                verdict += "; " + above(what, s[f"best_vs_{name}"])
        wide_deep = [s.get(f"wide_deep_vs_{n}") for n in ("wide", own_deep_of(s.get("wide_deep_model")))]
        if all(wide_deep):
            verdict += "; wide + deep above the wide and the deep path: " + met(all(c["met"] for c in wide_deep))
        what, paper = TASKS[dataset]
        config = report["results"][dataset].get("config", report["config"])  # a file holds the datasets of 2 runs
        vectors = {"glove50": "GloVe 50-d", "ppmi": "PPMI-SVD"}[config.get("word_vectors", "glove50")]
        out.append(
            claim(
                f"{what}, {s['seeds']} seeds ({vectors}){'' if s.get('complete', True) else ' (partial run)'}",
                f"{MODEL_NAMES[s['best_model']]} {cell(s['best_model'])}",
                f"tuned tf-idf SVM {svm_cell}; " + "; ".join(others),
                paper,
                verdict,
                "[seen labels](pages/seen-labels.md)",
                f"{what.replace(' (headers removed)', '')}, {s['seeds']} seeds ({vectors})",
            )
        )
    return out


if __name__ == "__main__":
    main()
