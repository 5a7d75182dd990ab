"""The one noise rule that decides whether a paired comparison over splits or seeds is "met" (benchmarks/README.md).

A method beats a baseline when, over the same splits (or seeds), the mean paired
difference is positive with a one-sided paired t-test p < 0.05, and the method
is ahead on a clear majority (at least two thirds) of them. It is level with a
baseline when the baseline does not beat it by the same rule. A single run has
no noise estimate: the tables say so and compare the numbers as they are.
"""

import math

import numpy as np
from scipy import stats

ALPHA = 0.05
MAJORITY = 2 / 3


def paired_comparison(ours, baseline):
    """`{"mean_gain", "std_gain", "p_value", "positive_splits", "splits", "met"}` of `ours - baseline`, split by split.

    >>> paired_comparison([0.7, 0.72, 0.69, 0.75], [0.65, 0.66, 0.66, 0.70])["met"]
    True
    >>> paired_comparison([0.7, 0.6, 0.69], [0.65, 0.66, 0.66])["met"]
    False
    """
    ours, baseline = np.asarray(ours, "float64"), np.asarray(baseline, "float64")
    if ours.shape != baseline.shape or ours.ndim != 1 or ours.size < 2:
        raise ValueError(
            f"A paired comparison needs two equally long lists of at least 2 values. Received: shapes "
            f"{ours.shape} and {baseline.shape}"
        )
    gains = ours - baseline
    if np.all(gains == gains[0]):  # no spread: the t-test is undefined; a constant positive gain is certain
        p_value = 0.0 if gains[0] > 0 else 1.0
    else:
        p_value = float(stats.ttest_rel(ours, baseline, alternative="greater").pvalue)
    positive = int(np.sum(gains > 0))
    met = bool(gains.mean() > 0 and p_value < ALPHA and positive >= math.ceil(MAJORITY * gains.size))
    return {
        "mean_gain": float(gains.mean()),
        "std_gain": float(gains.std(ddof=1)),
        "p_value": p_value,
        "positive_splits": positive,
        "splits": int(gains.size),
        "met": met,
    }


def level_with(ours, baseline):
    """True when `baseline` does not beat `ours` by the rule (ours is not significantly below it).

    >>> level_with([0.843, 0.844, 0.842], [0.845, 0.840, 0.846])
    True
    """
    return not paired_comparison(baseline, ours)["met"]
