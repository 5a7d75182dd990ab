"""TextVectorizer: ids, truncation, padding, config, .keras and SavedModel round trips."""

import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.text import TextVectorizer

DOCS = [
    "The cat sat on the mat. The dog barked!",
    "A dog and a cat.\nThe end",
    "Numbers like 42 and ４２ are the same",
]
tf_backend_only = pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="a Keras model / SavedModel over string inputs needs the TensorFlow backend",
)

VOCAB = ["<pad>", "<unk>", "the", "cat", "dog", "a", "<num>", "sat", "mat"]


def _flat(**kwargs):
    return TextVectorizer(vocabulary=VOCAB, **kwargs)


def test_adapt_builds_vocabulary_and_size():
    vec = TextVectorizer()
    assert vec.vocabulary_size is None and vec.get_vocabulary() == []
    vec.adapt(DOCS, min_count=2)
    # the: 5; then count 2, ties by token ("<" sorts before letters).
    assert vec.get_vocabulary() == ["<pad>", "<unk>", "the", "<num>", "a", "and", "cat", "dog"]
    assert vec.vocabulary_size == len(vec.get_vocabulary())
    vec.adapt(tf.data.Dataset.from_tensor_slices(DOCS), max_size=3)
    assert vec.get_vocabulary() == ["<pad>", "<unk>", "the"]


def test_flat_ids_unknown_padding_and_truncation():
    vec = _flat(max_tokens=6)
    out = vec(tf.constant(["The CAT sat on the mat, 7 times", "zebra", ""]))
    assert out.dtype == tf.int32 and out.shape == (3, 6)
    np.testing.assert_array_equal(
        out.numpy(),
        [
            [2, 3, 7, 1, 2, 8],  # first 6 tokens kept; "on" unknown
            [1, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0],
        ],
    )


def test_vocabulary_without_reserved_tokens_is_prefixed():
    vec = TextVectorizer(vocabulary=["cat", "dog"], max_tokens=3)
    assert vec.get_vocabulary() == ["<pad>", "<unk>", "cat", "dog"]
    np.testing.assert_array_equal(vec(["dog cat bird"]).numpy(), [[3, 2, 1]])


def test_empty_and_punctuation_only_documents_give_zero_rows():
    for flat in (True, False):
        vec = _flat(flat=flat, max_tokens=4, max_sentences=2, max_sentence_length=3)
        out = vec(tf.constant(["", "...!?", " \n\n "])).numpy()
        assert not out.any(), flat


def test_hierarchical_shapes_truncation_and_empty_sentences():
    vec = _flat(flat=False, max_sentences=2, max_sentence_length=3)
    docs = tf.constant(["!!! The cat sat on the mat. ... The dog.\nA cat", "dog"])
    out = vec(docs).numpy()
    assert out.shape == (2, 2, 3)
    # empty sentences ("!!!", "...") are skipped; first 2 sentences, first 3 tokens each.
    np.testing.assert_array_equal(out[0], [[2, 3, 7], [2, 4, 0]])
    np.testing.assert_array_equal(out[1], [[4, 0, 0], [0, 0, 0]])


def test_any_input_shape_and_trailing_one_squeezed():
    vec = _flat(max_tokens=4)
    assert vec(tf.constant("the cat")).shape == (4,)
    assert vec(tf.constant([["the"], ["cat"]])).shape == (2, 4)
    assert vec(tf.constant([["the", "cat", "dog"]])).shape == (1, 3, 4)
    assert vec.compute_output_shape((None, 1)) == (None, 4)
    hier = _flat(flat=False, max_sentences=3, max_sentence_length=5)
    assert hier.compute_output_shape((None,)) == (None, 3, 5)


def test_normalisation_options_are_used():
    vec = TextVectorizer(vocabulary=["Cat", "42"], lowercase=False, replace_numbers=False, max_tokens=3)
    np.testing.assert_array_equal(vec(["Cat cat ４２"]).numpy(), [[2, 1, 3]])


def test_encode_labels_flat_with_same_vocabulary():
    vec = _flat(flat=False, max_sentences=2, max_sentence_length=2)
    ids = vec.encode_labels(["The Cat. sat", "dog", "!!"], description_length=4)
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int32
    np.testing.assert_array_equal(ids, [[2, 3, 7, 0], [4, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="description_length=0"):
        vec.encode_labels(["a"], description_length=0)
    with pytest.raises(ValueError, match="descriptions"):
        vec.encode_labels("cat", description_length=2)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_tokens": 0}, "max_tokens=0"),
        ({"flat": "tree"}, "flat='tree'"),
        ({"max_sentences": -1}, "max_sentences=-1"),
        ({"max_sentence_length": 2.5}, "max_sentence_length=2.5"),
        ({"unicode_form": "nfkc"}, "unicode_form='nfkc'"),
        ({"lowercase": None}, "lowercase=None"),
        ({"vocabulary": ["a", "a"]}, "vocabulary"),
        ({"vocabulary": ["a", "<unk>"]}, "vocabulary"),
        ({"vocabulary": ["a", ""]}, "vocabulary"),
        ({"vocabulary": 5}, "vocabulary"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        TextVectorizer(**kwargs)


def test_call_without_vocabulary_raises():
    with pytest.raises(ValueError, match="adapt"):
        TextVectorizer()(tf.constant(["a"]))


def test_vocabulary_file_round_trip(tmp_path):
    vec = _flat(max_tokens=5)
    vec.save_vocabulary(tmp_path / "v.txt")
    other = TextVectorizer(vocabulary=str(tmp_path / "v.txt"), max_tokens=5)
    assert other.get_vocabulary() == vec.get_vocabulary()


def test_get_config_from_config_identical_outputs():
    vec = TextVectorizer(flat=False, max_sentences=2, max_sentence_length=4, unicode_form="NFC", name="vec")
    vec.adapt(DOCS)
    config = vec.get_config()
    assert config["vocabulary"] == vec.get_vocabulary()
    clone = TextVectorizer.from_config(config)
    assert clone.get_config() == config
    np.testing.assert_array_equal(clone(tf.constant(DOCS)), vec(tf.constant(DOCS)))


def test_inside_tf_data_map_and_tf_function():
    vec = _flat(max_tokens=4)
    ds = tf.data.Dataset.from_tensor_slices(DOCS).batch(2).map(vec)
    assert ds.element_spec.shape.as_list() == [None, 4]
    got = np.concatenate(list(ds.as_numpy_iterator()))
    np.testing.assert_array_equal(got, vec(tf.constant(DOCS)).numpy())
    fn = tf.function(vec.vectorize, input_signature=[tf.TensorSpec([None], tf.string)])
    np.testing.assert_array_equal(fn(tf.constant(DOCS)), got)


def _model(vec):
    inputs = keras.Input(shape=(), dtype="string")
    ids = vec(inputs)
    x = keras.layers.Embedding(vec.vocabulary_size, 4, mask_zero=True)(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(inputs, keras.layers.Dense(3)(x))


@tf_backend_only
def test_keras_model_save_and_load_identical(tmp_path):
    vec = TextVectorizer(max_tokens=8)
    vec.adapt(DOCS)
    model = _model(vec)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    docs = tf.constant(DOCS + ["unseen words only", ""])
    np.testing.assert_allclose(loaded(docs), model(docs), rtol=1e-6)
    loaded_vec = [layer for layer in loaded.layers if isinstance(layer, TextVectorizer)][0]
    assert loaded_vec.get_vocabulary() == vec.get_vocabulary()
    np.testing.assert_array_equal(loaded_vec(docs), vec(docs))


@tf_backend_only
def test_tf_saved_model_round_trip(tmp_path):
    vec = _flat(flat=False, max_sentences=2, max_sentence_length=3)

    class Serving(tf.Module):
        def __init__(self, vectorizer):
            super().__init__()
            self.vectorizer = vectorizer

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def __call__(self, strings):
            return self.vectorizer(strings)

    module = Serving(vec)
    path = str(tmp_path / "saved")
    tf.saved_model.save(module, path)
    del module
    restored = tf.saved_model.load(path)
    docs = tf.constant(DOCS + [""])
    np.testing.assert_array_equal(restored(docs).numpy(), vec(docs).numpy())


def test_unknown_description_words_are_named_and_adapt_can_keep_them():
    documents = ["wheat prices rose", "wheat exports fell", "corn prices"]
    vectorizer = TextVectorizer(max_tokens=8)
    vectorizer.adapt(documents, min_count=2)
    with pytest.warns(UserWarning, match=r"2 label description word\(s\).*'corn', 'crop'.*keep=descriptions"):
        ids = vectorizer.encode_labels(["wheat", "corn crop"], 3)
    assert ids[1].tolist() == [1, 1, 0]  # read as <unk>
    vectorizer.adapt(documents, min_count=2, keep=["wheat", "corn crop"])
    assert vectorizer.get_vocabulary() == ["<pad>", "<unk>", "prices", "wheat", "corn", "crop"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vectorizer.encode_labels(["wheat", "corn crop"], 3).tolist() == [[3, 0, 0], [4, 5, 0]]
