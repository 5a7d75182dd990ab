"""The head registry: options derived from constructor signatures, specs checked, heads wired to what they read."""

import inspect

import keras
import numpy as np
import pytest

from keras_labelemb.layers import GileHead, HybridHead, LexicalMatchHead
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
