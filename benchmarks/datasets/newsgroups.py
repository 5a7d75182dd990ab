"""20 Newsgroups, "bydate" version: 11,314 training and 7,532 test messages, 20 single-label classes.

The loader reads either the project's JSON-lines copy (`train.jsonl.gz`,
`test.jsonl.gz`, `labels.txt`: one message per line with fields `id`,
`label`, `label_id`, `text`, the text being the original bytes decoded as
latin-1; see its SOURCE.md) or the original distribution's folders
`20news-bydate-train/<group>/<number>` and `20news-bydate-test/...` (the files
of Jason Rennie's `20news-bydate.tar.gz`, read as latin-1).

Headers. Every message starts with mail/news headers (`From:`, `Subject:`,
`Organization:`, `Lines:` ...) up to the first blank line. They leak the
newsgroup (posters, organisations and subjects recur within a group); the
library's results (benchmarks/README.md) are all without them, where a
tuned bag-of-words SVM is close to Johnson & Zhang's 17.47%.
`remove_headers=True` (the default) drops everything up to the first blank
line, as scikit-learn's `fetch_20newsgroups(remove=("headers",))` does; the
body, signatures and quoted replies are kept. `keep_subject=True` puts the
subject line back in front of the body, as Cachopo's copy does. Always state
which setting a result used. Johnson & Zhang (2016) used Cachopo's copy of the bydate split
(11,293 training / 7,528 test documents, average length 267 words: a few
messages dropped); this loader keeps all 11,314 / 7,532 messages (average
266 words without headers), so with `remove_headers=True` 18 training and 16
test documents are empty strings.

Labels: one per document, index into `label_names` (the newsgroup names,
sorted). Label descriptions spell the names out, e.g.
`"comp.sys.mac.hardware"` -> `"computer systems mac hardware"` (see
`newsgroup_description`); pass `label_descriptions` to use your own.

Citation: the collection is Ken Lang's (1995); the bydate split is Jason
Rennie's. No formal licence is known.
"""

import gzip
import json

from benchmarks.datasets.paths import locate_dataset
from keras_labelemb.datasets.text_classification_data import TextClassificationData

#: The dataset's folder name (see `paths.dataset_dir`); its public source is
#: `paths.DATASET_SOURCES["20newsgroups_bydate"]` (Jason Rennie's `20news-bydate.tar.gz`).
NEWSGROUPS_DIR = "20newsgroups_bydate"

#: Readable forms of the name parts of the 20 newsgroups (this library's own reading).
NAME_PART_WORDS = {
    "alt": "alternative",
    "comp": "computer",
    "os": "operating system",
    "ms-windows": "microsoft windows",
    "misc": "miscellaneous",
    "sys": "systems",
    "ibm": "ibm",
    "pc": "pc",
    "mac": "mac",
    "windows": "windows",
    "x": "x window system",
    "forsale": "for sale",
    "rec": "recreation",
    "autos": "automobiles",
    "sport": "sport",
    "sci": "science",
    "crypt": "cryptography",
    "med": "medicine",
    "soc": "society",
    "talk": "talk",
    "mideast": "middle east",
}


def newsgroup_description(name):
    """A newsgroup name spelled out in words.

    >>> newsgroup_description("comp.sys.mac.hardware")
    'computer systems mac hardware'
    >>> newsgroup_description("talk.politics.mideast")
    'talk politics middle east'
    >>> newsgroup_description("comp.os.ms-windows.misc")
    'computer operating system microsoft windows miscellaneous'
    """
    return " ".join(NAME_PART_WORDS.get(part, part.replace("-", " ")) for part in name.split("."))


def strip_headers(text):
    """The message without its headers: everything after the first blank line ("" if none)."""
    _, blank, body = text.partition("\n\n")
    return body if blank else ""


def message_subject(text):
    r"""The text of the message's `Subject:` header line ("" if it has none).

    >>> message_subject("From: a@b\nSubject: Re: clipper chip\n\nbody")
    'Re: clipper chip'
    """
    headers, _, _ = text.partition("\n\n")
    for line in headers.splitlines():
        if line[:8].lower() == "subject:":
            return line[8:].strip()
    return ""


def _read_jsonl(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _read_tree(folder):
    records = []
    for group_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = sorted(
            (p for p in group_dir.iterdir() if p.is_file() and not p.name.startswith(".")),
            key=lambda p: (len(p.name), p.name),
        )
        for path in files:
            records.append(
                {
                    "id": f"{group_dir.name}/{path.name}",
                    "label": group_dir.name,
                    "text": path.read_bytes().decode("latin-1"),
                }
            )
    return records


def _find_splits(data_dir):
    """`{"train": (reader, path), "test": ...}` for the JSON-lines copy or the original folders, else None."""
    jsonl = {split: data_dir / f"{split}.jsonl.gz" for split in ("train", "test")}
    if all(p.is_file() for p in jsonl.values()):
        return {split: (_read_jsonl, p) for split, p in jsonl.items()}
    for root in (data_dir, data_dir / "20news-bydate"):
        tree = {split: root / f"20news-bydate-{split}" for split in ("train", "test")}
        if all(p.is_dir() for p in tree.values()):
            return {split: (_read_tree, p) for split, p in tree.items()}
    return None


def load_newsgroups(data_dir=None, remove_headers=True, keep_subject=False, label_descriptions=None, download=True):
    """Loads 20 Newsgroups bydate as a single-label `TextClassificationData`.

    Args:
        data_dir: folder with `train.jsonl.gz`, `test.jsonl.gz` (and
            optionally `labels.txt`), or with the original
            `20news-bydate-train/` and `20news-bydate-test/` folders.
            Defaults to `$KERAS_LABELEMB_DATA/20newsgroups_bydate` when that
            variable is set, else the Keras cache
            (`~/.keras/datasets/keras_labelemb/20newsgroups_bydate`).
        remove_headers: drop each message's headers (everything up to the
            first blank line). Default True: the headers leak the newsgroup
            (see the module docstring).
        label_descriptions: optional dict from newsgroup name to description;
            given entries replace the built-in ones (`newsgroup_description`).
        download: if the data is missing, fetch the bydate archive into
            `data_dir` with `keras.utils.get_file` and unpack it
            (`paths.DatasetDownloadError` offline). If False, raise
            `FileNotFoundError` instead.

    Returns:
        A `TextClassificationData` with 11,314 training and 7,532 test
        documents (ids `"train/<group>/<number>"` and `"test/..."`, in file
        order), each with exactly one of 20 labels (sorted newsgroup names).

    Example:

    ```python
    data = load_newsgroups()
    data.label_descriptions[4]  # 'computer systems mac hardware'
    ```
    """
    splits = locate_dataset(
        NEWSGROUPS_DIR,
        _find_splits,
        data_dir,
        download,
        expected="train.jsonl.gz and test.jsonl.gz, or the folders 20news-bydate-train/ and 20news-bydate-test/",
    )
    records = {split: read(path) for split, (read, path) in splits.items()}
    labels_file = splits["train"][1].parent / "labels.txt"
    if labels_file.is_file():
        label_names = [line.strip() for line in labels_file.read_text().splitlines() if line.strip()]
    else:
        label_names = sorted({r["label"] for split in records.values() for r in split})
    index = {name: j for j, name in enumerate(label_names)}
    descriptions = [newsgroup_description(name) for name in label_names]
    for name, text in (label_descriptions or {}).items():
        if name in index:
            descriptions[index[name]] = str(text)

    def split(name):
        texts, labels, ids = [], [], []
        for r in records[name]:
            if r["label"] not in index:
                raise ValueError(f"Unknown newsgroup {r['label']!r} in the {name} split (not in labels.txt).")
            text = strip_headers(r["text"]) if remove_headers else r["text"]
            if remove_headers and keep_subject:
                text = message_subject(r["text"]) + "\n" + text
            texts.append(text)
            labels.append([index[r["label"]]])
            ids.append(f"{name}/{r['id']}")
        return texts, labels, ids

    return TextClassificationData.from_splits(split("train"), split("test"), label_names, descriptions)
