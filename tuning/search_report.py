"""The common end of the search scripts in tuning/: the table of trials and the written, printed report."""

import json

from benchmarks.report import RESULTS, write_report


def trial_table(tuner, score):
    """Every trial of `tuner`, best first: `{"hyperparameters": ..., score: trial score}` each.

    Hyperband's trials carry its bookkeeping in the values (`tuner/epochs`: epochs trained, `tuner/bracket`...).
    """
    return [
        {"hyperparameters": t.hyperparameters.values, score: t.score}
        for t in tuner.oracle.get_best_trials(num_trials=len(tuner.oracle.trials))
    ]


def report_search(args, argv, benchmark, module, results, summary, lines, start, rows=None):
    """Writes `args.output` (JSON, with the search's `rows`) and its `.md` with `write_report`, then prints
    `lines` and the wall time."""
    text = "\n".join(lines)
    report = write_report(args.output, benchmark, module, args, argv, results, summary, text, start, rows=rows)
    print(text + f"\n\nWall time {report['wall_seconds']:.0f} s. Results: {args.output}")
    return report


def hyperparameters_text(values):
    """`depth 4, learning_rate 24.2`: a search's best configuration in a cell (Hyperband's bookkeeping,
    `tuner/...`, left out)."""
    return ", ".join(
        f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in values.items() if not k.startswith("tuner/")
    )


def benchmark_summary(name):
    """The `summary` of `benchmarks/results/<name>.json`, the benchmark a search is compared with, or None."""
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text())["summary"] if path.exists() else None
