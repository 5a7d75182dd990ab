import sys

import numpy as np
import pytest

from keras_labelemb.training import pretrain_word_vectors


def test_words_sharing_contexts_get_similar_vectors():
    rng = np.random.default_rng(0)
    # Words 2 and 3 occur in the same contexts (10-14); words 4 and 5 in others (20-24).
    docs = []
    for _ in range(300):
        a, b = (2, 3) if rng.random() < 0.5 else (4, 5)
        ctx = rng.integers(10, 15, 6) if a == 2 else rng.integers(20, 25, 6)
        docs.append(np.concatenate([ctx[:3], [a if rng.random() < 0.5 else b], ctx[3:]]))
    vectors = pretrain_word_vectors(np.array(docs), vocabulary_size=30, dim=4)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    assert unit[2] @ unit[3] > 0.9 and unit[4] @ unit[5] > 0.9
    assert unit[2] @ unit[4] < 0.5
    assert np.all(vectors[0] == 0)  # padding
    assert np.all(np.isfinite(vectors)) and vectors.dtype == np.float32


def test_bad_arguments():
    with pytest.raises(ValueError, match="token_ids"):
        pretrain_word_vectors(np.array([1, 2, 3]), 10)
    with pytest.raises(ValueError, match="dim=20"):
        pretrain_word_vectors(np.array([[1, 2, 3]]), 10, dim=20)


@pytest.mark.parametrize("missing", ["sklearn", "scipy"])
def test_missing_optional_dependency_names_the_extra(monkeypatch, missing):
    for name in [n for n in sys.modules if n == missing or n.startswith(missing + ".")] + [missing]:
        monkeypatch.setitem(sys.modules, name, None)  # `import name` now raises ImportError
    with pytest.raises(ImportError, match=r"pip install scipy scikit-learn"):
        pretrain_word_vectors(np.array([[1, 2, 3]]), 10, dim=2)
