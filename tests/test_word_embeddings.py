"""The builders' word-embedding block: its spec checked, pretrained vectors checked, which side trains them."""

import numpy as np
import pytest

from keras_labelemb.models.word_embeddings import EMBEDDING_DEFAULTS, embedding_spec, word_embeddings

VECTORS = np.random.default_rng(0).normal(size=(12, 4))


@pytest.mark.parametrize(
    "mode, trainable, label_side", [("all", True, None), ("none", False, None), ("documents", True, False)]
)
def test_which_side_trains_the_pretrained_vectors(mode, trainable, label_side):
    embedding, label_embedding = word_embeddings(12, embedding_spec({"vectors": VECTORS, "fine_tune": mode}, 12))
    np.testing.assert_allclose(np.asarray(embedding.embeddings), VECTORS, rtol=1e-6)
    assert embedding.trainable is trainable and embedding.mask_zero
    if label_side is None:
        assert label_embedding is None  # labels read the documents' table
    else:
        assert label_embedding.trainable is label_side
        np.testing.assert_allclose(np.asarray(label_embedding.embeddings), VECTORS, rtol=1e-6)


def test_without_vectors_a_new_table():
    spec = embedding_spec({"dim": 8, "trainable": False}, 12)
    assert spec == {**EMBEDDING_DEFAULTS, "dim": 8, "trainable": False}
    embedding, label_embedding = word_embeddings(12, spec)
    embedding.build()
    assert tuple(embedding.embeddings.shape) == (12, 8) and not embedding.trainable and label_embedding is None
    default, _ = word_embeddings(12, embedding_spec(None, 12))
    assert default.output_dim == 100 and default.trainable


def test_vectors_come_as_float32_and_fine_tune_defaults_to_all():
    spec = embedding_spec({"vectors": VECTORS}, 12)
    assert spec["vectors"].dtype == np.float32 and spec["fine_tune"] == "all"


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"fine_tune": "all"}, "fine_tune='all', vectors=None"),
        ({"vectors": VECTORS[:5]}, r"shape \(5, 4\)"),
        ({"vectors": np.full((12, 4), np.nan)}, "finite"),
        ({"vectors": VECTORS, "dim": 6}, "dim=6"),
        ({"vectors": VECTORS, "initializer": "zeros"}, "initializer"),
        ({"vectors": VECTORS, "fine_tune": "labels"}, "fine_tune='labels'"),
        ({"dim": 0}, r"embedding\['dim'\]=0"),
        ({"dropout": 1.5}, r"embedding\['dropout'\]=1.5"),
        ({"size": 8}, r"Unknown key\(s\) \['size'\]"),
        ("glove", "embedding='glove'"),
    ],
)
def test_bad_specs_raise_naming_them(spec, match):
    with pytest.raises(ValueError, match=match):
        embedding_spec(spec, 12)
