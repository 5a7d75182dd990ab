"""Tests of `reuters`."""

import gzip
import io
import json
import tarfile
import zipfile

import keras
import pytest

from benchmarks.datasets import DATASET_SOURCES, load_reuters
from benchmarks.datasets import reuters as reuters_module

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


def _fake_archive():
    """UCI's layout: a zip holding `reuters21578.tar.gz`, which holds the SGML files and the category list."""
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
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w") as zipped:
        zipped.writestr("reuters21578.tar.gz", inner.getvalue())
    return outer.getvalue()


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


def test_reuters_missing_without_download_raises(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="reut2-000.sgm"):
        load_reuters(tmp_path / "nothing", download=False)
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "env"))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "env" / "reuters21578")):
        load_reuters(download=False)


def test_reuters_download_path_and_sgml_parsing(tmp_path, monkeypatch):
    """No network: a fake get_file serves a tiny archive in the real (nested zip / tar.gz) format."""
    archive = _fake_archive()
    calls = []

    def fake_get_file(fname, origin, cache_dir=None, cache_subdir="datasets", **kwargs):
        calls.append(origin)
        target = tmp_path / cache_dir / cache_subdir / fname
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(archive)
        return str(target)

    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    data_dir = tmp_path / "data" / "reuters21578"
    data = load_reuters(data_dir)
    assert calls == list(DATASET_SOURCES["reuters21578"].urls)
    assert calls[0].startswith("https://archive.ics.uci.edu/")
    assert (data_dir / "original" / "reut2-021.sgm").is_file()
    assert (data_dir / "original" / "cat-descriptions_120396.txt").is_file()
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
