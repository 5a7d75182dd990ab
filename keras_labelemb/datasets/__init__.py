"""Multi-label text with label descriptions: the container, the demo data, seen / unseen label protocols.

- `TextClassificationData`: train / validation / test texts, label ids per text, label names and
  descriptions (`multi_hot(split)`, `validation_split`).
- `load_demo`: the package's own generated demo dataset (16 topics, 4 held out for zero-shot), no file needed.
- `remove_unseen_from_train`, `restrict_labels`: a seen / unseen label split of any `TextClassificationData`
  (the benchmarks draw which labels are held out with `benchmarks/datasets/zero_shot_split.py`).
- `bptt_dataset`: truncated-BPTT batches of a token stream (for `models.drill_lm`).

The benchmarks' real-data loaders (Reuters-21578, 20 Newsgroups, AAPD, PTB, WikiText-2) live beside the
benchmarks (`benchmarks/datasets/`), not in the package.
"""

from keras_labelemb.datasets.bptt import bptt_dataset
from keras_labelemb.datasets.demo import load_demo
from keras_labelemb.datasets.text_classification_data import TextClassificationData
from keras_labelemb.datasets.zero_shot import remove_unseen_from_train, restrict_labels

__all__ = [
    "TextClassificationData",
    "bptt_dataset",
    "load_demo",
    "remove_unseen_from_train",
    "restrict_labels",
]
