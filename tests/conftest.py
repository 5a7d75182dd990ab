import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir():
    """The shared real datasets (KERAS_LABELEMB_DATA, default ../shared/data); skips if absent."""
    path = pathlib.Path(os.environ.get("KERAS_LABELEMB_DATA", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.skip(f"shared data not found at {path}")
    return path
