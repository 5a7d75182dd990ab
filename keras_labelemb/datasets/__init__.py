"""Dataset loaders: multi-label text with label descriptions.

- `load_reuters`: Reuters-21578 ModApte, 90 categories, parsed from the
  original SGML files.
- `load_demo`: the package's own generated demo dataset (16 topics, 4 held
  out for zero-shot), no file needed.
- `zero_shot_split`, `remove_unseen_from_train`, `restrict_labels`: seen /
  unseen label protocols.
- `load_newsgroups`: 20 Newsgroups bydate, 20 single-label classes (headers removed by default).
- `load_aapd`: AAPD's 1,000 validation abstracts (to train on) and 1,000 test abstracts, 54 arXiv
  categories, for zero-shot evaluation; `aapd_zero_shot_labels` draws its held-out labels (no download).
- `load_ptb`, `load_wikitext2`: language-modelling corpora; `bptt_dataset`: truncated-BPTT batches.

Every real-data loader reads its explicit `data_dir`, else `$KERAS_LABELEMB_DATA/<subfolder>`,
else the Keras cache (`~/.keras/datasets/keras_labelemb/<subfolder>`), and when the files are
missing there downloads them into that folder with `keras.utils.get_file` from the public URL in
`DATASET_SOURCES` (`DatasetDownloadError` offline; `download=False` raises `FileNotFoundError`).
All of it is in `paths`: `dataset_dir`, `locate_dataset`, `download_dataset`.
"""

from keras_labelemb.datasets.aapd import aapd_zero_shot_labels, load_aapd
from keras_labelemb.datasets.demo import load_demo
from keras_labelemb.datasets.language_modeling import LanguageModelingData, bptt_dataset, load_ptb, load_wikitext2
from keras_labelemb.datasets.newsgroups import load_newsgroups
from keras_labelemb.datasets.paths import (
    DATASET_SOURCES,
    DatasetDownloadError,
    dataset_dir,
    download_dataset,
    keras_cache_dir,
    locate_dataset,
)
from keras_labelemb.datasets.reuters import load_reuters
from keras_labelemb.datasets.text_classification_data import TextClassificationData
from keras_labelemb.datasets.zero_shot import (
    labels_without_training_documents,
    remove_unseen_from_train,
    restrict_labels,
    zero_shot_split,
)

__all__ = [
    "DATASET_SOURCES",
    "DatasetDownloadError",
    "LanguageModelingData",
    "TextClassificationData",
    "aapd_zero_shot_labels",
    "bptt_dataset",
    "dataset_dir",
    "download_dataset",
    "keras_cache_dir",
    "labels_without_training_documents",
    "load_aapd",
    "load_demo",
    "load_newsgroups",
    "load_ptb",
    "load_reuters",
    "load_wikitext2",
    "locate_dataset",
    "remove_unseen_from_train",
    "restrict_labels",
    "zero_shot_split",
]
