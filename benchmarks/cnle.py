"""CNLE (Liu et al. 2022) on Reuters-21578 ModApte-90 (multi-label) and 20 Newsgroups bydate (multi-class).

One process per dataset, same data split and budget for every model of it:

- CNLE (`keras_labelemb.models.cnle`: co-attentive encoder + adaptive label
  decoder over the label descriptions) and its two ablations of the paper's
  Tables 5-6: without label embedding (per-label decoder weights, no label
  read) and without text-to-label attention. Trained as the paper: teacher
  forcing with the label-sequence loss (eq. 14), Adam (0.9, 0.98, 1e-9) on
  the warm-up schedule (800 steps), global gradient norm clipped at 1, batch
  32; the epoch with the best validation score of the *decoded* label sets is
  kept (`DecodedValidation`; the paper stops after 5 epochs without change,
  here `--patience`, within `--epochs`). Labels are decoded greedily; the
  label sequence is the label set in its loader's order (the paper draws one
  random order once); targets list a document's labels in that order.
- Word vectors, frozen as in the paper (which used 400-d GloVe + character
  n-grams, not available here): `glove50` = GloVe 6B 50-d (the `glove` extra)
  and `ppmi` = PPMI + SVD vectors of the training text
  (`pretrain_word_vectors`). The ablations use the first of `--word-vectors`;
  CNLE is trained with each.
- Baselines of the same run: the tf-idf LinearSVC with C and n-gram range
  chosen on validation (Reuters: one-vs-rest, threshold tuned on validation,
  at least one label; 20NG: multi-class), and on Reuters GILE-HAN exactly as
  `benchmarks.reuters` trains it (dense HAN, PPMI vectors, one seed).
- Reuters: micro-F1 of the decoded sets on the test set (CNLE eq. 15); 20NG:
  accuracy (headers removed, as `benchmarks.newsgroups`).
- Speed: CNLE's and GILE-HAN's training steps timed round-robin on the same
  Reuters batch size (`benchmarks.timing`); both epochs have the same number
  of steps, so the step-time ratio is the epoch-time ratio. `jit_compile`
  follows Keras' "auto" for both (off on a CPU-only machine).
- A PNG of both attention directions of the trained CNLE for one test text.

Run time on 2 CPU cores, each dataset in its own process, both at once:
about 100 minutes for Reuters and 80 for 20 Newsgroups with the defaults;
`--quick` about 4 minutes.

    python -m benchmarks.cnle --datasets reuters --merge &      # writes its part of cnle.json
    python -m benchmarks.cnle --datasets newsgroups --merge     # adds 20NG beside it
    python -m benchmarks.cnle --quick                           # a check of the script (to a temporary file)

On a GPU machine without TensorFlow (JAX), in two steps: here the text pipeline writes each dataset's token
ids, targets, label sequences, GloVe rows and texts; there the SVM and each CNLE variant run from them, each in
its own process (`--jobs` at once, sharing the GPU), and their parts are merged into `--output`. No GILE-HAN
there (its benchmark reads text with TensorFlow), so no step-time ratio either; the code version recorded is
the bundle's: write it from a clean checkout of the commit the GPU machine runs.

    python -m benchmarks.cnle --write-bundle .device_data/cnle --word-vectors glove50
    KERAS_BACKEND=jax python -m benchmarks.cnle --bundle .device_data/cnle --word-vectors glove50 --jobs 8
"""

import argparse
import gzip
import json
import os
import pathlib
import subprocess
import sys
import time
from types import SimpleNamespace

import keras
import numpy as np

from benchmarks.baselines import svm_on
from benchmarks.benchmark import Arguments
from benchmarks.datasets import load_newsgroups, load_reuters
from benchmarks.report import code_version, command_line, results_header, write_report
from benchmarks.tables import claim, markdown_table, met
from benchmarks.timing import EpochTimer, round_robin, speed_ratio, train_steps
from benchmarks.training_loop import fit_best_epoch
from keras_labelemb.evaluation import classification_report
from keras_labelemb.models import cnle
from keras_labelemb.plotting import plot_co_attention
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.training import DecodedValidation, pretrain_word_vectors
from keras_labelemb.training.cnle_training import cnle_optimizer
from keras_labelemb.training.decoded_validation import decoded_set_scores

MODELS = {"cnle": None, "no_label_embedding": "no_label_embedding", "no_text_to_label": "no_text_to_label_attention"}
DATASETS = ("reuters", "newsgroups")
WORD_VECTORS = ("glove50", "ppmi")


def parse_args(argv=None):
    p = Arguments("cnle", __doc__, batch_size=32, data_dir="")
    p.add_argument("--datasets", default="reuters,newsgroups", help=f"comma-separated, from {','.join(DATASETS)}")
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, from {','.join(MODELS)}")
    p.add_argument("--word-vectors", default="glove50,ppmi", help="frozen vectors; the first one serves the ablations")
    p.add_argument("--reuters-max-tokens", type=int, default=150, help="text length m on Reuters")
    p.add_argument("--newsgroups-max-tokens", type=int, default=200, help="text length m on 20 Newsgroups")
    p.add_argument("--reuters-epochs", type=int, default=8)
    p.add_argument("--newsgroups-epochs", type=int, default=5)
    p.add_argument("--patience", type=int, default=3, help="epochs without a better validation score before stopping")
    p.add_argument("--model-dim", type=int, default=256, help="d (the paper: 256)")
    p.add_argument("--num-heads", type=int, default=3, help="p (the paper: 3)")
    p.add_argument("--attention-dim", type=int, default=150, help="d_h (the paper: 150)")
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--warmup-steps", type=int, default=800)
    p.add_argument("--label-words", type=int, default=12, help="words of a label description read")
    p.add_argument("--ppmi-dim", type=int, default=100)
    p.add_argument("--vocabulary-size", type=int, default=30000, help="most frequent training words kept")
    p.add_argument("--validation-fraction", type=float, default=0.1)
    p.add_argument("--timing-rounds", type=int, default=5)
    p.add_argument("--no-gile", action="store_true", help="Reuters without the GILE-HAN baseline and timing")
    p.add_argument("--merge", action="store_true", help="keep the other datasets' results already in --output")
    p.add_argument("--write-bundle", help="write each dataset's ids, targets, vectors and texts here, then stop")
    p.add_argument("--bundle", help="run from the folder --write-bundle wrote (no TensorFlow needed, no GILE-HAN)")
    p.add_argument("--jobs", type=int, default=1, help="with --bundle: parts (the SVM, each model) run at once")
    p.add_argument("--time-limit", type=float, default=None, help="minutes: no epoch starts that would end later")
    p.add_argument("--part", help='one part of a --bundle run, "<dataset>:<svm or model key>", to --output\'s .parts/')
    p.add_argument("--deadline-at", type=float, help=argparse.SUPPRESS)  # --time-limit's end, from --jobs
    p.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite the summary and .md of --output from its results; no training",
    )
    args = p.parse_args(argv)
    p.check_choices(args, datasets=DATASETS, models=MODELS, word_vectors=WORD_VECTORS)
    args.max_train = None
    if args.quick:
        args.max_train, args.reuters_epochs, args.newsgroups_epochs, args.timing_rounds = 600, 1, 1, 2
        args.model_dim, args.attention_dim, args.reuters_max_tokens, args.newsgroups_max_tokens = 32, 16, 60, 60
    if args.bundle:
        args.no_gile = True  # GILE-HAN's benchmark reads its text with TensorFlow
    elif args.jobs != 1:
        p.error("--jobs runs parts of a --bundle")
    return args


def _subsample(data, count, seed):
    if not count or count >= len(data.train_texts):
        return data
    keep = np.sort(np.random.default_rng(seed).choice(len(data.train_texts), count, replace=False))
    fields = {f"train_{k}": [getattr(data, f"train_{k}")[i] for i in keep] for k in ("texts", "labels", "ids")}
    return data.replace(**fields)


class Setup:
    """One dataset's split, flat vocabulary, token ids, label descriptions and targets."""

    def __init__(self, args, name, bundle=None):
        self.args, self.name = args, name
        self.multi_label = name == "reuters"
        self.max_tokens = args.reuters_max_tokens if self.multi_label else args.newsgroups_max_tokens
        self.epochs = args.reuters_epochs if self.multi_label else args.newsgroups_epochs
        self._vectors = {}
        if bundle is not None:
            self._read(pathlib.Path(bundle))
            return
        from benchmarks.token_ids import token_ids
        from keras_labelemb.losses.label_sequences import label_sequences
        from keras_labelemb.text import TextVectorizer

        data_dir = None if args.data_dir is None else os.path.join(args.data_dir, DATA_FOLDERS[name])
        data = load_reuters(data_dir) if self.multi_label else load_newsgroups(data_dir)
        self.data = _subsample(data, args.max_train, args.seed).validation_split(
            args.validation_fraction, seed=args.seed
        )
        self.vectorizer = TextVectorizer(max_tokens=self.max_tokens)
        self.vectorizer.adapt(self.data.train_texts, min_count=2, max_size=args.vocabulary_size + 2)
        self.vocabulary = self.vectorizer.get_vocabulary()
        self.label_ids = self.vectorizer.encode_labels(self.data.label_descriptions, args.label_words)
        self.ids = {s: token_ids(self.vectorizer, getattr(self.data, f"{s}_texts")) for s in ("train", "val", "test")}
        self.y = {s: self.data.multi_hot(s) for s in ("train", "val", "test")}
        steps = int(self.y["train"].sum(axis=1).max()) + 1 if self.multi_label else 1
        self.max_steps = min(steps, 12)  # Reuters ModApte: at most 15 labels; 11 + end covers all but a handful
        self.sequences = label_sequences(
            self.y["train"], self.max_steps if self.multi_label else None, multi_label=self.multi_label
        )
        lengths = (self.ids["train"] != 0).sum(axis=1)
        self.info = {
            "train_documents": len(self.data.train_texts),
            "validation_documents": len(self.data.val_texts),
            "test_documents": len(self.data.test_texts),
            "labels": self.data.num_labels,
            "vocabulary_size": len(self.vocabulary),
            "max_tokens": self.max_tokens,
            "mean_tokens_after_truncation": round(float(lengths.mean()), 1),
            "truncated_documents_fraction": round(float((lengths == self.max_tokens).mean()), 3),
            "max_steps": self.max_steps,
            "train_documents_with_more_labels_than_steps": int((self.y["train"].sum(axis=1) > self.max_steps - 1).sum())
            if self.multi_label
            else 0,
        }
        print(f"{name}: {self.info}", flush=True)

    def word_vectors(self, kind):
        if kind not in self._vectors:
            if kind == "glove50":
                from benchmarks.word_vectors import glove50

                vectors, self.info["glove50_coverage"] = glove50(self.vectorizer, self.label_ids)
            else:
                vectors = pretrain_word_vectors(self.ids["train"], len(self.vocabulary), self.args.ppmi_dim)
            self._vectors[kind] = vectors
        return self._vectors[kind]

    def write(self, folder, kinds):
        """Writes what a run needs (`kinds`: the word vectors made here) to `folder`/<name>.npz and .json.gz."""
        arrays = {f"ids_{s}": self.ids[s] for s in SPLITS} | {f"y_{s}": self.y[s].astype("uint8") for s in SPLITS}
        arrays.update(label_ids=self.label_ids, sequences=self.sequences)
        arrays.update({f"vectors_{kind}": self.word_vectors(kind) for kind in kinds})
        np.savez_compressed(folder / f"{self.name}.npz", **arrays)
        d = self.data
        meta = {
            "data_options": {option: getattr(self.args, option) for option in DATA_OPTIONS},
            "info": self.info,
            "vocabulary": self.vocabulary,
            "label_names": list(d.label_names),
            "test_ids": [str(i) for i in d.test_ids],
            "texts": {s: list(getattr(d, f"{s}_texts")) for s in SPLITS},
        }
        with gzip.open(folder / f"{self.name}.json.gz", "wt") as out:
            json.dump(meta, out)

    def _read(self, folder):
        with gzip.open(folder / f"{self.name}.json.gz", "rt") as stored:
            meta = json.load(stored)
        given = {option: getattr(self.args, option) for option in DATA_OPTIONS}
        if given != meta["data_options"]:
            raise SystemExit(f"{folder}: written with {meta['data_options']}, run with {given}")
        with np.load(folder / f"{self.name}.npz") as stored:
            arrays = dict(stored)
        self.info, self.max_steps = meta["info"], meta["info"]["max_steps"]
        self.vocabulary = meta["vocabulary"]
        self.data = SimpleNamespace(
            label_names=meta["label_names"],
            test_ids=meta["test_ids"],
            **{f"{s}_texts": meta["texts"][s] for s in SPLITS},
        )
        self.ids = {s: arrays[f"ids_{s}"] for s in SPLITS}
        self.y = {s: arrays[f"y_{s}"].astype("float32") for s in SPLITS}
        self.label_ids, self.sequences = arrays["label_ids"], arrays["sequences"]
        self._vectors = {key[len("vectors_") :]: arrays[key] for key in arrays if key.startswith("vectors_")}
        print(f"{self.name} (from {folder}): {self.info}", flush=True)


SPLITS = ("train", "val", "test")
# What a bundle fixes: a run from it must be given the same.
DATA_OPTIONS = (
    "max_train",
    "reuters_max_tokens",
    "newsgroups_max_tokens",
    "vocabulary_size",
    "validation_fraction",
    "seed",
    "label_words",
)
DATA_FOLDERS = {"reuters": "reuters21578", "newsgroups": "20newsgroups_bydate"}


def build_cnle(setup, model_name, vectors_kind):
    a = setup.args
    ablation = MODELS[model_name]
    return cnle(
        len(setup.vocabulary),
        setup.label_ids,
        max_tokens=setup.max_tokens,
        multi_label=setup.multi_label,
        max_steps=setup.max_steps if setup.multi_label else None,
        ablation=ablation,
        model_dim=a.model_dim,
        num_heads=a.num_heads,
        attention_dim=a.attention_dim,
        dropout=a.dropout,
        word_vectors=setup.word_vectors(vectors_kind),
        fine_tune="none",
    )


def train_cnle(setup, model_name, vectors_kind):
    """Trains one CNLE variant with teacher forcing (`LabelClassifier.fit` of its decoder, on the label sequences
    of the targets); keeps the epoch with the best decoded validation score. Returns the model, the classifier
    over it (it trains by teacher forcing: `time_steps` times it) and the report."""
    a = setup.args
    keras.utils.set_random_seed(a.seed)
    model = build_cnle(setup, model_name, vectors_kind)
    classifier = LabelClassifier.from_model(model, multi_label=setup.multi_label)
    # A decoder's defaults beside it: LabelSequenceLoss over the teacher-forced steps, no per-label metric.
    classifier.compile(cnle_optimizer(a.model_dim, warmup_steps=a.warmup_steps))
    metric = "micro_f1" if setup.multi_label else "accuracy"
    best = DecodedValidation(classifier, setup.ids["val"], setup.y["val"], metric=metric, patience=a.patience)
    timer = EpochTimer()  # after `best`: an epoch's time includes its decoded validation
    limit = TimeLimit(a.deadline)
    history, fitted = fit_best_epoch(
        classifier,
        setup.ids["train"],
        setup.y["train"],
        best=best,
        epochs=setup.epochs,
        callbacks=[best, timer, limit],
        batch_size=a.batch_size,
    )
    decoded = classifier.predict(setup.ids["test"], batch_size=256)
    info = {
        "word_vectors": vectors_kind,
        "train_seconds": fitted["train_seconds"],
        "epoch_seconds": [round(s, 1) for s in timer.seconds],
        "epochs_run": fitted["epochs_run"],
        "stopped_by_time_limit": limit.stopped,
        "best_epoch": fitted["best_epoch"],
        f"val_{metric}": best.best_score,
        f"val_{metric}_curve": [round(v, 4) for v in history[f"val_decoded_{metric}"]],
        "loss_curve": [round(v, 4) for v in history["loss"]],
        "parameters": int(model.count_params()),
        "trainable_parameters": int(sum(np.prod(w.shape) for w in model.trainable_weights)),
        **decoded_set_scores(setup.y["test"], decoded),
        "mean_labels_decoded": round(float(decoded.sum(axis=1).mean()), 3),
        "mean_labels_true": round(float(setup.y["test"].sum(axis=1).mean()), 3),
    }
    print({k: v for k, v in info.items() if not k.endswith("curve")}, flush=True)
    return model, classifier, info


class TimeLimit(keras.callbacks.Callback):
    """Stops training before an epoch that would end after `deadline` (`time.time()`; None: never), judged by the
    latest epoch (the first is not a guide: it includes compiling the step)."""

    def __init__(self, deadline):
        super().__init__()
        self.deadline, self.stopped = deadline, False

    def on_epoch_begin(self, epoch, logs=None):
        self.started = time.time()

    def on_epoch_end(self, epoch, logs=None):
        now = time.time()
        expected = now - self.started if epoch > 0 else 0.0
        if self.deadline is not None and now + expected > self.deadline:
            self.model.stop_training = self.stopped = True


def run_svm(setup):
    """The tuned tf-idf LinearSVC: C and n-gram range chosen on validation (threshold too on Reuters)."""
    return svm_on(setup.data, setup.multi_label)[1]


def run_gile_han(args):
    """GILE-HAN as `benchmarks.reuters` trains it (its defaults, one seed), on the same Reuters split."""
    from benchmarks import reuters as reuters_benchmark  # TensorFlow's text pipeline

    reuters_args = reuters_benchmark.parse_args(["--seed", str(args.seed), "--seeds", "1"])
    reuters_args.data_dir = None if args.data_dir is None else os.path.join(args.data_dir, DATA_FOLDERS["reuters"])
    if args.quick:
        reuters_args.epochs, reuters_args.patience = 1, 1
    setup = reuters_benchmark.Setup(reuters_args)
    if args.max_train:
        setup.data = _subsample(setup.data, args.max_train, args.seed)
    data = setup.data.validation_split(reuters_args.validation_fraction, seed=args.seed)
    vectors = setup.word_vectors(data.train_texts + data.val_texts)
    model, info = reuters_benchmark.train(setup, data, "gile", setup.label_ids, vectors, jit_compile="auto")
    scores = model.predict(setup.ids(data.test_texts), batch_size=256)  # a LabelClassifier: probabilities
    info.update(classification_report(data.multi_hot("test"), scores, info["threshold"]))
    info["epoch_seconds_mean"] = round(info["train_seconds"] / info["epochs_run"], 1)
    print({k: v for k, v in info.items() if not k.endswith("curve")}, flush=True)
    batch = setup.ids(data.train_texts)[: args.batch_size], data.multi_hot("train")[: args.batch_size]
    return model, batch, info


def time_steps(args, cnle_setup, cnle_training, gile_model, gile_batch, steps=5):
    """Round-robin step times of CNLE's teacher-forced training step (its classifier's) and GILE-HAN's on one
    batch of the same size."""
    b = args.batch_size
    cnle_x = {"token_ids": cnle_setup.ids["train"][:b], "label_sequence": cnle_setup.sequences[:b]}
    turns = {
        "cnle": train_steps(cnle_training, cnle_x, cnle_setup.sequences[:b], steps),
        "gile_han": train_steps(gile_model, *gile_batch, steps),
    }
    for turn in turns.values():  # compiled and warm before the clock starts
        turn()
    times = round_robin(turns, args.timing_rounds)
    return {"steps_per_turn": steps, **times, "cnle_vs_gile_han": speed_ratio(times, "cnle", "gile_han")}


def plot_attention_example(setup, model, path):
    """Both attention directions of `model` for one test text with several labels (the paper's Fig. 2)."""
    head = model.get_layer("adaptive_label_decoder")  # the name `cnle` gives its decoder
    lengths = (setup.ids["test"] != 0).sum(axis=1)
    counts = setup.y["test"].sum(axis=1)
    candidates = np.flatnonzero((counts >= 2) & (lengths >= 25) & (lengths <= 60))
    row = int(candidates[0]) if len(candidates) else int(np.argmax(counts))
    ids = setup.ids["test"][row : row + 1]
    words = model.get_layer("word_embedding")(ids)
    labels = head.embed_labels()
    outputs = head.encoder(words, labels=labels, mask=ids != 0, return_attention_scores=True)
    label_to_text = np.asarray(outputs[-2])[0].mean(axis=0).T  # (m, c) -> (c, m)
    text_to_label = np.asarray(outputs[-1])[0].mean(axis=0)  # (c, m)
    decoded = np.asarray(model(ids))[0]
    shown = np.flatnonzero((setup.y["test"][row] > 0) | (decoded > 0))
    others = [j for j in np.argsort(-label_to_text.sum(axis=1)) if j not in shown][: max(0, 8 - len(shown))]
    shown = np.concatenate([shown, np.asarray(others, dtype=int)]).astype(int)
    length = int(lengths[row])
    tokens = [setup.vocabulary[i] for i in ids[0, :length]]
    names = []
    for j in shown:
        mark = ("true" if setup.y["test"][row, j] else "") + ("+decoded" if decoded[j] else "")
        names.append(f"{setup.data.label_names[j]} ({mark.strip('+') or 'not true'})")
    plot_co_attention(
        tokens,
        names,
        label_to_text[shown][:, :length],
        text_to_label[shown][:, :length],
        path=path,
        title=f"CNLE on {setup.name} test document {setup.data.test_ids[row]} (mean over heads)",
    )
    return {"test_document": str(setup.data.test_ids[row]), "labels_shown": [setup.data.label_names[j] for j in shown]}


def model_runs(args):
    """`(key, model, word vectors)` of each CNLE run: every model with the first vectors, CNLE with the others."""
    kinds, models = args.word_vectors.split(","), args.models.split(",")
    return [(m, m, kinds[0]) for m in models] + [(f"cnle_{k}", "cnle", k) for k in kinds[1:] if "cnle" in models]


def parts_of(args, name):
    """What one dataset's run is made of: the SVM, GILE-HAN (Reuters) and each CNLE run, by key."""
    gile = ["gile_han"] if name == "reuters" and not args.no_gile else []
    return ["svm", *gile, *(key for key, _, _ in model_runs(args))]


def run_dataset(args, name, results, save, version, parts=None):
    """Runs `parts` (default: all of `parts_of`) of dataset `name` into `results[name]`, saving after each."""
    parts = parts or parts_of(args, name)
    setup = Setup(args, name, args.bundle and pathlib.Path(args.bundle))
    out = results.setdefault(name, {})
    out.update(setup=setup.info, command=command_line("benchmarks.cnle"), code_version=version, models={})
    if "svm" in parts:
        print(f"\n== {name}: tuned tf-idf LinearSVC ==", flush=True)
        out["svm"] = run_svm(setup)
        print(out["svm"], flush=True)
        save()
    gile = None
    if "gile_han" in parts:
        print("\n== reuters: GILE-HAN (benchmarks.reuters' defaults, one seed) ==", flush=True)
        gile_model, gile_batch, out["gile_han"] = run_gile_han(args)
        gile = gile_model, gile_batch
        save()
    for key, model_name, kind in model_runs(args):
        if key not in parts:
            continue
        print(f"\n== {name}: {key} ({kind} vectors, frozen) ==", flush=True)
        model, training, out["models"][key] = train_cnle(setup, model_name, kind)
        out["setup"] = setup.info
        if key == "cnle":
            png = pathlib.Path(args.output).with_name(f"{pathlib.Path(args.output).stem}_{name}_attention.png")
            out["attention_plot"] = {"path": str(png.name), **plot_attention_example(setup, model, png)}
            if gile is not None:
                print("\n== reuters: step time, CNLE vs GILE-HAN (round-robin) ==", flush=True)
                out["timing"] = time_steps(args, setup, training, *gile)
                print(out["timing"], flush=True)
        save()


def write_bundle(args):
    """Writes what `--bundle` runs read: per dataset its split's ids, targets, label sequences, word vectors
    (the kinds of `--word-vectors` that need this machine: GloVe) and texts; `bundle.json` the code version."""
    folder = pathlib.Path(args.write_bundle)
    folder.mkdir(parents=True, exist_ok=True)
    for name in args.datasets.split(","):
        Setup(args, name).write(folder, [k for k in args.word_vectors.split(",") if k == "glove50"])
    meta = {"code_version": code_version(), "datasets": args.datasets.split(",")}
    (folder / "bundle.json").write_text(json.dumps(meta))
    print(f"wrote {folder}: {sum(f.stat().st_size for f in folder.iterdir()) / 2**20:.1f} MiB")


def part_output(args, name, part):
    return pathlib.Path(args.output).with_suffix(".parts") / f"{name}_{part}.json"


def run_parts(args, argv, start, version):
    """`--jobs`: every part of every dataset in its own process, `args.jobs` at once (on one GPU: its kernels are
    small, so processes fill it better than one does), then their results merged into `--output`."""
    from concurrent.futures import ThreadPoolExecutor

    argv = list(sys.argv[1:] if argv is None else argv)
    jobs = [(name, part) for name in args.datasets.split(",") for part in parts_of(args, name)]
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")  # one GPU's memory, shared

    def run(job):
        name, part = job
        log_path = part_output(args, name, part).with_suffix(".log")
        log_path.parent.mkdir(parents=True, exist_ok=True)
        extra = ["--part", f"{name}:{part}"] + ([] if args.deadline is None else ["--deadline-at", str(args.deadline)])
        with open(log_path, "w") as log:
            command = [sys.executable, "-m", "benchmarks.cnle", *argv, *extra]
            code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
        print(f"{name}:{part} ended ({code}) after {time.time() - start:.0f} s; log {log_path}", flush=True)

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, jobs))
    results, missing = {}, []
    for name, part in jobs:
        path = part_output(args, name, part)
        if not path.exists():
            missing.append(f"{name}:{part}")
            continue
        got = json.loads(path.read_text())["results"][name]
        out = results.setdefault(name, {"models": {}})
        out["models"].update(got.pop("models"))
        out.update(got, command=command_line("benchmarks.cnle", argv))
    if missing:
        print(f"parts without a result: {missing}", flush=True)
    return results


def summary(results):
    out = {}
    for name, key, metric in (
        ("reuters", "reuters_micro_f1", "micro_f1"),
        ("newsgroups", "newsgroups_accuracy", "accuracy"),
    ):
        r = results.get(name)
        if not r:
            continue
        row = {m: run[metric] for m, run in r.get("models", {}).items()}
        if "svm" in r:  # a part of --jobs may have none
            row["svm"] = r["svm"][metric]
        if "gile_han" in r:
            row["gile_han"] = r["gile_han"][metric]
        out[key] = row
    timing = results.get("reuters", {}).get("timing")
    if timing:
        out["epoch_time_ratio_cnle_vs_gile_han"] = timing["cnle_vs_gile_han"]["ratio"]
    return out


PAPER = {
    "reuters": {"cnle": 0.899, "no_label_embedding": 0.880, "no_text_to_label": 0.894, "svm": 0.861, "gile_han": 0.852},
}
MODEL_NAMES = {
    "cnle": "CNLE",
    "no_label_embedding": "CNLE w/o label embedding",
    "no_text_to_label": "CNLE w/o text-to-label attention",
    "cnle_ppmi": "CNLE, PPMI vectors of the training text",
    "cnle_glove50": "CNLE, GloVe 50-d",
    "svm": "tf-idf LinearSVC (C, n-grams tuned)",
    "gile_han": "GILE-HAN (benchmarks.reuters)",
}


def paper_figure(dataset, key):
    figure = PAPER.get(dataset, {}).get(key)
    return "-" if figure is None else f"{figure:.3f}"


def table(results):
    parts = []
    for name, metric, title in (
        ("reuters", "micro_f1", "Reuters-21578 ModApte-90: micro-F1 of the decoded label sets"),
        ("newsgroups", "accuracy", "20 Newsgroups bydate (headers removed): accuracy"),
    ):
        r = results.get(name)
        if not r:
            continue
        rows = []

        def claim(key, vectors, run, validation, epochs="-", seconds="-"):
            scores = f"{run[metric]:.4f}", f"{validation:.4f}"
            return [MODEL_NAMES.get(key, key), vectors, *scores, epochs, seconds, paper_figure(name, key)]

        for key, run in r.get("models", {}).items():
            seconds = f"{np.median(run['epoch_seconds']):.0f}" if run["epoch_seconds"] else "-"
            epochs = f"{run['best_epoch']}/{run['epochs_run']}"
            rows.append(claim(key, run["word_vectors"], run, run[f"val_{metric}"], epochs, seconds))
        if "svm" in r:
            rows.append(claim("svm", "tf-idf", r["svm"], r["svm"]["val_score"]))
        if "gile_han" in r:
            g = r["gile_han"]
            epochs, seconds = f"{g['best_epoch']}/{g['epochs_run']}", f"{g['epoch_seconds_mean']:.0f}"
            rows.append(claim("gile_han", "ppmi (fine-tuned)", g, g["val_micro_f1"], epochs, seconds))
        header = [
            "model",
            "word vectors",
            f"test {metric}",
            f"validation {metric}",
            "best epoch / run",
            "s / epoch",
            "paper",
        ]
        setup = r["setup"]
        note = (
            f"{setup['train_documents']} training, {setup['validation_documents']} validation, "
            f"{setup['test_documents']} test documents; {setup['labels']} labels; {setup['max_tokens']} tokens "
            f"per text; command `{r['command']}` at code version {r['code_version']}."
        )
        for key, run in r.get("models", {}).items():
            if "rerun" in run:  # a part run again by itself after the merged run (see its `reason`)
                again = run["rerun"]
                note += (
                    f" {MODEL_NAMES.get(key, key)} rerun by itself: `{again['command']}` at code version "
                    f"{again['code_version']} ({again['reason']})."
                )
        parts.append(f"**{title}**\n\n{markdown_table(header, rows)}\n\n{note}")
        if "attention_plot" in r:
            plot = r["attention_plot"]
            parts.append(f"![CNLE attention, {name} test document {plot['test_document']}]({plot['path']})")
        if "timing" in r:
            t = r["timing"]["cnle_vs_gile_han"]
            parts.append(
                f"Training-step time CNLE / GILE-HAN (round-robin, batch {setup.get('batch_size', 32)}, "
                f"read from {t['clock']}): **{t['ratio']:.2f}×** (wall {t['wall_ratio']:.2f}×, "
                f"CPU {t['cpu_ratio']:.2f}×)."
            )
    return "\n\n".join(parts)


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    args.deadline = args.deadline_at or (None if args.time_limit is None else start + 60 * args.time_limit)
    if args.write_bundle:
        write_bundle(args)
        return
    # The GPU machine's copy of the tree reads as no clean commit: a bundle's run records the bundle's version.
    version = (
        json.loads((pathlib.Path(args.bundle) / "bundle.json").read_text())["code_version"]
        if args.bundle
        else code_version()
    )
    results = {}
    if args.report_only:  # the tables of a finished run, rebuilt by today's table code
        report = json.loads(pathlib.Path(args.output).read_text())
        report.update(summary=summary(report["results"]))
        pathlib.Path(args.output).write_text(json.dumps(report, indent=2) + "\n")
        header = results_header(report)
        pathlib.Path(args.output).with_suffix(".md").write_text(f"{header}\n\n{table(report['results'])}\n")
        return
    output = args.output
    if args.part:
        name, part = args.part.split(":")
        output = part_output(args, name, part)

    def save():
        merged = dict(results)
        if args.merge and not args.part and os.path.exists(output):  # another dataset's process may write too
            with open(output) as previous:
                merged = {**json.load(previous)["results"], **results}
        write_report(
            output, "CNLE", "benchmarks.cnle", args, argv, merged, summary(merged), table(merged), start, version,
            rows,
        )  # fmt: skip

    if args.part:
        run_dataset(args, name, results, save, version, parts=[part])
        return
    if args.jobs > 1:
        results.update(run_parts(args, argv, start, version))
    else:
        for name in args.datasets.split(","):
            run_dataset(args, name, results, save, version)
    save()
    print(table(results))


def _ablations(scores):
    names = {"no_label_embedding": "w/o label embedding", "no_text_to_label": "w/o text-to-label attention"}
    return "; ".join(f"{name} {scores[key]:.4f}" for key, name in names.items() if key in scores)


def rows(report):
    """CNLE's decoded sets against its two ablations and the SVM (Reuters), and against the SVM (20 Newsgroups);
    a dataset whose CNLE has not finished training has no row yet."""
    s, out, link = report["summary"], [], "[CNLE](pages/cnle.md)"
    reuters, newsgroups = (
        s.get(key) if "cnle" in s.get(key, {}) else None for key in ("reuters_micro_f1", "newsgroups_accuracy")
    )
    if reuters and "svm" in reuters:
        ablations = [reuters[k] for k in ("no_label_embedding", "no_text_to_label") if k in reuters]
        ratio = s.get("epoch_time_ratio_cnle_vs_gile_han")
        out.append(
            claim(
                "Reuters-21578, 90 labels: micro-F1 of CNLE's decoded label sets",
                f"CNLE {reuters['cnle']:.4f}" + (f" (epoch time {ratio:.1f}× GILE-HAN's)" if ratio else ""),
                "; ".join(
                    [f"tuned tf-idf SVM {reuters['svm']:.4f}"]
                    + ([f"GILE-HAN {reuters['gile_han']:.4f}"] if "gile_han" in reuters else [])  # none on a GPU run
                    + ([_ablations(reuters)] if _ablations(reuters) else [])
                ),
                "CNLE 0.899, ablations 0.880 / 0.894, SVM 0.861 (CNLE Tables 4, 6)",
                "CNLE above both ablations and the SVM: "
                + met(len(ablations) == 2 and reuters["cnle"] > max(ablations) and reuters["cnle"] > reuters["svm"]),
                link,
                "Reuters-21578, 90 labels: micro-F1 of CNLE",
            )
        )
    if newsgroups and "svm" in newsgroups:
        out.append(
            claim(
                "20 Newsgroups (headers removed): accuracy of CNLE",
                f"CNLE {newsgroups['cnle']:.4f}",
                "; ".join(
                    [f"tuned tf-idf SVM {newsgroups['svm']:.4f}"]
                    + ([_ablations(newsgroups)] if _ablations(newsgroups) else [])
                ),
                "- (not in the paper)",
                "above the SVM: " + met(newsgroups["cnle"] > newsgroups["svm"]),
                link,
                "20 Newsgroups: accuracy of CNLE",
            )
        )
    return out


if __name__ == "__main__":
    main()
