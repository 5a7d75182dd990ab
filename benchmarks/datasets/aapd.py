"""AAPD (Arxiv Academic Paper Dataset, Yang et al. 2018), 54 arXiv categories, for zero-shot evaluation.

AAPD holds 55,840 computer-science abstracts, each with 2-8 arXiv category
codes. The copy this loader reads (nlp-gym's, see the folder's SOURCE.md)
has the texts of the validation and test splits only (1,000 abstracts each;
the 53,840 training texts are missing, their labels are in `label_train`).
So the loader serves the zero-shot protocol the data allows: a model trains
on the 1,000 validation abstracts and is tested on the 1,000 test abstracts.

Files, line-aligned per split: `text_val` / `text_test` (one abstract a line,
lower-cased and tokenized, tokens separated by spaces) and `label_val` /
`label_test` (the line's labels, space-separated codes such as `cs.IT
math.IT`), plus `label_descriptions.tsv` (columns `label`, `full_name`,
`description`, `alt_name`, `train_docs`, `val_docs`, `test_docs`: the arXiv
taxonomy's name and description of each code, from `arXiv/arxiv-base`).

Label descriptions read "full name: description", e.g. `"Computational
Geometry: Roughly includes material in ACM Subject Classes I.3.5 and
F.2.2."`; the full name alone where the taxonomy has no description
(`cmp-lg`, `quant-ph`); the code with dots and dashes turned into spaces
where it has no full name either. Note that `cs.IT` / `math.IT` and
`math.ST` / `stat.TH` are arXiv aliases: they always occur together.

Citation: Yang, Sun, Li, Ma, Wu and Wang, "SGM: Sequence Generation Model for
Multi-label Classification", COLING 2018. No licence is stated for the data.
"""

import csv

from benchmarks.datasets.paths import locate_dataset
from benchmarks.datasets.zero_shot_split import zero_shot_split
from keras_labelemb.datasets.text_classification_data import TextClassificationData

#: The dataset's folder name (see `paths.dataset_dir`). AAPD has no public download: the
#: files must be on disk.
AAPD_DIR = "aapd"

LABEL_DESCRIPTIONS_FILE = "label_descriptions.tsv"
#: The dataset's split -> (text file, label file). The "train" split is AAPD's validation split.
SPLIT_FILES = {"train": ("text_val", "label_val"), "test": ("text_test", "label_test")}
#: Id prefix of each split's documents (the AAPD split they come from).
ID_PREFIXES = {"train": "val", "test": "test"}
NUM_LABELS = 54


def _find_files(data_dir):
    names = [name for pair in SPLIT_FILES.values() for name in pair] + [LABEL_DESCRIPTIONS_FILE]
    if all((data_dir / name).is_file() for name in names):
        return data_dir
    return None


def default_label_description(code, full_name="", description=""):
    """The description this library gives to an arXiv code.

    >>> default_label_description("cs.CG", "Computational Geometry", "Roughly includes ACM F.2.2.")
    'Computational Geometry: Roughly includes ACM F.2.2.'
    >>> default_label_description("quant-ph", "Quantum Physics")
    'Quantum Physics'
    >>> default_label_description("cond-mat.dis-nn")
    'cond mat dis nn'
    """
    full_name, description = full_name.strip(), description.strip()
    if full_name and description:
        return f"{full_name}: {description}"
    return full_name or description or " ".join(code.replace(".", " ").replace("-", " ").split())


def _read_label_table(path):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or "label" not in rows[0]:
        raise ValueError(f"{path} must be a tab-separated table with a `label` column.")
    codes = [row["label"].strip() for row in rows]
    if len(set(codes)) != len(codes) or not all(codes):
        raise ValueError(f"The labels in {path} must be unique and non-empty.")
    descriptions = [
        default_label_description(code, row.get("full_name") or "", row.get("description") or "")
        for code, row in zip(codes, rows)
    ]
    return codes, descriptions


def _read_lines(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _read_split(folder, split, index):
    text_name, label_name = SPLIT_FILES[split]
    texts = _read_lines(folder / text_name)
    label_lines = _read_lines(folder / label_name)
    if len(texts) != len(label_lines):
        raise ValueError(
            f"{folder / text_name} has {len(texts)} lines but {folder / label_name} has {len(label_lines)}: "
            "the files must be line-aligned (one document a line)."
        )
    labels = []
    for number, line in enumerate(label_lines, start=1):
        codes = line.split()
        if not codes:
            raise ValueError(f"Line {number} of {folder / label_name} has no label.")
        unknown = [c for c in codes if c not in index]
        if unknown:
            raise ValueError(
                f"Line {number} of {folder / label_name} has labels not in {LABEL_DESCRIPTIONS_FILE}: {unknown}."
            )
        labels.append(sorted({index[c] for c in codes}))
    ids = [f"{ID_PREFIXES[split]}/{i}" for i in range(len(texts))]
    return texts, labels, ids


def load_aapd(data_dir=None, label_descriptions=None):
    """Loads AAPD's 1,000 validation abstracts (to train on) and 1,000 test abstracts, 54 labels.

    Args:
        data_dir: folder holding `text_val`, `label_val`, `text_test`,
            `label_test` and `label_descriptions.tsv`. Defaults to
            `$KERAS_LABELEMB_DATA/aapd` when that variable is set, else the
            Keras cache (`~/.keras/datasets/keras_labelemb/aapd`). AAPD has
            no public download, so the files must be there.
        label_descriptions: optional dict from arXiv code (e.g. `"cs.CL"`) to
            description text; given entries replace the built-in ones, codes
            outside the 54 labels are ignored.

    Returns:
        A `TextClassificationData` whose "train" split is AAPD's validation
        split (1,000 documents, ids `"val/<line>"`) and whose "test" split is
        AAPD's test split (1,000 documents, ids `"test/<line>"`), lines
        numbered from 0 in file order; no "val" split (carve one with
        `validation_split`). The 54 labels are the arXiv codes in the order
        of `label_descriptions.tsv`; each document carries 2-8 of them. Use
        `aapd_zero_shot_labels` to hold some labels out.

    Raises:
        FileNotFoundError: a file is missing (the message names the folder).
        ValueError: a text and its label file are not line-aligned, or a
            label line is empty or has a code the table does not list.

    Example (needs the data):

    ```python
    data = load_aapd()
    seen, unseen = aapd_zero_shot_labels(data, seed=0)
    train = restrict_labels(remove_unseen_from_train(data, unseen), seen)
    ```
    """
    folder = locate_dataset(
        AAPD_DIR,
        _find_files,
        data_dir,
        download=False,
        expected=f"text_val, label_val, text_test, label_test and {LABEL_DESCRIPTIONS_FILE}",
    )
    label_names, descriptions = _read_label_table(folder / LABEL_DESCRIPTIONS_FILE)
    index = {code: j for j, code in enumerate(label_names)}
    for code, text in (label_descriptions or {}).items():
        if code in index:
            descriptions[index[code]] = str(text)

    train, test = _read_split(folder, "train", index), _read_split(folder, "test", index)
    return TextClassificationData.from_splits(train, test, label_names, descriptions)


def aapd_zero_shot_labels(data, num_unseen=14, min_test_documents=5, seed=0):
    """Draws AAPD's held-out ("unseen") labels, deterministically per seed.

    `num_unseen` labels are drawn with numpy `RandomState(seed)` among the
    labels that at least `min_test_documents` test documents carry (no
    label is kept seen for being frequent): `zero_shot_split(data,
    exclude_top=0, seed=seed, num_unseen=num_unseen,
    min_test_documents=min_test_documents)`.

    Args:
        data: a `TextClassificationData`, normally `load_aapd()`.
        num_unseen: how many labels to hold out. Defaults to 14.
        min_test_documents: the fewest test documents a held-out label must
            have. Defaults to 5.
        seed: random seed. Defaults to 0.

    Returns:
        `(seen, unseen)`: two sorted lists of label indices that partition
        `range(data.num_labels)`.
    """
    return zero_shot_split(data, exclude_top=0, seed=seed, num_unseen=num_unseen, min_test_documents=min_test_documents)
