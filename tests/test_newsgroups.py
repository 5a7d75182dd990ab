"""20 Newsgroups bydate loader: counts, labels, headers, and the original folder layout."""

import gzip
import json

import numpy as np
import pytest
from conftest import skip_missing_data

from benchmarks.datasets import load_newsgroups
from benchmarks.datasets.newsgroups import message_subject, newsgroup_description, strip_headers
from keras_labelemb.datasets import TextClassificationData


@pytest.fixture(scope="module")
def newsgroups_dir(data_dir):
    path = data_dir / "20newsgroups_bydate"
    if not (path / "train.jsonl.gz").is_file():
        skip_missing_data("20 Newsgroups", path)
    return path


@pytest.fixture(scope="module")
def newsgroups(newsgroups_dir):
    return load_newsgroups(newsgroups_dir, download=False)


def test_counts_and_labels(newsgroups):
    data = newsgroups
    assert isinstance(data, TextClassificationData)
    assert (len(data.train_texts), len(data.test_texts), data.num_labels) == (11314, 7532, 20)
    assert all(len(labels) == 1 for labels in data.train_labels + data.test_labels)
    assert data.label_names == sorted(data.label_names)
    train, test = data.label_counts("train"), data.label_counts("test")
    assert train.sum() == 11314 and test.sum() == 7532
    # Per-class counts known from scikit-learn's copy.
    for name, n_train, n_test in [
        ("alt.atheism", 480, 319),
        ("comp.graphics", 584, 389),
        ("talk.religion.misc", 377, 251),
    ]:
        j = data.label_names.index(name)
        assert (train[j], test[j]) == (n_train, n_test)
    assert data.train_ids[0].startswith("train/") and data.test_ids[0].startswith("test/")
    assert len(set(data.train_ids + data.test_ids)) == 11314 + 7532
    np.testing.assert_array_equal(data.multi_hot("test").sum(axis=1), 1.0)


def test_label_descriptions_are_readable(newsgroups):
    descriptions = dict(zip(newsgroups.label_names, newsgroups.label_descriptions))
    assert descriptions["comp.sys.mac.hardware"] == "computer systems mac hardware"
    assert descriptions["sci.med"] == "science medicine"
    assert descriptions["rec.sport.hockey"] == "recreation sport hockey"
    assert all("." not in d for d in descriptions.values())


def test_headers_removed_by_default(newsgroups_dir, newsgroups):
    with_headers = load_newsgroups(newsgroups_dir, remove_headers=False, download=False)
    starts = sum(t.startswith("From:") for t in with_headers.train_texts)
    assert starts > 0.9 * len(with_headers.train_texts)
    # A few bodies start with a forwarded message's own "From:" line.
    assert sum(t.startswith("From:") for t in newsgroups.train_texts) < 0.01 * len(newsgroups.train_texts)
    assert all(b in h for b, h in zip(newsgroups.test_texts[:200], with_headers.test_texts[:200]))
    assert with_headers.train_labels == newsgroups.train_labels


def test_custom_label_descriptions(newsgroups_dir):
    data = load_newsgroups(newsgroups_dir, label_descriptions={"sci.space": "outer space", "nope": "x"}, download=False)
    assert data.label_descriptions[data.label_names.index("sci.space")] == "outer space"


def test_original_folder_layout_and_jsonl_agree(tmp_path):
    """A tiny copy in the layout of 20news-bydate.tar.gz, and the same in JSON lines."""
    messages = {
        "train": [
            ("sci.space", "61", "From: a@b\nSubject: orbit\n\nThe shuttle flew.\n"),
            ("alt.atheism", "7", "From: c@d\n\nNo gods.\n"),
        ],
        "test": [("sci.space", "100", "Subject: x\n\nMars\n"), ("alt.atheism", "9", "no blank line")],
    }
    tree = tmp_path / "tree"
    jsonl = tmp_path / "jsonl"
    jsonl.mkdir()
    for split, items in messages.items():
        for group, number, text in items:
            folder = tree / f"20news-bydate-{split}" / group
            folder.mkdir(parents=True, exist_ok=True)
            (folder / number).write_bytes(text.encode("latin-1"))
        with gzip.open(jsonl / f"{split}.jsonl.gz", "wt", encoding="utf-8") as f:
            for group, number, text in items:
                f.write(json.dumps({"id": f"{group}/{number}", "label": group, "text": text}) + "\n")
    from_tree, from_jsonl = load_newsgroups(tree, download=False), load_newsgroups(jsonl, download=False)
    assert from_tree.label_names == ["alt.atheism", "sci.space"]
    assert sorted(from_tree.train_texts) == sorted(from_jsonl.train_texts) == ["No gods.\n", "The shuttle flew.\n"]
    assert sorted(from_tree.test_texts) == ["", "Mars\n"]
    assert from_tree.train_ids == ["train/alt.atheism/7", "train/sci.space/61"]
    with pytest.raises(FileNotFoundError, match="20news-bydate"):
        load_newsgroups(tmp_path / "missing", download=False)
    # Cachopo's preprocessing (Johnson & Zhang's copy): the subject line, then the body.
    with_subject = load_newsgroups(tree, keep_subject=True, download=False)
    assert sorted(with_subject.train_texts) == ["\nNo gods.\n", "orbit\nThe shuttle flew.\n"]
    assert sorted(with_subject.test_texts) == ["\n", "x\nMars\n"]
    assert with_subject.train_labels == from_tree.train_labels


def test_helpers():
    assert newsgroup_description("misc.forsale") == "miscellaneous for sale"
    assert strip_headers("From: x\nSubject: y\n\nbody\n\nmore") == "body\n\nmore"
    assert strip_headers("only headers") == ""
    assert message_subject("From: x\nSUBJECT:  Re: y \n\nSubject: not a header") == "Re: y"
    assert message_subject("From: x\n\nSubject: in the body") == ""


@pytest.mark.slow
def test_the_bundle_trains_oh_2lstmp_under_jax_without_the_texts(newsgroups_dir, tmp_path):
    """The GPU path of benchmarks/newsgroups.py: token ids written here, the paper's recipe (RMSprop, square loss)
    trained from them by JAX in a process that never imports TensorFlow (the GPU machine has none)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("jax")
    from benchmarks import newsgroups as benchmark

    bundle, output = tmp_path / "bundle.npz", tmp_path / "run.json"
    benchmark.main(["--quick", "--data-dir", str(newsgroups_dir), "--write-bundle", str(bundle)])
    with np.load(bundle) as stored:
        assert {"train_ids", "val_ids", "test_ids", "val_y", "test_y"} <= set(stored.files)
        assert stored["train_ids"].shape[0] + stored["val_ids"].shape[0] == 400  # --quick's training documents
    # A module finder that refuses TensorFlow stands in for the GPU machine, where it is not installed.
    code = (
        "import sys\n"
        "class NoTF:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'tensorflow': raise ImportError('no TensorFlow on this machine')\n"
        "sys.meta_path.insert(0, NoTF())\n"
        "from benchmarks import newsgroups\n"
        f"newsgroups.main(['--quick', '--bundle', {str(bundle)!r}, '--parts', 'supervised', '--optimizer', "
        f"'rmsprop', '--loss', 'square', '--output', {str(output)!r}])\n"
    )
    env = {**os.environ, "KERAS_BACKEND": "jax"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True, timeout=300)
    report = json.loads(output.read_text())
    model = report["results"]["models"]["oh_2lstmp"]
    assert 0.0 <= model["error"] <= 1.0 and model["best_epoch"] == 1 and report["results"]["data"]["bundle"]
    assert report["config"]["optimizer"] == "rmsprop" and report["config"]["loss"] == "square"
    with pytest.raises(SystemExit):  # the SVMs read texts: not from a bundle
        benchmark.parse_args(["--bundle", str(bundle), "--parts", "svm"])
