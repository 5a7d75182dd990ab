import keras
import numpy as np
import pytest
import tensorflow as tf
from sklearn.feature_extraction.text import TfidfVectorizer as ScikitTfidf

from keras_labelemb.text import TfidfVectorizer
from keras_labelemb.text.normalize_text import normalize_text
from keras_labelemb.text.tokenize import tokenize

TEXTS = [
    "Wheat prices rose as wheat exports fell.",
    "Oil prices fell; crude oil exports rose sharply in March.",
    "The bank raised interest rates by 0.5 points.",
    "Grain and wheat: the harvest was poor, prices rose.",
    "Interest rates fell and the bank cut rates again.",
    "",
]


def words_of(texts):
    """The library's tokens of `texts`, as Python lists of str (what scikit-learn then reads)."""
    return [[w.decode() for w in row] for row in tokenize(normalize_text(tf.constant(texts))).to_list()]


def scikit(texts, ngrams, **options):
    """scikit-learn's TfidfVectorizer on the library's tokens: n-grams joined by a space, as it does itself."""
    vectorizer = ScikitTfidf(analyzer="word", tokenizer=lambda x: x, preprocessor=lambda x: x, token_pattern=None,
                             lowercase=False, ngram_range=(1, ngrams), **options)  # fmt: skip
    return vectorizer, vectorizer.fit_transform(words_of(texts))


def dense(features):
    return tf.sparse.to_dense(features).numpy() if isinstance(features, tf.SparseTensor) else np.asarray(features)


@pytest.mark.parametrize(
    "ngrams, options",
    [(1, {}), (2, {}), (3, {"min_df": 2}), (2, {"sublinear_tf": False})],
)
def test_equals_scikit_learn_on_the_same_tokens(ngrams, options):
    texts = TEXTS * 2 + ["wheat wheat wheat prices", "rates rates bank"]
    layer = TfidfVectorizer(ngrams=ngrams, **options)
    layer.adapt(texts)
    reference, x = scikit(texts, ngrams, sublinear_tf=options.get("sublinear_tf", True), **{
        k: v for k, v in options.items() if k != "sublinear_tf"})  # fmt: skip
    assert layer.get_vocabulary() == list(reference.get_feature_names_out())
    np.testing.assert_allclose(layer.idf, reference.idf_, rtol=1e-6)
    np.testing.assert_allclose(dense(layer(tf.constant(texts))), x.toarray(), atol=1e-6)


def test_max_features_keeps_the_most_frequent_terms_as_scikit_learn():
    texts = ["alpha " * 7 + "beta " * 5 + "gamma " * 3 + "delta", "alpha beta zeta"]  # no ties at the cut
    layer = TfidfVectorizer(ngrams=1, max_features=3, sparse=False)
    layer.adapt(texts)
    reference, x = scikit(texts, 1, sublinear_tf=True, max_features=3)
    assert layer.get_vocabulary() == list(reference.get_feature_names_out()) == ["alpha", "beta", "gamma"]
    np.testing.assert_allclose(layer(tf.constant(texts)).numpy(), x.toarray(), atol=1e-6)


def test_equals_scikit_learn_on_reuters(reuters_texts):
    layer = TfidfVectorizer(ngrams=2, min_df=2)
    layer.adapt(reuters_texts)
    reference, x = scikit(reuters_texts, 2, sublinear_tf=True, min_df=2)
    assert layer.num_features == len(reference.get_feature_names_out()) > 1000
    np.testing.assert_allclose(dense(layer(tf.constant(reuters_texts[:100]))), x[:100].toarray(), atol=1e-6)


@pytest.fixture(scope="module")
def reuters_texts(reuters):  # conftest's: skips, counted in the summary, where the shared data is missing
    return reuters.train_texts[:300]


def test_documents_without_known_terms_are_zero_rows():
    layer = TfidfVectorizer(ngrams=2, sparse=False)
    layer.adapt(TEXTS)
    x = layer(tf.constant(["", "!!! ...", "zebra quokka", "wheat"])).numpy()
    assert x.shape == (4, layer.num_features) and np.all(np.isfinite(x))
    np.testing.assert_array_equal(x[:3], 0.0)
    np.testing.assert_allclose(np.linalg.norm(x[3]), 1.0, rtol=1e-6)


def test_sparse_and_dense_agree_and_shapes():
    sparse = TfidfVectorizer(ngrams=2)
    sparse.adapt(TEXTS)
    dense_layer = TfidfVectorizer(ngrams=2, sparse=False, vocabulary=sparse.get_vocabulary(), idf=sparse.idf)
    strings = tf.constant(TEXTS)
    out = sparse(strings)
    assert isinstance(out, tf.SparseTensor) and tuple(out.dense_shape.numpy()) == (6, sparse.num_features)
    np.testing.assert_allclose(dense(out), dense_layer(strings).numpy(), atol=0)
    np.testing.assert_allclose(dense_layer(tf.constant(TEXTS)[:, None]).numpy(), dense_layer(strings).numpy())
    assert dense_layer(tf.constant([], tf.string)).shape == (0, sparse.num_features)


def test_in_tf_data_and_in_a_saved_keras_model(tmp_path):
    layer = TfidfVectorizer(ngrams=2, sparse=False)
    layer.adapt(tf.data.Dataset.from_tensor_slices(TEXTS))
    expected = layer(tf.constant(TEXTS)).numpy()
    mapped = np.concatenate(list(tf.data.Dataset.from_tensor_slices(TEXTS).batch(4).map(layer.vectorize)))
    np.testing.assert_allclose(mapped, expected)

    inputs = keras.Input(shape=(1,), dtype="string")
    model = keras.Model(inputs, keras.layers.Dense(3)(layer(inputs)))
    path = str(tmp_path / "tfidf.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    np.testing.assert_allclose(restored(tf.constant(TEXTS)[:, None]), model(tf.constant(TEXTS)[:, None]), atol=1e-6)
    restored_layer = restored.layers[1]
    assert restored_layer.get_vocabulary() == layer.get_vocabulary()
    assert restored_layer.get_config()["vocabulary"] is None  # adapted terms are assets, not config


def test_constructor_terms_round_trip_through_the_config():
    layer = TfidfVectorizer(vocabulary=["bank", "rates", "bank rates"], idf=[1.0, 2.0, 3.0], sparse=False)
    clone = TfidfVectorizer.from_config(layer.get_config())
    strings = tf.constant(["the bank raised rates", "bank rates bank"])
    np.testing.assert_allclose(clone(strings).numpy(), layer(strings).numpy())
    x = layer(strings).numpy()
    np.testing.assert_allclose(x[0], np.array([1.0, 2.0, 0.0]) / np.sqrt(5.0), rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ngrams": 0}, "ngrams"),
        ({"min_df": 0}, "min_df"),
        ({"max_features": -1}, "max_features"),
        ({"sparse": "yes"}, "sparse"),
        ({"unicode_form": "NFX"}, "unicode_form"),
        ({"vocabulary": ["a"]}, "idf"),
        ({"vocabulary": ["a", "a"], "idf": [1.0, 1.0]}, "distinct"),
        ({"vocabulary": ["a", "b"], "idf": [1.0]}, "idf"),
        ({"vocabulary": ["a", ""], "idf": [1.0, 1.0]}, "terms"),
    ],
)
def test_bad_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TfidfVectorizer(**kwargs)


def test_bad_calls_raise():
    layer = TfidfVectorizer()
    with pytest.raises(ValueError, match="adapt"):
        layer(tf.constant(["wheat"]))
    with pytest.raises(ValueError, match="no documents"):
        layer.adapt([])
    layer.adapt(TEXTS)
    with pytest.raises(ValueError, match="string"):
        layer.vectorize(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="shape"):
        layer.vectorize(tf.constant([["a", "b"]]))
