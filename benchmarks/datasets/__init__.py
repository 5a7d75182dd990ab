"""The benchmarks' real-data loaders (not part of the package: a user brings their own texts).

- `load_reuters`: Reuters-21578 ModApte, 90 categories, parsed from the original SGML files.
- `load_newsgroups`: 20 Newsgroups bydate, 20 single-label classes (headers removed by default).
- `load_aapd`: AAPD's 1,000 validation abstracts (to train on) and 1,000 test abstracts, 54 arXiv
  categories, for zero-shot evaluation; `aapd_zero_shot_labels` draws its held-out labels (no download).
- `load_ptb`, `load_wikitext2`: language-modelling corpora (`LanguageModelingData`).

Each reads its explicit `data_dir`, else `$KERAS_LABELEMB_DATA/<subfolder>`, else the Keras cache
(`~/.keras/datasets/keras_labelemb/<subfolder>`), and when the files are missing there downloads them into
that folder with `keras.utils.get_file` from the public URL in `DATASET_SOURCES` (`DatasetDownloadError`
offline; `download=False` raises `FileNotFoundError`). All of it is in `paths`.
"""

from benchmarks.datasets.aapd import aapd_zero_shot_labels, load_aapd
from benchmarks.datasets.language_modeling import LanguageModelingData, load_ptb, load_wikitext2
from benchmarks.datasets.newsgroups import load_newsgroups
from benchmarks.datasets.paths import DATASET_SOURCES, DatasetDownloadError, dataset_dir, locate_dataset
from benchmarks.datasets.reuters import load_reuters

__all__ = [
    "DATASET_SOURCES",
    "DatasetDownloadError",
    "LanguageModelingData",
    "aapd_zero_shot_labels",
    "dataset_dir",
    "load_aapd",
    "load_newsgroups",
    "load_ptb",
    "load_reuters",
    "load_wikitext2",
    "locate_dataset",
]
