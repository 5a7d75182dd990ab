"""Tests of `aapd`: the loader on the shared copy, its errors on tiny fake copies, and the zero-shot label draw."""

import csv

import pytest
from conftest import skip_missing_data

from benchmarks.datasets import aapd_zero_shot_labels, load_aapd
from benchmarks.datasets.aapd import default_label_description
from benchmarks.datasets.zero_shot_split import zero_shot_split


@pytest.fixture(scope="module")
def aapd_dir(data_dir):
    path = data_dir / "aapd"
    if not (path / "text_val").is_file():
        skip_missing_data("AAPD", path)
    return path


@pytest.fixture(scope="module")
def aapd(aapd_dir):
    return load_aapd(aapd_dir)


def _table(aapd_dir):
    with open(aapd_dir / "label_descriptions.tsv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _write_fake(folder, val_labels=("a b", "b"), test_labels=("a", "b c-d.e", "c-d.e"), val_texts=None):
    """A tiny AAPD-shaped folder with labels a, b (description only a name) and c-d.e (nothing)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "label_descriptions.tsv").write_text(
        "label\tfull_name\tdescription\talt_name\ttrain_docs\tval_docs\ttest_docs\n"
        "a\tAlpha\tFirst letter.\t\t0\t0\t0\n"
        "b\tBeta\t\t\t0\t0\t0\n"
        "c-d.e\t\t\t\t0\t0\t0\n"
    )
    val_texts = val_texts if val_texts is not None else [f"val doc {i}" for i in range(len(val_labels))]
    (folder / "text_val").write_text("".join(t + "\n" for t in val_texts))
    (folder / "label_val").write_text("".join(t + "\n" for t in val_labels))
    (folder / "text_test").write_text("".join(f"test doc {i}\n" for i in range(len(test_labels))))
    (folder / "label_test").write_text("".join(t + "\n" for t in test_labels))
    return folder


def test_aapd_counts_and_label_order(aapd, aapd_dir):
    assert len(aapd.train_texts) == len(aapd.train_labels) == 1000
    assert len(aapd.test_texts) == len(aapd.test_labels) == 1000
    assert aapd.val_texts == []
    assert aapd.num_labels == 54
    table = _table(aapd_dir)
    assert aapd.label_names == [row["label"] for row in table]
    # Per-label document counts match the table's val_docs / test_docs columns.
    assert aapd.label_counts("train").tolist() == [int(row["val_docs"]) for row in table]
    assert aapd.label_counts("test").tolist() == [int(row["test_docs"]) for row in table]
    assert aapd.train_ids[:2] == ["val/0", "val/1"] and aapd.test_ids[-1] == "test/999"
    assert all(2 <= len(doc) <= 8 and doc == sorted(set(doc)) for doc in aapd.train_labels + aapd.test_labels)
    assert aapd.multi_hot("test").shape == (1000, 54)


def test_aapd_documents_match_the_raw_lines(aapd, aapd_dir):
    """Line i of text_X and label_X is document i: checked on a few lines read straight from the files."""
    for split, text_file, label_file, texts, labels in (
        ("train", "text_val", "label_val", aapd.train_texts, aapd.train_labels),
        ("test", "text_test", "label_test", aapd.test_texts, aapd.test_labels),
    ):
        raw_texts = (aapd_dir / text_file).read_text(encoding="utf-8").splitlines()
        raw_labels = (aapd_dir / label_file).read_text(encoding="utf-8").splitlines()
        for i in (0, 1, 517, 999):
            assert texts[i] == raw_texts[i], (split, i)
            assert sorted(aapd.label_names[j] for j in labels[i]) == sorted(raw_labels[i].split()), (split, i)
    assert aapd.train_texts[0].startswith("linked open datasets about scholarly publications")
    assert [aapd.label_names[j] for j in aapd.train_labels[0]] == ["cs.DL", "cs.IR"]
    # The aliases always co-occur.
    multi_hot = aapd.multi_hot("test")
    it = [aapd.label_names.index(c) for c in ("cs.IT", "math.IT")]
    assert (multi_hot[:, it[0]] == multi_hot[:, it[1]]).all()


def test_aapd_label_descriptions(aapd):
    descriptions = dict(zip(aapd.label_names, aapd.label_descriptions))
    assert all(d.strip() for d in aapd.label_descriptions)
    assert descriptions["cmp-lg"] == "Computation and Language"
    assert descriptions["quant-ph"] == "Quantum Physics"
    assert descriptions["cs.CG"] == (
        "Computational Geometry: Roughly includes material in ACM Subject Classes I.3.5 and F.2.2."
    )
    assert descriptions["cs.CL"].startswith("Computation and Language: Covers natural language processing.")


def test_aapd_zero_shot_labels(aapd):
    seen, unseen = aapd_zero_shot_labels(aapd)
    assert (seen, unseen) == aapd_zero_shot_labels(aapd, num_unseen=14, min_test_documents=5, seed=0)
    assert len(unseen) == 14 and unseen == sorted(unseen) and seen == sorted(seen)
    assert sorted(seen + unseen) == list(range(54))
    test_counts = aapd.label_counts("test")
    assert all(test_counts[j] >= 5 for j in unseen)
    assert aapd.label_names.index("math.NT") not in unseen  # 4 test documents: never drawn.
    draws = {tuple(aapd_zero_shot_labels(aapd, seed=seed)[1]) for seed in range(5)}
    assert len(draws) == 5
    assert aapd_zero_shot_labels(aapd, seed=3) == aapd_zero_shot_labels(aapd, seed=3)
    assert all(test_counts[j] >= 30 for j in aapd_zero_shot_labels(aapd, num_unseen=3, min_test_documents=30)[1])


def test_aapd_missing_folder(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="text_val") as error:
        load_aapd(tmp_path / "nothing")
    assert str(tmp_path / "nothing") in str(error.value) and "no public download" in str(error.value)
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "env"))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "env" / "aapd")):
        load_aapd()
    folder = _write_fake(tmp_path / "partial")
    (folder / "label_test").unlink()
    with pytest.raises(FileNotFoundError, match="label_test"):
        load_aapd(folder)


def test_aapd_fake_copy_and_description_fallbacks(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path))
    _write_fake(tmp_path / "aapd")
    data = load_aapd()
    assert data.label_names == ["a", "b", "c-d.e"]
    assert data.label_descriptions == ["Alpha: First letter.", "Beta", "c d e"]
    assert data.train_labels == [[0, 1], [1]] and data.test_labels == [[0], [1, 2], [2]]
    assert data.train_texts == ["val doc 0", "val doc 1"] and data.test_ids == ["test/0", "test/1", "test/2"]
    custom = load_aapd(label_descriptions={"b": "Beta: second letter", "zzz": "ignored"})
    assert custom.label_descriptions == ["Alpha: First letter.", "Beta: second letter", "c d e"]
    assert default_label_description("x.y", "", "only a description") == "only a description"


def test_aapd_misaligned_or_bad_lines(tmp_path):
    folder = _write_fake(tmp_path / "short", val_texts=["only one text"])
    with pytest.raises(ValueError, match="line-aligned") as error:
        load_aapd(folder)
    assert str(folder / "text_val") in str(error.value) and str(folder / "label_val") in str(error.value)
    with pytest.raises(ValueError, match="not in label_descriptions.tsv"):
        load_aapd(_write_fake(tmp_path / "unknown", test_labels=("a", "zzz")))
    with pytest.raises(ValueError, match="Line 2 of .*label_val has no label"):
        load_aapd(_write_fake(tmp_path / "empty", val_labels=("a", " ")))


def test_zero_shot_split_count_and_min_test_documents(tmp_path):
    # Test counts: a 1, b 2, c-d.e 3.
    data = load_aapd(_write_fake(tmp_path / "aapd", test_labels=("a", "b c-d.e", "b c-d.e", "c-d.e")))
    assert zero_shot_split(data, exclude_top=0, num_unseen=1, min_test_documents=3) == ([0, 1], [2])
    assert aapd_zero_shot_labels(data, num_unseen=2, min_test_documents=2, seed=1) == ([0], [1, 2])
    # num_unseen replaces unseen_fraction, which is then not checked.
    assert len(zero_shot_split(data, unseen_fraction=5.0, exclude_top=0, num_unseen=3)[1]) == 3
    with pytest.raises(ValueError, match="have 3\\+ test documents"):
        aapd_zero_shot_labels(data, num_unseen=2, min_test_documents=3)
    for bad in ({"num_unseen": 0}, {"num_unseen": 1.5}, {"min_test_documents": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            zero_shot_split(data, exclude_top=0, **bad)
