"""Multilingual joint space (GILE section 3.3): shared U, V, b_u, b_v; per-language w, b and label sets;
HierarchicalAttention sharing encoders and/or attention across languages (MHAN)."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_labelemb.layers import GileHead, HierarchicalAttention

EN_LABELS = np.array([[3, 4, 0], [5, 0, 0], [6, 7, 8]], "int32")
DE_LABELS = np.array([[9, 10, 0], [11, 0, 0]], "int32")


def _head(**kwargs):
    keras.utils.set_random_seed(0)
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    return GileHead(
        embedding=embedding, joint_dim=5, num_languages=2, language_label_ids=[EN_LABELS, DE_LABELS], **kwargs
    )


def _numpy_gile(head, h, label_ids, language):
    E = np.asarray(head.encode_labels(label_ids))
    labels = np.tanh(E @ np.asarray(head.label_kernel) + np.asarray(head.label_bias))
    docs = np.tanh(h @ np.asarray(head.input_kernel) + np.asarray(head.input_bias))
    return (docs * np.asarray(head.joint_weight)[language]) @ labels.T + np.asarray(head.bias)[language]


def test_per_language_weights_and_label_sets_match_numpy():
    head = _head()
    h = np.random.default_rng(0).normal(size=(3, 6)).astype("float32")
    head(h, language=0)
    head.joint_weight.assign(np.random.default_rng(1).normal(size=(2, 5)).astype("float32"))
    head.bias.assign(np.array([0.5, -1.0], "float32"))
    for language, labels in ((0, EN_LABELS), (1, DE_LABELS)):
        np.testing.assert_allclose(
            head(h, language=language), _numpy_gile(head, h, labels, language), rtol=1e-5, atol=1e-6
        )
    # A per-document language tensor over one label set selects each document's w and b.
    languages = np.array([1, 0, 1], "int32")
    got = np.asarray(head(h, language=languages, label_ids=EN_LABELS))
    for row, language in enumerate(languages):
        np.testing.assert_allclose(
            got[row], _numpy_gile(head, h[row : row + 1], EN_LABELS, language)[0], rtol=1e-5, atol=1e-6
        )
    assert sorted(w.name for w in head.trainable_weights) == sorted(
        ["embeddings", "label_kernel", "label_bias", "input_kernel", "input_bias", "joint_weight", "bias"]
    )
    assert tuple(head.joint_weight.shape) == (2, 5) and tuple(head.bias.shape) == (2,)


def test_gradients_reach_shared_weights_from_every_language_and_only_own_w_b():
    head = _head()
    h = np.random.default_rng(2).normal(size=(4, 6)).astype("float32")
    head(h, language=0)
    shared = [head.label_kernel, head.input_kernel, head.label_bias, head.input_bias]
    for language in (0, 1):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(head(h, language=language) ** 2)
        grads = tape.gradient(loss, shared + [head.joint_weight, head.bias])
        for variable, grad in zip(shared, grads[:4]):
            assert float(tf.reduce_max(tf.abs(grad))) > 0, f"language {language} sends no gradient to {variable.name}"
        w_grad, b_grad = np.asarray(tf.convert_to_tensor(grads[4])), np.asarray(tf.convert_to_tensor(grads[5]))
        other = 1 - language
        assert np.abs(w_grad[language]).max() > 0 and np.abs(w_grad[other]).max() == 0
        assert b_grad[language] != 0 and b_grad[other] == 0


def test_two_language_model_trains_jointly_and_round_trips(tmp_path):
    keras.utils.set_random_seed(0)
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    head = GileHead(embedding=embedding, joint_dim=5, num_languages=2, language_label_ids=[EN_LABELS, DE_LABELS])
    en_ids, de_ids = keras.Input((6,), dtype="int32", name="en"), keras.Input((6,), dtype="int32", name="de")
    encoder = HierarchicalAttention("dense", 6, flat=True, num_languages=2, share="encoders")
    outputs = {
        "en": head(encoder(embedding(en_ids), language=0), language=0),
        "de": head(encoder(embedding(de_ids), language=1), language=1),
    }
    model = keras.Model({"en": en_ids, "de": de_ids}, outputs)
    rng = np.random.default_rng(3)
    x = {"en": rng.integers(1, 20, (8, 6)).astype("int32"), "de": rng.integers(1, 20, (8, 6)).astype("int32")}
    predicted = model.predict(x, verbose=0)
    assert predicted["en"].shape == (8, 3) and predicted["de"].shape == (8, 2)  # each language's own label set
    y = {"en": (rng.random((8, 3)) > 0.5).astype("float32"), "de": (rng.random((8, 2)) > 0.5).astype("float32")}
    bce = keras.losses.BinaryCrossentropy(from_logits=True)
    model.compile("adam", loss={"en": bce, "de": bce}, jit_compile=True)
    history = model.fit(x, y, epochs=2, verbose=0).history
    assert np.isfinite(history["loss"]).all()
    # MHAN-Enc: one word encoder (kernel, bias), one attention (3 weights) per language.
    assert len(encoder.trainable_weights) == 2 + 2 * 3
    model.save(tmp_path / "multilingual.keras")
    restored = keras.models.load_model(tmp_path / "multilingual.keras")
    for key in ("en", "de"):
        np.testing.assert_array_equal(restored.predict(x, verbose=0)[key], model.predict(x, verbose=0)[key])


@pytest.mark.parametrize("share", ["encoders", "attention", "both"])
def test_mhan_sharing_modes_share_exactly_what_they_say(share):
    mhan = HierarchicalAttention("gru", 4, "dense", 3, num_languages=2, share=share)
    x = np.random.default_rng(4).normal(size=(2, 3, 5, 6)).astype("float32")
    mhan(x, language=0)
    for level in ("word", "sentence"):
        for part in ("encoder", "attention"):
            shared = share in (part + "s" if part == "encoder" else part, "both")
            assert (
                mhan._sublayers(level, 0)[part == "attention"] is mhan._sublayers(level, 1)[part == "attention"]
            ) == shared
    # The German loss reaches the shared weights, and only its own unshared ones.
    with tf.GradientTape() as tape:
        loss_de = tf.reduce_sum(mhan(x, language=1) ** 2)
    english_only = {
        id(w) for level in ("word", "sentence") for layer in mhan._sublayers(level, 0) for w in layer.trainable_weights
    } - {
        id(w) for level in ("word", "sentence") for layer in mhan._sublayers(level, 1) for w in layer.trainable_weights
    }
    grads = tape.gradient(loss_de, mhan.trainable_weights)
    for weight, grad in zip(mhan.trainable_weights, grads):
        reached = grad is not None and float(tf.reduce_max(tf.abs(tf.convert_to_tensor(grad)))) > 0
        assert reached == (id(weight) not in english_only), weight.path
    # Different languages give different encodings unless everything is shared.
    differs = not np.allclose(mhan(x, language=0), mhan(x, language=1))
    assert differs == (share != "both")


def test_bad_multilingual_arguments_raise_naming_the_argument():
    embedding = keras.layers.Embedding(20, 4, mask_zero=True)
    with pytest.raises(ValueError, match="language_label_ids"):
        GileHead(embedding=embedding, num_languages=2, language_label_ids=[EN_LABELS])
    with pytest.raises(ValueError, match="num_languages=0"):
        GileHead(embedding=embedding, num_languages=0)
    head = _head()
    h = np.zeros((2, 6), "float32")
    with pytest.raises(ValueError, match="language"):
        head(h)
    with pytest.raises(ValueError, match="language"):
        head(h, language=2)
    single = GileHead(embedding=embedding, label_ids=EN_LABELS, joint_dim=5)
    with pytest.raises(ValueError, match="language"):
        single(h, language=0)
    with pytest.raises(ValueError, match="share"):
        HierarchicalAttention("dense", 4, flat=True, num_languages=2, share="everything")
    mhan = HierarchicalAttention("dense", 4, flat=True, num_languages=2, share="encoders")
    with pytest.raises(ValueError, match="language"):
        mhan(np.zeros((1, 3, 2), "float32"), language=2)
    with pytest.raises(ValueError, match="language"):
        mhan(np.zeros((1, 3, 2), "float32"))
