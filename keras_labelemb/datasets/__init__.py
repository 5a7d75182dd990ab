"""Dataset loaders: multi-label text with label descriptions.

- `load_reuters`: Reuters-21578 ModApte, 90 categories, parsed from the
  original SGML files (downloaded when missing).
- `load_demo`: the package's own generated demo dataset (16 topics, 4 held
  out for zero-shot), no file needed.
- `zero_shot_split`, `remove_unseen_from_train`, `restrict_labels`: seen /
  unseen label protocols.
- `load_newsgroups`: 20 Newsgroups bydate, 20 single-label classes (headers removed by default).
- `load_ptb`, `load_wikitext2`: language-modelling corpora; `bptt_dataset`: truncated-BPTT batches.

Every real-data loader reads its explicit `data_dir`, else `$KERAS_LABELEMB_DATA/<subfolder>`,
else the Keras cache, and downloads there with `keras.utils.get_file` when the files are missing
(`DatasetDownloadError` offline; see `paths`).
"""

from keras_labelemb.datasets.demo import load_demo
from keras_labelemb.datasets.language_modeling import LanguageModelingData, bptt_dataset, load_ptb, load_wikitext2
from keras_labelemb.datasets.newsgroups import download_newsgroups, load_newsgroups
from keras_labelemb.datasets.paths import DatasetDownloadError, dataset_dir, default_data_dir, keras_cache_dir
from keras_labelemb.datasets.reuters import download_reuters, load_reuters
from keras_labelemb.datasets.text_classification_data import TextClassificationData
from keras_labelemb.datasets.zero_shot import (
    labels_without_training_documents,
    remove_unseen_from_train,
    restrict_labels,
    zero_shot_split,
)

__all__ = [
    "DatasetDownloadError",
    "LanguageModelingData",
    "TextClassificationData",
    "bptt_dataset",
    "dataset_dir",
    "default_data_dir",
    "download_newsgroups",
    "download_reuters",
    "keras_cache_dir",
    "labels_without_training_documents",
    "load_demo",
    "load_newsgroups",
    "load_ptb",
    "load_reuters",
    "load_wikitext2",
    "remove_unseen_from_train",
    "restrict_labels",
    "zero_shot_split",
]
