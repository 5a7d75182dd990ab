"""Tests of `make_dataset`."""

import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.text import TextVectorizer, make_dataset
from keras_labelemb.text.multi_hot import multi_hot

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()

TEXTS = [f"doc {w} common. second sentence" for w in WORDS]

TARGETS = multi_hot([[i % 4] for i in range(10)], num_labels=4)


@pytest.fixture(scope="module")
def vec():
    v = TextVectorizer(max_tokens=6)
    v.adapt(TEXTS)
    return v


def _batches(ds):
    return list(ds.as_numpy_iterator())


def test_static_shapes_with_drop_remainder(vec):
    ds = make_dataset(TEXTS, TARGETS, vec, batch_size=4, drop_remainder=True)
    ids_spec, target_spec = ds.element_spec
    assert ids_spec.shape.as_list() == [4, 6] and ids_spec.dtype == tf.int32
    assert target_spec.shape.as_list() == [4, 4] and target_spec.dtype == tf.float32
    assert len(_batches(ds)) == 2
    assert ds.cardinality().numpy() == 2


def test_only_batch_dimension_unknown_without_drop_remainder(vec):
    for cache in (True, False):
        ds = make_dataset(TEXTS, TARGETS, vec, batch_size=4, cache=cache)
        assert ds.element_spec[0].shape.as_list() == [None, 6]
        assert ds.element_spec[1].shape.as_list() == [None, 4]
        assert [b[0].shape[0] for b in _batches(ds)] == [4, 4, 2]


def test_hierarchical_static_shape():
    hier = TextVectorizer(flat=False, max_sentences=3, max_sentence_length=5)
    hier.adapt(TEXTS)
    for cache in (True, False):
        ds = make_dataset(TEXTS, TARGETS, hier, 5, drop_remainder=True, cache=cache)
        assert ds.element_spec[0].shape.as_list() == [5, 3, 5]


def test_unshuffled_matches_direct_vectorisation(vec):
    for cache in (True, False):
        ds = make_dataset(TEXTS, TARGETS, vec, batch_size=3, shuffle=False, cache=cache)
        ids = np.concatenate([b[0] for b in _batches(ds)])
        targets = np.concatenate([b[1] for b in _batches(ds)])
        np.testing.assert_array_equal(ids, vec(tf.constant(TEXTS)).numpy())
        np.testing.assert_array_equal(targets, TARGETS)


def test_shuffle_is_seeded_and_keeps_pairs(vec):
    expected = {tuple(r): tuple(t) for r, t in zip(vec(tf.constant(TEXTS)).numpy(), TARGETS)}

    def order(seed, cache=True):
        ds = make_dataset(TEXTS, TARGETS, vec, batch_size=10, seed=seed, cache=cache)
        ids, targets = _batches(ds)[0]
        for r, t in zip(ids, targets):
            assert expected[tuple(r)] == tuple(t)
        return ids[:, :3].tolist()

    assert order(0) == order(0)
    assert order(0) != order(1)
    assert order(3, cache=False) == order(3, cache=False)


def test_targets_none_gives_ids_only(vec):
    ds = make_dataset(np.array(TEXTS), None, vec, batch_size=4, shuffle=False)
    assert isinstance(ds.element_spec, tf.TensorSpec)
    assert ds.element_spec.shape.as_list() == [None, 6]


def test_integer_class_targets_are_int32(vec):
    ds = make_dataset(TEXTS, list(range(10)), vec, batch_size=2, drop_remainder=True)
    assert ds.element_spec[1].dtype == tf.int32
    assert ds.element_spec[1].shape.as_list() == [2]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"batch_size": 0}, "batch_size=0"),
        ({"targets": TARGETS[:3]}, "targets"),
        ({"texts": "one string"}, "texts"),
        ({"vectorizer": None}, "vectorizer"),
        ({"vectorizer": TextVectorizer()}, "vectorizer"),
        ({"seed": 1.5}, "seed=1.5"),
        ({"shuffle": "yes"}, "shuffle='yes'"),
    ],
)
def test_bad_arguments_raise_value_error(vec, kwargs, message):
    args = {"texts": TEXTS, "targets": TARGETS, "vectorizer": vec, "batch_size": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        make_dataset(**args)
