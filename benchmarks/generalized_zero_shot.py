"""Generalized zero-shot: every test document ranks all labels, seen and unseen together (issue 58, section 1).

The protocol, fixed in this docstring before the script produced a test number (2026-12-03):

- Splits: Reuters-21578 ModApte-90 and AAPD as `benchmarks.zero_shot` draws them (Reuters: 18 held-out labels
  outside the 10 most frequent; AAPD: 14 among labels with >= 5 test documents), with split seeds drawn once, after
  this protocol was written: **1000-1009** on both datasets (`--first-split 1000`). Each split's report gives the
  share of its held-out labels that some split of a results file in `benchmarks/results/` had already held out.
- Training documents: those carrying no held-out label (the seen labels left without one stay, scored but never
  trained). The idf of every lexical scorer comes from them. Test documents: every test document with a label.
- Scores: each scorer ranks all labels of a document; average precision (LRAP) over the seen labels (relevant: the
  document's seen labels, on documents that have one; unseen labels are negatives there), over the unseen labels
  (the same, the other way), over all labels, and the harmonic mean of the seen and unseen figures. Added with the
  second amendment, before its runs: pure zero-shot AP (the unseen labels ranked among themselves, on the
  documents carrying one), the candidate against `untrained_fusion` and `minilm_cosine` (issue 58's other target).
- Encoder: all-MiniLM-L6-v2 (mean-pooled, frozen; documents at 256 word pieces, descriptions at 64), outputs read
  from `benchmarks.encoded`'s cache.
- Scorers, untrained: `random` (exact expectation), `tfidf_word` (scikit-learn's word tf-idf cosine),
  `tfidf_wordpiece` and `bm25_wordpiece` (`LexicalMatchHead` over the word pieces), `minilm_cosine`
  (`SentenceMatchHead`) and `untrained_fusion` (`HybridHead([word-piece tf-idf, cosine], standardize=True)`).
- Trained on the seen labels (binary cross-entropy, Adam 1e-2, batch 64, `--epochs` 10, no early stopping):
  `linear` (a `LinearHead` over the frozen sentence vectors, bias at the label prior; unseen labels score below
  every seen one); `glued`: `linear` for the seen labels and the untrained fusion for the unseen, each z-scored over
  its own labels per document, the unseen ones shifted by `gamma` (calibrated stacking, Chao et al. 2016), `gamma`
  chosen on the inner split by harmonic mean from -4 to 4 in steps of 0.25 (ties to the shift nearest 0; widened by
  4 while the choice is at an edge, at most 5 times); `one_model`: the library's one head,
  `HybridHead([word-piece tf-idf, cosine, LinearHead], standardize=True)` trained end to end on the seen labels,
  which scores new labels from their descriptions (its `LinearHead` drops out for them) and needs no rule to be glued;
  `one_model_dropout`, the same with `per_label_dropout=0.25` (in training a quarter of the labels are scored as new
  ones, and the offset of labels scored without their `LinearHead` is learned). Amended on 2026-12-03, before a
  number of a split seed >= 1000 had been read (a run that had started was stopped): a check on AAPD splits 0-1 at
  one epoch showed `one_model` ranking new labels above seen ones. `one_model_dropout` is the library's candidate
  (the verdict rows); `one_model` is its ablation.
- Amended on 2026-12-03 (second session), after the verdict seeds of both datasets had been read for
  `one_model_dropout` (AAPD 10 splits: met; Reuters 8 splits: not met, new labels under-ranked): three used splits
  (AAPD 0-1, Reuters 0) were tried with two changes, both now library options: the listwise `LabelSoftmaxLoss`
  instead of binary cross-entropy (`one_model_listwise`, the `minilm_generalized` preset's loss), and the offset
  of new labels chosen on validation documents (`LabelClassifier.tune_new_label_offset`, which `fit` calls when
  given `validation_data`). **The candidate is now `one_model_calibrated`**: listwise, trained on four fifths of
  the kept training documents (drawn with the split's seed), the offset chosen on the last fifth by `fit`'s
  default (8 draws of a quarter of the labels with a validation document, scored as new). Its variant
  `one_model_calibrated_inner` chooses the offset on the same documents with the inner split's held-out labels
  as the new ones. `one_model_dropout` stays as the ablation (its seeds as before, so its numbers repeat);
  `one_model` without dropout (AAPD harmonic 0.3164 over seeds 1000-1009) is no longer run. Because the change
  was made after reading these seeds, the verdict that counts is on **20 Newsgroups** (`--datasets newsgroups`,
  never used for zero-shot before: 5 of the 20 newsgroups held out, any of them; split seeds 1000-1009; inner
  split over every seen label), run once, after this paragraph was written; Reuters and AAPD are rerun on the
  same seeds 1000-1009 and say so.
- Selection data (for `gamma`, and for the inner variant's offset): the split's seen labels are split again
  (`benchmarks.zero_shot.Split.inner`'s rule: as many seen labels held out, in proportion, outside the most
  frequent), the kept training documents that carry one of them plus a fifth of the others (drawn with the
  split's seed) are its test documents, the rest its training documents. No unseen label and no test document
  is read by the selection.
- Verdicts: `benchmarks.noise_rule.paired_comparison` over the 10 splits: the candidate against `glued` in
  harmonic mean, and against `untrained_fusion` on unseen labels (level: `noise_rule.level_with`).

Run time on 2 CPU cores, after the encoder's cache exists: about a minute per split.

    python -m benchmarks.generalized_zero_shot
    python -m benchmarks.generalized_zero_shot --quick --first-split 0   # a check on an old split

Writes benchmarks/results/generalized_zero_shot.json and .md.
"""

import glob
import json
import os
import pathlib
import time

import keras
import numpy as np
from keras import ops
from sklearn.metrics import label_ranking_average_precision_score

from benchmarks.baselines import random_ranking_expectation, tfidf_match_scores
from benchmarks.noise_rule import level_with, paired_comparison
from benchmarks.report import results_header
from benchmarks.seeds import mean_std
from benchmarks.sentence_hybrid import DOCUMENT_PIECES, dataset_state, head_scores, sentence_hybrid
from benchmarks.tables import claim, markdown_table, mean_pm_std, met
from benchmarks.zero_shot import DATASETS, common_arguments, inner_held_out, run_datasets, split_labels
from keras_labelemb.layers import HybridHead, LexicalMatchHead, LinearHead, SentenceMatchHead
from keras_labelemb.layers.hybrid_head import standardize_over_labels
from keras_labelemb.layers.label_head import prior_bias
from keras_labelemb.losses import LabelSoftmaxLoss
from keras_labelemb.tasks import LabelClassifier

# The scorers that need no training; the strongest of them in harmonic mean is a bar beside the glued pair.
UNTRAINED = ("tfidf_word", "tfidf_wordpiece", "bm25_wordpiece", "minilm_cosine", "untrained_fusion")
GAMMAS = np.arange(-4.0, 4.001, 0.25)
NAMES = {"reuters": "Reuters-21578", "aapd": "AAPD", "newsgroups": "20 Newsgroups"}
PARTS = ("seen", "unseen", "all", "harmonic", "zero_shot")
LINK = "[generalized zero-shot](pages/generalized-zero-shot.md)"


def parse_args(argv=None):
    p = common_arguments(__doc__, "generalized_zero_shot.json")
    p.set_defaults(first_split=1000, splits=10, epochs=10)
    p.quick = {"splits": 2, "epochs": 1}  # the noise rule needs two splits
    return p.parse_args(argv)


def generalized(y_true, scores, seen):
    """`{"seen", "unseen", "all", "harmonic"}` average precision of `scores` `(N, L)` ranking all labels."""
    mask = np.zeros(y_true.shape[1], bool)
    mask[seen] = True

    def ap(relevant):
        keep = relevant.sum(axis=1) > 0
        return float(label_ranking_average_precision_score(relevant[keep], scores[keep]))

    out = {"seen": ap(y_true * mask), "unseen": ap(y_true * ~mask), "all": ap(y_true)}
    out["harmonic"] = harmonic(out["seen"], out["unseen"])
    out["zero_shot"] = float(_zero_shot(y_true, scores, ~mask))
    return out


def _zero_shot(y_true, scores, unseen):
    """Pure zero-shot: the unseen labels ranked among themselves, on the documents carrying one."""
    relevant, kept = y_true[:, unseen], scores[:, unseen]
    keep = relevant.sum(axis=1) > 0
    return label_ranking_average_precision_score(relevant[keep], kept[keep])


def harmonic(a, b):
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


def random_generalized(y_true, seen):
    mask = np.zeros(y_true.shape[1], bool)
    mask[seen] = True
    out = {
        "seen": random_ranking_expectation(y_true * mask)["label_ranking_average_precision"],
        "unseen": random_ranking_expectation(y_true * ~mask)["label_ranking_average_precision"],
        "all": random_ranking_expectation(y_true)["label_ranking_average_precision"],
    }
    unseen = y_true[:, ~mask]
    out["zero_shot"] = random_ranking_expectation(unseen[unseen.sum(axis=1) > 0])["label_ranking_average_precision"]
    out["harmonic"] = harmonic(out["seen"], out["unseen"])
    return out


def glue(seen_logits, fusion, seen, gamma):
    """All-label scores: z-scored `seen_logits` `(N, S)` at the seen columns, the z-scored untrained `fusion`
    `(N, L)` of the other columns plus `gamma` at theirs."""
    unseen = np.setdiff1d(np.arange(fusion.shape[1]), seen)
    out = np.empty_like(fusion)
    out[:, seen] = np.asarray(standardize_over_labels(seen_logits))
    out[:, unseen] = np.asarray(standardize_over_labels(fusion[:, unseen])) + gamma
    return out


def choose_gamma(y_true, seen_logits, fusion, seen, widenings=5):
    """The shift with the best harmonic mean on selection data, from `GAMMAS`; ties go to the shift nearest 0.

    A choice at an edge of the grid widens it by 4 on that side, at most `widenings` times.
    """
    low, high = float(GAMMAS.min()), float(GAMMAS.max())
    curve = {}
    for _ in range(widenings + 1):
        for g in np.arange(low, high + 0.001, 0.25):
            g = round(float(g), 2)
            if g not in curve:
                curve[g] = generalized(y_true, glue(seen_logits, fusion, seen, g), seen)["harmonic"]
        top = max(curve.values())
        best = min((g for g, value in curve.items() if value == top), key=lambda g: (abs(g), g))
        if low < best < high:
            break
        low, high = (low - 4, high) if best == low else (low, high + 4)
    return best, dict(sorted(curve.items()))


def linear_model(dim, num_labels, seed):
    keras.utils.set_random_seed(seed)
    pooled = keras.Input((dim,), name="pooled")
    return keras.Model(pooled, LinearHead(num_labels, bias_initializer=prior_bias(num_labels))(pooled))


def fit(model, x, y, args):
    model.compile(keras.optimizers.Adam(1e-2), keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(x, y, epochs=args.epochs, batch_size=args.batch_size, verbose=0)
    return model


CANDIDATE = "one_model_calibrated"


def one_model(state, pieces, seen, train, targets, args, seed, per_label_dropout=0.0, loss=None, validation=None):
    """The library's one head over the frozen encoder's outputs, trained on the `seen` labels; as a classifier.

    With `validation` (documents, targets), `fit` chooses the offset of new labels on it
    (`LabelClassifier.tune_new_label_offset`, its default draws)."""
    keras.utils.set_random_seed(seed)
    encoder = state["encoder"]
    components = [
        LexicalMatchHead(encoder, ignored_ids=state["ignored_ids"], name="wordpiece_lexical"),
        SentenceMatchHead(encoder, name="sentence"),
        LinearHead(len(seen), bias_initializer=prior_bias(len(seen)), name="linear"),
    ]
    head = HybridHead(components, label_ids=pieces[seen], standardize=True, per_label_dropout=per_label_dropout)
    inputs = {
        "pooled": keras.Input((encoder.output_dim,), name="pooled"),
        "token_ids": keras.Input((DOCUMENT_PIECES,), dtype="int32", name="token_ids"),
    }
    model = keras.Model(inputs, head(inputs))
    head.adapt(train["token_ids"])
    classifier = LabelClassifier.from_model(model, labels=label_names(seen))
    loss = keras.losses.BinaryCrossentropy(from_logits=True) if loss is None else loss
    classifier.compile(keras.optimizers.Adam(1e-2), loss, metrics=[])
    classifier.fit(
        train, targets, epochs=args.epochs, batch_size=args.batch_size, verbose=0, validation_data=validation
    )
    return classifier


def label_names(columns):
    return [f"label_{j}" for j in columns]


def all_label_scores(classifier, pieces, test, offset=None):
    """The classifier's scores of `test` over every label (`pieces`: all descriptions), at `offset` if given."""
    classifier.set_labels(label_names(range(len(pieces))), label_ids=pieces)
    if offset is not None:
        classifier.head.unseen_offset.assign(offset)
    return head_scores(classifier.head, test)["total"]


def untrained(state, pieces, train_ids, documents):
    """`tfidf_wordpiece`, `minilm_cosine`, `untrained_fusion` and `bm25_wordpiece` of `documents` over all labels."""
    model = sentence_hybrid(state["encoder"], state["ignored_ids"], pieces, train_ids)
    parts = head_scores(model.layers[-1], documents)
    bm25 = LexicalMatchHead(state["encoder"], label_ids=pieces, ignored_ids=state["ignored_ids"], weighting="bm25")
    bm25.build({"token_ids": (None, DOCUMENT_PIECES)})
    bm25.adapt(train_ids)
    scores = np.concatenate(
        [
            np.asarray(bm25({"token_ids": documents["token_ids"][i : i + 256]}))
            for i in range(0, len(documents["token_ids"]), 256)
        ]
    )
    return {
        "tfidf_wordpiece": parts["wordpiece_lexical"],
        "minilm_cosine": parts["sentence"],
        "untrained_fusion": parts["total"],
        "bm25_wordpiece": scores,
    }


def previously_held_out(name, data):
    """Every label some split of a results file held out, on dataset `name` (its seeds redrawn)."""
    seeds = set()
    for path in glob.glob(os.path.join(os.path.dirname(__file__), "results", "*.json")):
        with open(path) as f:
            results = json.load(f).get("results")
        for entry in results.get(name, []) if isinstance(results, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("seed"), int) and "unseen_labels" in entry:
                seeds.add(entry["seed"])
    return {j for seed in seeds for j in split_labels(name, data, seed)[1]}, sorted(seeds)


def split_documents(data, seen, unseen, encoded):
    targets = data.multi_hot("train")
    keep = targets[:, unseen].sum(axis=1) == 0
    train_texts = [t for t, k in zip(data.train_texts, keep) if k]
    test_targets = data.multi_hot("test")
    carrying = test_targets.sum(axis=1) > 0
    test_texts = [t for t, k in zip(data.test_texts, carrying) if k]
    return (
        encoded.documents(train_texts), targets[keep][:, seen], encoded.documents(test_texts), test_targets[carrying],
        train_texts, test_texts,
    )  # fmt: skip


def inner_count(pieces, seen):
    """How many seen labels the inner split holds out: as many, in proportion, as the split does."""
    return max(1, round((len(pieces) - len(seen)) / len(pieces) * len(seen)))


def selection_gamma(name, state, pieces, seen, train, train_targets, args, seed):
    """`gamma` chosen on the inner split of the seen labels (positions in `seen`)."""
    held = inner_held_out(train_targets, inner_count(pieces, seen), DATASETS[name]["inner_exclude_top"], seed)
    inner_seen = [j for j in range(len(seen)) if j not in set(held)]
    carrying = train_targets[:, held].sum(axis=1) > 0
    sample = np.random.RandomState(seed).rand(len(carrying)) < 0.2
    evaluate, fit_rows = carrying | sample, ~(carrying | sample)
    rows = lambda docs, r: {k: v[r] for k, v in docs.items()}  # noqa: E731
    model = fit(
        linear_model(state["encoder"].output_dim, len(inner_seen), 7 * seed),
        train["pooled"][fit_rows],
        train_targets[fit_rows][:, inner_seen],
        args,
    )
    documents = rows(train, evaluate)
    logits = model.predict(documents["pooled"], batch_size=256, verbose=0)
    fusion = untrained(state, pieces[seen], train["token_ids"][fit_rows], documents)["untrained_fusion"]
    return choose_gamma(train_targets[evaluate], logits, fusion, inner_seen)


def run_split(name, data, seed, args, state):
    seen, unseen = split_labels(name, data, seed)
    pieces = state["descriptions"]
    train, train_targets, test, y_true, kept_texts, test_texts = split_documents(data, seen, unseen, state["encoded"])
    started = time.time()
    scores = untrained(state, pieces, train["token_ids"], test)
    scores["tfidf_word"] = tfidf_match_scores(kept_texts, test_texts, list(data.label_descriptions))
    linear = fit(
        linear_model(state["encoder"].output_dim, len(seen), 1000 * seed), train["pooled"], train_targets, args
    )
    seen_logits = linear.predict(test["pooled"], batch_size=256, verbose=0)
    only = np.full(y_true.shape, seen_logits.min() - 1.0, "float32")
    only[:, seen] = seen_logits
    scores["linear"] = only
    gamma, curve = selection_gamma(name, state, pieces, seen, train, train_targets, args, seed)
    scores["glued"] = glue(seen_logits, scores["untrained_fusion"], seen, gamma)
    # The one head, trained with per-label dropout: binary cross-entropy (the first candidate), listwise
    # (LabelSoftmaxLoss, the preset's loss), and listwise on four fifths with the offset of new labels chosen on
    # the last fifth (the candidate): by `fit`'s default draws, and on the inner split's held-out labels.
    for scorer, loss, seed_offset in (("one_model_dropout", None, 2), ("one_model_listwise", LabelSoftmaxLoss(), 3)):
        model = one_model(state, pieces, seen, train, train_targets, args, 1000 * seed + seed_offset, 0.25, loss)
        scores[scorer] = all_label_scores(model, pieces, test)
    val = np.random.RandomState(seed).rand(len(train_targets)) < 0.2
    part = lambda r: {k: v[r] for k, v in train.items()}  # noqa: E731
    validation = (part(val), train_targets[val])
    model = one_model(
        state, pieces, seen, part(~val), train_targets[~val], args, 1000 * seed + 4, 0.25, LabelSoftmaxLoss(),
        validation,
    )  # fmt: skip
    drawn = float(ops.convert_to_numpy(model.head.unseen_offset))
    held = inner_held_out(train_targets, inner_count(pieces, seen), DATASETS[name]["inner_exclude_top"], seed)
    inner = model.tune_new_label_offset(*validation, new_labels=label_names(np.asarray(seen)[held]))
    scores[CANDIDATE] = all_label_scores(model, pieces, test, drawn)
    scores["one_model_calibrated_inner"] = all_label_scores(model, pieces, test, inner)
    reports = {"random": random_generalized(y_true, seen)}
    reports.update({scorer: generalized(y_true, value, seen) for scorer, value in scores.items()})
    if "before" not in state:
        state["before"] = previously_held_out(name, data)[0]
    before = state["before"]
    print(
        f"{name} split {seed} ({time.time() - started:.0f} s, gamma {gamma}):",
        {k: round(v["harmonic"], 4) for k, v in reports.items()},
        flush=True,
    )
    info = {
        "seed": seed,
        "unseen_labels": [data.label_names[j] for j in unseen],
        "held_out_before": round(len(set(unseen) & before) / len(unseen), 3),
        "train_documents": len(train_targets),
        "test_documents": len(y_true),
        "gamma": gamma,
        "gamma_curve": curve,
        "new_label_offsets": {"chosen_on_draws": drawn, "chosen_on_inner_labels": inner},
    }
    return reports, info


def summarise(name, splits):
    scorers = list(splits[0][0])
    values = {part: {s: [reports[s][part] for reports, _ in splits] for s in scorers} for part in PARTS}
    summary = {"splits": len(splits)}
    for part, key in zip(PARTS, ("seen_avgpr", "unseen_avgpr", "all_avgpr", "harmonic", "zero_shot_avgpr")):
        summary[key] = {s: float(np.mean(v)) for s, v in values[part].items()}
    keys = ("mean_gain", "p_value", "positive_splits", "met")
    ours = CANDIDATE
    summary["best"] = ours
    summary["best_vs_glued"] = {
        k: paired_comparison(values["harmonic"][ours], values["harmonic"]["glued"])[k] for k in keys
    }
    summary["best_vs_untrained_fusion"] = {
        k: paired_comparison(values["unseen"][ours], values["unseen"]["untrained_fusion"])[k] for k in keys
    }
    summary["unseen_level_with_fusion"] = bool(level_with(values["unseen"][ours], values["unseen"]["untrained_fusion"]))
    # Pure zero-shot (new labels ranked among themselves): the trained head against its encoder untrained.
    for bar in ("untrained_fusion", "minilm_cosine"):
        summary[f"zero_shot_vs_{bar}"] = {
            k: paired_comparison(values["zero_shot"][ours], values["zero_shot"][bar])[k] for k in keys
        }
    # Chosen by test mean, which only raises the bar: the untrained scorer a user would have done best with.
    strongest = max(UNTRAINED, key=lambda u: summary["harmonic"][u])
    summary["best_vs_strongest_untrained"] = dict(
        {k: paired_comparison(values["harmonic"][ours], values["harmonic"][strongest])[k] for k in keys},
        scorer=strongest,
    )
    overlap = [info["held_out_before"] for _, info in splits]
    table = markdown_table(
        ["scorer", "seen AP", "unseen AP", "all AP", "harmonic", "zero-shot AP (new labels only)"],
        [[s] + [mean_pm_std(*mean_std(values[p][s])) for p in PARTS] for s in scorers],
    )
    gain = summary["best_vs_glued"]
    fusion = summary["best_vs_untrained_fusion"]
    top = summary["best_vs_strongest_untrained"]
    zs_fusion, zs_cosine = summary["zero_shot_vs_untrained_fusion"], summary["zero_shot_vs_minilm_cosine"]
    text = (
        f"### {name}: {len(splits)} splits (seeds {splits[0][1]['seed']}-{splits[-1][1]['seed']}); held-out labels "
        f"already held out by an earlier split: {np.mean(overlap):.0%} on average\n\n{table}\n\n"
        f"{ours} - glued, harmonic: {gain['mean_gain']:+.4f}, p {gain['p_value']:.3f}, ahead on "
        f"{gain['positive_splits']}: {met(gain['met'])}. {ours} - untrained_fusion, unseen: "
        f"{fusion['mean_gain']:+.4f}, p {fusion['p_value']:.3f}, ahead on {fusion['positive_splits']}; level: "
        f"{met(summary['unseen_level_with_fusion'])}. {ours} - {strongest} (the strongest untrained scorer in harmonic "
        f"mean), harmonic: {top['mean_gain']:+.4f}, p {top['p_value']:.3f}, ahead on {top['positive_splits']}: "
        f"{met(top['met'])}. Pure zero-shot (new labels ranked among themselves): {ours} - untrained_fusion "
        f"{zs_fusion['mean_gain']:+.4f}, p {zs_fusion['p_value']:.3f}, ahead on {zs_fusion['positive_splits']}: "
        f"{met(zs_fusion['met'])}; {ours} - minilm_cosine {zs_cosine['mean_gain']:+.4f}, p {zs_cosine['p_value']:.3f}, "
        f"ahead on {zs_cosine['positive_splits']}: {met(zs_cosine['met'])}. gamma per split: "
        f"{[info['gamma'] for _, info in splits]}"
    )
    return summary, text


def rows(report):
    """The one model against the glued pair (harmonic mean) and the untrained fusion (unseen labels)."""
    out = []
    for name, s in report["summary"].items():
        g, bar = s["best_vs_glued"], s["best_vs_strongest_untrained"]
        out.append(
            claim(
                f"{NAMES[name]}, generalized zero-shot ({s['splits']} new split seeds; new labels ranked among the "
                "seen): harmonic mean of seen and unseen AP",
                "one hybrid head (per-label dropout, listwise, new-label offset on validation) "
                f"{s['harmonic'][CANDIDATE]:.4f}",
                f"glued LinearHead + untrained fusion {s['harmonic']['glued']:.4f}; strongest untrained "
                f"({bar['scorer']}) {s['harmonic'][bar['scorer']]:.4f}",
                "-",
                f"above glued: {met(g['met'])} ({g['mean_gain']:+.4f}, p {g['p_value']:.3f}); above the strongest "
                f"untrained: {met(bar['met'])}",
                LINK,
                brief=f"{NAMES[name]} generalized zero-shot",
            )
        )
        fusion, cosine = s["zero_shot_vs_untrained_fusion"], s["zero_shot_vs_minilm_cosine"]
        out.append(
            claim(
                f"{NAMES[name]}, pure zero-shot ({s['splits']} split seeds; new labels ranked among themselves): AP",
                f"the same head, trained on the seen labels {s['zero_shot_avgpr'][CANDIDATE]:.4f}",
                f"its encoder untrained: fusion {s['zero_shot_avgpr']['untrained_fusion']:.4f}, MiniLM cosine "
                f"{s['zero_shot_avgpr']['minilm_cosine']:.4f}",
                "-",
                f"above the fusion: {met(fusion['met'])} ({fusion['mean_gain']:+.4f}); above the cosine: "
                f"{met(cosine['met'])} ({cosine['mean_gain']:+.4f})",
                LINK,
                brief=f"{NAMES[name]} pure zero-shot, trained head",
            )
        )
    return out


def merge(paths, output):
    """One report from the runs `paths` (chunks of splits, e.g. two at a time on 2 cores): the splits of each
    dataset in seed order, summarised again, the commands and wall times of every chunk.

        python -m benchmarks.generalized_zero_shot --merge a.json b.json --output generalized_zero_shot.json
    """
    reports = [json.load(open(path)) for path in paths]
    versions = sorted({r["code_version"] for r in reports})  # the chunks may start from later commits: all listed
    results, summary, tables = {}, {}, []
    for name in DATASETS:
        entries = sorted((e for r in reports for e in r["results"].get(name, [])), key=lambda e: e["seed"])
        if not entries:
            continue
        splits = [(e["reports"], {k: v for k, v in e.items() if k != "reports"}) for e in entries]
        summary[name], table = summarise(name, splits)
        results[name] = entries
        tables.append(table)
    # `code_version` is the first chunk's (one commit, as every report has); `code_versions` lists every chunk's.
    merged = dict(reports[0], results=results, summary=summary, code_versions=versions)
    merged["command"] = "; ".join(r["command"] for r in reports)
    merged["wall_seconds"] = round(sum(r["wall_seconds"] for r in reports), 1)
    merged["rows"] = rows(merged)
    output = pathlib.Path(output)
    output.write_text(json.dumps(merged, indent=2) + "\n")
    header = results_header(merged)  # the chunks' commands, joined by "; "
    text = "\n\n".join([header, *tables])
    output.with_suffix(".md").write_text(text + "\n")
    print(text)


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--merge":
        *paths, flag, output = argv[1:]
        if flag != "--output":
            raise SystemExit("usage: --merge A.json B.json ... --output MERGED.json")
        return merge(paths, output)
    from keras_labelemb.layers import SentenceEncoder
    from keras_labelemb.text import load_minilm

    args = parse_args(argv)
    backbone, vectorizer = load_minilm(sequence_length=DOCUMENT_PIECES)
    encoder = SentenceEncoder(backbone)
    datasets = {}

    def per_dataset(name, data, seed, args):
        if name not in datasets:
            datasets[name] = dataset_state(encoder, vectorizer, data)
        return run_split(name, data, seed, args, datasets[name])

    header = (
        "Generalized zero-shot: every test document ranks all labels. all-MiniLM-L6-v2 frozen; trained scorers "
        f"{args.epochs} epochs on the seen labels; average precision over seen, unseen and all labels."
    )
    run_datasets(
        args, argv, per_dataset, summarise, "generalized zero-shot", "benchmarks.generalized_zero_shot", header,
        rows=rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
