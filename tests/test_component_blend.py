import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HierarchicalAttention, HybridHead, WideHead
from keras_labelemb.models import document_classifier, gile_wan
from keras_labelemb.training import choose_blend

pytestmark = pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture

LABELS = np.array([[2, 3], [4, 5], [6, 7]], "int32")


def wide_deep(features=12):
    keras.utils.set_random_seed(0)
    embedding = keras.layers.Embedding(20, 100, mask_zero=True)
    head = HybridHead([GileHead(embedding, joint_dim=4), WideHead(len(LABELS))], LABELS)
    return document_classifier(HierarchicalAttention("dense", 4, flat=True), head, max_tokens=5, num_features=features)


def data(rng, n=40):
    ids = rng.integers(2, 20, (n, 5)).astype("int32")
    features = rng.random((n, 12)).astype("float32")
    return {"token_ids": ids, "features": features}


def test_the_mix_that_scores_best_on_validation_is_set():
    rng = np.random.default_rng(0)
    model = wide_deep()
    hybrid = model.layers[-1]
    wide = hybrid.components[1]
    x = data(rng)
    # The wide path alone ranks every document's labels perfectly; the deep path is noise.
    y = (rng.random((40, 3)) < 0.4).astype("float32")
    y[y.sum(axis=1) == 0, 0] = 1.0
    kernel = np.linalg.lstsq(x["features"], 8.0 * (y - 0.5), rcond=None)[0].astype("float32")
    wide.kernel.assign(kernel)
    choice = choose_blend(model, x, y, mixes=(0.0, 0.5, 1.0))
    assert choice["mix"] == 0.0 and choice["threshold"] is not None
    np.testing.assert_allclose(hybrid.weights_by_component.numpy(), [0.0, 1.0 / choice["scales"][1]], rtol=1e-6)
    assert float(hybrid.bias.numpy()) == 0.0
    wide_logits = x["features"] @ kernel + wide.bias.numpy()
    np.testing.assert_allclose(model.predict(x, verbose=0), wide_logits / choice["scales"][1], rtol=1e-4, atol=1e-5)


def test_single_label_blends_by_accuracy():
    rng = np.random.default_rng(1)
    model = wide_deep()
    x = data(rng)
    classes = rng.integers(0, 3, 40)
    choice = choose_blend(model, x, classes, multi_label=False, mixes=(0.0, 1.0))
    assert choice["threshold"] is None and 0.0 <= choice["val_score"] <= 1.0


def test_only_a_two_component_hybrid_is_blended():
    model = gile_wan(20, LABELS, max_tokens=5, units=4, joint_dim=4)
    with pytest.raises(ValueError, match="HybridHead"):
        choose_blend(model, np.ones((2, 5), "int32"), np.ones((2, 3)))
    with pytest.raises(ValueError, match="mixes"):
        choose_blend(wide_deep(), data(np.random.default_rng(0), 4), np.ones((4, 3)), mixes=(1.5,))
