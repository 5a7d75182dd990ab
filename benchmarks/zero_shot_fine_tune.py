"""Zero-shot with the sentence encoder trained end to end: attempt 8 of issue 24, on a GPU.

Attempt 7 (`benchmarks.zero_shot_sentence`) kept all-MiniLM-L6-v2 frozen and trained only the blend of its
hybrid head (tf-idf over the word pieces beside the sentence cosine, z-scored). Here the same model is trained
end to end: `sentence_classifier` over `SentenceEncoder(backbone, fine_tune=True)`, so documents and label
descriptions go through the one encoder being trained, as the builder shares it.

The protocol, fixed before this script's first run:

- Splits: fresh ones, never used by another run: Reuters split seeds 60-64 and AAPD 55-59, drawn and
  prepared as `benchmarks.zero_shot` does. Five per dataset, not attempt 7's ten for Reuters: the GPU
  machine's 15 minutes of this session hold no more.
- Stage 1, `hybrid_sentence`: attempt 7's model, the blend trained on the frozen encoder's outputs
  (binary cross-entropy on the seen labels, Adam 1e-2, batch 64, 10 epochs).
- Stage 2, `hybrid_sentence_fine_tuned`: the same model with the encoder trainable, started from stage 1's
  head, trained on the seen labels with binary cross-entropy, Adam 2e-5 (the usual rate for fine-tuning
  BERT-sized encoders), batch 32, 2 epochs, constant rate, the backbone's dropout on. Nothing is selected:
  no validation data.
- Untrained scorers, as attempt 7: `random`, `tfidf_match`, `embedding_cosine` (GloVe), `untrained_fusion`,
  `bm25_match`, `component_sentence`, `component_wordpiece_lexical`, `untrained_sentence_fusion`.
- Verdicts: `benchmarks.noise_rule.paired_comparison` over the splits, stage 2 against stage 1 (does
  training the encoder add anything), against each component, both untrained fusions and tf-idf.
- MiniLM's weights travel as float16 (the GPU machine receives at most 64 MiB of files; float32 is 91 MB)
  and are read back as float32: every MiniLM scorer of the run uses the same rounded weights (what the
  rounding moves is not measured: attempt 7 ran on other splits).

Two steps, since the GPU machine has no TensorFlow: here the text becomes word-piece ids, the splits their
rows, and the word scorers (tf-idf, GloVe, BM25: the library's TensorFlow text pipeline) their reports;
there the MiniLM models are trained and scored.

    python -m benchmarks.zero_shot_fine_tune --write-bundle .device_data/fine_tune
    KERAS_BACKEND=jax python -m benchmarks.zero_shot_fine_tune --bundle .device_data/fine_tune   # on the GPU
    KERAS_BACKEND=jax python -m benchmarks.zero_shot_fine_tune --bundle .device_data/fine_tune --quick   # a check

Attempt 9 (`--fine-tune documents`), fixed before its run: the same two stages with the label side frozen, as
the issue's target asks ("label side frozen") and as `embedding={"fine_tune": "documents"}` does for word
vectors: `SentenceEncoder(backbone, fine_tune="documents")` trains the backbone on the documents and reads the
descriptions with a frozen copy of the pretrained one (in attempt 8 the gradient stopped at the descriptions
but their vectors still moved with the trained encoder). Fresh Reuters splits 65-67 (`--first-split 65
--splits 3`): the 7 minutes of GPU left in that session hold three; AAPD not run. Same settings, same bars,
nothing selected.

    python -m benchmarks.zero_shot_fine_tune --write-bundle .device_data/documents --datasets reuters \
        --first-split 65 --splits 3
    KERAS_BACKEND=jax python -m benchmarks.zero_shot_fine_tune --bundle .device_data/documents \
        --datasets reuters --splits 3 --fine-tune documents \
        --output benchmarks/results/zero_shot_fine_tune_documents.json

Writes benchmarks/results/zero_shot_fine_tune.json and .md (after every split, so a stopped run keeps what it
did). Its code version is the bundle's: write the bundle from a clean checkout of the commit the GPU machine
runs (its copy of the tree does not read as that commit).
"""

import json
import pathlib
import time

import keras
import numpy as np

from benchmarks.baselines import random_ranking_expectation
from benchmarks.benchmark import Arguments
from benchmarks.noise_rule import paired_comparison
from benchmarks.relabel import relabel
from benchmarks.report import VERSION_AT_START, write_report
from benchmarks.seeds import mean_std
from benchmarks.sentence_hybrid import BARS as SENTENCE_BARS
from benchmarks.sentence_hybrid import (
    DOCUMENT_PIECES,
    HYBRID,
    descriptions,
    head_scores,
    hybrid_head,
    sentence_hybrid,
)
from benchmarks.zero_shot_tables import dataset_section, hybrid_rows
from keras_labelemb.evaluation import ranking_report
from keras_labelemb.layers import SentenceEncoder
from keras_labelemb.models import sentence_classifier
from keras_labelemb.tasks import LabelClassifier

FINE_TUNED = "hybrid_sentence_fine_tuned"
FIRST_SPLIT = {"reuters": 60, "aapd": 55}
ATTEMPT = {"all": "attempt 8", "documents": "attempt 9, label side frozen"}
LABEL_SIDE_FROZEN = "on the documents, the descriptions read by a frozen copy of the pretrained encoder, "
BARS = (HYBRID, *SENTENCE_BARS)  # the frozen-encoder hybrid first: whether training the encoder adds anything


def parse_args(argv=None):
    p = Arguments("zero_shot_fine_tune", __doc__, splits=5, first_split=None, epochs=2, batch_size=32)
    p.add_argument("--write-bundle", help="write word pieces, splits, word-scorer reports and MiniLM here, then stop")
    p.add_argument("--bundle", help="run from the folder --write-bundle wrote (no TensorFlow needed)")
    p.add_argument("--datasets", default="aapd,reuters")
    p.add_argument("--fine-tune", default="all", choices=("all", "documents"), help="what the encoder trains on")
    p.add_argument("--stage1-epochs", type=int, default=10)
    p.add_argument("--learning-rate", type=float, default=2e-5)
    args = p.parse_args(argv)
    if bool(args.write_bundle) == bool(args.bundle):
        p.error("give one of --write-bundle (here) and --bundle (the GPU run)")
    if args.quick:
        args.splits, args.stage1_epochs, args.epochs = 1, 1, 1
    return args


def seeds_of(name, args):
    first = FIRST_SPLIT[name] if args.first_split is None else args.first_split
    return list(range(first, first + args.splits))


# -- here: the bundle ---------------------------------------------------------------------------------------
def write_bundle(args):
    from benchmarks.zero_shot import DATASETS, Split, split_info, untrained_scores
    from keras_labelemb.text import load_minilm

    backbone, vectorizer = load_minilm(sequence_length=DOCUMENT_PIECES)
    arrays = {}
    meta = {
        "code_version": VERSION_AT_START,
        "backbone": keras.saving.serialize_keras_object(backbone),
        "ignored_ids": [int(i) for i in vectorizer.special_ids],
        "datasets": {},
    }
    for name in args.datasets.split(","):
        data = DATASETS[name]["load"]()
        texts = list(dict.fromkeys(list(data.train_texts) + list(data.test_texts)))
        rows = {text: i for i, text in enumerate(texts)}
        ids = np.concatenate([vectorizer(texts[i : i + 1024]).numpy() for i in range(0, len(texts), 1024)])
        arrays[f"{name}/ids"] = ids.astype("uint16")  # word-piece ids < 30,522
        arrays[f"{name}/descriptions"] = descriptions(vectorizer, data.label_descriptions)
        splits = []
        for seed in seeds_of(name, args):
            split = Split.drawn(name, data, seed)
            scores = untrained_scores(split, split.train_ids, split.label_ids[split.unseen], split.test_ids)
            reports = {"random": random_ranking_expectation(split.y_true)}
            reports.update({scorer: ranking_report(split.y_true, value) for scorer, value in scores.items()})
            test_texts = [text for text, keep in zip(data.test_texts, split.carrying) if keep]
            key = f"{name}/{seed}"
            arrays[f"{key}/train_rows"] = np.array([rows[text] for text in split.kept.train_texts], "int32")
            arrays[f"{key}/train_targets"] = split.train_targets.astype("uint8")
            arrays[f"{key}/test_rows"] = np.array([rows[text] for text in test_texts], "int32")
            arrays[f"{key}/y_true"] = split.y_true.astype("uint8")
            arrays[f"{key}/seen"] = np.array(split.seen, "int32")
            arrays[f"{key}/unseen"] = np.array(split.unseen, "int32")
            splits.append(dict(split_info(split, data), reports=reports))
            print(name, seed, {k: round(v["label_ranking_average_precision"], 4) for k, v in reports.items()})
        meta["datasets"][name] = splits
    folder = pathlib.Path(args.write_bundle)
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(folder / "bundle.npz", **arrays)
    np.savez(folder / "minilm_float16.npz", *[w.astype("float16") for w in backbone.get_weights()])
    (folder / "bundle.json").write_text(json.dumps(meta))
    print(f"wrote {folder}: {sum(f.stat().st_size for f in folder.iterdir()) / 2**20:.1f} MiB")


# -- there: the models --------------------------------------------------------------------------------------
def own_variables(head, encoder):
    """The head's variables that are not the encoder's (it holds the encoder as its shared embedding)."""
    shared = {id(v) for v in encoder.variables}
    return [v for v in head.variables if id(v) not in shared]


def start_from(head, encoder, trained_head, trained_encoder):
    """Sets `head`'s own variables (blend, idf, scales) to those of stage 1's `trained_head`."""
    target, source = own_variables(head, encoder), own_variables(trained_head, trained_encoder)
    if [v.path.split("/", 1)[1] for v in target] != [v.path.split("/", 1)[1] for v in source]:
        raise ValueError(f"The heads differ: {[v.path for v in target]} vs {[v.path for v in source]}")
    for t, s in zip(target, source):
        t.assign(np.array(s.value))  # a copy: the fit under JAX donates (deletes) the buffers it is given


class Run:
    """MiniLM twice from the bundle: a frozen copy (stage 1, the untrained scorers) and one trained end to end,
    reset to the pretrained weights before every split."""

    def __init__(self, folder, fine_tune="all"):
        import keras_hub  # noqa: F401  (registers BertBackbone for deserialisation)

        folder = pathlib.Path(folder)
        self.meta = json.loads((folder / "bundle.json").read_text())
        with np.load(folder / "bundle.npz") as stored:
            self.arrays = dict(stored)
        with np.load(folder / "minilm_float16.npz") as stored:
            self.weights = [stored[f"arr_{i}"].astype("float32") for i in range(len(stored.files))]
        # The backbones' dropout layers draw their seeds from Python's `random` when they are made: seeded here,
        # so a run repeats (the splits' own seeds are set before each fit).
        keras.utils.set_random_seed(0)
        self.frozen = SentenceEncoder(self.backbone(), name="frozen_encoder")
        self.tuned_backbone = self.backbone()
        # "documents": the label side reads a frozen copy of the pretrained backbone, made here once.
        fine_tune = True if fine_tune == "all" else fine_tune
        self.tuned = SentenceEncoder(self.tuned_backbone, fine_tune=fine_tune, name="tuned_encoder")
        ids = keras.Input((DOCUMENT_PIECES,), dtype="int32")
        self.frozen_pooled = keras.Model(ids, self.frozen(ids)["pooled"])
        outputs = self.tuned(ids)
        self.tuned_documents = keras.Model(ids, {"pooled": outputs["pooled"], "token_ids": outputs["token_ids"]})

    def backbone(self):
        backbone = keras.saving.deserialize_keras_object(self.meta["backbone"])
        backbone.set_weights(self.weights)
        return backbone

    def dataset(self, name):
        ids = self.arrays[f"{name}/ids"].astype("int32")
        print(f"{name}: the frozen encoder reads {len(ids)} documents", flush=True)
        return {
            "ids": ids,
            "pooled": self.frozen_pooled.predict(ids, batch_size=256, verbose=0),
            "descriptions": self.arrays[f"{name}/descriptions"],
        }

    def split(self, name, stored, info, args):
        seed, key, ignored = info["seed"], f"{name}/{info['seed']}", self.meta["ignored_ids"]
        train_rows, test_rows = self.arrays[f"{key}/train_rows"], self.arrays[f"{key}/test_rows"]
        targets = self.arrays[f"{key}/train_targets"].astype("float32")
        y_true = self.arrays[f"{key}/y_true"]
        if args.quick:
            train_rows, targets, test_rows, y_true = train_rows[:64], targets[:64], test_rows[:64], y_true[:64]
        seen = stored["descriptions"][self.arrays[f"{key}/seen"]]
        unseen = stored["descriptions"][self.arrays[f"{key}/unseen"]]
        train = {"pooled": stored["pooled"][train_rows], "token_ids": stored["ids"][train_rows]}
        test = {"pooled": stored["pooled"][test_rows], "token_ids": stored["ids"][test_rows]}

        # Scored as the head reads them (`head_scores`: each component's logits and the blend), on documents
        # encoded beforehand.
        untrained = LabelClassifier.from_model(sentence_hybrid(self.frozen, ignored, seen, train["token_ids"]))
        relabel(untrained, unseen)
        parts = head_scores(untrained.head, test)
        scores = {
            "component_sentence": parts["sentence"],
            "component_wordpiece_lexical": parts["wordpiece_lexical"],
            "untrained_sentence_fusion": parts["total"],
        }

        keras.utils.set_random_seed(1000 * seed)  # attempt 7's stage, as it ran there
        stage1 = LabelClassifier.from_model(sentence_hybrid(self.frozen, ignored, seen, train["token_ids"]))
        stage1.compile(keras.optimizers.Adam(1e-2), keras.losses.BinaryCrossentropy(from_logits=True), metrics=[])
        stage1.fit(train, targets, epochs=args.stage1_epochs, batch_size=64, verbose=0)
        relabel(stage1, unseen)
        scores[HYBRID] = head_scores(stage1.head, test)["total"]

        self.tuned_backbone.set_weights(self.weights)
        head = hybrid_head(self.tuned, ignored, seen)
        model = LabelClassifier.from_model(sentence_classifier(self.tuned, head=head, sequence_length=DOCUMENT_PIECES))
        head.adapt(train["token_ids"])
        start_from(head, self.tuned, stage1.head, self.frozen)
        keras.utils.set_random_seed(1000 * seed + 1)
        model.compile(
            keras.optimizers.Adam(args.learning_rate), keras.losses.BinaryCrossentropy(from_logits=True), metrics=[]
        )
        started = time.time()
        history = model.fit(train["token_ids"], targets, epochs=args.epochs, batch_size=args.batch_size, verbose=2)
        seconds = time.time() - started
        relabel(model, unseen)
        documents = self.tuned_documents.predict(test["token_ids"], batch_size=256, verbose=0)
        scores[FINE_TUNED] = head_scores(head, documents)["total"]

        reports = dict(info["reports"])
        if args.quick:  # the bundle's reports are of every test document
            reports = {"random": random_ranking_expectation(y_true)}
        reports.update({scorer: ranking_report(y_true, value) for scorer, value in scores.items()})
        print(name, seed, {k: round(v["label_ranking_average_precision"], 4) for k, v in reports.items()}, flush=True)
        blends = {
            stage: [round(float(w), 4) for w in np.asarray(h.weights_by_component)]
            for stage, h in ((HYBRID, stage1.head), (FINE_TUNED, head))
        }
        extra = {
            "fine_tune_seconds": round(seconds, 1),  # the fit's wall clock on the GPU, its compilation included
            "fine_tune_loss": [round(float(x), 5) for x in history.history["loss"]],
            "blend_weights": blends,
        }
        return reports, dict({k: v for k, v in info.items() if k != "reports"}, **extra)


def summarise(name, splits):
    avgpr = {s: [reports[s]["label_ranking_average_precision"] for reports, _ in splits] for s in splits[0][0]}
    pairs = [(FINE_TUNED, bar) for bar in BARS] + [(HYBRID, "tfidf_match")]
    comparisons = {
        f"{ours} vs {bar}": paired_comparison(avgpr[ours], avgpr[bar])
        for ours, bar in pairs
        if bar in avgpr and len(splits) > 1  # a run stopped after one split (or --quick) has no verdicts
    }
    summary = {
        "splits": len(splits),
        "avgpr": {s: float(np.mean(values)) for s, values in avgpr.items()},
        "avgpr_std": {s: mean_std(values)[1] for s, values in avgpr.items()},
        "fine_tuned_vs_frozen": comparisons.get(f"{FINE_TUNED} vs {HYBRID}"),
        "fine_tuned_vs_tfidf_match": comparisons.get(f"{FINE_TUNED} vs tfidf_match"),
        "fine_tune_seconds": float(np.mean([info["fine_tune_seconds"] for _, info in splits])),
        "comparisons": comparisons,
    }
    seconds = f"; end-to-end training {summary['fine_tune_seconds']:.0f} s a split on the GPU"
    return summary, dataset_section(name, splits, avgpr, comparisons, seconds)


def run_bundle(args, argv):
    start = time.time()
    run = Run(args.bundle, args.fine_tune)
    # The GPU machine's copy of the tree is no faithful checkout (it read itself as the session's first commit
    # "+changes"): the run's code is the bundle's, written from a clean checkout of the commit sent there.
    version = run.meta["code_version"]
    if VERSION_AT_START != version:
        print(f"recording the bundle's code version {version} (this checkout reads {VERSION_AT_START})")
    header = (
        "all-MiniLM-L6-v2 (keras-hub BertBackbone, mean-pooled, weights rounded to float16) trained end to end "
        + (LABEL_SIDE_FROZEN if args.fine_tune == "documents" else "")
        + f"on the seen labels ({args.epochs} epochs, Adam {args.learning_rate:g}, batch {args.batch_size}) from "
        f"attempt 7's hybrid (its blend trained {args.stage1_epochs} epochs on the frozen encoder); the word "
        "scorers from the bundle; average precision over the held-out labels. Verdicts: benchmarks.noise_rule "
        "(paired over splits)."
    )
    results, summary, tables = {}, {}, []
    for name in args.datasets.split(","):
        stored = run.dataset(name)
        splits = []
        for info in run.meta["datasets"][name][: args.splits]:
            splits.append(run.split(name, stored, info, args))
            summary[name], table = summarise(name, splits)
            results[name] = [dict(info, reports=reports) for reports, info in splits]
            text = "\n\n".join([header, *tables, table])
            write_report(
                args.output, f"zero-shot, sentence encoder trained end to end ({ATTEMPT[args.fine_tune]})",
                "benchmarks.zero_shot_fine_tune", args, argv, results, summary, text, start, version, rows,
            )  # fmt: skip
        tables.append(table)
    print(text)


FINE_TUNED = {
    "all": "encoder fine-tuned end to end from the frozen hybrid",
    "documents": "encoder fine-tuned on the documents only (descriptions read by a frozen copy of the pretrained "
    "encoder) from the frozen hybrid",
}


def rows(report):
    """The fine-tuned hybrid against untrained matching, the frozen hybrid and its components' untrained fusion."""
    what = f"MiniLM + word-piece tf-idf hybrid, {FINE_TUNED[report['config'].get('fine_tune', 'all')]}, fresh splits"
    return hybrid_rows(report, "hybrid_sentence_fine_tuned", what, "all-MiniLM-L6-v2 on a GPU; baselines GloVe 50-d")


def main(argv=None):
    args = parse_args(argv)
    if args.write_bundle:
        write_bundle(args)
    else:
        run_bundle(args, argv)


if __name__ == "__main__":
    main()
