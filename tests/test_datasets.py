"""Tests of keras_labelemb.datasets: Reuters-21578 ModApte-90, the demo dataset, splits."""

import gzip
import hashlib
import io
import json
import shutil
import tarfile

import keras
import numpy as np
import pytest
from conftest import skip_missing_data

from keras_labelemb.datasets import (
    TextClassificationData,
    default_data_dir,
    load_demo,
    load_reuters,
    remove_unseen_from_train,
    restrict_labels,
    zero_shot_split,
)
from keras_labelemb.datasets import reuters as reuters_module

# sha256 of the default demo dataset (texts and labels of both splits, label names and
# descriptions, as JSON).
# If you change the generator on purpose, update it and say so in the change.
DEMO_FINGERPRINT = "52de346d588f986722f3e365a202550dab837b91443f24d1f38a515c3b97963a"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def reuters_dir(data_dir):
    path = data_dir / "reuters21578"
    if not (path / "original").is_dir():
        skip_missing_data("Reuters-21578", path)
    return path


@pytest.fixture(scope="module")
def reuters(reuters_dir):
    return load_reuters(reuters_dir, download=False)


@pytest.fixture(scope="module")
def demo():
    return load_demo()


def _small_data():
    return TextClassificationData(
        train_texts=[f"doc {i}" for i in range(10)],
        train_labels=[[i % 3] for i in range(9)] + [[0, 2]],
        test_texts=["t0", "t1", "t2"],
        test_labels=[[0], [1, 2], [2]],
        label_names=["a", "b", "c"],
        label_descriptions=["a: first", "b: second", "c: third"],
        train_ids=[f"train/{i}" for i in range(10)],
        test_ids=["test/0", "test/1", "test/2"],
    )


# ---------------------------------------------------------------- paths


def test_default_data_dir_follows_env_else_the_keras_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("KERAS_LABELEMB_DATA")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    assert default_data_dir() == tmp_path / "keras" / "datasets" / "keras_labelemb"


# ---------------------------------------------------------------- Reuters


def test_reuters_modapte_counts(reuters, reuters_dir):
    assert len(reuters.train_texts) == 7770
    assert len(reuters.test_texts) == 3019
    assert reuters.num_labels == 90
    # The category list and per-category counts match the derived copy's table.
    rows = (reuters_dir / "modapte90" / "categories.tsv").read_text().splitlines()[1:]
    table = {r.split("\t")[0]: (int(r.split("\t")[3]), int(r.split("\t")[4])) for r in rows}
    assert reuters.label_names == sorted(table)
    train_counts, test_counts = reuters.label_counts("train"), reuters.label_counts("test")
    for j, code in enumerate(reuters.label_names):
        assert (train_counts[j], test_counts[j]) == table[code], code
    assert all(labels and labels == sorted(set(labels)) for labels in reuters.train_labels)
    assert len(set(reuters.train_ids)) == 7770 and len(set(reuters.test_ids)) == 3019


def test_reuters_matches_modapte90_jsonl(reuters, reuters_dir):
    """The SGML parse agrees with the shared derived copy on every document."""
    for split, texts, labels, ids in (
        ("train", reuters.train_texts, reuters.train_labels, reuters.train_ids),
        ("test", reuters.test_texts, reuters.test_labels, reuters.test_ids),
    ):
        path = reuters_dir / "modapte90" / f"{split}.jsonl.gz"
        with gzip.open(path, "rt", encoding="utf-8") as f:
            reference = [json.loads(line) for line in f]
        assert [r["id"] for r in reference] == ids
        for r, text, doc_labels in zip(reference, texts, labels):
            assert [reuters.label_names[j] for j in doc_labels] == r["labels"], r["id"]
            assert text == r["text"], r["id"]


def test_reuters_label_descriptions(reuters):
    descriptions = dict(zip(reuters.label_names, reuters.label_descriptions))
    assert all(d.strip() for d in reuters.label_descriptions)
    assert descriptions["acq"] == "acq: mergers / acquisitions"
    assert descriptions["money-fx"] == "money fx: money / foreign exchange"
    assert descriptions["earn"] == "earn: earnings and earnings forecasts"
    assert descriptions["jobs"] == "jobs: unemployment"
    assert descriptions["trade"] == "trade"
    assert descriptions["wheat"] == "wheat"
    assert descriptions["alum"] == "alum: aluminium"
    assert descriptions["veg-oil"] == "veg oil: vegetable oil"
    assert len(set(reuters.label_descriptions)) == 90


def test_reuters_label_description_override(reuters_dir):
    data = load_reuters(
        reuters_dir,
        label_descriptions={"wheat": "wheat: a cereal grain", "no-such-code": "x"},
        download=False,
    )
    j = data.label_names.index("wheat")
    assert data.label_descriptions[j] == "wheat: a cereal grain"
    assert data.label_descriptions[data.label_names.index("acq")] == "acq: mergers / acquisitions"


def test_parse_category_descriptions(reuters_dir):
    text = (reuters_dir / "original" / "cat-descriptions_120396.txt").read_text(encoding="latin-1")
    entries = reuters_module.parse_category_descriptions(text)
    assert len(entries) == 135  # All TOPICS codes, no organisation/exchange/place codes.
    assert entries["acq"] == ("Corporate Codes", "Mergers/Acquisitions")
    assert entries["wheat"] == ("Commodity Codes", None)
    assert entries["nat-gas"] == ("Energy Codes", "Natural Gas")
    assert "gatt" not in entries and "usa" not in entries


def test_reuters_zero_shot_split(reuters):
    seen, unseen = zero_shot_split(reuters, unseen_fraction=0.2, exclude_top=10, seed=0)
    assert (seen, unseen) == zero_shot_split(reuters, seed=0)
    assert len(unseen) == 18 and sorted(seen + unseen) == list(range(90))
    counts = reuters.label_counts("train")
    top10 = set(np.argsort(-counts, kind="stable")[:10].tolist())
    assert {reuters.label_names[j] for j in top10} >= {"earn", "acq", "money-fx", "grain"}
    assert not top10 & set(unseen)
    assert zero_shot_split(reuters, seed=1)[1] != unseen

    filtered = remove_unseen_from_train(reuters, unseen)
    assert not any(set(doc) & set(unseen) for doc in filtered.train_labels)
    expected = sum(1 for doc in reuters.train_labels if not set(doc) & set(unseen))
    assert len(filtered.train_texts) == expected
    assert filtered.test_labels == reuters.test_labels


def test_reuters_missing_without_download_raises(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="reut2-000.sgm"):
        load_reuters(tmp_path / "nothing", download=False)
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "env"))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "env" / "reuters21578")):
        load_reuters(download=False)


_SGML_RECORDS = [
    # (TOPICS, LEWISSPLIT, NEWID, topics, text element)
    (
        "YES",
        "TRAIN",
        1,
        ["grain", "wheat"],
        "<TEXT>&#2;\n<TITLE>WHEAT &amp; GRAIN UP</TITLE>\n<DATELINE>    CHICAGO, Feb 26 - "
        "</DATELINE><BODY>Wheat rose &lt;5 pct&gt; today.\n Reuter\n&#3;</BODY></TEXT>",
    ),
    (
        "YES",
        "TRAIN",
        2,
        ["wheat"],
        '<TEXT TYPE="BRIEF">&#2;\n******<TITLE>WHEAT BRIEF\n</TITLE>Blah blah blah.\n&#3;\n\n</TEXT>',
    ),
    ("YES", "TRAIN", 3, ["acq"], "<TEXT>&#2;\n<TITLE>ONLY IN TRAIN</TITLE><BODY>Acq body.\n&#3;</BODY></TEXT>"),
    ("NO", "TRAIN", 4, ["wheat"], "<TEXT>&#2;\n<TITLE>NOT TOPICS</TITLE><BODY>x\n&#3;</BODY></TEXT>"),
    ("YES", "NOT-USED", 5, ["wheat"], "<TEXT>&#2;\n<TITLE>NOT USED</TITLE><BODY>x\n&#3;</BODY></TEXT>"),
    (
        "YES",
        "TEST",
        7,
        ["wheat", "yen"],
        "<TEXT>&#2;\n<TITLE>TEST WHEAT</TITLE><BODY>Body &#127;text.\n&#3;</BODY></TEXT>",
    ),
    ("YES", "TEST", 6, ["grain"], '<TEXT TYPE="UNPROC">&#2;\nGRAIN TABLE - FEB 26\n  a ...... 1\n&#3;</TEXT>'),
]


def _fake_archive(path):
    docs = ['<!DOCTYPE lewis SYSTEM "lewis.dtd">']
    for topics_attr, split, newid, topics, text in _SGML_RECORDS:
        d = "".join(f"<D>{t}</D>" for t in topics)
        docs.append(
            f'<REUTERS TOPICS="{topics_attr}" LEWISSPLIT="{split}" CGISPLIT="TRAINING-SET" '
            f'OLDID="{newid + 100}" NEWID="{newid}">\n<DATE>26-FEB-1987</DATE>\n'
            f"<TOPICS>{d}</TOPICS>\n<PLACES></PLACES>\n{text}\n</REUTERS>"
        )
    files = {"reut2-000.sgm": "\n".join(docs).encode("latin-1")}
    for i in range(1, 22):
        files[f"reut2-{i:03d}.sgm"] = b'<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'
    files["cat-descriptions_120396.txt"] = (
        b"****Subject Codes (135)\n\n**Currency Codes (27)\n\nJapanese Yen (YEN)\n\n"
        b"**Commodity Codes (78)\n\nGRAIN\nWHEAT\n\n______\n"
    )
    with tarfile.open(path, "w:gz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))


def test_reuters_download_path_and_sgml_parsing(tmp_path, monkeypatch):
    """No network: a fake get_file serves a tiny archive in the real format."""
    archive = tmp_path / "fake.tar.gz"
    _fake_archive(archive)
    calls = []

    def fake_get_file(fname, origin, file_hash=None, cache_dir=None, cache_subdir=None, **kwargs):
        calls.append((origin, file_hash))
        target = tmp_path / cache_dir / cache_subdir / fname
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(archive, target)
        return str(target)

    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    data_dir = tmp_path / "data" / "reuters21578"
    data = load_reuters(data_dir)
    assert calls == [(reuters_module.REUTERS_URL, reuters_module.REUTERS_SHA256)]
    assert (data_dir / "original" / "reut2-021.sgm").is_file()
    assert data.label_names == ["grain", "wheat"]  # acq: train only; yen: test only.
    assert data.label_descriptions == ["grain", "wheat"]
    assert data.train_ids == ["training/1", "training/2"]
    assert data.train_texts == [
        "WHEAT & GRAIN UP\nWheat rose <5 pct> today.\n Reuter",
        "WHEAT BRIEF",
    ]
    assert data.train_labels == [[0, 1], [1]]
    assert data.test_ids == ["test/6", "test/7"]  # NEWID order.
    assert data.test_texts == ["GRAIN TABLE - FEB 26\n  a ...... 1", "TEST WHEAT\nBody text."]
    assert data.test_labels == [[0], [1]]
    # A second load finds the extracted files and does not download again.
    load_reuters(data_dir)
    assert len(calls) == 1


# ---------------------------------------------------------------- TextClassificationData


def test_validation_split_is_deterministic_and_disjoint():
    data = _small_data()
    a = data.validation_split(3, seed=0)
    assert a == data.validation_split(3, seed=0)
    assert len(a.val_texts) == 3 and len(a.train_texts) == 7
    assert sorted(a.train_ids + a.val_ids) == sorted(data.train_ids)
    assert not set(a.train_ids) & set(a.val_ids)
    for texts, labels, ids in ((a.train_texts, a.train_labels, a.train_ids), (a.val_texts, a.val_labels, a.val_ids)):
        for text, doc_labels, doc_id in zip(texts, labels, ids):
            i = data.train_ids.index(doc_id)
            assert (data.train_texts[i], data.train_labels[i]) == (text, doc_labels)
    assert a.val_ids == sorted(a.val_ids, key=data.train_ids.index)
    assert len(data.validation_split(0.2, seed=0).val_texts) == 2
    assert data.validation_split(3, seed=1).val_ids != a.val_ids
    assert a.test_texts == data.test_texts
    with pytest.raises(ValueError, match="already has a validation split"):
        a.validation_split(1)
    for bad in (0, 10, 1.5, 0.0, "3", True):
        with pytest.raises(ValueError):
            data.validation_split(bad)


def test_multi_hot_counts_and_checks():
    data = _small_data()
    y = data.multi_hot("test")
    assert y.dtype == np.float32 and y.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert data.label_counts("train").tolist() == [4, 3, 4]
    assert data.multi_hot("val").shape == (0, 3)
    assert "train=10" in repr(data)
    with pytest.raises(ValueError, match="split"):
        data.multi_hot("dev")
    with pytest.raises(ValueError, match="out of range"):
        data.replace(test_labels=[[0], [3], [1]])
    with pytest.raises(ValueError, match="label_descriptions"):
        data.replace(label_descriptions=["a"])
    with pytest.raises(ValueError, match="as many"):
        data.replace(test_ids=["x"])


def test_restrict_labels_and_remove_unseen():
    data = _small_data().validation_split(4, seed=0)
    filtered = remove_unseen_from_train(data, [2])
    assert not any(2 in doc for doc in filtered.train_labels + filtered.val_labels)
    assert filtered.test_labels == data.test_labels
    assert len(filtered.train_texts) + len(filtered.val_texts) == 6

    sub = restrict_labels(data, [2, 0])
    assert sub.label_names == ["c", "a"] and sub.label_descriptions == ["c: third", "a: first"]
    assert sub.test_labels == [[1], [0], [0]]
    assert len(sub.test_texts) == 3
    dropped = restrict_labels(data, [1], drop_empty=True)
    assert dropped.test_ids == ["test/1"] and dropped.test_labels == [[0]]
    with pytest.raises(ValueError, match="unique"):
        restrict_labels(data, [0, 0])
    with pytest.raises(ValueError, match="out of range"):
        restrict_labels(data, [5])


def test_zero_shot_split_arguments():
    data = _small_data()
    with pytest.raises(ValueError, match="unseen_fraction"):
        zero_shot_split(data, unseen_fraction=1.0)
    with pytest.raises(ValueError, match="Cannot hold out"):
        zero_shot_split(data, unseen_fraction=0.5, exclude_top=3)
    seen, unseen = zero_shot_split(data, unseen_fraction=0.3, exclude_top=1)
    assert len(unseen) == 1 and unseen[0] != 0  # Label 0 is the most frequent (ties by index).


# ---------------------------------------------------------------- demo dataset


def _fingerprint(data):
    payload = [
        data.train_texts,
        data.train_labels,
        data.test_texts,
        data.test_labels,
        data.label_names,
        data.label_descriptions,
    ]
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()


def test_demo_is_deterministic(demo):
    data, unseen = demo
    again, unseen_again = load_demo()
    assert again == data and unseen_again == unseen
    assert _fingerprint(data) == DEMO_FINGERPRINT
    other, _ = load_demo(num_train=50, num_test=10, seed=1)
    assert other.train_texts != data.train_texts[:50]


def test_demo_sizes_and_labels(demo):
    data, unseen = demo
    assert len(data.train_texts) == 3000 and len(data.test_texts) == 600
    assert data.num_labels == 16
    assert unseen == [3, 7, 11, 15]
    assert [data.label_names[j] for j in unseen] == ["swimming", "unemployment", "marine-biology", "theatre"]
    for labels in data.train_labels + data.test_labels:
        assert 1 <= len(labels) <= 3 and labels == sorted(set(labels))
    words = np.array([len(t.split()) for t in data.train_texts + data.test_texts])
    assert 90 <= words.mean() <= 200 and words.min() >= 40
    assert all(t.count(". ") >= 5 for t in data.train_texts[:100])
    assert (data.label_counts("test") >= 25).all()
    for name, description in zip(data.label_names, data.label_descriptions):
        assert description.startswith(name.replace("-", " ") + ": ")
        assert len(description.split()) >= 10


def test_demo_unseen_labels_in_test_not_in_filtered_train(demo):
    data, unseen = demo
    test_counts = data.label_counts("test")
    assert all(test_counts[j] > 0 for j in unseen)
    filtered = remove_unseen_from_train(data, unseen)
    assert not any(set(doc) & set(unseen) for doc in filtered.train_labels)
    assert 1800 <= len(filtered.train_texts) <= 2300
    seen = [j for j in range(data.num_labels) if j not in unseen]
    assert (filtered.label_counts("train")[seen] > 100).all()


def test_demo_unseen_descriptions_share_words(demo):
    """Unseen descriptions share words with their family's seen labels and documents."""
    data, unseen = demo

    def content(text):
        return {w.strip(".,:()").lower() for w in text.split()} - {
            "the",
            "and",
            "of",
            "in",
            "a",
            "to",
            "on",
            "for",
            "with",
            "from",
            "or",
            "by",
            "at",
        }

    for j in unseen:
        family = range(4 * (j // 4), 4 * (j // 4) + 4)
        described = content(data.label_descriptions[j])
        siblings = set().union(*(content(data.label_descriptions[k]) for k in family if k != j))
        assert described & siblings, data.label_names[j]
        docs = [t for t, labels in zip(data.test_texts, data.test_labels) if j in labels]
        share = np.mean([len(described & content(t)) >= 2 for t in docs])
        assert share > 0.85, (data.label_names[j], share)


def test_demo_zero_shot_tfidf_baseline(demo):
    """Lexical matching of documents to descriptions ranks unseen labels far above chance."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import label_ranking_average_precision_score as lrap

    data, unseen = demo
    train = remove_unseen_from_train(data, unseen)
    vectorizer = TfidfVectorizer(sublinear_tf=True).fit(train.train_texts + data.label_descriptions)
    evaluation = restrict_labels(data, unseen, drop_empty=True)
    y = evaluation.multi_hot("test")
    docs = vectorizer.transform(evaluation.test_texts)
    labels = vectorizer.transform(evaluation.label_descriptions)
    tfidf = lrap(y, (docs @ labels.T).toarray())
    rng = np.random.RandomState(0)
    chance = np.mean([lrap(y, rng.rand(*y.shape)) for _ in range(50)])

    y_all = data.multi_hot("test")
    scores_all = (vectorizer.transform(data.test_texts) @ vectorizer.transform(data.label_descriptions).T).toarray()
    tfidf_all = lrap(y_all, scores_all)
    chance_all = np.mean([lrap(y_all, rng.rand(*y_all.shape)) for _ in range(20)])
    print(
        f"\ndemo zero-shot LRAP, {len(y)} test docs with an unseen label, 4 unseen labels: "
        f"tf-idf {tfidf:.3f}, random {chance:.3f}; all 600 test docs, all 16 labels: "
        f"tf-idf {tfidf_all:.3f}, random {chance_all:.3f}"
    )
    assert len(y) >= 150
    assert tfidf > 0.85 and tfidf > chance + 0.3
    assert tfidf_all > chance_all + 0.4
