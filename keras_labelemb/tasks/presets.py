"""Presets: the measured recipes as data files (`presets/<name>.json`), built once the vocabulary is known."""

import dataclasses
import json
import os
import pathlib

import keras

from keras_labelemb.layers.label_head import prior_bias
from keras_labelemb.tasks.label_classifier_preprocessor import LabelClassifierPreprocessor
from keras_labelemb.text import TextVectorizer, TfidfVectorizer

PRESET_DIR = pathlib.Path(__file__).parent / "presets"
# A recipe's values that are known only once the vocabulary is: written as these strings in the files.
VOCABULARY_SIZE = "<vocabulary_size>"
# A word-piece vocabulary's special ids ([UNK], [CLS], [SEP]): what a LexicalMatchHead over it does not match.
SPECIAL_IDS = "<special_ids>"
# The top-level options `from_preset(name, labels, **overrides)` may replace.
OVERRIDES = ("multi_label", "embedding_dim", "description_length", "max_tokens", "max_sentences", "max_sentence_length")


def presets():
    """`{name: one-line description}` of every named preset."""
    return {path.stem: json.loads(path.read_text())["description"] for path in sorted(PRESET_DIR.glob("*.json"))}


@dataclasses.dataclass
class Recipe:
    """A preset file read: the vectorizers' options, the word embedding's width, the encoder and the head."""

    name: str
    description: str
    multi_label: bool
    vectorizer: dict
    description_length: int
    embedding_dim: int | None
    encoder: dict
    head: dict
    features: dict | None = None  # the wide path's TfidfVectorizer options
    # A pretrained sentence encoder (`{"model": "all-MiniLM-L6-v2", "sequence_length": T}`): its word pieces are
    # the vocabulary, so the layers are built by `from_preset`, before any `fit` (zero-shot untrained).
    sentence_encoder: dict | None = None
    # The loss `compile(loss="auto")` trains with: a registered keras_labelemb loss (`{"class": name}`).
    loss: object = None
    # `fit` trains the head alone on the frozen encoder's vectors first (`LabelClassifier.fit_head`).
    head_first: bool = False
    backbone: object = None
    special_ids: list | None = None

    def preprocessor(self):
        if self.sentence_encoder is not None:
            self.backbone, vectorizer = load_sentence_encoder(**self.sentence_encoder)
            self.special_ids = list(vectorizer.special_ids)
            return LabelClassifierPreprocessor(vectorizer, description_length=self.description_length)
        return LabelClassifierPreprocessor(
            TextVectorizer(**self.vectorizer),
            description_length=self.description_length,
            features=None if self.features is None else TfidfVectorizer(**{"sparse": _sparse(), **self.features}),
        )


def _sparse():
    # Keras refuses a JAX input dict that mixes a sparse (BCOO) and a dense array: dense features there.
    return keras.backend.backend() == "tensorflow"


def load_preset(name, overrides=None):
    """The `Recipe` of preset `name`, with `overrides` applied; a `ValueError` lists the names if it does not exist."""
    path = PRESET_DIR / f"{name}.json" if isinstance(name, str) else None
    if path is None or not path.is_file():
        raise ValueError(
            f"`preset` must name a preset ({sorted(presets())}) or a folder written by `save_to_preset`. "
            f"Received: preset={name!r}"
        )
    data = json.loads(path.read_text())
    recipe = Recipe(
        name=name,
        description=data["description"],
        multi_label=data.get("multi_label", True),
        vectorizer=dict(data.get("vectorizer", {})),
        description_length=data.get("description_length", 16),
        embedding_dim=data.get("embedding_dim"),
        encoder=data["encoder"],
        head=data["head"],
        features=data.get("features"),
        sentence_encoder=data.get("sentence_encoder"),
        loss=None if data.get("loss") is None else _loss(data["loss"]),
        head_first=data.get("head_first", False),
    )
    for key, value in (overrides or {}).items():
        if key not in OVERRIDES:
            raise ValueError(f"A preset's overrides are {list(OVERRIDES)}. Received: {key}={value!r}")
        if key == "max_tokens" and recipe.sentence_encoder is not None:
            recipe.sentence_encoder = {**recipe.sentence_encoder, "sequence_length": value}
        elif key.startswith("max_"):
            recipe.vectorizer[key] = value
        else:
            setattr(recipe, key, value)
    return recipe


def _loss(spec):
    import keras_labelemb.losses  # noqa: F401  (registers them)

    cls = keras.saving.get_registered_object(f"keras_labelemb>{spec['class']}")
    if cls is None or not issubclass(cls, keras.losses.Loss):
        raise ValueError(f"A preset's loss names a keras_labelemb loss. Received: class {spec['class']!r}")
    return cls(**spec.get("config", {}))


def _layer(spec, **given):
    """The registered keras_labelemb layer `spec["class"]` built from `spec["config"]` and what the vocabulary gave."""
    cls = keras.saving.get_registered_object(f"keras_labelemb>{spec['class']}")
    if cls is None:
        raise ValueError(f"A preset names a keras_labelemb layer. Received: class {spec['class']!r}")
    config = dict(spec.get("config", {}))
    for key, value in config.items():
        if isinstance(value, dict) and "class" in value:  # a layer the layer holds (CNLE's co-attentive encoder)
            config[key] = _layer(value)
        elif value == VOCABULARY_SIZE:
            config[key] = given.pop("vocabulary_size")
        elif value == SPECIAL_IDS:
            config[key] = given.pop("special_ids")
    return cls(**config, **given)


def build_from_recipe(recipe, vocabulary_size, label_ids):
    """`(encoder, head)` of `recipe` for a vocabulary of `vocabulary_size` ids and the labels' `(L, Lw)` ids."""
    count = len(label_ids)
    if recipe.sentence_encoder is not None:  # the encoder is the pretrained model; heads read it as an embedding
        if recipe.backbone is None:  # loaded with its vectorizer by `preprocessor()`, or here
            recipe.backbone, vectorizer = load_sentence_encoder(**recipe.sentence_encoder)
            recipe.special_ids = list(vectorizer.special_ids)
        embedding = encoder = _layer(recipe.encoder, backbone=recipe.backbone)
    elif recipe.embedding_dim is None:  # the encoder reads ids itself (RegionLSTM's one-hot lookup)
        embedding = None
        encoder = _layer(recipe.encoder, vocabulary_size=vocabulary_size)
    else:
        embedding = keras.layers.Embedding(vocabulary_size, recipe.embedding_dim, mask_zero=True, name="word_embedding")
        flat = recipe.vectorizer.get("flat", True)
        shape = (
            (recipe.vectorizer.get("max_tokens", 256),)
            if flat
            else (
                recipe.vectorizer.get("max_sentences", 15),
                recipe.vectorizer.get("max_sentence_length", 30),
            )
        )
        # No encoder: the head reads the word vectors (CNLE's decoder holds its co-attentive encoder).
        layers = [] if recipe.encoder is None else [_layer(recipe.encoder, flat=flat)]
        encoder = keras.Sequential([keras.Input(shape, dtype="int32"), embedding, *layers], name="document_encoder")
    # The output bias starts at the log-odds of about one label per document (the prior of Lin et al. 2017).
    prior = prior_bias(count)
    return encoder, _head(recipe.head, embedding, label_ids, prior, special_ids=recipe.special_ids)


def _head(spec, embedding, label_ids, prior, component=False, special_ids=None):
    """The head of `spec`; a `HybridHead`'s `"components"` are specs too (it holds the label set, they do not)."""
    cls = keras.saving.get_registered_object(f"keras_labelemb>{spec['class']}")
    components = spec.get("config", {}).get("components")
    if components is not None:
        spec = {"class": spec["class"], "config": {k: v for k, v in spec["config"].items() if k != "components"}}
        parts = [_head(part, embedding, label_ids, prior, True, special_ids) for part in components]
        return _layer(spec, components=parts, label_ids=label_ids)
    if cls is not None and cls.reads_descriptions:
        given = {"embedding": embedding} if component else {"embedding": embedding, "label_ids": label_ids}
        if SPECIAL_IDS in spec.get("config", {}).values():
            given["special_ids"] = special_ids
        if cls.has_output_bias:
            given["bias_initializer"] = prior
        return _layer(spec, **given)
    return _layer(spec, num_labels=len(label_ids), bias_initializer=prior)


SENTENCE_ENCODERS = ("all-MiniLM-L6-v2",)


def load_sentence_encoder(model, sequence_length=256):
    """`(backbone, WordPieceVectorizer)` of a pretrained sentence encoder a preset names."""
    from keras_labelemb.text import load_minilm

    if model not in SENTENCE_ENCODERS:
        raise ValueError(f"A preset's sentence encoder is one of {list(SENTENCE_ENCODERS)}. Received: {model!r}")
    return load_minilm(sequence_length=sequence_length)


def save_preset(path, class_name, labels):
    """Writes `preset.json` beside `model.keras` in the folder a `save_to_preset` fills."""
    with open(os.path.join(path, "preset.json"), "w", encoding="utf-8") as file:
        json.dump({"class": class_name, "keras_version": keras.__version__, "labels": len(labels)}, file, indent=1)
