"""Mean and sample standard deviation over seeds, the one way every benchmark reports repeated runs."""

import numpy as np


def mean_std(values):
    """`(mean, sample std)` of `values`; the std is `None` for a single value (no spread to report)."""
    values = np.asarray(values, dtype="float64")
    if values.size == 0:
        raise ValueError("mean_std: received no values")
    std = float(values.std(ddof=1)) if values.size > 1 else None
    return float(values.mean()), std


def seed_summary(runs, keys):
    """The first run's report, with `seeds` (every run) and, for each of `keys`, the mean and `<key>_std`.

    The headline number of a key is its mean over seeds; with one run nothing changes.
    """
    out = dict(runs[0])
    if len(runs) > 1:
        out["seeds"] = list(runs)
        for key in keys:
            out[key], out[f"{key}_std"] = mean_std([run[key] for run in runs])
    return out
