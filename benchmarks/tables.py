"""Markdown tables and number formats shared by the benchmark reports."""


def markdown_table(header, rows):
    """A Markdown table from a header (list of str) and rows (lists of cells, formatted with `str`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def mean_pm_std(mean, std=None, digits=4):
    """`0.8173 ± 0.0057`, or the mean alone when there is no spread (a single run)."""
    text = f"{mean:.{digits}f}"
    return text if std is None else f"{text} ± {std:.{digits}f}"


def met(condition):
    """A verdict cell: `met` or a bold `**not met**`."""
    return "met" if condition else "**not met**"


def claim(task, ours, baseline, paper, verdict, link, brief=None, preset=None):
    """One claim of a results file, as the tables show it (stored in the file's `rows`).

    Args:
        task: what was measured, on what (`"Reuters-21578, 90 seen labels: micro-F1"`).
        ours: the library's number; baseline: the baselines of the same run.
        paper: the published number, or `"-"`.
        verdict: `"<target>: <met or not met>"`, decided by the noise rule where the run has seeds or splits.
        link: a Markdown link to the benchmark's page.
        brief: the task in a few words (the index's short form; default `task`).
        preset: the `LabelClassifier` preset the row measures, when it measures one (the README's recipes).
    """
    return {
        "task": task,
        "ours": ours,
        "baseline": baseline,
        "paper": paper,
        "verdict": verdict,
        "link": link,
        "brief": brief or task,
        "preset": preset,
    }
