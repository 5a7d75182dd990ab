"""The common end of the search scripts in tuning/: the table of trials and the written, printed report."""

from benchmarks.report import write_report


def trial_table(tuner, score):
    """Every trial of `tuner`, best first: `{"hyperparameters": ..., score: trial score}` each.

    Hyperband's trials carry its bookkeeping in the values (`tuner/epochs`: epochs trained, `tuner/bracket`...).
    """
    return [
        {"hyperparameters": t.hyperparameters.values, score: t.score}
        for t in tuner.oracle.get_best_trials(num_trials=len(tuner.oracle.trials))
    ]


def report_search(args, argv, benchmark, module, results, summary, lines, start):
    """Writes `args.output` (JSON) and its `.md` with `write_report`, then prints `lines` and the wall time."""
    text = "\n".join(lines)
    report = write_report(args.output, benchmark, module, args, argv, results, summary, text, start)
    print(text + f"\n\nWall time {report['wall_seconds']:.0f} s. Results: {args.output}")
    return report
