"""Zero-shot report tables: scorers split by split and paired verdicts (no TensorFlow: GPU runs use them)."""

import numpy as np

from benchmarks.noise_rule import paired_comparison
from benchmarks.seeds import mean_std
from benchmarks.tables import claim, markdown_table, mean_pm_std, met


def scorer_rows(avgpr):
    """Table rows: each scorer's average precision, mean ± sd and split by split."""
    return [[s, mean_pm_std(*mean_std(v)), " ".join(f"{x:.3f}" for x in v)] for s, v in avgpr.items()]


def verdict_table(comparisons):
    """The Markdown table of `{"ours vs baseline": paired_comparison(...)}`."""
    rows = [
        [pair, f"{c['mean_gain']:+.4f} ± {c['std_gain']:.4f}", f"{c['p_value']:.3g}",
         f"{c['positive_splits']}/{c['splits']}", "met" if c["met"] else "not met"]
        for pair, c in comparisons.items()
    ]  # fmt: skip
    return markdown_table(["comparison", "mean paired gain ± sd", "p (one-sided)", "ahead on", "verdict"], rows)


def dataset_section(name, splits, avgpr, comparisons, more="", splits_are="zero-shot splits", counted="test"):
    """A dataset's part of the report: its scorers split by split and the verdicts; the title counts each split's
    `<counted>_documents` (`more`: said in the title too)."""
    documents = ", ".join(str(info[f"{counted}_documents"]) for _, info in splits)
    lines = [
        f"### {name}: {len(splits)} {splits_are} ({documents} {counted} documents{more})",
        "",
        markdown_table(["scorer", "unseen avg precision (mean ± sd)", "per split"], scorer_rows(avgpr)),
        "",
        verdict_table(comparisons),
    ]
    return "\n".join(lines)


DATASET_NAMES = {"reuters": "Reuters-21578", "aapd": "AAPD"}
# What a hybrid must beat: the untrained matchers, and each of its components alone where the run has it (the
# Reuters target). On AAPD the target asks for tf-idf and random alone; the Reuters bars are said beside it.
BARS = ("tfidf_match", "untrained_fusion", "embedding_cosine", "gile", "interaction")
AAPD_BARS = ("tfidf_match", "random")
# The untrained fusion of a hybrid's own components, where a run has it: whether training added anything (said
# beside the verdict, not one of the bars).
OWN_UNTRAINED = "untrained_sentence_fusion"
# The same hybrid with its encoder frozen, where a run trains the encoder too: whether that adds anything.
FROZEN = "hybrid_sentence"
LINK = "[zero-shot](pages/zero-shot.md)"


def fresh(first_split):
    """`, fresh splits` when the run's first split is past the exploration splits 0-9."""
    return ", fresh splits" if first_split >= 10 else ""


def hybrid_rows(report, hybrid, what, vectors="GloVe 50-d", brief=None):
    """A hybrid over many zero-shot splits against untrained matching and its components, by the noise rule, one
    row per dataset; `brief` names the hybrid in the index."""
    rows = []
    for dataset, splits in report["results"].items():
        avgpr = {
            name: [split["reports"][name]["label_ranking_average_precision"] for split in splits]
            for name in splits[0]["reports"]
        }
        bars = [b for b in BARS if b in avgpr] + [
            b for b in avgpr if b.startswith("component_") and b not in ("component_lexical", "component_embedding")
        ]
        versus = {b: paired_comparison(avgpr[hybrid], avgpr[b]) for b in bars}
        mean = {name: float(np.mean(values)) for name, values in avgpr.items()}
        missed = [b for b, c in versus.items() if not c["met"]]
        target = "above tf-idf, the fusion and each component alone"
        verdict = met(not missed) + ("" if not missed else f" (not above {', '.join(missed)})")
        if dataset == "aapd":  # the AAPD target, the Reuters bar's verdict beside it
            reached = all(paired_comparison(avgpr[hybrid], avgpr[b])["met"] for b in AAPD_BARS)
            target = "above tf-idf and random"
            verdict = f"{met(reached)}; as on Reuters, above the fusion and each component alone: {verdict}"
        trained = ""
        if OWN_UNTRAINED in avgpr:
            own = paired_comparison(avgpr[hybrid], avgpr[OWN_UNTRAINED])
            trained = (
                f"; its components' untrained fusion {mean[OWN_UNTRAINED]:.4f} (training "
                f"{'adds' if own['met'] else 'adds nothing'} under the rule: "
                f"{own['mean_gain']:+.3f}, p {own['p_value']:.2g})"
            )
        if FROZEN in avgpr and hybrid != FROZEN:
            frozen = paired_comparison(avgpr[hybrid], avgpr[FROZEN])
            trained += (
                f"; the same hybrid with the encoder frozen {mean[FROZEN]:.4f} (training the encoder "
                f"{'adds' if frozen['met'] else 'adds nothing'} under the rule: "
                f"{frozen['mean_gain']:+.3f}, p {frozen['p_value']:.2g})"
            )
        rows.append(
            claim(
                f"{DATASET_NAMES[dataset]}, {len(splits[0]['unseen_labels'])} unseen labels, {len(splits)} splits "
                f"(seeds {splits[0]['seed']}-{splits[-1]['seed']}): average precision of the {what} ({vectors})",
                f"{mean[hybrid]:.4f}",
                f"untrained tfidf_match {mean['tfidf_match']:.4f}; untrained fusion {mean['untrained_fusion']:.4f}"
                + "".join(f"; {b} {mean[b]:.4f}" for b in bars[2:])
                + trained,
                "-",
                f"{target} (noise rule; vs tf-idf "
                f"{versus['tfidf_match']['mean_gain']:+.3f}, p {versus['tfidf_match']['p_value']:.2g}): {verdict}",
                LINK,
                f"{DATASET_NAMES[dataset]}, {len(splits[0]['unseen_labels'])} unseen labels: average precision, "
                f"{brief or hybrid}",
            )
        )
    return rows
