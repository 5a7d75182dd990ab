"""Where loaders look for data, and how they download it (never over the network here: get_file is patched)."""

import io
import pathlib
import tarfile
import zipfile

import keras
import pytest

from benchmarks.datasets import (
    DATASET_SOURCES,
    DatasetDownloadError,
    dataset_dir,
    load_newsgroups,
    load_ptb,
    load_reuters,
    load_wikitext2,
    locate_dataset,
)
from benchmarks.datasets.paths import download_dataset, extract_archive, keras_cache_dir

PTB_TEXT = b" the cat sat \n the dog ran \n"


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    """No $KERAS_LABELEMB_DATA; the Keras cache in tmp_path. Returns the cache's keras_labelemb folder."""
    monkeypatch.delenv("KERAS_LABELEMB_DATA", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    return tmp_path / "keras_home" / "datasets" / "keras_labelemb"


@pytest.fixture
def get_file_calls(monkeypatch):
    """Patches keras.utils.get_file: it serves the bytes registered in `served[url]` and records each call."""
    served, calls = {}, []

    def get_file(fname, origin, cache_dir=None, cache_subdir="datasets", **kwargs):
        calls.append(origin)
        if origin not in served:
            raise Exception(f"URL fetch failure on {origin}: None -- [Errno -3] Temporary failure in name resolution")
        path = pathlib.Path(cache_dir) / cache_subdir / fname
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(served[origin])
        return str(path)

    monkeypatch.setattr(keras.utils, "get_file", get_file)
    return served, calls


def serve_ptb(served, text=PTB_TEXT):
    for url in DATASET_SOURCES["ptb"].urls:
        served[url] = text


def write_ptb(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid", "test"):
        (folder / f"ptb.{split}.txt").write_text(text)


def test_resolution_order(monkeypatch, tmp_path, no_env):
    assert keras_cache_dir() == no_env
    assert dataset_dir("ptb") == no_env / "ptb"
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "shared"))
    assert dataset_dir("ptb") == tmp_path / "shared" / "ptb"
    assert dataset_dir("ptb", data_dir=tmp_path / "mine") == tmp_path / "mine"
    assert dataset_dir("ptb", data_dir=str(tmp_path / "mine")) == tmp_path / "mine"


def test_keras_cache_defaults_to_home(monkeypatch, tmp_path):
    monkeypatch.delenv("KERAS_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert keras_cache_dir() == tmp_path / ".keras" / "datasets" / "keras_labelemb"


def test_loaders_read_data_dir_before_the_env_folder(monkeypatch, tmp_path, get_file_calls):
    """No download when the files are on disk; an explicit data_dir beats $KERAS_LABELEMB_DATA."""
    write_ptb(tmp_path / "env" / "ptb", " env words here \n")
    write_ptb(tmp_path / "mine", " mine only \n")
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "env"))
    assert set(load_ptb().vocabulary) == {"env", "words", "here", "<eos>"}
    assert set(load_ptb(tmp_path / "mine").vocabulary) == {"mine", "only", "<eos>"}
    assert get_file_calls[1] == []


def test_ptb_downloads_into_the_keras_cache(no_env, get_file_calls):
    served, calls = get_file_calls
    serve_ptb(served)
    data = load_ptb()
    assert sorted(calls) == sorted(DATASET_SOURCES["ptb"].urls)
    assert (no_env / "ptb" / "ptb.train.txt").read_bytes() == PTB_TEXT
    assert set(data.vocabulary) == {"the", "cat", "sat", "dog", "ran", "<eos>"}
    # On disk now: a second load reads the files and downloads nothing.
    calls.clear()
    load_ptb()
    assert calls == []


def test_download_goes_into_the_env_folder_when_set(monkeypatch, tmp_path, get_file_calls):
    serve_ptb(get_file_calls[0])
    monkeypatch.setenv("KERAS_LABELEMB_DATA", str(tmp_path / "env"))
    load_ptb()
    assert (tmp_path / "env" / "ptb" / "ptb.valid.txt").is_file()


def test_wikitext2_reads_the_unpacked_zip(no_env, get_file_calls):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for split in ("train", "valid", "test"):
            zipped.writestr(f"wikitext-2/wiki.{split}.tokens", " = A = \n the cat sat \n")
    served, calls = get_file_calls
    (url,) = DATASET_SOURCES["wikitext2"].urls
    served[url] = buffer.getvalue()
    data = load_wikitext2()
    assert calls == [url]
    assert (no_env / "wikitext2" / "wikitext-2" / "wiki.train.tokens").is_file()
    assert set(data.vocabulary) == {"=", "A", "the", "cat", "sat", "<eos>"}


def test_newsgroups_reads_the_unpacked_tarball(no_env, get_file_calls):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for split in ("train", "test"):
            for group, number in (("sci.med", 1), ("rec.autos", 2)):
                body = f"From: a@b\nSubject: s\n\n{group} message {split}\n".encode()
                info = tarfile.TarInfo(f"20news-bydate-{split}/{group}/{number}")
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    served, calls = get_file_calls
    (url,) = DATASET_SOURCES["20newsgroups_bydate"].urls
    served[url] = buffer.getvalue()
    data = load_newsgroups()
    assert calls == [url]
    assert data.label_names == ["rec.autos", "sci.med"]
    assert sorted(text.strip() for text in data.test_texts) == ["rec.autos message test", "sci.med message test"]
    assert (no_env / "20newsgroups_bydate" / "20news-bydate-train" / "sci.med" / "1").is_file()


LOADERS = {
    "ptb": load_ptb,
    "wikitext2": load_wikitext2,
    "20newsgroups_bydate": load_newsgroups,
    "reuters21578": load_reuters,
}


def test_every_loader_has_a_source():
    assert set(DATASET_SOURCES) == set(LOADERS)


@pytest.mark.parametrize("subfolder", sorted(LOADERS))
def test_offline_error_names_the_url_and_the_way_out(no_env, get_file_calls, subfolder):
    with pytest.raises(DatasetDownloadError) as error:
        LOADERS[subfolder]()
    message = str(error.value)
    assert DATASET_SOURCES[subfolder].urls[0] in message
    assert "data_dir" in message and "KERAS_LABELEMB_DATA" in message and f"`{subfolder}/`" in message
    assert isinstance(error.value, OSError)
    assert not any(p.name.startswith(".partial") for p in (no_env / subfolder).iterdir())


@pytest.mark.parametrize("subfolder", sorted(LOADERS))
def test_no_download_when_asked_not_to(tmp_path, get_file_calls, subfolder):
    with pytest.raises(FileNotFoundError) as error:
        LOADERS[subfolder](tmp_path / "empty", download=False)
    assert "data_dir" in str(error.value) and "KERAS_LABELEMB_DATA" in str(error.value)
    assert str(tmp_path / "empty") in str(error.value)
    assert get_file_calls[1] == []


def test_dataset_without_a_public_url(no_env, get_file_calls):
    with pytest.raises(FileNotFoundError, match="no public download") as error:
        locate_dataset("aapd", lambda folder: None, expected="text_train")
    assert "data_dir" in str(error.value) and "KERAS_LABELEMB_DATA" in str(error.value)
    assert str(no_env / "aapd") in str(error.value)
    assert get_file_calls[1] == []
    with pytest.raises(ValueError, match="aapd"):
        download_dataset("aapd")


def test_failed_download_leaves_no_half_dataset(no_env, get_file_calls):
    """The second PTB file fails: nothing is moved into the dataset's folder."""
    served, calls = get_file_calls
    served[DATASET_SOURCES["ptb"].urls[0]] = PTB_TEXT
    with pytest.raises(DatasetDownloadError, match="ptb.valid.txt"):
        load_ptb()
    assert sorted(p.name for p in (no_env / "ptb").iterdir()) == ["download"]


def test_archive_without_the_expected_files(no_env, get_file_calls):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("something-else/readme.txt", "moved")
    served, _ = get_file_calls
    served[DATASET_SOURCES["wikitext2"].urls[0]] = buffer.getvalue()
    with pytest.raises(FileNotFoundError, match="wiki.train.tokens.*layout"):
        load_wikitext2()


def test_nested_archives_are_unpacked(tmp_path, get_file_calls):
    """An archive inside the downloaded one (Reuters: a .tar.gz in UCI's zip) is unpacked in place."""
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as tar:
        info = tarfile.TarInfo("reut2-000.sgm")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    outer = io.BytesIO()
    with zipfile.ZipFile(outer, "w") as zipped:
        zipped.writestr("reuters21578.tar.gz", inner.getvalue())
    served, _ = get_file_calls
    served[DATASET_SOURCES["reuters21578"].urls[0]] = outer.getvalue()
    target = download_dataset("reuters21578", tmp_path / "reuters")
    assert target == tmp_path / "reuters" / "original"
    assert sorted(p.name for p in target.iterdir()) == ["reut2-000.sgm"]


def test_extract_archive_refuses_paths_outside_the_target(tmp_path):
    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("../outside.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises((ValueError, tarfile.TarError)):
        extract_archive(archive, tmp_path / "target")
    assert not (tmp_path / "outside.txt").exists()
