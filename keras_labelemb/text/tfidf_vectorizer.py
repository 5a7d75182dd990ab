"""`TfidfVectorizer`: raw strings -> l2-normalised tf-idf of word n-grams, in-graph (the wide path's features)."""

import collections
import os

import keras
import numpy as np
import tensorflow as tf
import tensorflow_text as tf_text

from keras_labelemb.argument_checks import check_bool, check_positive_int
from keras_labelemb.text.string_layer import StringLayer
from keras_labelemb.text.tokenize import tokenize
from keras_labelemb.text.vocabulary import _as_string_dataset

TERMS_FILE = "terms.txt"
IDF_FILE = "idf.npy"


@keras.saving.register_keras_serializable(package="keras_labelemb")
class TfidfVectorizer(StringLayer):
    """Maps raw strings to the l2-normalised tf-idf vectors of their word n-grams, in-graph.

    The terms of a document are its words (normalised and tokenised exactly as
    `TextVectorizer` does, over the whole document: no truncation) and their
    n-grams up to `ngrams` words, joined by a space. With `tf` the count of a
    term in the document (`1 + log(count)` when `sublinear_tf`), `n` the
    number of documents `adapt` read and `df` the number of them holding the
    term:

        x_t = tf_t * idf_t,   idf_t = log((1 + n) / (1 + df_t)) + 1,   x = x / ||x||_2

    which is scikit-learn's `TfidfVectorizer(ngram_range=(1, ngrams),
    sublinear_tf=..., min_df=..., max_features=...)` fitted on the same
    tokens (tested to 1e-6), with its column order (terms sorted). Terms not
    in the vocabulary are dropped; a document with none of its terms there
    (an empty string, say) gives the zero vector.

    It is the feature side of the wide path (`WideHead`): a linear model over
    these features is what a tuned tf-idf SVM is. The output is a
    `tf.SparseTensor` `(B, F)` (`sparse=True`, default) or a dense tensor. Like
    `TextVectorizer` it runs TensorFlow ops: in `tf.data` under any backend,
    and inside a model or a SavedModel with the TensorFlow backend (the lookup
    table is a tracked resource). The adapted terms and idf are not config: a
    `.keras` file keeps them as assets (`save_assets` / `load_assets`).

    Args:
        vocabulary: `None` (call `adapt()`), or the terms (a list of
            strings), with `idf`: their idf `(F,)`. Given here, they are part
            of the config; adapted ones are saved as assets.
        idf: the idf of each term of `vocabulary`.
        ngrams: longest n-gram, in words (1 = words only). Default 2.
        max_features: `None` or the number of terms kept, the most frequent
            over the corpus (as scikit-learn). Default None.
        min_df: keep terms found in at least this many documents. Default 1.
        sublinear_tf: `1 + log(count)` term frequencies. Default True.
        sparse: output a `tf.SparseTensor` (default) or a dense tensor.
        lowercase: lowercase the text, as `TextVectorizer`. Default True.
        unicode_form: Unicode normalisation, as `TextVectorizer`. Default `"NFKC"`.
        replace_numbers: read numbers as one token, as `TextVectorizer`. Default True.
        **kwargs: base `keras.layers.Layer` arguments (`name`, ...).

    Example:

    >>> features = TfidfVectorizer(ngrams=2, sparse=False)
    >>> features.adapt(["wheat prices rose", "wheat exports fell"])
    >>> features.get_vocabulary()[:4]
    ['exports', 'exports fell', 'fell', 'prices']
    >>> x = features(tf.constant(["wheat prices", ""])).numpy()
    >>> x.shape, np.round(np.linalg.norm(x, axis=1), 3).tolist()
    ((2, 9), [1.0, 0.0])
    """

    def __init__(
        self,
        vocabulary=None,
        idf=None,
        ngrams=2,
        max_features=None,
        min_df=1,
        sublinear_tf=True,
        sparse=True,
        lowercase=True,
        unicode_form="NFKC",
        replace_numbers=True,
        **kwargs,
    ):
        super().__init__(lowercase=lowercase, unicode_form=unicode_form, replace_numbers=replace_numbers, **kwargs)
        self.ngrams = check_positive_int("ngrams", ngrams)
        self.max_features = None if max_features is None else check_positive_int("max_features", max_features)
        self.min_df = check_positive_int("min_df", min_df)
        self.sublinear_tf = check_bool("sublinear_tf", sublinear_tf)
        self.sparse = check_bool("sparse", sparse)
        self._terms_list = None
        self._idf = None
        self._table = None
        # Terms given to the constructor are config (a few, written by hand); adapted ones are assets.
        self._terms_in_config = vocabulary is not None
        if (vocabulary is None) != (idf is None):
            raise ValueError(
                "`vocabulary` and `idf` go together (the terms and their idf). "
                f"Received: vocabulary={'set' if vocabulary is not None else None}, "
                f"idf={'set' if idf is not None else None}"
            )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf)
        self.built = True

    # ------------------------------------------------------------------ vocabulary
    def terms(self, strings):
        """The terms of 1-D `strings`: a `tf.RaggedTensor` `(N, None)` of words and their n-grams."""
        words = tokenize(self.normalize(strings))
        grams = [words] + [
            tf_text.ngrams(words, width, reduction_type=tf_text.Reduction.STRING_JOIN, string_separator=" ")
            for width in range(2, self.ngrams + 1)
        ]
        return tf.concat(grams, axis=1) if len(grams) > 1 else words

    def adapt(self, data, batch_size=1024):
        """Chooses the terms and their idf from documents (a list, array, string tensor or string dataset)."""
        check_positive_int("batch_size", batch_size)
        df, total, n = collections.Counter(), collections.Counter(), 0
        for strings in _as_string_dataset(data, batch_size):
            for row in self.terms(strings).to_list():
                counts = collections.Counter(row)
                df.update(counts.keys())
                total.update(counts)
                n += 1
        if n == 0:
            raise ValueError("`data` holds no documents to adapt the tf-idf vocabulary to. Received: 0 documents")
        kept = [term for term, count in df.items() if count >= self.min_df]
        if self.max_features is not None and len(kept) > self.max_features:
            kept = sorted(kept, key=lambda term: (-total[term], term))[: self.max_features]
        terms = sorted(term.decode("utf-8") for term in kept)
        counts = np.array([df[term.encode("utf-8")] for term in terms], "float64")
        self._terms_in_config = False
        self.set_vocabulary(terms, np.log((1.0 + n) / (1.0 + counts)) + 1.0)

    def set_vocabulary(self, terms, idf):
        """Sets the terms (a list of strings) and their idf `(F,)` directly."""
        terms = [t.decode("utf-8") if isinstance(t, bytes) else t for t in terms]
        idf = np.asarray(idf, "float32").reshape(-1)
        if not terms or any(not isinstance(t, str) or not t or "\n" in t for t in terms):
            raise ValueError(
                f"`terms` must be a non-empty list of non-empty one-line strings. Received: terms={terms[:5]!r}"
            )
        if len(set(terms)) != len(terms) or idf.shape != (len(terms),) or not np.all(np.isfinite(idf)):
            raise ValueError(
                f"`terms` must be distinct, with one finite idf each. Received: {len(terms)} terms "
                f"({len(set(terms))} distinct) and idf with shape {idf.shape}"
            )
        self._terms_list, self._idf = tuple(terms), tf.constant(idf)
        initializer = tf.lookup.KeyValueTensorInitializer(
            keys=tf.constant(terms, tf.string), values=tf.range(len(terms), dtype=tf.int64)
        )
        self._table = tf.lookup.StaticHashTable(initializer, default_value=-1)

    def get_vocabulary(self):
        """The terms, in column order (sorted, as scikit-learn's `get_feature_names_out`)."""
        return list(self._terms_list or ())

    @property
    def idf(self):
        """The idf of each term `(F,)` as a NumPy array."""
        self._require_vocabulary()
        return self._idf.numpy()

    @property
    def num_features(self):
        """`F`, the number of terms; `None` before `adapt`."""
        return len(self._terms_list) if self._terms_list is not None else None

    def _require_vocabulary(self):
        if self._table is None:
            raise ValueError(f"TfidfVectorizer {self.name!r} has no terms: call `adapt(texts)` first.")

    # ------------------------------------------------------------------ computation
    def vectorize(self, strings):
        """Pure-TensorFlow vectorisation (what `call` does); safe in `tf.data.Dataset.map`."""
        self._require_vocabulary()
        x = strings if isinstance(strings, tf.Tensor) else tf.convert_to_tensor(strings, tf.string)
        if x.dtype != tf.string:
            raise ValueError(f"TfidfVectorizer expects string input. Received: dtype={x.dtype!r}")
        if x.shape.rank is not None and x.shape.rank != 1 and not (x.shape.rank == 2 and x.shape[-1] == 1):
            raise ValueError(f"TfidfVectorizer expects strings of shape (B,) or (B, 1). Received: shape {x.shape}")
        x = tf.reshape(x, [-1])
        ids = tf.ragged.map_flat_values(self._table.lookup, self.terms(x))
        rows, columns = ids.value_rowids(), ids.flat_values
        known = columns >= 0
        width = tf.constant(self.num_features, tf.int64)
        # One entry per (document, term): unique keys, with how often each occurs.
        keys, _, counts = tf.unique_with_counts(tf.boolean_mask(rows * width + columns, known))
        order = tf.argsort(keys)
        keys, counts = tf.gather(keys, order), tf.cast(tf.gather(counts, order), tf.float32)
        rows, columns = keys // width, keys % width
        tf_values = 1.0 + tf.math.log(counts) if self.sublinear_tf else counts
        values = tf_values * tf.gather(self._idf, columns)
        batch = tf.shape(x, out_type=tf.int64)[0]
        norms = tf.sqrt(tf.math.unsorted_segment_sum(values * values, rows, batch))
        features = tf.SparseTensor(tf.stack([rows, columns], axis=1), values / tf.gather(norms, rows), [batch, width])
        return features if self.sparse else tf.sparse.to_dense(features)

    def call(self, inputs):
        return self.vectorize(inputs)

    # ------------------------------------------------------------------ Keras API
    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.num_features)

    def compute_output_spec(self, inputs):
        return keras.KerasTensor((inputs.shape[0], self.num_features), dtype="float32", sparse=self.sparse)

    def save_assets(self, dir_path):
        if self._terms_in_config or self._table is None:
            return
        with open(os.path.join(dir_path, TERMS_FILE), "w", encoding="utf-8") as stream:
            stream.write("\n".join(self._terms_list) + "\n")
        np.save(os.path.join(dir_path, IDF_FILE), self.idf)

    def load_assets(self, dir_path):
        if not os.path.exists(os.path.join(dir_path, TERMS_FILE)):  # terms in the config: no assets
            return
        with open(os.path.join(dir_path, TERMS_FILE), encoding="utf-8") as stream:
            terms = stream.read().split("\n")[:-1]
        self.set_vocabulary(terms, np.load(os.path.join(dir_path, IDF_FILE)))

    def get_config(self):
        config = super().get_config()
        config.update(
            vocabulary=self.get_vocabulary() if self._terms_in_config else None,
            idf=self.idf.tolist() if self._terms_in_config else None,
            ngrams=self.ngrams,
            max_features=self.max_features,
            min_df=self.min_df,
            sublinear_tf=self.sublinear_tf,
            sparse=self.sparse,
        )
        return config
