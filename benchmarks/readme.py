"""Keeps the generated parts of the benchmark pages and the README in step with the results files.

Every results file (`benchmarks/results/*.json`, `tuning/results/*.json`) stores the rows its benchmark
contributes (`rows`, written by the benchmark's `rows(report)` when it ran); this script collects them from the
files it finds, with no list of benchmarks:

- `benchmarks/README.md`: the index, one line per claim of every results file, grouped by benchmark page;
- `benchmarks/pages/*.md`: each results table embedded between `<!-- results/NAME.md -->` and `<!-- /results -->`,
  and the searches' rows in `pages/searches.md`;
- `README.md`: the recipes, the rows that measure a `LabelClassifier` preset.

    python -m benchmarks.readme           # rewrites the generated parts
    python -m benchmarks.readme --check   # exits 1 if they differ from the results (the test suite checks this)
    python -m benchmarks.readme --rows    # first recomputes every file's rows with its module's rows() (imports
                                          # the benchmarks, TensorFlow included: after a change of a rows function)

Without `--rows` it runs in a second and needs no TensorFlow.
"""

import argparse
import importlib
import json
import re
import sys

from benchmarks.report import REPO, RESULTS
from benchmarks.tables import markdown_table

BENCHMARKS_README = REPO / "benchmarks" / "README.md"
PAGES = REPO / "benchmarks" / "pages"
TUNING_RESULTS = REPO / "tuning" / "results"
FRONT_PAGE = REPO / "README.md"
RESULTS_BLOCK = re.compile(r"(<!-- results/(?P<name>[\w.-]+\.md) -->\n)(?P<body>.*?)(<!-- /results -->)", re.S)
INDEX_BLOCK = re.compile(r"(<!-- index -->\n)(?P<body>.*?)(<!-- /index -->)", re.S)
RECIPES_BLOCK = re.compile(r"(<!-- recipes -->\n)(?P<body>.*?)(<!-- /recipes -->)", re.S)
SEARCH_BLOCK = re.compile(r"(<!-- searches -->\n)(?P<body>.*?)(<!-- /searches -->)", re.S)
HEADER = ["claim: measure", "ours against the baseline (same run)", "target", "met"]


def results_files():
    """`{path: report}` of every results JSON of the benchmarks and the searches, in name order."""
    paths = sorted(RESULTS.glob("*.json")) + sorted(TUNING_RESULTS.glob("*.json"))
    return {path: json.loads(path.read_text()) for path in paths}


def module_of(report):
    """The module a report's command ran: `python -m benchmarks.reuters ...` -> `benchmarks.reuters`."""
    return report["command"].split()[2]


def recompute_rows(report):
    """`rows(report)` of the report's module (None when the module has none); imports the module."""
    module = importlib.import_module(module_of(report))
    return module.rows(report) if hasattr(module, "rows") else None


def write_rows():
    """Stores each results file's rows as its module computes them today; returns the files that changed."""
    changed = []
    for path, report in results_files().items():
        rows = recompute_rows(report)
        if rows is not None and report.get("rows") != rows:
            report["rows"] = rows
            path.write_text(json.dumps(report, indent=2) + "\n")
            changed.append(path)
    return changed


def index_table(reports):
    """One line per claim of every benchmark results file, under the file (its tables) and its page."""
    lines = []
    for path, report in reports.items():
        if path.parent != RESULTS:
            continue
        for row in report.get("rows", []):
            lines.append([f"[{path.stem}](results/{path.stem}.md)", *four_columns(row)])
    return markdown_table(["results", *HEADER], lines)


def unclaimed(reports):
    """The benchmark results files with no claim row (measurements without a target), for the index."""
    return [p.stem for p, r in reports.items() if p.parent == RESULTS and not r.get("rows")]


def recipes_table(reports):
    """The README's recipes: each measured preset against the strongest baseline of the same run."""
    lines = []
    for report in reports.values():
        for row in report.get("rows", []):
            if row.get("preset"):
                link = row["link"].replace("](pages/", "](benchmarks/pages/")
                lines.append([f"`{row['preset']}`", f"{row['brief']} ({link})", *brief_columns(row)[1:]])
    return markdown_table(["preset", "task", "measured against the baseline (same run)", "target", "met"], lines)


def search_table(reports):
    """The searches: their best trial beside numbers of other runs (said in each row)."""
    rows = [r for path, report in reports.items() if path.parent == TUNING_RESULTS for r in report.get("rows", [])]
    header = ["search: measure", "best trial", "compared with (the run it comes from)", "target", "details"]
    return markdown_table(
        header, [[r["task"], r["ours"], r["baseline"], *r["verdict"].rsplit(": ", 1), r["link"]] for r in rows]
    )


def four_columns(row):
    """A claim row in four columns: task with its link, ours against the baselines, target (with the paper's
    number), verdict."""
    task, ours, baseline, paper, verdict, link = (
        row[k] for k in ("task", "ours", "baseline", "paper", "verdict", "link")
    )
    target, _, met = verdict.partition(": ")
    if not paper.startswith("-"):  # "-" or "- (not in the paper)": no paper number
        target += f" (paper: {paper})"
    return [f"{task} ({link})", f"{ours}; against {baseline}", target, met]


def brief_columns(row):
    """A claim row in the front page's four short cells: its brief task, our number and the first baseline's
    without their asides, the target without its rule, the verdict without its statistics."""
    ours, baseline, verdict, link, brief = (row[k] for k in ("ours", "baseline", "verdict", "link", "brief"))
    target, _, met = verdict.partition(": ")
    return [
        f"{brief} ({link})",
        f"{_first_clause(ours)} against {_first_clause(baseline)}",
        _without_asides(target),
        _first_clause(met),
    ]


def _first_clause(text):
    """`text` up to its first `; ` outside parentheses, without asides."""
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and text.startswith("; ", i):
            text = text[:i]
            break
    return _without_asides(text)


def _without_asides(text):
    """`text` without its parenthesised asides, nested ones included."""
    while True:
        shorter = re.sub(r"\s*\([^()]*\)", "", text)
        if shorter == text:
            return text.strip()
        text = shorter


def fill(text, block, body_of):
    return block.sub(lambda m: m.group(1) + body_of(m) + m.group(len(m.groups())), text)


def embedded(match):
    """A results table for a page in benchmarks/pages/: its images re-rooted at results/."""
    path = RESULTS / match.group("name")
    if not path.exists():
        raise FileNotFoundError(f"a benchmark page embeds {path.name}, which is not in benchmarks/results/")
    return re.sub(r"\]\((?!http|/|\.\./)([^)]+\.png)\)", r"](../results/\1)", path.read_text())


def generated():
    """`{path: text}` of every file with a generated part, rebuilt from the results."""
    out, reports = {}, results_files()  # each results file read once
    for page in sorted(PAGES.glob("*.md")):
        text = fill(page.read_text(), RESULTS_BLOCK, embedded)
        out[page] = fill(text, SEARCH_BLOCK, lambda m: search_table(reports) + "\n")
    index = (
        index_table(reports)
        + "\n\nMeasurements without a target (their tables only): "
        + ", ".join(f"[{name}](results/{name}.md)" for name in unclaimed(reports))
        + ".\n"
    )
    out[BENCHMARKS_README] = fill(BENCHMARKS_README.read_text(), INDEX_BLOCK, lambda m: index)
    out[FRONT_PAGE] = fill(FRONT_PAGE.read_text(), RECIPES_BLOCK, lambda m: recipes_table(reports) + "\n")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated part differs from the results")
    parser.add_argument("--rows", action="store_true", help="first recompute every results file's rows")
    args = parser.parse_args(argv)
    if args.rows:
        for path in write_rows():
            print(f"rows of {path.relative_to(REPO)} recomputed")
    stale = []
    for path, text in generated().items():
        if path.read_text() != text:
            stale.append(path.relative_to(REPO))
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print(f"out of date with benchmarks/results: {', '.join(map(str, stale))}; run python -m benchmarks.readme")
        return 1
    print("rewrote " + ", ".join(map(str, stale)) if stale else "up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
