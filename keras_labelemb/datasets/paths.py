"""Where the dataset loaders find their data, and the one way they download it.

A loader reads, in this order: its explicit `data_dir` argument; else
`$KERAS_LABELEMB_DATA/<subfolder>`; else `<Keras cache>/datasets/keras_labelemb/<subfolder>`
(`~/.keras`, or `$KERAS_HOME`). When the files are missing there and the dataset has a public
URL, they are fetched with `keras.utils.get_file` into that folder; offline, a
`DatasetDownloadError` says which URL failed and how to point the loader at a local copy.
"""

import os
import tarfile
import zipfile
from pathlib import Path

#: Environment variable naming the folder that holds the datasets (one subfolder each).
DATA_ENV_VAR = "KERAS_LABELEMB_DATA"
#: The folder under the Keras cache's `datasets/` where downloads go.
CACHE_SUBDIR = "keras_labelemb"


class DatasetDownloadError(ConnectionError):
    """A dataset was neither on disk nor downloadable (offline, or the URL failed)."""


def keras_cache_dir():
    """`$KERAS_HOME` or `~/.keras`, then `datasets/keras_labelemb` (where downloads go)."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return Path(home) / "datasets" / CACHE_SUBDIR


def default_data_dir():
    """The folder holding the datasets, one subfolder per dataset.

    `$KERAS_LABELEMB_DATA` when set, else the Keras cache (`keras_cache_dir()`). Loaders
    join their own subfolder, e.g. `default_data_dir() / "reuters21578"`.

    Returns:
        A `pathlib.Path`; it need not exist.
    """
    folder = os.environ.get(DATA_ENV_VAR)
    return Path(folder) if folder else keras_cache_dir()


def dataset_dir(subfolder, data_dir=None):
    """`data_dir` when given, else `default_data_dir() / subfolder`."""
    return Path(data_dir) if data_dir is not None else default_data_dir() / subfolder


def download(name, url, target_dir, fname=None, extract=False, file_hash=None):
    """Fetches `url` into `target_dir` with `keras.utils.get_file`; extracts archives there when `extract`.

    Args:
        name: the dataset's name, for messages.
        url: where to fetch from.
        target_dir: the folder the loader reads; created if missing.
        fname: the file name to save as (default: the URL's last part).
        extract: unpack a `.tar.gz` / `.zip` into `target_dir`.
        file_hash: optional SHA-256 checked by `get_file`.

    Returns:
        The path of the downloaded file.

    Raises:
        DatasetDownloadError: the download failed (offline, or the server refused).
    """
    import keras  # Imported here: reading data on disk needs no deep learning framework.

    target_dir = Path(target_dir)
    target_dir.mkdir(parents=True, exist_ok=True)
    fname = fname or url.rsplit("/", 1)[-1]
    try:
        path = keras.utils.get_file(
            fname=fname,
            origin=url,
            file_hash=file_hash,
            cache_dir=str(target_dir),
            cache_subdir="download",
        )
    except Exception as error:  # get_file wraps URL and HTTP errors in a plain Exception
        raise DatasetDownloadError(
            f"{name} is not in {target_dir} and could not be downloaded from {url} ({error}). "
            f"Put a copy there, pass `data_dir=` to the loader, or set ${DATA_ENV_VAR} to a folder "
            f"holding `{target_dir.name}/`."
        ) from error
    if extract:
        extract_archive(path, target_dir)
    return Path(path)


def extract_archive(archive, target_dir):
    """Unpacks a tar (any compression) or zip archive into `target_dir`, refusing unsafe member paths."""
    archive = Path(archive)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zipped:  # ZipFile.extractall strips absolute and ".." parts
            zipped.extractall(target_dir)
        return
    with tarfile.open(archive, "r:*") as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(target_dir, filter="data")
            return
        for member in tar.getmembers():  # Python without extraction filters
            name = Path(member.name)
            if name.is_absolute() or ".." in name.parts or not (member.isfile() or member.isdir()):
                raise ValueError(f"Unsafe member in {archive}: {member.name!r}")
        tar.extractall(target_dir)
