"""Where the dataset loaders look for data on disk."""

import os
from pathlib import Path

#: Environment variable naming the folder that holds the datasets (one subfolder each).
DATA_ENV_VAR = "KERAS_LABELEMB_DATA"


def repo_root():
    """The folder that holds the `keras_labelemb` package (the repository root in a checkout)."""
    return Path(__file__).resolve().parents[2]


def default_data_dir():
    """The folder holding the datasets, one subfolder per dataset.

    `$KERAS_LABELEMB_DATA` when set, else `<repository root>/../shared/data`
    (the project's shared copy). Loaders join their own subfolder, e.g.
    `default_data_dir() / "reuters21578"`.

    Returns:
        A `pathlib.Path`; it need not exist.
    """
    return Path(os.environ.get(DATA_ENV_VAR, repo_root().parent / "shared" / "data"))
