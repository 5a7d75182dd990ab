"""The head registry: options derived from constructor signatures, specs checked, heads wired to what they read."""

import inspect

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HybridHead, LexicalMatchHead
from keras_labelemb.models import document_classifier, split_at_head
from keras_labelemb.models.head_specs import BUILDER_ARGUMENTS, HEAD_CLASSES, HEAD_OPTIONS, apply_head, head_spec

LABELS = np.array([[2, 3], [4, 0]])


def test_options_are_the_constructor_arguments_the_builder_does_not_set():
    for name, cls in HEAD_CLASSES.items():
        parameters = set(inspect.signature(cls.__init__).parameters)
        assert set(HEAD_OPTIONS[name]) == parameters - BUILDER_ARGUMENTS, name
    assert "joint_dim" in HEAD_OPTIONS["gile"] and "embedding" not in HEAD_OPTIONS["gile"]
    assert "sublinear_tf" in HEAD_OPTIONS["lexical"] and "kernel_centres" in HEAD_OPTIONS["interaction"]


def test_hybrid_specs_check_their_components():
    spec = head_spec({"type": "hybrid", "components": ["bilinear", {"type": "interaction", "kernel_width": 0.2}]})
    assert spec["components"] == [{"type": "gile", "variant": "bilinear"}, {"type": "interaction", "kernel_width": 0.2}]
    for bad, match in (
        ({"type": "hybrid"}, "components"),
        ({"type": "hybrid", "components": [{"type": "hybrid", "components": ["gile"]}]}, "cannot be hybrids"),
        ({"type": "hybrid", "components": [{"type": "lexical", "joint_dim": 3}]}, r"\['joint_dim'\]"),
        ("hybrid", "head='hybrid'"),
    ):
        with pytest.raises(ValueError, match=match):
            head_spec(bad)


def test_apply_head_gives_token_heads_the_document_dict_and_others_the_pooled_vector():
    embedding = keras.layers.Embedding(10, 4, mask_zero=True)
    ids = keras.Input((2, 3), dtype="int32")
    pooled = keras.Input((4,))
    gile = GileHead(embedding, LABELS, joint_dim=3)
    assert apply_head(gile, pooled, ids).shape == (None, 2)
    hybrid = HybridHead([GileHead(embedding, joint_dim=3), LexicalMatchHead(embedding)], LABELS)
    assert apply_head(hybrid, pooled, ids).shape == (None, 2)
    assert hybrid._inbound_nodes[0].arguments.args[0]["token_ids"].shape == (None, 6)  # sentences read as one
    with pytest.raises(ValueError, match="token_ids=None"):
        apply_head(LexicalMatchHead(embedding, LABELS), pooled)


@pytest.mark.parametrize("flat", [False], ids=["han"])  # the flat path is the HAN's without the reshape
@pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture
def test_builder_wires_the_word_states_into_heads_that_read_tokens(flat, tmp_path):
    """A word-interaction head over the encoder's states: the states reach it (flattened over sentences), it
    trains the word encoder through them, the encoder cut at the head outputs them, and the model saves."""
    shape = {"max_tokens": 6} if flat else {"max_sentences": 2, "max_sentence_length": 3}
    model = document_classifier(
        12, LABELS, flat=flat, **shape, encoder={"type": "dense", "units": 5}, embedding={"dim": 4},
        head={"type": "interaction", "document_vectors": "states"},
    )  # fmt: skip
    ids = np.random.default_rng(0).integers(0, 12, size=(4, 6) if flat else (4, 2, 3)).astype("int32")
    encoder, head = split_at_head(model)
    document = encoder.predict(ids, verbose=0)
    assert sorted(document) == ["pooled", "token_ids", "token_states"] and document["token_states"].shape == (4, 6, 5)
    word_encoder = model.get_layer("document_encoder").word_encoder_layer
    before = keras.ops.convert_to_numpy(word_encoder.kernel).copy()
    model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(ids, np.ones((4, 2), "float32"), epochs=1, verbose=0)
    assert not np.array_equal(keras.ops.convert_to_numpy(word_encoder.kernel), before)
    model.save(tmp_path / "states.keras")
    loaded = keras.saving.load_model(tmp_path / "states.keras")
    np.testing.assert_allclose(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0), atol=1e-6)


def test_a_gile_variant_name_as_the_type_is_that_variant():
    assert head_spec({"type": "only_label"}) == {"type": "gile", "variant": "only_label"}
    with pytest.raises(ValueError, match="GILE variant.*'variant'.*'gile'"):
        head_spec({"type": "bilinear", "variant": "gile"})
    with pytest.raises(ValueError, match=r"'variant': \.\.\.\} or by name\)\. Received: head\['type'\]='bilinears'"):
        head_spec({"type": "bilinears"})


def test_the_registry_is_the_decorator_on_each_head_and_a_registered_head_builds_by_name():
    from keras_labelemb.layers import CosineHead
    from keras_labelemb.layers.label_head import head_class, registered_heads

    assert registered_heads()["cosine"] is CosineHead and CosineHead.registered_name == "cosine"
    assert set(HEAD_CLASSES) == set(registered_heads())
    model = document_classifier(20, LABELS, flat=True, max_tokens=5, encoder={"units": 4}, head={"type": "cosine"})
    assert isinstance(split_at_head(model)[1], CosineHead)
    with pytest.raises(ValueError, match=r"one of \[.*'cosine'.*\]. Received: 'nope'"):
        head_class("nope")
