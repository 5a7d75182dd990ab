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
