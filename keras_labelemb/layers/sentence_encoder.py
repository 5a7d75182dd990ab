"""Sentence encoder: a pretrained transformer backbone, mean-pooled, as document encoder and label reader."""

import keras
from keras import ops

from keras_labelemb.argument_checks import check_bool
from keras_labelemb.layers.token_label_head import unit_mean


@keras.saving.register_keras_serializable(package="keras_labelemb")
class SentenceEncoder(keras.layers.Layer):
    """A keras-hub backbone turned into sentence vectors: the l2-normalised mean of its token states.

    The pooling of sentence-transformers' models (mean over the tokens that
    are not padding, then unit length), so a bi-encoder trained for semantic
    similarity (e.g. all-MiniLM-L6-v2 loaded into `keras_hub.models.
    BertBackbone`, `keras_labelemb.text.load_minilm`) scores documents
    against label descriptions untrained. Called on token ids `(B, T)` (0 =
    padding) it returns the document dict the label heads read (`pooled`
    `(B, d)`, `token_states` `(B, T, d)`, `token_ids`, `token_mask`);
    `encode(ids)` returns the pooled vectors alone, which is how
    `SentenceMatchHead` reads label descriptions with the same encoder.

    It has `input_dim` (the backbone's vocabulary) and `output_dim` (its
    width), so heads hold it where they hold a shared word embedding: a
    `LexicalMatchHead` over the same word-piece ids matches words exactly
    beside it.

    Args:
        backbone: a keras-hub backbone taking `token_ids` and `padding_mask`
            (and `segment_ids`, given as zeros) and returning
            `sequence_output`.
        fine_tune: train the backbone's weights. Default False: they are
            frozen and the backbone runs in inference mode (no dropout).
            True trains the one backbone that reads documents and, through
            `encode`, label descriptions: the label vectors move with it.
            `"documents"` trains it on documents only and reads descriptions
            with a frozen copy of the pretrained backbone made here (twice
            the weights), as `word_embeddings(..., fine_tune="documents")` does for
            word vectors. For labels never seen, True did harm: trained on
            the seen labels, all-MiniLM-L6-v2 ranked held-out labels worse;
            `"documents"` was level with False, neither better nor worse
            (`benchmarks/README.md`, zero-shot attempts 8 and 9).

    Example:

    >>> import numpy as np, keras_hub
    >>> backbone = keras_hub.models.BertBackbone(
    ...     vocabulary_size=20, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=6)
    >>> document = SentenceEncoder(backbone)(np.array([[2, 5, 7, 3, 0, 0]]))
    >>> sorted(document), tuple(document["pooled"].shape)
    (['pooled', 'token_ids', 'token_mask', 'token_states'], (1, 8))
    """

    def __init__(self, backbone=None, fine_tune=False, **kwargs):
        super().__init__(**kwargs)
        try:
            inputs = backbone.input if isinstance(backbone, keras.Model) else None
        except (AttributeError, ValueError):  # a subclassed model that was never called has no inputs
            inputs = None
        if not isinstance(inputs, dict) or not hasattr(backbone, "token_embedding"):
            raise ValueError(
                "`backbone` must be a keras-hub backbone (a functional keras.Model with a dict of inputs such as "
                f"`token_ids` and `padding_mask`, and a `token_embedding`). Received: backbone={backbone!r}"
            )
        missing = sorted({"token_ids", "padding_mask"} - set(inputs))
        if missing:
            raise ValueError(
                f"`backbone` needs the inputs `token_ids` and `padding_mask`. Received: inputs {sorted(backbone.input)}"
            )
        self.backbone = backbone
        if fine_tune != "documents":
            try:
                fine_tune = check_bool("fine_tune", fine_tune)
            except ValueError:
                raise ValueError(
                    f"`fine_tune` must be False, True or 'documents'. Received: fine_tune={fine_tune!r}"
                ) from None
        self.fine_tune = fine_tune
        self._train_backbone(bool(self.fine_tune))
        # The label side's own frozen copy, made before any training moves the backbone.
        self.label_backbone = self._frozen_copy(backbone) if fine_tune == "documents" else None

    @staticmethod
    def _frozen_copy(backbone):
        config = keras.saving.serialize_keras_object(backbone)
        config["config"]["name"] = f"{backbone.name}_labels"
        copy = keras.saving.deserialize_keras_object(config)
        copy.set_weights(backbone.get_weights())
        copy.trainable = False
        return copy

    def _train_backbone(self, value):
        self.backbone.trainable = value
        for layer in self.backbone.layers:  # a pooler (BERT's `pooled_dense`) gets no gradient from mean pooling
            if "pooled" in layer.name:
                layer.trainable = False

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        keras.layers.Layer.trainable.fset(self, value)
        if hasattr(self, "fine_tune"):  # `fine_tune=False` holds through `model.trainable = True`
            self._train_backbone(bool(value) and bool(self.fine_tune))
            if getattr(self, "label_backbone", None) is not None:  # the label side's copy stays as pretrained
                self.label_backbone.trainable = False

    @property
    def input_dim(self):
        return int(self.backbone.token_embedding.input_dim)

    @property
    def output_dim(self):
        return int(self.backbone.token_embedding.output_dim)

    @property
    def max_length(self):
        """The longest sequence the backbone reads (its position embeddings), or None when it does not say."""
        return getattr(self.backbone, "max_sequence_length", None)

    def _check_shape(self, shape):
        shape = tuple(shape)
        if len(shape) != 2 or (shape[-1] is not None and self.max_length and shape[-1] > self.max_length):
            raise ValueError(
                f"`token_ids` must be (batch, length) with length <= {self.max_length} (the backbone's positions). "
                f"Received: token_ids with shape {shape}"
            )

    def build(self, input_shape=None):
        if input_shape is not None and len(input_shape) != 1:  # `(None,)`: built as a head's shared table
            self._check_shape(input_shape)
        self.built = True  # the backbone is a functional model: built when constructed

    def _states(self, token_ids, training, backbone=None):
        self._check_shape(token_ids.shape)
        backbone = self.backbone if backbone is None else backbone
        ids = ops.cast(token_ids, "int32")
        mask = ops.not_equal(ids, 0)
        inputs = {"token_ids": ids, "padding_mask": mask}
        if "segment_ids" in backbone.input:
            inputs["segment_ids"] = ops.zeros_like(ids)
        states = backbone(inputs, training=training)
        return ops.convert_to_tensor(states["sequence_output"] if isinstance(states, dict) else states), ids, mask

    def encode(self, token_ids, training=None):
        """`(N, d)` unit mean token states of `token_ids` `(N, T)`, as label heads read descriptions (with the
        frozen copy under `fine_tune="documents"`); a sequence of padding only gives zeros."""
        if self.label_backbone is None:
            return self(token_ids, training=training)["pooled"]
        states, _, mask = self._states(token_ids, False, self.label_backbone)
        return unit_mean(ops.cast(states, "float32"), ops.cast(mask, "float32"))

    def call(self, token_ids, training=None):
        states, ids, mask = self._states(token_ids, training if self.fine_tune else False)
        pooled = unit_mean(ops.cast(states, "float32"), ops.cast(mask, "float32"))
        return {"pooled": pooled, "token_states": states, "token_ids": ids, "token_mask": mask}

    def compute_output_shape(self, input_shape):
        self._check_shape(input_shape)
        batch, length = tuple(input_shape)
        return {
            "pooled": (batch, self.output_dim),
            "token_states": (batch, length, self.output_dim),
            "token_ids": (batch, length),
            "token_mask": (batch, length),
        }

    def compute_output_spec(self, token_ids, training=None):
        shapes = self.compute_output_shape(token_ids.shape)
        dtypes = {"pooled": "float32", "token_states": self.backbone.compute_dtype}
        dtypes.update(token_ids="int32", token_mask="bool")
        return {key: keras.KerasTensor(shape, dtypes[key]) for key, shape in shapes.items()}

    def get_config(self):
        config = super().get_config()
        config.update(backbone=keras.saving.serialize_keras_object(self.backbone), fine_tune=self.fine_tune)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["backbone"] = keras.saving.deserialize_keras_object(config["backbone"])
        return cls(**config)
