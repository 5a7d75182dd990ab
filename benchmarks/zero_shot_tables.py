"""Zero-shot report tables: scorers split by split and paired verdicts (no TensorFlow: GPU runs use them)."""

from benchmarks.seeds import mean_std
from benchmarks.tables import markdown_table, mean_pm_std


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
