"""Tests of `presets`: the files are complete data, each names registered layers, overrides are checked."""

import importlib.util
import json

import pytest

from keras_labelemb.tasks.presets import PRESET_DIR, build_from_recipe, load_preset, presets

NEEDS_MINILM = tuple(name for name in presets() if load_preset(name).sentence_encoder is not None)


def test_every_preset_file_names_its_benchmark_row_and_registered_layers():
    assert {"gile_han", "gile_wan", "han", "wan", "drill", "oh_2lstmp", "cosine_wan"} <= set(presets())
    for path in PRESET_DIR.glob("*.json"):
        data = json.loads(path.read_text())
        assert data["description"] and data["measured"], path.name
        recipe = load_preset(path.stem, {"max_tokens": 16} if path.stem in NEEDS_MINILM else None)
        if recipe.sentence_encoder is not None and importlib.util.find_spec("all_minilm_l6_v2") is None:
            continue  # the MiniLM weights are not installed (`make test` installs them)
        encoder, head = build_from_recipe(recipe, vocabulary_size=30, label_ids=[[2, 3], [4, 0]])
        assert head.num_labels == 2, path.name


def test_overrides_replace_top_level_options_only():
    recipe = load_preset("gile_han", {"max_sentences": 4, "embedding_dim": 8, "multi_label": False})
    assert recipe.vectorizer["max_sentences"] == 4 and recipe.embedding_dim == 8 and not recipe.multi_label
    with pytest.raises(ValueError, match="joint_dim=3"):
        load_preset("gile_han", {"joint_dim": 3})
    with pytest.raises(ValueError, match=r"\['cnle', 'cosine_wan', 'drill'"):
        load_preset("nope")


def test_a_preset_may_name_the_loss_it_trains_with():
    from keras_labelemb.losses import LabelSoftmaxLoss
    from keras_labelemb.tasks.presets import _loss

    assert isinstance(_loss({"class": "LabelSoftmaxLoss"}), LabelSoftmaxLoss)
    with pytest.raises(ValueError, match="names a keras_labelemb loss. Received: class 'MicroF1'"):
        _loss({"class": "MicroF1"})
    assert load_preset("gile_wan").loss is None  # the task's default (binary cross-entropy)
