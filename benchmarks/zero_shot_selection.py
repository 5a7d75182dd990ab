"""Zero-shot with the scorer chosen on held-out seen labels: which of tf-idf, the fusion or a trained hybrid to use.

`benchmarks.zero_shot` trains every head with fixed settings. Here a user's choice is made the way
the test asks its question, without looking at the held-out labels (issue 24, section 3): on every
split of `benchmarks.zero_shot` (same seeds, vocabulary, vectors and encoder), a fraction of the
seen labels (as many as the split holds out, in proportion; Reuters: outside the 10 most frequent,
AAPD: outside the 5 most frequent; drawn with the split's seed among labels with a training
document) is held out again. Each candidate is fitted on the seen labels that remain, on the
training documents that carry none of the inner held-out labels, and scored on the inner held-out
labels over the training documents removed for carrying them (hundreds of documents on Reuters).
The candidate with the highest average precision there is retrained on all seen labels and scored
on the split's held-out labels.

Candidates: `tfidf_match` and `untrained_fusion` (untrained, so the selection may decline to
learn), and a `HybridHead` trained end to end with binary cross-entropy or listwise (softmax over
the labels towards the document's positives), over GILE + lexical match + word interaction or over
lexical match + word interaction. The candidate list, the inner split and the losses were fixed
after `benchmarks.zero_shot` had run AAPD splits 0-4 and Reuters splits 0-1 (whose test numbers
showed BCE-trained hybrids below tf-idf), and after a one-epoch check of this script on AAPD splits
0-1; the selection itself never sees a split's held-out labels.

Run time on 2 CPU cores: about 6 minutes per Reuters split, 1 per AAPD split.

    python -m benchmarks.zero_shot_selection
    python -m benchmarks.zero_shot_selection --datasets aapd --splits 2 --epochs 1   # a quick check

Writes benchmarks/results/zero_shot_selection.json and .md.
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from benchmarks.noise_rule import paired_comparison  # noqa: E402
from benchmarks.report import RESULTS  # noqa: E402
from benchmarks.seeds import mean_std  # noqa: E402
from benchmarks.tables import markdown_table, mean_pm_std  # noqa: E402
from benchmarks.zero_shot import DATASETS, Split, run_datasets, scorer_rows, split_info, untrained_scores, verdict_table  # noqa: E402
from keras_labelemb.evaluation import ranking_report  # noqa: E402
from keras_labelemb.models import set_labels  # noqa: E402

HYBRID = {"type": "hybrid", "components": [{"type": "gile", "joint_dim": 500}, "lexical", "interaction"]}
LEXICAL_INTERACTION = {"type": "hybrid", "components": ["lexical", "interaction"]}


def standardized(*components):
    return {"type": "hybrid", "components": list(components), "standardize": True}


# name -> (head spec, loss); None: untrained. In this order, so ties go to the untrained scorers.
CANDIDATE_SETS = {
    # The second attempt: hybrids over raw logits, BCE or listwise.
    "hybrids": {
        "tfidf_match": None,
        "untrained_fusion": None,
        "hybrid/bce": (HYBRID, "bce"),
        "hybrid/listwise": (HYBRID, "listwise"),
        "hybrid_lexical_interaction/bce": (LEXICAL_INTERACTION, "bce"),
        "hybrid_lexical_interaction/listwise": (LEXICAL_INTERACTION, "listwise"),
    },
    # The third: hybrids over standardised logits (`HybridHead(standardize=True)`), which start at the
    # untrained fusion (lexical + embedding match, weights 1) and add word interaction and GILE.
    "standardized": {
        "tfidf_match": None,
        "untrained_fusion": None,
        "fusion/listwise": (standardized("lexical", "embedding"), "listwise"),
        "fusion_interaction/listwise": (standardized("lexical", "embedding", "interaction"), "listwise"),
        "fusion_interaction/bce": (standardized("lexical", "embedding", "interaction"), "bce"),
        "fusion_interaction_gile/listwise": (
            standardized("lexical", "embedding", "interaction", {"type": "gile", "joint_dim": 500}),
            "listwise",
        ),
    },
}
INNER_EXCLUDE_TOP = {"reuters": 10, "aapd": 5}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", default="aapd,reuters", help=f"comma-separated, from {','.join(DATASETS)}")
    p.add_argument("--splits", type=int, default=None, help="splits per dataset (default: Reuters 10, AAPD 5)")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--candidates", default="hybrids", choices=tuple(CANDIDATE_SETS))
    p.add_argument("--inner-only", action="store_true", help="stop after the selection (no held-out label is read)")
    p.add_argument("--output", default=str(RESULTS / "zero_shot_selection.json"))
    return p.parse_args(argv)


def inner_held_out(targets, count, exclude_top, seed):
    """Positions of `count` seen labels to hold out again: drawn among labels with a training document,
    outside the `exclude_top` most frequent."""
    counts = targets.sum(axis=0)
    top = set(sorted(range(len(counts)), key=lambda j: (-counts[j], j))[:exclude_top])
    candidates = [j for j in range(len(counts)) if j not in top and counts[j] > 0]
    return sorted(np.random.RandomState(seed).choice(candidates, size=count, replace=False).tolist())


def candidate_scores(name, split, label_ids, fit_ids, fit_targets, fit_label_ids, ids, args, seed):
    """Scores of candidate `name` on `ids` over `label_ids`, fitted on (`fit_ids`, `fit_targets`) over
    `fit_label_ids` when it trains."""
    candidate = CANDIDATE_SETS[args.candidates][name]
    if candidate is None:
        return untrained_scores(split, fit_ids, label_ids, ids)[name]
    spec, loss = candidate
    model = split.train(spec, fit_label_ids, fit_ids, fit_targets, args, seed, loss)
    set_labels(model, label_ids)
    return model.predict(ids, batch_size=256, verbose=0)


def run_split(name, data, seed, args):
    split = Split(name, data, seed)
    seen_ids, targets = split.label_ids[split.seen], split.train_targets
    count = round(len(split.unseen) / data.num_labels * len(split.seen))
    inner = inner_held_out(targets, count, INNER_EXCLUDE_TOP[name], seed)
    inner_seen = [j for j in range(len(split.seen)) if j not in set(inner)]
    removed = targets[:, inner].sum(axis=1) > 0
    fit_ids, fit_targets = split.train_ids[~removed], targets[~removed][:, inner_seen]
    selection = {}
    candidates = CANDIDATE_SETS[args.candidates]
    for offset, candidate in enumerate(candidates):
        started = time.time()
        scores = candidate_scores(
            candidate, split, seen_ids[inner], fit_ids, fit_targets, seen_ids[inner_seen],
            split.train_ids[removed], args, 1000 * seed + 100 + offset,
        )  # fmt: skip
        report = ranking_report(targets[removed][:, inner], scores)
        selection[candidate] = report["label_ranking_average_precision"]
        print(f"{name} split {seed}: {candidate} on held-out seen labels {selection[candidate]:.4f} "
              f"({time.time() - started:.0f} s)", flush=True)  # fmt: skip
    chosen = max(candidates, key=lambda c: selection[c])  # first of equals: untrained before trained
    if args.inner_only:
        return None, {"selection": selection, "chosen": chosen}
    test = untrained_scores(split, split.train_ids, split.label_ids[split.unseen], split.test_ids)
    if chosen not in test:
        test[chosen] = candidate_scores(
            chosen, split, split.label_ids[split.unseen], split.train_ids, targets, seen_ids, split.test_ids,
            args, 1000 * seed + 200,
        )  # fmt: skip
    test["selected"] = test[chosen]
    reports = {scorer: ranking_report(split.y_true, value) for scorer, value in test.items()}
    print(name, seed, chosen, {k: round(v["label_ranking_average_precision"], 4) for k, v in reports.items()})
    info = split_info(split, data)
    info.update(
        inner_held_out_labels=len(inner), inner_documents=int(removed.sum()), selection=selection, chosen=chosen
    )
    return reports, info


def summarise(name, splits, candidates):
    scorers = ("tfidf_match", "embedding_cosine", "untrained_fusion", "selected")
    avgpr = {s: [reports[s]["label_ranking_average_precision"] for reports, _ in splits] for s in scorers}
    comparisons = {b: paired_comparison(avgpr["selected"], avgpr[b]) for b in ("tfidf_match", "untrained_fusion")}
    summary = {
        "splits": len(splits),
        "avgpr": {s: float(np.mean(v)) for s, v in avgpr.items()},
        "chosen": [info["chosen"] for _, info in splits],
        "selected_vs": comparisons,
    }
    inner_rows = [[c, mean_pm_std(*mean_std([info["selection"][c] for _, info in splits]))] for c in candidates]
    lines = [
        f"### {name}: {len(splits)} splits; chosen per split: {', '.join(summary['chosen'])}",
        "",
        markdown_table(["candidate", "held-out seen labels: avg precision (mean ± sd)"], inner_rows),
        "",
        markdown_table(["scorer", "unseen avg precision (mean ± sd)", "per split"], scorer_rows(avgpr)),
        "",
        verdict_table({f"selected vs {b}": c for b, c in comparisons.items()}),
    ]
    return summary, "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    header = (
        f"The scorer chosen per split on held-out seen labels; GloVe 6B 50-d, label side frozen; WAN encoder, "
        f"{args.epochs} epochs."
    )
    run_datasets(
        args,
        argv,
        run_split,
        lambda name, splits: summarise(name, splits, CANDIDATE_SETS[args.candidates]),
        "zero-shot, scorer chosen on held-out seen labels",
        "benchmarks.zero_shot_selection",
        header,
    )


if __name__ == "__main__":
    main()
