"""Reuters-21578 ModApte-90 benchmark: seen labels, zero-shot labels, XLA speed ratio.

One process, same data and budget for every model:

- Seen labels (all 90): GILE-HAN vs HAN with the linear head (same encoder,
  same epochs, same early-stopping rule), each over `--seeds` initialisation
  seeds on one split, vs a tf-idf LinearSVC one-vs-rest whose C and n-gram
  range are chosen on validation. Micro-F1 with one global threshold chosen on
  the validation split carved from train (every method, the SVM included, gets
  the same rule: labels above the threshold, at least the top label), P@1, P@5.
- Zero-shot: ~20% of the labels (seeded choice among labels outside the 10 most
  frequent) are held out; every training document carrying one is removed;
  models train on the seen labels, then score the held-out labels from their
  descriptions alone. Ranking loss, average precision (LRAP) and one-error
  over the held-out labels on the test documents that carry at least one of
  them, for the learned heads (GILE, its ablations, DRILL; `--seeds` each)
  beside untrained word matching (tf-idf cosine between document and label
  description; cosine of mean word vectors) and a random ranking (its exact
  expectation).
- DrillHead over the label descriptions (`drill_han`, `drill`; DRILL's deep
  residual label network in place of GILE's joint space).
- Training-step time of GILE-HAN with `jit_compile=True` vs `False`, round-robin,
  compilation excluded.

Word vectors are pretrained on the training text itself (PPMI + SVD,
`pretrain_word_vectors`): on all training documents for the seen-label models,
on the filtered training documents for the zero-shot models.

Run time on 2 CPU cores: about 70 minutes with the defaults; `--quick` about 5.

    python -m benchmarks.reuters            # seen and zero-shot over 3 seeds, SVM, XLA ratio
    python -m benchmarks.reuters --quick    # 2 epochs, 1 seed, a small SVM grid: checks the script
    python -m benchmarks.reuters --parts seen,zeroshot --seen-models gile_han,drill_han \\
        --zero-shot-heads gile,drill --output benchmarks/results/reuters_drill.json
"""

import time
import warnings

import keras
import tensorflow as tf

from benchmarks.baselines import (
    blend_scores,
    choose_blend_weight,
    embedding_cosine_scores,
    random_ranking_expectation,
    svm_on,
    tfidf_match_scores,
)
from benchmarks.benchmark import Arguments, seed_range
from benchmarks.datasets import load_reuters
from benchmarks.datasets.zero_shot_split import zero_shot_split
from benchmarks.noise_rule import level_with, paired_comparison
from benchmarks.report import write_report
from benchmarks.seeds import seed_summary
from benchmarks.tables import claim, markdown_table, mean_pm_std, met
from benchmarks.timing import round_robin, speed_ratio, train_steps
from benchmarks.training_loop import fit_best_epoch
from benchmarks.word_vectors import add_word_vector_arguments, fine_tune_mode, glove50, vectors_line
from keras_labelemb.datasets import remove_unseen_from_train, restrict_labels
from keras_labelemb.datasets.zero_shot import labels_without_training_documents
from keras_labelemb.evaluation import (
    classification_report,
    ranking_report,
)
from keras_labelemb.layers import DrillHead, GileHead, HierarchicalAttention, LinearHead
from keras_labelemb.models.document_classifier import build_encoder, document_classifier, prior_bias
from keras_labelemb.models.word_embeddings import word_embeddings
from keras_labelemb.tasks import LabelClassifier
from keras_labelemb.text import TextVectorizer
from keras_labelemb.training import BestValidationF1, pretrain_word_vectors

# The spine's zero-shot heads (the keys of `summary.zeroshot_avgpr`), then DrillHead beside them.
SPINE_ZERO_SHOT_HEADS = ("gile", "bilinear", "bilinear_yh15", "only_label", "only_input")
ZERO_SHOT_HEADS = SPINE_ZERO_SHOT_HEADS + ("drill",)
# Untrained scorers of the zero-shot part: word matching between document and label description.
UNTRAINED_SCORERS = ("tfidf_match", "embedding_cosine")
SEEN_MODELS = {"gile_han": "gile", "han_linear": "linear", "drill_han": "drill"}


def parse_args(argv=None):
    p = Arguments("reuters", __doc__, seeds=3, epochs=20, batch_size=32, data_dir="reuters21578")
    p.add_argument("--parts", default="svm,seen,zeroshot,jit", help="comma-separated parts to run")
    p.add_argument("--seen-models", default="gile_han,han_linear", help=f"from {','.join(SEEN_MODELS)}")
    p.add_argument("--zero-shot-heads", default="gile,drill", help=f"from {','.join(ZERO_SHOT_HEADS)}")
    p.add_argument("--patience", type=int, default=5)
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
    add_word_vector_arguments(p)
    p.add_argument(
        "--untrained-seen-labels",
        default="keep",
        choices=("keep", "drop"),
        help="zero-shot: seen labels left without a training document once documents carrying unseen labels "
        "are removed (aliases such as cotton-oil, palmkernel): keep them (the usual protocol) or drop them",
    )
    p.add_argument("--validation-fraction", type=float, default=0.1)
    p.add_argument("--jit-rounds", type=int, default=5, help="round-robin rounds of the XLA timing")
    # Wider than baselines.C_GRID (0.1-10), whose choice here, C = 10, sat at its edge.
    p.add_argument(
        "--svm-c", default="0.1,0.3,1,3,10,30,100", help="the SVM's C grid, comma-separated (n-grams 1, 1-2, 1-3)"
    )
    args = p.parse_args(argv)
    args.svm_c_grid = tuple(float(c) for c in args.svm_c.split(",")) if args.svm_c else None
    if args.quick:
        args.svm_c_grid = (1.0,)
    if args.quick:
        args.epochs, args.patience, args.seeds, args.jit_rounds = 2, 2, 1, 2
    p.check_choices(args, seen_models=SEEN_MODELS, zero_shot_heads=ZERO_SHOT_HEADS)
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
        self._glove, self.coverage = None, None
        if args.word_vectors == "glove50":
            args.embedding_dim = 50

    def ids(self, texts):
        # Keyed by the list's identity; the list is kept with its ids so the key cannot be reused.
        key = id(texts)
        if key not in self._ids:
            self._ids[key] = (texts, self.vectorizer(tf.constant(texts, dtype=tf.string)).numpy())
        return self._ids[key][1]

    def word_vectors(self, texts):
        """The run's pretrained vectors (`--word-vectors`); PPMI-SVD ones are fitted on `texts`."""
        if self.args.word_vectors == "none":
            return None
        if self.args.word_vectors == "glove50":
            if self._glove is None:
                self._glove, self.coverage = glove50(self.vectorizer, self.label_ids)
            return self._glove
        return pretrain_word_vectors(self.ids(texts), self.vectorizer.vocabulary_size, self.args.embedding_dim)


def head_of(setup, head, table, label_ids, num_labels, joint_dim=None):
    """The label head a head name of this benchmark's flags stands for, over the word table `table`."""
    a = setup.args
    prior = prior_bias(num_labels)
    if head == "linear":
        return LinearHead(num_labels, bias_initializer=prior, name="linear_head")
    if head == "drill":
        width = a.units * (2 if a.encoder.startswith("bi") else 1)  # the document vector's
        return DrillHead(
            table,
            label_ids,
            depth=a.drill_depth,
            dropout=a.drill_dropout,
            activation=a.activation,
            input_projection=width != table.output_dim,
            bias_initializer=prior,
            name="drill_head",
        )
    return GileHead(
        table,
        label_ids,
        variant=head,
        joint_dim=joint_dim or a.joint_dim,
        activation=a.activation,
        bias_initializer=prior,
        name=f"{head}_head",
    )


def build(setup, head, label_ids, num_labels, vectors, joint_dim=None):
    """The network as a `LabelClassifier` fed token ids (the functional model cut at its head)."""
    a = setup.args
    fine_tune = fine_tune_mode(a.fine_tune_word_vectors, head) if vectors is not None else "all"
    embedding, label_embedding = word_embeddings(setup.vectorizer.vocabulary_size, a.embedding_dim, vectors, fine_tune)
    table = embedding if label_embedding is None else label_embedding
    encoder = HierarchicalAttention(a.encoder, a.units, a.encoder, a.units, dropout=a.dropout, name="document_encoder")
    build_encoder(embedding, encoder, (a.sentences, a.words))  # before the head: the recorded runs' draw order
    model = document_classifier(
        encoder,
        head_of(setup, head, table, label_ids, num_labels, joint_dim),
        embedding=embedding,
        max_sentences=a.sentences,
        max_sentence_length=a.words,
    )
    return LabelClassifier.from_model(model)


def train(setup, data, head, label_ids, vectors, jit_compile=True, joint_dim=None, seed=None):
    """Trains on `data.train`, keeps the epoch with the best validation micro-F1."""
    a = setup.args
    keras.utils.set_random_seed(a.seed if seed is None else seed)
    model = build(setup, head, label_ids, data.num_labels, vectors, joint_dim)
    model.compile(
        keras.optimizers.Adam(a.learning_rate),
        keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[],
        jit_compile=jit_compile,
    )
    best = BestValidationF1(setup.ids(data.val_texts), data.multi_hot("val"), patience=a.patience)
    history, info = fit_best_epoch(
        model, setup.ids(data.train_texts), data.multi_hot("train"), best=best, epochs=a.epochs, batch_size=a.batch_size
    )
    info.update(
        val_micro_f1=best.best_f1,
        threshold=best.threshold,
        val_micro_f1_curve=[round(v, 4) for v in history["val_micro_f1"]],
    )
    return model, info


def run_svm(setup, data):
    """The tuned tf-idf LinearSVC: C and n-gram range chosen on validation, threshold too."""
    grid = {} if setup.args.svm_c_grid is None else {"c_grid": setup.args.svm_c_grid}
    if setup.args.quick:
        grid["ngram_grid"] = ((1, 1),)
    return svm_on(data, True, **grid)[1]


def run_seen(setup, results):
    a = setup.args
    data = setup.data.validation_split(a.validation_fraction, seed=a.seed)
    vectors = setup.word_vectors(data.train_texts + data.val_texts)
    for name in a.seen_models.split(","):
        head = SEEN_MODELS[name]
        runs = []
        for seed in range(a.seed, a.seed + a.seeds):
            print(f"\n== seen labels: {name}, seed {seed} ==", flush=True)
            model, info = train(setup, data, head, setup.label_ids, vectors, seed=seed)
            scores = model.predict(setup.ids(data.test_texts), batch_size=256)
            info.update(classification_report(data.multi_hot("test"), scores, info["threshold"]), seed=seed)
            runs.append(info)
            print({k: v for k, v in info.items() if k != "val_micro_f1_curve"}, flush=True)
        results["seen"][name] = seed_summary(runs, SEEN_METRICS)


SEEN_METRICS = ("micro_f1", "precision_at_1", "precision_at_5", "val_micro_f1", "train_seconds")
RANKING_METRICS = ("ranking_loss", "label_ranking_average_precision", "one_error")


def zero_shot_labels(setup):
    """The zero-shot split: seen and unseen label indices, the seen-label training data (validation split
    carved), and the warnings the zero-shot helpers gave (reported in the results)."""
    data = setup.data
    seen, unseen = zero_shot_split(data, unseen_fraction=0.2, exclude_top=10, seed=setup.args.seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train_data = restrict_labels(remove_unseen_from_train(data, unseen), seen)
    untrained = labels_without_training_documents(train_data)
    if setup.args.untrained_seen_labels == "drop" and untrained:
        seen = [j for i, j in enumerate(seen) if i not in untrained]
        train_data = restrict_labels(remove_unseen_from_train_quiet(data, unseen), seen)
    train_data = train_data.validation_split(setup.args.validation_fraction, seed=setup.args.seed)
    return seen, unseen, train_data, caught


def run_zero_shot(setup, results):
    data = setup.data
    seen, unseen, train_data, caught = zero_shot_labels(setup)
    unseen_test = restrict_labels(data, unseen).multi_hot("test")
    results["zero_shot"]["split"] = {
        "unseen_labels": [data.label_names[j] for j in unseen],
        "unseen_descriptions": [data.label_descriptions[j] for j in unseen],
        "seed": setup.args.seed,
        "seen_labels_without_training_documents": [data.label_names[j] for j in untrained_labels(data, unseen)],
        "untrained_seen_labels": setup.args.untrained_seen_labels,
        "warnings": sorted({str(w.message)[:80] for w in caught}),
        "train_documents": len(train_data.train_texts),
        "validation_documents": len(train_data.val_texts),
    }
    vectors = setup.word_vectors(train_data.train_texts + train_data.val_texts)
    test_ids = setup.ids(data.test_texts)
    unseen_descriptions = [data.label_descriptions[j] for j in unseen]
    zs = results["zero_shot"]
    # Untrained word matching, on the same documents and labels as the learned heads.
    untrained = {"tfidf_match": tfidf_match_scores(train_data.train_texts, data.test_texts, unseen_descriptions)}
    if vectors is not None:
        untrained["embedding_cosine"] = embedding_cosine_scores(test_ids, setup.label_ids[unseen], vectors)
    for name, scores in untrained.items():
        zs[name] = ranking_report(unseen_test, scores)
        print(name, zs[name], flush=True)
    zs["random"] = random_ranking_expectation(unseen_test)
    # Blending a learned head with tf-idf matching: the weight is chosen on the seen labels'
    # validation documents, so nothing about the unseen labels is used.
    seen_descriptions = [data.label_descriptions[j] for j in seen]
    val_lexical = tfidf_match_scores(train_data.train_texts, train_data.val_texts, seen_descriptions)
    dims = {"gile": setup.args.joint_dim, "bilinear_yh15": setup.args.bilinear_dim}
    blends = {}
    for head in setup.args.zero_shot_heads.split(","):
        runs = []
        for seed in seed_range(setup.args):
            print(f"\n== zero-shot: {head}, seed {seed} ==", flush=True)
            model, info = train(
                setup, train_data, head, setup.label_ids[seen], vectors, joint_dim=dims.get(head), seed=seed
            )
            info["seen_test"] = classification_report(
                restrict_labels(data, seen).multi_hot("test"),
                model.predict(test_ids, batch_size=256),
                info["threshold"],
            )
            info["seen_micro_f1"] = info["seen_test"]["micro_f1"]
            val_learned = model.predict_logits(setup.ids(train_data.val_texts), batch_size=256)
            weight, curve = choose_blend_weight(train_data.multi_hot("val"), val_learned, val_lexical)
            model.set_labels([data.label_names[j] for j in unseen], label_ids=setup.label_ids[unseen])
            learned = model.predict_logits(test_ids, batch_size=256)
            info.update(ranking_report(unseen_test, learned), seed=seed)
            blended = ranking_report(unseen_test, blend_scores(learned, untrained["tfidf_match"], weight))
            blends.setdefault(head, []).append({**blended, "weight": weight, "seen_val_curve": curve, "seed": seed})
            runs.append(info)
            print({k: v for k, v in info.items() if k not in ("val_micro_f1_curve", "seen_test")}, flush=True)
        zs[head] = seed_summary(runs, RANKING_METRICS + ("seen_micro_f1",))
        zs[f"{head}+tfidf_match"] = seed_summary(blends[head], RANKING_METRICS + ("weight",))


def untrained_labels(data, unseen):
    """Seen labels (indices into `data`) that no training document carries once unseen ones are removed."""
    counts = remove_unseen_from_train_quiet(data, unseen).label_counts("train")
    return [j for j in range(data.num_labels) if counts[j] == 0 and j not in set(unseen)]


def remove_unseen_from_train_quiet(data, unseen):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return remove_unseen_from_train(data, unseen)


def run_jit_ratio(setup, results):
    """Seconds per GILE-HAN training step with XLA on and off: round-robin, compilation excluded."""
    a = setup.args
    data = setup.data
    x = setup.ids(data.train_texts)[: a.batch_size]
    y = data.multi_hot("train")[: a.batch_size]
    turns = {}
    for jit in (True, False):
        keras.utils.set_random_seed(a.seed)
        model = build(setup, "gile", setup.label_ids, data.num_labels, None)
        model.compile(
            keras.optimizers.Adam(1e-3),
            keras.losses.BinaryCrossentropy(from_logits=True),
            metrics=[],
            jit_compile=jit,
        )
        model.train_on_batch(x, y)  # traces and compiles outside the clock
        turns["jit" if jit else "no_jit"] = train_steps(model, x, y, steps=20)
    times = round_robin(turns, a.jit_rounds)
    results["jit"] = {
        "seconds_per_step": {
            clock: {k: round(v / 20, 4) for k, v in t.items()} for clock, t in times.items() if clock != "rounds"
        },
        **speed_ratio(times, "no_jit", "jit"),
        "note": f"CPU, TensorFlow backend; {a.jit_rounds} round-robin rounds of 20 steps on one batch of "
        f"{a.batch_size}, median; ratio = no_jit / jit (> 1: XLA is faster)",
    }
    print(results["jit"], flush=True)


def summary(results):
    """The headline numbers (keys read by the README summary): seed means, their std, the tuned SVM."""
    seen, zs = results.get("seen", {}), results.get("zero_shot", {})
    out = {}
    for name in SEEN_MODELS:
        if name in seen:
            out[f"{name}_micro_f1"] = seen[name]["micro_f1"]
            out[f"{name}_micro_f1_std"] = seen[name].get("micro_f1_std")
    if "svm" in results:
        out["svm_micro_f1"] = results["svm"]["micro_f1"]
    scorers = [k for k in ZERO_SHOT_HEADS + blended_names(zs) + UNTRAINED_SCORERS + ("random",) if k in zs]
    if scorers:
        out["zeroshot_avgpr"] = {k: zs[k]["label_ranking_average_precision"] for k in scorers}
        out["zeroshot_avgpr_std"] = {k: zs[k].get("label_ranking_average_precision_std") for k in scorers}
        learned = [k for k in scorers if k in ZERO_SHOT_HEADS or "+" in k]  # heads, and heads blended
        matched = [k for k in scorers if k in UNTRAINED_SCORERS]
        if learned and matched:
            best_learned = max(learned, key=out["zeroshot_avgpr"].get)
            best_matched = max(matched, key=out["zeroshot_avgpr"].get)
            out["zeroshot_best_learned_minus_best_untrained"] = (
                out["zeroshot_avgpr"][best_learned] - out["zeroshot_avgpr"][best_matched]
            )
    if "jit" in results:
        out["jit_speedup"] = results["jit"]["ratio"]
    return out


def blended_names(zs):
    return tuple(f"{head}+tfidf_match" for head in ZERO_SHOT_HEADS if f"{head}+tfidf_match" in zs)


SEEN_ROWS = {
    "gile_han": "GILE-HAN",
    "han_linear": "HAN, linear head",
    "drill_han": "DRILL-HAN (DrillHead over descriptions)",
}
ZERO_SHOT_ROWS = {
    "tfidf_match": "tf-idf cosine, document vs description (untrained)",
    "embedding_cosine": "mean word-vector cosine (untrained)",
    "random": "random ranking (expectation)",
}


def _cell(r, key):
    return mean_pm_std(r[key], r.get(f"{key}_std"))


def table(results):
    seeds = max((len(r.get("seeds", [0])) for r in results.get("seen", {}).values()), default=1)
    out = [vectors_line(results.get("word_vectors")), ""]
    seen_rows = []
    for name, label in SEEN_ROWS.items():
        r = results.get("seen", {}).get(name)
        if r:
            epochs = ", ".join(f"{s['epochs_run']} ({s['best_epoch']})" for s in r.get("seeds", [r]))
            cells = [_cell(r, k) for k in ("micro_f1", "precision_at_1", "precision_at_5")]
            seen_rows.append([label, *cells, epochs, f"{r['train_seconds']:.0f}"])
    if "svm" in results:
        r = results["svm"]
        ngrams = "-".join(str(n) for n in sorted(set(r["ngram_range"])))
        label = f"tf-idf {ngrams}-gram LinearSVC, C={r['C']:g} (tuned on validation)"
        cells = [f"{r[k]:.4f}" for k in ("micro_f1", "precision_at_1", "precision_at_5")]
        seen_rows.append([label, *cells, "-", f"{r['seconds']:.0f} (whole grid)"])
    if seen_rows:
        out += [
            "Seen labels (90), 3,019 test documents"
            + (f"; networks: mean ± sample std over {seeds} initialisation seeds, same split" if seeds > 1 else ""),
            "",
            markdown_table(["model", "micro-F1", "P@1", "P@5", "epochs (best)", "train s"], seen_rows),
            "",
        ]
    zs = results.get("zero_shot", {})
    if "random" in zs:
        rows = []
        for k in ZERO_SHOT_HEADS + blended_names(zs) + UNTRAINED_SCORERS + ("random",):
            if k in zs:
                r = zs[k]
                seen_f1 = _cell(r, "seen_micro_f1") if "seen_micro_f1" in r else "-"
                name = ZERO_SHOT_ROWS.get(k, f"{k} head")
                if k.endswith("+tfidf_match"):
                    weight = mean_pm_std(r["weight"], r.get("weight_std"), digits=2)
                    name = f"{k.split('+')[0]} head blended with tf-idf cosine (weight {weight}, chosen on seen labels)"
                rows.append([name, *(_cell(r, m) for m in RANKING_METRICS), seen_f1])
        out += [
            f"Zero-shot, {len(zs['split']['unseen_labels'])} held-out labels, {zs['random']['documents']} test "
            "documents carrying one (lower is better for ranking loss and one-error; learned heads: mean ± sample "
            f"std over {seeds} seeds)",
            "",
            markdown_table(["scorer", "ranking loss", "avg precision", "one-error", "seen-label micro-F1"], rows),
            "",
        ]
    if "jit" in results:
        j = results["jit"]
        step = j["seconds_per_step"]["wall"]
        out.append(
            f"GILE-HAN training step: {step['jit']:.3f} s with `jit_compile=True`, {step['no_jit']:.3f} s without "
            f"(wall); no-XLA / XLA ratio {j['ratio']:.2f} from {j['clock']} (wall {j['wall_ratio']:.2f}, "
            f"CPU {j['cpu_ratio']:.2f}; round-robin, compilation excluded)."
        )
    return "\n".join(out).strip()


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    setup = Setup(args)
    parts = set(args.parts.split(","))
    results = {"seen": {}, "zero_shot": {}}
    if "svm" in parts:
        print("\n== tf-idf LinearSVC, C and n-grams tuned on validation ==", flush=True)
        results["svm"] = run_svm(setup, setup.data.validation_split(args.validation_fraction, seed=args.seed))
        print(results["svm"], flush=True)

    # The report is rewritten after each part, so an interrupted run keeps what it measured.
    def save():
        results["word_vectors"] = {
            "source": args.word_vectors,
            "fine_tune": args.fine_tune_word_vectors,
            "coverage": setup.coverage,
        }
        return write_report(
            args.output,
            "reuters21578 ModApte-90",
            "benchmarks.reuters",
            args,
            argv,
            results,
            summary(results),
            table(results),
            start,
            rows=rows,
        )

    for part, run in (("seen", run_seen), ("zeroshot", run_zero_shot), ("jit", run_jit_ratio)):
        save()
        if part in parts:
            run(setup, results)
    report = save()
    print("\n" + table(results) + f"\n\nWall time {report['wall_seconds']:.0f} s. Results: {args.output}")


# The word vectors a run's networks start from, as its rows name them.
ROW_VECTORS = {
    ("ppmi", "all"): "PPMI-SVD vectors of the training text",
    ("glove50", "documents"): "GloVe 50-d, label side frozen",
}
LINK = "[reuters](pages/reuters.md)"


def rows(report):
    """GILE-HAN on the seen labels against the linear head and the SVM (the noise rule paired by seed), and the
    best learned zero-shot scorer against untrained matching."""
    config, s = report["config"], report["summary"]
    source, fine_tune = config.get("word_vectors", "ppmi"), config.get("fine_tune_word_vectors", "all")
    vectors = ROW_VECTORS.get((source, fine_tune), f"{source} vectors, fine-tuned: {fine_tune}")
    out = []
    if "gile_han_micro_f1" in s and "han_linear_micro_f1" in s:
        out.append(seen_row(s, vectors, report["results"].get("seen")))
    if "zeroshot_avgpr" in s:
        out.append(zero_shot_row(s, vectors))
    return out


def seen_row(s, vectors, seen=None):
    """`seen`: the run's per-model results with their per-seed runs (the tuned SVM is one deterministic run)."""
    gile, gile_std = s["gile_han_micro_f1"], s.get("gile_han_micro_f1_std")
    linear, linear_std = s["han_linear_micro_f1"], s.get("han_linear_micro_f1_std")
    per_seed = [
        {r["seed"]: r["micro_f1"] for r in (seen or {}).get(m, {}).get("seeds", [])} for m in ("gile_han", "han_linear")
    ]
    common = sorted(set(per_seed[0]) & set(per_seed[1]))
    if len(common) >= 2:  # the noise rule, paired by seed; the SVM is one deterministic run
        gile_runs = [per_seed[0][k] for k in common]
        level = level_with(gile_runs, [per_seed[1][k] for k in common])
        above_svm = paired_comparison(gile_runs, [s["svm_micro_f1"]] * len(common))["met"]
    else:
        level, above_svm = gile >= linear, gile > s["svm_micro_f1"]
    return claim(
        f"Reuters-21578, 90 seen labels: micro-F1 ({vectors})",
        f"GILE-HAN {mean_pm_std(gile, gile_std)}",
        f"tuned tf-idf SVM {s['svm_micro_f1']:.4f}; HAN + linear head {mean_pm_std(linear, linear_std)}",
        "HAN 0.852, SVM 0.861 (CNLE Table 4)",
        "GILE-HAN level with the linear head and above the SVM (noise rule over seeds): "
        + met(level and above_svm)
        + f" (level: {'yes' if level else 'no'}; above the SVM: {'yes' if above_svm else 'no'})",
        LINK,
        f"Reuters-21578, 90 seen labels: micro-F1 of GILE-HAN ({vectors.split()[0]})",
    )


def zero_shot_row(s, vectors):
    avgpr, std = s["zeroshot_avgpr"], s["zeroshot_avgpr_std"]
    learned = max((k for k in avgpr if k not in ("tfidf_match", "embedding_cosine", "random")), key=avgpr.get)
    name = f"{learned} head" if "+" not in learned else f"{learned.split('+')[0]} head + tf-idf blend"
    untrained = max((k for k in avgpr if k in ("tfidf_match", "embedding_cosine")), key=avgpr.get)
    return claim(
        f"Reuters-21578, 18 unseen labels: average precision ({vectors})",
        f"{name} {mean_pm_std(avgpr[learned], std.get(learned))}",
        f"untrained {untrained} {avgpr[untrained]:.4f}; random {avgpr['random']:.4f}",
        "-",
        "best learned scorer above untrained word matching: " + met(avgpr[learned] > avgpr[untrained]),
        LINK,
    )


if __name__ == "__main__":
    main()
