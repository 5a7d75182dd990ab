"""Reuters-21578 (Distribution 1.0), ModApte split, 90 categories.

The loader parses the original SGML files of the collection
(`reut2-000.sgm` ... `reut2-021.sgm`, plain or gzipped) and applies the
ModApte rule:

- train = `LEWISSPLIT="TRAIN"` and `TOPICS="YES"` (9,603 documents),
  test = `LEWISSPLIT="TEST"` and `TOPICS="YES"` (3,299 documents);
- the labels are the TOPICS categories with at least one training and one
  test document (90 of them);
- documents carrying none of the 90 are dropped, which leaves 7,770 training
  and 3,019 test documents (NLTK's copy has 7,769 training documents).

Document text is the title, a newline and the body (title only for
`TYPE="BRIEF"` stories, whose body is a placeholder; the whole text for
`TYPE="UNPROC"` stories, which have neither). The SGML is read as latin-1,
HTML entities are decoded and the control-character entities of the wire
format (`&#2;`, `&#3;`, ...) are dropped.

Label descriptions ("name: description") come from the collection's
`cat-descriptions_120396.txt`: codes with a full name there read e.g.
`"acq: mergers / acquisitions"` or `"money fx: money / foreign exchange"`.
Commodity codes have no full name in that file; they read as the code word
(`"wheat"`), except a few abbreviated ones that this library spells out
itself (`"alum: aluminium"`, `"veg oil: vegetable oil"`, see
`COMMODITY_CODE_WORDS`). Pass `label_descriptions` to use your own.

Citation: "Reuters-21578, Distribution 1.0", David D. Lewis; the text is
copyright Reuters Ltd. and free to distribute *for research purposes only*.
"""

import gzip
import html
import logging
import re

from benchmarks.datasets.paths import locate_dataset
from keras_labelemb.datasets.text_classification_data import TextClassificationData

logger = logging.getLogger(__name__)

#: The dataset's folder name (see `paths.dataset_dir`); its public source is
#: `paths.DATASET_SOURCES["reuters21578"]` (UCI's zip of `reuters21578.tar.gz`,
#: unpacked into `original/`).
REUTERS_DIR = "reuters21578"

NUM_SGML_FILES = 22
CATEGORY_DESCRIPTIONS_FILE = "cat-descriptions_120396.txt"

#: Spelled-out forms of abbreviated words in commodity codes, which
#: `cat-descriptions_120396.txt` lists without a full name. These are this
#: library's own readings of the codes, not part of the collection.
COMMODITY_CODE_WORDS = {
    "alum": "aluminium",
    "l": "live",
    "f": "feeder",
    "veg": "vegetable",
    "soy": "soybean",
    "sun": "sunflower",
    "sunseed": "sunflower seed",
    "rape": "rapeseed",
    "lin": "linseed",
    "palmkernel": "palm kernel",
    "castorseed": "castor seed",
    "cottonseed": "cotton seed",
    "citruspulp": "citrus pulp",
    "cornglutenfeed": "corn gluten feed",
    "fishmeal": "fish meal",
}

_REUTERS_RE = re.compile(r"<REUTERS\b(?P<attrs>[^>]*)>(?P<content>.*?)</REUTERS>", re.S)
_ATTR_RE = re.compile(r'([A-Z]+)="([^"]*)"')
_TOPICS_RE = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D_RE = re.compile(r"<D>(.*?)</D>", re.S)
_TEXT_RE = re.compile(r"<TEXT\b(?P<attrs>[^>]*)>(?P<content>.*?)</TEXT>", re.S)
_TITLE_RE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_NUMERIC_ENTITY_RE = re.compile(r"&#(\d+);")


def _decode_entities(text):
    """Drops control-character entities (`&#3;`), then decodes HTML entities."""

    def numeric(match):
        code = int(match.group(1))
        return "" if code < 32 or code == 127 else chr(code)

    return html.unescape(_NUMERIC_ENTITY_RE.sub(numeric, text))


def parse_sgml(sgml):
    """Parses the `<REUTERS>` records of one Reuters-21578 SGML file.

    Args:
        sgml: the file's content as a str (the files are latin-1).

    Returns:
        A list of dicts with keys `newid` (int), `lewissplit`, `topics_attr`
        (the `TOPICS` attribute), `topics` (list of category codes),
        `text_type` (`"NORM"`, `"BRIEF"` or `"UNPROC"`), `title` (str or None)
        and `text` (see the module docstring).
    """
    docs = []
    for record in _REUTERS_RE.finditer(sgml):
        attrs = dict(_ATTR_RE.findall(record.group("attrs")))
        content = record.group("content")
        topics_match = _TOPICS_RE.search(content)
        topics = _D_RE.findall(topics_match.group(1)) if topics_match else []
        text_match = _TEXT_RE.search(content)
        text_attrs = dict(_ATTR_RE.findall(text_match.group("attrs"))) if text_match else {}
        text_type = text_attrs.get("TYPE", "NORM")
        raw = text_match.group("content") if text_match else ""
        title_match = _TITLE_RE.search(raw)
        title = _decode_entities(title_match.group(1)).strip() if title_match else None
        body_match = _BODY_RE.search(raw)
        if text_type == "BRIEF":
            text = title or ""
        elif title_match is None and body_match is None:
            text = _decode_entities(raw).strip()
        else:
            body = _decode_entities(body_match.group(1)).strip() if body_match else ""
            text = "\n".join(part for part in (title, body) if part)
        docs.append(
            {
                "newid": int(attrs["NEWID"]),
                "lewissplit": attrs.get("LEWISSPLIT"),
                "topics_attr": attrs.get("TOPICS"),
                "topics": [_decode_entities(t).strip() for t in topics],
                "text_type": text_type,
                "title": title,
                "text": text,
            }
        )
    return docs


def _sgml_paths(folder):
    paths = []
    for i in range(NUM_SGML_FILES):
        name = f"reut2-{i:03d}.sgm"
        for candidate in (folder / name, folder / f"{name}.gz"):
            if candidate.is_file():
                paths.append(candidate)
                break
        else:
            return None
    return paths


def _find_source_dir(data_dir):
    """The folder under `data_dir` holding all 22 SGML files (itself, `original/`, or deeper), or None."""
    for folder in (data_dir / "original", data_dir):
        if _sgml_paths(folder):
            return folder
    if data_dir.is_dir():
        for first in sorted(data_dir.rglob("reut2-000.sgm*")):
            if _sgml_paths(first.parent):
                return first.parent
    return None


def _read_text(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return f.read().decode("latin-1")


def parse_category_descriptions(text):
    """Parses the topic sections of `cat-descriptions_120396.txt`.

    Only the TOPICS sections (subject, economic indicator, currency,
    corporate, commodity and energy codes) are read, i.e. everything before
    the organisation codes.

    Args:
        text: the file's content.

    Returns:
        A dict from lower-case code (e.g. `"money-fx"`) to `(group, full_name)`,
        where `group` is the section title (e.g. `"Commodity Codes"`) and
        `full_name` the name the file gives, or None where it gives only the
        code (commodities).
    """
    entries = {}
    group = None
    started = False
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith("*"):
            header = re.match(r"\*+\s*(.*?)\s*\(\d+\)\s*$", line)
            if header:
                group = header.group(1)
                started = True
            continue
        if not started or not line:
            continue
        if line.startswith("___") or line.startswith("@"):
            break
        named = re.match(r"^(.*\S)\s*\(([A-Z0-9-]+)\)$", line)
        if named:
            entries[named.group(2).lower()] = (group, named.group(1))
        elif re.match(r"^[A-Z0-9-]+$", line):
            entries[line.lower()] = (group, None)
    return entries


def _readable_code(code, expand):
    words = code.lower().split("-")
    if expand:
        words = [COMMODITY_CODE_WORDS.get(w, w) for w in words]
    return " ".join(words)


def default_label_description(code, full_name=None):
    """The description this library gives to a Reuters category code.

    `"<readable code>: <full name>"` where the category file gives a full
    name, e.g. `"money fx: money / foreign exchange"`; the readable code alone
    where the full name says the same (`"trade"`); for commodity codes the
    code word, with abbreviations spelled out (`"alum: aluminium"`, `"wheat"`).
    """
    name = _readable_code(code, expand=False)
    if full_name:
        long_form = re.sub(r"\s*/\s*", " / ", full_name.strip()).lower()
    else:
        long_form = _readable_code(code, expand=True)
    if long_form == name:
        return name
    return f"{name}: {long_form}"


def _category_full_names(source_dir):
    for folder in (source_dir, source_dir.parent):
        path = folder / CATEGORY_DESCRIPTIONS_FILE
        if path.is_file():
            entries = parse_category_descriptions(path.read_bytes().decode("latin-1"))
            return {code: full for code, (_, full) in entries.items()}
    logger.warning(
        "%s not found next to the SGML files; label descriptions fall back to the codes.",
        CATEGORY_DESCRIPTIONS_FILE,
    )
    return {}


def load_reuters(data_dir=None, label_descriptions=None, download=True):
    """Loads Reuters-21578 ModApte with its 90 categories and their descriptions.

    Args:
        data_dir: folder holding the collection: the SGML files
            `reut2-000.sgm[.gz]` ... `reut2-021.sgm[.gz]` directly or in an
            `original/` subfolder, with `cat-descriptions_120396.txt` beside
            them. Defaults to `$KERAS_LABELEMB_DATA/reuters21578` when that
            variable is set, else the Keras cache
            (`~/.keras/datasets/keras_labelemb/reuters21578`).
        label_descriptions: optional dict from category code (e.g.
            `"money-fx"`) to description text; given entries replace the
            built-in ones, codes outside the 90 categories are ignored.
        download: if the SGML files are missing, fetch UCI's archive with
            `keras.utils.get_file` and unpack it into `<data_dir>/original`
            (`paths.DatasetDownloadError` offline). If False, raise
            `FileNotFoundError` instead. Defaults to True.

    Returns:
        A `TextClassificationData` with 7,770 training and 3,019 test
        documents (ids `"training/<NEWID>"` and `"test/<NEWID>"`, in NEWID
        order) and 90 labels sorted by code.

    Example:

    ```python
    data = load_reuters()
    seen, unseen = zero_shot_split(data)
    ```
    """
    source_dir = locate_dataset(
        REUTERS_DIR,
        _find_source_dir,
        data_dir,
        download,
        expected="the SGML files reut2-000.sgm ... reut2-021.sgm (or .sgm.gz), directly or in original/",
    )

    train_docs, test_docs = [], []
    for path in _sgml_paths(source_dir):
        for doc in parse_sgml(_read_text(path)):
            if doc["topics_attr"] != "YES":
                continue
            if doc["lewissplit"] == "TRAIN":
                train_docs.append(doc)
            elif doc["lewissplit"] == "TEST":
                test_docs.append(doc)
    train_docs.sort(key=lambda d: d["newid"])
    test_docs.sort(key=lambda d: d["newid"])

    train_topics = {t for d in train_docs for t in d["topics"]}
    test_topics = {t for d in test_docs for t in d["topics"]}
    label_names = sorted(train_topics & test_topics)
    index = {code: j for j, code in enumerate(label_names)}

    full_names = _category_full_names(source_dir)
    descriptions = [default_label_description(c, full_names.get(c)) for c in label_names]
    if label_descriptions:
        for code, text in label_descriptions.items():
            if code in index:
                descriptions[index[code]] = str(text)

    def select(docs, prefix):
        texts, labels, ids = [], [], []
        for d in docs:
            doc_labels = sorted({index[t] for t in d["topics"] if t in index})
            if doc_labels:
                texts.append(d["text"])
                labels.append(doc_labels)
                ids.append(f"{prefix}/{d['newid']}")
        return texts, labels, ids

    train, test = select(train_docs, "training"), select(test_docs, "test")
    return TextClassificationData.from_splits(train, test, label_names, descriptions)
