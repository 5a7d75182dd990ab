"""Word-level language-modelling corpora (Penn Treebank, WikiText-2) and truncated-BPTT batches.

Both corpora come tokenized, one sentence (PTB) or paragraph line (WikiText-2)
per line. A line reads as its space-separated tokens followed by `<eos>`
(a blank WikiText-2 line is a lone `<eos>`), which gives the standard counts:

| corpus | vocabulary | train | valid | test |
|---|---|---|---|---|
| PTB (Mikolov) | 10,000 | 929,589 | 73,760 | 82,430 |
| WikiText-2 | 33,278 | 2,088,628 | 217,646 | 245,569 |

The vocabulary is built from the training split; ids are sorted by decreasing
training frequency (ties in order of first occurrence), so id order suits
log-uniform samplers and frequency bands. Both corpora have `<unk>` already;
a validation or test token outside the vocabulary maps to it.

Truncated back-propagation through time: the token stream is cut into
`batch_size` equal rows, and batch `i` holds columns `[i*bptt, (i+1)*bptt)` of
every row as inputs and the next tokens as targets. Row `b` of consecutive
batches continues the same text, so a stateful LSTM carries its state from one
batch to the next; the remainder that does not fill a last window is dropped,
so every batch has the fixed shape `(batch_size, bptt)`.
"""

import collections
from dataclasses import dataclass

import numpy as np

from benchmarks.datasets.paths import locate_dataset
from keras_labelemb.datasets.bptt import bptt_arrays, bptt_dataset, num_bptt_batches

EOS, UNK = "<eos>", "<unk>"
SPLITS = ("train", "val", "test")
PTB_FILES = {"train": "ptb.train.txt", "val": "ptb.valid.txt", "test": "ptb.test.txt"}
WIKITEXT2_FILES = {"train": "wiki.train.tokens", "val": "wiki.valid.tokens", "test": "wiki.test.tokens"}


def tokenize_lines(lines):
    """Tokens of text lines: each line's space-separated tokens, then `<eos>`.

    >>> tokenize_lines([" the cat sat \\n", " \\n", "on it"])
    ['the', 'cat', 'sat', '<eos>', '<eos>', 'on', 'it', '<eos>']
    """
    tokens = []
    for line in lines:
        tokens.extend(line.split())
        tokens.append(EOS)
    return tokens


def build_vocabulary(tokens):
    """Distinct tokens by decreasing count (ties: first occurrence first).

    >>> build_vocabulary("b a b c a b".split())
    ['b', 'a', 'c']
    """
    return [token for token, _ in collections.Counter(tokens).most_common()]


@dataclass(repr=False)
class LanguageModelingData:
    """A tokenized corpus as id arrays over one vocabulary.

    Attributes:
        name: corpus name.
        vocabulary: list of tokens; `vocabulary[i]` is the token of id `i`.
        train, val, test: int32 arrays of token ids (one stream per split).

    Example:

    >>> data = LanguageModelingData.from_token_lists(
    ...     "toy", tokenize_lines(["a b a c", "b a"]), tokenize_lines(["a c"]), tokenize_lines(["b b"]))
    >>> data.vocabulary, data.train.tolist()
    (['a', 'b', '<eos>', 'c'], [0, 1, 0, 3, 2, 1, 0, 2])
    >>> x, y = data.bptt_arrays("train", batch_size=2, bptt=2)
    >>> x.shape, x[0].tolist(), y[0].tolist()   # batch 0: rows [a b a c] and [<eos> b a <eos>]
    ((1, 2, 2), [[0, 1], [2, 1]], [[1, 0], [1, 0]])
    """

    name: str
    vocabulary: list
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray

    @classmethod
    def from_token_lists(cls, name, train_tokens, val_tokens, test_tokens):
        """Builds the vocabulary on `train_tokens` and maps every split to ids."""
        vocabulary = build_vocabulary(train_tokens)
        index = {token: i for i, token in enumerate(vocabulary)}
        unk = index.get(UNK)

        def ids(tokens, split):
            out = np.fromiter((index.get(t, -1) for t in tokens), dtype=np.int32, count=len(tokens))
            missing = out < 0
            if missing.any():
                if unk is None:
                    example = tokens[int(np.flatnonzero(missing)[0])]
                    raise ValueError(
                        f"The {split} split of {name!r} has {int(missing.sum())} tokens outside the training "
                        f"vocabulary and the vocabulary has no {UNK!r}. Received: e.g. token {example!r}"
                    )
                out[missing] = unk
            return out

        return cls(name, vocabulary, ids(train_tokens, "train"), ids(val_tokens, "val"), ids(test_tokens, "test"))

    @property
    def vocabulary_size(self):
        return len(self.vocabulary)

    def split(self, split):
        if split not in SPLITS:
            raise ValueError(f"`split` must be one of {list(SPLITS)}. Received: split={split!r}")
        return getattr(self, split)

    def train_counts(self):
        """How often each id occurs in the training split, `(vocabulary_size,)`."""
        return np.bincount(self.train, minlength=self.vocabulary_size)

    def num_batches(self, split, batch_size, bptt):
        """Number of `(batch_size, bptt)` windows `bptt_arrays` / `bptt_dataset` make of a split."""
        return num_bptt_batches(len(self.split(split)), batch_size, bptt)

    def bptt_arrays(self, split, batch_size, bptt):
        """`(x, y)` NumPy arrays `(num_batches, batch_size, bptt)`; see `bptt_arrays`."""
        return bptt_arrays(self.split(split), batch_size, bptt)

    def bptt_dataset(self, split, batch_size, bptt, repeat=False):
        """A `tf.data.Dataset` of `(x, y)` batches in stream order; see `bptt_dataset`."""
        return bptt_dataset(self.split(split), batch_size, bptt, repeat=repeat)

    def __repr__(self):
        sizes = ", ".join(f"{s}={len(self.split(s)):,}" for s in SPLITS)
        return f"LanguageModelingData({self.name!r}, vocabulary_size={self.vocabulary_size:,}, {sizes})"


def _load(subfolder, files, data_dir, download):
    def find(root):
        # The files directly in the folder, or in the `wikitext-2/` folder its archive unpacks to.
        for folder in (root, root / "wikitext-2"):
            paths = {split: folder / file for split, file in files.items()}
            if all(p.is_file() for p in paths.values()):
                return paths
        return None

    paths = locate_dataset(subfolder, find, data_dir, download, expected=", ".join(files.values()))
    tokens = {}
    for split, path in paths.items():
        with open(path, encoding="utf-8") as f:
            tokens[split] = tokenize_lines(f)
    return LanguageModelingData.from_token_lists(subfolder, tokens["train"], tokens["val"], tokens["test"])


def load_ptb(data_dir=None, download=True):
    """Penn Treebank, Mikolov's language-modelling version (10,000 words; 929,589 training tokens).

    Args:
        data_dir: folder with `ptb.train.txt`, `ptb.valid.txt`, `ptb.test.txt`.
            Default: `$KERAS_LABELEMB_DATA/ptb` when that variable is set, else
            the Keras cache (`~/.keras/datasets/keras_labelemb/ptb`).
        download: fetch the files (Zaremba et al.'s copy) with
            `keras.utils.get_file` when missing (`paths.DatasetDownloadError`
            offline); False raises `FileNotFoundError` instead.

    Returns:
        A `LanguageModelingData`.

    Reference: Mikolov et al. (2010); the Penn Treebank WSJ text (Marcus et
    al. 1993, LDC99T42), distributed for research use.
    """
    return _load("ptb", PTB_FILES, data_dir, download)


def load_wikitext2(data_dir=None, download=True):
    """WikiText-2 v1, tokenized (33,278 words; 2,088,628 training tokens).

    Args:
        data_dir: folder with `wiki.train.tokens`, `wiki.valid.tokens`,
            `wiki.test.tokens` (or their `wikitext-2/` folder). Default:
            `$KERAS_LABELEMB_DATA/wikitext2` when that variable is set, else the
            Keras cache (`~/.keras/datasets/keras_labelemb/wikitext2`).
        download: fetch and unpack `wikitext-2-v1.zip` from its authors' page
            with `keras.utils.get_file` when missing
            (`paths.DatasetDownloadError` offline); False raises
            `FileNotFoundError`.

    Returns:
        A `LanguageModelingData`.

    Reference: Merity, Xiong, Bradbury & Socher, "Pointer Sentinel Mixture
    Models" (2016); Wikipedia text under CC BY-SA.
    """
    return _load("wikitext2", WIKITEXT2_FILES, data_dir, download)
